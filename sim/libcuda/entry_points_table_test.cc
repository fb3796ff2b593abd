// entry_points.tsv's device_call column against core's driver-call table:
// every core call the plugin resolves is served by the device model under
// the export name core/driver_call.h gives it, and every device call the
// file names is one of core's.
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/driver_call.h"
#include "gtest/gtest.h"

namespace stackcheck {
namespace {

struct EntryPoint {
  std::string libcuda;      // sim, bridge or unimplemented
  std::string device_call;  // a DriverCallSymbol, or "-"
};

std::map<std::string, EntryPoint> ReadTable() {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/" +
                           std::getenv("TEST_WORKSPACE") + "/sim/libcuda/entry_points.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::map<std::string, EntryPoint> table;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = absl::StrSplit(line, '\t');
    EXPECT_EQ(f.size(), 4u) << line;
    if (f.size() != 4) continue;
    if (header) {
      EXPECT_EQ(line, "name\tplugin\tlibcuda\tdevice_call");
      header = false;
      continue;
    }
    table[f[0]] = EntryPoint{f[2], f[3]};
  }
  return table;
}

TEST(EntryPointsTableTest, TheCoreCallsThePluginResolvesAreTheDeviceModels) {
  const std::map<std::string, EntryPoint> table = ReadTable();
  ASSERT_FALSE(table.empty());
  int served = 0;
  for (int i = 0; i < kDriverCallCount; ++i) {
    const std::string symbol(DriverCallSymbol(static_cast<DriverCall>(i)));
    auto it = table.find(symbol);
    if (it == table.end()) continue;  // a call the plugin does not make
    // The plugin frees cuMemAllocHost's memory with it, which the library
    // answers itself; the model's host words come from cuMemHostAlloc, which
    // the plugin does not resolve.
    if (static_cast<DriverCall>(i) == DriverCall::kMemFreeHost) {
      EXPECT_EQ(it->second.libcuda, "bridge");
      continue;
    }
    ++served;
    EXPECT_EQ(it->second.libcuda, "sim") << symbol;
    EXPECT_EQ(it->second.device_call, symbol) << symbol;
  }
  // The plugin's calls of core/device.h: all but the asynchronous
  // allocations, host functions, pinned host words and stream writes.
  EXPECT_EQ(served, 24);
}

TEST(EntryPointsTableTest, EveryDeviceCallNamedIsACoreCall) {
  std::map<std::string, DriverCall> symbols;
  for (int i = 0; i < kDriverCallCount; ++i) {
    const auto call = static_cast<DriverCall>(i);
    symbols.emplace(std::string(DriverCallSymbol(call)), call);
  }
  for (const auto& [name, entry] : ReadTable()) {
    if (entry.device_call == "-") continue;
    EXPECT_EQ(entry.libcuda, "sim") << name << " makes a device call";
    for (absl::string_view call : absl::StrSplit(entry.device_call, '+')) {
      EXPECT_TRUE(symbols.count(std::string(call)) > 0)
          << name << ": " << call << " is not in core/driver_call.h";
    }
  }
}

}  // namespace
}  // namespace stackcheck
