#!/usr/bin/env bash
# Checks that the tracked C++/CUDA sources (*.cpp *.h *.cu *.cuh under app compute render shaders tests) are
# formatted as .clang-format says; exits 1 naming the files that are not. With --fix, formats those files in place.
#
#   scripts/check-format.sh          check (exit 0: all formatted, 1: some are not, 2: no clang-format 14)
#   scripts/check-format.sh --fix    format the unformatted files in place
#
# The format is clang-format 14's (Debian 12's package clang-format, see scripts/install-deps.sh): other major
# versions format some constructs differently. CLANG_FORMAT=/path/to/clang-format overrides the search.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
  *) echo "check-format: unknown argument '$1' (want --fix or nothing)" >&2; exit 2 ;;
esac

majorVersion() { "$1" --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9][0-9]*\).*/\1/p' | head -n 1; }

find_clang_format() {
  if [ -n "${CLANG_FORMAT:-}" ]; then
    command -v "$CLANG_FORMAT" || { echo "check-format: CLANG_FORMAT=$CLANG_FORMAT is not a command" >&2; return 1; }
    return 0
  fi
  local candidate
  for candidate in clang-format-14 /usr/lib/llvm-14/bin/clang-format /usr/bin/clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1 && [ "$(majorVersion "$candidate")" = 14 ]; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "check-format: needs clang-format 14 (Debian 12: apt-get install clang-format; scripts/install-deps.sh)" >&2
  if command -v clang-format >/dev/null 2>&1; then
    echo "check-format: found $(clang-format --version | head -n 1), whose output differs; set CLANG_FORMAT to use it" \
      "anyway" >&2
  fi
  return 1
}
clang_format=$(find_clang_format) || exit 2

files=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && files+=("$f")
done < <(git ls-files -z -- app compute render shaders tests | grep -zE '\.(cpp|h|cu|cuh)$')

unformatted=()
for f in "${files[@]}"; do
  "$clang_format" --style=file "$f" | cmp -s - "$f" || unformatted+=("$f")
done

if [ ${#unformatted[@]} -eq 0 ]; then
  echo "check-format: ${#files[@]} files formatted ($("$clang_format" --version | head -n 1))"
  exit 0
fi
if [ "$fix" = 1 ]; then
  "$clang_format" --style=file -i "${unformatted[@]}"
  printf 'check-format: formatted %s\n' "${unformatted[@]}"
  exit 0
fi
printf 'check-format: not formatted: %s\n' "${unformatted[@]}" >&2
echo "check-format: ${#unformatted[@]} of ${#files[@]} files; scripts/check-format.sh --fix formats them" >&2
exit 1
