// Every kind of function a program, libgomp or the plugin calls in this
// library runs with a stack that breaks the ABI's 16-byte alignment at the
// call: the driver's entry points on the device model, the interposed
// pthread, signal and libgomp functions, and the registration of offload
// images. Each is called through a trampoline that leaves the stack 8 mod
// 16 where the callee expects 0 (entry_point.h).
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "sim/libcuda/open_library_for_test.h"

// CallMisaligned(fn, a0, a1, a2, a3, a4): fn(a0, ..., a4), entered with the
// stack pointer 0 mod 16 instead of the ABI's 8.
extern "C" std::uint64_t CallMisaligned(const void* fn, std::uint64_t a0, std::uint64_t a1,
                                        std::uint64_t a2, std::uint64_t a3, std::uint64_t a4);
asm(R"(
  .text
  .globl CallMisaligned
  .type CallMisaligned, @function
CallMisaligned:
  push %rbp
  mov %rsp, %rbp
  and $-16, %rsp
  sub $8, %rsp
  mov %rdi, %rax
  mov %rsi, %rdi
  mov %rdx, %rsi
  mov %rcx, %rdx
  mov %r8, %rcx
  mov %r9, %r8
  call *%rax
  leave
  ret
  .size CallMisaligned, .-CallMisaligned
)");

namespace {

void* g_lib = nullptr;

template <typename... Args>
std::uint64_t Call(const char* name, Args... args) {
  void* fn = dlsym(g_lib, name);
  EXPECT_NE(fn, nullptr) << name;
  if (fn == nullptr) return ~std::uint64_t{0};
  std::uint64_t words[5] = {static_cast<std::uint64_t>((std::uintptr_t)args)...};
  return CallMisaligned(fn, words[0], words[1], words[2], words[3], words[4]);
}

class EntryPointAlignment : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_lib = stackcheck::libcuda::OpenLibcudaForTest();
    ASSERT_NE(g_lib, nullptr) << dlerror();
  }
};

TEST_F(EntryPointAlignment, DriverCallsOnTheDeviceModel) {
  EXPECT_EQ(Call("cuInit", 0), 0u);
  int version = 0;
  EXPECT_EQ(Call("cuDriverGetVersion", &version), 0u);
  char name[64];
  EXPECT_EQ(Call("cuDeviceGetName", name, sizeof name, 0), 0u);
  void* context = nullptr;
  EXPECT_EQ(Call("cuCtxCreate_v2", &context, 0, 0), 0u);
  std::uint64_t block = 0;
  EXPECT_EQ(Call("cuMemAlloc_v2", &block, 4096), 0u);
  char bytes[64] = "aligned or not";
  char back[64] = {};
  EXPECT_EQ(Call("cuMemcpyHtoD_v2", block, bytes, sizeof bytes), 0u);
  EXPECT_EQ(Call("cuMemcpyDtoH_v2", back, block, sizeof back), 0u);
  EXPECT_STREQ(back, bytes);
  const char* text = nullptr;
  EXPECT_EQ(Call("cuGetErrorString", 700, &text), 0u);
  EXPECT_EQ(Call("cuMemFree_v2", block), 0u);
  EXPECT_EQ(Call("cuCtxSynchronize"), 0u);
  EXPECT_EQ(Call("cuCtxDestroy_v2", context), 0u);
}

TEST_F(EntryPointAlignment, InterposedCFunctions) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  EXPECT_EQ(Call("pthread_mutex_lock", &mutex), 0u);
  EXPECT_EQ(Call("pthread_mutex_unlock", &mutex), 0u);
  struct sigaction old {};
  EXPECT_EQ(Call("sigaction", SIGUSR2, nullptr, &old), 0u);
  EXPECT_EQ(Call("sched_yield"), 0u);
  Call("omp_is_initial_device");
  Call("GOMP_teams4", 0, 0, 0, 0);  // outside a kernel: libgomp's, or nothing without it
  Call("GOMP_offload_register_ver", 0, nullptr, 5, nullptr);  // nothing to record
  Call("dlsym", RTLD_DEFAULT, "malloc");
}

}  // namespace
