#include "properties/program/steering.h"

#include "gtest/gtest.h"

namespace stackcheck::properties {
namespace {

using program::CallRecord;
using Kind = CallRecord::Kind;

TEST(SteeringOrderTest, EntriesOfPluginCallsAndEveryDriverCallInOrder) {
  const std::vector<CallRecord> calls = {
      {"T2", Kind::kOpenmp, "GOMP_target_enter_exit_data", "(device -1)"},
      {"T1", Kind::kPluginEntry, "GOMP_OFFLOAD_run", "(0, fn 0x7f1ffc003a28, vars 0x103200000)"},
      {"T1", Kind::kDriver, "cuMemAlloc_v2", "(131072 bytes) -> 0 CUDA_SUCCESS, 0x103400000"},
      {"T1", Kind::kDriver, "cuLaunchKernel", "(\"thread_a$_omp_fn$0\", grid 1x1x1) -> 0"},
      {"T1", Kind::kDriverNote, "", "kernel \"thread_a$_omp_fn$0\" traps: abort"},
      {"T2", Kind::kPluginEntry, "GOMP_OFFLOAD_alloc", "(0, 287)"},
      {"T1", Kind::kDriver, "cuCtxSynchronize", " -> 719 CUDA_ERROR_LAUNCH_FAILED"},
      {"T1", Kind::kLibgompMessage, "", "libgomp: fatal: cuCtxSynchronize error"},
      {"T1", Kind::kFutexWait, "", "futex-wait (libgomp) on the word at 0x7f1ffc001438"},
      {"T2", Kind::kPluginReturn, "GOMP_OFFLOAD_alloc", " -> 0x103600000"},
      {"T12", Kind::kPluginEntry, "GOMP_OFFLOAD_free", "(0, 0x103600000)"},
      {"Tx", Kind::kDriver, "cuInit", " -> 0"},
      {"", Kind::kDriver, "cuInit", " -> 0"},
      {"callback", Kind::kDriver, "cuMemFree_v2", "(0x1) -> 0"},
  };
  EXPECT_EQ(
      SteeringOrder(calls),
      (std::vector<std::string>{"T2 GOMP_target_enter_exit_data", "T1 GOMP_OFFLOAD_run",
                                "T1 cuMemAlloc_v2", "T1 cuLaunchKernel", "T2 GOMP_OFFLOAD_alloc",
                                "T1 cuCtxSynchronize", "T12 GOMP_OFFLOAD_free"}));
}

TEST(CallRecordTest, FormatsAsTheCallLogLine) {
  EXPECT_EQ(program::FormatCall({"T1", Kind::kDriver, "cuCtxSynchronize", " -> 0"}),
            "T1 cuCtxSynchronize -> 0");
  EXPECT_EQ(program::FormatCall({"", Kind::kDriverNote, "", "kernel traps"}), "kernel traps");
  for (Kind k : {Kind::kOpenmp, Kind::kPluginEntry, Kind::kPluginReturn, Kind::kDriver,
                 Kind::kDriverNote, Kind::kLibgompMessage, Kind::kFutexWait}) {
    EXPECT_EQ(program::KindNamed(program::KindName(k)), k);
  }
  EXPECT_EQ(program::KindNamed("prose"), std::nullopt);
}

}  // namespace
}  // namespace stackcheck::properties
