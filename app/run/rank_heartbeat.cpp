// RankHeartbeat (rank_heartbeat.h): one small file per rank beside the rendezvous file.
#include "app/run/rank_heartbeat.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

namespace graphsim::app {
namespace fs = std::filesystem;

namespace {

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "-";
  return name;
}

// Whether a beat ("<count> <host> <pid>") is of a process on this machine that no longer exists: a rank that died
// here is known at the next beat, without waiting for its count to stand still.
bool goneFromThisMachine(const std::string& beat, const std::string& host) {
  std::istringstream in(beat);
  unsigned long long count = 0;
  std::string theirs;
  long pid = 0;
  if (!(in >> count >> theirs >> pid) || theirs != host || pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::optional<std::string> readBeat(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

fs::path RankHeartbeat::fileOf(const fs::path& rendezvous, int rank) {
  return fs::path(rendezvous.string() + ".rank" + std::to_string(rank));
}

RankHeartbeat::RankHeartbeat(fs::path rendezvous, int rank, int world, std::chrono::milliseconds stillFor,
                             OnStopped onStopped)
    : rendezvous_(std::move(rendezvous)), rank_(rank), world_(world), stillFor_(stillFor),
      onStopped_(std::move(onStopped)), host_(hostName()), seen_(static_cast<std::size_t>(world)),
      thread_([this] { beat(); }) {}

void RankHeartbeat::rankStopped(int /*rank*/, const std::string& message) {
  std::fprintf(stderr, "graphsim: %s\n", message.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(1);
}

void RankHeartbeat::watch() {
  if (fired_ || stillFor_.count() <= 0 || !onStopped_) return;
  const auto now = std::chrono::steady_clock::now();
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    Seen& s = seen_[static_cast<std::size_t>(r)];
    std::optional<std::string> beat = readBeat(fileOf(rendezvous_, r));
    if (!beat) continue; // not started yet, or ended and gone
    std::string why;
    if (goneFromThisMachine(*beat, host_)) {
      why = "its process on this machine is gone";
    } else if (beat != s.count) {
      s.count = std::move(beat);
      s.since = now;
      continue;
    } else if (now - s.since >= stillFor_) {
      why = "its heartbeat " + fileOf(rendezvous_, r).string() + " stood still for " +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - s.since).count()) + " ms";
    } else {
      continue;
    }
    fired_ = true;
    onStopped_(r, "rank " + std::to_string(r) + " of " + std::to_string(world_) + " stopped: " + why + "; rank " +
                      std::to_string(rank_) + " ends the job (exit 1)");
    return;
  }
}

RankHeartbeat::~RankHeartbeat() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::error_code ec;
  fs::remove(fileOf(rendezvous_, rank_), ec);
}

void RankHeartbeat::beat() {
  const fs::path file = fileOf(rendezvous_, rank_);
  const fs::path temporary = fs::path(file.string() + ".tmp");
  std::unique_lock<std::mutex> lock(mutex_);
  for (unsigned long long count = 0; !stop_; ++count) {
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << count << ' ' << host_ << ' ' << ::getpid() << '\n';
    }
    std::error_code ec;
    fs::rename(temporary, file, ec); // a reader sees the old count or the new one
    watch();
    wake_.wait_for(lock, kPeriod, [this] { return stop_; });
  }
}

std::vector<int> RankHeartbeat::stoppedRanks(std::chrono::milliseconds window) const {
  std::vector<std::optional<std::string>> before(static_cast<std::size_t>(world_));
  for (int r = 0; r < world_; ++r) {
    if (r != rank_) before[static_cast<std::size_t>(r)] = readBeat(fileOf(rendezvous_, r));
  }
  std::this_thread::sleep_for(window);
  std::vector<int> stopped;
  for (int r = 0; r < world_; ++r) {
    if (r == rank_) continue;
    const std::optional<std::string>& a = before[static_cast<std::size_t>(r)];
    if (!a || a == readBeat(fileOf(rendezvous_, r))) stopped.push_back(r);
  }
  return stopped;
}

} // namespace graphsim::app
