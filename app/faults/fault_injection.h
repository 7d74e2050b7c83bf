// Injected faults for the reliability tests (hidden `graphsim run --inject FAULT[@FRAME]`, docs/RELIABILITY.md).
// Each fault breaks one thing the way the real failure would, so that the tests can check that the run ends in
// bounded time, with a message naming the cause, a non-zero exit code and no half-written file. The device choice,
// the producers and the session call the hooks below at the few places where the faults enter; with no fault they
// do nothing. Nothing here looks inside a backend to find out what it is: each producer arms what concerns it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "compute/nbody/nbody.h"

namespace graphsim {
class NBodyCudaBackend;
struct InteropDesc;
} // namespace graphsim
namespace graphsim::fluid {
class FluidCudaBackend;
} // namespace graphsim::fluid
namespace graphsim::render {
struct DeviceRequest;
struct FrameSubmit;
} // namespace graphsim::render

namespace graphsim::app {

class NBodyController;

enum class Fault {
  None,
  VulkanSemaphoreStall, // frame K's render submit waits for a simDone value nobody signals: renderDone stops at K
  CudaSemaphoreStall,   // cuda: from frame K the frame graph is not launched, so simDone stops at K
  KernelFail,           // cuda: frame K launches a kernel node with an invalid launch configuration
  CaptureUnwritable,    // the capture directory becomes unwritable before frame K's capture
  UuidMismatch,         // the Vulkan device is looked up with a UUID no device has (as if CUDA were another GPU)
  MissingExtension,     // the Vulkan device must offer an extension no driver has
  ImportFail,           // cuda: CUDA is handed a render-buffer fd that is no Vulkan memory, so its import fails
  NonFinite,            // frame K's dt becomes NaN (through the panel's path), so integrate writes NaN velocities:
                        // no scene file within the documented ranges can make the n-body state non-finite
};

struct FaultPlan {
  Fault fault = Fault::None;
  std::uint64_t frame = 10; // K: the frame (0-based) at which the fault strikes
  // kernel-fail: the kernel node (stage or step row name) that gets the bad configuration, checked by the scene that
  // arms it; empty: the scene's default (n-body: integrate; fluid: density_errors, inside the nested WHILEs).
  std::string stage;
};

// "vulkan-semaphore-stall", "kernel-fail:forces@20", ... Throws UsageError naming --inject and the allowed faults.
FaultPlan parseFault(const std::string& text);
std::string_view faultName(Fault fault);
// One line per fault for docs and errors.
std::string faultList();

// The extension that --inject missing-extension asks for.
inline constexpr const char* kInjectedMissingExtension = "VK_GRAPHSIM_injected_missing_extension";

// Device choice (uuid-mismatch, missing-extension): changes the request before the VulkanContext is created.
void injectIntoDeviceRequest(const FaultPlan& plan, render::DeviceRequest& request);

// import-fail: before CUDA imports the renderer's exported handles, the first render buffer's fd is swapped for an
// fd of an anonymous memory file (the real one is closed), which cudaImportExternalMemory rejects.
void injectIntoInterop(const FaultPlan& plan, InteropDesc& interop);

// A producer that is not CUDA's refuses the CUDA-only faults (UsageError naming the backend).
void refuseCudaOnlyFault(const FaultPlan& plan, std::string_view backend);
// The CUDA producer, once its backend exists: kernel-fail. A stage the scene lacks is a UsageError listing its own.
void armKernelFailure(const FaultPlan& plan, NBodyCudaBackend& cuda);
void armKernelFailure(const FaultPlan& plan, fluid::FluidCudaBackend& cuda);

// vulkan-semaphore-stall: frame k's submit. Returns true when it changed the submit.
bool injectIntoSubmit(const FaultPlan& plan, std::uint64_t k, render::FrameSubmit& submit);

// non-finite: before frame k's parameters reach the backend.
void injectIntoController(const FaultPlan& plan, std::uint64_t k, NBodyController& controller);

// cuda-semaphore-stall: false when frame k's graph must not be launched (the CUDA producer asks).
bool launchesFrame(const FaultPlan& plan, std::uint64_t k);

// capture-unwritable: before the capture of frame k to `path`. Makes the directory unwritable once (as root, where
// permissions do not bind, it moves the directory aside to <dir>.inject-moved and leaves a plain file in its place).
void injectBeforeCapture(const FaultPlan& plan, std::uint64_t k, const std::filesystem::path& path);

} // namespace graphsim::app
