#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running graphsim: installs what is missing, builds, and runs the
# default scene. Backend auto: CUDA where a CUDA device exists, else the CPU reference backend (it says which).
# Extra arguments go to `graphsim run` (e.g. --bodies 65536 --frames 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p out
capture="out/graphsim.png"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "run: a display exists, but the windowed front end is not built yet: rendering headless" >&2
fi
exec build/bin/graphsim run --headless --frames 240 --capture "$capture" "$@"
