// What every simulation backend offers the app: the named stage list, parameter updates, stage toggles and stepping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_diagnostics.h"
#include "compute/node_info.h"

namespace graphsim {

// The n-body stage a node is an instance of (NodeInfo::step is its row in kNBodyStages); none for other nodes.
inline std::optional<NBodyStage> stageOf(const NodeInfo& node) {
  if (node.step < 0) return std::nullopt;
  return static_cast<NBodyStage>(node.step);
}

// The first non-finite position, velocity or acceleration a backend's stages wrote since its last reset (issue 12):
// the integration blew up (softening too small for dt, an extreme attractor). Every later frame is non-finite
// everywhere, so only the first report is kept; reset() clears it.
struct NBodyBlowUp {
  // Frame index k, 0-based: the k of NBodyCudaBackend::launchFrame(k) / NBodyCpuBackend::stepFrame(k). step() numbers
  // its frames 0, 1, 2, ... over the backend's life (reset() does not restart them; on the CPU they continue from the
  // last stepFrame(k)).
  std::uint64_t frame = 0;
  // The earliest stage instance in the frame's order that wrote one. Accelerations are checked where they enter the
  // state: forces is named (with "non-finite acceleration") when integrate of its substep kicked a body with one.
  NBodyStage stage = NBodyStage::Forces;
  int substep = 0;  // which instance of it: nodes() names it stageInstanceName(stage, substep)
  std::string what; // "non-finite velocity"; the CPU backend adds the body and its value
};

// One line for a log or a notice: "frame 12, stage integrate#1: non-finite velocity".
inline std::string describe(const NBodyBlowUp& b) {
  return "frame " + std::to_string(b.frame) + ", stage " + stageInstanceName(b.stage, b.substep) + ": " + b.what;
}

// step: substeps x (forces, attractor, integrate, damping, boundary), then colour.
class NBodyBackend : public SceneBackendOf<NBodyConfig, NBodyParams> {
public:
  virtual void setStageEnabled(NBodyStage stage, bool enabled) = 0;
  virtual bool stageEnabled(NBodyStage stage) const = 0;
  // Current bodies (position+mass, half-step velocity) and per-body colour attribute, copied to the host.
  virtual void download(BodyState& state, std::vector<float>& colour) = 0;
  // The accelerations the next step's first kick uses (what the forces stage last computed), copied to the host.
  virtual std::vector<Float4> downloadAccelerations() = 0;
  // Replaces the bodies with a downloaded state (a snapshot: positions+mass, half-step velocities and the
  // accelerations the next kick uses), so that stepping on resumes bit for bit. Clears blowUp() and starts a new
  // diagnostics series. Throws std::invalid_argument when the sizes disagree (CUDA: or differ from config().bodies;
  // a count change is a reset), before changing anything.
  virtual void setState(BodyState state, std::vector<Float4> accel) = 0;
  // Per-node timing for nodes()[i].ms. Returns whether this backend can measure it.
  virtual bool setProfiling(bool enabled) = 0;
  // The first blow-up since the last reset(), as far as it is known now; never waits. CPU: exact once step()
  // returns. CUDA: known once the GPU has run the frame's report node (docs/FRAME.md, "Blow-up detection"): with
  // frames in flight it may appear a few frames after the frame it names.
  virtual std::optional<NBodyBlowUp> blowUp() const = 0;

  // The latest live diagnostics sample (nbody_diagnostics.h) known now; never waits. CPU: of the frames stepped so
  // far. CUDA: of the frames the GPU has completed (the diagnostics kernel writes mapped pinned memory; with frames
  // in flight a sample of frame k is seen once frame k completed, at the latest when frame k + F is launched). None
  // before the first sample.
  virtual std::optional<DiagnosticsSample> diagnostics() const = 0;
};

} // namespace graphsim
