#include "app/frame/frame_driver.h"

#include <stdexcept>

namespace graphsim::app {

FrameDriver::FrameDriver(render::ParticleRenderer* renderer, FrameProducer& producer, FrameProtocol protocol,
                         SubmitOrder order)
    : renderer_(renderer), producer_(producer), protocol_(protocol), order_(order) {
  if (renderer_ != nullptr && renderer_->config().framesInFlight != protocol_.framesInFlight())
    throw std::logic_error("FrameDriver: the renderer has another number of frames in flight than the protocol");
  if (renderer_ == nullptr && order_ == SubmitOrder::AfterProduced)
    throw std::logic_error("FrameDriver: AfterProduced needs a renderer");
}

void FrameDriver::observe(FrameObserver& observer) {
  if (observerCount_ == kMaxObservers) throw std::logic_error("FrameDriver: too many observers");
  observers_[observerCount_++] = &observer;
}

void FrameDriver::throttle(std::uint64_t k) {
  if (k != next_) throw std::logic_error("FrameDriver: frames must be stepped in order");
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

void FrameDriver::produceAndSubmit(std::uint64_t k, render::FrameSubmit& submit) {
  FrameTimes times;
  times.start = FrameClock::now();
  const std::optional<std::uint64_t> simDone = producer_.produce(k);
  if (!submit.waitSimDone) submit.waitSimDone = simDone; // a fault plan may have set another value
  times.produced = times.waited = FrameClock::now();
  if (renderer_ != nullptr && order_ == SubmitOrder::WithProduce) {
    renderer_->submit(submit);
  } else if (renderer_ != nullptr) {
    // Event-ordered: the GPU has frame k queued while the host waits for frame k - 1's simulation, whose render
    // then never waits on a simDone value CUDA has not signalled yet.
    if (held_) {
      producer_.waitProduced(held_->frame);
      times.waited = FrameClock::now();
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
  if (held_) {
    producer_.waitProduced(held_->frame);
    renderer_->submit(*held_);
    held_.reset();
  }
  for (std::uint64_t k = completed_; k < next_; ++k) {
    if (renderer_ != nullptr) {
      renderer_->waitRenderDone(protocol_.renderDoneSignalled(k));
    } else {
      producer_.waitProduced(k);
    }
    complete(k);
  }
  if (renderer_ != nullptr) renderer_->drain();
  producer_.finish();
}

} // namespace graphsim::app
