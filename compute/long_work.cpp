#include "compute/long_work.h"

#include <atomic>

namespace graphsim {
namespace {

// Two function pointers, set before the work starts and read between chunks.
std::atomic<bool (*)()> gInterrupted{nullptr};
std::atomic<void (*)(const std::string&, double, double)> gProgress{nullptr};

} // namespace

void setLongWorkHooks(const LongWorkHooks& hooks) {
  gInterrupted.store(hooks.interrupted);
  gProgress.store(hooks.progress);
}

LongWorkHooks longWorkHooks() { return {gInterrupted.load(), gProgress.load()}; }

LongWork::LongWork(std::string what) : what_(std::move(what)) {}

LongWork::~LongWork() {
  if (lastTenth_ < 0 || finished_) return;
  if (auto* progress = gProgress.load()) {
    progress(what_, 1.0, std::chrono::duration<double>(Clock::now() - start_).count());
  }
}

void LongWork::checkpoint(double fraction) {
  if (auto* interrupted = gInterrupted.load(); interrupted != nullptr && interrupted()) {
    finished_ = true; // no "100 %" after an interruption
    throw Interrupted(what_.empty() ? std::string("a long computation") : what_);
  }
  auto* progress = gProgress.load();
  if (what_.empty() || progress == nullptr) return;
  const Clock::time_point now = Clock::now();
  if (now - start_ < kLongWorkQuietFor) return;
  const int tenth = static_cast<int>(fraction * 10.0);
  if (lastTenth_ >= 0 && tenth <= lastTenth_ && now - lastReport_ < std::chrono::seconds(10)) return;
  if (fraction >= 1.0) finished_ = true;
  progress(what_, fraction, std::chrono::duration<double>(now - start_).count());
  lastTenth_ = tenth;
  lastReport_ = now;
}

} // namespace graphsim
