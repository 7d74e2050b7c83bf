// Long host work in compute/ (the double-precision initial forces of startLeapfrog, the CPU backend's forces stage at
// large N, scene generation) runs in chunks of at most ~50 ms and calls these hooks between them, so that Ctrl-C
// acts within a second and a slow start-up says how far it is. compute/ knows nothing of signals or terminals: the
// app installs the hooks (app/run/signals.cpp: its interrupt flag and a progress line on stderr).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "compute/errors.h"

namespace graphsim {

struct LongWorkHooks {
  // True when the work should stop: the next checkpoint throws Interrupted. Called between chunks, on the thread
  // doing the work (never inside an OpenMP region).
  bool (*interrupted)() = nullptr;
  // what: "initial forces of 262144 bodies"; fraction in [0, 1]; seconds since the work began. Called only for work
  // that was given a name, once it has run kLongWorkQuietFor, then at each further 10 % or every 10 s, and at the end.
  void (*progress)(const std::string& what, double fraction, double seconds) = nullptr;
};
// Replaces the hooks (process-wide); the default hooks do nothing.
void setLongWorkHooks(const LongWorkHooks& hooks);
LongWorkHooks longWorkHooks();

inline constexpr std::chrono::seconds kLongWorkQuietFor{2}; // shorter work shows no progress

// One piece of long work. checkpoint() between chunks.
class LongWork {
public:
  // what empty: interruptible, never reported (the per-frame forces: the frame loop reports frames).
  explicit LongWork(std::string what = {});
  ~LongWork(); // reports 100 % if any progress was reported
  LongWork(const LongWork&) = delete;
  LongWork& operator=(const LongWork&) = delete;

  // Throws Interrupted when the interrupt hook says so; reports progress when due.
  void checkpoint(double fraction);

private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point lastReport_{};
  int lastTenth_ = -1; // the 10 % step of the last report; -1: none yet
  bool finished_ = false;
};

// Interactions (pair evaluations) per chunk of work between checkpoints: ~50 ms of the forces loops on one core.
inline constexpr std::uint64_t kInteractionsPerCheckpoint = 8'000'000;

} // namespace graphsim
