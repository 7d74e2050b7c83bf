#!/usr/bin/env bash
# Configures and builds graphsim with the default preset (build/, RelWithDebInfo, sm_90 + PTX): every target, or only
# the targets named (scripts/run.sh builds just the app, `graphsim`; scripts/test.sh builds everything).
#
#   scripts/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
if [ $# -gt 0 ]; then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build --preset default "${targets[@]}"
else
  cmake --build --preset default
fi
