// The broadcast that carries rank 0's commands (compute/nbody/rank_commands.h) to the other ranks of a job of one
// process per GPU: NCCL's, on the frame stream of each rank, so that it takes its place among the frames' own
// collectives in the same order on every rank. Rank 0 queues it and goes on (its frames stay in flight); the others
// wait for it, bounded, since they need its bytes on the host before they can apply them.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <cstddef>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/cuda/collectives.h"
#include "compute/nbody/rank_commands.h"

namespace graphsim::cuda {

class RankChannel {
public:
  using Message = RankMessage;

  // collectives: this process's one rank; stream: its frame stream.
  RankChannel(const Collectives& collectives, cudaStream_t stream, std::chrono::milliseconds timeout);

  // Rank 0: copies the message into a pinned slot, from there to the device, and broadcasts it, all queued on the
  // stream. Waits only for a slot whose earlier message has not left yet (kSlots messages back; bounded).
  void send(const Message& message);
  // The other ranks: the next message, once the broadcast and the copy back have run (bounded: TimeoutError
  // saying that no word came from rank 0 within the timeout).
  const Message& receive();

  // Slots of rank 0's ring: more than the frames in flight, so that sending never waits in steady state.
  static constexpr std::size_t kSlots = 8;

private:
  void waitFor(cudaEvent_t event, const char* what) const;

  const Collectives& collectives_;
  cudaStream_t stream_;
  std::chrono::milliseconds timeout_;
  PinnedArray<Message> host_;
  DeviceArray<Message> device_;
  std::array<Event, kSlots> sent_; // recorded after each slot's broadcast
  std::array<bool, kSlots> inUse_{};
  std::size_t next_ = 0;
};

} // namespace graphsim::cuda
