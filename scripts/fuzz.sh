#!/usr/bin/env bash
# libFuzzer runs of the input-format fuzz targets (tests/fuzz, issue 31): scene_file, session_recording, snapshot,
# camera_path. Builds them with clang++ + libFuzzer + ASan + UBSan when needed (GRAPHSIM_FUZZ, in build-fuzz/; CUDA's
# host compiler stays g++), then fuzzes one target. Any crash, sanitizer report, exception other than UsageError,
# timeout or out-of-memory is a finding: libFuzzer writes the input to the work folder (below) and this script
# exits non-zero naming it.
#
#   scripts/fuzz.sh TARGET SECONDS [JOBS]  fuzz TARGET for SECONDS: the checked-in corpus tests/fuzz/corpus/TARGET is
#                                          read, never written; new inputs go to $FUZZ_WORK/corpus/TARGET (kept between
#                                          runs). JOBS > 1: that many worker processes (libFuzzer -fork) that keep
#                                          going after a finding, each one saved (JOBS = 1 stops at the first one,
#                                          unless FUZZ_KEEP_GOING=1). Ends with executions and coverage.
#   scripts/fuzz.sh --merge TARGET [MAX_NEW]
#                                          minimises the found inputs ($FUZZ_WORK/corpus/TARGET) back into the
#                                          checked-in corpus: at most MAX_NEW (default 20) of them, those adding the
#                                          most edges it lacks (libFuzzer -merge=1's coverage); nothing is removed.
#                                          The corpus stays small: tens of files, each replayed by ctest.
#   scripts/fuzz.sh --build                configure and build the four targets only
#   scripts/fuzz.sh TARGET --run FILE...   run the inputs once (a finding's reproducer: the stack, the report)
#
# The corpus replay of every target also runs in the normal builds as ctest tests (fuzz_*_corpus, label unit), so the
# checked-in inputs are checked by scripts/test.sh, under ASan + UBSan too.
#
# Environment:
#   FUZZ_BUILD=DIR    the fuzz build folder (default build-fuzz)
#   FUZZ_BIN=DIR      run the fuzz_<target> binaries in DIR as they are (no cmake, no build): binaries built on another
#                     machine with the same system libraries (e.g. build-fuzz/bin copied over)
#   FUZZ_WORK=DIR     scratch: new corpus inputs, findings (artifacts/), logs (default: fuzz-work beside the binaries'
#                     folder, build-fuzz/fuzz-work)
#   FUZZ_TIMEOUT=S    one input running longer is a finding (default 10)
#   FUZZ_RSS_MB=MB    a worker growing past this is a finding (default 2048)
#   FUZZ_MAX_LEN=N    the longest input tried (default per target below)
#   FUZZ_ARGS="..."   more libFuzzer flags (e.g. -only_ascii=1)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

targets="scene_file session_recording snapshot camera_path"
all_targets=(scene_file session_recording snapshot camera_path)
fail() {
  echo "fuzz: $*" >&2
  exit 2
}
usage() { fail "usage: scripts/fuzz.sh TARGET SECONDS [JOBS] | --merge TARGET [MAX_NEW] | --build | TARGET --run FILE... (TARGET: ${targets// / | })"; }
known() { [[ " $targets " == *" $1 "* ]] || fail "unknown target '$1' (${targets// / | })"; }

build=${FUZZ_BUILD:-build-fuzz}
bin=${FUZZ_BIN:-$build/bin}
work=${FUZZ_WORK:-$(dirname "$bin")/fuzz-work}

# The fuzz build, configured once (build-fuzz/ has nothing else: only the fuzz targets are built there).
build_targets() {
  [ -n "${FUZZ_BIN:-}" ] && return 0
  if ! grep -qs '^GRAPHSIM_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
    command -v clang++ >/dev/null || fail "needs clang++ with libFuzzer (Debian 12: apt-get install clang)"
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CUDA_HOST_COMPILER=g++ -DGRAPHSIM_FUZZ=ON >/dev/null
  fi
  local names=()
  for t in "$@"; do names+=(--target "fuzz_$t"); done
  cmake --build "$build" "${names[@]}"
}

max_len() {
  if [ -n "${FUZZ_MAX_LEN:-}" ]; then echo "$FUZZ_MAX_LEN"; return; fi
  case $1 in
  session_recording) echo 16384 ;; # a recording with a few checkpoints' positions
  snapshot) echo 8192 ;;            # a few hundred elements' state
  *) echo 4096 ;;                   # scene files, camera paths
  esac
}

# The libFuzzer flags every mode shares. OMP_NUM_THREADS=1: the CPU producer a target makes for small counts would
# otherwise start a thread per core in each worker.
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
common() {
  echo "-max_len=$(max_len "$1") -timeout=${FUZZ_TIMEOUT:-10} -rss_limit_mb=${FUZZ_RSS_MB:-2048}" \
    "-dict=$root/tests/fuzz/dict/$1.dict ${FUZZ_ARGS:-}"
}

case ${1:-} in
--build)
  build_targets "${all_targets[@]}"
  exit 0
  ;;
--merge)
  { [ $# -eq 2 ] || [ $# -eq 3 ]; } || usage
  known "$2"
  limit=${3:-20}
  [[ $limit =~ ^[0-9]+$ ]] || fail "MAX_NEW must be a whole number, got '$limit'"
  build_targets "$2"
  found="$work/corpus/$2"
  [ -d "$found" ] || fail "$found does not exist: fuzz $2 first"
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/graphsim-fuzz-merge.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  mkdir "$tmp/out"
  # libFuzzer's merge, for its control file: the edges (-use_counters=0: not hit counts) each input covers.
  # shellcheck disable=SC2046 # the flags are words
  "$bin/fuzz_$2" -merge=1 -use_counters=0 -merge_control_file="$tmp/control" $(common "$2") "$tmp/out" \
    "tests/fuzz/corpus/$2" "$found" >"$tmp/merge.log" 2>&1 || { tail -n 20 "$tmp/merge.log" >&2; fail "merge failed"; }
  # Greedy: the checked-in inputs stay; then, while one adds edges and fewer than MAX_NEW were taken, the found input
  # adding the most (the smaller of two that tie), copied under its libFuzzer name (the SHA-1 of its bytes).
  python3 - "$tmp/control" "tests/fuzz/corpus/$2" "$limit" <<'PYTHON'
import os, shutil, sys
control, corpus, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(control).read().split("\n")
files = lines[2:2 + int(lines[0])]
edges = {}
for line in lines[2 + len(files):]:
    if line.startswith("COV "):
        index, *cov = line.split()[1:]
        edges[int(index)] = set(cov)
mine = {i for i, f in enumerate(files) if os.path.dirname(os.path.abspath(f)) == os.path.abspath(corpus)}
covered = set().union(*(edges.get(i, set()) for i in mine))
candidates = {i: edges[i] for i in edges if i not in mine}
added = 0
while added < limit:
    best = max(candidates, default=None, key=lambda i: (len(candidates[i] - covered), -os.path.getsize(files[i])))
    if best is None or not candidates[best] - covered:
        break
    gain = len(candidates[best] - covered)
    covered |= candidates.pop(best)
    shutil.copy(files[best], os.path.join(corpus, os.path.basename(files[best])))
    print(f"fuzz: added {os.path.basename(files[best])} ({os.path.getsize(files[best])} bytes, +{gain} edges)")
    added += 1
left = len(set().union(set(), *candidates.values()) - covered)
print(f"fuzz: {corpus}: {added} inputs added, {len(covered)} edges; {left} edges of the found inputs not taken"
      + (" (raise MAX_NEW)" if left else ""))
PYTHON
  exit 0
  ;;
esac

[ $# -ge 2 ] || usage
target=$1
known "$target"
if [ "$2" = --run ]; then
  shift 2
  build_targets "$target"
  # shellcheck disable=SC2046
  exec "$bin/fuzz_$target" $(common "$target") "$@"
fi
seconds=$2
jobs=${3:-1}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || fail "SECONDS must be a positive whole number, got '$seconds'"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || fail "JOBS must be a positive whole number, got '$jobs'"
build_targets "$target"
[ -x "$bin/fuzz_$target" ] || fail "$bin/fuzz_$target is missing (FUZZ_BIN=$bin?)"

corpus="$work/corpus/$target"
artifacts="$work/artifacts/$target/"
mkdir -p "$corpus" "$artifacts" "$work/logs"
log="$work/logs/$target.log"
flags=$(common "$target")
flags+=" -max_total_time=$seconds -artifact_prefix=$artifacts -print_final_stats=1"
# Several workers (or FUZZ_KEEP_GOING=1): fork mode, which keeps going after a crash, timeout or OOM (each one saved
# in artifacts/), so that a known finding not yet fixed does not end a long run.
if [ "$jobs" -gt 1 ] || [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
  flags+=" -fork=$jobs -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
fi
echo "fuzz: $target for $seconds s, $jobs worker(s); new inputs in $corpus, findings in $artifacts, log $log"
count_findings() { find "$artifacts" -maxdepth 1 -type f | wc -l; }
start=$(count_findings)
status=0
began=$SECONDS
# shellcheck disable=SC2086
"$bin/fuzz_$target" $flags "$corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1 || status=$?

# The last status line: "#N ... cov: C ft: F corp: K ..." (fork mode: "#N: cov: C ft: F corp: K exec/s ...").
last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: ' "$log" | tail -n 1 || true)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
echo "fuzz: $target: ${runs:-?} executions in $((SECONDS - began)) s; ${last:-no status line (see $log)}"
echo "fuzz: $target: $(find "$corpus" -type f | wc -l) inputs in $corpus"
found=$(($(count_findings) - start))
if [ "$found" -gt 0 ] || [ "$status" -ne 0 ]; then
  grep -E 'ERROR: |runtime error: |terminate called|what\(\)|SUMMARY: ' "$log" | sort | uniq -c | head -n 20 >&2 || true
  echo "fuzz: $target: $found new finding(s) in $artifacts (exit $status); reproduce with" \
    "scripts/fuzz.sh $target --run FILE" >&2
  exit 1
fi
