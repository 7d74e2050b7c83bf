// ParticleRenderer's state, shared by particle_renderer.cpp (lifetime, waits, export) and frame_submission.cpp
// (recording, submit, capture, timestamps). Internal to render/.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/body_buffers.h"
#include "render/box_pipeline.h"
#include "render/frame_readback.h"
#include "render/offscreen_target.h"
#include "render/particle_pipeline.h"
#include "render/particle_renderer.h"
#include "render/surface_passes.h"
#include "render/throttle_wait.h"
#include "render/timeline_semaphore.h"
#include "render/vk_handle.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

// What one frame-in-flight slot owns. Reused for frame k only after frame k - F reached renderDone.
struct FrameSlot {
  OwnedCommandPool commandPool;                   // reset as a whole each time the slot is recorded
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE; // freed with the pool
  // Signalled by the slot's last submit. The renderDone timeline already orders reuse; the fence is what lets
  // validation layers that do not retire work through waits on exported timeline semaphores (1.3.239) see that
  // the command buffer finished. After the timeline wait it is already signalled, so waiting on it costs nothing.
  OwnedFence fence;
  // Set by the command buffer's first command, once the queue runs the frame (its semaphore waits satisfied): the
  // "still executing" half of the stall timeout's progress (waitWithProgress). Reset by the host before each submit.
  OwnedEvent started;
  bool fenceWaited = true;                     // the fence of the last submit was waited on (and may be reset)
  std::optional<std::uint64_t> submittedFrame; // the frame last recorded into this slot
  RenderMode submittedMode = RenderMode::Particles;
  std::uint64_t submittedSimDoneWait = 0;     // the simDone value that submit waits for (0: none)
  std::optional<FrameReadback> readback;      // created on the slot's first capture
  std::optional<std::uint64_t> capturedFrame; // frame whose pixels the readback buffer holds (or will)
  // What the command buffer was last recorded with, when it can be submitted again as is: frames without overlay,
  // capture or window image whose draw inputs are unchanged (the benchmark, headless runs with a still camera)
  // skip the pool reset and the recording.
  struct Recorded {
    std::uint32_t bodyCount = 0;
    shaderio::ParticlePushConstants push{};
    int box = 0; // 0: none, 1: edges, 2: edges and room
    shaderio::BoxPushConstants boxPush{};
    std::optional<Sphere> obstacle;
    RenderMode mode = RenderMode::Particles;
    SurfaceStyle surface;
  };
  std::optional<Recorded> reusable;
};

// What a stalled wait compares against at each timeout (waitWithProgress): the counters, and since when the oldest
// unfinished frame has been seen executing.
struct ProgressMark {
  std::uint64_t renderDone = 0;
  std::uint64_t simDone = 0;
  std::optional<std::uint64_t> executingFrame;
  std::chrono::steady_clock::time_point executingSince{};
};

// Timestamps per slot: the frame's start, then after the scene, thickness, depth, smoothing, and the frame's end
// (RenderPassTimes; in particle mode the middle four follow the one pass).
inline constexpr std::uint32_t kTimestampsPerSlot = 6;

struct ParticleRenderer::Impl {
  Impl(VulkanContext& context, const RendererConfig& config);

  // The stall timeout measures lack of progress, not slowness (docs/FRAME.md, "Timeouts"). waitOnce(timeout) waits
  // up to the timeout and says whether the wait was satisfied; when it was not, the wait goes on for another timeout
  // as long as something progressed since the last look (progressed()); false: a whole timeout without progress.
  template <class WaitOnce>
  bool waitWithProgress(WaitOnce&& waitOnce) const {
    ProgressMark mark{renderDone.value(), simDone.value()};
    const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(config.waitTimeout);
    while (!waitOnce(timeout))
      if (!progressed(mark)) return false;
    return true;
  }
  // Progress since mark (updated): renderDone or simDone advanced, or the oldest unfinished frame (the one that
  // signals renderDone + 1) has started executing (its `started` event is set) and has been seen executing for less
  // than maxExecution().
  bool progressed(ProgressMark& mark) const;
  // A frame executing longer than this is a hang, however busy the GPU: max(10 min, 10 x the timeout).
  std::chrono::nanoseconds maxExecution() const;

  // Host wait (bounded by config.waitTimeout) for renderDone >= value, on behalf of `frame`.
  void waitRenderDone(std::uint64_t value, std::uint64_t frame) const;
  // Waits for the slot's last submit (timeline through `throttle`, then its fence) before the slot is reused.
  void waitSlotIdle(FrameSlot& slot, std::uint64_t frame);
  // The timeout for a renderDone wait that ran out, naming the late side (sim or render) and what it was waiting for.
  // A stall is reported once: after the first, later waits that run out (the drain at shutdown) say only that the
  // queue did not drain after it.
  TimeoutError stallReport(std::uint64_t value, std::uint64_t frame) const;
  std::uint32_t slotOf(std::uint64_t frame) const { return protocol.slot(frame); }
  // submit()'s steps. The renderDone value the frame signals; throws std::invalid_argument for a frame with more
  // bodies than the buffers hold, or one whose value would not be above the last submit's.
  std::uint64_t checkedRenderDoneValue(const FrameSubmit& frame) const;
  // Resets the slot's pool and records the frame, unless the slot's last recording can be submitted again as is.
  void recordUnlessReusable(FrameSlot& slot, std::uint32_t slotIndex, const FrameSubmit& frame);
  void recordFrame(FrameSlot& slot, std::uint32_t slotIndex, const FrameSubmit& frame);
  // Inside a pass: the box with its room, and the obstacle, as the frame asks.
  void cmdDrawScenery(VkCommandBuffer cmd, const FrameSubmit& frame) const;
  // vkQueueSubmit of the slot's command buffer with the frame's semaphore waits and signals; times the call.
  void queueSubmit(FrameSlot& slot, const FrameSubmit& frame, std::uint64_t signalValue);
  void drain() const;
  // Shutdown only: releases a queue stuck waiting for simDone values a vanished producer never signalled.
  void releaseStuckQueue() const;

  VulkanContext& context;
  RendererConfig config;
  FrameProtocol protocol; // of config.framesInFlight frames: slots and semaphore values
  VkExtent2D extent;

  // Declaration order is creation order; destruction runs in reverse, after drain().
  OffscreenTarget target;
  ParticlePipeline pipeline;
  BoxPipeline boxPipeline;              // the scene box, its room and obstacle, when a frame asks for them
  std::optional<SurfacePasses> surface; // made by the first frame in RenderMode::Surface
  BodyBuffers bodies;
  TimelineSemaphore simDone;                    // signalled by the producer (CUDA), waited at vertex input
  TimelineSemaphore renderDone;                 // signalled by our submits: frame k -> protocol.renderDoneSignalled(k)
  ThrottleWaiter throttle{config.throttleWait}; // waitSlotIdle's renderDone wait
  OwnedQueryPool timestamps;                    // kTimestampsPerSlot per slot; empty without timestamp support
  std::uint64_t timestampMask = 0;
  double timestampPeriodNs = 0.0;
  // Mesa's lavapipe waits for the whole device inside vkGetQueryPoolResults, even without the WAIT flag: there a
  // read while a later frame is still queued would block, and forever if that frame waits for a semaphore nobody
  // signals. Such drivers are only asked once the queue has finished everything submitted.
  bool queryReadWaitsForDevice = false;
  std::vector<FrameSlot> slots;

  std::uint64_t lastSignalled = 0;      // renderDone value of the last submit (0: none yet)
  std::uint64_t highestSimDoneWait = 0; // largest simDone value a submitted frame waits for
  mutable RenderPassTimes lastTimes;    // last timestamp results read back
  double lastQueueSubmitUs = 0.0;       // host time of the last vkQueueSubmit
  mutable bool stalled = false;         // a stall was reported (stallReport): drain releases the queue first
};

} // namespace graphsim::render
