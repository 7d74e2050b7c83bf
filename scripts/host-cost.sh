#!/usr/bin/env bash
# Host cost per frame against the frames-in-flight throttle's wait strategy (docs/PERFORMANCE.md, "Host cost"):
# `graphsim bench`, product path only, for each N and each --throttle-wait, ROUNDS times in alternation so that
# drift of the machine hits every strategy alike. Prints one summary line per run (medians per frame, microseconds).
#
#   scripts/host-cost.sh BIN_DIR OUT_DIR [ROUNDS] ["WAITS"] ["SIZES"] [extra bench flags...]
#   e.g. scripts/host-cost.sh build/bin /tmp/hc 2 "block poll spin hybrid" "4096 16384 131072"
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
bin=$1/graphsim
out=$2
rounds=${3:-2}
waits=${4:-"block poll spin hybrid"}
sizes=${5:-"4096 16384 131072"}
shift $(($# < 5 ? $# : 5))
mkdir -p "$out"
frames_for() { # measured frames and warm-up for N: about 1-3 s of frames each
  if (($1 <= 4096)); then echo "3000 200"; elif (($1 <= 16384)); then echo "2000 200"; else echo "300 30"; fi
}
for r in $(seq 1 "$rounds"); do
  for n in $sizes; do
    read -r frames warmup <<<"$(frames_for "$n")"
    for wait in $waits; do
      "$bin" bench --backend cuda --bodies "$n" --frames "$frames" --warmup "$warmup" --variants none \
        --throttle-wait "$wait" --quiet --json "$out/host_${n}_${wait}_r$r.json" "$@" >"$out/host_${n}_${wait}_r$r.txt"
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
print(f"{'N':>8} {'wait':>7} {'run':>4} {'frame ms':>9} {'total':>7} {'upd':>6} {'launch':>7} {'submit':>7} "
      f"{'vkQS':>6} {'cpu loop':>9} {'cpu proc':>9}")
rows = []
for path in glob.glob(os.path.join(sys.argv[1], "host_*.json")):
    j = json.load(open(path))
    h, c = j["host_overhead_us"], j.get("cpu_us_per_frame") or {}
    rows.append((j["bodies"], j["throttle_wait"], os.path.basename(path).rsplit("_", 1)[1][:-5], j["frame_ms"]["mean"],
                 h["total"], h["node_updates"], h["graph_launch"], h.get("vk_submit") or 0,
                 h.get("vk_queue_submit") or 0, c.get("loop_thread", 0), c.get("process", 0)))
for r in sorted(rows):
    print(f"{r[0]:>8} {r[1]:>7} {r[2]:>4} {r[3]:>9.4f} {r[4]:>7.2f} {r[5]:>6.2f} {r[6]:>7.2f} {r[7]:>7.2f} "
          f"{r[8]:>6.2f} {r[9]:>9.1f} {r[10]:>9.1f}")
PY
