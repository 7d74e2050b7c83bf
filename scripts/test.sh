#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test (ctest). GPU tests report "skipped" with
# the reason on machines without a CUDA device; Vulkan tests use whatever device exists (Mesa lavapipe in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --preset default -j2 --timeout 600
