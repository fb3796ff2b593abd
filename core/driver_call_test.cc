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

// The message name is the export, or the export without its ABI version.
TEST(DriverCallTest, EveryCallHasItsOwnExportOfItsName) {
  std::set<std::string> symbols;
  for (int i = 0; i < kDriverCallCount; ++i) {
    const auto call = static_cast<DriverCall>(i);
    const absl::string_view symbol = DriverCallSymbol(call);
    const absl::string_view name = DriverCallName(call);
    EXPECT_TRUE(symbols.insert(std::string(symbol)).second) << symbol << " twice";
    EXPECT_TRUE(symbol == name || (absl::StartsWith(symbol, name) &&
                                   absl::StartsWith(symbol.substr(name.size()), "_v")))
        << name << " exported as " << symbol;
  }
  EXPECT_EQ(DriverCallSymbol(DriverCall::kMemAlloc), "cuMemAlloc_v2");
  EXPECT_EQ(DriverCallSymbol(DriverCall::kModuleLoad), "cuModuleLoadData");
}

TEST(DriverCallTest, ValuesOutsideTheTableAreUnknown) {
  EXPECT_EQ(DriverCallName(static_cast<DriverCall>(kDriverCallCount)), "cu<unknown>");
  EXPECT_EQ(DriverCallName(static_cast<DriverCall>(255)), "cu<unknown>");
  EXPECT_EQ(DriverCallSymbol(static_cast<DriverCall>(255)), "cu<unknown>");
}

}  // namespace
}  // namespace stackcheck
