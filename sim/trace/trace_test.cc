// Tests of the text timeline, the Chrome trace and the JSON checker they use.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/monitors/testing.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/json_check.h"
#include "sim/trace/named_format.h"
#include "sim/trace/timeline.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace ::stackcheck::sim::monitor_testing;

const std::vector<std::string> kNames = {"T0", "T1", "T2", "CB", "GPU"};

// V1a in miniature: T1 runs region 1 holding the lock, the callback unlocks
// it; T2 waits for the lock; T1 blocks in cuMemFree.
Trace Execution() {
  const auto api = [](DriverApi a) { return static_cast<std::uint32_t>(a); };
  Trace t;
  t.Add(kT0, EventKind::kMutexCreate, 0)
      .RegionBegin(kT1, 1)
      .Add(kT1, EventKind::kMutexLock, 0)
      .Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Add(kT1, EventKind::kDriverCall, api(DriverApi::kLaunchKernel))
      .RegionEnd(kT1, 1)
      .Add(kT2, EventKind::kMutexBlock, 0, kT1)
      .Start(1)
      .End(1)
      .Add(kCb, EventKind::kCallbackStart, 0, 1)
      .Add(kCb, EventKind::kMutexUnlock, 0, kT1)
      .Add(kCb, EventKind::kCallbackEnd, 0, 1)
      .Add(kT2, EventKind::kMutexLock, 0)
      .Add(kT1, EventKind::kDriverCallBlock, api(DriverApi::kMemFree))
      .Add(kNoActor, EventKind::kStickyError, 0, 0, 0, 0, 719)
      .Enqueue(kT2, 2, 1, 2, 0x200000, 64, 128 * kKiB)
      .Start(2, 1);  // left running: the trace stops here
  return t;
}

Violation AtEvent(std::size_t index) {
  Violation v;
  v.property = "mutex-discipline";
  v.message = "CB unlocked mutex 0, held by T1 \"since\" event 2";
  v.event_index = index;
  return v;
}

TEST(TimelineTest, OneColumnPerActorOneRowPerEvent) {
  const Trace t = Execution();
  const std::string text = Timeline(t.events(), kNames);
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    lines.emplace_back(line);
  }
  // Header, rule, one row per event, and the final newline's empty piece.
  ASSERT_EQ(lines.size(), 2 + t.events().size() + 1);
  EXPECT_THAT(lines[0], HasSubstr("| T0"));
  EXPECT_THAT(lines[0], HasSubstr("| GPU"));
  EXPECT_THAT(lines[0], HasSubstr("| -"));  // the event without an actor
  // Row 3 is T1's alloc: it sits in T1's column (the second).
  const std::string& row = lines[2 + 3];
  const std::size_t t1 = lines[0].find("| T1");
  EXPECT_EQ(row.find("alloc 0x200000+8MiB"), t1 + 2) << row;
  EXPECT_THAT(row, HasSubstr("300ns"));
}

TEST(TimelineTest, MarksTheViolation) {
  const Trace t = Execution();
  const Violation v = AtEvent(11);
  const std::string text = Timeline(t.events(), kNames, &v);
  EXPECT_THAT(text, HasSubstr("\n!!11 "));
  EXPECT_THAT(text, HasSubstr("!! violation of mutex-discipline at event 11: "
                              "CB unlocked mutex 0"));
}

TEST(TimelineTest, LongCellsAreCutNotSpilled) {
  const Trace t = Execution();
  TimelineOptions narrow;
  narrow.column_width = 10;
  const std::string text = Timeline(t.events(), kNames, nullptr, narrow);
  EXPECT_THAT(text, HasSubstr("kernel-en~"));
  EXPECT_THAT(text, Not(HasSubstr("kernel-enqueue")));
}

TEST(NamedFormatTest, DriverCallsByName) {
  Event e;
  e.kind = EventKind::kDriverCall;
  e.a = static_cast<std::uint32_t>(DriverApi::kMemFree);
  e.b = kCallFromCallback;
  e.x = 800;
  EXPECT_EQ(FormatEventNamed(e),
            "driver-call cuMemFree -> 800 NOT_PERMITTED [from callback]");
  e.kind = EventKind::kDriverCallBlock;
  e.b = 0;
  EXPECT_EQ(FormatEventNamed(e), "driver-call-block cuMemFree");
  Event block;
  block.kind = EventKind::kMutexBlock;
  block.a = 0;
  block.b = kT1;
  EXPECT_EQ(FormatEventNamed(block, kNames), "mutex-block m0 owner T1");
  EXPECT_EQ(FormatEventNamed(block), "mutex-block m0 owner #1");
  e.kind = EventKind::kFree;
  e.x = 0x200000;
  e.y = 8 * kMiB;
  EXPECT_EQ(FormatEventNamed(e), "free 0x200000+8MiB");
}

TEST(JsonCheckTest, AcceptsJsonAndRejectsTheRest) {
  EXPECT_TRUE(json::Parse(R"({"a":[1,-2.5e3,true,null,"x\"\u0041"]})").ok());
  EXPECT_FALSE(json::Parse(R"({"a":1,})").ok());
  EXPECT_FALSE(json::Parse(R"({"a":1}})").ok());
  EXPECT_FALSE(json::Parse(R"([1 2])").ok());
  EXPECT_FALSE(json::Parse("\"tab\tinside\"").ok());
  EXPECT_FALSE(json::Parse(R"({"a":01})").ok());
  EXPECT_FALSE(json::Parse(R"({"a":1,"a":2})").ok());
  auto v = json::Parse(R"({"k":"v\"w"})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->Get("k")->string, "v\"w");
}

// The parsed "traceEvents" of a trace, checked for the Trace Event Format's
// required fields.
std::vector<json::Value> TraceEvents(const std::string& text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.ok()) << doc.status();
  if (!doc.ok()) return {};
  EXPECT_EQ(doc->Get("displayTimeUnit")->string, "ns");
  const json::Value* events = doc->Get("traceEvents");
  EXPECT_NE(events, nullptr);
  if (events == nullptr) return {};
  for (const json::Value& e : events->array) {
    EXPECT_NE(e.Get("ph"), nullptr);
    EXPECT_NE(e.Get("pid"), nullptr);
    EXPECT_NE(e.Get("name"), nullptr);
    const std::string& ph = e.Get("ph")->string;
    if (ph != "M") {
      EXPECT_NE(e.Get("ts"), nullptr) << ph;
    }
    if (ph == "X") {
      EXPECT_GE(e.Get("dur")->number, 0);
    }
  }
  return events->array;
}

const json::Value* FindNamed(const std::vector<json::Value>& events,
                             absl::string_view ph, absl::string_view name) {
  for (const json::Value& e : events) {
    if (e.Get("ph")->string == ph && e.Get("name")->string == name) return &e;
  }
  return nullptr;
}

TEST(ChromeTraceTest, WellFormedWithTheTracksItPromises) {
  const Trace t = Execution();
  const Violation v = AtEvent(11);
  const std::vector<json::Value> events =
      TraceEvents(ChromeTraceJson(t.events(), kNames, &v));
  ASSERT_FALSE(events.empty());

  // Kernel 1 ran from event 8 to 9 on stream 0 of the GPU process.
  const json::Value* k1 = FindNamed(events, "X", "kernel 1 (region 1)");
  ASSERT_NE(k1, nullptr);
  EXPECT_EQ(k1->Get("pid")->number, 2);
  EXPECT_EQ(k1->Get("tid")->number, 0);
  EXPECT_DOUBLE_EQ(k1->Get("ts")->number, 0.8);  // 800 ns
  EXPECT_DOUBLE_EQ(k1->Get("dur")->number, 0.1);
  // Kernel 2 never ended: closed at the last timestamp and flagged.
  const json::Value* k2 = FindNamed(events, "X", "kernel 2 (region 2)");
  ASSERT_NE(k2, nullptr);
  EXPECT_EQ(k2->Get("tid")->number, 1);
  EXPECT_TRUE(k2->Get("args")->Get("unfinished")->boolean);

  const json::Value* cb = FindNamed(events, "X", "callback 1 (stream 0)");
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(cb->Get("tid")->number, kCb);
  const json::Value* region = FindNamed(events, "X", "run(region 1)");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->Get("tid")->number, kT1);
  const json::Value* wait = FindNamed(events, "X", "wait for mutex 0");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->Get("tid")->number, kT2);
  // The mutex hold opened on T1 is closed by the callback's unlock.
  EXPECT_NE(FindNamed(events, "b", "mutex 0"), nullptr);
  EXPECT_NE(FindNamed(events, "e", "mutex 0"), nullptr);
  // cuMemFree blocked and never returned; cuLaunchKernel is an instant.
  const json::Value* free_call = FindNamed(events, "X", "cuMemFree");
  ASSERT_NE(free_call, nullptr);
  EXPECT_TRUE(free_call->Get("args")->Get("unfinished")->boolean);
  EXPECT_NE(FindNamed(events, "i", "cuLaunchKernel"), nullptr);

  const json::Value* marker = FindNamed(events, "i", "VIOLATION mutex-discipline");
  ASSERT_NE(marker, nullptr);
  EXPECT_EQ(marker->Get("s")->string, "g");
  EXPECT_EQ(marker->Get("args")->Get("message")->string,
            "CB unlocked mutex 0, held by T1 \"since\" event 2");

  const json::Value* name = nullptr;
  for (const json::Value& e : events) {
    if (e.Get("ph")->string == "M" && e.Get("name")->string == "thread_name" &&
        e.Get("pid")->number == 1 && e.Get("tid")->number == kCb) {
      name = &e;
    }
  }
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->Get("args")->Get("name")->string, "CB");
}

TEST(ChromeTraceTest, SameEventsSameBytes) {
  const Trace t = Execution();
  EXPECT_EQ(ChromeTraceJson(t.events(), kNames),
            ChromeTraceJson(t.events(), kNames));
}

TEST(ChromeTraceTest, EmptyExecutionIsStillATrace) {
  const std::vector<json::Value> events = TraceEvents(ChromeTraceJson({}, {}));
  EXPECT_EQ(events.size(), 2u);  // the two process names
}

// Whatever the engine writes, the outputs stay well-formed: random streams of
// every kind with extreme fields, including time running backwards.
TEST(ChromeTraceTest, RandomStreamsGiveWellFormedTraces) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 200; ++round) {
    std::vector<Event> events;
    for (int i = 0; i < 60; ++i) {
      Event e;
      e.time_ns = rng() % 3 == 0 ? rng() % 100000 : 100 * i;
      e.actor = rng() % 8 == 0 ? kNoActor : static_cast<ActorId>(rng() % 6);
      e.kind = static_cast<EventKind>(rng() % (static_cast<int>(EventKind::kProbe) + 1));
      e.a = static_cast<std::uint32_t>(rng() % 4);
      e.b = static_cast<std::uint32_t>(rng() % 4);
      e.c = static_cast<std::uint32_t>(rng());
      e.d = static_cast<std::uint32_t>(rng());
      e.x = rng();
      e.y = rng();
      events.push_back(e);
    }
    Violation v;
    v.property = "p";
    v.message = "m";
    v.event_index = rng() % 80;  // sometimes past the end
    TraceEvents(ChromeTraceJson(events, kNames, &v));
    const std::string text = Timeline(events, kNames, &v);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
              static_cast<long>(2 + events.size() + 1));
  }
}

TEST(ChromeTraceTest, NamesAreEscaped) {
  Trace t;
  t.Add(0, EventKind::kThreadStart, kNoActor);
  const std::vector<std::string> odd = {"a \"quoted\"\\name\n"};
  const std::vector<json::Value> events =
      TraceEvents(ChromeTraceJson(t.events(), odd));
  bool found = false;
  for (const json::Value& e : events) {
    if (e.Get("name")->string == "thread_name") {
      found |= e.Get("args")->Get("name")->string == odd[0];
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace stackcheck::sim
