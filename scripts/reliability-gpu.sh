#!/usr/bin/env bash
# The GPU half of issue 6 (docs/RELIABILITY.md), on a machine with an NVIDIA GPU: the reliability tests with their
# CUDA cases, the 10,000-frame CUDA soak with validation, each injected fault on the CUDA backend with its exit code,
# time and message, Ctrl-C during a CUDA run, and compute-sanitizer over a short CUDA soak. Logs go to $OUT
# (default ./reliability-out), one line per step in summary.txt.
# usage: scripts/reliability-gpu.sh [BIN_DIR] [all|soak|faults]   (soak + faults: two device calls of < 10 min)
set -uo pipefail
bin=${1:-build/bin}
part=${2:-all}
out=${OUT:-reliability-out}
mkdir -p "$out"
summary="$out/summary.txt"
elapsed() { # seconds since a `date +%s%N` stamp, without bc (the GPU machine has none)
  local ns=$(( $(date +%s%N) - $1 ))
  printf '%d.%03d' $((ns / 1000000000)) $((ns / 1000000 % 1000))
}
step() { # name, command...: runs it, keeps its log, records exit code, seconds and the lines that matter
  local name=$1; shift
  local start=$(date +%s%N)
  "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  local seconds=$(elapsed "$start")
  printf '%-22s rc=%-3s %6.1fs  %s\n' "$name" "$rc" "$seconds" \
    "$(grep -E 'PASSED|FAILED|result:|checkpoint errors|graph:|ERROR SUMMARY|validation messages|timeout:|CUDA error|lacks|cannot write|interrupted|interop unavailable|frames of|blew up' "$out/$name.txt" | tr '\n' ' ' | cut -c1-400)" | tee -a "$summary"
}
nvidia-smi -L | tee "$summary"
run=("$bin/graphsim" run --backend cuda --headless --bodies 4096 --frames 300 --quiet --wait-timeout-ms 1000)

if [ "$part" != faults ]; then
step reliability_tests "$bin/reliability_tests"
step soak10k "$bin/graphsim" soak --backend cuda --frames 10000 --bodies 1024 --seed 1 --validation --quiet
step soak10k_seed2 "$bin/graphsim" soak --backend cuda --frames 10000 --bodies 1024 --seed 2 --validation --quiet
step soak_cpu2k "$bin/graphsim" soak --backend cpu --frames 2000 --bodies 1024 --validation --quiet
fi
[ "$part" = soak ] && exit 0

step vulkan_stall "${run[@]}" --validation --inject vulkan-semaphore-stall@10
step cuda_stall "${run[@]}" --validation --inject cuda-semaphore-stall@10
step kernel_fail "${run[@]}" --validation --inject kernel-fail:forces@10
step kernel_fail_integ "${run[@]}" --inject kernel-fail:integrate@100
# The fluid's CUDA graph (issue 31): a kernel inside the nested WHILEs, a NaN state, a stalled graph.
fluid=("$bin/graphsim" run --scene fluid --particles 65536 --backend cuda --headless --frames 300 --quiet --wait-timeout-ms 1000)
step fluid_kernel_fail "${fluid[@]}" --validation --inject kernel-fail@10
step fluid_kernel_fail_wcsph "${fluid[@]}" --inject kernel-fail:forces@20
step fluid_non_finite "${fluid[@]}" --validation --inject non-finite@10
step fluid_cuda_stall "${fluid[@]}" --validation --inject cuda-semaphore-stall@10
# --interop auto (the default): each interop failure falls back to host copy, runs to the end and says so (exit 0);
# --interop on keeps the environment error (exit 3), or the named CUDA error for a failed import (exit 1).
step uuid_mismatch_auto "${run[@]}" --validation --inject uuid-mismatch
step missing_ext_auto "${run[@]}" --validation --inject missing-extension
step import_fail_auto "${run[@]}" --validation --inject import-fail
step interop_off "${run[@]}" --validation --interop off
step uuid_mismatch_on "${run[@]}" --interop on --inject uuid-mismatch
step missing_ext_on "${run[@]}" --interop on --inject missing-extension
step import_fail_on "${run[@]}" --interop on --inject import-fail
step bench_fallback "$bin/graphsim" bench --backend cuda --bodies 4096 --frames 200 --warmup 20 --quiet \
  --interop off --json "$out/bench_fallback.json"
mkdir -p "$out/capdir"
step capture_unwritable "${run[@]}" --capture "$out/capdir/c.png" --capture-every 2 --inject capture-unwritable@10
ls -la "$out/capdir" "$out/capdir.inject-moved" >>"$out/capture_unwritable.txt" 2>&1
rm -rf "$out/capdir" "$out/capdir.inject-moved"

# Ctrl-C during a CUDA run with validation: exit 130 within a second, nothing half-written, no leak reports.
mkdir -p "$out/sigint"
"$bin/graphsim" run --backend cuda --headless --bodies 16384 --frames 100000000 --validation --quiet \
  --capture "$out/sigint/c.png" --capture-every 50 >"$out/sigint.txt" 2>&1 &
pid=$!
sleep 4
t0=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
echo "exit $rc $(elapsed "$t0") s after SIGINT; files: $(ls -a "$out/sigint" | tr '\n' ' ')" | tee -a "$out/sigint.txt"
printf '%-22s rc=%-3s %s\n' sigint "$rc" "$(tail -2 "$out/sigint.txt" | tr '\n' ' ' | cut -c1-300)" | tee -a "$summary"
rm -rf "$out/sigint"

step memcheck_soak timeout 500 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$bin/graphsim" soak --backend cuda --frames 300 --bodies 256 --checkpoint-every 50 --quiet --wait-timeout-ms 60000
step synccheck_soak timeout 500 compute-sanitizer --tool synccheck --error-exitcode 9 \
  "$bin/graphsim" soak --backend cuda --frames 300 --bodies 256 --checkpoint-every 50 --quiet --wait-timeout-ms 60000
# The host-copy path (--interop off) under memcheck: the compute-only graph, the device->host copy, the staging upload.
step memcheck_hostcopy timeout 500 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$bin/graphsim" run --backend cuda --headless --interop off --bodies 2048 --frames 100 --quiet --wait-timeout-ms 60000
