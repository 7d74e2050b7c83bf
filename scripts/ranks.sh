#!/usr/bin/env bash
# One process per GPU on this machine (issue 32, docs/MULTI-GPU.md "One process per GPU"): starts WORLD graphsim
# processes with the RANK/WORLD_SIZE/LOCAL_RANK launcher convention and one rendezvous file, waits for all of them
# (bounded), prints each rank's exit code and time (in the order they end), and rank 0's output. Slurm (srun) and Open MPI (mpirun) set their
# own variables instead; graphsim reads those the same way.
#
#   [WORLD=4] [KILL_RANK=r KILL_AFTER=s] [WRAP_RANK=r WRAP="cmd args"] [LIMIT=s] scripts/ranks.sh BIN_DIR args...
#   e.g. WORLD=4 scripts/ranks.sh build/bin bench --backend cuda --sim-only --bodies 1048576 --frames 8 --warmup 2
#
# WRAP: rank WRAP_RANK (default 0) runs under that command (e.g. WRAP="compute-sanitizer --tool memcheck").
# KILL_RANK: SIGKILL that rank KILL_AFTER seconds in (a rank that dies); the others must end on their own within
# their wait timeout (exit 1 naming what stalled). LIMIT (default 600 s): a rank still running then is killed and
# reported as hung (exit code 124). Exit 0 when every rank exited 0.
set -uo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
bin=$1/graphsim
shift
world=${WORLD:-4}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
t_start=$(date +%s%3N)
ms() { echo $(($(date +%s%3N) - t_start)); }
pids=()
for ((r = 0; r < world; ++r)); do
  wrap=()
  [[ -n "${WRAP:-}" && $r -eq ${WRAP_RANK:-0} ]] && read -r -a wrap <<<"$WRAP"
  RANK=$r WORLD_SIZE=$world LOCAL_RANK=$r GRAPHSIM_JOB_KEY="ranks-sh-$$" \
    "${wrap[@]}" "$bin" "$@" --rendezvous "$dir/nccl.id" >"$dir/out.$r" 2>"$dir/err.$r" &
  pids+=($!)
done
if [[ -n "${KILL_RANK:-}" ]]; then
  sleep "${KILL_AFTER:-5}"
  kill -KILL "${pids[$KILL_RANK]}" 2>/dev/null && echo "ranks: killed rank $KILL_RANK at $(ms) ms"
fi
( sleep "${LIMIT:-600}"; for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done ) &
watchdog=$!
status=0
# In the order they end, each with its time (ms since the start) and the last line it wrote on stderr.
declare -A live # pid -> rank, of the ranks still running
for ((r = 0; r < world; ++r)); do live[${pids[$r]}]=$r; done
while [[ ${#live[@]} -gt 0 ]]; do
  wait -n -p pid "${!live[@]}"
  rc=$?
  r=${live[$pid]}
  unset "live[$pid]"
  [[ $rc -eq 137 && "${KILL_RANK:-}" != "$r" ]] && rc=124 # killed by the watchdog: hung
  echo "ranks: rank $r exit $rc after $(ms) ms: $(tail -n 1 "$dir/err.$r")"
  [[ $rc -ne 0 ]] && status=1
done
kill "$watchdog" 2>/dev/null
cat "$dir/out.0"
exit $status
