#include "compute/nvtx.h"

#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstring>

namespace graphsim::nvtx {
namespace {

struct PhaseStyle {
  const char* name;
  std::uint32_t argb;
};
// Colours group the timeline: waits red/orange, CUDA work green, Vulkan blue.
constexpr std::array<PhaseStyle, kPhaseCount> kStyles{{
    {"frame", 0xFF9E9E9Eu},
    {"throttle", 0xFFE53935u},
    {"prepare", 0xFFFDD835u},
    {"produce", 0xFF43A047u},
    {"node updates", 0xFF9CCC65u},
    {"graph launch", 0xFF1B5E20u},
    {"vulkan submit", 0xFF1E88E5u},
    {"wait produced", 0xFFFB8C00u},
    {"drain", 0xFF8E24AAu},
    {"capture", 0xFF00ACC1u},
}};
static_assert(static_cast<std::size_t>(Phase::Capture) + 1 == kPhaseCount);

// The domain and its registered phase names, made on the first range. Without an injection library NVTX3 hands out
// null handles: domain == nullptr then means "no tool attached", and every range returns at once.
struct Registry {
  nvtxDomainHandle_t domain = nullptr;
  std::array<nvtxStringHandle_t, kPhaseCount> names{};

  Registry() : domain(nvtxDomainCreateA("graphsim")) {
    if (domain == nullptr) return;
    for (std::size_t i = 0; i < kPhaseCount; ++i) names[i] = nvtxDomainRegisterStringA(domain, kStyles[i].name);
  }
};

const Registry& registry() noexcept {
  static const Registry r;
  return r;
}

} // namespace

bool Range::push(Phase phase, std::uint64_t frame) noexcept {
  const Registry& r = registry();
  if (r.domain == nullptr) return false;
  const auto i = static_cast<std::size_t>(phase);
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = kStyles[i].argb;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = frame;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = r.names[i];
  char text[32]; // "frame " + up to 20 digits: only a tool reads it, and only while one is attached
  if (phase == Phase::Frame) {
    std::memcpy(text, "frame ", 6);
    *std::to_chars(text + 6, text + sizeof text - 1, frame).ptr = '\0';
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = text;
  }
  nvtxDomainRangePushEx(r.domain, &a);
  return true;
}

void Range::pop() noexcept { nvtxDomainRangePop(registry().domain); }

void nameThisThread(const char* name) noexcept {
  if (registry().domain == nullptr) return;
  nvtxNameOsThreadA(static_cast<std::uint32_t>(::gettid()), name); // the id Nsight Systems shows
}

} // namespace graphsim::nvtx
