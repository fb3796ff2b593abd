#include "core/driver_call.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace stackcheck {
namespace {

TEST(DriverCallTest, EveryCallHasItsOwnDriverName) {
  std::set<std::string> names;
  for (int i = 0; i < kDriverCallCount; ++i) {
    const absl::string_view name = DriverCallName(static_cast<DriverCall>(i));
    EXPECT_TRUE(absl::StartsWith(name, "cu")) << i;
    EXPECT_NE(name, "cu<unknown>") << i;
    EXPECT_TRUE(names.insert(std::string(name)).second) << name << " twice";
  }
  EXPECT_EQ(DriverCallName(DriverCall::kMemcpyDtoH), "cuMemcpyDtoH_v2");
}

TEST(DriverCallTest, ValuesOutsideTheTableAreUnknown) {
  EXPECT_EQ(DriverCallName(static_cast<DriverCall>(kDriverCallCount)), "cu<unknown>");
  EXPECT_EQ(DriverCallName(static_cast<DriverCall>(255)), "cu<unknown>");
}

}  // namespace
}  // namespace stackcheck
