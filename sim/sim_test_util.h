// Helpers shared by the engine's tests: open a device the way every runtime
// does, and look things up in a trace.
#ifndef STACKCHECK_SIM_SIM_TEST_UTIL_H_
#define STACKCHECK_SIM_SIM_TEST_UTIL_H_

#include <cstddef>
#include <vector>

#include "core/device.h"
#include "gtest/gtest.h"
#include "sim/event.h"

namespace stackcheck::sim::testing {

struct Opened {
  FunctionHandle kernel{};
};

// cuInit, primary context, the image and its region kernel.
inline Opened Open(Device& d) {
  Opened o;
  ModuleHandle m{};
  EXPECT_EQ(d.Init(), CuResult::kSuccess);
  EXPECT_EQ(d.CtxCreate(), CuResult::kSuccess);
  EXPECT_EQ(d.ModuleLoad(&m, kKernelImage), CuResult::kSuccess);
  EXPECT_EQ(d.ModuleGetFunction(&o.kernel, m, kRegionKernel), CuResult::kSuccess);
  return o;
}

inline KernelArgs Args(DevicePtr stacks, std::uint32_t tag, std::uint64_t duration_ns = 1000,
                       KernelAction action = KernelAction::kRun) {
  KernelArgs a;
  a.stacks = stacks;
  a.stack_size_per_warp = 128 * 1024;
  a.region_tag = tag;
  a.duration_ns = duration_ns;
  a.action = action;
  return a;
}

inline Dim3 Grid(std::uint32_t x) { return Dim3{x, 1, 1}; }
inline Dim3 Warps(std::uint32_t y) { return Dim3{32, y, 1}; }

// Index of the first event of `kind` at or after `from`; -1 if none.
inline long Find(const std::vector<Event>& trace, EventKind kind, std::size_t from = 0) {
  for (std::size_t i = from; i < trace.size(); ++i) {
    if (trace[i].kind == kind) return static_cast<long>(i);
  }
  return -1;
}

inline int Count(const std::vector<Event>& trace, EventKind kind) {
  int n = 0;
  for (const Event& e : trace) n += e.kind == kind;
  return n;
}

}  // namespace stackcheck::sim::testing

#endif  // STACKCHECK_SIM_SIM_TEST_UTIL_H_
