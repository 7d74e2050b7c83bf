#include "app/run/interop_bridge.h"

namespace graphsim::app {

InteropDesc exportForCuda(render::ParticleRenderer& renderer) {
  InteropDesc interop;
  for (std::uint32_t slot = 0; slot < renderer.config().framesInFlight; ++slot) {
    const render::ExportedMemory e = renderer.exportBodies(slot);
    interop.renderBuffers.push_back({e.fd, e.allocationSize, e.offset, e.bufferSize, e.dedicated});
  }
  interop.simDoneFd = renderer.exportSimDoneFd();
  interop.renderDoneFd = renderer.exportRenderDoneFd();
  return interop;
}

} // namespace graphsim::app
