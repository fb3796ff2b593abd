#include "sim/monitors/monitors.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"
#include "sim/monitors/bookkeeping_view.h"
#include "sim/monitors/coverage_probes.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

TEST(MakeMonitorTest, EveryNameBuildsTheMonitorOfThatProperty) {
  std::set<std::string> seen;
  for (absl::string_view name : MonitorNames()) {
    auto m = MakeMonitor(name, MonitorParams{});
    ASSERT_TRUE(m.ok()) << name << ": " << m.status();
    EXPECT_EQ((*m)->property(), name);
    EXPECT_TRUE(seen.insert(std::string(name)).second) << name << " listed twice";
  }
  EXPECT_EQ(MakeAllMonitors(MonitorParams{}).size(), seen.size());
}

// A monitor checks a property only once the catalogue has its row.
TEST(MakeMonitorTest, EveryMonitorHasItsPropertyInTheCatalogue) {
  for (absl::string_view name : MonitorNames()) {
    const properties::PropertyInfo* p = properties::FindProperty(name);
    ASSERT_NE(p, nullptr) << "monitor " << name << " has no row in properties/catalogue.cc";
    EXPECT_EQ(p->checker, properties::Checker::kMonitor) << name;
    EXPECT_EQ(p->monitor_name, name);
  }
}

TEST(MakeMonitorTest, CoversEveryMonitorPropertyOfTheCatalogue) {
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    if (p.checker != properties::Checker::kMonitor) continue;
    EXPECT_TRUE(MakeMonitor(p.monitor_name, MonitorParams{}).ok()) << p.monitor_name;
  }
}

TEST(MakeMonitorTest, UnknownNameIsAClearError) {
  auto m = MakeMonitor("no-such-thing", MonitorParams{});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("no monitor for property \"no-such-thing\""));
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("no-leak"));
  // Deadlock and progress belong to the engine.
  EXPECT_FALSE(MakeMonitor("no-deadlock", MonitorParams{}).ok());
}

}  // namespace
}  // namespace stackcheck::sim

namespace stackcheck::sim {
namespace {

class AnyNames : public SimView {
 public:
  bool sticky_error() const override { return false; }
  absl::string_view ActorName(ActorId) const override { return "A"; }
};

// Events from a confused engine (huge or missing actor ids, ends without
// starts) must not crash or grow a table by the id.
TEST(MakeMonitorTest, StrangeEventsAreSurvived) {
  std::vector<Event> events;
  for (ActorId actor : {ActorId{4000000000u}, kNoActor, ActorId{3}}) {
    for (int k = 0; k <= static_cast<int>(EventKind::kProbe); ++k) {
      // Words near the top of their range in every field, whatever the kind.
      EventWords w;
      w.a = w.b = w.c = w.d = 0xfffffff0u;
      w.x = w.y = ~std::uint64_t{0};
      events.push_back(Event(0, actor, static_cast<EventKind>(k), w));
    }
  }
  const AnyNames names;
  for (auto& m : MakeAllMonitors(MonitorParams{})) {
    m->Reset();
    BookkeepingView view(names);
    for (std::size_t n = 1; n <= events.size(); ++n) {
      view.Deliver(*m, absl::MakeConstSpan(events).first(n));
    }
    m->OnQuiescence(events, view, true);
  }
  CoverageProbes coverage;
  coverage.Observe(events, [](std::uint32_t) { return absl::string_view(); });
  EXPECT_EQ(coverage.executions(), 1u);
}

}  // namespace
}  // namespace stackcheck::sim
