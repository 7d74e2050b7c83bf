// Ctrl-C, kill and a closed terminal: SIGINT / SIGTERM / SIGHUP only set a flag (async-signal-safe); the frame loop
// reads it between frames, so the frame in flight finishes, nothing is half-written, and the Session releases both
// APIs in order before main() exits with 128 + the signal (130 for Ctrl-C, 143 for kill, 129 for a closed terminal
// or ssh session). A second SIGINT or SIGTERM while shutting down ends the process at once (those handlers are
// installed with SA_RESETHAND), for the case where the shutdown itself hangs. SIGHUP is not reset: a hang-up
// usually comes twice (the shell relays it to its jobs, then the kernel sends it to the foreground group when the
// shell exits), and nobody is left at the terminal to need the escape hatch. A SIGHUP ignored when graphsim starts
// (nohup graphsim ...) stays ignored.
//
// One guard covers every command (main() installs it before parsing: run, bench, soak, list-gpus). While it lives,
// SIGPIPE and SIGXFSZ are ignored, so that a write to a pipe whose reader left, or past `ulimit -f`, fails with
// EPIPE / EFBIG and is reported as a write error (exit 1) instead of killing the process; and compute/'s long host
// work (compute/long_work.h: the initial forces, the CPU forces at large N) checks the interrupt flag between chunks
// of ~50 ms and shows its progress on stderr once it has taken 2 s.
#pragma once

#include <string>

namespace graphsim::app {

// Installs the handlers for the lifetime of the guard and restores the previous ones after. Not nestable.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The first signal that asked the run to stop (SIGINT, SIGTERM or SIGHUP), or 0. Safe to call from any thread.
int interruptSignal();
inline bool interruptRequested() { return interruptSignal() != 0; }
// The exit code for an interrupted run: 128 + the signal.
int interruptExitCode();
// "SIGINT", "SIGTERM", "SIGHUP", or "signal N" for another number; for messages.
std::string signalName(int signal);
// Clears the flag (each InterruptGuard starts with it cleared).
void clearInterrupt();

} // namespace graphsim::app
