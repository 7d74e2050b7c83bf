#!/usr/bin/env bash
# On the GPU machine, first in every device command (docs/GPU-TESTING.md): unpacks what scripts/device-pack.sh
# packed (the libraries into .devrt/lib, the stripped binaries into build/bin, an old build's into build/dbin-old).
# Then: source .devrt/env.sh
#
#   bash scripts/device-unpack.sh && source .devrt/env.sh && ...
set -euo pipefail
cd "$(dirname "$0")/.."
x() { xz -dc "$1" 2>/dev/null || python3 -c 'import lzma,sys,shutil;shutil.copyfileobj(lzma.open(sys.argv[1]),sys.stdout.buffer)' "$1"; }
mkdir -p .devrt/lib build/bin
x .gpu1/la.tar.xz | tar -C .devrt/lib -xf -
x .gpu2/lb.tar.xz | tar -C .devrt/lib -xf -
x .gpu2/bin.tar.xz | tar -C build -xf -
cp build/dbin/* build/bin/ # the tests spawn build/bin/graphsim by its absolute path
