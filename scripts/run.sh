#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running graphsim: installs what is missing, builds the app (only the
# graphsim target, no test binaries: scripts/test.sh builds those), and runs the default scene: in a window with the
# graph panel where a display exists, else headless for 240 frames with a capture in out/graphsim.png (a --frames or
# --capture given replaces that default). Backend auto: CUDA where a CUDA device exists, else the CPU reference
# backend (it says which). Extra arguments go to `graphsim run` (e.g. --bodies 65536 --frames 1000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh graphsim
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/bin/graphsim run "$@"
fi
echo "run: no display (DISPLAY/WAYLAND_DISPLAY unset): running headless (default capture: out/graphsim.png)" >&2
mkdir -p out
# The defaults only where the user gave no value of their own: graphsim takes each flag once.
defaults=()
given() {
  local flag=$1 arg
  shift
  for arg in "$@"; do
    case "$arg" in "$flag" | "$flag"=*) return 0 ;; esac
  done
  return 1
}
given --frames "$@" || defaults+=(--frames 240)
given --capture "$@" || defaults+=(--capture out/graphsim.png)
exec build/bin/graphsim run --headless "${defaults[@]}" "$@"
