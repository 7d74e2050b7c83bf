#!/usr/bin/env bash
# Configures and builds graphsim with the default preset (build/, RelWithDebInfo, sm_90 + PTX).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default
