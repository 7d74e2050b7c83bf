// The frame graph's node list and per-node profiling (frame_graph.h): what the panel's Graph section shows, and the
// event-record marks that time every kernel node.
#include <algorithm>
#include <string>
#include <string_view>

#include "compute/nbody/cuda/nbody_frame_graph.h"

namespace graphsim::cuda {

const std::vector<NodeInfo>& NBodyFrameGraph::nodes() const {
  NodeListCache& cache = nodeList_;
  if (cache.structure || cache.list.size() != nodes_.size()) {
    cache.list.clear();
    cache.list.reserve(nodes_.size());
    for (const Node& n : nodes_) {
      const auto add = [&](std::string_view type, std::string_view why, int step = -1, int substep = 0) {
        cache.list.push_back(rowNode(n.name, type, why, step, substep));
      };
      switch (n.kind) {
      case Kind::Kernel: add("kernel", whyNotTogglable(n.stage), static_cast<int>(n.stage), n.substep); break;
      case Kind::BlowUpReport: add("kernel", kBlowUpNodeReason); break;
      case Kind::Diagnostics:
        add("kernel", "");
        cache.list.back().diagnostics = true;
        break;
      case Kind::ForcesConvert: // no stage: not a row of the stage table, but it follows the forces toggle
        add("kernel", "part of forces on several GPUs: toggled with forces", -1, n.substep);
        break;
      case Kind::Collective: add("nccl", kCollectiveNodeReason); break;
      case Kind::TreeKernel: add("kernel", "part of forces: tree: toggled with forces", -1, n.substep); break;
      case Kind::TreeGraph:
        add(n.name.starts_with("tree_sort") ? "child graph" : "while",
            "part of forces: tree: a conditional or child-graph node, which CUDA cannot disable (its condition is 0 "
            "with forces off)",
            -1, n.substep);
        break;
      case Kind::EventRecord: add("event record", "a timing mark of --profile, not part of the simulation"); break;
      default: add(n.kind == Kind::SemaphoreWait ? "semaphore wait" : "semaphore signal", kSemaphoreNodeReason);
      }
    }
    cache.structure = false;
    cache.enableStates = cache.times = true;
  }
  if (cache.enableStates) {
    // Stage instances show the exec's own state; the diagnostics node its toggle (the exec's state follows the
    // schedule, frame by frame); the other nodes are never disabled.
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      if (n.kind == Kind::Diagnostics) cache.list[i].enabled = diagnosticsOn_;
      if (!stageNode(n)) continue;
      cache.list[i].enabled = nodeEnabled(exec_.get(), n.node, n.name);
    }
    cache.enableStates = false;
  }
  if (cache.times) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      cache.list[i].ms = timed(nodes_[i].kind) && profiling_ && i < nodeMs_.size() ? nodeMs_[i] : -1.0;
    }
    cache.times = false;
  }
  return cache.list;
}

void NBodyFrameGraph::setProfiling(bool enabled) {
  if (enabled == profiling_) return;
  // + report_blow_up, + diagnostics when configured
  const auto kernels = static_cast<std::size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [&](const Node& n) { return timed(n.kind); }));
  if (enabled) {
    markEvents_.clear();
    for (std::uint32_t s = 0; s < protocol().framesInFlight(); ++s) {
      std::vector<Event> set;
      // One mark before the first kernel and one after each (report_blow_up and diagnostics included); room for
      // substep changes up to kMaxSubsteps.
      // On several GPUs each substep adds three nodes (reduction, convert, gather) and the frame one (colours).
      // forces: tree adds seven nodes before each walk.
      const std::size_t marks = static_cast<std::size_t>(stageInstanceCount(kMaxSubsteps)) + 3 +
                                (slice_ ? 3 * static_cast<std::size_t>(kMaxSubsteps) + 1 : 0) +
                                (bodies_.tree.present() ? 7 * static_cast<std::size_t>(kMaxSubsteps) : 0);
      for (std::size_t m = 0; m < marks; ++m) set.push_back(makeTimingEvent());
      markEvents_.push_back(std::move(set));
    }
    markFrame_.assign(markEvents_.size(), std::nullopt);
  }
  nodeMs_.clear();
  nodeList_.times = true;
  rebuildWith(profiling_, enabled, {});
  counters_.lastFallbackReason = std::string("profiling ") + (enabled ? "on: " : "off: ") +
                                 std::to_string(kernels + 1) + " event-record nodes " +
                                 (enabled ? "added" : "removed") + ", re-instantiated";
  if (!enabled) markEvents_.clear();
}

void NBodyFrameGraph::pointMarksAt(std::size_t slot) {
  const std::vector<Event>& events = markEvents_[slot];
  std::size_t m = 0;
  for (const Node& n : nodes_) {
    if (n.kind != Kind::EventRecord) continue;
    CUDA_CHECK_CTX(cudaGraphExecEventRecordNodeSetEvent(exec_.get(), n.node, events.at(m++).get()), n.name);
  }
}

void NBodyFrameGraph::harvestMarks(std::size_t slot) {
  if (!markFrame_[slot]) return;
  const std::vector<Event>& events = markEvents_[slot];
  std::size_t marks = 0;
  for (const Node& n : nodes_) marks += n.kind == Kind::EventRecord ? 1 : 0;
  if (marks == 0) return;
  // Normally complete (the throttle saw that frame finish); if not, keep the last figures rather than wait.
  const cudaError_t done = cudaEventQuery(events[marks - 1].get());
  if (done == cudaErrorNotReady) return;
  CUDA_CHECK_CTX(done, "reading the profiling marks");
  nodeMs_.assign(nodes_.size(), -1.0);
  std::size_t m = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].kind == Kind::EventRecord) {
      ++m;
    } else if (timed(nodes_[i].kind) && m > 0 && m < marks) {
      float ms = 0;
      CUDA_CHECK_CTX(cudaEventElapsedTime(&ms, events[m - 1].get(), events[m].get()), nodes_[i].name);
      nodeMs_[i] = ms;
    }
  }
  nodeList_.times = true;
}

} // namespace graphsim::cuda
