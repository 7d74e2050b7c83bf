#include "app/run/signals.h"

#include <csignal>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/base/progress.h"
#include "compute/long_work.h"

namespace graphsim::app {
namespace {

// Lock-free, so that storing it is async-signal-safe (a plain volatile sig_atomic_t would do as well; the atomic
// also makes the read from the loop well-defined).
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction gOldInt, gOldTerm, gOldHup, gOldPipe, gOldXfsz;

// Async-signal-safe (memset, sigemptyset and sigaction are): onInterrupt calls it.
void ignoreSignal(int signal, struct sigaction* old) {
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(signal, &ignore, old);
}

extern "C" void onInterrupt(int signal) {
  // The first signal names the interruption: a SIGTERM during a SIGHUP drain does not turn 129 into 143.
  int none = 0;
  gSignal.compare_exchange_strong(none, signal, std::memory_order_relaxed);
  if (signal == SIGHUP) {
    // The terminal or the ssh connection is gone: a progress line or the summary written to a pipe nobody reads
    // would raise SIGPIPE and kill the drain. Ignored from here on (not restored: the process is about to exit).
    ignoreSignal(SIGPIPE, nullptr);
  }
}

bool interruptedHook() { return interruptRequested(); }

// Start-up work past kLongWorkQuietFor (compute/long_work.h): "graphsim: start-up: initial forces of 262144 bodies
// (…): 40% after 12.3 s".
void progressHook(const std::string& what, double fraction, double seconds) {
  endProgressLine();
  std::fprintf(stderr, "graphsim: start-up: %s: %.0f%% after %.1f s%s\n", what.c_str(), fraction * 100.0, seconds,
               fraction < 1.0 ? " (Ctrl-C stops it)" : "");
}

} // namespace

InterruptGuard::InterruptGuard() {
  clearInterrupt();
  // SIGPIPE (a reader that went away: `graphsim … | head -1`) and SIGXFSZ (past `ulimit -f`) would end the process
  // with nothing reported and a temporary left behind. Ignored, the write fails with EPIPE or EFBIG instead, and the
  // write-error path reports it (the output writer: exit 1, one line, its temporary removed).
  ignoreSignal(SIGPIPE, &gOldPipe);
  ignoreSignal(SIGXFSZ, &gOldXfsz);
  setLongWorkHooks({&interruptedHook, &progressHook});
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
  setLongWorkHooks({});
  ::sigaction(SIGXFSZ, &gOldXfsz, nullptr);
  if (interruptSignal() != SIGHUP) ::sigaction(SIGPIPE, &gOldPipe, nullptr);
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
