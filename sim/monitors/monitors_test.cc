#include "sim/monitors/monitors.h"

#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

TEST(MakeMonitorTest, EveryNameBuildsTheMonitorOfThatProperty) {
  std::set<std::string> seen;
  for (absl::string_view name : MonitorNames()) {
    auto m = MakeMonitor(name, MonitorParams{});
    ASSERT_TRUE(m.ok()) << name << ": " << m.status();
    EXPECT_EQ((*m)->property(), name);
    seen.insert(std::string(name));
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(MakeAllMonitors(MonitorParams{}).size(), 8u);
}

TEST(MakeMonitorTest, CoversEveryMonitorPropertyOfTheCatalogue) {
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    if (p.checker != properties::Checker::kMonitor) continue;
    EXPECT_TRUE(MakeMonitor(p.monitor_name, MonitorParams{}).ok())
        << p.monitor_name;
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
