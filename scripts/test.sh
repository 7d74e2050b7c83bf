#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test (ctest). GPU tests report "skipped" with
# the reason on machines without a CUDA device; Vulkan tests use whatever device exists (Mesa lavapipe in CI), and
# the windowed tests a virtual display when there is no real one.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# Windowed tests need a display: without one, the suite runs inside a virtual X server (Xvfb; Vulkan via lavapipe).
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  xvfb-run -a -s "-screen 0 1920x1080x24" ctest --preset default -j2 --timeout 600
else
  ctest --preset default -j2 --timeout 600
fi
