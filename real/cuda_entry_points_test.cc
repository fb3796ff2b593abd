#include "real/cuda_entry_points.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/driver_call.h"
#include "gtest/gtest.h"

namespace stackcheck::real {
namespace {

TEST(CudaEntryPointsTest, MissingLibraryGivesOneClearLine) {
  absl::StatusOr<CudaEntryPoints> api = LoadDriverFrom("libstackcheck-no-such-driver.so.1");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StartsWith(api.status().message(),
                               "no CUDA driver: libstackcheck-no-such-driver.so.1 not found ("))
      << api.status();
  EXPECT_FALSE(absl::StrContains(api.status().message(), "\n"));
}

TEST(CudaEntryPointsTest, LibraryWithoutGetProcAddressIsNotADriver) {
  absl::StatusOr<CudaEntryPoints> api = LoadDriverFrom("libm.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(api.status().message(), "cuGetProcAddress_v2")) << api.status();
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
  EXPECT_TRUE(absl::StartsWith(api.status().message(), "no CUDA driver: ")) << api.status();
  // Asking again gives the same answer without retrying the load.
  EXPECT_EQ(LoadDriver().status(), api.status());
}

// The export cuda.h binds each function the backend resolves to: a name
// stringified after macro expansion (cuMemAlloc -> "cuMemAlloc_v2").
#define STACKCHECK_EXPANDED_NAME(name) STACKCHECK_QUOTE(name)
#define STACKCHECK_QUOTE(name) #name

// core/driver_call.h's export names are the ones this backend calls: for each
// core call, the function of its unversioned name is bound by cuda.h to the
// export core names. The backend retains the primary context instead of
// creating and destroying one.
TEST(CudaEntryPointsTest, CoreExportNamesAreTheOnesCudaHBinds) {
  const std::map<std::string, std::string> bound = {
#define STACKCHECK_BOUND(name) {#name, STACKCHECK_EXPANDED_NAME(name)},
      STACKCHECK_DRIVER_FUNCTIONS(STACKCHECK_BOUND)
#undef STACKCHECK_BOUND
  };
  int checked = 0;
  for (int i = 0; i < kDriverCallCount; ++i) {
    const auto call = static_cast<DriverCall>(i);
    const std::string symbol(DriverCallSymbol(call));
    std::string base = symbol;
    const std::size_t v = base.rfind("_v");
    if (v != std::string::npos && v + 2 < base.size() &&
        absl::ascii_isdigit(static_cast<unsigned char>(base[v + 2]))) {
      base.resize(v);
    }
    auto it = bound.find(base);
    if (call == DriverCall::kCtxCreate || call == DriverCall::kCtxDestroy) {
      EXPECT_EQ(it, bound.end()) << base;
      continue;
    }
    ASSERT_NE(it, bound.end()) << base << " is not resolved by the backend";
    EXPECT_EQ(it->second, symbol) << base;
    ++checked;
  }
  EXPECT_EQ(checked, kDriverCallCount - 2);
}

TEST(CudaEntryPointsTest, ErrorNamesComeFromOurTable) {
  EXPECT_EQ(DriverErrorName(CUDA_ERROR_LAUNCH_FAILED), "CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(DriverErrorName(static_cast<CUresult>(12345)), "CUDA_ERROR_12345");
}

}  // namespace
}  // namespace stackcheck::real
