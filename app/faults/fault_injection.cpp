#include "app/faults/fault_injection.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "app/base/errors.h"
#include "compute/fluid/fluid_cuda_backend.h"
#include "compute/fluid/fluid_steps.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

struct FaultEntry {
  Fault fault;
  std::string_view name;
  std::string_view what;
};

constexpr FaultEntry kFaults[] = {
    {Fault::VulkanSemaphoreStall, "vulkan-semaphore-stall", "frame K's render waits for a value nobody signals"},
    {Fault::CudaSemaphoreStall, "cuda-semaphore-stall", "cuda: from frame K the graph never signals simDone"},
    {Fault::KernelFail, "kernel-fail", "cuda: frame K launches a kernel node with an invalid configuration"},
    {Fault::CaptureUnwritable, "capture-unwritable", "the capture directory becomes unwritable before frame K"},
    {Fault::UuidMismatch, "uuid-mismatch", "Vulkan is asked for a device UUID that no device has"},
    {Fault::MissingExtension, "missing-extension", "the Vulkan device must offer an extension no driver has"},
    {Fault::ImportFail, "import-fail", "cuda: importing the renderer's memory into CUDA fails"},
    {Fault::NonFinite, "non-finite", "frame K's dt is NaN, so the velocities become NaN (blow-up detection)"},
};

// Far beyond any frame a stalled run reaches, and within maxTimelineSemaphoreValueDifference (>= 2^31 - 1) of the
// semaphore's value, so the wait itself is valid usage.
constexpr std::uint64_t kNeverSignalledDistance = std::uint64_t{1} << 20;

} // namespace

std::string_view faultName(Fault fault) {
  for (const FaultEntry& e : kFaults)
    if (e.fault == fault) return e.name;
  return "none";
}

std::string faultList() {
  std::string list;
  for (const FaultEntry& e : kFaults) list += (list.empty() ? "" : ", ") + std::string(e.name);
  return list;
}

FaultPlan parseFault(const std::string& text) {
  FaultPlan plan;
  if (text.empty()) return plan;
  const auto bad = [&](const std::string& why) {
    return UsageError("--inject " + text + ": " + why + " (want FAULT[:STAGE][@FRAME], FAULT one of " + faultList() +
                      ")");
  };
  std::string name = text;
  if (const std::size_t at = name.find('@'); at != std::string::npos) {
    const std::string number = name.substr(at + 1);
    name.resize(at);
    if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos)
      throw bad("the frame after @ must be a number 0..999999999");
    plan.frame = std::stoull(number);
  }
  std::string stage;
  if (const std::size_t colon = name.find(':'); colon != std::string::npos) {
    stage = name.substr(colon + 1);
    name.resize(colon);
  }
  bool known = false;
  for (const FaultEntry& e : kFaults) {
    if (e.name == name) {
      plan.fault = e.fault;
      known = true;
    }
  }
  if (!known) throw bad("unknown fault '" + name + "'");
  if (!stage.empty()) {
    if (plan.fault != Fault::KernelFail) throw bad("only kernel-fail takes a :STAGE");
    if (!stageFromName(stage) && fluid::findKernelStep(stage) == nullptr)
      throw bad("unknown stage '" + stage + "': no scene has a kernel node of that name");
    plan.stage = stage; // the scene that arms it checks that it has it
  }
  return plan;
}

void injectIntoDeviceRequest(const FaultPlan& plan, render::DeviceRequest& request) {
  if (plan.fault == Fault::UuidMismatch) {
    // Every byte changed: no device can match, and the message still shows what was asked for.
    render::Uuid wrong{};
    if (request.uuid) {
      wrong = *request.uuid;
      for (auto& b : wrong) b = static_cast<std::uint8_t>(b ^ 0x5a);
    } else {
      for (std::size_t i = 0; i < wrong.size(); ++i) wrong[i] = static_cast<std::uint8_t>(0xa0 + i);
    }
    std::fprintf(stderr, "graphsim: --inject uuid-mismatch: asking Vulkan for UUID %s%s%s\n",
                 render::formatUuid(wrong).c_str(), request.uuid ? " instead of the CUDA device's " : "",
                 request.uuid ? render::formatUuid(*request.uuid).c_str() : "");
    request.uuid = wrong;
  } else if (plan.fault == Fault::MissingExtension) {
    std::fprintf(stderr, "graphsim: --inject missing-extension: requiring the device extension %s\n",
                 kInjectedMissingExtension);
    request.requiredExtensions.emplace_back(kInjectedMissingExtension);
  }
}

void injectIntoInterop(const FaultPlan& plan, InteropDesc& interop) {
  if (plan.fault != Fault::ImportFail || interop.renderBuffers.empty()) return;
  const int fake = ::memfd_create("graphsim-inject-import-fail", MFD_CLOEXEC);
  if (fake < 0) throw std::runtime_error(std::string("--inject import-fail: memfd_create: ") + std::strerror(errno));
  std::fprintf(stderr, "graphsim: --inject import-fail: handing CUDA an fd that is no Vulkan memory\n");
  ::close(interop.renderBuffers.front().fd);
  interop.renderBuffers.front().fd = fake;
}

void refuseCudaOnlyFault(const FaultPlan& plan, std::string_view backend) {
  if (plan.fault != Fault::KernelFail && plan.fault != Fault::CudaSemaphoreStall && plan.fault != Fault::ImportFail)
    return;
  throw UsageError("--inject " + std::string(faultName(plan.fault)) + ": needs --backend cuda (this run uses " +
                   std::string(backend) + ")");
}

namespace {

template <typename Rows, typename Name>
[[noreturn]] void refuseStage(const FaultPlan& plan, std::string_view scene, const Rows& rows, const Name& name) {
  std::string list;
  for (const auto& row : rows)
    if (!name(row).empty()) list += (list.empty() ? "" : ", ") + std::string(name(row));
  throw UsageError("--inject kernel-fail:" + shownText(plan.stage) + ": the " + std::string(scene) +
                   " scene has no such kernel node (its kernel nodes: " + list + ")");
}

} // namespace

void armKernelFailure(const FaultPlan& plan, NBodyCudaBackend& cuda) {
  if (plan.fault != Fault::KernelFail) return;
  const std::optional<NBodyStage> stage = plan.stage.empty() ? NBodyStage::Integrate : stageFromName(plan.stage);
  if (!stage) refuseStage(plan, "nbody", kNBodyStages, [](const NBodyStageInfo& row) { return row.name; });
  NBodyCudaInstruments::injectKernelFailure(cuda, *stage, plan.frame);
}

void armKernelFailure(const FaultPlan& plan, fluid::FluidCudaBackend& cuda) {
  if (plan.fault != Fault::KernelFail) return;
  const fluid::FluidStepRow* row = fluid::findKernelStep(plan.stage.empty() ? "density_errors" : plan.stage);
  if (row == nullptr)
    refuseStage(plan, "fluid", fluid::kFluidSteps, [](const fluid::FluidStepRow& r) {
      return r.node == fluid::StepNode::Kernel ? r.name : std::string_view();
    });
  cuda.injectKernelFailure(row->step, plan.frame);
}

bool injectIntoSubmit(const FaultPlan& plan, std::uint64_t k, render::FrameSubmit& submit) {
  if (plan.fault != Fault::VulkanSemaphoreStall || k != plan.frame) return false;
  // The one code line outside compute/protocol.h that computes a semaphore value: deliberately a wrong one, far
  // past frame k's own simDone (k + 1).
  const std::uint64_t never = k + 1 + kNeverSignalledDistance;
  std::fprintf(stderr,
               "graphsim: --inject vulkan-semaphore-stall: frame %llu's render submit waits for simDone >= %llu, "
               "which nothing signals, so renderDone stops at %llu\n",
               static_cast<unsigned long long>(k), static_cast<unsigned long long>(never),
               static_cast<unsigned long long>(k));
  submit.waitSimDone = never;
  return true;
}

bool launchesFrame(const FaultPlan& plan, std::uint64_t k) {
  if (plan.fault != Fault::CudaSemaphoreStall || k < plan.frame) return true;
  if (k == plan.frame) {
    std::fprintf(stderr,
                 "graphsim: --inject cuda-semaphore-stall: from frame %llu the frame graph is not launched, so "
                 "simDone stays at %llu\n",
                 static_cast<unsigned long long>(k), static_cast<unsigned long long>(k));
  }
  return false;
}

void injectBeforeCapture(const FaultPlan& plan, std::uint64_t k, const fs::path& path) {
  if (plan.fault != Fault::CaptureUnwritable || k < plan.frame) return;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0) return; // done already
  fs::permissions(dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove, ec);
  if (::access(dir.c_str(), W_OK) != 0) {
    std::fprintf(stderr, "graphsim: --inject capture-unwritable: frame %llu: made %s read-only\n",
                 static_cast<unsigned long long>(k), dir.c_str());
    return;
  }
  // Root (CAP_DAC_OVERRIDE) writes into read-only directories: take the directory away instead, leaving a plain
  // file, so that nothing can be created under that path any more.
  const fs::path moved = dir.string() + ".inject-moved";
  fs::remove_all(moved, ec);
  fs::rename(dir, moved, ec);
  if (ec) {
    std::fprintf(stderr, "graphsim: --inject capture-unwritable: cannot move %s aside: %s\n", dir.c_str(),
                 ec.message().c_str());
    return;
  }
  std::ofstream(dir) << "graphsim --inject capture-unwritable: the directory was moved to " << moved.string() << "\n";
  std::fprintf(stderr,
               "graphsim: --inject capture-unwritable: frame %llu: running as root, where permissions do not bind: "
               "moved %s to %s and left a plain file in its place\n",
               static_cast<unsigned long long>(k), dir.c_str(), moved.c_str());
}

} // namespace graphsim::app
