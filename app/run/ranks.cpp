#include "app/run/ranks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "app/base/errors.h"
#include "app/io/output_file.h"
#include "app/io/user_text.h"
#include "app/run/mpi_job.h"
#include "app/run/rank_heartbeat.h"
#include "app/run/signals.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// ---- the launcher's variables ----

struct Convention {
  const char* rank;
  const char* world;
  const char* local;
};

// In the order of precedence (ranks.h says why Open MPI's come first).
constexpr std::array<Convention, 3> kConventions{{
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
    {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
}};

// The first convention whose rank or world-size variable is set, or nullptr.
const Convention* conventionIn(const EnvLookup& env) {
  for (const Convention& c : kConventions)
    if (env(c.rank) != nullptr || env(c.world) != nullptr) return &c;
  return nullptr;
}

// NAME=VALUE as a message shows it: the value escaped and clipped (app/io/user_text.h), "" when empty.
std::string shownVariable(const char* name, const char* value) { return std::string(name) + "=" + shownText(value); }

// Digits only (no sign, blank or trailing text) and within int; from_chars alone would take "-1" and stop at "3x".
std::optional<int> wholeNumber(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

int numberIn(const char* name, const char* value) {
  const std::optional<int> number = wholeNumber(value);
  if (!number) {
    throw UsageError(shownVariable(name, value) + ": not a whole decimal number (the launcher sets 0, 1, 2, ...; " +
                     "digits only, at most " + std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  return *number;
}

RankPlace placeFrom(const EnvLookup& env, const Convention& c) {
  const char* rank = env(c.rank);
  const char* world = env(c.world);
  const char* local = env(c.local);
  if (rank == nullptr || world == nullptr) {
    const char* missing = rank == nullptr ? c.rank : c.world;
    const std::string set = rank == nullptr ? shownVariable(c.world, world) : shownVariable(c.rank, rank);
    throw UsageError(set + " is set but " + missing + " is not: a launcher sets a process's rank and the job's " +
                     "world size together");
  }
  RankPlace place;
  place.source = std::string(c.rank) + "/" + c.world + "/" + c.local;
  place.world = numberIn(c.world, world);
  if (place.world < 1) throw UsageError(shownVariable(c.world, world) + ": a job has at least 1 process");
  place.rank = numberIn(c.rank, rank);
  if (place.rank >= place.world) {
    throw UsageError(shownVariable(c.rank, rank) + " with " + shownVariable(c.world, world) +
                     ": a rank must be below the world size");
  }
  if (local == nullptr) {
    if (place.world == 1) return place; // one process alone: its GPU is the first, local rank or not
    throw UsageError(std::string(c.local) + " is not set (" + shownVariable(c.rank, rank) + ", " +
                     shownVariable(c.world, world) + "): each of several processes needs its local rank to pick " +
                     "its GPU");
  }
  place.localRank = numberIn(c.local, local);
  if (place.localRank >= place.world) {
    throw UsageError(shownVariable(c.local, local) + " with " + shownVariable(c.world, world) +
                     ": a local rank must be below the world size");
  }
  return place;
}

std::string valueOf(const EnvLookup& env, const char* name) {
  const char* value = env(name);
  return value == nullptr ? std::string() : std::string(value);
}

// ---- the rendezvous file ----

constexpr std::string_view kMagic = "graphsim-rendezvous";
constexpr std::string_view kVersion = "1";
constexpr std::string_view kNoKey = "-";
// A rendezvous file is a header and 2 hex digits per id byte: anything much longer is something else.
constexpr std::size_t kMaxFileBytes = std::size_t{64} * 1024;
constexpr milliseconds kFirstPoll{10};
constexpr milliseconds kLongestPoll{100};
// NCCL_UNIQUE_ID_BYTES (nccl.h): app/ includes no NCCL header.
constexpr std::size_t kNcclIdBytes = 128;
// When this process started, near enough: static initialisation, before main.
const fs::file_time_type gProcessStart = fs::file_time_type::clock::now();

std::string shownPath(const fs::path& path) { return shownText(path.string(), kShownPathLimit); }

// One blank-free word whatever the key holds: bytes outside '!'..'~', and '%' itself, as %XX.
std::string keyWord(const std::string& key) {
  if (key.empty()) return std::string(kNoKey);
  constexpr const char* kDigits = "0123456789ABCDEF";
  std::string word;
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c > ' ' && c < 0x7f && c != '%') {
      word += ch;
    } else {
      word += '%';
      word += kDigits[c >> 4];
      word += kDigits[c & 0xf];
    }
  }
  return word;
}

std::string hexText(std::span<const std::byte> bytes) {
  constexpr const char* kDigits = "0123456789abcdef";
  std::string text;
  text.reserve(2 * bytes.size());
  for (const std::byte b : bytes) {
    const auto c = static_cast<unsigned char>(b);
    text += kDigits[c >> 4];
    text += kDigits[c & 0xf];
  }
  return text;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::vector<std::byte>> bytesOfHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<std::byte> bytes(text.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const int high = hexDigit(text[2 * i]);
    const int low = hexDigit(text[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes[i] = static_cast<std::byte>(high * 16 + low);
  }
  return bytes;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0; start <= line.size();) {
    const std::size_t blank = std::min(line.find(' ', start), line.size());
    out.push_back(line.substr(start, blank - start));
    start = blank + 1;
  }
  return out;
}

EnvironmentError notRendezvous(const fs::path& file, const std::string& why) {
  return EnvironmentError(shownPath(file) + " is not a graphsim rendezvous file (" + why + "); give the job's " +
                          "ranks a rendezvous path of their own");
}

struct Published {
  int world = 0;
  std::string key; // as written: keyWord's form
  std::vector<std::byte> id;
};

// The file's content, or nullopt while it is incomplete (a file copied in by hand, or a filesystem that shows a name
// before its bytes: publishRendezvous itself never leaves half a file). EnvironmentError when it cannot be one.
std::optional<Published> parsePublished(const fs::path& file, std::string_view text) {
  const std::string_view start = text.substr(0, kMagic.size());
  if (start != kMagic.substr(0, start.size())) throw notRendezvous(file, "it starts otherwise");
  const std::size_t headerEnd = text.find('\n');
  const std::size_t idEnd = headerEnd == std::string_view::npos ? headerEnd : text.find('\n', headerEnd + 1);
  if (idEnd == std::string_view::npos) return std::nullopt;
  if (idEnd + 1 != text.size()) throw notRendezvous(file, "text after the id's line");
  const std::vector<std::string_view> header = words(text.substr(0, headerEnd));
  if (header.size() != 4 || header[0] != kMagic) throw notRendezvous(file, "a header other than graphsim's");
  if (header[1] != kVersion) {
    throw EnvironmentError(shownPath(file) + " is a version " + shownText(header[1]) + " rendezvous file; this " +
                           "graphsim reads version " + std::string(kVersion) + ": start every rank with one build");
  }
  Published published;
  const std::optional<int> world = header[2].starts_with("world=") ? wholeNumber(header[2].substr(6)) : std::nullopt;
  if (!world || *world < 1) throw notRendezvous(file, "no world size in its header");
  published.world = *world;
  if (!header[3].starts_with("key=") || header[3].size() == 4) throw notRendezvous(file, "no key in its header");
  published.key = std::string(header[3].substr(4));
  std::optional<std::vector<std::byte>> id = bytesOfHex(text.substr(headerEnd + 1, idEnd - headerEnd - 1));
  if (!id) throw notRendezvous(file, "its id is not hexadecimal");
  published.id = std::move(*id);
  return published;
}

std::string cannotRead(const fs::path& file, int error) {
  return "cannot read the rendezvous file " + shownPath(file) + ": " + std::strerror(error);
}

class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { ::close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

private:
  int fd_;
};

struct FileSeen {
  std::string text;
  fs::file_time_type modified;
};

fs::file_time_type modifiedTime(const struct stat& st) {
  const auto since = std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec);
  const std::chrono::system_clock::time_point sys(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(since));
  return std::chrono::time_point_cast<fs::file_time_type::duration>(std::chrono::file_clock::from_sys(sys));
}

// The file's bytes and modification time (of the file read: fstat, not a second lookup that a rename can race), or
// nullopt when there is no file yet. ESTALE, an NFS handle to a file just renamed over, is "not yet" too.
std::optional<FileSeen> readIfPresent(const fs::path& file) {
  // O_NONBLOCK: a FIFO at the path is refused below instead of blocking the open until some writer comes.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT || error == ESTALE) return std::nullopt;
    throw EnvironmentError(cannotRead(file, error));
  }
  const Descriptor descriptor(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw EnvironmentError(cannotRead(file, errno));
  if (S_ISDIR(st.st_mode)) throw EnvironmentError(cannotRead(file, EISDIR));
  if (!S_ISREG(st.st_mode)) throw EnvironmentError(shownPath(file) + " is not a regular file (a rendezvous file is)");
  FileSeen seen{{}, modifiedTime(st)};
  std::array<char, 4096> buffer{};
  while (seen.text.size() <= kMaxFileBytes) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) return seen;
    if (n > 0) {
      seen.text.append(buffer.data(), static_cast<std::size_t>(n));
    } else if (errno == ESTALE) {
      return std::nullopt;
    } else if (errno != EINTR) {
      throw EnvironmentError(cannotRead(file, errno));
    }
  }
  throw notRendezvous(file, "over " + std::to_string(kMaxFileBytes / 1024) + " KiB");
}

// Why the file at the path was not taken, or empty when it was; the timeout's message ends with the last reason.
std::string staleReason(const FileSeen& seen, const std::optional<Published>& published, const std::string& ourKey,
                        fs::file_time_type notBefore) {
  if (!published) return "the file there is incomplete";
  if (seen.modified < notBefore) return "the file there is older than this job: an earlier job's";
  if (published->key != kNoKey && ourKey != kNoKey && published->key != ourKey)
    return "the file there is another job's (key " + published->key + "; this job's is " + ourKey + ")";
  return {};
}

std::string timeoutMessage(const fs::path& file, const RankPlace& place, milliseconds timeout,
                           const std::string& reason) {
  std::string message = "rank 0 published no rendezvous file " + shownPath(file) + " within " +
                        std::to_string(timeout.count()) + " ms (this is rank " + std::to_string(place.rank) + " of " +
                        std::to_string(place.world) + (place.source.empty() ? "" : ", from " + place.source);
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (const std::string problem = directoryProblem(dir); !problem.empty()) {
    message += "; " + problem;
  } else if (!reason.empty()) {
    message += "; " + reason;
  }
  return message + ")";
}

} // namespace

std::optional<RankPlace> rankFromEnvironment(const EnvLookup& env) {
  const Convention* convention = conventionIn(env);
  if (convention == nullptr) return std::nullopt;
  return placeFrom(env, *convention);
}

std::optional<RankPlace> rankFromEnvironment() {
  return rankFromEnvironment([](const char* name) { return std::getenv(name); });
}

int localDeviceFor(const RankPlace& place, int cudaDeviceCount) {
  if (cudaDeviceCount == 1) return 0;
  if (place.localRank < cudaDeviceCount) return place.localRank;
  throw EnvironmentError("rank " + std::to_string(place.rank) + ": local rank " + std::to_string(place.localRank) +
                         " but this machine shows " + std::to_string(cudaDeviceCount) + " CUDA devices; start at " +
                         "most that many processes per machine, or give each one GPU (CUDA_VISIBLE_DEVICES)");
}

std::string jobKey(const EnvLookup& env) {
  if (std::string key = valueOf(env, "GRAPHSIM_JOB_KEY"); !key.empty()) return key;
  const Convention* convention = conventionIn(env);
  if (convention == &kConventions[0]) { // Open MPI
    for (const char* name : {"OMPI_MCA_orte_hnp_uri", "PMIX_NAMESPACE"})
      if (std::string key = valueOf(env, name); !key.empty()) return key;
  } else if (convention == &kConventions[1]) { // Slurm
    if (std::string job = valueOf(env, "SLURM_JOB_ID"); !job.empty()) {
      const std::string step = valueOf(env, "SLURM_STEP_ID");
      return step.empty() ? job : job + "." + step;
    }
  }
  return std::string(kNoKey);
}

std::string jobKey() {
  return jobKey([](const char* name) { return std::getenv(name); });
}

void publishRendezvous(const fs::path& file, std::span<const std::byte> id, int world, const std::string& key) {
  if (world < 1) throw std::invalid_argument("publishRendezvous: world " + std::to_string(world) + " is below 1");
  const std::string text = std::string(kMagic) + " " + std::string(kVersion) + " world=" + std::to_string(world) +
                           " key=" + keyWord(key) + "\n" + hexText(id) + "\n";
  try {
    writeOutput(file, text);
  } catch (const OutputError& e) {
    throw EnvironmentError(std::string("rank 0 cannot publish the rendezvous file: ") + e.what());
  }
}

std::vector<std::byte> awaitRendezvous(const fs::path& file, std::size_t idBytes, const RankPlace& place,
                                       const std::string& key, milliseconds timeout, fs::file_time_type notBefore) {
  const std::string ourKey = keyWord(key);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  milliseconds poll = kFirstPoll;
  std::string reason; // why the last file seen was not taken
  for (;;) {
    if (interruptRequested()) throw Interrupted("waiting for rank 0's rendezvous file " + shownPath(file));
    if (std::optional<FileSeen> seen = readIfPresent(file)) {
      std::optional<Published> published = parsePublished(file, seen->text);
      reason = staleReason(*seen, published, ourKey, notBefore);
      if (reason.empty()) {
        if (published->world != place.world) {
          throw UsageError("inconsistent world size: " + shownPath(file) + " says " + std::to_string(published->world) +
                           ", this process's launcher (" + place.source + ") says " + std::to_string(place.world));
        }
        if (published->id.size() != idBytes) {
          throw notRendezvous(
              file, "its id is " + std::to_string(published->id.size()) + " bytes, not " + std::to_string(idBytes));
        }
        return std::move(published->id);
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) throw TimeoutError(timeoutMessage(file, place, timeout, reason), TimeoutError::Side::Cuda);
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(poll, deadline - now));
    poll = std::min(poll * 2, kLongestPoll);
  }
}

namespace {
std::optional<RankPlace> gJoined;          // set once this process joined a job of several processes
std::unique_ptr<RankHeartbeat> gHeartbeat; // then its heartbeat, for stalledJobContext; none under MPI
} // namespace

std::string stalledJobContext() {
  if (!gJoined) return {};
  std::string text = "; this is rank " + std::to_string(gJoined->rank) + " of " + std::to_string(gJoined->world);
  if (!gHeartbeat) return text + ": another rank may have stopped (under MPI no heartbeat files tell which)";
  // Three beats' time: a rank that beat in none of them has stopped (or its host froze).
  const std::vector<int> stopped = gHeartbeat->stoppedRanks(3 * RankHeartbeat::kPeriod);
  if (stopped.empty()) return text + ": every other rank's heartbeat still moves, so one of them stalled";
  std::string list;
  for (const int r : stopped) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return text + ": rank" + (stopped.size() > 1 ? "s " : " ") + list + (stopped.size() > 1 ? " have" : " has") +
         " stopped (no heartbeat in " + shownPath(RankHeartbeat::fileOf(gHeartbeat->rendezvous(), stopped[0])) +
         (stopped.size() > 1 ? " and the others" : "") + ")";
}

bool joinedSeveralProcessJob() { return gJoined.has_value(); }

void removeRendezvous(const fs::path& file) {
  if (file == kMpiRendezvous) return;
  std::error_code ec;
  if (!fs::remove(file, ec) && ec)
    std::fprintf(stderr, "graphsim: warning: could not remove %s (%s)\n", shownPath(file).c_str(),
                 ec.message().c_str());
}

ProcessRank joinLaunchedJob(const LaunchedRank& launched, milliseconds timeout) {
  const RankPlace& place = launched.place;
  const bool byMpi = launched.rendezvous == kMpiRendezvous;
  if (byMpi) requireMpi();
  if (place.world == 1) return ProcessRank{0, 1, {}}; // alone: no NCCL, nothing to hand out
  ProcessRank joined{place.rank, place.world, {}};
  if (byMpi) {
    joined.ncclId =
        broadcastIdWithMpi(place.rank == 0 ? newNcclId() : std::vector<std::byte>{}, kNcclIdBytes, place, timeout);
    gJoined = place; // no heartbeat: its files sit beside a rendezvous file
    return joined;
  }
  const std::string key = jobKey();
  if (place.rank == 0) {
    joined.ncclId = newNcclId();
    publishRendezvous(launched.rendezvous, joined.ncclId, place.world, key);
  } else {
    const fs::file_time_type notBefore =
        key == kNoKey ? gProcessStart - std::chrono::minutes(1) : fs::file_time_type::min();
    joined.ncclId = awaitRendezvous(launched.rendezvous, kNcclIdBytes, place, key, timeout, notBefore);
  }
  gJoined = place;
  // The watch (rank_heartbeat.h): a rank whose heartbeat stood still for half the wait timeout died, and this one
  // leaves at once, so that the whole job ends within the wait timeout of its death.
  const milliseconds stillFor = std::max(timeout / 2, milliseconds(1000));
  gHeartbeat = std::make_unique<RankHeartbeat>(launched.rendezvous, place.rank, place.world, stillFor,
                                               RankHeartbeat::rankStopped);
  return joined;
}

} // namespace graphsim::app
