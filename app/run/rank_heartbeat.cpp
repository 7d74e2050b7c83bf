// RankHeartbeat (rank_heartbeat.h): one small file per rank beside the rendezvous file.
#include "app/run/rank_heartbeat.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

namespace graphsim::app {
namespace fs = std::filesystem;

namespace {

std::optional<std::string> readBeat(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

fs::path RankHeartbeat::fileOf(const fs::path& rendezvous, int rank) {
  return fs::path(rendezvous.string() + ".rank" + std::to_string(rank));
}

RankHeartbeat::RankHeartbeat(fs::path rendezvous, int rank, int world)
    : rendezvous_(std::move(rendezvous)), rank_(rank), world_(world), thread_([this] { beat(); }) {}

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
      out << count << '\n';
    }
    std::error_code ec;
    fs::rename(temporary, file, ec); // a reader sees the old count or the new one
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
