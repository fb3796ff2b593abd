// Tests of the text timeline and the Chrome trace (read back with nlohmann-json).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/cu_result.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
#include "sim/monitors/testing.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/named_format.h"
#include "sim/trace/timeline.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;
using ::testing::Not;
using namespace ::stackcheck::sim::monitor_testing;

const std::vector<std::string> kNames = {"T0", "T1", "T2", "CB", "GPU"};

// V1a in miniature: T1 runs region 1 holding the lock, the callback unlocks
// it; T2 waits for the lock; T1 blocks in cuMemFree.
Trace Execution() {
  Trace t;
  t.Add(kT0, EventKind::kMutexCreate, payload::Mutex{0})
      .RegionBegin(kT1, 1)
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Add(kT1, EventKind::kDriverCall, payload::Call{DriverCall::kLaunchKernel})
      .RegionEnd(kT1, 1)
      .Add(kT2, EventKind::kMutexBlock, payload::MutexHeld{0, kT1})
      .Start(1)
      .End(1)
      .Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 1})
      .Add(kCb, EventKind::kMutexUnlock, payload::MutexHeld{0, kT1})
      .Add(kCb, EventKind::kCallbackEnd, payload::StreamWork{0, 1})
      .Add(kT2, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT1, EventKind::kDriverCallBlock, payload::Call{DriverCall::kMemFree})
      .Add(kNoActor, EventKind::kStickyError, payload::StickyError{CuResult::kLaunchFailed})
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
  const Event call(0, kNoActor, EventKind::kDriverCall,
                   payload::Call{DriverCall::kMemFree, kCallFromCallback, CuResult::kNotPermitted});
  EXPECT_EQ(FormatEventNamed(call), "driver-call cuMemFree -> 800 NOT_PERMITTED [from callback]");
  const Event blocked(0, kNoActor, EventKind::kDriverCallBlock,
                      payload::Call{DriverCall::kMemFree});
  EXPECT_EQ(FormatEventNamed(blocked), "driver-call-block cuMemFree");
  const Event block(0, kNoActor, EventKind::kMutexBlock, payload::MutexHeld{0, kT1});
  EXPECT_EQ(FormatEventNamed(block, kNames), "mutex-block m0 owner T1");
  EXPECT_EQ(FormatEventNamed(block), "mutex-block m0 owner #1");
  const Event freed(0, kNoActor, EventKind::kFree, payload::Block{0x200000, 8 * kMiB});
  EXPECT_EQ(FormatEventNamed(freed), "free 0x200000+8MiB");
}

// The parsed "traceEvents" of a trace, checked for the Trace Event Format's
// required fields.
std::vector<Json> TraceEvents(const std::string& text) {
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << text;
  if (!doc.is_object()) return {};
  EXPECT_EQ(doc.value("displayTimeUnit", ""), "ns");
  if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    ADD_FAILURE() << "no traceEvents array";
    return {};
  }
  for (const Json& e : doc["traceEvents"]) {
    EXPECT_TRUE(e.contains("ph"));
    EXPECT_TRUE(e.contains("pid"));
    EXPECT_TRUE(e.contains("name"));
    const std::string ph = e.value("ph", "");
    if (ph != "M") {
      EXPECT_TRUE(e.contains("ts")) << ph;
    }
    if (ph == "X") {
      EXPECT_GE(e.value("dur", -1.0), 0);
    }
  }
  return doc["traceEvents"].get<std::vector<Json>>();
}

const Json* FindNamed(const std::vector<Json>& events, absl::string_view ph,
                      absl::string_view name) {
  for (const Json& e : events) {
    if (e.value("ph", "") == ph && e.value("name", "") == name) return &e;
  }
  return nullptr;
}

TEST(ChromeTraceTest, WellFormedWithTheTracksItPromises) {
  const Trace t = Execution();
  const Violation v = AtEvent(11);
  const std::vector<Json> events = TraceEvents(ChromeTraceJson(t.events(), kNames, &v));
  ASSERT_FALSE(events.empty());

  // Kernel 1 ran from event 8 to 9 on stream 0 of the GPU process.
  const Json* k1 = FindNamed(events, "X", "kernel 1 (region 1)");
  ASSERT_NE(k1, nullptr);
  EXPECT_EQ(k1->at("pid").get<double>(), 2);
  EXPECT_EQ(k1->at("tid").get<double>(), 0);
  EXPECT_DOUBLE_EQ(k1->at("ts").get<double>(), 0.8);  // 800 ns
  EXPECT_DOUBLE_EQ(k1->at("dur").get<double>(), 0.1);
  // Kernel 2 never ended: closed at the last timestamp and flagged.
  const Json* k2 = FindNamed(events, "X", "kernel 2 (region 2)");
  ASSERT_NE(k2, nullptr);
  EXPECT_EQ(k2->at("tid").get<double>(), 1);
  EXPECT_TRUE(k2->at("args").at("unfinished").get<bool>());

  const Json* cb = FindNamed(events, "X", "callback 1 (stream 0)");
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(cb->at("tid").get<double>(), kCb);
  const Json* region = FindNamed(events, "X", "run(region 1)");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->at("tid").get<double>(), kT1);
  const Json* wait = FindNamed(events, "X", "wait for mutex 0");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->at("tid").get<double>(), kT2);
  // The mutex hold opened on T1 is closed by the callback's unlock.
  EXPECT_NE(FindNamed(events, "b", "mutex 0"), nullptr);
  EXPECT_NE(FindNamed(events, "e", "mutex 0"), nullptr);
  // cuMemFree blocked and never returned; cuLaunchKernel is an instant.
  const Json* free_call = FindNamed(events, "X", "cuMemFree");
  ASSERT_NE(free_call, nullptr);
  EXPECT_TRUE(free_call->at("args").at("unfinished").get<bool>());
  EXPECT_NE(FindNamed(events, "i", "cuLaunchKernel"), nullptr);

  const Json* marker = FindNamed(events, "i", "VIOLATION mutex-discipline");
  ASSERT_NE(marker, nullptr);
  EXPECT_EQ(marker->at("s").get<std::string>(), "g");
  EXPECT_EQ(marker->at("args").at("message").get<std::string>(),
            "CB unlocked mutex 0, held by T1 \"since\" event 2");

  const Json* name = nullptr;
  for (const Json& e : events) {
    if (e.at("ph").get<std::string>() == "M" && e.at("name").get<std::string>() == "thread_name" &&
        e.at("pid").get<double>() == 1 && e.at("tid").get<double>() == kCb) {
      name = &e;
    }
  }
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->at("args").at("name").get<std::string>(), "CB");
}

TEST(ChromeTraceTest, SameEventsSameBytes) {
  const Trace t = Execution();
  EXPECT_EQ(ChromeTraceJson(t.events(), kNames), ChromeTraceJson(t.events(), kNames));
}

TEST(ChromeTraceTest, EmptyExecutionIsStillATrace) {
  const std::vector<Json> events = TraceEvents(ChromeTraceJson({}, {}));
  EXPECT_EQ(events.size(), 2u);  // the two process names
}

// Whatever the engine writes, the outputs stay well-formed: random streams of
// every kind with extreme fields, including time running backwards.
TEST(ChromeTraceTest, RandomStreamsGiveWellFormedTraces) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 200; ++round) {
    std::vector<Event> events;
    for (int i = 0; i < 60; ++i) {
      const std::uint64_t time = rng() % 3 == 0 ? rng() % 100000 : 100 * i;
      const ActorId actor = rng() % 8 == 0 ? kNoActor : static_cast<ActorId>(rng() % 6);
      const auto kind = static_cast<EventKind>(rng() % (static_cast<int>(EventKind::kProbe) + 1));
      // Raw words, whatever the kind: a braced list draws them in order.
      const EventWords words{static_cast<std::uint32_t>(rng() % 4),
                             static_cast<std::uint32_t>(rng() % 4),
                             static_cast<std::uint32_t>(rng()),
                             static_cast<std::uint32_t>(rng()),
                             rng(),
                             rng()};
      events.emplace_back(time, actor, kind, words);
    }
    Violation v;
    v.property = "p";
    v.message = "m";
    v.event_index = rng() % 80;  // sometimes past the end
    TraceEvents(ChromeTraceJson(events, kNames, &v));
    const std::string text = Timeline(events, kNames, &v);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(2 + events.size() + 1));
  }
}

TEST(ChromeTraceTest, NamesAreEscaped) {
  Trace t;
  t.Add(0, EventKind::kThreadStart, payload::ThreadStart{kNoActor});
  const std::vector<std::string> odd = {"a \"quoted\"\\name\n"};
  const std::vector<Json> events = TraceEvents(ChromeTraceJson(t.events(), odd));
  bool found = false;
  for (const Json& e : events) {
    if (e.at("name").get<std::string>() == "thread_name") {
      found |= e.at("args").at("name").get<std::string>() == odd[0];
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace stackcheck::sim
