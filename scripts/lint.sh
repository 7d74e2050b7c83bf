#!/usr/bin/env bash
# Runs clang-tidy (the checks of .clang-tidy, docs/LINT.md) over the C++ sources of app/ compute/ render/ with
# the compile commands of the default build (build/compile_commands.json), in parallel on every core; prints each
# finding as file:line:column: message [check] once (a header's finding is reported once, not once per includer) and
# exits 1 on any finding, 0 when there are none.
#
#   scripts/lint.sh                every .cpp of app/ compute/ render/ in build/compile_commands.json (the test command)
#   scripts/lint.sh --tests        those and the .cpp files of tests/ (not yet in the test command: docs/LINT.md)
#   scripts/lint.sh FILE...        only those files (.cpp; a header is checked through the .cpp files including it)
#
# Exit: 0 no finding, 1 findings (or a file clang-tidy could not parse), 2 no clang-tidy 14 or no compile commands.
# Run it after the default build (scripts/build.sh): the generated headers (shaders' *.spv.inc, app/version.h) must
# exist. CUDA .cu files are left out: nvcc compiles them, and clang-tidy cannot parse their nvcc command lines.
# LINT_JOBS=N sets the parallel jobs (default: the number of cores); CLANG_TIDY=/path/to/clang-tidy overrides the
# search (other major versions have other checks and findings).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=build
db="$build/compile_commands.json"

majorVersion() { "$1" --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9][0-9]*\).*/\1/p' | head -n 1; }

find_clang_tidy() {
  if [ -n "${CLANG_TIDY:-}" ]; then
    command -v "$CLANG_TIDY" || { echo "lint: CLANG_TIDY=$CLANG_TIDY is not a command" >&2; return 1; }
    return 0
  fi
  local candidate
  for candidate in clang-tidy-14 /usr/lib/llvm-14/bin/clang-tidy clang-tidy; do
    if command -v "$candidate" >/dev/null 2>&1 && [ "$(majorVersion "$candidate")" = 14 ]; then
      command -v "$candidate"
      return 0
    fi
  done
  echo "lint: needs clang-tidy 14 (Debian 12: apt-get install clang-tidy; scripts/install-deps.sh)" >&2
  return 1
}
folders="app compute render"
if [ "${1:-}" = --tests ]; then
  folders="$folders tests"
  shift
fi
clang_tidy=$(find_clang_tidy) || exit 2

if [ ! -f "$db" ]; then
  echo "lint: $db is missing: configure and build with the default preset first (scripts/build.sh; the preset sets" \
    "CMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2
  exit 2
fi

# The translation units: the .cpp files of those folders that the compile commands name (so only what this build
# configures), or the files given, each of which must be in the compile commands.
list=$(python3 - "$root" "$db" "$folders" "$@" <<'PYTHON'
import json, os, sys
root, db, folders, wanted = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
known = set()
for entry in json.load(open(db)):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if path.startswith(root + "/"):
        known.add(os.path.relpath(path, root))
if wanted:
    missing = False
    for f in wanted:
        rel = os.path.relpath(os.path.abspath(f), root)
        if rel not in known:
            print(f"lint: {f} is not in {db} (a .cpp file of this build?)", file=sys.stderr)
            missing = True
        else:
            print(rel)
    sys.exit(2 if missing else 0)
for rel in sorted(known):
    if rel.split("/")[0] in folders and rel.endswith(".cpp"):
        print(rel)
PYTHON
) || exit 2
files=()
[ -n "$list" ] && mapfile -t files <<< "$list"
[ ${#files[@]} -gt 0 ] || { echo "lint: no .cpp files in $db" >&2; exit 2; }

jobs=${LINT_JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
# One clang-tidy per file, its output in its own log (parallel outputs would interleave); a file whose clang-tidy exits
# non-zero is listed in $logs/failed (findings are errors by .clang-tidy's WarningsAsErrors; so are parse errors).
printf '%s\0' "${files[@]}" | xargs -0 -P "$jobs" -I{} sh -c \
  '"$1" -p "$2" --quiet "$3" > "$4/$(printf %s "$3" | tr / _).log" 2>&1 || echo "$3" >> "$4/failed"' \
  sh "$clang_tidy" "$build" {} "$logs"

# A finding is a "path:line:col: warning|error: message [check]" line; notes and code excerpts are left out (run
# clang-tidy -p build FILE for them). The same header finding seen from several files is printed once.
findings=$(cat "$logs"/*.log | grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): ' | sed "s|^$root/||" | sort -u || true)
seconds=$(( $(date +%s) - start ))
if [ -n "$findings" ]; then
  printf '%s\n' "$findings"
  count=$(printf '%s\n' "$findings" | wc -l)
  echo "lint: $count findings in ${#files[@]} files ($jobs jobs, $seconds s); fix them (docs/LINT.md), or where one is" \
    "a false positive: // NOLINT(check-name): reason" >&2
  exit 1
fi
if [ -s "$logs/failed" ]; then # clang-tidy failed without a finding line (a crash, a bad command line): say so
  while IFS= read -r f; do
    echo "lint: clang-tidy failed on $f:" >&2
    tail -n 20 "$logs/$(printf %s "$f" | tr / _).log" >&2
  done < "$logs/failed"
  exit 1
fi
echo "lint: no findings in ${#files[@]} files ($($clang_tidy --version | sed -n 's/.*\(LLVM version [0-9.]*\).*/\1/p')," \
  "$jobs jobs, $seconds s)"
