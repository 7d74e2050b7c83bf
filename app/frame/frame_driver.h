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
// Per frame the driver allocates nothing and adds no synchronisation beyond the throttle.
// See docs/ARCHITECTURE.md for what plugs in where.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "compute/protocol.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

using FrameClock = std::chrono::steady_clock;

// Who fills frame k's render buffer.
class FrameProducer {
public:
  virtual ~FrameProducer() = default;
  // After the throttle for k. Returns the simDone value the render of k must wait for on the GPU, if any.
  virtual std::optional<std::uint64_t> produce(std::uint64_t k) = 0;
  // Bounded wait until frame k's simulation has finished (sim-only throttle, event-ordered submit).
  virtual void waitProduced(std::uint64_t k) = 0;
  // Bounded wait for everything produced.
  virtual void finish() = 0;
};

// Host times of one frame's work outside the throttle (steady_clock).
struct FrameTimes {
  FrameClock::time_point start;    // after the throttle and prepare: produce begins
  FrameClock::time_point produced; // produce returned
  FrameClock::time_point waited;   // AfterProduced order: the previous frame's simulation seen done (else = produced)
  FrameClock::time_point submitted;
};

class FrameObserver {
public:
  virtual ~FrameObserver() = default;
  // The throttle for `next` returned: nothing yet (frame numbers are those the driver stepped).
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

class FrameDriver {
public:
  // renderer == nullptr: sim only (no submit; the throttle waits for the producer's frame k - F).
  FrameDriver(render::ParticleRenderer* renderer, FrameProducer& producer, FrameProtocol protocol,
              SubmitOrder order = SubmitOrder::WithProduce);

  void observe(FrameObserver& observer); // at most kMaxObservers, for the driver's lifetime

  // Frame k (k = 0, 1, 2, ... in order). prepare(submit) fills the render submit (camera, capture, overlay, ...)
  // and may return false to skip the frame after the throttle (e.g. the window's image was out of date).
  template <class Prepare>
  bool step(std::uint64_t k, Prepare&& prepare) {
    throttle(k);
    render::FrameSubmit submit = baseSubmit(k);
    if (!prepare(submit)) return false;
    produceAndSubmit(k, submit);
    return true;
  }
  bool step(std::uint64_t k) {
    return step(k, [](render::FrameSubmit&) { return true; });
  }

  // Completes every frame stepped so far (observers hear each), then waits for the producer. Bounded.
  void drain();

  const FrameProtocol& protocol() const { return protocol_; }
  std::uint64_t framesStepped() const { return next_; }

private:
  static constexpr std::size_t kMaxObservers = 4;

  void throttle(std::uint64_t k);
  render::FrameSubmit baseSubmit(std::uint64_t k) const;
  void produceAndSubmit(std::uint64_t k, render::FrameSubmit& submit);
  void complete(std::uint64_t k);

  render::ParticleRenderer* renderer_;
  FrameProducer& producer_;
  FrameProtocol protocol_;
  SubmitOrder order_;
  std::array<FrameObserver*, kMaxObservers> observers_{};
  std::size_t observerCount_ = 0;
  std::uint64_t next_ = 0;                  // frames stepped (produced)
  std::uint64_t completed_ = 0;             // frames whose completion observers heard
  std::optional<render::FrameSubmit> held_; // AfterProduced: frame k - 1's submit, sent after frame k's produce
};

} // namespace graphsim::app
