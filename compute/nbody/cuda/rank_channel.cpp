#include "compute/nbody/cuda/rank_channel.h"

#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/poll.h"
#include "compute/errors.h"

namespace graphsim::cuda {

RankChannel::RankChannel(const Collectives& collectives, cudaStream_t stream, std::chrono::milliseconds timeout)
    : collectives_(collectives), stream_(stream), timeout_(timeout), host_(kSlots), device_(kSlots) {
  for (Event& e : sent_) {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    e = Event(event);
  }
}

void RankChannel::waitFor(cudaEvent_t event, const char* what) const {
  const bool done = pollCudaUntilDone([&] { return cudaEventQuery(event); }, "cudaEventQuery",
                                      [&] { return std::string(what) + " failed (an NCCL broadcast)"; },
                                      std::chrono::steady_clock::now() + timeout_);
  if (!done) {
    throw TimeoutError(std::string(what) + " did not complete within " + std::to_string(timeout_.count()) +
                           " ms: rank 0 or another rank stopped, or a frame took longer than the wait timeout",
                       TimeoutError::Side::Cuda);
  }
}

void RankChannel::send(const Message& message) {
  const std::size_t slot = next_;
  next_ = (next_ + 1) % kSlots;
  if (inUse_[slot]) waitFor(sent_[slot].get(), "rank 0's control broadcast");
  host_.get()[slot] = message;
  CUDA_CHECK(
      cudaMemcpyAsync(device_.get() + slot, host_.get() + slot, sizeof(Message), cudaMemcpyHostToDevice, stream_));
  collectives_.issue({stream_}, [&](int rank, cudaStream_t s) {
    collectives_.broadcastBytes(rank, device_.get() + slot, sizeof(Message), s);
  });
  CUDA_CHECK(cudaEventRecord(sent_[slot].get(), stream_));
  inUse_[slot] = true;
}

const RankChannel::Message& RankChannel::receive() {
  collectives_.issue({stream_}, [&](int rank, cudaStream_t s) {
    collectives_.broadcastBytes(rank, device_.get(), sizeof(Message), s);
  });
  CUDA_CHECK(cudaMemcpyAsync(host_.get(), device_.get(), sizeof(Message), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaEventRecord(sent_[0].get(), stream_));
  waitFor(sent_[0].get(), "waiting for rank 0's next command");
  return host_.get()[0];
}

} // namespace graphsim::cuda
