// While this process is one rank of a job of several processes (app/run/ranks.h): a thread rewrites
// <rendezvous>.rank<R> with a count every 500 ms, so that when the job stalls each surviving rank can tell which of
// the others stopped: their counts no longer move. It compares counts, not clocks, so the machines' clocks may
// differ. Best effort: a beat that cannot be written is skipped (the stall is reported either way).
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

namespace graphsim::app {

class RankHeartbeat {
public:
  RankHeartbeat(std::filesystem::path rendezvous, int rank, int world);
  ~RankHeartbeat(); // stops the thread and removes this rank's file
  RankHeartbeat(const RankHeartbeat&) = delete;
  RankHeartbeat& operator=(const RankHeartbeat&) = delete;

  // The other ranks whose file is missing or whose count did not move within `window` (blocks for it).
  std::vector<int> stoppedRanks(std::chrono::milliseconds window) const;
  static std::filesystem::path fileOf(const std::filesystem::path& rendezvous, int rank);
  const std::filesystem::path& rendezvous() const { return rendezvous_; }
  static constexpr std::chrono::milliseconds kPeriod{500};

private:
  void beat();

  std::filesystem::path rendezvous_;
  int rank_ = 0, world_ = 1;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_; // last: started once the members above exist
};

} // namespace graphsim::app
