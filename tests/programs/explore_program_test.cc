// ExploreProgram and ReplayProgram driven from C++, as a library user would:
// a correct program explores clean, GCC 12.2's exit-time hang is found,
// shrunk, replayed and saved, its token replays with the same trace and a
// Chrome trace, and bad specs and foreign programs are refused.
#include "properties/program/explore_program.h"

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "properties/program/program_finding.h"

namespace stackcheck::properties {
namespace {

std::string Runfile(const std::string& path) {
  const char* dir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(dir != nullptr ? dir : ".", "/", workspace != nullptr ? workspace : "", "/",
                      path);
}

ProgramSpec SpecFor(const std::string& program, std::vector<std::string> args) {
  ProgramSpec spec;
  spec.libcuda = Runfile("sim/libcuda/libcuda.so.1");
  spec.program = Runfile("tests/programs/" + program);
  spec.args = std::move(args);
  spec.replay_dir = std::string(std::getenv("TEST_TMPDIR")) + "/replays";
  return spec;
}

TEST(ExploreProgramTest, ACorrectProgramExploresClean) {
  ProgramSpec spec = SpecFor("threads_regions", {"2", "2", "8", "2"});
  spec.faults = ProgramSpec::Faults::kNone;
  spec.max_executions = 12;
  const ProgramReport r = ExploreProgram(spec);
  ASSERT_TRUE(r.status.ok()) << r.status << "\n" << r.output;
  EXPECT_EQ(r.executions, 12u);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].finding.violation.message;
  EXPECT_GT(r.kernels_launched, 0u);
  EXPECT_GE(r.distinct_traces, 1u);
  EXPECT_EQ(r.program_exit_statuses, std::set<int>{0});
}

TEST(ExploreProgramTest, ADepthFirstSearchEndsExhausted) {
  ProgramSpec spec = SpecFor("threads_regions", {"2", "1", "8", "1"});
  spec.strategy = "dfs";
  spec.preemption_bound = 0;
  spec.faults = ProgramSpec::Faults::kNone;
  const ProgramReport r = ExploreProgram(spec);
  ASSERT_TRUE(r.status.ok()) << r.status << "\n" << r.output;
  EXPECT_TRUE(r.exhausted);
  EXPECT_TRUE(r.bound_cut);  // bound 0 leaves every preempting schedule out
  EXPECT_TRUE(r.findings.empty());
  EXPECT_GT(r.executions, 1u);
  // Each schedule the walk runs is another: a trace of its own each.
  EXPECT_EQ(r.distinct_traces, r.executions);
  EXPECT_EQ(r.fault_plans, 1u);
}

TEST(ExploreProgramTest, FindsShrinksSavesAndReplaysTheExitTimeHang) {
  ProgramSpec spec = SpecFor("abort_while_mapping", {"alloc", "2", "0", "4"});
  spec.faults = ProgramSpec::Faults::kPlan;
  spec.plan = *program::ParseFaults("abort@launch:1");
  spec.max_executions = 100;
  spec.shrink_executions = 40;
  const ProgramReport r = ExploreProgram(spec);
  ASSERT_TRUE(r.status.ok()) << r.status << "\n" << r.output;
  // One finding per bug: the trap's fatal exit destroys the stacks lock it
  // holds (mutex-discipline) and, with another thread inside the device
  // lock, hangs (no-deadlock).
  const ProgramFinding* hang = nullptr;
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      EXPECT_FALSE(SameBug(r.findings[i].finding.violation, r.findings[k].finding.violation));
    }
    if (r.findings[i].finding.violation.property == "no-deadlock") hang = &r.findings[i];
  }
  ASSERT_NE(hang, nullptr) << r.findings.size() << " findings, no deadlock";
  const ProgramFinding& f = *hang;
  EXPECT_FALSE(f.finding.violation.fingerprint.empty());
  EXPECT_FALSE(f.finding.violation.waits.empty());
  EXPECT_LE(f.shrunk.report.preemptions, f.found.report.preemptions);
  EXPECT_EQ(f.replay_check, "replayed: same trace digest");
  EXPECT_TRUE(absl::StartsWith(f.finding.token, "exec1:")) << f.finding.token;
  EXPECT_EQ(f.finding.schedule, f.replay.schedule);
  EXPECT_FALSE(f.replay_file.empty()) << f.replay_file_error;

  ProgramReplaySpec replay;
  replay.libcuda = spec.libcuda;
  replay.path_or_token = f.finding.token;
  replay.program = spec.program;
  replay.chrome_trace = true;
  absl::StatusOr<ProgramReplayReport> again = ReplayProgram(replay);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->same_digest);
  EXPECT_TRUE(again->recurred);
  EXPECT_TRUE(SameBug(ViolationOf(again->outcome), f.finding.violation));
  EXPECT_FALSE(again->steering.empty());
  EXPECT_TRUE(absl::StartsWith(again->outcome.report.chrome_trace, "{\"traceEvents\":["));

  // The replay file replays as the token does.
  replay.path_or_token = f.replay_file;
  replay.chrome_trace = false;
  again = ReplayProgram(replay);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->same_digest && again->recurred);
  EXPECT_TRUE(again->outcome.report.chrome_trace.empty());

  // A token runs only the program it recorded.
  replay.program = Runfile("tests/programs/threads_regions");
  EXPECT_TRUE(absl::IsInvalidArgument(ReplayProgram(replay).status()));
  replay.program = "";
  EXPECT_TRUE(absl::IsInvalidArgument(ReplayProgram(replay).status()));
}

TEST(ExploreProgramTest, RefusesABadSpec) {
  ProgramSpec spec = SpecFor("threads_regions", {});
  spec.strategy = "bfs";
  EXPECT_TRUE(absl::IsInvalidArgument(ExploreProgram(spec).status));
  spec = SpecFor("threads_regions", {});
  spec.max_faults = 5;
  EXPECT_TRUE(absl::IsInvalidArgument(ExploreProgram(spec).status));
  spec = SpecFor("no_such_program", {});
  EXPECT_FALSE(ExploreProgram(spec).status.ok());
  EXPECT_TRUE(absl::IsNotFound(ResolveProgram("/nonexistent/program").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ResolveProgram("/tmp").status()));
}

}  // namespace
}  // namespace stackcheck::properties
