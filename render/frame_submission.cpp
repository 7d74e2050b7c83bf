// Recording and submitting one frame, capture, and the render-pass timestamps.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "render/pipeline_common.h"
#include "render/renderer_impl.h"
#include "render/vk_barrier.h"
#include "render/vk_check.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {
namespace {

// The offscreen colour image (TRANSFER_SRC_OPTIMAL after the pass) into the acquired swapchain image, which ends in
// PRESENT_SRC_KHR. The submit waits for the acquire at the transfer stage, which the first barrier starts from.
void cmdBlitToSwapchain(VkCommandBuffer cmd, VkImage source, VkExtent2D sourceExtent, const PresentTarget& target) {
  const VkImageMemoryBarrier toTransfer =
      imageBarrier(target.image, VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_ACCESS_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr,
                       1, &toTransfer);
  const auto corner = [](VkExtent2D e) {
    return VkOffset3D{static_cast<int32_t>(e.width), static_cast<int32_t>(e.height), 1};
  };
  const VkImageBlit region{.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                           .srcOffsets = {{0, 0, 0}, corner(sourceExtent)},
                           .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                           .dstOffsets = {{0, 0, 0}, corner(target.extent)}};
  // Sizes differ only for the frames between a window resize and the renderer catching up: nearest is enough.
  vkCmdBlitImage(cmd, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                 1, &region, VK_FILTER_NEAREST);
  const VkImageMemoryBarrier toPresent =
      imageBarrier(target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, 0,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
                       nullptr, 1, &toPresent);
}

} // namespace

void ParticleRenderer::Impl::recordFrame(FrameSlot& slot, std::uint32_t slotIndex, const FrameSubmit& frame) {
  const VkCommandBuffer cmd = slot.commandBuffer;
  // Not ONE_TIME_SUBMIT: an unchanged frame submits the same recording again (FrameSlot::reusable).
  const VkCommandBufferBeginInfo beginInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VK_CHECK(vkBeginCommandBuffer(cmd, &beginInfo));
  // The frame's start marker (FrameSlot::started), ordered after the submit's simDone wait (at VERTEX_INPUT) by the
  // barrier: set once the queue is executing this frame, not merely holding it.
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 0, nullptr, 0,
                       nullptr, 0, nullptr);
  vkCmdSetEvent(cmd, slot.started.get(), VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);

  const std::uint32_t firstQuery = kTimestampsPerSlot * slotIndex;
  const auto timestamp = [&](std::uint32_t i, VkPipelineStageFlagBits stage) {
    if (timestamps) vkCmdWriteTimestamp(cmd, stage, timestamps.get(), firstQuery + i);
  };
  if (timestamps) vkCmdResetQueryPool(cmd, timestamps.get(), firstQuery, kTimestampsPerSlot);
  timestamp(0, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);

  // Staged body buffers (no interop): this frame's bodies go from the staging buffer to the vertex buffer first,
  // inside the timestamps, so the render GPU time includes the upload.
  if (bodies.mode() == BodyBufferMode::Staged && frame.bodyCount > 0) {
    bodies.cmdUpload(cmd, slotIndex, VkDeviceSize{GRAPHSIM_BODY_STRIDE} * frame.bodyCount);
  }

  if (frame.mode == RenderMode::Surface) {
    if (!surface) surface.emplace(context, extent, target.renderPass());
    const SurfaceFrame liquid{bodies.buffer(slotIndex), frame.bodyCount, frame.camera, frame.style.pointRadius,
                              frame.surface};
    surface->cmdBeginScene(cmd);
    cmdDrawScenery(cmd, frame);
    timestamp(1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    surface->cmdLiquid(cmd, liquid, timestamps.get(), firstQuery + 2);
    target.cmdBeginRenderPass(cmd);
    surface->cmdComposite(cmd, liquid);
  } else {
    target.cmdBeginRenderPass(cmd);
    cmdDrawScenery(cmd, frame);
    if (frame.bodyCount > 0) {
      pipeline.cmdDraw(cmd, extent, bodies.buffer(slotIndex), frame.bodyCount,
                       makePushConstants(frame.camera, frame.style, extent));
    }
  }
  if (frame.overlay != nullptr) frame.overlay->cmdDrawOverlay(cmd);
  vkCmdEndRenderPass(cmd);
  if (frame.present != nullptr) cmdBlitToSwapchain(cmd, target.colourImage(), extent, *frame.present);

  // Particle mode writes only the first and the last: its one pass is all "scene" (lastRenderPassTimes).
  timestamp(kTimestampsPerSlot - 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
  if (frame.capture) slot.readback->cmdCopyFrom(cmd, target.colourImage());
  VK_CHECK(vkEndCommandBuffer(cmd));
}

void ParticleRenderer::Impl::cmdDrawScenery(VkCommandBuffer cmd, const FrameSubmit& frame) const {
  if (frame.box)
    boxPipeline.cmdDraw(cmd, extent, makeBoxPushConstants(frame.camera, *frame.box, extent), frame.boxFloor);
  if (frame.obstacle && frame.obstacle->radius > 0.0f) {
    pipeline::cmdSetFullViewport(cmd, extent);
    boxPipeline.cmdDrawObstacle(cmd, makeObstaclePushConstants(frame.camera, *frame.obstacle, extent));
  }
}

std::uint64_t ParticleRenderer::Impl::checkedRenderDoneValue(const FrameSubmit& frame) const {
  if (frame.bodyCount > config.maxBodies) {
    throw std::invalid_argument("frame " + std::to_string(frame.frame) + " draws " + std::to_string(frame.bodyCount) +
                                " bodies but the buffers hold maxBodies = " + std::to_string(config.maxBodies));
  }
  const std::uint64_t signalValue = protocol.renderDoneSignalled(frame.frame);
  if (signalValue <= lastSignalled) {
    throw std::invalid_argument("frame " + std::to_string(frame.frame) + " submitted after frame " +
                                std::to_string(*FrameProtocol::frameOfRenderDone(lastSignalled)) +
                                ": renderDone values only grow");
  }
  return signalValue;
}

void ParticleRenderer::Impl::recordUnlessReusable(FrameSlot& slot, std::uint32_t slotIndex, const FrameSubmit& frame) {
  // The recording depends on the frame only through these inputs (the slot fixes buffers, queries and target).
  FrameSlot::Recorded inputs{frame.bodyCount, makePushConstants(frame.camera, frame.style, extent)};
  if (frame.box) {
    inputs.box = frame.boxFloor ? 2 : 1;
    inputs.boxPush = makeBoxPushConstants(frame.camera, *frame.box, extent);
  }
  inputs.obstacle = frame.obstacle;
  inputs.mode = frame.mode;
  inputs.surface = frame.surface;
  const bool reusable = frame.overlay == nullptr && !frame.capture && frame.present == nullptr;
  // Byte equality on purpose: the recording depends on the bytes pushed, so equal bytes (NaN included) may reuse it
  // and unequal ones (0.0 vs -0.0 too) re-record; the push constants have no padding (render/particle_pipeline.cpp).
  const bool same = reusable && slot.reusable && slot.reusable->bodyCount == inputs.bodyCount &&
                    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison): byte equality is the intent (above)
                    std::memcmp(&slot.reusable->push, &inputs.push, sizeof inputs.push) == 0 &&
                    slot.reusable->box == inputs.box &&
                    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison): byte equality is the intent (above)
                    std::memcmp(&slot.reusable->boxPush, &inputs.boxPush, sizeof inputs.boxPush) == 0 &&
                    slot.reusable->obstacle == inputs.obstacle && slot.reusable->mode == inputs.mode &&
                    slot.reusable->surface == inputs.surface;
  if (!same) {
    VK_CHECK(vkResetCommandPool(context.device(), slot.commandPool.get(), 0));
    recordFrame(slot, slotIndex, frame);
    slot.reusable = reusable ? std::optional(inputs) : std::nullopt;
  }
}

void ParticleRenderer::Impl::queueSubmit(FrameSlot& slot, const FrameSubmit& frame, std::uint64_t signalValue) {
  // Waits: simDone >= frame.waitSimDone at vertex input (bodies are vertex attributes: nothing earlier depends on the
  // producer), and with a window the image acquire before the blit. Signals: renderDone = renderDoneSignalled(k),
  // and the image's renderFinished.
  // Binary semaphores take a placeholder value in the timeline arrays.
  std::array<VkSemaphore, 2> waits{};
  std::array<std::uint64_t, 2> waitValues{};
  std::array<VkPipelineStageFlags, 2> waitStages{};
  std::uint32_t waitCount = 0;
  if (frame.waitSimDone) {
    waits[waitCount] = simDone.get();
    waitValues[waitCount] = *frame.waitSimDone;
    waitStages[waitCount++] = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
  }
  if (frame.present != nullptr) {
    waits[waitCount] = frame.present->acquired;
    waitStages[waitCount++] = VK_PIPELINE_STAGE_TRANSFER_BIT;
  }
  const std::array<VkSemaphore, 2> signals{renderDone.get(),
                                           frame.present != nullptr ? frame.present->renderFinished : VK_NULL_HANDLE};
  const std::array<std::uint64_t, 2> signalValues{signalValue, 0};
  const std::uint32_t signalCount = frame.present != nullptr ? 2 : 1;
  const VkTimelineSemaphoreSubmitInfo timelineInfo{.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                                   .waitSemaphoreValueCount = waitCount,
                                                   .pWaitSemaphoreValues = waitValues.data(),
                                                   .signalSemaphoreValueCount = signalCount,
                                                   .pSignalSemaphoreValues = signalValues.data()};
  const VkSubmitInfo submitInfo{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                .pNext = &timelineInfo,
                                .waitSemaphoreCount = waitCount,
                                .pWaitSemaphores = waits.data(),
                                .pWaitDstStageMask = waitStages.data(),
                                .commandBufferCount = 1,
                                .pCommandBuffers = &slot.commandBuffer,
                                .signalSemaphoreCount = signalCount,
                                .pSignalSemaphores = signals.data()};
  const VkFence fence = slot.fence.get();
  VK_CHECK(vkResetFences(context.device(), 1, &fence));
  const auto submitStart = std::chrono::steady_clock::now();
  VK_CHECK(vkQueueSubmit(context.queue(), 1, &submitInfo, fence));
  lastQueueSubmitUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - submitStart).count();
  slot.fenceWaited = false;
}

void ParticleRenderer::submit(const FrameSubmit& frame) {
  Impl& r = *impl_;
  const std::uint64_t signalValue = r.checkedRenderDoneValue(frame);
  const std::uint32_t slotIndex = slotOf(frame.frame);
  FrameSlot& slot = r.slots[slotIndex];
  // Normally the caller already throttled with waitForSlot(k) and this returns at once; without it we would reset
  // a command buffer the GPU may still be executing.
  r.waitSlotIdle(slot, frame.frame);
  VK_CHECK(vkResetEvent(r.context.device(), slot.started.get())); // the slot is idle: its last submit finished
  if (frame.capture && !slot.readback) slot.readback.emplace(r.context, r.extent);
  r.recordUnlessReusable(slot, slotIndex, frame);
  r.queueSubmit(slot, frame, signalValue);

  slot.submittedFrame = frame.frame;
  slot.submittedMode = frame.mode;
  slot.submittedSimDoneWait = frame.waitSimDone.value_or(0);
  if (frame.capture) slot.capturedFrame = frame.frame;
  r.lastSignalled = signalValue;
  r.highestSimDoneWait = std::max(r.highestSimDoneWait, frame.waitSimDone.value_or(0));
}

std::vector<std::uint8_t> ParticleRenderer::finishCapture(std::uint64_t frame) {
  std::vector<std::uint8_t> pixels;
  finishCapture(frame, pixels);
  return pixels;
}

void ParticleRenderer::finishCapture(std::uint64_t frame, std::vector<std::uint8_t>& out) {
  Impl& r = *impl_;
  const FrameSlot& slot = r.slots[slotOf(frame)];
  if (slot.capturedFrame != frame) {
    throw std::logic_error("finishCapture(" + std::to_string(frame) +
                           "): that frame was not submitted with "
                           "capture = true, or its slot has captured a later frame since");
  }
  r.waitRenderDone(r.protocol.renderDoneSignalled(frame), frame);
  slot.readback->copyPixels(out);
}

double ParticleRenderer::lastQueueSubmitUs() const { return impl_->lastQueueSubmitUs; }

double ParticleRenderer::lastRenderGpuMs() const { return lastRenderPassTimes().total; }

RenderPassTimes ParticleRenderer::lastRenderPassTimes() const {
  const Impl& r = *impl_;
  if (!r.timestamps) return {}; // timestampValidBits == 0 on this queue family
  const std::uint64_t completed = r.renderDone.value();
  if (completed == 0 || (r.queryReadWaitsForDevice && completed < r.lastSignalled)) return r.lastTimes;
  // renderDone = renderDoneSignalled(k) means frame k finished; its slot still holds its queries unless re-recorded
  // since.
  const std::uint64_t frame = *FrameProtocol::frameOfRenderDone(completed);
  const std::uint32_t slotIndex = slotOf(frame);
  const FrameSlot& slot = r.slots[slotIndex];
  if (slot.submittedFrame != frame) return r.lastTimes;
  std::array<std::uint64_t, kTimestampsPerSlot> ticks{};
  const auto read = [&](std::uint32_t first, std::uint32_t count) { // no WAIT: the frame reached renderDone
    return vkGetQueryPoolResults(r.context.device(), r.timestamps.get(), kTimestampsPerSlot * slotIndex + first, count,
                                 count * sizeof(std::uint64_t), ticks.data() + first, sizeof(std::uint64_t),
                                 VK_QUERY_RESULT_64_BIT);
  };
  const bool surface = slot.submittedMode == RenderMode::Surface;
  VkResult result = surface ? read(0, kTimestampsPerSlot) : read(0, 1);
  if (result == VK_SUCCESS && !surface) result = read(kTimestampsPerSlot - 1, 1);
  if (result == VK_NOT_READY) return r.lastTimes;
  VK_CHECK(result);
  const auto ms = [&](std::size_t from, std::size_t to) {
    return static_cast<double>((ticks[to] - ticks[from]) & r.timestampMask) * r.timestampPeriodNs * 1e-6;
  };
  const double total = ms(0, kTimestampsPerSlot - 1);
  r.lastTimes = surface ? RenderPassTimes{.total = total,
                                          .scene = ms(0, 1),
                                          .thickness = ms(1, 2),
                                          .depth = ms(2, 3),
                                          .smoothing = ms(3, 4),
                                          .shading = ms(4, 5)}
                        : RenderPassTimes{total, total, 0.0, 0.0, 0.0, 0.0};
  return r.lastTimes;
}

} // namespace graphsim::render
