#include "app/frame/frame_driver.h"

#include <stdexcept>
#include <string>

#include "compute/nvtx.h"

namespace graphsim::app {

FrameDriver::FrameDriver(render::ParticleRenderer* renderer, FrameProducer& producer, FrameProtocol protocol,
                         SubmitOrder order, LaunchOrder launch)
    : renderer_(renderer), producer_(producer), protocol_(protocol), order_(order), launch_(launch) {
  nvtx::nameThisThread("graphsim frame loop"); // the thread that constructs the driver steps it
  if (renderer_ != nullptr && renderer_->config().framesInFlight != protocol_.framesInFlight())
    throw std::logic_error("FrameDriver: the renderer has another number of frames in flight than the protocol");
  if (renderer_ == nullptr && order_ == SubmitOrder::AfterProduced)
    throw std::logic_error("FrameDriver: AfterProduced needs a renderer");
  // Launching frame k before the host knows slot(k) is free is safe only when the GPU orders it (docs/FRAME.md).
  if (launch_ == LaunchOrder::BeforeThrottle && !producer_.gpuOrdered())
    throw std::logic_error("FrameDriver: BeforeThrottle needs a producer ordered on the GPU (the CUDA interop graph)");
  if (launch_ == LaunchOrder::BeforeThrottle && order_ != SubmitOrder::WithProduce)
    throw std::logic_error("FrameDriver: BeforeThrottle submits frame k with its produce (WithProduce only)");
}

void FrameDriver::observe(FrameObserver& observer) {
  if (observerCount_ == kMaxObservers) throw std::logic_error("FrameDriver: too many observers");
  observers_[observerCount_++] = &observer;
}

void FrameDriver::throttle(std::uint64_t k) {
  if (k != next_) throw std::logic_error("FrameDriver: frames must be stepped in order");
  const nvtx::Range range(nvtx::Phase::Throttle, k);
  // The only per-frame host wait: on renderDone, a value Vulkan signals (docs/FRAME.md); sim only: on the producer.
  const std::optional<std::uint64_t> done = protocol_.completedBefore(k);
  if (renderer_ != nullptr) {
    try {
      renderer_->waitForSlot(k);
    } catch (const TimeoutError&) {
      producer_.finish(); // a failed CUDA frame explains the stall better than the timeout: its error wins
      throw;
    }
  } else if (done) {
    const nvtx::Range waiting(nvtx::Phase::WaitProduced, *done);
    producer_.waitProduced(*done);
  }
  if (done && *done >= completed_) complete(*done); // a skipped step throttles for the same k again
  for (std::size_t i = 0; i < observerCount_; ++i) observers_[i]->throttled(k);
}

render::FrameSubmit FrameDriver::baseSubmit(std::uint64_t k) const {
  render::FrameSubmit submit;
  submit.frame = k;
  return submit;
}

std::optional<std::uint64_t> FrameDriver::produce(std::uint64_t k, FrameTimes& times) {
  if (k != next_) throw std::logic_error("FrameDriver: frames must be stepped in order");
  times.start = FrameClock::now();
  const nvtx::Range range(nvtx::Phase::Produce, k);
  const std::optional<std::uint64_t> simDone = producer_.produce(k);
  times.produced = FrameClock::now();
  return simDone;
}

void FrameDriver::refuseSkip(std::uint64_t k) {
  // Frame k's graph is queued and will signal simDone = k + 1; without its render nothing signals renderDone = k + 1,
  // which frame k + F's wait node needs. A loop that may skip (the window) uses AfterThrottle.
  throw std::logic_error("FrameDriver: BeforeThrottle cannot skip frame " + std::to_string(k) +
                         ": it is produced already (prepare must not return false)");
}

void FrameDriver::submitProduced(std::uint64_t k, render::FrameSubmit& submit, std::optional<std::uint64_t> simDone,
                                 FrameTimes& times) {
  if (!submit.waitSimDone) submit.waitSimDone = simDone; // a fault plan may have set another value
  // AfterThrottle: right after produce. BeforeThrottle: after the throttle and prepare, which are not host overhead.
  times.submitting = times.waited = launch_ == LaunchOrder::BeforeThrottle ? FrameClock::now() : times.produced;
  if (renderer_ != nullptr && order_ == SubmitOrder::WithProduce) {
    const nvtx::Range range(nvtx::Phase::Submit, k);
    renderer_->submit(submit);
  } else if (renderer_ != nullptr) {
    // Event-ordered: the GPU has frame k queued while the host waits for frame k - 1's simulation, whose render
    // then never waits on a simDone value CUDA has not signalled yet.
    if (held_) {
      nvtx::Range waiting(nvtx::Phase::WaitProduced, held_->frame);
      producer_.waitProduced(held_->frame);
      waiting.end();
      times.waited = FrameClock::now();
      const nvtx::Range range(nvtx::Phase::Submit, held_->frame);
      renderer_->submit(*held_);
    }
    held_ = submit;
  }
  times.submitted = FrameClock::now();
  ++next_;
  for (std::size_t i = 0; i < observerCount_; ++i) observers_[i]->stepped(k, times);
}

void FrameDriver::complete(std::uint64_t k) {
  completed_ = k + 1;
  for (std::size_t i = 0; i < observerCount_; ++i) observers_[i]->completed(k);
}

void FrameDriver::drain() {
  const nvtx::Range range(nvtx::Phase::Drain, next_); // payload: the frames stepped
  if (held_) {
    nvtx::Range waiting(nvtx::Phase::WaitProduced, held_->frame);
    producer_.waitProduced(held_->frame);
    waiting.end();
    const nvtx::Range submitting(nvtx::Phase::Submit, held_->frame);
    renderer_->submit(*held_);
    held_.reset();
  }
  for (std::uint64_t k = completed_; k < next_; ++k) {
    if (renderer_ != nullptr) {
      renderer_->waitRenderDone(protocol_.renderDoneSignalled(k));
    } else {
      const nvtx::Range waiting(nvtx::Phase::WaitProduced, k);
      producer_.waitProduced(k);
    }
    complete(k);
  }
  if (renderer_ != nullptr) renderer_->drain();
  producer_.finish();
}

} // namespace graphsim::app
