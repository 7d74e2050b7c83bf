// ParticleRenderer: construction, the frames-in-flight throttle, export, drain and shutdown.
// Recording and submission live in frame_submission.cpp.
#include "render/particle_renderer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "render/renderer_impl.h"
#include "render/vk_check.h"

namespace graphsim::render {

namespace {

const RendererConfig& validated(const RendererConfig& config, const VulkanContext& context) {
  if (config.framesInFlight < 1 || config.framesInFlight > kMaxFramesInFlight) {
    throw std::invalid_argument("framesInFlight must be 1.." + std::to_string(kMaxFramesInFlight) + ", got " +
                                std::to_string(config.framesInFlight));
  }
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(context.physicalDevice(), &properties);
  const std::uint32_t maxSize = properties.limits.maxImageDimension2D;
  if (config.width < 1 || config.height < 1 || config.width > maxSize || config.height > maxSize) {
    throw std::invalid_argument("render target " + std::to_string(config.width) + "x" + std::to_string(config.height) +
                                " is outside 1.." + std::to_string(maxSize) + " per side on this device");
  }
  if (config.waitTimeout.count() <= 0) {
    throw std::invalid_argument("waitTimeout must be positive: every host wait is bounded");
  }
  return config;
}

} // namespace

ParticleRenderer::Impl::Impl(VulkanContext& context_, const RendererConfig& config_)
    : context(context_), config(validated(config_, context_)),
      protocol(config.framesInFlight), extent{config.width, config.height}, target(context, extent),
      pipeline(context.device(), target.renderPass()), boxPipeline(context.device(), target.renderPass()),
      bodies(context, config.mode, config.framesInFlight, config.maxBodies),
      simDone(context, config.mode == BodyBufferMode::Exported),
      renderDone(context, config.mode == BodyBufferMode::Exported) {
  const VkDevice device = context.device();

  std::uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physicalDevice(), &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physicalDevice(), &familyCount, families.data());
  const std::uint32_t validBits = families.at(context.queueFamily()).timestampValidBits;
  if (validBits > 0) {
    const VkQueryPoolCreateInfo queryInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                          .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                          .queryCount = kTimestampsPerSlot * config.framesInFlight};
    VkQueryPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateQueryPool(device, &queryInfo, nullptr, &pool));
    timestamps = OwnedQueryPool(device, pool);
    timestampMask = validBits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << validBits) - 1;
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(context.physicalDevice(), &properties);
    timestampPeriodNs = properties.limits.timestampPeriod;
    VkPhysicalDeviceVulkan12Properties properties12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceProperties2 properties2{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            .pNext = &properties12};
    vkGetPhysicalDeviceProperties2(context.physicalDevice(), &properties2);
    queryReadWaitsForDevice = properties12.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
  }

  slots.resize(config.framesInFlight);
  for (FrameSlot& slot : slots) {
    // TRANSIENT: the one command buffer is re-recorded every time the slot comes round.
    const VkCommandPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                           .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                           .queueFamilyIndex = context.queueFamily()};
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(device, &poolInfo, nullptr, &pool));
    slot.commandPool = OwnedCommandPool(device, pool);
    const VkCommandBufferAllocateInfo allocateInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                   .commandPool = pool,
                                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                   .commandBufferCount = 1};
    VK_CHECK(vkAllocateCommandBuffers(device, &allocateInfo, &slot.commandBuffer));
    const VkFenceCreateInfo fenceInfo{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VK_CHECK(vkCreateFence(device, &fenceInfo, nullptr, &fence));
    slot.fence = OwnedFence(device, fence);
    const VkEventCreateInfo eventInfo{.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    VkEvent event = VK_NULL_HANDLE;
    VK_CHECK(vkCreateEvent(device, &eventInfo, nullptr, &event));
    slot.started = OwnedEvent(device, event);
  }
}

std::chrono::nanoseconds ParticleRenderer::Impl::maxExecution() const {
  return std::max<std::chrono::nanoseconds>(std::chrono::minutes(10), 10 * config.waitTimeout);
}

bool ParticleRenderer::Impl::progressed(ProgressMark& mark) const {
  const std::uint64_t rd = renderDone.value(), sd = simDone.value();
  if (rd > mark.renderDone || sd > mark.simDone) {
    mark = ProgressMark{rd, sd};
    return true;
  }
  // renderDone = rd: frame rd (which signals rd + 1) is the oldest one not finished.
  const FrameSlot& slot = slots[slotOf(rd)];
  if (slot.submittedFrame != rd || vkGetEventStatus(context.device(), slot.started.get()) != VK_EVENT_SET) return false;
  const auto now = std::chrono::steady_clock::now();
  if (mark.executingFrame != rd) {
    mark.executingFrame = rd;
    mark.executingSince = now;
  }
  return now - mark.executingSince < maxExecution();
}

void ParticleRenderer::Impl::waitSlotIdle(FrameSlot& slot, std::uint64_t frame) {
  if (!slot.submittedFrame || slot.fenceWaited) return;
  const std::uint64_t signalled = protocol.renderDoneSignalled(*slot.submittedFrame);
  if (!waitWithProgress([&](std::chrono::nanoseconds t) { return throttle.wait(renderDone, signalled, t); }))
    throw stallReport(signalled, frame);
  const VkFence fence = slot.fence.get();
  const auto timeoutNs = static_cast<std::uint64_t>(std::chrono::nanoseconds(config.waitTimeout).count());
  const VkResult result = vkWaitForFences(context.device(), 1, &fence, VK_TRUE, timeoutNs);
  if (result == VK_TIMEOUT) throw stallReport(signalled, frame);
  VK_CHECK(result);
  slot.fenceWaited = true;
}

TimeoutError ParticleRenderer::Impl::stallReport(std::uint64_t value, std::uint64_t frame) const {
  if (stalled) {
    return TimeoutError("the queue did not drain after the stall (renderDone is at " +
                        std::to_string(renderDone.value()) + ", " + std::to_string(value) + " needed)");
  }
  stalled = true;
  // renderDone = v (v > 0) is signalled by the submit of frame v-1 (FrameProtocol::frameOfRenderDone), which waits
  // for simDone >= v (CUDA backend) or nothing. Reading the CUDA-signalled counter is not a wait (waits on it
  // arrive late, see docs/FRAME.md), so it is fine here: it tells which side is late.
  const std::uint64_t signaller = FrameProtocol::frameOfRenderDone(value).value_or(0);
  const std::uint64_t simDoneNow = simDone.value();
  const FrameSlot& slot = slots[slotOf(signaller)];
  const std::uint64_t simDoneWait = slot.submittedFrame == signaller ? slot.submittedSimDoneWait : 0;
  const bool simSideLate = simDoneNow < simDoneWait && simDoneWait <= value;
  std::string report = std::string(simSideLate ? "sim side stalled" : "render side stalled") +
                       ": renderDone did not reach " + std::to_string(value) + " for frame " + std::to_string(frame) +
                       " within " + std::to_string(config.waitTimeout.count()) + " ms (renderDone is at " +
                       std::to_string(renderDone.value()) + ", simDone is at " + std::to_string(simDoneNow) + ": ";
  if (simSideLate) {
    report += "the simulation has not signalled frame " + std::to_string(signaller) +
              "'s simDone = " + std::to_string(simDoneWait);
  } else if (simDoneWait > simDoneNow) {
    report += "frame " + std::to_string(signaller) +
              "'s render submit waits for simDone >= " + std::to_string(simDoneWait) + ", past the frame's own value " +
              std::to_string(value);
  } else {
    report += "the simulation finished frame " + std::to_string(signaller) + " but its render submit did not complete";
  }
  return TimeoutError(report + ")", simSideLate ? TimeoutError::Side::Cuda : TimeoutError::Side::Vulkan);
}

void ParticleRenderer::Impl::waitRenderDone(std::uint64_t value, std::uint64_t frame) const {
  if (!waitWithProgress([&](std::chrono::nanoseconds t) { return renderDone.hostWait(value, t); })) {
    throw stallReport(value, frame);
  }
}

void ParticleRenderer::Impl::drain() const {
  // After a reported stall nothing will signal the simDone values the queue waits for: release it, then drain.
  if (stalled) releaseStuckQueue();
  if (const std::optional<std::uint64_t> last = FrameProtocol::frameOfRenderDone(lastSignalled)) {
    waitRenderDone(lastSignalled, *last);
  }
  // Our own work is done; this also covers anything else recorded on the shared queue (overlay uploads).
  VK_CHECK(vkQueueWaitIdle(context.queue()));
}

void ParticleRenderer::Impl::releaseStuckQueue() const {
  if (highestSimDoneWait > simDone.value()) {
    std::fprintf(stderr, "[graphsim] renderer shutdown: signalling simDone = %llu from the host to release the queue\n",
                 static_cast<unsigned long long>(highestSimDoneWait));
    simDone.hostSignal(highestSimDoneWait);
  }
}

ParticleRenderer::ParticleRenderer(VulkanContext& context, const RendererConfig& config)
    : impl_(std::make_unique<Impl>(context, config)) {}

ParticleRenderer::~ParticleRenderer() {
  if (!impl_) return;
  try {
    impl_->drain();
    return; // impl_ now destroys everything in reverse creation order
  } catch (const std::exception& error) {
    // A stall already reported (and thrown to the caller) is not printed again.
    if (!impl_->stalled) std::fprintf(stderr, "[graphsim] renderer shutdown: %s\n", error.what());
  }
  // Only reached when the producer never signalled simDone: the destructor must neither hang nor throw.
  try {
    impl_->releaseStuckQueue();
    impl_->drain();
    return;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[graphsim] renderer shutdown: %s\n", error.what());
  }
  std::fprintf(stderr,
               "[graphsim] renderer shutdown: the queue is still busy; leaking its Vulkan objects rather "
               "than destroying them while the GPU may use them\n");
  static_cast<void>(impl_.release());
}

const RendererConfig& ParticleRenderer::config() const { return impl_->config; }
const FrameProtocol& ParticleRenderer::protocol() const { return impl_->protocol; }
std::uint32_t ParticleRenderer::slotOf(std::uint64_t frame) const { return impl_->slotOf(frame); }
VkRenderPass ParticleRenderer::renderPass() const { return impl_->target.renderPass(); }

void ParticleRenderer::waitForSlot(std::uint64_t frame) {
  // The slot's last frame is k - F when frames come one by one, so this waits for renderDone >= renderDoneWaited(k).
  // Asking the slot rather than the protocol also stays right when the caller skips frame numbers.
  impl_->waitSlotIdle(impl_->slots[slotOf(frame)], frame);
}

float* ParticleRenderer::mappedBodies(std::uint32_t slot) { return impl_->bodies.mapped(slot); }

InteropDesc ParticleRenderer::exportInterop() {
  InteropDesc interop;
  try {
    for (std::uint32_t slot = 0; slot < protocol().framesInFlight(); ++slot) {
      interop.renderBuffers.push_back(impl_->bodies.exportSlot(slot));
    }
    interop.simDoneFd = impl_->simDone.exportFd();
    interop.renderDoneFd = impl_->renderDone.exportFd();
  } catch (...) { // the fds made so far were the caller's to close: nobody else will
    for (const InteropDesc::Buffer& b : interop.renderBuffers) ::close(b.fd);
    if (interop.simDoneFd >= 0) ::close(interop.simDoneFd);
    throw;
  }
  return interop;
}

void ParticleRenderer::waitRenderDone(std::uint64_t value) {
  if (value > impl_->lastSignalled) {
    // Only our own submits signal renderDone: waiting for more could only end in a timeout.
    throw std::logic_error("waitRenderDone(" + std::to_string(value) + "): renderDone is only signalled up to " +
                           std::to_string(impl_->lastSignalled) + " by the frames submitted so far");
  }
  if (const std::optional<std::uint64_t> frame = FrameProtocol::frameOfRenderDone(value)) {
    impl_->waitRenderDone(value, *frame);
  }
}

std::uint64_t ParticleRenderer::renderDoneValue() const { return impl_->renderDone.value(); }

void ParticleRenderer::drain() { impl_->drain(); }

void ParticleRenderer::resize(std::uint32_t width, std::uint32_t height) {
  Impl& r = *impl_;
  RendererConfig config = r.config;
  config.width = width;
  config.height = height;
  validated(config, r.context);
  r.drain();
  r.config = config;
  r.extent = {width, height};
  r.target.resize(r.context, r.extent);
  if (r.surface) r.surface->resize(r.context, r.extent);
  for (FrameSlot& slot : r.slots) { // readback buffers and recordings refer to the old target
    slot.readback.reset();
    slot.capturedFrame.reset();
    slot.reusable.reset();
  }
}

} // namespace graphsim::render
