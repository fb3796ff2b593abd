#include "cli/exec_steering.h"

#include "gtest/gtest.h"

namespace stackcheck::cli {
namespace {

TEST(SteeringOrderTest, EntriesOfPluginCallsAndEveryDriverCallInOrder) {
  const std::vector<std::string> calls = {
      "T2 GOMP_target_enter_exit_data(device -1)",
      "T1 GOMP_OFFLOAD_run(0, fn 0x7f1ffc003a28, vars 0x103200000)",
      "T1 cuMemAlloc_v2(131072 bytes) -> 0 CUDA_SUCCESS, 0x103400000",
      "T1 cuLaunchKernel(\"thread_a$_omp_fn$0\", grid 1x1x1) -> 0 CUDA_SUCCESS",
      "T2 GOMP_OFFLOAD_alloc(0, 287)",
      "T1 cuCtxSynchronize -> 719 CUDA_ERROR_LAUNCH_FAILED",
      "T1 libgomp: fatal: cuCtxSynchronize error: unspecified launch failure",
      "T1 futex-wait (libgomp) on the word at 0x7f1ffc001438, value -1",
      "T2 GOMP_OFFLOAD_alloc -> 0x103600000",
      "T12 GOMP_OFFLOAD_free(0, 0x103600000)",
      "Tx cuInit -> 0",
      "",
  };
  EXPECT_EQ(SteeringOrder(calls),
            (std::vector<std::string>{"T2 GOMP_target_enter_exit_data", "T1 GOMP_OFFLOAD_run", "T1 cuMemAlloc_v2", "T1 cuLaunchKernel",
                                      "T2 GOMP_OFFLOAD_alloc", "T1 cuCtxSynchronize",
                                      "T12 GOMP_OFFLOAD_free"}));
}

}  // namespace
}  // namespace stackcheck::cli
