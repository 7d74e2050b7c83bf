#!/usr/bin/env bash
# Two graphsim binaries side by side on one GPU (issue 18: "old and new binaries in one run"): the product path's
# median host cost and frame times at 16,384 and 131,072 bodies, alternating old/new REPS times so that drift of the
# machine shows as spread, not as a difference. JSON per run under OUT, then one line per run and, per size and
# binary, the median host cost over the runs.
# usage: [SIM_ONLY=1] scripts/bench-compare.sh OLD_BIN NEW_BIN [OUT] [REPS]
# SIM_ONLY=1: the compute-only graph (`--sim-only`): the launch path's host cost without Vulkan's submit, whose spread
# hides a few microseconds (docs/PERFORMANCE.md, issue 27's rounds).
set -euo pipefail
old=$1 new=$2 out=${3:-${OUT:-bench-compare}} reps=${4:-2}
mode=(--variants none)
[ "${SIM_ONLY:-0}" = 1 ] && mode=(--sim-only) # n-body's --sim-only takes no --variants
mkdir -p "$out"
for rep in $(seq 1 "$reps"); do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    "$bin" bench --backend cuda --quiet --bodies 16384 --frames 2000 --warmup 200 "${mode[@]}" \
      --json "$out/b16k_${which}_$rep.json" >/dev/null
    "$bin" bench --backend cuda --quiet --bodies 131072 --frames 300 --warmup 30 "${mode[@]}" \
      --json "$out/b131k_${which}_$rep.json" >/dev/null
  done
done
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
medians = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "b*.json"))):
    j = json.load(open(f)); h = j["host_overhead_us"]
    print("%-22s host total %7.2f us (updates %6.2f, launch %6.2f, submit %6.2f)  frame mean %.4f ms p50 %.4f  sim %.4f ms"
          % (os.path.basename(f), h["total"], h["node_updates"], h["graph_launch"], h["vk_submit"] or 0,
             j["frame_ms"]["mean"], j["frame_ms"]["p50"], j["sim_gpu_ms"] or 0))
    medians.setdefault(os.path.basename(f).rsplit("_", 1)[0], []).append(h["total"])
for key, v in sorted(medians.items()):
    print("%-12s host total over %d runs: median %.2f us, range %.2f-%.2f" % (key, len(v), statistics.median(v), min(v), max(v)))
PY
