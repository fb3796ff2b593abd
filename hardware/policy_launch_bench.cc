// Microseconds per target region on a real GPU, per stack-cache policy:
//
//   policy_launch_bench --policy=event-fence [--teams=528] [--warps=8]
//                       [--regions=2000] [--kernel_ns=0] [--host_work_ns=0]
//
// Drives the plugin-shaped Runtime (core/runtime.h) on the CUDA driver and OS
// threads, one policy per process (each opens and closes the device once).
// Prints two figures: "return" is the host time per Runtime::Run (what the
// offloading thread pays), "complete" adds the final cuCtxSynchronize, i.e.
// the time until every region's kernel has finished (what the GPU pays).
// They differ only for policies that return before their kernel completes.
// With --host_work_ns the host computes between regions, as a program does
// between target constructs: only there can a policy that returns early
// overlap the kernel with the host.
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "core/runtime.h"
#include "real/cuda_device.h"
#include "real/os_host.h"

ABSL_FLAG(std::string, policy, "event-fence", "the policy to measure");
ABSL_FLAG(std::uint32_t, teams, 528, "teams (grid x)");
ABSL_FLAG(std::uint32_t, warps, 8, "warps per team (block y)");
ABSL_FLAG(int, regions, 2000, "regions timed (after 50 warm-up regions)");
ABSL_FLAG(std::uint64_t, kernel_ns, 0, "how long each warp works");
ABSL_FLAG(std::uint64_t, host_work_ns, 0,
          "host work between two regions (a spin), which a policy that returns "
          "before its kernel completes overlaps with the kernel");

namespace stackcheck {
namespace {

// A fatal error ends the process through the exit handlers: say why first.
struct PrintFatal : RuntimeObserver {
  void FatalReported(RegionId region, CuResult code, absl::string_view message) override {
    std::fprintf(stderr, "policy_launch_bench: fatal (region %u, %s): %s\n", region,
                 std::string(CuResultName(code)).c_str(), std::string(message).c_str());
  }
};

int Main() {
  const PolicyInfo* policy = FindPolicy(absl::GetFlag(FLAGS_policy));
  if (policy == nullptr) {
    std::fprintf(stderr, "policy_launch_bench: unknown policy '%s'\n",
                 absl::GetFlag(FLAGS_policy).c_str());
    return 2;
  }
  const int regions = absl::GetFlag(FLAGS_regions);
  if (regions < 1 || absl::GetFlag(FLAGS_teams) < 1 || absl::GetFlag(FLAGS_warps) < 1 ||
      absl::GetFlag(FLAGS_warps) > 32) {
    std::fprintf(stderr, "policy_launch_bench: need regions >= 1, teams >= 1, 1 <= warps <= 32\n");
    return 2;
  }
  auto device = real::CudaDevice::Create();
  if (!device.ok()) {
    std::fprintf(stderr, "policy_launch_bench: %s\n",
                 std::string(device.status().message()).c_str());
    return 1;
  }
  real::OsHost host;
  PrintFatal observer;
  Runtime runtime(**device, host, observer, *policy);
  runtime.OpenDevice();
  runtime.LoadImage(false, false);

  RegionSpec region;
  region.teams = absl::GetFlag(FLAGS_teams);
  region.warps = absl::GetFlag(FLAGS_warps);
  region.duration_ns = absl::GetFlag(FLAGS_kernel_ns);
  RegionId next_id = 1;
  for (int i = 0; i < 50; ++i) {
    region.id = next_id++;
    runtime.Run(region);
  }
  if (CuResult r = (*device)->CtxSynchronize(); r != CuResult::kSuccess) {
    std::fprintf(stderr, "policy_launch_bench: warm-up: cuCtxSynchronize: %s\n",
                 std::string(CuResultName(r)).c_str());
    return 1;
  }
  const absl::Duration host_work = absl::Nanoseconds(absl::GetFlag(FLAGS_host_work_ns));
  const absl::Time start = absl::Now();
  for (int i = 0; i < regions; ++i) {
    region.id = next_id++;
    runtime.Run(region);
    // Busy, not asleep: the host thread is computing.
    for (const absl::Time until = absl::Now() + host_work; absl::Now() < until;) {
    }
  }
  const absl::Duration returned = absl::Now() - start;
  const CuResult sync = (*device)->CtxSynchronize();
  const absl::Duration completed = absl::Now() - start;
  if (sync != CuResult::kSuccess) {
    std::fprintf(stderr, "policy_launch_bench: final sync: %s\n",
                 std::string(CuResultName(sync)).c_str());
    return 1;
  }
  runtime.CloseDevice();
  absl::PrintF(
      "%-20s %4ux%-2u kernel %6dns host %6dns  return %8.2f us/region  complete %8.2f us/region\n",
      policy->name, region.teams, region.warps, static_cast<int>(region.duration_ns),
      static_cast<int>(absl::ToInt64Nanoseconds(host_work)),
      absl::ToDoubleMicroseconds(returned) / regions,
      absl::ToDoubleMicroseconds(completed) / regions);
  return 0;
}

}  // namespace
}  // namespace stackcheck

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return stackcheck::Main();
}
