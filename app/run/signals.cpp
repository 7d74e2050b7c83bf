#include "app/run/signals.h"

#include <signal.h>

#include <atomic>
#include <cstring>
#include <string>

namespace graphsim::app {
namespace {

// Lock-free, so that storing it is async-signal-safe (a plain volatile sig_atomic_t would do as well; the atomic
// also makes the read from the loop well-defined).
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction gOldInt, gOldTerm, gOldHup;

extern "C" void onInterrupt(int signal) {
  // The first signal names the interruption: a SIGTERM during a SIGHUP drain does not turn 129 into 143.
  int none = 0;
  gSignal.compare_exchange_strong(none, signal, std::memory_order_relaxed);
  if (signal == SIGHUP) {
    // The terminal or the ssh connection is gone: a progress line or the summary written to a pipe nobody reads
    // would raise SIGPIPE and kill the drain. Ignored from here on (not restored: the process is about to exit).
    struct sigaction ignore;
    std::memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, nullptr); // async-signal-safe
  }
}

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
  // A repeated SIGHUP is expected (see signals.h) and must not end the drain. Under nohup (SIGHUP ignored when
  // graphsim started) the run is meant to outlive the terminal: it stays ignored.
  ::sigaction(SIGHUP, nullptr, &gOldHup);
  if (gOldHup.sa_handler != SIG_IGN) {
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGHUP, &action, nullptr);
  }
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &gOldInt, nullptr);
  ::sigaction(SIGTERM, &gOldTerm, nullptr);
  if (interruptSignal() == SIGHUP) {
    // After a hang-up the process is on its way out with 129: the second SIGHUP (see signals.h) may still be on
    // its way, and the default action would turn the clean exit into death by signal.
    ::signal(SIGHUP, SIG_IGN);
  } else {
    ::sigaction(SIGHUP, &gOldHup, nullptr);
  }
}

int interruptSignal() { return gSignal.load(std::memory_order_relaxed); }
int interruptExitCode() { return 128 + interruptSignal(); }

std::string signalName(int signal) {
  switch (signal) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  default: return "signal " + std::to_string(signal);
  }
}

void clearInterrupt() { gSignal.store(0, std::memory_order_relaxed); }

} // namespace graphsim::app
