// The frame's one owner. Frame k (compute/protocol.h says what its slot and semaphore values are):
//
//   throttle   host waits renderDone >= renderDoneWaited(k) (a value Vulkan signals), so slot(k) is free;
//              observers hear that frame k - F completed
//   prepare    the caller's hook: window image, UI, live edits, fault edits of the submit (returns false to skip)
//   produce    the producer fills slot(k): the CUDA graph (waits renderDone, signals simDone = k + 1), the CPU
//              backend writing a mapped buffer, or a comparison path that only bench links
//   submit     the renderer records and submits frame k (waits simDone at vertex input, signals renderDone = k + 1);
//              observers hear that frame k was submitted, with the host times of produce and submit
//
// drain() finishes the last F frames in flight (observers hear each complete), then the producer's work.
// Without a renderer (bench --sim-only) the throttle waits for the producer's own frame k - F instead.
// LaunchOrder::BeforeThrottle (bench launch-early) moves produce ahead of the throttle: produce k, throttle, prepare,
// submit k. Only for a producer whose produce() is ordered on the GPU (gpuOrdered(): the CUDA graph's wait node
// keeps it off slot(k) until renderDone >= renderDoneWaited(k)) and a prepare that never skips (docs/FRAME.md).
// Per frame the driver allocates nothing and adds no synchronisation beyond the throttle.
// See docs/ARCHITECTURE.md for what plugs in where.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "compute/nvtx.h"
#include "compute/protocol.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

using FrameClock = std::chrono::steady_clock;

// Who fills frame k's render buffer.
class FrameProducer {
public:
  virtual ~FrameProducer() = default;
  // After the throttle for k (LaunchOrder::BeforeThrottle: before it). Returns the simDone value the render of k
  // must wait for on the GPU, if any.
  virtual std::optional<std::uint64_t> produce(std::uint64_t k) = 0;
  // Whether produce(k) may run before the throttle for k: true only when it touches nothing on the host that the
  // throttle guards (slot(k)'s mapped or staging memory, a wait for frame k - F) and the GPU itself keeps frame k off
  // slot(k) until renderDone >= renderDoneWaited(k) (the CUDA graph's wait node, interop only).
  virtual bool gpuOrdered() const { return false; }
  // Bounded wait until frame k's simulation has finished (sim-only throttle, event-ordered submit).
  virtual void waitProduced(std::uint64_t k) = 0;
  // Bounded wait for everything produced.
  virtual void finish() = 0;
};

// Host times of one frame's work outside the throttle (steady_clock).
struct FrameTimes {
  FrameClock::time_point start;      // produce begins (AfterThrottle: after the throttle and prepare)
  FrameClock::time_point produced;   // produce returned
  FrameClock::time_point submitting; // the submit's part begins: = produced, BeforeThrottle: after throttle + prepare
  FrameClock::time_point waited; // AfterProduced order: the previous frame's simulation seen done (else = submitting)
  FrameClock::time_point submitted;
};

class FrameObserver {
public:
  virtual ~FrameObserver() = default;
  // The throttle for `next` returned: nothing yet of `next` (BeforeThrottle: `next` is produced, not submitted).
  virtual void throttled(std::uint64_t /*next*/) {}
  // Step k is done: frame k produced and (WithProduce) submitted; AfterProduced: frame k - 1 submitted, if k > 0.
  virtual void stepped(std::uint64_t /*k*/, const FrameTimes& /*times*/) {}
  // The host knows that frame k's render (without a renderer: its simulation) has finished.
  virtual void completed(std::uint64_t /*k*/) {}
};

enum class SubmitOrder {
  WithProduce,   // the product: submit k right after producing k; the render waits for simDone on the GPU
  AfterProduced, // bench event-submit: produce k, then submit k - 1 once its simulation is seen done on the host
};

enum class LaunchOrder {
  AfterThrottle,  // the product: throttle k, prepare, produce k, submit k
  BeforeThrottle, // bench launch-early: produce k (the thread still hot from submitting k - 1), throttle k, prepare,
                  // submit k. Needs a gpuOrdered() producer, WithProduce, and a prepare that never returns false.
};

class FrameDriver {
public:
  // renderer == nullptr: sim only (no submit; the throttle waits for the producer's frame k - F).
  // std::logic_error for BeforeThrottle with a producer that is not gpuOrdered() or with AfterProduced.
  FrameDriver(render::ParticleRenderer* renderer, FrameProducer& producer, FrameProtocol protocol,
              SubmitOrder order = SubmitOrder::WithProduce, LaunchOrder launch = LaunchOrder::AfterThrottle);

  void observe(FrameObserver& observer); // at most kMaxObservers, for the driver's lifetime

  // Frame k (k = 0, 1, 2, ... in order). prepare(submit) fills the render submit (camera, capture, overlay, ...)
  // and may return false to skip the frame after the throttle (e.g. the window's image was out of date).
  // BeforeThrottle: prepare runs after produce(k) and must not skip (frame k is launched already): std::logic_error.
  template <class Prepare>
  bool step(std::uint64_t k, Prepare&& prepare) {
    const nvtx::Range frame(nvtx::Phase::Frame, k); // the timeline's "frame k" (docs/PROFILING.md)
    if (launch_ == LaunchOrder::BeforeThrottle) {
      FrameTimes times;
      const std::optional<std::uint64_t> simDone = produce(k, times);
      throttle(k);
      render::FrameSubmit submit = baseSubmit(k);
      if (!prepared(k, prepare, submit)) refuseSkip(k);
      submitProduced(k, submit, simDone, times);
      return true;
    }
    throttle(k);
    render::FrameSubmit submit = baseSubmit(k);
    if (!prepared(k, prepare, submit)) return false;
    FrameTimes times;
    const std::optional<std::uint64_t> simDone = produce(k, times);
    submitProduced(k, submit, simDone, times);
    return true;
  }
  bool step(std::uint64_t k) {
    return step(k, [](render::FrameSubmit&) { return true; });
  }

  // Completes every frame stepped so far (observers hear each), then waits for the producer. Bounded.
  void drain();

  const FrameProtocol& protocol() const { return protocol_; }
  LaunchOrder launchOrder() const { return launch_; }
  std::uint64_t framesStepped() const { return next_; }

private:
  static constexpr std::size_t kMaxObservers = 4;

  void throttle(std::uint64_t k);
  render::FrameSubmit baseSubmit(std::uint64_t k) const;
  template <class Prepare>
  static bool prepared(std::uint64_t k, Prepare& prepare, render::FrameSubmit& submit) {
    const nvtx::Range range(nvtx::Phase::Prepare, k);
    return prepare(submit);
  }
  std::optional<std::uint64_t> produce(std::uint64_t k, FrameTimes& times); // times.start and .produced
  void submitProduced(std::uint64_t k, render::FrameSubmit& submit, std::optional<std::uint64_t> simDone,
                      FrameTimes& times);
  [[noreturn]] static void refuseSkip(std::uint64_t k);
  void complete(std::uint64_t k);

  render::ParticleRenderer* renderer_;
  FrameProducer& producer_;
  FrameProtocol protocol_;
  SubmitOrder order_;
  LaunchOrder launch_;
  std::array<FrameObserver*, kMaxObservers> observers_{};
  std::size_t observerCount_ = 0;
  std::uint64_t next_ = 0;                  // frames stepped (produced)
  std::uint64_t completed_ = 0;             // frames whose completion observers heard
  std::optional<render::FrameSubmit> held_; // AfterProduced: frame k - 1's submit, sent after frame k's produce
};

} // namespace graphsim::app
