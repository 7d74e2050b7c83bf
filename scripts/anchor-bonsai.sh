#!/usr/bin/env bash
# Builds the anchor tree code, Bonsai (treecode/Bonsai @ 581fa8e), beside which the CUDA tree is measured
# (docs/FORCES.md, "The anchor (Bonsai)"), and packs it for one GPU-machine run: bonsai2_slowdust for sm_90 only,
# single GPU, no MPI, no OpenGL. Bonsai's code is not copied here: the eight changes below are made in the checkout
# by single-line seds (each must match exactly where expected, or the script stops, naming the file and the change,
# and undoes its edits), then built and packed.
#
#   scripts/anchor-bonsai.sh BONSAI_CHECKOUT OUT_TARBALL     (e.g. ../bonsai .gpu2/bonsai.tar.xz)
#
# BONSAI_CHECKOUT: a clean git checkout of treecode/Bonsai at 581fa8e70501ce85660c7eac0d61c0e5c5bece4a; it is
# edited in place and built in runtime/build (logs: runtime/build-{cmake,make}.log). Needs CUDA 13 (nvcc on PATH or
# in /usr/local/cuda), cmake and g++; about 3 min on 2 cores.
# OUT_TARBALL (xz, no top-level folder): bin/bonsai2_slowdust (stripped), lib/libgomp.so.1, lib-fallback/
# {libstdc++.so.6,libgcc_s.so.1}, data/model3_child_compact.tipsy (if present), run_plummer.sh, bonsai.patch (the
# checkout's git diff). On the GPU machine: tar xJf it into a folder, then
#   FOLDER/run_plummer.sh N [theta=0.5] [iend=10] [eps=0.025] [dt=0.0015]
#
# The changes (1-7: CUDA 13 / CCCL 3 and the target; 8: a bug on GPUs with more than 127 SMs; no kernel is changed):
#  1 CMakeLists.txt  add_definitions -std=c++14 -> c++17: CCCL 3's Thrust stops with "requires at least C++17".
#  2 CMakeLists.txt  nvcc OPTIONS -std=c++14 -> c++17 (executable and bonsai_amuse): the same, for the .cu files.
#  3 CMakeLists.txt  include_directories(.../include/cccl): CUDA 13 moved thrust/cub there; g++ needs them too.
#  4 CMakeLists.txt  GENCODE gets -gencode arch=compute_90,code=sm_90: upstream names none (nvcc 13 would pick sm_75).
#  5 CMakeLists.txt  drop -march=native: it would tune the host code to this CPU, not the GPU machine's.
#  6 sortKernels.cu  ExtractBits loses its thrust::unary_function base: CCCL 3 removed it (it only gave typedefs).
#  7 sort_bodies_gpu.cpp  "nvToolsExt.h" -> "nvtx3/nvToolsExt.h": CUDA 13 dropped NVTX v2 (no NVTX call is made).
#  8 build.cpp  the tree-walk stack size, computed in 32-bit int, overflows at 132 SMs x 32 blocks (H100 SXM, H200):
#    a 64-bit helper keeps upstream's value where it fits, else allocates exactly what dev_approximate_gravity indexes.
set -euo pipefail
rev=581fa8e70501ce85660c7eac0d61c0e5c5bece4a
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case ${1:-} in -h | --help) usage; exit 0 ;; esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
die() { echo "anchor-bonsai: $*" >&2; exit 1; }
src=$(cd "$1" && pwd)
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src is not a git checkout of treecode/Bonsai"
head=$(git -C "$src" rev-parse HEAD)
[ "$head" = "$rev" ] || echo "anchor-bonsai: WARNING: $src is at $head, not $rev; the build may differ" >&2
git -C "$src" diff --quiet HEAD -- runtime || die "$src/runtime has local changes (git -C $src checkout -- runtime)"
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src/runtime"

undo() { git checkout -q -- .; die "$* (the checkout's edits are undone)"; } # runtime/ was clean, checked above
# sub FILE COUNT BRE REPLACEMENT CHANGE: replaces BRE (one match a line) on exactly COUNT lines of FILE, else stops.
sub() {
  local n
  n=$(grep -c -- "$3" "$1" || true)
  [ "$n" = "$2" ] || undo "$1: change $5: expected $2 line(s) matching '$3', found $n"
  sed -i "s|$3|$4|" "$1"
}
cm=CMakeLists.txt
sub $cm 1 '^add_definitions(-std=c++14)$' 'add_definitions(-std=c++17)' '1 (host -std=c++17)'
sub $cm 2 '-Xcompiler="-fPIE" -std=c++14$' '-Xcompiler="-fPIE" -std=c++17' '2 (nvcc -std=c++17)'
cccl='# CUDA 13 (CCCL 3): thrust/cub/libcu++ headers live under include/cccl; host .cpp files include thrust'
# shellcheck disable=SC2016 # ${CUDA_TOOLKIT_ROOT_DIR} is CMake's, matched literally
sub $cm 1 '^include_directories(${CUDA_TOOLKIT_ROOT_DIR}/\.\./\.\./thrust)$' \
  "&\\n$cccl\\ninclude_directories(\${CUDA_TOOLKIT_ROOT_DIR}/include/cccl)" '3 (include/cccl)'
sub $cm 1 '^  set(GENCODE -Xptxas=-v -ftz=true -lineinfo)$' \
  '  set(GENCODE -gencode arch=compute_90,code=sm_90 -Xptxas=-v -ftz=true -lineinfo)' '4 (sm_90)'
sub $cm 1 'add_definitions( "-msse4  -march=native")$' 'add_definitions( "-msse4")' '5 (no -march=native)'
sub CUDAkernels/sortKernels.cu 1 '^struct ExtractBits: public thrust::unary_function<uint4, uint>$' \
  'struct ExtractBits // was: public thrust::unary_function<uint4, uint> (removed in CCCL 3 / CUDA 13)' '6 (unary_function)'
sub src/sort_bodies_gpu.cpp 1 '^#include "nvToolsExt.h"$' \
  '#include "nvtx3/nvToolsExt.h" // CUDA 13 dropped NVTX v2 header/lib; NVTX3 is header-only (no nvtx calls are used here)' '7 (NVTX3)'
sub src/build.cpp 2 '^  int treeWalkStackSize = (2\*(LMEM_STACK_SIZE\*NTHREAD + LMEM_EXTRA_SIZE)\*nBlocksForTreeWalk) + 4096;$' \
  '  int treeWalkStackSize = treeWalkStackSizeNoOverflow(nBlocksForTreeWalk);' '8 (tree-walk stack size)'
cat >"$tmp/helper" <<'EOF'
#include <climits>

// [graphsim anchor patch] Upstream computes the tree-walk stack size as
//   2*(LMEM_STACK_SIZE*NTHREAD + LMEM_EXTRA_SIZE)*nBlocksForTreeWalk + 4096
// in 32-bit int, which overflows once nBlocksForTreeWalk > 4064 (H100/H200: 132 SMs * 32 blocks = 4224),
// giving a negative size and so a far too small buffer. Keep the upstream value when it fits in an int;
// otherwise allocate what dev_approximate_gravity indexes: one stack per block (CELL_LIST_MEM_PER_WARP per warp)
// plus the single shared big-stack region for overflowing walks (CELL_LIST_MEM_PER_WARP<<8 ints), plus slack.
static int treeWalkStackSizeNoOverflow(const int nBlocks)
{
  const long long perBlock = (long long)LMEM_STACK_SIZE*NTHREAD + LMEM_EXTRA_SIZE;
  long long size = 2*perBlock*nBlocks + 4096;
  if (size > INT_MAX)
    size = perBlock*nBlocks + ((long long)CELL_LIST_MEM_PER_WARP << 8) + 4096;
  if (size > INT_MAX) { fprintf(stderr, "tree-walk stack too large: %lld\n", size); exit(1); }
  return (int)size;
}
EOF
[ "$(grep -c '^#include "build.h"$' src/build.cpp)" = 1 ] || undo "src/build.cpp: change 8: no single '#include \"build.h\"' line"
sed -i '/^#include "build.h"$/r '"$tmp/helper" src/build.cpp

cmake -S . -B build -DUSE_MPI=OFF -DUSE_MPIMT=OFF -DUSE_OPENGL=OFF -DUSE_DUST=OFF -DUSE_CUB=ON \
  -DCMAKE_BUILD_TYPE=Release >build-cmake.log 2>&1 || { tail -30 build-cmake.log; die "cmake failed (runtime/build-cmake.log)"; }
cmake --build build --target bonsai2_slowdust -j "$(nproc)" >build-make.log 2>&1 \
  || { tail -30 build-make.log; die "build failed (runtime/build-make.log)"; }
grep -o "for 'sm_[0-9a-z]*'" build-make.log | sort -u | grep -qv "'sm_90'" && die "code built for an arch other than sm_90"

pkg=$tmp/pkg
mkdir -p "$pkg/bin" "$pkg/lib" "$pkg/lib-fallback"
strip -o "$pkg/bin/bonsai2_slowdust" build/bonsai2_slowdust
lib() { ldd build/bonsai2_slowdust | awk -v l="$1" '$1 == l { print $3 }'; }
cp -L "$(lib libgomp.so.1)" "$pkg/lib/" # the OpenMP runtime: a bare driver+CUDA image usually lacks it
for l in libstdc++.so.6 libgcc_s.so.1; do cp -L "$(lib $l)" "$pkg/lib-fallback/"; done # only if the host's are too old
m=../inputExamples/model3_child_compact.tipsy # upstream's small test model (runtime/README's check)
[ -f "$m" ] && mkdir -p "$pkg/data" && cp "$m" "$pkg/data/"
git -C "$src" diff -- runtime >"$pkg/bonsai.patch" # its edits are all in runtime/
cat >"$pkg/run_plummer.sh" <<'EOF'
#!/bin/bash
# Run Bonsai (single GPU, no MPI, no rendering) on a Plummer sphere it generates itself, then summarise the timings.
# usage: run_plummer.sh N [theta=0.5] [iend=10] [eps=0.025] [dt=0.0015]
#   iend: Bonsai stops after iteration index iend, so it does iend+1 force evaluations (iter 0 = initial forces at t=0).
# Output: <pkgdir>/run_N<N>_th<theta>/{stdout.txt,stderr.txt,gpuLog.log-1-0} plus a summary printed at the end.
set -u
D=$(cd "$(dirname "$0")" && pwd)
N=${1:?usage: run_plummer.sh N [theta] [iend] [eps] [dt]}
TH=${2:-0.5}; IT=${3:-10}; EPS=${4:-0.025}; DT=${5:-0.0015}
export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ldd "$D/bin/bonsai2_slowdust" | grep -q "not found"; then
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$D/lib-fallback"
fi
ulimit -s unlimited 2>/dev/null || true
W="$D/run_N${N}_th${TH}"; mkdir -p "$W"; cd "$W" || exit 1   # Bonsai writes gpuLog.log-1-0 into the cwd
SB=""; command -v stdbuf >/dev/null 2>&1 && SB="stdbuf -oL -eL"
$SB "$D/bin/bonsai2_slowdust" --plummer "$N" -o "$TH" -e "$EPS" -t "$DT" -T 1000000 -I "$IT" --log \
  > stdout.txt 2> stderr.txt
rc=$?
echo "bonsai exit code: $rc   (logs in $W)"
grep -E "^\[INIT\]" stderr.txt | grep -E "Theta|Timestep|iterEnd"; grep -iE "cuda|error" stderr.txt | head -20
echo "--- per step (stderr): APPTIME = gravity kernel; EventTime in ms (cudaEvent around the tree-walk kernel)"
grep "^APPTIME" stderr.txt
echo "--- per step (stdout): TIME = that step only (Bonsai resets its accumulators while iter < 32), seconds"
grep "^TIME \[" stdout.txt
grep "^iter=" stdout.txt
echo "--- means over iter >= 2 (iter 0 and 1 dropped as warm-up)"
awk '/^APPTIME/ { for (i=1;i<=NF;i++) { if ($i=="Iter:") it=$(i+1); if ($i=="EventTime:") ev=$(i+1) }
                  if (it>=2) { s+=ev; n++ } }
     END { if (n) printf("gravity kernel (EventTime): %.3f ms  over %d steps\n", s/n, n) }' stderr.txt
awk '/^TIME \[/ { k++; for (i=1;i<=NF;i++) { if ($i=="TOTAL:") t=$(i+1); if ($i=="Grav:") g=$(i+1); if ($i=="Build:") b=$(i+1) }
                  if (k>=3) { st+=t; sg+=g; sb+=b; n++ } }
     END { if (n) printf("per step: TOTAL %.3f ms   Grav(wall) %.3f ms   Build(sort+tree+multipoles) %.3f ms  over %d steps\n", 1e3*st/n, 1e3*sg/n, 1e3*sb/n, n) }' stdout.txt
grep "INT Interaction" gpuLog.log-1-0 2>/dev/null | tail -3
exit $rc
EOF
chmod +x "$pkg/run_plummer.sh"
dirs=(bin lib lib-fallback)
[ -d "$pkg/data" ] && dirs+=(data)
tar -C "$pkg" --owner=0 --group=0 -cf - "${dirs[@]}" run_plummer.sh bonsai.patch | xz -6 -T2 >"$out"
echo "anchor-bonsai: $out ($(du -h "$out" | cut -f1)), Bonsai $(git -C "$src" rev-parse --short HEAD) + 8 changes, sm_90"
