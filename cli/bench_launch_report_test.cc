// `bench launch`'s measurement and report with a stand-in GPU: the table's
// order of calls, pairing, a row's own process and watchdog (a hang or a
// failure costs its row), and both renderings, checked against golden files
// (cli/testdata/bench_launch_*).
#include "cli/bench_launch_report.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "hardware/launch_table.h"

namespace stackcheck::cli {
namespace {

enum class Mode { kComplete, kHangV1bAtDefaultGeometry, kFailCallbackAtDefaultGeometry };

// Each figure is a function of the call's arguments and of how many calls
// came before it, so the order of the calls shows in the figures.
class FakeBench final : public hardware::LaunchMeasurer {
 public:
  explicit FakeBench(Mode mode) : mode_(mode) {}
  absl::StatusOr<hardware::BenchFigure> MeasureFloor(hardware::Floor f, hardware::BenchGeometry g,
                                                     std::uint64_t ns,
                                                     const hardware::BenchOptions& o) override {
    ++calls_;
    if (mode_ == Mode::kFailCallbackAtDefaultGeometry && f == hardware::Floor::kLaunchCallback &&
        g.teams != 8) {
      return absl::InternalError("cuStreamAddCallback: CUDA_ERROR_LAUNCH_FAILED");
    }
    hardware::BenchFigure b;
    b.us_per_launch =
        2.0 + static_cast<int>(f) * 1.25 + g.teams / 100.0 + ns / 20000.0 + (calls_ % 7) * 0.13;
    b.us_min = b.us_per_launch - 0.07;
    b.launches = o.launches - static_cast<int>(g.teams / 100);
    return b;
  }
  absl::StatusOr<hardware::BenchFigure> MeasurePolicy(const PolicyInfo& p,
                                                      hardware::BenchGeometry g, std::uint64_t ns,
                                                      const hardware::BenchOptions& o) override {
    ++calls_;
    if (mode_ == Mode::kHangV1bAtDefaultGeometry && std::string(p.name) == "v1b-callback-lock" &&
        g.teams != 8) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    hardware::BenchFigure b;
    b.us_per_launch = 3.0 + std::string(p.name).size() * 0.31 + g.teams / 90.0 + ns / 25000.0 +
                      (calls_ % 5) * 0.17;
    b.us_min = b.us_per_launch - 0.05;
    b.launches = o.launches;
    return b;
  }

 private:
  Mode mode_;
  int calls_ = 0;
};

real::DeviceProperties FakeDevice() {
  real::DeviceProperties d;
  d.name = "Fake GPU";
  d.sm_count = 132;
  d.cc_major = 9;
  d.cc_minor = 0;
  d.driver_version = 13000;
  return d;
}

// The golden file `name`; with BENCH_LAUNCH_GOLDEN_DIR set, `actual` is first
// written there under that name (to regenerate them after a deliberate change).
std::string Golden(const std::string& name, const std::string& actual) {
  if (const char* dir = std::getenv("BENCH_LAUNCH_GOLDEN_DIR")) {
    std::ofstream(std::string(dir) + "/" + name) << actual;
  }
  std::ifstream in("cli/testdata/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Both renderings of `table`, as printed.
std::pair<std::string, std::string> Render(const hardware::LaunchTable& table, int rc) {
  std::string text, json;
  for (bool as_json : {false, true}) {
    testing::internal::CaptureStdout();
    ReportSink out(as_json, "bench launch");
    DescribeLaunchTable(table, out);
    out.Finish(rc);
    (as_json ? json : text) = testing::internal::GetCapturedStdout();
  }
  return {text, json};
}

// Each row's process opens a FakeBench of its own, as each opens the GPU.
hardware::LaunchTable Measure(Mode mode, const hardware::LaunchTableSpec& spec) {
  hardware::OpenMeasurer open =
      [mode]() -> absl::StatusOr<std::unique_ptr<hardware::LaunchMeasurer>> {
    return std::make_unique<FakeBench>(mode);
  };
  return hardware::MeasureLaunchTableWith(open, FakeDevice(), 1056, spec);
}

TEST(BenchLaunchReportTest, TwoPoliciesRenderTheGoldenTextAndJson) {
  hardware::LaunchTableSpec spec;
  spec.policies = {FindPolicy("event-fence"), FindPolicy("v2-gcc11")};
  spec.options.repetitions = 3;
  spec.options.launches = 7;
  spec.long_kernel_us = 20;
  const hardware::LaunchTable t = Measure(Mode::kComplete, spec);
  EXPECT_TRUE(t.Unfinished().empty());
  ASSERT_EQ(t.rows.size(), 9u);  // seven floors, two policies
  const auto [text, json] = Render(t, 0);
  EXPECT_EQ(text, Golden("bench_launch_two_policies.txt", text));
  EXPECT_EQ(json, Golden("bench_launch_two_policies.json", json));
}

TEST(BenchLaunchReportTest, AHangCostsItsRowAndTheOtherPoliciesAreMeasured) {
  hardware::LaunchTableSpec spec;  // every policy, those that may deadlock last
  spec.watchdog = absl::Milliseconds(300);
  spec.options.repetitions = 3;
  std::vector<std::string> progress;
  spec.progress = [&progress](const std::string& line) { progress.push_back(line); };
  const hardware::LaunchTable t = Measure(Mode::kHangV1bAtDefaultGeometry, spec);
  ASSERT_EQ(t.Unfinished().size(), 1u);
  const hardware::LaunchRow& hung = *t.Unfinished()[0];
  EXPECT_EQ(hung.what, "policy v1b-callback-lock");
  EXPECT_EQ(hung.end, hardware::LaunchRow::End::kHung);
  EXPECT_EQ(hung.cells.size(), 2u);
  // The policies after it are measured in every column.
  ASSERT_EQ(t.rows.size(), 7 + AllPolicies().size());
  EXPECT_EQ(t.rows.back().what, "policy v3-trunk");
  EXPECT_EQ(t.rows.back().cells.size(), t.columns.size());
  ASSERT_EQ(progress.size(), t.rows.size());
  EXPECT_EQ(progress[0].rfind("measured launch only: ", 0), 0u) << progress[0];
  const auto [text, json] = Render(t, 1);
  EXPECT_EQ(text, Golden("bench_launch_hung.txt", text));
  EXPECT_EQ(json, Golden("bench_launch_hung.json", json));
}

TEST(BenchLaunchReportTest, AFailedCellCostsItsRowWithItsError) {
  hardware::LaunchTableSpec spec;
  spec.options.repetitions = 3;
  spec.policies = {FindPolicy("event-fence")};
  const hardware::LaunchTable t = Measure(Mode::kFailCallbackAtDefaultGeometry, spec);
  ASSERT_EQ(t.Unfinished().size(), 1u);
  const hardware::LaunchRow& failed = *t.Unfinished()[0];
  EXPECT_EQ(failed.what, "launch + cuStreamAddCallback");
  EXPECT_EQ(failed.end, hardware::LaunchRow::End::kFailed);
  EXPECT_EQ(failed.failure, "cuStreamAddCallback: CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(t.rows.back().cells.size(), t.columns.size());
  const auto [text, json] = Render(t, 1);
  EXPECT_EQ(text, Golden("bench_launch_failed.txt", text));
  EXPECT_EQ(json, Golden("bench_launch_failed.json", json));
}

}  // namespace
}  // namespace stackcheck::cli
