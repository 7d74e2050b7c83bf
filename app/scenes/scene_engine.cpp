#include "app/scenes/scene_engine.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib> // mkstemp
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "app/io/output_file.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;

Float4* mappedSlot(render::ParticleRenderer& renderer, std::uint64_t k) {
  return reinterpret_cast<Float4*>(renderer.mappedBodies(renderer.slotOf(k)));
}

} // namespace

FeedPath feedPath(bool cuda, const render::ParticleRenderer* renderer) {
  if (!cuda) return FeedPath::CpuMapped;
  if (renderer == nullptr) return FeedPath::ComputeOnly;
  return renderer->config().mode == render::BodyBufferMode::Exported ? FeedPath::Interop : FeedPath::HostCopy;
}

std::optional<InteropDesc> interopFor(FeedPath path, render::ParticleRenderer* renderer, const FaultPlan& inject) {
  if (path != FeedPath::Interop) return std::nullopt;
  InteropDesc interop = renderer->exportInterop();
  injectIntoInterop(inject, interop); // test hook: import-fail
  return interop;
}

// cudaGraphDebugDotPrint opens and writes its file itself, with none of the output writer's guarantees (checked
// writes, temporary + rename, FIFO and device handling, the "PATH: REASON" message). So it writes a private file in
// the temp directory, and the bytes read back from there reach the user's path through writeOutput.
void dumpThroughWriter(const std::function<void(const std::filesystem::path&)>& dump,
                       const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path tmpDir = std::filesystem::temp_directory_path(ec);
  if (ec) throw OutputError(path, "no temporary directory to stage the graph in: " + ec.message());
  std::string name = (tmpDir / "graphsim-graph-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw OutputError(path, "cannot stage the graph in " + tmpDir.string() + ": " + std::strerror(errno));
  ::close(fd); // only the name is needed: the CUDA runtime opens it again
  const struct Unlink {
    const std::string& file;
    ~Unlink() { ::unlink(file.c_str()); }
  } staged{name}; // the private file is removed whatever happens
  dump(staged.file);
  std::ifstream in(staged.file, std::ios::binary);
  if (!in) throw OutputError(path, "cannot read the graph back from " + staged.file + ": " + std::strerror(errno));
  const std::string dot{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  writeOutput(path, dot);
}

FrameFeed::FrameFeed(SceneEngine& engine, render::ParticleRenderer* renderer, FaultPlan inject)
    : engine_(engine), renderer_(renderer), path_(feedPath(engine.cuda(), renderer)), inject_(std::move(inject)) {}

std::optional<std::uint64_t> FrameFeed::produce(std::uint64_t k, bool advance) {
  if (path_ == FeedPath::CpuMapped) {
    if (advance) {
      const auto t0 = Clock::now();
      engine_.runFrame(k); // a blow-up report names the loop's frame k
      stepMs_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
    if (renderer_ != nullptr) engine_.writeRender(mappedSlot(*renderer_, k));
    return std::nullopt; // written by the host before the submit: nothing to wait for on the GPU
  }
  if (path_ == FeedPath::ComputeOnly) {
    engine_.runFrame(k);
    return std::nullopt;
  }
  const FrameProtocol& protocol = renderer_->protocol();
  if (!launchesFrame(inject_, k)) return protocol.simDoneSignalled(k); // test hook: cuda-semaphore-stall
  engine_.runFrame(k);
  if (path_ == FeedPath::Interop) return protocol.simDoneSignalled(k);
  // Host copy: the host waits for the frame, copies it out of CUDA and into Vulkan's staging buffer; the submit
  // then copies it to the vertex buffer on the GPU.
  const auto t0 = Clock::now();
  engine_.writeRender(mappedSlot(*renderer_, k));
  waitUs_ = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  return std::nullopt; // in the staging buffer before the submit: nothing to wait for on the GPU
}

} // namespace graphsim::app
