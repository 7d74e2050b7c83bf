// The frame driver's order of work (app/frame/frame_driver.h) without a GPU: a producer and an observer that record
// what they are asked, driven in the sim-only mode (no renderer), where the throttle waits for the producer's own
// frame k - F. What the protocol says frame k is, the driver must do, in order, once per frame. LaunchOrder::
// BeforeThrottle (bench launch-early) produces frame k before its throttle and still completes each frame once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "allocation_count.h"
#include "app/frame/frame_driver.h"

namespace graphsim::app {
namespace {

struct Log {
  std::vector<std::string> events;
  void add(const std::string& what, std::uint64_t k) { events.push_back(what + std::to_string(k)); }
};

class RecordingProducer final : public FrameProducer {
public:
  explicit RecordingProducer(Log& log, bool gpuOrdered = false) : log_(log), gpuOrdered_(gpuOrdered) {}
  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    log_.add("produce", k);
    return std::nullopt;
  }
  bool gpuOrdered() const override { return gpuOrdered_; }
  void waitProduced(std::uint64_t k) override { log_.add("wait", k); }
  void finish() override { log_.events.push_back("finish"); }

private:
  Log& log_;
  bool gpuOrdered_;
};

class RecordingObserver final : public FrameObserver {
public:
  explicit RecordingObserver(Log& log) : log_(log) {}
  void throttled(std::uint64_t k) override { log_.add("throttled", k); }
  void stepped(std::uint64_t k, const FrameTimes& t) override {
    EXPECT_LE(t.start, t.produced);
    EXPECT_LE(t.produced, t.submitting);
    EXPECT_LE(t.submitting, t.waited);
    EXPECT_LE(t.waited, t.submitted);
    log_.add("stepped", k);
  }
  void completed(std::uint64_t k) override { log_.add("completed", k); }

private:
  Log& log_;
};

TEST(FrameDriver, SimOnlyThrottlesOnFrameKMinusFAndDrainsTheRestInOrder) {
  Log log;
  RecordingProducer producer(log);
  RecordingObserver observer(log);
  FrameDriver driver(nullptr, producer, FrameProtocol(2));
  driver.observe(observer);
  for (std::uint64_t k = 0; k < 4; ++k) ASSERT_TRUE(driver.step(k));
  driver.drain();
  const std::vector<std::string> expected = {
      "throttled0", "produce0",   "stepped0", "throttled1", "produce1", "stepped1",   "wait0",
      "completed0", "throttled2", "produce2", "stepped2",   "wait1",    "completed1", "throttled3",
      "produce3",   "stepped3",   "wait2",    "completed2", "wait3",    "completed3", "finish"};
  EXPECT_EQ(log.events, expected);
  EXPECT_EQ(driver.framesStepped(), 4u);
}

TEST(FrameDriver, ASkippedStepProducesNothingAndCompletesNothingTwice) {
  Log log;
  RecordingProducer producer(log);
  RecordingObserver observer(log);
  FrameDriver driver(nullptr, producer, FrameProtocol(1));
  driver.observe(observer);
  ASSERT_TRUE(driver.step(0));
  log.events.clear();
  EXPECT_FALSE(driver.step(1, [](render::FrameSubmit&) { return false; })); // e.g. the window's image out of date
  EXPECT_TRUE(driver.step(1, [](render::FrameSubmit& submit) {
    EXPECT_EQ(submit.frame, 1u);
    return true;
  }));
  const std::vector<std::string> expected = {"wait0",      "completed0", "throttled1", "wait0",
                                             "throttled1", "produce1",   "stepped1"};
  EXPECT_EQ(log.events, expected);
}

TEST(FrameDriver, BeforeThrottleProducesFrameKBeforeItsThrottleAndCompletesEachFrameOnceInOrder) {
  Log log;
  RecordingProducer producer(log, true);
  RecordingObserver observer(log);
  FrameDriver driver(nullptr, producer, FrameProtocol(2), SubmitOrder::WithProduce, LaunchOrder::BeforeThrottle);
  driver.observe(observer);
  EXPECT_EQ(driver.launchOrder(), LaunchOrder::BeforeThrottle);
  for (std::uint64_t k = 0; k < 4; ++k) ASSERT_TRUE(driver.step(k));
  driver.drain();
  // Frame k's produce comes first, then the throttle for k (which completes frame k - F), then its submit.
  const std::vector<std::string> expected = {
      "produce0",   "throttled0", "stepped0",   "produce1",   "throttled1", "stepped1",   "produce2",
      "wait0",      "completed0", "throttled2", "stepped2",   "produce3",   "wait1",      "completed1",
      "throttled3", "stepped3",   "wait2",      "completed2", "wait3",      "completed3", "finish"};
  EXPECT_EQ(log.events, expected);
  EXPECT_EQ(driver.framesStepped(), 4u);
}

// The throttle and prepare run between produce and submit: FrameTimes keeps them out of both.
TEST(FrameDriver, BeforeThrottleTimesProduceAndSubmitApartFromTheThrottleAndPrepare) {
  struct Observer final : FrameObserver {
    FrameClock::time_point throttledAt;
    int steps = 0;
    void throttled(std::uint64_t) override { throttledAt = FrameClock::now(); }
    void stepped(std::uint64_t, const FrameTimes& t) override {
      EXPECT_LE(t.produced, throttledAt);
      EXPECT_LE(throttledAt, t.submitting);
      EXPECT_EQ(t.submitting, t.waited) << "WithProduce: nothing waited between them";
      EXPECT_LE(t.waited, t.submitted);
      ++steps;
    }
  } observer;
  Log log;
  RecordingProducer producer(log, true);
  FrameDriver driver(nullptr, producer, FrameProtocol(1), SubmitOrder::WithProduce, LaunchOrder::BeforeThrottle);
  driver.observe(observer);
  for (std::uint64_t k = 0; k < 3; ++k) ASSERT_TRUE(driver.step(k));
  EXPECT_EQ(observer.steps, 3);
}

TEST(FrameDriver, BeforeThrottleNeedsAGpuOrderedProducerAndAPrepareThatNeverSkips) {
  Log log;
  RecordingProducer hostWritten(log, false); // e.g. the CPU backend or the host copy: after the throttle only
  EXPECT_THROW(
      FrameDriver(nullptr, hostWritten, FrameProtocol(2), SubmitOrder::WithProduce, LaunchOrder::BeforeThrottle),
      std::logic_error);
  RecordingProducer producer(log, true);
  FrameDriver driver(nullptr, producer, FrameProtocol(2), SubmitOrder::WithProduce, LaunchOrder::BeforeThrottle);
  ASSERT_TRUE(driver.step(0));
  EXPECT_THROW(driver.step(1, [](render::FrameSubmit&) { return false; }), std::logic_error);
  EXPECT_EQ(driver.framesStepped(), 1u) << "the refused frame is not counted as stepped";
}

// Per frame the driver allocates nothing, in either launch order (the recording helpers above would).
TEST(FrameDriver, StepsAllocateNothingInEitherLaunchOrder) {
  struct Producer final : FrameProducer {
    std::optional<std::uint64_t> produce(std::uint64_t k) override { return k + 1; }
    bool gpuOrdered() const override { return true; }
    void waitProduced(std::uint64_t) override {}
    void finish() override {}
  } producer;
  struct Observer final : FrameObserver {
    std::uint64_t completions = 0;
    void completed(std::uint64_t k) override { EXPECT_EQ(k, completions++); }
  };
  for (const LaunchOrder launch : {LaunchOrder::AfterThrottle, LaunchOrder::BeforeThrottle}) {
    Observer observer;
    FrameDriver driver(nullptr, producer, FrameProtocol(3), SubmitOrder::WithProduce, launch);
    driver.observe(observer);
    test::startCountingAllocations();
    for (std::uint64_t k = 0; k < 64; ++k) driver.step(k);
    driver.drain();
    EXPECT_EQ(test::stopCountingAllocations(), 0u);
    EXPECT_EQ(observer.completions, 64u);
  }
}

TEST(FrameDriver, FramesMustBeSteppedInOrder) {
  Log log;
  RecordingProducer producer(log);
  FrameDriver driver(nullptr, producer, FrameProtocol(3));
  EXPECT_THROW(driver.step(1), std::logic_error);
  RecordingProducer gpuOrdered(log, true);
  FrameDriver early(nullptr, gpuOrdered, FrameProtocol(3), SubmitOrder::WithProduce, LaunchOrder::BeforeThrottle);
  EXPECT_THROW(early.step(1), std::logic_error);
  EXPECT_TRUE(log.events.empty()) << "nothing produced out of order";
  EXPECT_THROW(FrameDriver(nullptr, producer, FrameProtocol(3), SubmitOrder::AfterProduced), std::logic_error);
  EXPECT_THROW(FrameProtocol(0), std::invalid_argument);
  EXPECT_THROW(FrameProtocol(kMaxFramesInFlight + 1), std::invalid_argument);
}

TEST(FrameProtocol, SlotsAndSemaphoreValuesOfFrameK) {
  const FrameProtocol p(3);
  EXPECT_EQ(p.slot(0), 0u);
  EXPECT_EQ(p.slot(4), 1u);
  EXPECT_EQ(p.renderDoneWaited(0), 0u); // the first F frames wait for nothing
  EXPECT_EQ(p.renderDoneWaited(2), 0u);
  EXPECT_EQ(p.renderDoneWaited(3), 1u); // frame 0's render, the last reader of slot 0, signalled 1
  EXPECT_EQ(p.renderDoneWaited(10), 8u);
  EXPECT_EQ(p.simDoneSignalled(10), 11u);
  EXPECT_EQ(p.renderDoneSignalled(10), 11u);
  EXPECT_FALSE(p.completedBefore(2).has_value());
  EXPECT_EQ(p.completedBefore(3), 0u);
  EXPECT_EQ(FrameProtocol::frameOfRenderDone(11), 10u);
  EXPECT_FALSE(FrameProtocol::frameOfRenderDone(0).has_value());
}

} // namespace
} // namespace graphsim::app
