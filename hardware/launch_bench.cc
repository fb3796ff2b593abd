#include "hardware/launch_bench.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/observer.h"
#include "core/policies/policy.h"
#include "core/scenario.h"

namespace stackcheck::hardware {
namespace {

absl::Status DriverError(absl::string_view what, CuResult r) {
  return absl::InternalError(absl::StrCat(what, ": ", CuResultName(r)));
}

KernelArgs Args(DevicePtr stacks, std::uint64_t kernel_ns) {
  KernelArgs a;
  a.stacks = stacks;
  a.stack_size_per_warp = kDefaultStackSizePerWarp;
  a.region_tag = 1;
  a.duration_ns = kernel_ns;
  return a;
}

void NoOpCallback(StreamHandle, CuResult, void*) {}
void NoOpHostFn(void*) {}

}  // namespace

std::string BenchGeometry::Label() const { return absl::StrCat(teams, "x", warps); }

absl::string_view FloorName(Floor f) {
  switch (f) {
    case Floor::kLaunchOnly:
      return "launch only";
    case Floor::kLaunchEvent:
      return "launch + cuEventRecord";
    case Floor::kLaunchWriteValue:
      return "launch + cuStreamWriteValue32";
    case Floor::kLaunchCallback:
      return "launch + cuStreamAddCallback";
    case Floor::kLaunchHostFunc:
      return "launch + cuLaunchHostFunc";
    case Floor::kLaunchCtxSync:
      return "launch + cuCtxSynchronize";
    case Floor::kAllocLaunchSyncFree:
      return "alloc + launch + sync + free";
  }
  return "?";
}

absl::StatusOr<std::unique_ptr<LaunchBench>> LaunchBench::Open(int ordinal) {
  absl::StatusOr<std::unique_ptr<real::CudaDevice>> device = real::CudaDevice::Create(ordinal);
  if (!device.ok()) return device.status();
  std::unique_ptr<LaunchBench> bench(new LaunchBench(*std::move(device)));
  real::CudaDevice& d = *bench->device_;
  if (CuResult r = d.Init(); r != CuResult::kSuccess) {
    return DriverError("cuInit", r);
  }
  if (CuResult r = d.CtxCreate(); r != CuResult::kSuccess) {
    return DriverError("context", r);
  }
  ModuleHandle module;
  if (CuResult r = d.ModuleLoad(&module, kKernelImage); r != CuResult::kSuccess) {
    return DriverError("cuModuleLoadData", r);
  }
  if (CuResult r = d.ModuleGetFunction(&bench->region_, module, kRegionKernel);
      r != CuResult::kSuccess) {
    return DriverError("cuModuleGetFunction", r);
  }
  if (CuResult r = d.ModuleGetFunction(&bench->ctor_dtor_, module, kCtorDtorKernel);
      r != CuResult::kSuccess) {
    return DriverError("cuModuleGetFunction", r);
  }
  absl::StatusOr<real::DeviceProperties> props = d.Properties();
  if (!props.ok()) return props.status();
  bench->properties_ = *std::move(props);
  return bench;
}

LaunchBench::~LaunchBench() { device_->CtxDestroy(); }

absl::StatusOr<std::uint32_t> LaunchBench::DefaultTeams(std::uint32_t warps) {
  absl::StatusOr<int> per_sm = device_->MaxActiveBlocksPerSm(region_, warps);
  if (!per_sm.ok()) return per_sm.status();
  return static_cast<std::uint32_t>(properties_.sm_count * *per_sm);
}

template <typename F>
absl::StatusOr<BenchFigure> LaunchBench::Time(const BenchOptions& options, F one_launch) {
  std::vector<double> per_launch;
  BenchFigure figure;
  for (int rep = 0; rep < options.repetitions; ++rep) {
    const absl::Time start = absl::Now();
    int n = 0;
    while (n < options.launches) {
      if (!one_launch()) {
        return absl::InternalError("a driver call failed while timing");
      }
      ++n;
      if (n >= options.min_launches && (n & 7) == 0 &&
          absl::Now() - start > options.max_repetition) {
        break;
      }
    }
    if (CuResult r = device_->CtxSynchronize(); r != CuResult::kSuccess) {
      return DriverError("cuCtxSynchronize", r);
    }
    per_launch.push_back(absl::ToDoubleMicroseconds(absl::Now() - start) / n);
    figure.launches = n;
  }
  std::sort(per_launch.begin(), per_launch.end());
  figure.us_per_launch = per_launch[per_launch.size() / 2];
  figure.us_min = per_launch.front();
  return figure;
}

absl::StatusOr<BenchFigure> LaunchBench::MeasureFloor(Floor floor, BenchGeometry g,
                                                      std::uint64_t kernel_ns,
                                                      const BenchOptions& options) {
  real::CudaDevice& d = *device_;
  const std::uint64_t bytes = kDefaultStackSizePerWarp * std::uint64_t{g.teams} * g.warps;
  DevicePtr block = 0;
  if (floor != Floor::kAllocLaunchSyncFree) {
    if (CuResult r = d.MemAlloc(&block, bytes); r != CuResult::kSuccess) {
      return DriverError("cuMemAlloc", r);
    }
  }
  EventHandle event{};
  if (floor == Floor::kLaunchEvent) {
    if (CuResult r = d.EventCreate(&event); r != CuResult::kSuccess) {
      return DriverError("cuEventCreate", r);
    }
  }
  HostWordHandle word{};
  if (floor == Floor::kLaunchWriteValue) {
    if (CuResult r = d.HostWordAlloc(&word); r != CuResult::kSuccess) {
      return DriverError("cuMemHostAlloc", r);
    }
  }
  std::uint32_t writes = 0;
  const Dim3 grid{g.teams, 1, 1};
  const Dim3 blk{32, g.warps, 1};
  auto launch = [&](DevicePtr stacks) {
    return d.LaunchKernel(region_, grid, blk, Args(stacks, kernel_ns), kLegacyStream) ==
           CuResult::kSuccess;
  };
  absl::StatusOr<BenchFigure> figure = Time(options, [&] {
    switch (floor) {
      case Floor::kLaunchOnly:
        return launch(block);
      case Floor::kLaunchEvent:
        return launch(block) && d.EventRecord(event, kLegacyStream) == CuResult::kSuccess;
      case Floor::kLaunchWriteValue:
        return launch(block) &&
               d.StreamWriteValue32(kLegacyStream, word, ++writes) == CuResult::kSuccess;
      case Floor::kLaunchCallback:
        return launch(block) &&
               d.StreamAddCallback(kLegacyStream, &NoOpCallback, nullptr) == CuResult::kSuccess;
      case Floor::kLaunchHostFunc:
        return launch(block) &&
               d.LaunchHostFunc(kLegacyStream, &NoOpHostFn, nullptr) == CuResult::kSuccess;
      case Floor::kLaunchCtxSync:
        return launch(block) && d.CtxSynchronize() == CuResult::kSuccess;
      case Floor::kAllocLaunchSyncFree: {
        DevicePtr p = 0;
        return d.MemAlloc(&p, bytes) == CuResult::kSuccess && launch(p) &&
               d.CtxSynchronize() == CuResult::kSuccess && d.MemFree(p) == CuResult::kSuccess;
      }
    }
    return false;
  });
  if (floor == Floor::kLaunchEvent) d.EventDestroy(event);
  if (floor == Floor::kLaunchWriteValue) d.HostWordFree(word);
  if (block != 0) d.MemFree(block);
  return figure;
}

absl::StatusOr<BenchFigure> LaunchBench::MeasurePolicy(const PolicyInfo& info, BenchGeometry g,
                                                       std::uint64_t kernel_ns,
                                                       const BenchOptions& options) {
  RuntimeContext ctx(*device_, host_, NullObserver(), RuntimeOptions{});
  ctx.region_kernel = region_;
  ctx.ctor_dtor_kernel = ctor_dtor_;
  std::unique_ptr<Policy> policy = info.make(ctx);
  RegionSpec region;
  region.id = 1;
  region.teams = g.teams;
  region.warps = g.warps;
  region.duration_ns = kernel_ns;
  // A first region outside the timing: a caching policy allocates once.
  policy->Run(region, 0);
  if (CuResult r = device_->CtxSynchronize(); r != CuResult::kSuccess) {
    return DriverError("cuCtxSynchronize", r);
  }
  region.mapped_vars = static_cast<std::uint32_t>(options.mapped_vars);
  absl::StatusOr<BenchFigure> figure = Time(options, [&] {
    if (region.mapped_vars == 0) {
      policy->Run(region, 0);  // errors are fatal inside the policy
      return true;
    }
    // The region as libgomp runs it: map, run, unmap (the device lock is
    // uncontended here and left out).
    const DevicePtr vars = policy->DeviceAlloc(region.MappingBytes());
    if (vars == 0) return false;
    for (std::uint32_t i = 0; i <= region.mapped_vars; ++i) {  // the variables, the table
      const std::uint64_t bytes =
          i < region.mapped_vars ? kMappedVarBytes : region.mapped_vars * sizeof(DevicePtr);
      if (!policy->CopyToDevice(vars + i * kMappedVarBytes, bytes)) return false;
    }
    policy->Run(region, vars);
    for (std::uint32_t i = 0; i < region.mapped_vars; ++i) {
      if (!policy->CopyFromDevice(vars + i * kMappedVarBytes, kMappedVarBytes)) return false;
    }
    return policy->DeviceFree(vars);
  });
  policy->Close();
  return figure;
}

}  // namespace stackcheck::hardware
