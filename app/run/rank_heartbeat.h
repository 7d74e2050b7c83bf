// While this process is one rank of a job of several processes (app/run/ranks.h): a thread rewrites
// <rendezvous>.rank<R> with a count (and its host and pid) every 500 ms, so that when the job stalls each surviving
// rank can tell which of the others stopped: their counts no longer move. It compares counts, not clocks, so the
// machines' clocks may differ. Best effort: a beat that cannot be written is skipped (the stall is reported either
// way).
//
// The watch: each beat also reads the other ranks' files. A rank whose count stood still for `stillFor` while its
// file stayed (a rank that ended removed it; one that died or was killed could not), or whose process on this machine
// no longer exists (each beat is "<count> <host> <pid>"), has stopped: onStopped is called
// once, from this thread, wherever the rest of this process is blocked (inside NCCL, a driver call, a teardown). The
// product's handler ends this process at once (rankStopped), so that a dead rank ends the job within the wait
// timeout instead of after every bounded wait on the way out.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace graphsim::app {

class RankHeartbeat {
public:
  using OnStopped = std::function<void(int rank, const std::string& message)>;
  // stillFor zero or onStopped empty: no watch.
  RankHeartbeat(std::filesystem::path rendezvous, int rank, int world, std::chrono::milliseconds stillFor = {},
                OnStopped onStopped = {});
  ~RankHeartbeat(); // stops the thread and removes this rank's file
  RankHeartbeat(const RankHeartbeat&) = delete;
  RankHeartbeat& operator=(const RankHeartbeat&) = delete;

  // The other ranks whose file is missing or whose count did not move within `window` (blocks for it).
  std::vector<int> stoppedRanks(std::chrono::milliseconds window) const;
  static std::filesystem::path fileOf(const std::filesystem::path& rendezvous, int rank);
  const std::filesystem::path& rendezvous() const { return rendezvous_; }
  static constexpr std::chrono::milliseconds kPeriod{500};

  // The product's onStopped: the message on stderr, then _Exit(1) (no teardown: NCCL's kernels may spin for the
  // missing rank, and the CUDA runtime's exit waits with them).
  static void rankStopped(int rank, const std::string& message);

private:
  void beat();
  void watch(); // one look at the other ranks' files

  std::filesystem::path rendezvous_;
  int rank_ = 0, world_ = 1;
  std::chrono::milliseconds stillFor_;
  OnStopped onStopped_;
  std::string host_; // gethostname(): a beat names its machine and process, so that one here is checked directly
  struct Seen {
    std::optional<std::string> count;
    std::chrono::steady_clock::time_point since;
  };
  std::vector<Seen> seen_; // per rank, the beat thread's own
  bool fired_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_; // last: started once the members above exist
};

} // namespace graphsim::app
