#include "app/run/frame_producer.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib> // mkstemp
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "app/faults/fault_injection.h"
#include "app/io/output_file.h"
#include "compute/cpu_backend.h"
#include "compute/cuda_backend.h"

namespace graphsim::app {
namespace {

// A private file the CUDA runtime writes into: removed when this goes out of scope.
class StagingFile {
public:
  explicit StagingFile(std::string path) : path_(std::move(path)) {}
  ~StagingFile() { ::unlink(path_.c_str()); }
  StagingFile(const StagingFile&) = delete;
  StagingFile& operator=(const StagingFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

// cudaGraphDebugDotPrint opens and writes its file itself, with none of the output writer's guarantees (checked
// writes, temporary + rename, FIFO and device handling, the "PATH: REASON" message). So it writes a private file in
// the temp directory, and the bytes read back from there reach the user's path through writeOutput.
} // namespace

void dumpThroughWriter(const std::function<void(const std::filesystem::path&)>& dump,
                       const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path tmpDir = std::filesystem::temp_directory_path(ec);
  if (ec) throw OutputError(path, "no temporary directory to stage the graph in: " + ec.message());
  std::string name = (tmpDir / "graphsim-graph-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    throw OutputError(path, "cannot stage the graph in " + tmpDir.string() + ": " + std::strerror(errno));
  }
  ::close(fd); // only the name is needed: the CUDA runtime opens it again
  const StagingFile staged(name);
  dump(staged.path());
  std::ifstream in(staged.path(), std::ios::binary);
  if (!in) throw OutputError(path, "cannot read the graph back from " + staged.path() + ": " + std::strerror(errno));
  const std::string dot{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  writeOutput(path, dot);
}

namespace {

class CpuProducer final : public SimProducer {
public:
  CpuProducer(const SceneConfig& config, render::ParticleRenderer* renderer, const FaultPlan& inject)
      : sim_(config), renderer_(renderer) {
    refuseCudaOnlyFault(inject, "cpu");
  }

  SimBackend& backend() override { return sim_; }
  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    if (advance_) {
      const auto t0 = std::chrono::steady_clock::now();
      sim_.stepFrame(k); // a blow-up report names the loop's frame k
      simMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (renderer_ != nullptr)
      sim_.writeRender(reinterpret_cast<Float4*>(renderer_->mappedBodies(renderer_->slotOf(k))));
    return std::nullopt; // written by the host before the submit: nothing to wait for on the GPU
  }
  void waitProduced(std::uint64_t) override {} // produce() returns with the frame done
  double simMs() const override { return simMs_; }
  double updateHostUs() const override { return 0; }
  bool hasGraph() const override { return false; }
  void dumpGraph(const std::filesystem::path&) const override {}
  void finish() override {}

private:
  CpuBackend sim_;
  render::ParticleRenderer* renderer_;
  double simMs_ = -1;
};

// Interop (the renderer's buffers are Exported): the graph writes the slot and signals simDone = k+1. Host copy (the
// renderer's buffers are Staged, --interop off or its fallback): the compute-only graph, then the host waits for the
// frame and copies it into the slot's staging buffer, which the render's commands upload.
class CudaProducer final : public SimProducer {
public:
  CudaProducer(const SceneConfig& config, render::ParticleRenderer& renderer, const std::vector<int>& gpus,
               std::chrono::milliseconds waitTimeout, const FaultPlan& inject)
      : renderer_(renderer), interop_(interopFor(renderer, inject)),
        sim_(config, gpus, interop_ ? &*interop_ : nullptr, waitTimeout), inject_(inject) {
    armKernelFailure(inject_, sim_); // test hook: kernel-fail
  }

  SimBackend& backend() override { return sim_; }
  // Paused frames run too (with dt = 0, see SimController): every frame k has its graph launch and simDone = k+1.
  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    const FrameProtocol& protocol = renderer_.protocol();
    if (!launchesFrame(inject_, k)) return protocol.simDoneSignalled(k); // test hook: cuda-semaphore-stall
    sim_.launchFrame(k);
    if (interop_) return protocol.simDoneSignalled(k);
    sim_.copyRenderOutput(reinterpret_cast<Float4*>(renderer_.mappedBodies(protocol.slot(k))));
    return std::nullopt; // in the staging buffer before the submit: nothing to wait for on the GPU
  }
  // Interop: the launch alone, ordered by the graph's wait node (FrameProducer::gpuOrdered). The fault hooks change
  // what is launched, not when; host copy waits for the frame and writes the slot's staging buffer.
  bool gpuOrdered() const override { return interop_.has_value(); }
  void waitProduced(std::uint64_t) override { sim_.synchronize(); } // the product never needs one frame alone
  double simMs() const override { return sim_.lastSimGpuMs(); }
  double updateHostUs() const override { return sim_.lastUpdateHostUs(); }
  bool hasGraph() const override { return true; }
  void dumpGraph(const std::filesystem::path& path) const override {
    dumpThroughWriter([&](const std::filesystem::path& file) { sim_.dumpGraphDot(file); }, path);
  }
  void finish() override { sim_.synchronize(); }

private:
  static std::optional<InteropDesc> interopFor(render::ParticleRenderer& renderer, const FaultPlan& inject) {
    if (renderer.config().mode != render::BodyBufferMode::Exported) return std::nullopt;
    InteropDesc interop = renderer.exportInterop();
    injectIntoInterop(inject, interop); // test hook: import-fail
    return interop;
  }

  render::ParticleRenderer& renderer_;
  std::optional<InteropDesc> interop_; // the fds belong to sim_ once it is constructed
  CudaBackend sim_;
  FaultPlan inject_;
};

} // namespace

std::unique_ptr<SimProducer> makeCpuProducer(const SceneConfig& config, render::ParticleRenderer* renderer,
                                             const FaultPlan& inject) {
  return std::make_unique<CpuProducer>(config, renderer, inject);
}

std::unique_ptr<SimProducer> makeCudaProducer(const SceneConfig& config, render::ParticleRenderer& renderer,
                                              const std::vector<int>& gpus, std::chrono::milliseconds waitTimeout,
                                              const FaultPlan& inject) {
  return std::make_unique<CudaProducer>(config, renderer, gpus, waitTimeout, inject);
}

} // namespace graphsim::app
