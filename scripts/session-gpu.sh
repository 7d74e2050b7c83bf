#!/usr/bin/env bash
# Issue 15 on a machine with an NVIDIA GPU (docs/GPU-TESTING.md): recorded sessions replayed on CUDA, a 1080p video
# of 600 frames at 16,384 bodies and the video's cost in the bench (with and without, same run), the diagnostics'
# drift per 1,000 frames on CUDA, ncu over the n-body graph's kernels, and (issue 30) the fluid's liquid surface: a
# 600-frame 1080p dam break at 262,144 particles with validation and video, the README's frame, and the bench's render
# time by pass in both modes. Logs go to $OUT (default ./session-out), one line per step in summary.txt.
# usage: scripts/session-gpu.sh [BIN_DIR] [all|replay|video|diagnostics|ncu|surface]
set -uo pipefail
bin=${1:-build/bin}
part=${2:-all}
out=${OUT:-session-out}
mkdir -p "$out"
tmp=$(mktemp -d)
summary="$out/summary.txt"
step() { # name, command...: runs it, keeps its log, records the exit code and the lines that matter
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  printf '%-20s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - start))" \
    "$(grep -E 'replay:|recorded|wrote video|validation messages|diagnostics|product|ERROR|error' "$out/$name.txt" | tr '\n' ' ' | cut -c1-600)" | tee -a "$summary"
}
nvidia-smi -L | tee -a "$summary"
here=$(cd "$(dirname "$0")/.." && pwd)
g="$bin/graphsim"

if [ "$part" = all ] || [ "$part" = replay ]; then
  # Recorded on CUDA, replayed on CUDA: bit-identical expected. Recorded on the CPU, replayed on CUDA: the largest
  # difference is reported (--tolerance 1 only keeps it from failing; the figure is what matters).
  step rec-cuda "$g" run --headless --backend cuda --bodies 16384 --frames 600 --record "$tmp/cuda.json" --quiet
  step replay-cuda "$g" replay "$tmp/cuda.json" --headless --validation --quiet
  step rec-fluid "$g" run --headless --backend cuda --scene fluid --particles 65536 --frames 300 \
    --record "$tmp/fluid.json" --record-checkpoint-every 50 --quiet
  step replay-fluid "$g" replay "$tmp/fluid.json" --headless --validation --quiet
  step rec-cpu "$g" run --headless --backend cpu --bodies 4096 --frames 200 --record "$tmp/cpu.json" \
    --record-checkpoint-every 10 --quiet
  step cpu-on-cuda "$g" replay "$tmp/cpu.json" --headless --backend cuda --tolerance 1 --quiet
  cp "$tmp/cuda.json" "$out/recorded-cuda.json"
fi

if [ "$part" = all ] || [ "$part" = video ]; then
  printf '{"render": {"width": 1920, "height": 1080}}\n' >"$tmp/1080p.json"
  step video1080 "$g" run --headless --backend cuda --bodies 16384 --frames 600 --config "$tmp/1080p.json" \
    --video "$out/galaxy-1080p.mp4" --camera-path "$here/assets/camera/orbit.json" --validation --quiet
  # The loop's frame time with and without the encoder, one after the other on the same machine.
  step bench-plain "$g" bench --backend cuda --bodies 16384 --frames 600 --config "$tmp/1080p.json" \
    --variants none --json "$tmp/plain.json" --quiet
  step bench-video "$g" bench --backend cuda --bodies 16384 --frames 600 --config "$tmp/1080p.json" \
    --variants none --video "$tmp/bench.mp4" --json "$tmp/video.json" --quiet
  step bench-plain2 "$g" bench --backend cuda --bodies 16384 --frames 600 --config "$tmp/1080p.json" \
    --variants none --json "$tmp/plain2.json" --quiet
fi

if [ "$part" = all ] || [ "$part" = diagnostics ]; then
  step diag-galaxy "$g" run --headless --backend cuda --bodies 16384 --frames 1000 --diagnostics-every 10 --quiet
  step diag-plummer "$g" run --headless --backend cuda --config "$here/assets/scenes/plummer.json" --frames 1000 \
    --diagnostics-every 10 --quiet
fi

if [ "$part" = all ] || [ "$part" = surface ]; then
  printf '{"render": {"width": 1920, "height": 1080}}\n' >"$tmp/1080p.json"
  fluid=(--backend cuda --scene fluid --particles 262144 --config "$tmp/1080p.json")
  step surface-video "$g" run --headless "${fluid[@]}" --frames 600 --render-mode surface --validation \
    --video "$out/dam-break-surface.mp4" --quiet
  step surface-frame "$g" run --headless "${fluid[@]}" --frames 150 --render-mode surface \
    --capture "$out/dam-break-surface.png" --quiet
  step particles-frame "$g" run --headless "${fluid[@]}" --frames 150 --capture "$out/dam-break-particles.png" --quiet
  # The render GPU time by pass, particle and surface mode one after the other (render_passes_ms in the JSON).
  for mode in particles surface; do
    step "bench-$mode" "$g" bench "${fluid[@]}" --frames 200 --warmup 20 --variants none --render-mode "$mode" \
      --json "$out/render-$mode.json" --quiet
  done
fi

if [ "$part" = all ] || [ "$part" = ncu ]; then
  step ncu-nodes timeout 300 ncu --graph-profiling node --launch-skip 40 --launch-count 8 --section SpeedOfLight \
    --section Occupancy --section LaunchStats "$g" bench --backend cuda --sim-only --bodies 131072 --frames 40 \
    --warmup 10 --quiet
  step ncu-graph timeout 300 ncu --graph-profiling graph --launch-skip 10 --launch-count 1 --section SpeedOfLight \
    "$g" bench --backend cuda --sim-only --bodies 131072 --frames 20 --warmup 10 --quiet
fi
rm -rf "$tmp"
