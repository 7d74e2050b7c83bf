#include "tests/fuzz/fuzz_support.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace graphsim::fuzz {
namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz: %s: %s\n", what, std::strerror(errno));
  std::abort();
}

class MemoryFile {
public:
  MemoryFile() : fd_(::memfd_create("graphsim-fuzz-input", MFD_CLOEXEC)) {
    if (fd_ < 0) die("memfd_create");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::filesystem::path& write(std::span<const std::uint8_t> bytes) {
    if (::ftruncate(fd_, 0) != 0) die("ftruncate");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die("pwrite");
      done += static_cast<std::size_t>(n);
    }
    return path_;
  }

private:
  int fd_;
  std::filesystem::path path_;
};

// The default capacity of a scene's buffers when the settings give none (nbody: 65,536 bodies): what a run of a few
// bodies allocates anyway. A larger one (nbody's max_bodies) is a large allocation the run makes on purpose.
constexpr std::int64_t kMaxProducerCapacity = 65536;

} // namespace

const std::filesystem::path& inputFile(std::span<const std::uint8_t> bytes) {
  static MemoryFile file;
  return file.write(bytes);
}

std::unique_ptr<app::SceneProducer> makeSmallCpuProducer(const app::SceneSettings& settings) {
  const app::Scene& scene = app::findScene(settings.scene);
  if (scene.count(settings) > kMaxProducerCount || scene.renderCapacity(settings) > kMaxProducerCapacity)
    return nullptr;
  app::ProducerRequest request; // cpu, no renderer
  return scene.makeProducer(settings, request);
}

} // namespace graphsim::fuzz
