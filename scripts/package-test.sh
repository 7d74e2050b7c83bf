#!/usr/bin/env bash
# The .deb, end to end: CPack builds it from build/ (scripts/build.sh first; CPack itself builds what is out of date),
# then it is extracted into a temporary root (dpkg -x) and that root's usr/bin/graphsim --version runs with its
# libraries from the system. Checks on the way: the file name carries the version, Depends came from dpkg-shlibdeps,
# the system satisfies them (apt-get --simulate), the layout (binary, presets, docs; nothing else in usr/bin), and the
# packaged binary prints what build/bin/graphsim prints. Any failure exits non-zero. Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "package-test: $*" >&2
  exit 1
}
[ -f build/CPackConfig.cmake ] || fail "build/CPackConfig.cmake missing: configure and build first (scripts/build.sh)"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/CMakeCache.txt)
[ -n "$version" ] || fail "no CMAKE_PROJECT_VERSION in build/CMakeCache.txt"

work=$(mktemp -d "${TMPDIR:-/tmp}/graphsim-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! cpack --config build/CPackConfig.cmake -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack failed"
fi
arch=$(dpkg --print-architecture)
deb="$work/out/graphsim_${version}_${arch}.deb"
[ -f "$deb" ] || { cat "$work/cpack.log" >&2; fail "cpack did not write graphsim_${version}_${arch}.deb"; }
echo "package-test: built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

[ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || fail "Version field is not $version"
depends=$(dpkg-deb --field "$deb" Depends)
echo "package-test: Depends: $depends"
# dpkg-shlibdeps names the Vulkan loader for the binary's libvulkan.so.1; an empty or hand-written list would not.
[[ $depends == *libvulkan1* && $depends == *libc6* ]] || fail "Depends does not look computed by dpkg-shlibdeps"

# Would installing it need anything this system lacks? (A simulation: no root, nothing changes.)
simulated=$(apt-get install --simulate --no-install-recommends "$deb" 2>&1) || {
  echo "$simulated" >&2
  fail "apt-get cannot resolve the package's Depends"
}
missing=$(grep '^Inst ' <<<"$simulated" | grep -v '^Inst graphsim ' || true)
[ -z "$missing" ] || fail "installing it would also install: $missing"

root="$work/root"
dpkg -x "$deb" "$root"
[ "$(ls "$root/usr/bin")" = graphsim ] || fail "usr/bin holds more than graphsim: $(ls "$root/usr/bin" | tr '\n' ' ')"
for preset in assets/scenes/*.json; do
  cmp -s "$preset" "$root/usr/share/graphsim/scenes/$(basename "$preset")" || fail "preset $preset not installed"
done
[ -f "$root/usr/share/doc/graphsim/README.md" ] || fail "usr/share/doc/graphsim/README.md missing"
[ -f "$root/usr/share/doc/graphsim/docs/ARCHITECTURE.md" ] || fail "usr/share/doc/graphsim/docs/ missing"

packaged=$("$root/usr/bin/graphsim" --version) || fail "the packaged graphsim --version failed"
echo "package-test: $packaged"
format="^graphsim ${version//./\\.} \\(git ([0-9a-f]{7,40}(-dirty)?|unknown)\\)$"
[[ $packaged =~ $format ]] || fail "--version printed '$packaged', not 'graphsim $version (git HASH[-dirty]|unknown)'"
built=$(build/bin/graphsim --version)
[ "$packaged" = "$built" ] || fail "the package says '$packaged', build/bin/graphsim says '$built'"
echo "package-test: ok"
