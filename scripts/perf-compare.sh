#!/usr/bin/env bash
# Old and new graphsim binaries on one GPU, alternating REPS times (issue 27's "behaviour unchanged" figures): the
# n-body forces alone (--sim-only, interactions/s) at 262,144 and 1,048,576 bodies, and the fluid's product frame
# (graph + render, F = 3: mean frame ms) at 65,536 and 262,144 particles. One line per run; JSON under OUT. The
# n-body product path's host cost: scripts/bench-compare.sh.
#
#   scripts/perf-compare.sh OLD_BIN NEW_BIN [OUT] [REPS]
set -euo pipefail
old=$1 new=$2 out=${3:-${OUT:-perf-compare}} reps=${4:-2}
mkdir -p "$out"
for rep in $(seq 1 "$reps"); do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    for n in 262144 1048576; do
      "$bin" bench --backend cuda --quiet --sim-only --bodies "$n" --frames 10 --warmup 2 \
        --json "$out/forces${n}_${which}_$rep.json" >/dev/null
    done
    for n in 65536 262144; do
      "$bin" bench --scene fluid --backend cuda --quiet --variants none --particles "$n" --frames 300 --warmup 30 \
        --json "$out/fluid${n}_${which}_$rep.json" >/dev/null
    done
  done
done
for f in "$out"/*.json; do
  python3 - "$f" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
name = os.path.basename(sys.argv[1])
if name.startswith("forces"):
    print("%-28s %.4g interactions/s" % (name, j["interactions_per_second"]))
else:
    print("%-28s frame mean %.4f ms p50 %.4f  sim %.4f ms" % (name, j["frame_ms"]["mean"], j["frame_ms"]["p50"],
                                                              j.get("sim_gpu_ms") or 0))
PY
done
