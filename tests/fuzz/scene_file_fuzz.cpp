// Fuzz target: scene files (`graphsim run --scene S --config FILE`, app/scenes/scene_config.h). The first byte picks
// the scene (its value modulo the number of registered scenes, in registry order: '0' nbody, '1' fluid); the rest is
// the file. What the run does with it before its first frame, without a GPU: the scene's preset, the file over it,
// the count and settings checks of the command line (parseCountAndFramesInFlight), the initial camera and the
// buffers' capacity, and for small counts the CPU producer.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "app/cli/cli.h"
#include "app/scenes/scene.h"
#include "app/scenes/scene_config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsim;
  if (size == 0) return 0;
  const auto all = app::scenes();
  const app::Scene& scene = *all[data[0] % all.size()];
  const std::filesystem::path& file = fuzz::inputFile(std::span(data + 1, size - 1));
  fuzz::refusalsOnly([&] {
    app::SceneSettings settings = app::loadPreset(scene.name());
    app::applyConfigFile(settings, file);
    app::parseCountAndFramesInFlight(settings, app::CountFlags{}, "3", "--config " + file.string());
    scene.initialCamera(settings);
    scene.renderCapacity(settings);
    fuzz::makeSmallCpuProducer(settings);
  });
  return 0;
}
