#!/usr/bin/env bash
# Installs the Debian 12 packages graphsim needs, only those missing; non-interactive and idempotent.
# The CUDA toolkit comes from /usr/local/cuda when present, else Debian's nvidia-cuda-toolkit.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev glslc vulkan-validationlayers mesa-vulkan-drivers vulkan-tools
  libglfw3-dev libglm-dev libimgui-dev libstb-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev # --video (FFmpeg: libx264 and friends)
  libopenmpi-dev openmpi-bin # --rendezvous mpi (optional in the build: GRAPHSIM_MPI); mpirun runs tests/mpi
  xvfb xauth
  clang-format clang-tidy # scripts/check-format.sh, scripts/lint.sh (both version 14, Debian 12's)
  dpkg-dev file # the .deb (scripts/package-test.sh): CPack runs dpkg-shlibdeps, which needs file(1) too
)
[ -x /usr/local/cuda/bin/nvcc ] || command -v nvcc >/dev/null 2>&1 || packages+=(nvidia-cuda-toolkit)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
