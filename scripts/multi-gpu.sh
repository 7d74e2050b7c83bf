#!/usr/bin/env bash
# The two-GPU checks of issue 16 (docs/MULTI-GPU.md) on a machine with at least two NVIDIA GPUs: the MultiGpu tests
# (plain and under compute-sanitizer memcheck), validated two-GPU runs, a soak, and the scaling table. Logs go to $OUT
# (default ./multi-gpu-out). usage: [SCALING=0] [CHECKS=0] [BASE=dir] [STEP_TIMEOUT=s] scripts/multi-gpu.sh [BIN_DIR]
#   BASE: another build's bin dir (e.g. the commit before), benched beside this one on GPU 0 (one-GPU regression).
set -uo pipefail
bin=${1:-build/bin}
out=${OUT:-multi-gpu-out}
mkdir -p "$out"
summary="$out/summary.txt"
step() { # name, command...: runs it, keeps its log, records the exit code and its key lines
  local name=$1; shift
  local start=$SECONDS
  timeout "${STEP_TIMEOUT:-600}" "$@" >"$out/$name.txt" 2>&1 # a hung collective must not eat the session
  local rc=$?
  printf '%-16s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - start))" "$(grep -E 'PASSED|FAILED|ERROR SUMMARY|validation messages|scaling,|efficiency' "$out/$name.txt" | tr '\n' ' ' | cut -c1-300)" | tee -a "$summary"
}
nvidia-smi -L | tee "$summary"
nvidia-smi topo -m >"$out/topo.txt" 2>&1
if [ "${CHECKS:-1}" = 1 ]; then
step multi_tests "$bin/gpu_tests" --gtest_filter='*MultiGpu*'
step memcheck compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$bin/gpu_tests" --gtest_filter='*MultiGpu*'
step run2gpu "$bin/graphsim" run --backend cuda --gpus 0,1 --headless --frames 300 --bodies 65536 --validation \
  --profile --capture "$out/two-gpus.png" --dump-graph "$out/two-gpus.dot"
step run1gpu "$bin/graphsim" run --backend cuda --gpu 0 --headless --frames 300 --bodies 65536 --validation \
  --capture "$out/one-gpu.png"
echo '{"substeps": 2}' >"$out/two-substeps.json"
step memcheck_run compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$bin/graphsim" run --backend cuda --gpus 0,1 \
  --headless --frames 30 --bodies 40000 --config "$out/two-substeps.json"
step soak2gpu "$bin/graphsim" soak --backend cuda --gpus 0,1 --frames 600 --bodies 20000 --validation
step bad_gpu "$bin/graphsim" run --backend cuda --gpus 0,7 --headless --frames 3
fi
if [ "${SCALING:-1}" = 1 ]; then
  step scale65k "$bin/graphsim" bench --backend cuda --gpus 0,1 --sim-only --quiet --bodies 65536 --frames 300 \
    --warmup 30 --json "$out/scale65k.json"
  step scale262k "$bin/graphsim" bench --backend cuda --gpus 0,1 --sim-only --quiet --bodies 262144 --frames 60 \
    --warmup 6 --json "$out/scale262k.json"
  step scale1m "$bin/graphsim" bench --backend cuda --gpus 0,1 --sim-only --quiet --bodies 1048576 --frames 8 \
    --warmup 2 --json "$out/scale1m.json"
  step scale4m "$bin/graphsim" bench --backend cuda --gpus 0,1 --sim-only --quiet --bodies 4194304 --frames 2 \
    --warmup 1 --wait-timeout-ms 120000 --json "$out/scale4m.json" # a frame on one GPU takes about 6 s
  # End to end: the product path (interop, render on GPU 0) at 1M bodies on two GPUs, validated.
  step e2e1m "$bin/graphsim" bench --backend cuda --gpus 0,1 --quiet --bodies 1048576 --frames 8 --warmup 2 \
    --validation --json "$out/e2e1m.json"
fi
if [ -n "${BASE:-}" ]; then # one GPU, this build against BASE, same machine, interleaved
  for n in 16384 131072; do
    for round in 1 2; do
      step "base$n-$round" "$BASE/graphsim" bench --backend cuda --gpu 0 --sim-only --quiet --bodies $n --frames 400
      step "new$n-$round" "$bin/graphsim" bench --backend cuda --gpu 0 --sim-only --quiet --bodies $n --frames 400
    done
  done
fi
