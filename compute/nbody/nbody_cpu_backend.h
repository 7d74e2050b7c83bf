// The CPU reference backend of the nbody scene: the same stages as the CUDA graph, in the same order, in plain C++.
// Deterministic: the same config gives bit-identical states (no threads race on a sum; see cpu_stages.cpp).
#pragma once

#include "compute/nbody/nbody_backend.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "compute/nbody/nbody_tree.h"

namespace graphsim {

class NBodyCpuBackend final : public NBodyBackend {
public:
  explicit NBodyCpuBackend(const NBodyConfig& config);

  std::string_view name() const override { return "cpu"; }
  void reset(const NBodyConfig& config) override;
  void setParams(const NBodyParams& params) override;
  void setStageEnabled(NBodyStage stage, bool enabled) override;
  bool stageEnabled(NBodyStage stage) const override;
  void step() override; // stepFrame(the last frame + 1), frame 0 first
  // step() as frame k of the frame loop: a blow-up in it is reported as frame k (the loop skips k while paused).
  void stepFrame(std::uint64_t k);
  void download(BodyState& state, std::vector<float>& colour) override;
  std::vector<Float4> downloadAccelerations() override { return accel_; }
  const std::vector<NodeInfo>& nodes() const override;
  bool setProfiling(bool enabled) override; // wall time of each stage call
  UpdateCounters counters() const override { return {}; }
  const NBodyConfig& config() const override { return config_; }
  // Checked after every stage instance that wrote positions or velocities (accelerations where integrate uses them),
  // until the first report.
  std::optional<NBodyBlowUp> blowUp() const override { return blowUp_; }
  // With config().diagnosticsEvery > 0: computeDiagnostics on the frames that sample (nbody_diagnostics.h), right
  // after the first forces stage, from its accelerations; nodes() lists it there as "diagnostics".
  void setDiagnosticsEnabled(bool enabled) override;
  bool diagnosticsEnabled() const override { return diagnosticsOn_; }
  std::optional<DiagnosticsSample> diagnostics() const override { return diagnostics_; }

  // The write_render stage: packs (x, y, z, colour) per body into dst (config().bodies entries), e.g. a mapped
  // Vulkan buffer. write_render is not togglable: the renderer draws a buffer every frame.
  void writeRender(Float4* dst) const;
  const BodyState& state() const { return state_; }
  // Replaces the bodies (a hand-made test state, or one downloaded from another backend); velocities are taken as
  // half-step velocities. config().bodies follows the new count; accel and colour are recomputed from the new state
  // by the forces and colour stages, so the next step does not use values of the old bodies. The overload with
  // accelerations takes them as given instead (a state downloaded while the forces stage was off). Either clears
  // blowUp(): the state it described is gone (a non-finite value in the new state is reported by the next step).
  void setState(BodyState state);
  void setState(BodyState state, std::vector<Float4> accel) override;

private:
  NBodyConfig config_;
  BodyState state_;
  std::vector<Float4> accel_;
  std::vector<float> colour_;
  cpu::ForceScratch forceScratch_; // reused by every forces stage: a step allocates nothing after the first
  tree::Tree tree_;                // forces: tree (reused likewise)
  // The forces stage: direct summation or the tree walk, as config_ says (usesTree).
  void computeForces(const std::vector<Float4>& posMass, std::vector<Float4>& accel);
  bool profiling_ = false;
  std::uint64_t nextFrame_ = 0;       // the frame step() runs next
  std::optional<NBodyBlowUp> blowUp_; // the first non-finite value since the last reset or setState
  // Diagnostics: the panel's toggle, whether the series' first sample is still to be taken, the series (one per
  // reset or setState) and its latest sample.
  bool diagnosticsOn_ = true, diagnosticsFirstPending_ = true;
  std::uint64_t diagnosticsSeries_ = 0;
  std::optional<DiagnosticsSample> diagnostics_;
  void startDiagnosticsSeries();
  mutable std::vector<double> nodeMs_; // in nodes() order, last step (and writeRender)
  // What nodes() returns: rebuilt when its size is not nodeCount() (the stage instances of config_.substeps, and the
  // diagnostics row when config_.diagnosticsEvery > 0: the only structural changes), its enable states and times
  // copied in place when nodesStale_ (a reset, a toggle, profiling on/off, a profiled step or writeRender).
  std::size_t nodeCount() const;
  mutable std::vector<NodeInfo> nodes_;
  mutable bool nodesStale_ = true;
};

} // namespace graphsim
