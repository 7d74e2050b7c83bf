// Progress of long runs on stderr ("frame k/N (p%), fps"), shaped for where stderr goes:
//   a terminal:      one line redrawn in place (\r, clear to end of line) a few times a second, ended with a newline
//                    by finish() / the destructor, or by endProgressLine() before any other message;
//   a pipe or file:  a line each time another 10 % of the frames is done or 10 s have passed since the last line,
//                    whichever comes first (every 10 s when the total is unknown: a window open until closed); none
//                    at 100 %, which the summary after it reports;
//   --quiet:         nothing.
// The decision is a pure function of the counts and the time since the last line (progressLineDue), and the class
// takes its clock and stream as parameters, so tests drive both without waiting or a terminal.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace graphsim::app {

enum class ProgressMode { Off, Terminal, Log };

inline ProgressMode progressModeFor(bool quiet, bool toTerminal) {
  return quiet ? ProgressMode::Off : toTerminal ? ProgressMode::Terminal : ProgressMode::Log;
}

inline constexpr std::chrono::milliseconds kProgressRedraw{250}; // terminal: the line's refresh period
inline constexpr std::chrono::seconds kProgressLogPeriod{10};    // pipe or file: the longest gap between lines

// Whether a progress line is due after `done` of `total` frames (0: unknown), `lastDone` frames having been done
// at the last line (0 and the start time before the first) and `sinceLast` elapsed since it.
inline bool progressLineDue(ProgressMode mode, std::uint64_t total, std::uint64_t done, std::uint64_t lastDone,
                            std::chrono::steady_clock::duration sinceLast) {
  switch (mode) {
  case ProgressMode::Off: return false;
  case ProgressMode::Terminal: return done != lastDone && sinceLast >= kProgressRedraw;
  case ProgressMode::Log:
    if (done == lastDone || (total > 0 && done >= total)) return false;
    if (sinceLast >= kProgressLogPeriod) return true;
    // Crossed a 10 % boundary since the last line: at most 9 frame-driven lines in a run. (Totals are at most
    // 10^12 frames, so done * 10 does not overflow.)
    return total > 0 && done * 10 / total > lastDone * 10 / total;
  }
  return false;
}

namespace detail {
// Set while a terminal progress line is on screen without its newline.
inline bool gProgressLineOpen = false;
} // namespace detail

// Ends an open terminal progress line, so that the next message on stderr starts on a line of its own. Call it
// before printing to stderr during a run; a no-op when no line is open.
inline void endProgressLine() {
  if (!detail::gProgressLineOpen) return;
  std::fputc('\n', stderr);
  detail::gProgressLineOpen = false;
}

class Progress {
public:
  using Clock = std::chrono::steady_clock;
  using Now = Clock::time_point (*)();

  // total: frames the run will do, 0 when unknown. On stderr, shaped by whether stderr is a terminal.
  Progress(std::uint64_t total, bool quiet)
      : Progress(total, progressModeFor(quiet, ::isatty(::fileno(stderr)) == 1), stderr, &Clock::now) {}
  // Tests: an explicit mode, stream and clock.
  Progress(std::uint64_t total, ProgressMode mode, std::FILE* out, Now now)
      : total_(total), mode_(mode), out_(out), now_(now), last_(now()) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void frameDone(std::uint64_t done) {
    frameDone(done, [] { return std::string(); });
  }
  // detail(): appended to the line when not empty ("last frame 12 substeps"); called only when a line is due.
  template <class Detail>
  void frameDone(std::uint64_t done, Detail&& detail) {
    done_ = done;
    const Clock::time_point now = now_();
    if (!progressLineDue(mode_, total_, done, lastDone_, now - last_)) return;
    detail_ = detail();
    print(done, now);
  }

  // Terminal: draws the final count (`done`, when the last frame had no frameDone()) and ends the line. Call it
  // before the summary; later calls do nothing.
  void finish(std::uint64_t done) {
    done_ = done;
    finish();
  }
  void finish() {
    if (mode_ != ProgressMode::Terminal || !drawn_) return;
    // The last redraw may be up to kProgressRedraw old: the line left on screen shows where the run ended.
    if (lastDone_ != done_) print(done_, now_());
    if (out_ == stderr) {
      endProgressLine();
    } else {
      std::fputc('\n', out_);
    }
    drawn_ = false;
  }

private:
  void print(std::uint64_t done, Clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - last_).count();
    const double fps = seconds > 0 ? static_cast<double>(done - lastDone_) / seconds : 0.0;
    const char* start = mode_ == ProgressMode::Terminal ? "\r" : "";
    const char* end = mode_ == ProgressMode::Terminal ? "\x1b[K" : "\n"; // clear what a longer line left
    const std::string detail = detail_.empty() ? std::string() : "; " + detail_;
    if (total_ > 0) {
      std::fprintf(out_, "%sgraphsim: frame %llu/%llu (%llu%%), %.1f fps%s%s", start,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                   static_cast<unsigned long long>(done * 100 / total_), fps, detail.c_str(), end);
    } else {
      std::fprintf(out_, "%sgraphsim: frame %llu, %.1f fps%s%s", start, static_cast<unsigned long long>(done), fps,
                   detail.c_str(), end);
    }
    std::fflush(out_);
    if (mode_ == ProgressMode::Terminal) {
      drawn_ = true;
      if (out_ == stderr) detail::gProgressLineOpen = true;
    }
    last_ = now;
    lastDone_ = done;
  }

  std::uint64_t total_;
  ProgressMode mode_;
  std::FILE* out_;
  Now now_;
  Clock::time_point last_;
  std::uint64_t lastDone_ = 0;
  std::uint64_t done_ = 0;
  bool drawn_ = false;
  std::string detail_; // the scene's word on its last frame, at the last line due
};

} // namespace graphsim::app
