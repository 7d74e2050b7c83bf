// Ctrl-C and kill: SIGINT / SIGTERM only set a flag (async-signal-safe); the frame loop reads it between frames,
// so the frame in flight finishes, nothing is half-written, and the Session releases both APIs in order before
// main() exits with 128 + the signal (130 for Ctrl-C). A second signal while shutting down ends the process at
// once (the handlers are installed with SA_RESETHAND), for the case where the shutdown itself hangs.
#pragma once

namespace graphsim::app {

// Installs the handlers for the lifetime of the guard and restores the previous ones after. Not nestable.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal that asked the run to stop (SIGINT or SIGTERM), or 0. Safe to call from any thread.
int interruptSignal();
inline bool interruptRequested() { return interruptSignal() != 0; }
// The exit code for an interrupted run: 128 + the signal.
int interruptExitCode();
// Tests: sets the flag as the handler would (without a signal) or clears it.
void requestInterrupt(int signal);
void clearInterrupt();

} // namespace graphsim::app
