#include "app/ui/imgui_layer.h"

#include <imgui.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <array>
#include <string>

#include "render/vk_check.h"

namespace graphsim::app {
namespace {

// The backend reports every VkResult through this hook; failures take the same path as our own VK_CHECK.
void checkImGuiVk(VkResult result) {
  if (result != VK_SUCCESS) render::throwVulkanError(result, "ImGui Vulkan backend call", __FILE__, __LINE__);
}

} // namespace

ImGuiLayer::ImGuiLayer(const render::VulkanContext& context, VkRenderPass renderPass, std::uint32_t framesInFlight,
                       Window& window, std::chrono::milliseconds timeout)
    : window_(window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr; // no imgui.ini appearing in the user's working directory
  io.LogFilename = nullptr;
  ImGui::StyleColorsDark();
  window_.imguiInit();

  // The font atlas is the only texture: one combined image sampler.
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  const VkDescriptorPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                            .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
                                            .maxSets = 1,
                                            .poolSizeCount = 1,
                                            .pPoolSizes = &poolSize};
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(context.device(), &poolInfo, nullptr, &pool));
  descriptorPool_ = render::OwnedDescriptorPool(context.device(), pool);

  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = context.instance();
  info.PhysicalDevice = context.physicalDevice();
  info.Device = context.device();
  info.QueueFamily = context.queueFamily();
  info.Queue = context.queue();
  info.DescriptorPool = pool;
  info.Subpass = 0;
  info.MinImageCount = 2;
  info.ImageCount = std::max<std::uint32_t>(2, framesInFlight);
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.CheckVkResultFn = checkImGuiVk;
  if (!ImGui_ImplVulkan_Init(&info, renderPass))
    throw std::runtime_error("ImGui's Vulkan backend failed to initialise");
  backendReady_ = true;
  uploadFonts(context, timeout);
}

ImGuiLayer::~ImGuiLayer() {
  if (backendReady_) ImGui_ImplVulkan_Shutdown();
  window_.imguiShutdown();
  ImGui::DestroyContext();
}

// One-off: record the font upload, submit with a fence, wait (bounded), free the staging objects.
void ImGuiLayer::uploadFonts(const render::VulkanContext& context, std::chrono::milliseconds timeout) {
  const VkDevice device = context.device();
  const VkCommandPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                         .queueFamilyIndex = context.queueFamily()};
  VkCommandPool rawPool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(device, &poolInfo, nullptr, &rawPool));
  render::OwnedCommandPool pool(device, rawPool);
  const VkCommandBufferAllocateInfo allocateInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                 .commandPool = rawPool,
                                                 .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                 .commandBufferCount = 1};
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(device, &allocateInfo, &cmd));
  const VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
  VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
  if (!ImGui_ImplVulkan_CreateFontsTexture(cmd)) throw std::runtime_error("ImGui could not create its font texture");
  VK_CHECK(vkEndCommandBuffer(cmd));

  const VkFenceCreateInfo fenceInfo{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence rawFence = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFence(device, &fenceInfo, nullptr, &rawFence));
  render::OwnedFence fence(device, rawFence);
  const VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
  VK_CHECK(vkQueueSubmit(context.queue(), 1, &submit, rawFence));
  const auto timeoutNs = static_cast<std::uint64_t>(std::chrono::nanoseconds(timeout).count());
  const VkResult waited = vkWaitForFences(device, 1, &rawFence, VK_TRUE, timeoutNs);
  if (waited == VK_TIMEOUT) {
    // The pool and fence must outlive the GPU's use: leak them rather than free what the queue may still read.
    static_cast<void>(pool.release());
    static_cast<void>(fence.release());
    throw TimeoutError("ImGui font upload did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  VK_CHECK(waited);
  ImGui_ImplVulkan_DestroyFontUploadObjects();
}

void ImGuiLayer::beginFrame() {
  ImGui_ImplVulkan_NewFrame();
  window_.imguiNewFrame();
  ImGui::NewFrame();
}

void ImGuiLayer::endFrame() { ImGui::Render(); }

void ImGuiLayer::cmdDrawOverlay(VkCommandBuffer cmd) {
  ImDrawData* data = ImGui::GetDrawData();
  if (data != nullptr) ImGui_ImplVulkan_RenderDrawData(data, cmd);
}

} // namespace graphsim::app
