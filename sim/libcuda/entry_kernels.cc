// cuLaunchKernel: a kernel with libgomp's arguments, its region's code run
// when the GPU actor starts it.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/libcuda/driver_state.h"
#include "sim/program/exec_options.h"
#include "sim/program/openmp_calls.h"
#include "sim/program/plugin_calls.h"
#include "sim/sim_device.h"

namespace stackcheck::libcuda {

namespace {

// libgomp's kernels take exactly (variable table, stacks block, per-warp
// stack size), as GOMP_OFFLOAD_run passes them; the table is NULL for a
// region that maps nothing. Other kernels (none in GCC 12's OpenMP path) are
// read by their pointers: the first into a live block is taken as a table,
// the second as stacks. Called with g_mu held.
void ReadLaunchArguments(const std::vector<std::uint64_t>& words,
                         const std::vector<std::uint32_t>& sizes, stackcheck::KernelArgs* args) {
  if (sizes == std::vector<std::uint32_t>{8, 8, 8}) {
    args->vars = words[0];
    args->stacks = words[1];
    args->stack_size_per_warp = words[2];
    return;
  }
  int pointers = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const bool pointer = sizes[i] == 8 && FindBlock(words[i], 0) != nullptr;
    if (pointer) {
      if (pointers == 0) args->vars = words[i];
      if (pointers == 1) args->stacks = words[i];
      ++pointers;
    } else if (pointers == 2 && args->stack_size_per_warp == 0 && sizes[i] == 8) {
      args->stack_size_per_warp = words[i];
    }
  }
}

// Launched kernels' code, each waiting for its kernel to start.
// Never destroyed, like the tables above.
std::map<std::uint64_t, stackcheck::program::KernelLaunch>& g_bodies =
    *new std::map<std::uint64_t, stackcheck::program::KernelLaunch>;  // guarded by g_mu
std::uint64_t g_next_body = 0;                                        // guarded by g_mu

// Where a device variable's bytes are: in its block, or for a link
// variable behind the pointer its block holds (nullptr: not mapped yet).
// Called with g_mu held.
unsigned char* DeviceBytes(DevicePtr block, const stackcheck::program::HostVariable& host) {
  const Shadow* shadow = FindBlock(block, host.link ? sizeof(DevicePtr) : host.bytes);
  if (shadow == nullptr) return nullptr;
  if (!host.link) return shadow->data;
  DevicePtr data = 0;
  std::memcpy(&data, shadow->data, sizeof data);
  return data != 0 && FindBlock(data, host.bytes) != nullptr
             ? reinterpret_cast<unsigned char*>(data)
             : nullptr;
}

// The kernel's code names its `declare target` variables by their host
// symbols: while it runs, each host variable holds its device variable's
// bytes, which go back to the device after, and the host's own bytes are put
// back (every program thread is stopped meanwhile), so the memories stay
// separate, as on a GPU. A region that maps such a variable also reaches it
// through its table: those entries point at the host variable meanwhile, so
// that both ways lead to the same bytes.
stackcheck::program::KernelOutcome RunWithDeviceVariables(
    const stackcheck::program::KernelLaunch& launch) {
  struct Swap {
    unsigned char* host;
    unsigned char* device;
    std::vector<unsigned char> saved;
  };
  std::vector<Swap> swaps;
  struct Redirect {
    DevicePtr* entry;
    DevicePtr device;
  };
  std::vector<Redirect> redirects;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto* table = static_cast<DevicePtr*>(launch.vars);
    for (const auto& [block, host] : g_paired) {
      unsigned char* device = DeviceBytes(block, host);
      if (device == nullptr) continue;
      auto* bytes = static_cast<unsigned char*>(host.address);
      swaps.push_back(Swap{bytes, device, std::vector<unsigned char>(bytes, bytes + host.bytes)});
      std::memcpy(bytes, device, host.bytes);
      const auto start = reinterpret_cast<DevicePtr>(device);
      for (std::size_t i = 0; i < launch.table_entries; ++i) {
        if (table[i] >= start && table[i] - start < host.bytes) {
          redirects.push_back(Redirect{&table[i], table[i]});
          table[i] = reinterpret_cast<DevicePtr>(bytes) + (table[i] - start);
        }
      }
    }
  }
  stackcheck::program::KernelOutcome outcome = stackcheck::program::RunKernelBody(launch);
  for (const Redirect& r : redirects) *r.entry = r.device;
  for (Swap& swap : swaps) {
    std::memcpy(swap.device, swap.host, swap.saved.size());
    std::memcpy(swap.host, swap.saved.data(), swap.saved.size());
  }
  return outcome;
}

stackcheck::KernelAction RunBody(std::uint64_t token) {
  stackcheck::program::KernelLaunch launch;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_bodies.find(token);
    if (it == g_bodies.end()) return stackcheck::KernelAction::kRun;
    launch = std::move(it->second);
    g_bodies.erase(it);
  }
  const stackcheck::program::KernelOutcome outcome = RunWithDeviceVariables(launch);
  if (!outcome.trapped) return stackcheck::KernelAction::kRun;
  LogDriverNote(absl::StrCat("kernel \"", launch.kernel, "\" traps: ", outcome.why));
  return stackcheck::KernelAction::kTrap;
}

// The token of the code a launch of `f` with the table `vars` and `teams`
// blocks of `warps` warps runs (0: none, with the reason in *note). Called on the launching thread,
// inside the plugin's GOMP_OFFLOAD_run.
std::uint64_t PrepareBody(const Function& f, DevicePtr vars, unsigned teams, unsigned warps,
                          std::string* note) {
  if (f.host == nullptr) {
    *note = " [no host code: the kernel does not execute]";
    return 0;
  }
  if (!AddressableAt(vars)) {
    *note = " [its table is not at its device address: the kernel does not execute]";
    return 0;
  }
  stackcheck::program::KernelLaunch launch;
  launch.kernel = f.name;
  launch.function = f.host;
  launch.vars = reinterpret_cast<void*>(vars);
  if (vars != 0) launch.table_entries = stackcheck::program::CurrentRegionMapCount();
  launch.target_arguments =
      stackcheck::program::CopyTargetArguments(stackcheck::program::RunTargetArguments());
  launch.teams = std::max(1u, teams);
  launch.warps = std::max(1u, warps);
  std::lock_guard<std::mutex> lock(g_mu);
  g_bodies[++g_next_body] = std::move(launch);
  return g_next_body;
}

// The argument words of a launch, copied now (SEM-03), with their sizes.
struct ArgumentWords {
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> sizes;
};

// From `params`: a pointer to each parameter.
void CopyParams(const Function& f, void** params, ArgumentWords* out) {
  for (std::size_t i = 0; i < f.param_sizes.size(); ++i) {
    std::uint64_t w = 0;
    std::memcpy(&w, params[i], std::min<std::size_t>(f.param_sizes[i], sizeof w));
    out->words.push_back(w);
    out->sizes.push_back(f.param_sizes[i]);
  }
}

// From `extra`: CU_LAUNCH_PARAM_BUFFER_POINTER (1) and _SIZE (2), a buffer
// holding the parameters at their natural alignment.
void CopyExtraBuffer(const Function& f, void** extra, ArgumentWords* out) {
  const char* buffer = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0; extra[i] != nullptr; i += 2) {
    const auto key = reinterpret_cast<std::uintptr_t>(extra[i]);
    if (key == 1) buffer = static_cast<const char*>(extra[i + 1]);
    if (key == 2) size = *static_cast<std::size_t*>(extra[i + 1]);
  }
  std::size_t offset = 0;
  for (std::uint32_t s : f.param_sizes) {
    const std::size_t align = std::min<std::size_t>(s == 0 ? 1 : s, 8);
    offset = (offset + align - 1) / align * align;
    std::uint64_t w = 0;
    if (buffer != nullptr && offset + s <= size) {
      std::memcpy(&w, buffer + offset, std::min<std::size_t>(s, sizeof w));
    }
    out->words.push_back(w);
    out->sizes.push_back(s);
    offset += s;
  }
}

// The words as the driver log shows them: each in hex, a pointer into a
// block with the block and offset. Called with g_mu held.
std::string DescribeArguments(const ArgumentWords& arguments) {
  std::string described;
  for (std::size_t i = 0; i < arguments.words.size(); ++i) {
    const std::uint64_t word = arguments.words[i];
    DevicePtr base = 0;
    const bool pointer = arguments.sizes[i] == 8 && FindBlock(word, 0, &base) != nullptr;
    absl::StrAppendFormat(
        &described, "%s0x%x%s", i ? ", " : "", word,
        pointer ? absl::StrFormat(" (block 0x%x+%u)", base, word - base) : std::string());
  }
  return described;
}

// The fault plan's aborting launch: its kernel traps (device code calling
// abort() or __builtin_trap()), counted over every launch of the process,
// or over the launches of the kernels the plan names.
bool FaultPlanTraps(const Function& f) {
  static std::uint32_t launches = 0;
  const stackcheck::program::FaultPlan& plan = stackcheck::program::Faults();
  const bool counted = plan.abort_kernel.empty() || absl::StrContains(f.name, plan.abort_kernel);
  return counted && ++launches == plan.abort_at_launch;
}

}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned int gx,
                                               unsigned int gy, unsigned int gz, unsigned int bx,
                                               unsigned int by, unsigned int bz,
                                               unsigned int shared_bytes, CUstream stream,
                                               void** params, void** extra) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (function == nullptr) return Code(CuResult::kInvalidHandle);
  auto* f = reinterpret_cast<Function*>(function);
  if (params != nullptr && extra != nullptr) return Code(CuResult::kInvalidValue);
  ArgumentWords copied;
  if (params != nullptr) {
    CopyParams(*f, params, &copied);
  } else if (extra != nullptr) {
    CopyExtraBuffer(*f, extra, &copied);
  }
  stackcheck::KernelArgs args;
  std::string described;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    described = DescribeArguments(copied);
    ReadLaunchArguments(copied.words, copied.sizes, &args);
  }
  args.duration_ns = 1000;
  const bool traps = FaultPlanTraps(*f);
  if (traps) args.action = stackcheck::KernelAction::kTrap;
  // Otherwise its region's code runs when it starts.
  std::string body_note;
  if (!traps)
    args.body = PrepareBody(*f, copied.words.empty() ? 0 : copied.words[0], gx, by, &body_note);
  const CuResult r = RunOnDevice([&](Device& d) {
    if (args.body != 0) {
      if (auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d)) {
        sim->set_kernel_body_runner(&RunBody);
      }
    }
    return d.LaunchKernel(f->sim, stackcheck::Dim3{gx, gy, gz}, stackcheck::Dim3{bx, by, bz}, args,
                          ToSim(stream));
  });
  if (r != CuResult::kSuccess && args.body != 0) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_bodies.erase(args.body);  // never enqueued: its code never runs
  }
  LogDriverCall(Symbol(DriverCall::kLaunchKernel),
                absl::StrCat("(\"", f->name, "\", grid ", gx, "x", gy, "x", gz, ", block ", bx, "x",
                             by, "x", bz, ", shared ", shared_bytes, ", args [", described, "])",
                             traps ? " [fault plan: traps]" : "", " -> ", Name(r), body_note));
  return Code(r);
}

}  // namespace stackcheck::libcuda
