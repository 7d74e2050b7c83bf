#include "app/run/rank_roles.h"

#include <cstdio>
#include <string>

#include "app/base/errors.h"
#include "compute/cuda_device.h"
#include "compute/errors.h"

namespace graphsim::app {

int followRank0(const SceneSettings& settings, const LaunchedRank& launched, std::chrono::milliseconds waitTimeout) {
  const Scene& scene = findScene(settings.scene);
  const auto follow = scene.capabilities().followRank0; // the command line refused --rendezvous for scenes without
  if (follow == nullptr) throw UsageError("--rendezvous: the " + std::string(scene.name()) + " scene runs on one GPU");
  // The job first (the file, then NCCL in the backend), then this rank's GPU, as bench's ranks do.
  const ProcessRank joined = joinLaunchedJob(launched, waitTimeout);
  const CudaDeviceList cuda = listCudaDevices();
  if (cuda.devices.empty()) throw EnvironmentError("no CUDA device: " + cuda.whyNone);
  const int device = localDeviceFor(launched.place, static_cast<int>(cuda.devices.size()));
  const FollowedRun run = follow(settings, scene.renderCapacity(settings), device, joined, waitTimeout);
  std::fprintf(stderr, "graphsim: rank %d of %d on GPU %d: %s%s\n", launched.place.rank, launched.place.world, device,
               run.summary.c_str(), run.rank0Failed ? "; rank 0 ended the run with an error" : "");
  return run.rank0Failed ? kExitInternal : kExitOk;
}

} // namespace graphsim::app
