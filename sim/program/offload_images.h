// The host half of each offload image a program registers. GCC compiles
// every offloaded region twice: a kernel for the device and a host function
// (the host fallback), and every `declare target` variable exists on both
// sides. Each image's constructor hands libgomp two tables that pair them by
// index (GOMP_offload_register_ver): the host table (function pointers; variable
// addresses with sizes) and the target data (for nvptx, mkoffload's kernel
// and variable names, in the same order). This library interposes that call,
// so a kernel launched by name can run its region's host function
// (kernel_body.h), which names the host symbols of its device variables
// (sim/libcuda/entry_kernels.cc lends them the device's bytes while it runs).
#ifndef STACKCHECK_SIM_PROGRAM_OFFLOAD_IMAGES_H_
#define STACKCHECK_SIM_PROGRAM_OFFLOAD_IMAGES_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace stackcheck::program {

using HostFunction = void (*)(void*);

// The host function of the kernel named `kernel` in a registered nvptx image;
// nullptr if no image names it.
HostFunction HostFunctionOf(absl::string_view kernel);

struct HostVariable {
  void* address = nullptr;
  std::uint64_t bytes = 0;
  // `declare target link`: the device variable holds a pointer to the data,
  // not the data (libgomp's link bit in the size).
  bool link = false;
};

// The host variable paired with the device variable `name`; none if no
// registered nvptx image names it.
std::optional<HostVariable> HostVariableOf(absl::string_view name);

// What GOMP_offload_register_ver would record, for tests: an nvptx image's
// two tables as mkoffload lays them out.
void RecordImage(const void* host_table, const void* target_data);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_OFFLOAD_IMAGES_H_
