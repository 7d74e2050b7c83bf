#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks the format and the include floors, builds, lints (clang-tidy,
# docs/LINT.md), runs every test (ctest). GPU tests report "skipped" with the reason on machines without a CUDA device;
# Vulkan tests use whatever device exists (Mesa lavapipe in CI), and the windowed tests a virtual display when there is
# no real one. Then the .deb: built with CPack, extracted into a temporary root, its graphsim --version run
# (scripts/package-test.sh).
#
# Then the CPU test labels (unit, render, cli, ui) again, built with AddressSanitizer + UndefinedBehaviorSanitizer
# (CMakePresets.json "asan": build-asan/, only the targets those labels need). Any sanitizer report fails the run;
# leaks inside the Vulkan validation layer are suppressed by name (tests/sanitizers/lsan.supp).
# GRAPHSIM_SKIP_ASAN=1 skips that second pass (for quick local runs; CI runs both).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Sources formatted as .clang-format says (fails naming the files; `scripts/check-format.sh --fix` formats them).
scripts/check-format.sh
# Includes layered (app/ floors in scripts/floors.txt, compute/ and render/ apart; fails naming file, line and include),
# and the checker itself shown to fail on planted bad includes.
scripts/check-includes.sh
scripts/check-includes.sh --self-test
start=$(date +%s)
scripts/build.sh
echo "test.sh: default build, every target: $(( $(date +%s) - start )) s"
# clang-tidy (.clang-tidy's checks, docs/LINT.md) over the .cpp sources with the build's compile commands: after the
# build, which generates the headers they include; any finding fails, named by file and line.
start=$(date +%s)
scripts/lint.sh
echo "test.sh: lint: $(( $(date +%s) - start )) s"

# Windowed tests need a display: without one, the suite runs inside a virtual X server (Xvfb; Vulkan via lavapipe).
with_display() {
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    xvfb-run -a -s "-screen 0 1920x1080x24" "$@"
  else
    "$@"
  fi
}

start=$(date +%s)
with_display ctest --preset default -j2 --timeout 600
echo "test.sh: default build, all labels: $(( $(date +%s) - start )) s"

# The .deb (CPack) from that build, extracted into a temporary root, its graphsim --version run.
scripts/package-test.sh

if [ "${GRAPHSIM_SKIP_ASAN:-0}" != "1" ]; then
  start=$(date +%s)
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  with_display ctest --preset asan
  echo "test.sh: ASan + UBSan build and CPU labels: $(( $(date +%s) - start )) s"
fi
