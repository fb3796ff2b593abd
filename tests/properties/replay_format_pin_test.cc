// The replay formats do not drift: every corpus file formats back to itself,
// and the records below format and encode to exactly the file and token pinned
// beside them. Replay files and tokens already handed out must keep meaning
// what they meant, so a change here is a format change (kReplayFormatVersion).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/scenario.h"
#include "core/version.h"
#include "gtest/gtest.h"
#include "properties/replay_file.h"

namespace stackcheck::properties {
namespace {

constexpr char kCorpusDir[] = "tests/corpus";

// The goldens were written by this tool version; the version field is
// rewritten to kVersion, so that a version bump does not invalidate them.
constexpr absl::string_view kGoldenVersion = "0.2.0";

std::string FileForThisVersion(absl::string_view golden) {
  return absl::StrReplaceAll(golden, {{absl::StrCat("\ntool ", kGoldenVersion, "\n"),
                                       absl::StrCat("\ntool ", kVersion, "\n")}});
}

// A token starts with the format version and the tool version (a length and
// its bytes).
std::string TokenForThisVersion(absl::string_view golden, int format) {
  std::string bytes;
  EXPECT_TRUE(absl::WebSafeBase64Unescape(golden.substr(kReplayTokenPrefix.size()), &bytes));
  const std::string old_head = absl::StrCat(std::string(1, static_cast<char>(format)),
                                            std::string(1, kGoldenVersion.size()), kGoldenVersion);
  EXPECT_EQ(bytes.substr(0, old_head.size()), old_head) << "not a golden token";
  const std::string version = kVersion;
  bytes.replace(0, old_head.size(),
                absl::StrCat(std::string(1, static_cast<char>(format)),
                             std::string(1, static_cast<char>(version.size())), version));
  return absl::StrCat(kReplayTokenPrefix, absl::WebSafeBase64Escape(bytes));
}

bool Same(const ReplayRecord& a, const ReplayRecord& b) {
  return a.tool_version == b.tool_version && a.policy == b.policy && a.property == b.property &&
         a.test_case == b.test_case && a.digest == b.digest;
}

std::string WithoutComments(absl::string_view text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "#")) continue;
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

TEST(ReplayFormatPin, EveryCorpusFileFormatsBackToItself) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    if (entry.path().extension() != ".replay") continue;
    SCOPED_TRACE(entry.path().string());
    ++files;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<ReplayRecord> r = ParseReplayFile(text.str());
    ASSERT_TRUE(r.ok()) << r.status();
    const std::string formatted = FormatReplayFile(*r);
    EXPECT_EQ(WithoutComments(formatted), WithoutComments(text.str()));
    absl::StatusOr<ReplayRecord> again = DecodeReplayToken(EncodeReplayToken(*r));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE(Same(*again, *r));
  }
  EXPECT_GE(files, 10) << "the corpus is missing";
}

// Records that between them set every field of every part to a value other
// than its default, and use every kind of host operation.
ReplayRecord EveryField() {
  ReplayRecord r;
  r.tool_version = kVersion;
  r.policy = "v3-trunk";
  r.property = "no-leak";
  Case& c = r.test_case;
  c.modes.free_waits_for_streams = false;
  c.modes.serial_callback_thread = false;
  c.modes.trap_code = CuResult::kIllegalAddress;
  c.modes.alloc_granularity = 2 * kMiB;
  c.modes.step_bound = 99999;
  Scenario& s = c.scenario;
  s.device_capacity = std::uint64_t{1} << 40;
  s.soft_limit = 12345;
  s.close_at_end = false;
  s.shipped_target = true;
  s.faults.alloc_failure_at_call = 3;
  s.faults.launch_failure_at_call = 70000;
  s.faults.device_constructors = true;
  s.faults.device_destructors = true;
  s.threads.resize(2);
  RegionSpec g;
  g.id = 7;
  g.teams = 3;
  g.warps = 2;
  g.stack_size_per_warp = 4096;
  g.duration_ns = 123456789;
  g.aborts = true;
  g.mapped_vars = 5;
  s.threads[0].ops = {HostOp::Run(g),           HostOp::DeviceAlloc(300000, 2),
                      HostOp::EnterData(64, 1), HostOp::Update(1),
                      HostOp::ExitData(1),      HostOp::DeviceFree(2)};
  s.threads[1].ops = {HostOp::Run(9, 1, 32, true), HostOp::EnterData(1, 4000000000u)};
  c.schedule = {0, 1, 200, 3, std::uint64_t{1} << 40};
  r.digest = 0xfedcba9876543210ull;
  return r;
}

// One thread, one region, everything else at its default; no digest.
ReplayRecord Smallest() {
  ReplayRecord r;
  r.tool_version = kVersion;
  r.policy = "v0-nocache";
  r.property = "no-deadlock";
  r.test_case.scenario.threads.resize(1);
  r.test_case.scenario.threads[0].ops = {HostOp::Run(1, 1, 1)};
  return r;
}

// Values at the largest each bound allows, and threads without operations.
ReplayRecord AtTheBounds() {
  ReplayRecord r;
  r.tool_version = kVersion;
  r.policy = "v1a-callback-unlock";
  r.property = "bounded-cache";
  Case& c = r.test_case;
  c.modes.trap_code = CuResult::kAssert;
  c.modes.alloc_granularity = std::uint64_t{1} << 44;
  c.modes.step_bound = 100'000'000;
  Scenario& s = c.scenario;
  s.device_capacity = std::uint64_t{1} << 44;
  s.soft_limit = std::uint64_t{1} << 44;
  s.faults.alloc_failure_at_call = 0xffffffffu;
  s.faults.launch_failure_at_call = 0xffffffffu;
  s.threads.resize(4);
  RegionSpec g;
  g.id = 0xffffffffu;
  g.teams = 128;
  g.warps = 32;
  g.stack_size_per_warp = (std::uint64_t{1} << 44) / 4096;
  g.duration_ns = 1'000'000'000'000;
  g.mapped_vars = 64;
  s.threads[2].ops = {HostOp::Run(g), HostOp::DeviceAlloc(std::uint64_t{1} << 44, 0xffffffffu),
                      HostOp::EnterData(0xffffffffffffffffull, 0)};
  c.schedule = {0xffffffffffffffffull, 0};
  r.digest = 0;
  return r;
}

// Format version 2, as written by the codecs before version 3 added
// shipped_target: the records above, then cases drawn by
// CaseForSeed(GenCase(), seed, size) (stored as their files, so that a change
// to the generators does not move them). Handed out, they must still read as
// the records they were.
struct Golden {
  const char* name;
  ReplayRecord (*record)();  // null: the record is the file's
  const char* file;
  const char* token;
};

const Golden kGoldens[] = {
    {"EveryField", &EveryField,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v3-trunk
property no-leak
modes free_waits_for_streams=0 serial_callback_thread=0 trap_code=700 alloc_granularity=2097152 step_bound=99999
device capacity=1099511627776 soft_limit=12345 close_at_end=0
faults alloc_failure_at_call=3 launch_failure_at_call=70000 device_constructors=1 device_destructors=1
thread
run id=7 teams=3 warps=2 stack_size_per_warp=4096 duration_ns=123456789 aborts=1 mapped_vars=5
alloc slot=2 bytes=300000
enter slot=1 bytes=64
update slot=1
exit slot=1
free slot=2
thread
run id=9 teams=1 warps=32 stack_size_per_warp=131072 duration_ns=1000 aborts=1 mapped_vars=0
enter slot=4000000000 bytes=1
schedule 0 1 200 3 1099511627776
digest fedcba9876543210
end
)",
     "sc1."
     "AgUwLjIuMAh2My10cnVuawduby1sZWFrAAC8BYCAgAGfjQaAgICAgCC5YAAD8KIEAQECBgAHAwKAIJWa7zoBBQEC4KcSA"
     "wFABQEEAQICAgAJASCAgAjoBwEAA4DQrPMOAQUAAcgBA4CAgICAIAGQ5NCyh9Ou7v4B"},
    {"Smallest", &Smallest,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v0-nocache
property no-deadlock
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=1073741824 soft_limit=134217728 close_at_end=1
faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=0 device_destructors=0
thread
run id=1 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
schedule
end
)",
     "sc1."
     "AgUwLjIuMAp2MC1ub2NhY2hlC25vLWRlYWRsb2NrAQHPBYCABKCcAYCAgIAEgICAQAEAAAAAAQEAAQEBgIAI6AcAAAA"
     "A"},
    {"AtTheBounds", &AtTheBounds,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v1a-callback-unlock
property bounded-cache
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=710 alloc_granularity=17592186044416 step_bound=100000000
device capacity=17592186044416 soft_limit=17592186044416 close_at_end=1
faults alloc_failure_at_call=4294967295 launch_failure_at_call=4294967295 device_constructors=0 device_destructors=0
thread
thread
thread
run id=4294967295 teams=128 warps=32 stack_size_per_warp=4294967296 duration_ns=1000000000000 aborts=0 mapped_vars=64
alloc slot=4294967295 bytes=17592186044416
enter slot=0 bytes=18446744073709551615
thread
schedule 18446744073709551615 0
digest 0000000000000000
end
)",
     "sc1.AgUwLjIuMBN2MWEtY2FsbGJhY2stdW5sb2NrDWJvdW5kZWQtY2FjaGUBAcYFgICAgICABIDC1y-"
     "AgICAgIAEgICAgICABAH_____D_____8PAAAEAAADAP____8PgAEggICAgBCAoJSljR0AQAH_____D4CAgICAgAQDAP__"
     "_________wEAAv___________wEAAQA"},
    {"GenCase seed 1000 size 5", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=0 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=2228224 soft_limit=131072 close_at_end=1
faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=0 device_destructors=1
thread
enter slot=2 bytes=64
update slot=3
thread
run id=1 teams=1 warps=4 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
thread
alloc slot=0 bytes=131072
free slot=0
thread
enter slot=3 bytes=64
schedule 0 1 0 0 1 0 3 7 0 0 0 0 0 7 1 0 0 5 0 0 2 3 0 0 3 0 0 0 0 0 1 0 0 0 6 0 0 0 0 0 2 0 0 0 0 4 7
digest 9e3779b97f4a7c15
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEAzwWAgASgnAGAgIgBgIAIAQAAAAEEAgMCQAUDAQABAQSAg"
     "AjoBwAAAgEAgIAIAgABAwNALwABAAABAAMHAAAAAAAHAQAABQAAAgMAAAMAAAAAAAEAAAAGAAAAAAACAAAAAAQHAZX4qf"
     "qXt96bngE"},
    {"GenCase seed 1001 size 20", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=2490368 soft_limit=262144 close_at_end=1
faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=1 device_destructors=0
thread
free slot=1
run id=1 teams=2 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=1 mapped_vars=2
alloc slot=0 bytes=524288
run id=2 teams=4 warps=1 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=1
thread
run id=3 teams=4 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=0
run id=4 teams=3 warps=1 stack_size_per_warp=131072 duration_ns=20000 aborts=0 mapped_vars=2
thread
run id=5 teams=2 warps=2 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=2
run id=6 teams=1 warps=4 stack_size_per_warp=131072 duration_ns=100000 aborts=1 mapped_vars=0
run id=7 teams=4 warps=3 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
alloc slot=1 bytes=786432
run id=8 teams=2 warps=3 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=0
thread
run id=9 teams=3 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=1 mapped_vars=1
schedule 0 4 0 0 0 0 0 0 0 0 0 0 5 0 0 6 0 0 0 0 0 7 2 0 0 0 7 6 1 0 0 0 0 0 0 0 0 0 0
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEBzwWAgASgnAGAgJgBgIAQAQAAAQAEBAIBAAECAYCACOgHA"
     "QIBAICAIAACBAGAgAigjQYAAQIAAwQDgIAIoI0GAAAABAMBgIAIoJwBAAIFAAUCAoCACOgHAAIABgEEgIAIoI0GAQAABw"
     "QDgIAI6AcAAAEBgIAwAAgCA4CACIgnAAABAAkDA4CACKCNBgEBJwAEAAAAAAAAAAAAAAUAAAYAAAAAAAcCAAAABwYBAAA"
     "AAAAAAAAAAAA"},
    {"GenCase seed 1002 size 50", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=0 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=3538944 soft_limit=655360 close_at_end=1
faults alloc_failure_at_call=1 launch_failure_at_call=0 device_constructors=0 device_destructors=1
thread
run id=1 teams=3 warps=2 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=0
run id=2 teams=4 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
thread
enter slot=3 bytes=64
run id=3 teams=4 warps=1 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=2
thread
run id=4 teams=4 warps=4 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
enter slot=2 bytes=64
run id=5 teams=2 warps=4 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
run id=6 teams=4 warps=3 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=1
thread
update slot=2
enter slot=2 bytes=64
exit slot=2
enter slot=2 bytes=64
schedule 0 0 5 0 0 0 4 0 5 2 0 1 0 2 0 5 6 0 0 0 0 0 0 0 0 0 1 3 0 5 0 0 0 0 0 0 5 7 0
digest daa66d2c7ddf743f
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEAzwWAgASgnAGAgNgBgIAoAQEAAAEEAgABAwKAgAiIJwAAA"
     "AIEAYCACOgHAAACAwNAAAMEAYCACIgnAAIEAAQEBICACOgHAAADAkAABQIEgIAI6AcAAAAGBAOAgAiIJwABBAUCAwJABA"
     "IDAkAnAAAFAAAABAAFAgABAAIABQYAAAAAAAAAAAABAwAFAAAAAAAABQcAAb_o_e7HpZvT2gE"},
    {"GenCase seed 1003 size 100", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=2621440 soft_limit=393216 close_at_end=1
faults alloc_failure_at_call=2 launch_failure_at_call=0 device_constructors=0 device_destructors=0
thread
run id=1 teams=2 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=1
run id=2 teams=4 warps=4 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=2
run id=3 teams=1 warps=4 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=2
thread
enter slot=3 bytes=64
schedule 3 0 0 4 0 0 1 0 0 7 0 7 0 6 0 5 0 0 0 0 0 0 6 0 2 0
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEBzwWAgASgnAGAgKABgIAYAQIAAAACAwABAgOAgAigjQYAA"
     "QACBASAgAjoBwACAAMBBICACKCNBgACAQMDQBoDAAAEAAABAAAHAAcABgAFAAAAAAAABgACAAA"},
    {"GenCase seed 1004 size 100", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=4063232 soft_limit=131072 close_at_end=1
faults alloc_failure_at_call=0 launch_failure_at_call=4 device_constructors=0 device_destructors=0
thread
run id=1 teams=4 warps=4 stack_size_per_warp=131072 duration_ns=20000 aborts=0 mapped_vars=0
run id=2 teams=1 warps=2 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=1
run id=3 teams=4 warps=2 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=2
run id=4 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=0
enter slot=3 bytes=64
thread
run id=5 teams=2 warps=3 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
run id=6 teams=4 warps=2 stack_size_per_warp=131072 duration_ns=5000 aborts=1 mapped_vars=2
exit slot=3
run id=7 teams=2 warps=3 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=2
run id=8 teams=3 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=2
thread
alloc slot=1 bytes=917504
run id=9 teams=1 warps=2 stack_size_per_warp=131072 duration_ns=5000 aborts=0 mapped_vars=0
run id=10 teams=1 warps=2 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=2
thread
alloc slot=1 bytes=917504
exit slot=3
update slot=2
run id=11 teams=4 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=1 mapped_vars=0
schedule 0 5 0 5 0 0 0 6 0 0 3 0 0 0 3 0 4 0 0 0 0 0 0 0 0 0 0 3 0 0 5 0 0 0 0 0 0 0 0 0 0 2 0 0 0 0
digest 1715609f7c746c69
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEBzwWAgASgnAGAgPgBgIAIAQAEAAAEBQABBASAgAignAEAA"
     "AACAQKAgAigjQYAAQADBAKAgAjoBwACAAQBAYCACIgnAAADA0AFAAUCA4CACOgHAAAABgQCgIAIiCcBAgQDAAcCA4CACO"
     "gHAAIACAMDgIAIoI0GAAIDAQGAgDgACQECgIAIiCcAAAAKAQKAgAjoBwACBAEBgIA4BAMFAgALBAOAgAigjQYBAC4ABQA"
     "FAAAABgAAAwAAAAMABAAAAAAAAAAAAAADAAAFAAAAAAAAAAAAAAIAAAAAAenY0eP3k9iKFw"},
    {"GenCase seed 1005 size 100", nullptr,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 2
tool 0.2.0
policy v2-gcc11
property no-use-after-free
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=2621440 soft_limit=393216 close_at_end=1
faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=1 device_destructors=0
thread
run id=1 teams=2 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=1
run id=2 teams=2 warps=2 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=0
run id=3 teams=3 warps=1 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=2
thread
update slot=2
run id=4 teams=4 warps=4 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=1
exit slot=3
enter slot=3 bytes=64
run id=5 teams=2 warps=3 stack_size_per_warp=131072 duration_ns=100000 aborts=1 mapped_vars=1
schedule 2 0 0 0 0 0 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 1
end
)",
     "sc1."
     "AgUwLjIuMAh2Mi1nY2MxMRFuby11c2UtYWZ0ZXItZnJlZQEBzwWAgASgnAGAgKABgIAYAQAAAQACAwABAgGAgAjoBwABA"
     "AICAoCACKCNBgAAAAMDAYCACKCNBgACBQUCAAQEBICACKCNBgABBAMDA0AABQIDgIAIoI0GAQEZAgAAAAAAAgAAAAAAAA"
     "AAAAAAAAAAAQAAAQA"},
};

// The version 2 text of a record as version 3 writes it: the new header and
// the field version 3 added, at its default.
std::string AsVersion3(absl::string_view v2_file) {
  return absl::StrReplaceAll(v2_file,
                             {{"\nstackcheck-replay 2\n", "\nstackcheck-replay 3\n"},
                              {" close_at_end=0\n", " close_at_end=0 shipped_target=0\n"},
                              {" close_at_end=1\n", " close_at_end=1 shipped_target=0\n"}});
}

TEST(ReplayFormatPin, Version2GoldensReadAsTheRecordsTheyWere) {
  ASSERT_GE(std::size(kGoldens), 8u);
  for (const Golden& g : kGoldens) {
    SCOPED_TRACE(g.name);
    const std::string file = FileForThisVersion(g.file);
    absl::StatusOr<ReplayRecord> parsed = ParseReplayFile(file);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<ReplayRecord> decoded = DecodeReplayToken(TokenForThisVersion(g.token, 2));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(Same(*decoded, *parsed));
    EXPECT_FALSE(parsed->test_case.scenario.shipped_target);
    if (g.record != nullptr) {
      ReplayRecord built = g.record();
      built.test_case.scenario.shipped_target = false;  // not in version 2
      EXPECT_TRUE(Same(*parsed, built));
    }
    EXPECT_EQ(FormatReplayFile(*parsed), AsVersion3(file));
  }
}

// Version 3, the format written now: the records above, every field of
// EveryField() off its default, shipped_target included.
const Golden kVersion3Goldens[] = {
    {"EveryField", &EveryField,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 3
tool 0.2.0
policy v3-trunk
property no-leak
modes free_waits_for_streams=0 serial_callback_thread=0 trap_code=700 alloc_granularity=2097152 step_bound=99999
device capacity=1099511627776 soft_limit=12345 close_at_end=0 shipped_target=1
faults alloc_failure_at_call=3 launch_failure_at_call=70000 device_constructors=1 device_destructors=1
thread
run id=7 teams=3 warps=2 stack_size_per_warp=4096 duration_ns=123456789 aborts=1 mapped_vars=5
alloc slot=2 bytes=300000
enter slot=1 bytes=64
update slot=1
exit slot=1
free slot=2
thread
run id=9 teams=1 warps=32 stack_size_per_warp=131072 duration_ns=1000 aborts=1 mapped_vars=0
enter slot=4000000000 bytes=1
schedule 0 1 200 3 1099511627776
digest fedcba9876543210
end
)",
     "sc1."
     "AwUwLjIuMAh2My10cnVuawduby1sZWFrAAC8BYCAgAGfjQaAgICAgCC5YAABA_CiBAEBAgYABwMCgCCVmu86AQUBAu"
     "CnEgMBQAUBBAECAgIACQEggIAI6AcBAAOA0KzzDgEFAAHIAQOAgICAgCABkOTQsofTru7-AQ"},
    {"Smallest", &Smallest,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 3
tool 0.2.0
policy v0-nocache
property no-deadlock
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=1073741824 soft_limit=134217728 close_at_end=1 shipped_target=0
faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=0 device_destructors=0
thread
run id=1 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
schedule
end
)",
     "sc1."
     "AwUwLjIuMAp2MC1ub2NhY2hlC25vLWRlYWRsb2NrAQHPBYCABKCcAYCAgIAEgICAQAEAAAAAAAEBAAEBAYCACOgHAA"
     "AAAA"},
    {"AtTheBounds", &AtTheBounds,
     R"(# stackcheck replay file: `stackcheck replay FILE` re-executes it.
stackcheck-replay 3
tool 0.2.0
policy v1a-callback-unlock
property bounded-cache
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=710 alloc_granularity=17592186044416 step_bound=100000000
device capacity=17592186044416 soft_limit=17592186044416 close_at_end=1 shipped_target=0
faults alloc_failure_at_call=4294967295 launch_failure_at_call=4294967295 device_constructors=0 device_destructors=0
thread
thread
thread
run id=4294967295 teams=128 warps=32 stack_size_per_warp=4294967296 duration_ns=1000000000000 aborts=0 mapped_vars=64
alloc slot=4294967295 bytes=17592186044416
enter slot=0 bytes=18446744073709551615
thread
schedule 18446744073709551615 0
digest 0000000000000000
end
)",
     "sc1."
     "AwUwLjIuMBN2MWEtY2FsbGJhY2stdW5sb2NrDWJvdW5kZWQtY2FjaGUBAcYFgICAgICABIDC1y-AgICAgIAEgICAgI"
     "CABAEA_____w______DwAABAAAAwD_____D4ABIICAgIAQgKCUpY0dAEAB_____w-AgICAgIAEAwD___________8B"
     "AAL___________8BAAEA"},
};

TEST(ReplayFormatPin, GoldensFormatParseEncodeAndDecodeExactly) {
  for (const Golden& g : kVersion3Goldens) {
    SCOPED_TRACE(g.name);
    const std::string file = FileForThisVersion(g.file);
    const ReplayRecord built = g.record();
    const std::string token = TokenForThisVersion(g.token, 3);
    absl::StatusOr<ReplayRecord> parsed = ParseReplayFile(file);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(Same(*parsed, built));
    EXPECT_EQ(FormatReplayFile(built), file);
    EXPECT_EQ(EncodeReplayToken(built), token);
    EXPECT_EQ(FormatReplayFile(*parsed), file);
    EXPECT_EQ(EncodeReplayToken(*parsed), token);
    absl::StatusOr<ReplayRecord> decoded = DecodeReplayToken(token);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(Same(*decoded, *parsed));
  }
}

// Error messages name the line, the field and the bound; scripts and users
// match on them, so they are pinned whole.
TEST(ReplayFormatPin, FieldErrorsAreExact) {
  const std::string good = FormatReplayFile(Smallest());
  ASSERT_TRUE(ParseReplayFile(good).ok());
  const std::string run =
      "run id=1 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 "
      "aborts=0 mapped_vars=0\n";
  const struct {
    std::string from, to, message;
  } kEdits[] = {
      {"trap_code=719", "trap_code=4294967296",
       "line 6: field 'trap_code': 4294967296 is out of range"},
      {"trap_code=719", "trap_code=70000",
       "line 6: trap_code 70000 is not a sticky error (700, 710 or 719)"},
      {"free_waits_for_streams=1", "free_waits_for_streams=2",
       "line 6: field 'free_waits_for_streams': expected 0 or 1, got 2"},
      {"alloc_granularity=65536", "alloc_granularity=0",
       "line 6: alloc_granularity must be 1..17592186044416"},
      {"step_bound=20000", "step_bound=100000001", "line 6: step_bound must be 1..100000000"},
      {"step_bound=20000", "step_bound=x",
       "line 6: field 'step_bound': expected an unsigned integer, got 'x'"},
      {" step_bound=20000", "", "line 6: missing field 'step_bound'"},
      {"capacity=1073741824", "capacity=0", "line 7: device capacity must be 1..17592186044416"},
      {"soft_limit=134217728", "soft_limit=17592186044417",
       "line 7: soft_limit must be at most 17592186044416"},
      {"close_at_end=1", "close_at_end=2", "line 7: field 'close_at_end': expected 0 or 1, got 2"},
      {"close_at_end=1", "close_at_end=1 colour=blue", "line 7: unknown field 'colour'"},
      {"alloc_failure_at_call=0", "alloc_failure_at_call=4294967296",
       "line 8: field 'alloc_failure_at_call': 4294967296 is out of range"},
      {"device_destructors=0", "device_destructors=2",
       "line 8: field 'device_destructors': expected 0 or 1, got 2"},
      {"device_destructors=0", "device_destructors=0 device_destructors=0",
       "line 8: field 'device_destructors' given twice"},
      {"duration_ns=1000", "duration_ns=1000000000001", "line 10: region 1: duration too long"},
      {"mapped_vars=0", "mapped_vars=65", "line 10: region 1: mapped_vars must be 0..64"},
      {"mapped_vars=0", "mapped_vars=4294967296",
       "line 10: field 'mapped_vars': 4294967296 is out of range"},
      {"aborts=0", "aborts", "line 10: expected key=value, got 'aborts'"},
      {"warps=1", "warps=33",
       "line 10: region 1: geometry 1x33 outside 1..32 warps per team, "
       "4096 slots"},
      {run, run + "alloc slot=0 bytes=0\n",
       "line 11: thread 0: alloc of 0 bytes (1..17592186044416)"},
      {run, run + "alloc slot=0 bytes=17592186044417\n",
       "line 11: thread 0: alloc of 17592186044417 bytes (1..17592186044416)"},
      {run, run + "enter slot=4294967296 bytes=1\n",
       "line 11: field 'slot': 4294967296 is out of range"},
      {run, run + "free slot=1 bytes=2\n", "line 11: unknown field 'bytes'"},
      {run, run + "update\n", "line 11: missing field 'slot'"},
      {run, run + "exit slot=-1\n",
       "line 11: field 'slot': expected an unsigned integer, got '-1'"},
      {run, run + "run id=2\n", "line 11: missing field 'teams'"},
      {run,
       run + "run id=1 teams=1 warps=1 stack_size_per_warp=1 duration_ns=1 aborts=0 "
             "mapped_vars=0\n",
       "line 11: region id 1: ids must be >= 1 and unique"},
  };
  for (const auto& e : kEdits) {
    const std::string text = absl::StrReplaceAll(good, {{e.from, e.to}});
    ASSERT_NE(text, good) << e.from;
    absl::StatusOr<ReplayRecord> r = ParseReplayFile(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), e.message) << text;
  }
}

TEST(ReplayFormatPin, TokenErrorsAreExact) {
  const struct {
    void (*edit)(Case&);
    const char* message;
  } kEdits[] = {
      {[](Case& c) { c.modes.trap_code = static_cast<CuResult>(0x10000); },
       "replay token: bad or truncated modes"},
      {[](Case& c) { c.modes.trap_code = static_cast<CuResult>(70); },
       "replay token: trap_code 70 is not a sticky error (700, 710 or 719)"},
      {[](Case& c) { c.modes.step_bound = 0; }, "replay token: step_bound must be 1..100000000"},
      {[](Case& c) { c.scenario.device_capacity = 0; },
       "replay token: device capacity must be 1..17592186044416"},
      {[](Case& c) { c.scenario.threads[0].ops[0].region.mapped_vars = 65; },
       "replay token: bad or truncated op"},
      {[](Case& c) { c.scenario.threads[0].ops[0].region.duration_ns = 1'000'000'000'001; },
       "replay token: region 1: duration too long"},
      {[](Case& c) { c.scenario.threads[0].ops.push_back(HostOp::DeviceAlloc(0, 1)); },
       "replay token: thread 0: alloc of 0 bytes (1..17592186044416)"},
      {[](Case& c) { c.scenario.threads.resize(5); },
       "replay token: bad or truncated thread count"},
  };
  for (const auto& e : kEdits) {
    ReplayRecord record = Smallest();
    e.edit(record.test_case);
    absl::StatusOr<ReplayRecord> r = DecodeReplayToken(EncodeReplayToken(record));
    ASSERT_FALSE(r.ok()) << e.message;
    EXPECT_EQ(r.status().message(), e.message);
  }
}

}  // namespace
}  // namespace stackcheck::properties
