#include "app/run/signals.h"

#include <signal.h>

#include <atomic>
#include <cstring>

namespace graphsim::app {
namespace {

// Lock-free, so that storing it is async-signal-safe (a plain volatile sig_atomic_t would do as well; the atomic
// also makes the read from the loop well-defined).
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction gOldInt, gOldTerm;

extern "C" void onInterrupt(int signal) { gSignal.store(signal, std::memory_order_relaxed); }

} // namespace

InterruptGuard::InterruptGuard() {
  clearInterrupt();
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a write of a capture or a futex wait in the Vulkan driver is resumed, not failed with EINTR.
  // SA_RESETHAND: the second Ctrl-C gets the default action (terminate) in case shutting down hangs.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  ::sigaction(SIGINT, &action, &gOldInt);
  ::sigaction(SIGTERM, &action, &gOldTerm);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &gOldInt, nullptr);
  ::sigaction(SIGTERM, &gOldTerm, nullptr);
}

int interruptSignal() { return gSignal.load(std::memory_order_relaxed); }
int interruptExitCode() { return 128 + interruptSignal(); }
void requestInterrupt(int signal) { gSignal.store(signal, std::memory_order_relaxed); }
void clearInterrupt() { gSignal.store(0, std::memory_order_relaxed); }

} // namespace graphsim::app
