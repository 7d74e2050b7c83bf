#!/usr/bin/env bash
# Packs this build for one GPU-machine run (docs/GPU-TESTING.md): the binaries stripped into a tarball, the libraries
# they link (FFmpeg's 130 of them too) as two xz tarballs split by size, and .devrt/ (../shared/device/pack: the
# Vulkan loader packages and env.sh) without its lib/, so that everything fits the 64 MiB a device call carries.
#
#   [BINS="graphsim gpu_tests"] scripts/device-pack.sh [OLD_BIN_DIR]
#
# Carry [".devrt", ".gpu1", ".gpu2"] and start the device command with scripts/device-unpack.sh's line (it prints it).
# OLD_BIN_DIR: another build's bin/ (e.g. the main a change is compared with), packed as build/dbin-old/.
set -euo pipefail
cd "$(dirname "$0")/.."
pack=../shared/device/pack
[ -x "$pack" ] || { echo "device-pack: $pack not found (the GPU machine's packer)" >&2; exit 2; }
# BINS="graphsim gpu_tests": only those (a lighter pack, e.g. beside an old build).
bins=(graphsim gpu_tests cli_tests graphsim_render_tests ui_tests unit_tests reliability_tests
  graphsim_test_scenes ballistic_gpu_tests ballistic_ui_tests) # the test-only scene (tests/scenes, docs/SCENES.md)
[ -n "${BINS:-}" ] && read -r -a bins <<<"$BINS"
rm -rf build/dbin build/dbin-old .gpu1 .gpu2 .devrt/lib
mkdir -p build/dbin .gpu1 .gpu2
for b in "${bins[@]}"; do strip -o "build/dbin/$b" "build/bin/$b"; done
if [ $# -gt 0 ]; then
  mkdir -p build/dbin-old
  strip -o build/dbin-old/graphsim "$1/graphsim"
fi
"$pack" build/bin/graphsim build/bin/gpu_tests build/bin/unit_tests >/dev/null
# The libraries in two halves of about equal size (largest first, alternating), each an xz tarball.
mapfile -t libs < <(cd .devrt/lib && ls -S)
half=(a b)
lists=([0]="" [1]="")
for i in "${!libs[@]}"; do lists[$((i % 2))]+="${libs[$i]}"$'\n'; done
printf '%s' "${lists[0]}" | tar -C .devrt/lib -cf - -T - | xz -6 -T2 >.gpu1/la.tar.xz
printf '%s' "${lists[1]}" | tar -C .devrt/lib -cf - -T - | xz -6 -T2 >.gpu2/lb.tar.xz
tar -C build -cf - dbin $([ -d build/dbin-old ] && echo dbin-old) | xz -6 -T2 >.gpu2/bin.tar.xz
rm -rf .devrt/lib
du -ch .devrt .gpu1 .gpu2 | tail -1 | sed 's/^/device-pack: carry .devrt .gpu1 .gpu2, /'
