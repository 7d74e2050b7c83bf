#!/usr/bin/env bash
# Interactive capacity (docs/PERFORMANCE.md): the end-to-end frame of the product path (CUDA graph + Vulkan render
# at the preset's 1280x720, F = 3, headless) for a sweep of body counts, so that the largest N holding 60 and 144
# frames/s can be read off. One `graphsim bench --variants none` per N; prints N, mean and p99 frame, frames/s.
#
#   scripts/capacity.sh BIN_DIR OUT_DIR ["N1 N2 ..."] [extra bench flags...]
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,6p' "$0" >&2
  exit 2
fi
bin=$1/graphsim
out=$2
sizes=${3:-"65536 98304 114688 131072 147456 163840 180224 196608"}
shift $(($# < 3 ? $# : 3))
mkdir -p "$out"
printf '%9s %9s %9s %9s\n' N "mean ms" "p99 ms" "fps"
for n in $sizes; do
  "$bin" bench --backend cuda --bodies "$n" --frames 300 --warmup 30 --variants none --quiet \
    --json "$out/capacity_$n.json" "$@" >"$out/capacity_$n.txt"
  python3 - "$out/capacity_$n.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = j["frame_ms"]
print(f"{j['bodies']:>9} {f['mean']:>9.3f} {f['p99']:>9.3f} {j['fps']:>9.1f}")
PY
done
