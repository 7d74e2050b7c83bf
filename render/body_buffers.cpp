#include "render/body_buffers.h"

#include <stdexcept>
#include <string>

#include "render/vk_barrier.h"
#include "render/vk_check.h"
#include "render/vk_memory.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

namespace {

// Vertex input for drawing; transfer source/destination so tests and tools can fill or read a buffer on the GPU.
// The same usage must be given to the external-buffer query and to buffer creation.
constexpr VkBufferUsageFlags kBodyUsage =
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkExternalMemoryHandleTypeFlagBits kHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

} // namespace

BodyBuffers::BodyBuffers(const VulkanContext& context, BodyBufferMode mode, std::uint32_t slots,
                         std::uint32_t maxBodies)
    : device_(context.device()), mode_(mode),
      // A zero-sized buffer is invalid in Vulkan; one body of capacity keeps "zero bodies" a plain draw count.
      bufferSize_(VkDeviceSize{GRAPHSIM_BODY_STRIDE} * (maxBodies > 0 ? maxBodies : 1)) {
  if (mode == BodyBufferMode::Exported) {
    if (!context.interopEnabled()) {
      throw EnvironmentError(
          "exported body buffers need a VulkanContext created with requireInterop "
          "(VK_KHR_external_memory_fd)");
    }
    getMemoryFd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device_, "vkGetMemoryFdKHR"));
    if (!getMemoryFd_) {
      throw EnvironmentError("vkGetMemoryFdKHR is missing although VK_KHR_external_memory_fd is enabled");
    }
  }
  slots_.reserve(slots);
  for (std::uint32_t i = 0; i < slots; ++i) {
    switch (mode) {
    case BodyBufferMode::HostVisible: slots_.push_back(createHostVisible(context)); break;
    case BodyBufferMode::Exported: slots_.push_back(createExported(context)); break;
    case BodyBufferMode::Staged: slots_.push_back(createStaged(context)); break;
    }
  }
}

BodyBuffers::Slot BodyBuffers::createHostVisible(const VulkanContext& context) const {
  // Prefer device-local host-visible memory (ReBAR/UMA, lavapipe) so vertex fetch does not cross the bus.
  HostBuffer host = createHostBuffer(context, bufferSize_, kBodyUsage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Slot slot;
  slot.mapped = host.mapped;
  slot.vertices = static_cast<BoundBuffer&&>(host); // the buffer and its memory; stays mapped until freed
  return slot;
}

BodyBuffers::Slot BodyBuffers::createExported(const VulkanContext& context) const {
  // Some drivers only export dedicated allocations; others merely prefer them. Ask both places.
  const VkPhysicalDeviceExternalBufferInfo externalQuery{
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
      .usage = kBodyUsage,
      .handleType = kHandleType};
  VkExternalBufferProperties externalProperties{.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(context.physicalDevice(), &externalQuery, &externalProperties);
  const VkExternalMemoryFeatureFlags features = externalProperties.externalMemoryProperties.externalMemoryFeatures;
  if (!(features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)) {
    throw EnvironmentError("the Vulkan device cannot export vertex buffers as OPAQUE_FD memory");
  }
  const bool dedicatedOnly = features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
  Slot slot;
  slot.vertices = createBoundBuffer(context, bufferSize_, kBodyUsage,
                                    {.required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                     .exportTypes = kHandleType,
                                     .dedicated = dedicatedOnly ? Dedicated::Always : Dedicated::WhenDriverAsks});
  return slot;
}

BodyBuffers::Slot BodyBuffers::createStaged(const VulkanContext& context) const {
  Slot slot;
  slot.vertices =
      createBoundBuffer(context, bufferSize_, kBodyUsage, {.required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT});
  // Plain host-visible, coherent memory: the host only writes it (sequentially), the copy engine reads it.
  slot.staging = createHostBuffer(context, bufferSize_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  return slot;
}

float* BodyBuffers::mapped(std::uint32_t slot) const {
  if (mode_ == BodyBufferMode::Staged) return static_cast<float*>(slots_.at(slot).staging.mapped);
  if (mode_ != BodyBufferMode::HostVisible) {
    throw std::logic_error(
        "mappedBodies() needs BodyBufferMode::HostVisible or Staged; exported buffers are "
        "written by CUDA");
  }
  return static_cast<float*>(slots_.at(slot).mapped);
}

void BodyBuffers::cmdUpload(VkCommandBuffer cmd, std::uint32_t slot, VkDeviceSize bytes) const {
  if (mode_ != BodyBufferMode::Staged) throw std::logic_error("cmdUpload() needs BodyBufferMode::Staged");
  const Slot& s = slots_.at(slot);
  // The draw that last used this slot (F frames ago) read the vertex buffer: the copy must not overtake it (WAR,
  // an execution dependency). The host's writes to the staging buffer are made visible by the submit itself.
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                       nullptr, 0, nullptr);
  const VkBufferCopy region{.srcOffset = 0, .dstOffset = 0, .size = bytes};
  vkCmdCopyBuffer(cmd, s.staging.buffer.get(), s.vertices.buffer.get(), 1, &region);
  cmdBufferBarrier(cmd, s.vertices.buffer.get(), bytes, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
}

InteropDesc::Buffer BodyBuffers::exportSlot(std::uint32_t slot) const {
  if (mode_ != BodyBufferMode::Exported) throw std::logic_error("exportInterop() needs BodyBufferMode::Exported");
  const Slot& s = slots_.at(slot);
  const VkMemoryGetFdInfoKHR getFdInfo{.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                       .memory = s.vertices.memory.get(),
                                       .handleType = kHandleType};
  int fd = -1;
  VK_CHECK(getMemoryFd_(device_, &getFdInfo, &fd));
  return InteropDesc::Buffer{.fd = fd,
                             .allocationSize = s.vertices.allocationSize,
                             .offset = 0, // bound at offset 0 of its own allocation
                             .bufferSize = bufferSize_,
                             .dedicated = s.vertices.dedicated};
}

} // namespace graphsim::render
