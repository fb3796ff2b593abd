// Replay files and tokens: every generated case round-trips exactly, and every
// kind of bad input is an error that names what is wrong.
#include "properties/replay_file.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "core/version.h"
#include "gtest/gtest.h"
#include "properties/generators.h"
#include "rapidcheck/gtest.h"

namespace stackcheck::properties {
namespace {

ReplayRecord Record(Case c) {
  ReplayRecord r;
  r.tool_version = kVersion;
  r.policy = "v1b-callback-lock";
  r.property = "no-deadlock";
  r.test_case = std::move(c);
  r.digest = 0x0123456789abcdefull;
  return r;
}

RC_GTEST_PROP(ReplayFile, FileRoundTripsEveryCase, ()) {
  const ReplayRecord r = Record(*GenCase());
  absl::StatusOr<ReplayRecord> back = ParseReplayFile(FormatReplayFile(r));
  RC_ASSERT(back.ok());
  RC_ASSERT(back->test_case == r.test_case);
  RC_ASSERT(back->policy == r.policy);
  RC_ASSERT(back->property == r.property);
  RC_ASSERT(back->digest == r.digest);
}

RC_GTEST_PROP(ReplayFile, TokenRoundTripsEveryCase, ()) {
  ReplayRecord r = Record(*GenCase());
  if (*rc::gen::arbitrary<bool>()) r.digest.reset();
  const std::string token = EncodeReplayToken(r);
  RC_ASSERT(token.find_first_of(" \n\t") == std::string::npos);
  absl::StatusOr<ReplayRecord> back = DecodeReplayToken(token);
  RC_ASSERT(back.ok());
  RC_ASSERT(back->test_case == r.test_case);
  RC_ASSERT(back->digest == r.digest);
  RC_ASSERT(back->property == r.property);
}

// A small valid file to break in the tests below.
std::string GoodFile() {
  Case c;
  c.scenario.threads.resize(1);
  HostOp run;
  run.kind = HostOp::Kind::kRun;
  run.region.id = 1;
  c.scenario.threads[0].ops.push_back(run);
  c.schedule = {0, 1};
  return FormatReplayFile(Record(c));
}

// Parses `text` and expects an error whose message contains `needle`.
void ExpectError(const std::string& text, absl::string_view needle) {
  absl::StatusOr<ReplayRecord> r = ParseReplayFile(text);
  ASSERT_FALSE(r.ok()) << "accepted:\n" << text;
  EXPECT_NE(r.status().message().find(std::string(needle)), absl::string_view::npos)
      << "message: " << r.status().message();
}

TEST(ReplayFile, GoodFileParses) { ASSERT_TRUE(ParseReplayFile(GoodFile()).ok()); }

TEST(ReplayFile, AFingerprintIsTheRestOfItsLine) {
  absl::StatusOr<ReplayRecord> r = ParseReplayFile(GoodFile());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fingerprint, "");
  r->fingerprint =
      "no-deadlock: cycle [host thread waits for mutex 'a b' held by host thread]; fault none";
  const std::string text = FormatReplayFile(*r);
  absl::StatusOr<ReplayRecord> back = ParseReplayFile(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->fingerprint, r->fingerprint);
  EXPECT_EQ(FormatReplayFile(*back), text);
  std::string bare = text;
  bare.replace(bare.find("fingerprint "), r->fingerprint.size() + 12, "fingerprint");
  EXPECT_FALSE(ParseReplayFile(bare).ok());
}

TEST(ReplayFile, RejectsOtherFormatVersion) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"stackcheck-replay 3", "stackcheck-replay 1"}}),
              "version '1' is not supported (this tool reads 2 to 3)");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"stackcheck-replay 3", "stackcheck-replay 4"}}),
              "version '4' is not supported");
}

// Format 3 added shipped_target: a format 2 file has no such field and reads
// it as its default; a format 3 file must give it, as every other field.
TEST(ReplayFile, AFieldAddedLaterIsOptionalOnlyInEarlierVersions) {
  const std::string v3 = GoodFile();
  ASSERT_NE(v3.find(" shipped_target=0"), std::string::npos);
  const std::string without = absl::StrReplaceAll(v3, {{" shipped_target=0", ""}});
  ExpectError(without, "missing field 'shipped_target'");
  absl::StatusOr<ReplayRecord> v2 = ParseReplayFile(
      absl::StrReplaceAll(without, {{"stackcheck-replay 3", "stackcheck-replay 2"}}));
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_FALSE(v2->test_case.scenario.shipped_target);
  // Formatted again, it is a format 3 file.
  EXPECT_EQ(FormatReplayFile(*v2), v3);
}

TEST(ReplayFile, RejectsOtherToolVersion) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{std::string("tool ") + kVersion, "tool 9.9.9"}}),
              "written by stackcheck 9.9.9");
}

TEST(ReplayFile, RejectsSomethingElse) {
  ExpectError("hello world\n", "line 1: not a stackcheck replay file");
  ExpectError("", "empty file");
}

TEST(ReplayFile, RejectsTruncatedFile) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"end\n", ""}}), "truncated");
}

TEST(ReplayFile, NamesLineAndField) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"teams=1", "teams=lots"}}),
              "field 'teams': expected an unsigned integer, got 'lots'");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"teams=1 ", ""}}), "missing field 'teams'");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"aborts=0", "aborts=0 colour=blue"}}),
              "unknown field 'colour'");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"aborts=0", "aborts=2"}}),
              "field 'aborts': expected 0 or 1");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"schedule 0 1", "schedule 0 x"}}),
              "schedule: expected an unsigned integer, got 'x'");
  // The line number is the file's, comments included.
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"policy ", "polcy "}}), "line 4: unknown keyword");
}

TEST(ReplayFile, RejectsStructuralMistakes) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"thread\n", ""}}), "'run' before any 'thread'");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"policy ", "policy a\npolicy "}}),
              "'policy' given twice");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"property no-deadlock\n", ""}}),
              "missing 'property' line");
  ExpectError(GoodFile() + "run id=2\n", "text after 'end'");
}

TEST(ReplayFile, RejectsBadValues) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"property no-deadlock", "property no-bugs"}}),
              "unknown property 'no-bugs'");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"id=1", "id=0"}}), "ids must be >= 1");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"warps=1", "warps=0"}}), "geometry");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"trap_code=719", "trap_code=2"}}),
              "not a sticky error");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"step_bound=20000", "step_bound=0"}}),
              "step_bound");
  std::string two_regions_same_id =
      absl::StrReplaceAll(GoodFile(), {{"schedule",
                                        "thread\nrun id=1 teams=1 warps=1 stack_size_per_warp=1 "
                                        "duration_ns=1 aborts=0 mapped_vars=0\nschedule"}});
  ExpectError(two_regions_same_id, "unique");
  std::string five_threads = GoodFile();
  for (int i = 0; i < 4; ++i) {
    five_threads = absl::StrReplaceAll(five_threads, {{"schedule", "thread\nschedule"}});
  }
  ExpectError(five_threads, "more than 4 threads");
}

TEST(ReplayFile, ValidationErrorsNameTheLine) {
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"property no-deadlock", "property no-bugs"}}),
              "line 5: unknown property");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"trap_code=719", "trap_code=2"}}),
              "line 6: trap_code 2");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"id=1", "id=0"}}), "line 10: region id 0");
}

TEST(ReplayToken, RejectsAPolicyThatIsNotAName) {
  // A token can carry any bytes; a policy name with a newline would not
  // survive the file format, nor print safely.
  Case c;
  c.scenario.threads.resize(1);
  c.scenario.threads[0].ops.push_back(HostOp::Run(1, 1, 1));
  ReplayRecord record = Record(c);
  record.policy = "v2\nend";
  absl::StatusOr<ReplayRecord> r = DecodeReplayToken(EncodeReplayToken(record));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is not a policy name"), absl::string_view::npos)
      << r.status();
}

TEST(ReplayFile, RejectsByteCountsThatWouldWrap) {
  // 2^60 x 4 x 4 is 2^64: it would wrap to 0.
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"teams=1 warps=1", "teams=4 warps=4"},
                                               {"stack_size_per_warp=131072",
                                                "stack_size_per_warp=1152921504606846976"}}),
              "stack_size_per_warp x teams x warps");
  ExpectError(absl::StrReplaceAll(GoodFile(), {{"capacity=1073741824", "capacity=17592186044417"}}),
              "line 7: device capacity");
}

TEST(ReplayFile, RejectsEscapeSequencesWithoutEchoingThem) {
  absl::StatusOr<ReplayRecord> r =
      ParseReplayFile(absl::StrReplaceAll(GoodFile(), {{"policy ", "\x1b[2J "}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find('\x1b'), absl::string_view::npos) << r.status();
  EXPECT_NE(r.status().message().find("\\033[2J"), absl::string_view::npos) << r.status();
  const std::string huge(1000000, 'k');
  r = ParseReplayFile(absl::StrReplaceAll(GoodFile(), {{"policy ", huge + " "}}));
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 200u) << r.status().message().substr(0, 300);
}

TEST(ReplayToken, RejectsACountItsBytesCannotHold) {
  // An empty schedule and no digest end the token with two zero bytes; a
  // schedule count of kMaxSchedule with nothing after it must be refused
  // before room is made for it.
  Case c;
  c.scenario.threads.resize(1);
  c.scenario.threads[0].ops.push_back(HostOp::Run(1, 1, 1));
  ReplayRecord record = Record(c);
  record.digest.reset();
  std::string token = EncodeReplayToken(record);
  std::string bytes;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(token.substr(kReplayTokenPrefix.size()), &bytes));
  ASSERT_EQ(bytes.substr(bytes.size() - 2), std::string("\0\0", 2));
  bytes.resize(bytes.size() - 2);
  bytes += "\xc0\x84\x3d";  // varint 1,000,000
  absl::StatusOr<ReplayRecord> r =
      DecodeReplayToken(absl::StrCat(kReplayTokenPrefix, absl::WebSafeBase64Escape(bytes)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("schedule"), absl::string_view::npos) << r.status();
  EXPECT_FALSE(
      DecodeReplayToken(absl::StrCat(kReplayTokenPrefix, std::string(kMaxReplayTokenChars, 'A')))
          .ok());
}

TEST(ReplayToken, RejectsGarbage) {
  EXPECT_FALSE(DecodeReplayToken("hello").ok());
  EXPECT_FALSE(DecodeReplayToken("sc1.!!!").ok());
  EXPECT_FALSE(DecodeReplayToken("sc1.").ok());
  absl::StatusOr<ReplayRecord> good = ParseReplayFile(GoodFile());
  ASSERT_TRUE(good.ok());
  const std::string token = EncodeReplayToken(*good);
  // Every truncation is refused, none crashes.
  for (size_t n = std::string(kReplayTokenPrefix).size(); n + 1 < token.size(); ++n) {
    EXPECT_FALSE(DecodeReplayToken(token.substr(0, n)).ok()) << token.substr(0, n);
  }
  EXPECT_TRUE(DecodeReplayToken(token).ok());
}

TEST(ReplayFile, LoadReplayReadsFilesAndTokens) {
  const std::string path =
      std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/x.replay";
  absl::StatusOr<ReplayRecord> good = ParseReplayFile(GoodFile());
  ASSERT_TRUE(good.ok());
  ASSERT_TRUE(WriteReplayFile(path, *good).ok());
  absl::StatusOr<ReplayRecord> from_file = LoadReplay(path);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_TRUE(from_file->test_case == good->test_case);
  absl::StatusOr<ReplayRecord> from_token = LoadReplay(EncodeReplayToken(*good));
  ASSERT_TRUE(from_token.ok());
  EXPECT_TRUE(from_token->test_case == good->test_case);
  absl::StatusOr<ReplayRecord> missing = LoadReplay("/no/such/file.replay");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open"), absl::string_view::npos);
}

// --- scenario files: the case lines alone, fields optional ---

RC_GTEST_PROP(ScenarioFile, RoundTripsEveryCase, ()) {
  Case c = *GenCase();
  c.schedule.clear();
  absl::StatusOr<Case> back = ParseScenarioText(FormatScenarioText(c));
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == c);
}

TEST(ScenarioFile, FieldsLeftOutKeepTheirDefaults) {
  absl::StatusOr<Case> c = ParseScenarioText(
      "# two threads\n"
      "device soft_limit=131072\n"
      "faults alloc_failure_at_call=2\n"
      "thread\n"
      "  run warps=2\n"
      "  alloc\n"
      "thread\n"
      "  run aborts=1 id=1\n");
  ASSERT_TRUE(c.ok()) << c.status();
  const Scenario& s = c->scenario;
  ASSERT_EQ(s.threads.size(), 2u);
  EXPECT_EQ(s.soft_limit, 131072u);
  EXPECT_EQ(s.device_capacity, Scenario{}.device_capacity);
  EXPECT_EQ(s.faults.alloc_failure_at_call, 2u);
  EXPECT_TRUE(c->modes == CaseModes());
  const HostOp& wide = s.threads[0].ops[0];
  EXPECT_EQ(wide.region.id, 2u);  // the smallest id left unused
  EXPECT_EQ(wide.region.warps, 2u);
  EXPECT_EQ(wide.region.teams, 1u);
  EXPECT_EQ(wide.region.stack_size_per_warp, kDefaultStackSizePerWarp);
  EXPECT_EQ(s.threads[0].ops[1].kind, HostOp::Kind::kDeviceAlloc);
  EXPECT_EQ(s.threads[0].ops[1].bytes, kDefaultStackSizePerWarp);
  EXPECT_EQ(s.threads[1].ops[0].region.id, 1u);
  EXPECT_TRUE(s.threads[1].ops[0].region.aborts);
}

TEST(ScenarioFile, ErrorsNameLineAndColumn) {
  const std::pair<std::string, std::string> cases[] = {
      {"thread\nrun warps=x\n", "line 2, column 5: field 'warps': expected an unsigned integer"},
      {"thread\n  jump\n", "line 2, column 3: unknown keyword 'jump'"},
      {"run\n", "line 1, column 1: 'run' before any 'thread'"},
      {"thread\nrun colour=blue\n", "line 2, column 5: unknown field 'colour'"},
      {"thread\nrun teams=1 teams=2\n", "line 2, column 13: field 'teams' given twice"},
      {"thread\nrun warps=33\n", "line 2, column 1: region 1: geometry 1x33"},
      {"modes\nmodes\nthread\nrun\n", "line 2, column 1: 'modes' given twice"},
      {"thread\nrun aborts=2\n", "line 2, column 5: field 'aborts': expected 0 or 1, got 2"},
      {"# nothing\n", "no 'thread' line"},
  };
  for (const auto& [text, needle] : cases) {
    absl::StatusOr<Case> c = ParseScenarioText(text);
    ASSERT_FALSE(c.ok()) << "accepted:\n" << text;
    EXPECT_NE(c.status().message().find(needle), absl::string_view::npos)
        << "message: " << c.status().message();
  }
}

}  // namespace
}  // namespace stackcheck::properties
