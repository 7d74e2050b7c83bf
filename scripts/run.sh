#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running graphsim: installs what is missing, builds, and runs the
# default scene: in a window with the graph panel where a display exists, else headless for 240 frames with a
# capture in out/graphsim.png. Backend auto: CUDA where a CUDA device exists, else the CPU reference backend (it says
# which). Extra arguments go to `graphsim run` (e.g. --bodies 65536 --frames 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/bin/graphsim run "$@"
fi
echo "run: no display (DISPLAY/WAYLAND_DISPLAY unset): running headless, capture in out/graphsim.png" >&2
mkdir -p out
exec build/bin/graphsim run --headless --frames 240 --capture out/graphsim.png "$@"
