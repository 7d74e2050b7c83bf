// Fuzz target: recorded sessions (`graphsim replay FILE`, app/record/session_record.h). The whole input is the file.
// What replay does with it before its first frame, without a GPU: the command line's reading and checks
// (ReplayCommandLine::options: the recording read, its scene, its settings checked as a snapshot's, --backend cpu
// --headless), the replayer, and for small counts the CPU producer with the recording's start controls and every
// recorded event's controls checked before frame 0 and set on it as the replay would set them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/cli/replay_cli.h"
#include "app/record/session_tape.h"
#include "app/ui/panel.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsim;
  const std::filesystem::path& file = fuzz::inputFile(std::span(data, size));
  fuzz::refusalsOnly([&] {
    CLI::App app;
    app::ReplayCommandLine replay(app);
    std::vector<std::string> args = {"replay", file.string(), "--backend", "cpu", "--headless"};
    std::reverse(args.begin(), args.end()); // CLI11 takes a vector last argument first
    app.parse(args);
    const app::RunOptions options = replay.options();
    const app::Scene& scene = app::findScene(options.scene.scene);
    scene.initialCamera(options.scene);
    scene.renderCapacity(options.scene);
    app::SessionReplayer replayer(options.replay, options.replayTolerance);
    const std::unique_ptr<app::SceneProducer> producer = fuzz::makeSmallCpuProducer(options.scene);
    if (!producer) return;
    replayer.checkEvents(*producer); // as the session does before frame 0
    app::ViewState view;
    replayer.beforeFrame(0, *producer, view);
    for (const app::RecordedEvent& event : options.replay->events)
      if (event.frame > 0) replayer.beforeFrame(event.frame, *producer, view);
  });
  return 0;
}
