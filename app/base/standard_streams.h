// stdout checked at exit, for every command (help, version, list-gpus, the scene list, the soak report,
// the bench table): a write that failed, or a close that fails, ends the process with exit 1 and one line on stderr
// instead of exit 0 with the output lost (`graphsim list-gpus >&-`, `graphsim --help > a-full-device`).
#pragma once

namespace graphsim::app {

// Registers the check with atexit (once; later calls do nothing), first holding a closed stdin, stdout or stderr
// with /dev/null opened the other way round (no file opened later takes its number; writes to it fail). It runs when
// main returns or exit() is called: flushes and closes stdout; on a failure prints `graphsim: cannot write to standard
// output: REASON` and ends the process with _exit(1). A closed stdout that nothing was written to is not a failure.
// stderr is checked in main(): a failure there cannot be reported on it, and turns only a success into exit 1 (a
// terminal closed under an interrupted run keeps its exit 129).
void checkStandardStreamsAtExit();
// Flushes stdout now (soak and bench print their header before a long run). A failure is kept with its reason
// ("No space left on device") for the check at exit, which exits 1 with it; the run itself goes on.
void flushStandardOutput();

} // namespace graphsim::app
