#include "sim/program/plugin_calls.h"

#include <dlfcn.h>

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/program/entry_point.h"
#include "sim/program/futex_trap.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

// Who is inside a device-lock plugin call, by twin.
std::map<ThreadId, const char*>& Holders() {
  static auto* holders = new std::map<ThreadId, const char*>;
  return *holders;
}

// One plugin call as a scheduling point, logged with its arguments; with
// `under_device_lock`, its thread is known to hold the device lock until it
// returns.
class PluginCall {
 public:
  PluginCall(const char* name, std::string arguments, bool under_device_lock) : name_(name) {
    LogProgramCall(CallRecord::Kind::kPluginEntry, name, absl::StrCat("(", arguments, ")"));
    AtPoint([&](Twin& twin) {
      twin.host.ProgramCall(name);
      if (under_device_lock) {
        holder_ = twin.host.CurrentThread();
        Holders()[holder_] = name;
        DeviceLockHolderKnown(twin);
      }
    });
  }
  ~PluginCall() {
    if (holder_ != kNoThread) Holders().erase(holder_);
  }
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;

  template <typename T>
  T Returns(T value, std::string shown) {
    LogProgramCall(CallRecord::Kind::kPluginReturn, name_, absl::StrCat(" -> ", shown));
    return value;
  }

 private:
  const char* name_;
  ThreadId holder_ = kNoThread;
};

std::string Shown(bool ok) { return ok ? "true" : "false"; }

// The plugin's real functions, filled in by dlsym as libgomp asks for them.
bool (*real_init_device)(int);
bool (*real_fini_device)(int);
int (*real_load_image)(int, unsigned, const void*, void*);
bool (*real_unload_image)(int, unsigned, const void*);
void* (*real_alloc)(int, std::size_t);
bool (*real_free)(int, void*);
bool (*real_dev2host)(int, void*, const void*, std::size_t);
bool (*real_host2dev)(int, void*, const void*, std::size_t);
bool (*real_dev2dev)(int, void*, const void*, std::size_t);
void (*real_run)(int, void*, void*, void**);

STACKCHECK_ENTRY_POINT bool InitDevice(int ord) {
  PluginCall call("GOMP_OFFLOAD_init_device", absl::StrCat(ord), true);
  const bool ok = real_init_device(ord);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT bool FiniDevice(int ord) {
  PluginCall call("GOMP_OFFLOAD_fini_device", absl::StrCat(ord), true);
  const bool ok = real_fini_device(ord);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT int LoadImage(int ord, unsigned version, const void* data, void* table) {
  PluginCall call("GOMP_OFFLOAD_load_image", absl::StrCat(ord), true);
  const int n = real_load_image(ord, version, data, table);
  return call.Returns(n, absl::StrCat(n));
}

STACKCHECK_ENTRY_POINT bool UnloadImage(int ord, unsigned version, const void* data) {
  PluginCall call("GOMP_OFFLOAD_unload_image", absl::StrCat(ord), true);
  const bool ok = real_unload_image(ord, version, data);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT void* Alloc(int ord, std::size_t size) {
  PluginCall call("GOMP_OFFLOAD_alloc", absl::StrCat(ord, ", ", size), true);
  void* p = real_alloc(ord, size);
  return call.Returns(p, p == nullptr ? std::string("NULL") : absl::StrFormat("%p", p));
}

STACKCHECK_ENTRY_POINT bool Free(int ord, void* p) {
  PluginCall call("GOMP_OFFLOAD_free", absl::StrFormat("%d, %p", ord, p), true);
  const bool ok = real_free(ord, p);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT bool Dev2Host(int ord, void* dst, const void* src, std::size_t n) {
  PluginCall call("GOMP_OFFLOAD_dev2host", absl::StrCat(ord, ", ", n, " bytes"), true);
  const bool ok = real_dev2host(ord, dst, src, n);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT bool Host2Dev(int ord, void* dst, const void* src, std::size_t n) {
  PluginCall call("GOMP_OFFLOAD_host2dev", absl::StrCat(ord, ", ", n, " bytes"), true);
  const bool ok = real_host2dev(ord, dst, src, n);
  return call.Returns(ok, Shown(ok));
}

STACKCHECK_ENTRY_POINT bool Dev2Dev(int ord, void* dst, const void* src, std::size_t n) {
  PluginCall call("GOMP_OFFLOAD_dev2dev", absl::StrCat(ord, ", ", n, " bytes"), true);
  const bool ok = real_dev2dev(ord, dst, src, n);
  return call.Returns(ok, Shown(ok));
}

// Not under the device lock: libgomp's GOMP_target_ext releases it after
// mapping and before the launch.
thread_local void* const* t_run_arguments = nullptr;

STACKCHECK_ENTRY_POINT void Run(int ord, void* fn, void* vars, void** args) {
  PluginCall call("GOMP_OFFLOAD_run", absl::StrFormat("%d, fn %p, vars %p", ord, fn, vars), false);
  t_run_arguments = args;
  real_run(ord, fn, vars, args);
  t_run_arguments = nullptr;
  call.Returns(0, "done");
}

// Outside control (the bridge) only the launch's target arguments are
// wanted: a kernel's code applies its thread limit (kernel_body.h).
STACKCHECK_ENTRY_POINT void RunRecordingArguments(int ord, void* fn, void* vars, void** args) {
  t_run_arguments = args;
  real_run(ord, fn, vars, args);
  t_run_arguments = nullptr;
}

struct Wrapper {
  const char* name;
  void** real;
  void* wrapper;
};

template <typename F>
Wrapper Row(const char* name, F* real, F wrapper) {
  return Wrapper{name, reinterpret_cast<void**>(real), reinterpret_cast<void*>(wrapper)};
}

void* Wrap(const char* name, void* real) {
  static const Wrapper kWrappers[] = {
      Row("GOMP_OFFLOAD_init_device", &real_init_device, &InitDevice),
      Row("GOMP_OFFLOAD_fini_device", &real_fini_device, &FiniDevice),
      Row("GOMP_OFFLOAD_load_image", &real_load_image, &LoadImage),
      Row("GOMP_OFFLOAD_unload_image", &real_unload_image, &UnloadImage),
      Row("GOMP_OFFLOAD_alloc", &real_alloc, &Alloc),
      Row("GOMP_OFFLOAD_free", &real_free, &Free),
      Row("GOMP_OFFLOAD_dev2host", &real_dev2host, &Dev2Host),
      Row("GOMP_OFFLOAD_host2dev", &real_host2dev, &Host2Dev),
      Row("GOMP_OFFLOAD_dev2dev", &real_dev2dev, &Dev2Dev),
      Row("GOMP_OFFLOAD_run", &real_run, &Run),
  };
  for (const Wrapper& w : kWrappers) {
    if (std::strcmp(w.name, name) == 0) {
      *w.real = real;
      return w.wrapper;
    }
  }
  return real;
}

void* WrapOutsideControl(const char* name, void* real) {
  if (std::strcmp(name, "GOMP_OFFLOAD_run") != 0) return real;
  real_run = reinterpret_cast<decltype(real_run)>(real);
  return reinterpret_cast<void*>(&RunRecordingArguments);
}

// A message libgomp prints for the plugin, into the timeline.
std::string Message(const char* format, va_list args) {
  char buffer[1024];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  std::string message = buffer;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

void Note(const char* kind, const std::string& message) {
  LogProgramCall(CallRecord::Kind::kLibgompMessage, "", absl::StrCat("libgomp: ", kind, message));
  AtPoint([&](Twin& twin) { twin.host.ProgramCall(absl::StrCat(kind, message)); });
}

}  // namespace

void* const* RunTargetArguments() { return t_run_arguments; }

ThreadId DeviceLockHolder(ThreadId except, std::string* call) {
  ThreadId holder = kNoThread;
  for (const auto& [thread, name] : Holders()) {
    if (thread == except) continue;
    if (holder != kNoThread) return kNoThread;  // several: unknown
    holder = thread;
    *call = name;
  }
  return holder;
}

}  // namespace stackcheck::program

using stackcheck::program::Controlled;
using stackcheck::program::Real;

extern "C" {

// dlsym(RTLD_NEXT, name) means "the next definition after the caller's
// object", and the C library's dlsym tells the caller by its return address.
// Called through this library it would see this library as the caller: an
// ASan runtime preloaded first (--config=asan) would find the C library's
// pthread_create for its interceptor instead of this library's, and the
// program's threads would escape control. So dlsym is a stub that jumps,
// return address untouched, into the real dlsym for RTLD_NEXT, and into
// stackcheck_dlsym_work (below) for every other handle.
extern "C" {
__attribute__((used, visibility("hidden"))) void* stackcheck_real_dlsym = nullptr;
__attribute__((visibility("hidden"))) void* stackcheck_dlsym_work(void* handle, const char* name);
// Finds the real dlsym the first time (no libc call but dlvsym's).
__attribute__((used, visibility("hidden")))
ABSL_ATTRIBUTE_NO_SANITIZE_ADDRESS STACKCHECK_ENTRY_POINT void*
stackcheck_resolve_real_dlsym() {
  void* f = stackcheck::program::RealDlsymFunction();
  __atomic_store_n(&stackcheck_real_dlsym, f, __ATOMIC_RELEASE);
  return f;
}
}  // extern "C"

asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
dlsym:
  cmpq $-1, %rdi
  jne stackcheck_dlsym_work
  movq stackcheck_real_dlsym(%rip), %rax
  testq %rax, %rax
  jz 1f
  jmp *%rax
1:
  pushq %rdi
  pushq %rsi
  subq $8, %rsp
  call stackcheck_resolve_real_dlsym
  addq $8, %rsp
  popq %rsi
  popq %rdi
  jmp *%rax
  .size dlsym, .-dlsym
)");

// Not instrumented, and no libc call before the name is known to be the
// plugin's: an ASan runtime calls this while it starts (CallRealDlsym).
__attribute__((used)) ABSL_ATTRIBUTE_NO_SANITIZE_ADDRESS STACKCHECK_ENTRY_POINT void*
stackcheck_dlsym_work(void* handle, const char* name) {
  void* f = stackcheck::program::CallRealDlsym(handle, name);
  static constexpr char kPrefix[] = "GOMP_OFFLOAD_";
  for (std::size_t i = 0; i + 1 < sizeof kPrefix; ++i) {
    if (name[i] != kPrefix[i]) return f;
  }
  if (f == nullptr) return f;
  if (!Controlled()) return stackcheck::program::WrapOutsideControl(name, f);
  return stackcheck::program::Wrap(name, f);
}

[[noreturn]] STACKCHECK_ENTRY_POINT void GOMP_PLUGIN_fatal(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const std::string message = stackcheck::program::Message(format, args);
  va_end(args);
  if (Controlled()) stackcheck::program::Note("fatal: ", message);
  using Fatal = void (*)(const char*, ...);
  auto real = reinterpret_cast<Fatal>(Real().dlsym(RTLD_NEXT, "GOMP_PLUGIN_fatal"));
  if (real != nullptr) real("%s", message.c_str());
  std::fprintf(stderr, "libgomp: %s\n", message.c_str());
  std::exit(EXIT_FAILURE);
}

STACKCHECK_ENTRY_POINT void GOMP_PLUGIN_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const std::string message = stackcheck::program::Message(format, args);
  va_end(args);
  if (Controlled()) stackcheck::program::Note("error: ", message);
  using Error = void (*)(const char*, ...);
  auto real = reinterpret_cast<Error>(Real().dlsym(RTLD_NEXT, "GOMP_PLUGIN_error"));
  if (real != nullptr) {
    real("%s", message.c_str());
  } else {
    std::fprintf(stderr, "libgomp: %s\n", message.c_str());
  }
}

}  // extern "C"
