#include "real/cuda_entry_points.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace stackcheck::real {
namespace {

TEST(CudaEntryPointsTest, MissingLibraryGivesOneClearLine) {
  absl::StatusOr<CudaEntryPoints> api =
      LoadDriverFrom("libstackcheck-no-such-driver.so.1");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StartsWith(
      api.status().message(),
      "no CUDA driver: libstackcheck-no-such-driver.so.1 not found ("))
      << api.status();
  EXPECT_FALSE(absl::StrContains(api.status().message(), "\n"));
}

TEST(CudaEntryPointsTest, LibraryWithoutGetProcAddressIsNotADriver) {
  absl::StatusOr<CudaEntryPoints> api = LoadDriverFrom("libm.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(api.status().message(), "cuGetProcAddress_v2"))
      << api.status();
}

// The process-wide loader: either a working driver with every entry point, or
// the clear "no CUDA driver" status (this is what CI without a GPU checks).
TEST(CudaEntryPointsTest, ProcessDriverLoadsOrSaysWhy) {
  absl::StatusOr<const CudaEntryPoints*> api = LoadDriver();
  if (api.ok()) {
    EXPECT_NE((*api)->cuLaunchKernel, nullptr);
    EXPECT_GE((*api)->driver_version, 12000);
    return;
  }
  EXPECT_TRUE(absl::StartsWith(api.status().message(), "no CUDA driver: "))
      << api.status();
  // Asking again gives the same answer without retrying the load.
  EXPECT_EQ(LoadDriver().status(), api.status());
}

TEST(CudaEntryPointsTest, ErrorNamesComeFromOurTable) {
  EXPECT_EQ(DriverErrorName(CUDA_ERROR_LAUNCH_FAILED),
            "CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(DriverErrorName(static_cast<CUresult>(12345)), "CUDA_ERROR_12345");
}

}  // namespace
}  // namespace stackcheck::real
