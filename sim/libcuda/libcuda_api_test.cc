// The driver library's own rules, through dlopen as the plugin uses it: copies
// round-trip real bytes, the SimDevice's error rules reach the caller, PTX
// names answer module queries, callbacks run on the simulated callback thread
// where driver calls are refused (SEM-09), unimplemented entry points fail with
// a message, and cuGetProcAddress finds the versioned functions.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "sim/libcuda/open_library_for_test.h"

namespace {

using CUresult = int;
using CUdeviceptr = std::uint64_t;

void* g_lib = nullptr;

template <typename F>
F Sym(const char* name) {
  void* p = dlsym(g_lib, name);
  EXPECT_NE(p, nullptr) << name;
  return reinterpret_cast<F>(p);
}

constexpr char kPtx[] = R"(
.version 7.0
.target sm_80
.address_size 64
.visible .global .align 8 .u64 counter;
.visible .global .align 4 .b8 table[12];
.visible .entry kern (.param .u64 %arg, .param .u64 %stack, .param .u64 %sz)
{
  ret;
}
)";

int g_callback_status = -1;
CUresult g_call_from_callback = -1;

void Callback(void* /*stream*/, CUresult status, void* user_data) {
  g_callback_status = status;
  auto sync = reinterpret_cast<CUresult (*)()>(user_data);
  g_call_from_callback = sync();
}

void Record(void* /*stream*/, CUresult status, void* /*user_data*/) { g_callback_status = status; }

class LibcudaApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_lib = stackcheck::libcuda::OpenLibcudaForTest();
    ASSERT_NE(g_lib, nullptr) << dlerror();
  }
};

// The context the steps below run in, made current.
void CreateContext(void** ctx) {
  ASSERT_EQ(Sym<CUresult (*)(unsigned)>("cuInit")(0), 0);
  ASSERT_EQ(Sym<CUresult (*)(void**, unsigned, int)>("cuCtxCreate_v2")(ctx, 0, 0), 0);
  ASSERT_NE(*ctx, nullptr);
  void* current = nullptr;
  ASSERT_EQ(Sym<CUresult (*)(void**)>("cuCtxGetCurrent")(&current), 0);
  EXPECT_EQ(current, *ctx);
}

// Real bytes: what goes in comes back, at an offset too.
void ExpectCopiesRoundTripAndFreesFollowSem11() {
  auto alloc = Sym<CUresult (*)(CUdeviceptr*, std::size_t)>("cuMemAlloc_v2");
  auto free_ = Sym<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
  auto htod = Sym<CUresult (*)(CUdeviceptr, const void*, std::size_t)>("cuMemcpyHtoD_v2");
  auto dtoh = Sym<CUresult (*)(void*, CUdeviceptr, std::size_t)>("cuMemcpyDtoH_v2");
  CUdeviceptr block = 0;
  ASSERT_EQ(alloc(&block, 64), 0);
  const char text[] = "stackcheck";
  ASSERT_EQ(htod(block + 8, text, sizeof text), 0);
  char back[sizeof text] = {};
  ASSERT_EQ(dtoh(back, block + 8, sizeof text), 0);
  EXPECT_STREQ(back, text);
  // SEM-11: out of range, zero bytes and a double free are invalid values.
  EXPECT_EQ(dtoh(back, block + 60, 8), 1);
  EXPECT_EQ(alloc(&block, 0) == 0, false);
  EXPECT_EQ(free_(block), 0);
  EXPECT_EQ(free_(block), 1);
  EXPECT_EQ(free_(0), 0);
}

// Modules: names from the PTX; globals have device memory of their size.
// `table` is left at the global of that name.
void LoadModuleAndExpectItsNames(void** module, CUdeviceptr* table) {
  ASSERT_EQ(Sym<CUresult (*)(void**, const void*)>("cuModuleLoadData")(module, kPtx), 0);
  auto get_function = Sym<CUresult (*)(void**, void*, const char*)>("cuModuleGetFunction");
  void* function = nullptr;
  EXPECT_EQ(get_function(&function, *module, "kern"), 0);
  EXPECT_EQ(get_function(&function, *module, "missing"), 500);
  // The simulator's own kernel names are not this module's.
  EXPECT_EQ(get_function(&function, *module, "omp_region"), 500);
  auto get_global =
      Sym<CUresult (*)(CUdeviceptr*, std::size_t*, void*, const char*)>("cuModuleGetGlobal_v2");
  auto htod = Sym<CUresult (*)(CUdeviceptr, const void*, std::size_t)>("cuMemcpyHtoD_v2");
  std::size_t bytes = 0;
  ASSERT_EQ(get_global(table, &bytes, *module, "table"), 0);
  EXPECT_EQ(bytes, 12u);
  const std::uint32_t words[3] = {1, 2, 3};
  EXPECT_EQ(htod(*table, words, sizeof words), 0);
  EXPECT_EQ(get_global(table, &bytes, *module, "nothing"), 500);
}

// A launch with libgomp's arguments, then a callback behind it.
void ExpectLaunchThenCallback(void* module) {
  auto alloc = Sym<CUresult (*)(CUdeviceptr*, std::size_t)>("cuMemAlloc_v2");
  auto free_ = Sym<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
  auto get_function = Sym<CUresult (*)(void**, void*, const char*)>("cuModuleGetFunction");
  void* function = nullptr;
  ASSERT_EQ(get_function(&function, module, "kern"), 0);
  CUdeviceptr vars = 0, stacks = 0;
  ASSERT_EQ(alloc(&vars, 16), 0);
  ASSERT_EQ(alloc(&stacks, 4 * 2 * 1024), 0);
  std::uint64_t size = 1024;
  void* params[] = {&vars, &stacks, &size};
  auto launch = Sym<CUresult (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, void*, void**, void**)>("cuLaunchKernel");
  EXPECT_EQ(launch(function, 4, 1, 1, 32, 2, 1, 0, nullptr, params, nullptr), 0);
  // SEM-03: a configuration error fails at once.
  EXPECT_EQ(launch(function, 0, 1, 1, 32, 2, 1, 0, nullptr, params, nullptr), 1);
  // A callback behind the kernel runs once the stream reaches it (SEM-08).
  auto add_callback = Sym<CUresult (*)(void*, void (*)(void*, CUresult, void*), void*, unsigned)>(
      "cuStreamAddCallback");
  ASSERT_EQ(add_callback(nullptr, Record, nullptr, 0), 0);
  ASSERT_EQ(Sym<CUresult (*)(void*)>("cuStreamSynchronize")(nullptr), 0);
  EXPECT_EQ(g_callback_status, 0);
  auto sync = Sym<CUresult (*)()>("cuCtxSynchronize");
  EXPECT_EQ(sync(), 0);
  EXPECT_EQ(free_(vars), 0);
  EXPECT_EQ(free_(stacks), 0);
}

// Unimplemented: an error and one line on stderr naming the call.
void ExpectUnimplementedCallNamedOnStderr() {
  testing::internal::CaptureStderr();
  EXPECT_EQ(
      Sym<CUresult (*)(float*, void*, void*)>("cuEventElapsedTime")(nullptr, nullptr, nullptr),
      801);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cuEventElapsedTime is not implemented"), std::string::npos) << err;
}

// cuGetProcAddress hands out the newest version of a name.
void ExpectProcAddressGivesNewestVersion() {
  void* fn = nullptr;
  ASSERT_EQ(Sym<CUresult (*)(const char*, void**, int, std::uint64_t)>("cuGetProcAddress")(
                "cuMemAlloc", &fn, 12000, 0),
            0);
  EXPECT_EQ(fn, dlsym(g_lib, "cuMemAlloc_v2"));
}

// A fatal failure in one step ends the test: the steps after it need what it
// set up.
TEST_F(LibcudaApi, DriverRulesThroughTheSimulator) {
  void* ctx = nullptr;
  ASSERT_NO_FATAL_FAILURE(CreateContext(&ctx));
  ASSERT_NO_FATAL_FAILURE(ExpectCopiesRoundTripAndFreesFollowSem11());
  void* module = nullptr;
  CUdeviceptr table = 0;
  ASSERT_NO_FATAL_FAILURE(LoadModuleAndExpectItsNames(&module, &table));
  ASSERT_NO_FATAL_FAILURE(ExpectLaunchThenCallback(module));
  ExpectUnimplementedCallNamedOnStderr();
  ASSERT_NO_FATAL_FAILURE(ExpectProcAddressGivesNewestVersion());

  EXPECT_EQ(Sym<CUresult (*)(void*)>("cuModuleUnload")(module), 0);
  EXPECT_EQ(Sym<CUresult (*)(void*)>("cuCtxDestroy_v2")(ctx), 0);
  // SEM-15: a block of the destroyed context is gone.
  auto dtoh = Sym<CUresult (*)(void*, CUdeviceptr, std::size_t)>("cuMemcpyDtoH_v2");
  char back[4] = {};
  EXPECT_NE(dtoh(back, table, 4), 0);
}

// A callback that calls the driver breaks SEM-09: the simulated execution
// stops at that call with the monitor's verdict, and the process ends with
// status 86 after writing the report.
TEST_F(LibcudaApi, DriverCallFromCallbackEndsTheRunWithItsVerdict) {
  // The child starts afresh, so the simulation it starts is its own.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Sym<CUresult (*)(unsigned)>("cuInit")(0);
        void* ctx = nullptr;
        Sym<CUresult (*)(void**, unsigned, int)>("cuCtxCreate_v2")(&ctx, 0, 0);
        auto sync = Sym<CUresult (*)()>("cuCtxSynchronize");
        auto add_callback =
            Sym<CUresult (*)(void*, void (*)(void*, CUresult, void*), void*, unsigned)>(
                "cuStreamAddCallback");
        add_callback(nullptr, Callback, reinterpret_cast<void*>(sync), 0);
        Sym<CUresult (*)(void*)>("cuStreamSynchronize")(nullptr);
        std::exit(0);  // not reached: the call above ends the process
      },
      ::testing::ExitedWithCode(86), "VIOLATION no-driver-call-in-callback");
}

}  // namespace
