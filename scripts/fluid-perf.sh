#!/usr/bin/env bash
# The fluid's figures of issue 29 on one GPU (docs/PERFORMANCE.md, "Neighbour lists with a skin"): the DFSPH product,
# compute-only, at each size and neighbour skin, with the build before the change (OLD) beside it in the same run.
# Each run's JSON (with its per-pass times) and log go to $OUT; a table of the figures is printed and kept in
# $OUT/fluid-perf.txt.
#
#   [OLD=old/graphsim] [SIZES="65536 262144 1048576"] [SKINS="0 0.1 0.2"] [OUT=dir] scripts/fluid-perf.sh [BIN_DIR]
#
# DFSPH='"divergenceMinIterations": 1' adds keys to every run's "dfsph" object, and TAG=div1 names those runs
# div1-skinS-N instead of skinS-N, so that two settings land side by side in one $OUT and one table.
set -uo pipefail
bin=${1:-build/bin}
out=${OUT:-fluid-perf-out}
sizes=${SIZES:-65536 262144 1048576}
skins=${SKINS:-0 0.1 0.2}
mkdir -p "$out"
frames() { # frames and warm-up for a size: about 10 s of frames each
  if [ "$1" -ge 1048576 ]; then echo "--frames 20 --warmup 5 --wait-timeout-ms 60000"
  elif [ "$1" -ge 262144 ]; then echo "--frames 100 --warmup 20"
  else echo "--frames 200 --warmup 20"; fi
}
run() { # name, binary, size, [config]
  local name=$1 exe=$2 n=$3 config=${4:-}
  # shellcheck disable=SC2046 # frames' words are flags
  timeout 300 "$exe" bench --scene fluid --backend cuda --sim-only --quiet --variants none --particles "$n" \
    $(frames "$n") ${config:+--config "$config"} --json "$out/$name.json" >"$out/$name.log" 2>&1 ||
    echo "$name: exit $? (log: $out/$name.log)"
}
for n in $sizes; do
  [ -n "${OLD:-}" ] && run "old-$n" "$OLD" "$n"
  for skin in $skins; do
    name=${TAG:+$TAG-}skin$skin
    printf '{"dfsph": {"neighbourSkin": %s%s}}\n' "$skin" "${DFSPH:+, $DFSPH}" >"$out/config-$name.txt"
    run "$name-$n" "$bin/graphsim" "$n" "$out/config-$name.txt"
  done
done
python3 - "$out" <<'EOF' | tee "$out/fluid-perf.txt"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
print(f"{'run':<22} {'frame ms':>9} {'steps':>6} {'re-sorts':>8} {'div it':>6} {'dens it':>10} {'peak %':>6} "
      f"{'covered':>7} {'RTF':>6} {'B/part':>7} {'pass step ms':>12}")
runs = [f for f in out.glob("*-*.json") if f.stem.rsplit("-", 1)[-1].isdigit()]
for f in sorted(runs, key=lambda p: (int(p.stem.rsplit("-", 1)[-1]), p.stem)):
    v = json.loads(f.read_text())["variants"][0]
    s = v.get("solver", {}) or {}
    passes = v.get("passes") or {}
    it = s.get("density_iterations") or {}
    div = s.get("divergence_iterations") or {}
    print(f"{f.stem:<22} {v['frame_ms']['mean']:>9.3f} {v.get('substeps_per_frame') or 0:>6.1f} "
          f"{s.get('resorts_per_frame', float('nan')):>8.2f} {div.get('mean', 0):>6.2f} {it.get('mean', 0):>6.2f}/{it.get('max', 0):<3} "
          f"{100 * (s.get('peak_compression') or 0):>6.2f} {s.get('least_frame_covered') or 0:>7.3f} "
          f"{s.get('real_time_factor', 0):>6.3f} {v.get('gpu_bytes_per_particle') or 0:>7.1f} "
          f"{passes.get('step_ms', float('nan')):>12.4f}")
    for r in passes.get("rows", []):
        print(f"    {r['name']:<18} {r['ms']:.4f} ms x {r['per_step']:.2f}")
EOF
