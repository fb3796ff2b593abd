// The real backend on a GPU. Without a driver every case skips with the
// loader's one-line reason; cuda_entry_points_test checks that path itself.
#include "real/cuda_device.h"

#include <unistd.h>

#include <atomic>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace stackcheck::real {
namespace {

constexpr std::uint64_t kSlot = 128 * 1024;

// A region on `block`'s slots, by field name: KernelArgs gains fields, and a
// positional initializer would silently shift every value into the next one.
KernelArgs RegionArgs(DevicePtr block, std::uint32_t region_tag, std::uint64_t duration_ns) {
  KernelArgs args;
  args.stacks = block;
  args.stack_size_per_warp = kSlot;
  args.region_tag = region_tag;
  args.duration_ns = duration_ns;
  return args;
}

class CudaDeviceTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::Create();
    if (!device.ok()) GTEST_SKIP() << device.status().message();
    device_ = *std::move(device);
    const CuResult init = device_->Init();
    if (init != CuResult::kSuccess) {
      GTEST_SKIP() << "no usable GPU: cuInit gives " << CuResultName(init);
    }
    ASSERT_EQ(device_->CtxCreate(), CuResult::kSuccess);
    ModuleHandle module;
    ASSERT_EQ(device_->ModuleLoad(&module, kKernelImage), CuResult::kSuccess);
    ASSERT_EQ(device_->ModuleGetFunction(&region_, module, kRegionKernel), CuResult::kSuccess);
    device_->ResetKernelReport();
  }
  void TearDown() override {
    if (device_ != nullptr) device_->CtxSynchronize();
  }

  std::unique_ptr<CudaDevice> device_;
  FunctionHandle region_{};
};

TEST_F(CudaDeviceTest, LedgerFollowsAllocAndFree) {
  DevicePtr p = 0;
  ASSERT_EQ(device_->MemAlloc(&p, 1 << 20), CuResult::kSuccess);
  EXPECT_EQ(device_->Ledger().live_bytes, 1u << 20);
  EXPECT_EQ(device_->MemFree(p), CuResult::kSuccess);
  EXPECT_EQ(device_->Ledger().live_bytes, 0u);
  // SEM-11: a double free is refused, not sticky.
  EXPECT_EQ(device_->MemFree(p), CuResult::kInvalidValue);
  EXPECT_EQ(device_->Ledger().failed_frees, 1u);
  EXPECT_EQ(device_->MemAlloc(&p, 0), CuResult::kInvalidValue);  // SEM-10
}

TEST_F(CudaDeviceTest, RegionKernelChecksItsSlotsAndFindsThemIntact) {
  DevicePtr block = 0;
  ASSERT_EQ(device_->MemAlloc(&block, kSlot * 8 * 8), CuResult::kSuccess);
  const KernelArgs args = RegionArgs(block, /*region_tag=*/7, /*duration_ns=*/1000000);
  ASSERT_EQ(device_->LaunchKernel(region_, {8}, {32, 8}, args, kLegacyStream), CuResult::kSuccess);
  ASSERT_EQ(device_->CtxSynchronize(), CuResult::kSuccess);
  KernelReport report = device_->ReadKernelReport();
  EXPECT_EQ(report.corruptions, 0u);
  EXPECT_TRUE(report.warps_checked_known);
  EXPECT_EQ(report.warps_checked, 64u);
  EXPECT_EQ(device_->MemFree(block), CuResult::kSuccess);
}

// Two regions sharing one block at the same time: what a cache that hands a
// busy block out again would do. The tags make it visible.
TEST_F(CudaDeviceTest, ConcurrentKernelsOnOneBlockAreCounted) {
  DevicePtr block = 0;
  ASSERT_EQ(device_->MemAlloc(&block, kSlot * 8 * 8), CuResult::kSuccess);
  StreamHandle a, b;
  ASSERT_EQ(device_->StreamCreate(&a, StreamFlags::kNonBlocking), CuResult::kSuccess);
  ASSERT_EQ(device_->StreamCreate(&b, StreamFlags::kNonBlocking), CuResult::kSuccess);
  const KernelArgs first = RegionArgs(block, 1, 50000000);
  const KernelArgs second = RegionArgs(block, 2, 50000000);
  ASSERT_EQ(device_->LaunchKernel(region_, {8}, {32, 8}, first, a), CuResult::kSuccess);
  ASSERT_EQ(device_->LaunchKernel(region_, {8}, {32, 8}, second, b), CuResult::kSuccess);
  ASSERT_EQ(device_->CtxSynchronize(), CuResult::kSuccess);
  KernelReport report = device_->ReadKernelReport();
  EXPECT_GT(report.corruptions, 0u);
  EXPECT_NE(report.expected, report.observed);
  EXPECT_EQ(device_->MemFree(block), CuResult::kSuccess);
}

struct CallbackSeen {
  std::atomic<bool> ran{false};
  StreamHandle stream{};
  CuResult status = CuResult::kUnknown;
  bool in_callback_context = false;
  CuResult alloc_from_callback = CuResult::kSuccess;
  CudaDevice* device = nullptr;
};

TEST_F(CudaDeviceTest, CallbacksSeeOurHandlesAndDriverCallsAreCounted) {
  StreamHandle s;
  ASSERT_EQ(device_->StreamCreate(&s, StreamFlags::kBlocking), CuResult::kSuccess);
  CallbackSeen seen;
  seen.device = device_.get();
  ASSERT_EQ(device_->StreamAddCallback(
                s,
                [](StreamHandle stream, CuResult status, void* p) {
                  auto* seen = static_cast<CallbackSeen*>(p);
                  seen->stream = stream;
                  seen->status = status;
                  seen->in_callback_context = CudaDevice::InCallbackContext();
                  DevicePtr ptr = 0;
                  seen->alloc_from_callback = seen->device->MemAlloc(&ptr, 4096);
                  seen->ran = true;
                },
                &seen),
            CuResult::kSuccess);
  ASSERT_EQ(device_->StreamSynchronize(s), CuResult::kSuccess);
  ASSERT_TRUE(seen.ran.load());
  EXPECT_EQ(seen.stream, s);
  EXPECT_EQ(seen.status, CuResult::kSuccess);
  EXPECT_TRUE(seen.in_callback_context);
  EXPECT_FALSE(CudaDevice::InCallbackContext());
  EXPECT_EQ(seen.alloc_from_callback, CuResult::kNotPermitted);  // SEM-09
  DeviceLedger ledger = device_->Ledger();
  EXPECT_EQ(ledger.calls_from_callback, 1u);
  EXPECT_EQ(ledger.first_call_from_callback, "cuMemAlloc");
  EXPECT_EQ(ledger.callbacks_run, 1u);
}

// A trap poisons the context for the rest of the process (SEM-04/05), so it
// runs in a re-executed child.
TEST_F(CudaDeviceTest, TrapIsLaunchFailedAndSticky) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto poison_and_check = [this] {
    KernelArgs args;
    args.region_tag = 1;
    args.action = KernelAction::kTrap;
    if (device_->LaunchKernel(region_, {1}, {32, 1}, args, kLegacyStream) != CuResult::kSuccess) {
      _exit(10);
    }
    if (device_->CtxSynchronize() != CuResult::kLaunchFailed) _exit(11);
    DevicePtr p = 0;
    if (device_->MemAlloc(&p, 4096) != CuResult::kLaunchFailed) _exit(12);
    _exit(0);
  };
  EXPECT_EXIT(poison_and_check(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace stackcheck::real
