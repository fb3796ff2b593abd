#include "sim/program/kernel_body.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/program/entry_point.h"
#include "sim/program/fault_handlers.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

// A GPU thread's stack is small; the host function's frames may not be.
constexpr std::size_t kKernelStackBytes = std::size_t{64} << 20;

// libgomp's numbers (gomp-constants.h): the host-fallback device, and the
// target-argument word that says a value word follows.
constexpr int kHostFallbackDevice = -2;
constexpr std::uintptr_t kSubsequentParameter = 1 << 7;

struct Body {
  const KernelLaunch* launch;
  KernelOutcome outcome;
  sigjmp_buf trap;
};

using TargetExt = void (*)(int, HostFunction, std::size_t, void**, std::size_t*, unsigned short*,
                           unsigned, void**, void**);

TargetExt LibgompTargetExt() {
  static auto next = reinterpret_cast<TargetExt>(Real().dlsym(RTLD_NEXT, "GOMP_target_ext"));
  return next;
}

thread_local Body* t_body = nullptr;

void* KernelThread(void* p) {
  t_body = static_cast<Body*>(p);
  const KernelLaunch& launch = *t_body->launch;
  std::vector<void*> arguments = launch.target_arguments;
  if (arguments.empty() || arguments.back() != nullptr) arguments.push_back(nullptr);
  if (sigsetjmp(t_body->trap, 1) == 0) {
    LibgompTargetExt()(kHostFallbackDevice, launch.function, 0, static_cast<void**>(launch.vars),
                       nullptr, nullptr, 0, nullptr, arguments.data());
  }
  t_body = nullptr;
  return nullptr;
}

}  // namespace

bool InKernelBody() { return t_body != nullptr; }

const KernelLaunch& KernelGeometry() { return *t_body->launch; }

void EndKernelWithTrap(const char* why) {
  t_body->outcome.trapped = true;
  t_body->outcome.why = why;
  siglongjmp(t_body->trap, 1);
}

std::vector<void*> CopyTargetArguments(void* const* arguments) {
  std::vector<void*> copy;
  if (arguments != nullptr) {
    while (*arguments != nullptr) {
      const auto id = reinterpret_cast<std::uintptr_t>(*arguments);
      copy.push_back(*arguments++);
      if (id & kSubsequentParameter) copy.push_back(*arguments++);
    }
  }
  copy.push_back(nullptr);
  return copy;
}

KernelOutcome RunKernelBody(const KernelLaunch& launch) {
  if (LibgompTargetExt() == nullptr) return KernelOutcome{true, "libgomp is not loaded"};
  InstallFaultHandlers();  // a fault in the kernel's code is its trap
  Body body{&launch, {}, {}};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kKernelStackBytes);
  pthread_t thread;
  const int rc = CreateOwnThread(&thread, &attr, &KernelThread, &body);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    return KernelOutcome{true, absl::StrCat("no thread to run the kernel on: ", std::strerror(rc))};
  }
  const int watchdog = WatchdogSeconds();
  if (watchdog <= 0) {
    Real().pthread_join(thread, nullptr);
    return body.outcome;
  }
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += watchdog;
  if (pthread_timedjoin_np(thread, nullptr, &deadline) == ETIMEDOUT) {
    EndStuck(
        absl::StrFormat(
            "the kernel %s ran %d s without ending: its code (the region's host version) loops "
            "or waits for something only the device would do",
            launch.kernel, watchdog),
        absl::StrCat("progress: the kernel ", launch.kernel, " never ends"));
  }
  return body.outcome;
}

}  // namespace stackcheck::program

// abort() in a region's code: on the GPU, GCC's nvptx abort is a trap that
// ends the kernel (SEM-04); elsewhere the C library's.
extern "C" [[noreturn]] STACKCHECK_ENTRY_POINT void abort() {
  if (stackcheck::program::InKernelBody()) {
    stackcheck::program::EndKernelWithTrap("abort() in device code");
  }
  using Abort = void (*)();
  static auto real = reinterpret_cast<Abort>(stackcheck::program::Real().dlsym(RTLD_NEXT, "abort"));
  if (real != nullptr) real();
  raise(SIGABRT);
  _exit(134);
}

// The device's answers inside a kernel; libgomp's own elsewhere. The Fortran
// bindings (omp_lib's, trailing underscore) reach libgomp's C functions
// inside libgomp, past the C ones, so they are answered too.
namespace stackcheck::program {
namespace {

template <const char* kName>
int HostAnswer(int fallback) {
  static auto real = reinterpret_cast<int (*)()>(Real().dlsym(RTLD_NEXT, kName));
  return real != nullptr ? real() : fallback;
}

constexpr char kIsInitialDevice[] = "omp_is_initial_device";
constexpr char kIsInitialDeviceFortran[] = "omp_is_initial_device_";
constexpr char kDeviceNum[] = "omp_get_device_num";
constexpr char kDeviceNumFortran[] = "omp_get_device_num_";
// One device: the plugin writes 0 into the image's __gomp_device_num.
constexpr int kThisDevice = 0;

}  // namespace
}  // namespace stackcheck::program

using stackcheck::program::HostAnswer;
using stackcheck::program::InKernelBody;

extern "C" STACKCHECK_ENTRY_POINT int omp_is_initial_device() {
  return InKernelBody() ? 0 : HostAnswer<stackcheck::program::kIsInitialDevice>(1);
}
extern "C" STACKCHECK_ENTRY_POINT int omp_is_initial_device_() {
  return InKernelBody() ? 0 : HostAnswer<stackcheck::program::kIsInitialDeviceFortran>(1);
}
extern "C" STACKCHECK_ENTRY_POINT int omp_get_device_num() {
  return InKernelBody() ? stackcheck::program::kThisDevice
                        : HostAnswer<stackcheck::program::kDeviceNum>(0);
}
extern "C" STACKCHECK_ENTRY_POINT int omp_get_device_num_() {
  return InKernelBody() ? stackcheck::program::kThisDevice
                        : HostAnswer<stackcheck::program::kDeviceNumFortran>(0);
}

// The launch's geometry inside a kernel. The region's host version asks
// libgomp's host GOMP_teams4 for its teams; on the GPU, GCC's nvptx
// GOMP_teams4 gives as many as the grid has blocks (num_teams' upper bound
// and lower bound applied the nvptx way). The host one, told that number as
// both bounds, runs those teams one after another, with the team numbers and
// omp_get_num_teams() of the device.
extern "C" STACKCHECK_ENTRY_POINT bool GOMP_teams4(unsigned lower, unsigned upper,
                                                   unsigned thread_limit, bool first) {
  using Teams4 = bool (*)(unsigned, unsigned, unsigned, bool);
  static auto real =
      reinterpret_cast<Teams4>(stackcheck::program::Real().dlsym(RTLD_NEXT, "GOMP_teams4"));
  if (first && InKernelBody()) {
    const unsigned blocks = stackcheck::program::KernelGeometry().teams;
    const unsigned teams = upper == 0       ? blocks
                           : blocks < lower ? lower
                           : blocks < upper ? blocks
                                            : upper;
    lower = upper = teams;
  }
  return real != nullptr ? real(lower, upper, thread_limit, first) : first;
}

// A parallel region inside a kernel: on the GPU its threads are the block's
// warps (nvptx libgomp's nthreads-var and thread-limit-var start at ntid.y),
// so an unnumbered one gets that many, and a numbered one at most that many.
extern "C" STACKCHECK_ENTRY_POINT void GOMP_parallel(void (*fn)(void*), void* data,
                                                     unsigned num_threads, unsigned flags) {
  using Parallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static auto real =
      reinterpret_cast<Parallel>(stackcheck::program::Real().dlsym(RTLD_NEXT, "GOMP_parallel"));
  if (InKernelBody()) {
    const unsigned warps = stackcheck::program::KernelGeometry().warps;
    num_threads = num_threads == 0 ? warps : std::min(num_threads, warps);
  }
  if (real == nullptr) {
    fn(data);  // no libgomp: one thread
    return;
  }
  real(fn, data, num_threads, flags);
}
