#include "hardware/sem_probes.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "real/cuda_device.h"
#include "real/os_host.h"

namespace stackcheck::hardware {
namespace {

constexpr std::uint64_t kMsNs = 1000 * 1000;

// What a probe gets: a device with a context and the region kernel.
struct Bench {
  real::CudaDevice& d;
  FunctionHandle kernel;

  // A kernel with no stack slot that just runs for `ms` (one warp).
  CuResult Busy(std::uint64_t ms, StreamHandle s = kLegacyStream) {
    KernelArgs a;
    a.duration_ns = ms * kMsNs;
    return d.LaunchKernel(kernel, {1}, {32, 1}, a, s);
  }
  CuResult Trap(StreamHandle s = kLegacyStream) {
    KernelArgs a;
    a.action = KernelAction::kTrap;
    return d.LaunchKernel(kernel, {1}, {32, 1}, a, s);
  }
};

struct Outcome {
  bool ok = false;
  std::string observed;
};
using ProbeFn = std::function<Outcome(Bench&)>;

std::string N(CuResult r) { return std::string(CuResultName(r)); }
double Ms(absl::Duration d) { return absl::ToDoubleMilliseconds(d); }

struct Flag {
  std::atomic<int> value{0};
  std::atomic<ThreadId> thread{kNoThread};
  std::atomic<int> status{-1};
  absl::Duration sleep = absl::ZeroDuration();
};
void SetFlag(StreamHandle, CuResult status, void* p) {
  auto* f = static_cast<Flag*>(p);
  f->thread = real::CurrentOsThreadId();
  f->status = static_cast<int>(status);
  if (f->sleep > absl::ZeroDuration()) absl::SleepFor(f->sleep);
  f->value = 1;
}
void SetFlagHost(void* p) { SetFlag(kLegacyStream, CuResult::kSuccess, p); }

// --- the probes ---

Outcome Sem01(Bench& b) {
  StreamHandle s;
  EventHandle after;
  b.d.StreamCreate(&s, StreamFlags::kNonBlocking);
  b.d.EventCreate(&after);
  b.Busy(50, s);
  b.Busy(0, s);
  b.d.EventRecord(after, s);
  absl::SleepFor(absl::Milliseconds(10));
  const CuResult during = b.d.EventQuery(after);
  b.d.StreamSynchronize(s);
  const CuResult end = b.d.EventQuery(after);
  return {during == CuResult::kNotReady && end == CuResult::kSuccess,
          absl::StrFormat("tiny kernel queued behind a 50 ms one: its event "
                          "%s at 10 ms, %s after sync",
                          N(during), N(end))};
}

Outcome Sem02(Bench& b) {
  StreamHandle blocking, non_blocking;
  EventHandle e1, e2;
  b.d.StreamCreate(&blocking, StreamFlags::kBlocking);
  b.d.StreamCreate(&non_blocking, StreamFlags::kNonBlocking);
  b.d.EventCreate(&e1);
  b.d.EventCreate(&e2);
  b.Busy(100, blocking);
  b.Busy(0, kLegacyStream);
  b.d.EventRecord(e1, kLegacyStream);
  absl::SleepFor(absl::Milliseconds(20));
  const CuResult behind_blocking = b.d.EventQuery(e1);
  b.d.CtxSynchronize();
  b.Busy(100, non_blocking);
  b.Busy(0, kLegacyStream);
  b.d.EventRecord(e2, kLegacyStream);
  absl::SleepFor(absl::Milliseconds(20));
  const CuResult beside_non_blocking = b.d.EventQuery(e2);
  b.d.CtxSynchronize();
  return {behind_blocking == CuResult::kNotReady && beside_non_blocking == CuResult::kSuccess,
          absl::StrFormat("legacy-stream work behind a blocking stream's "
                          "kernel: %s; beside a non-blocking one: %s",
                          N(behind_blocking), N(beside_non_blocking))};
}

Outcome Sem03(Bench& b) {
  const absl::Time t0 = absl::Now();
  const CuResult launch = b.Busy(300);
  const absl::Duration launch_time = absl::Now() - t0;
  KernelArgs a;
  const CuResult zero_grid = b.d.LaunchKernel(b.kernel, {0}, {32, 1}, a, kLegacyStream);
  const CuResult too_big = b.d.LaunchKernel(b.kernel, {1}, {32, 33}, a, kLegacyStream);
  DevicePtr p = 0;
  const CuResult after = b.d.MemAlloc(&p, 4096);
  b.d.CtxSynchronize();
  return {launch == CuResult::kSuccess && Ms(launch_time) < 50 &&
              zero_grid == CuResult::kInvalidValue && too_big == CuResult::kInvalidValue &&
              after == CuResult::kSuccess,
          absl::StrFormat("300 ms kernel's launch returned in %.3f ms; grid 0: "
                          "%s; 1056 threads: %s; next call: %s (not sticky)",
                          Ms(launch_time), N(zero_grid), N(too_big), N(after))};
}

Outcome Sem04(Bench& b) {
  const CuResult launch = b.Trap();
  const CuResult sync = b.d.CtxSynchronize();
  return {launch == CuResult::kSuccess && sync == CuResult::kLaunchFailed,
          absl::StrFormat("__trap(): launch %s, then cuCtxSynchronize %s", N(launch), N(sync))};
}

Outcome Sem05(Bench& b) {
  b.Trap();
  b.d.CtxSynchronize();
  DevicePtr p = 0;
  const CuResult alloc = b.d.MemAlloc(&p, 4096);
  const CuResult launch = b.Busy(0);
  StreamHandle s;
  const CuResult stream = b.d.StreamCreate(&s, StreamFlags::kBlocking);
  EventHandle e;
  const CuResult event = b.d.EventCreate(&e);
  const bool attributes = b.d.Properties().ok();
  b.d.CtxDestroy();
  const CuResult retain = b.d.CtxCreate();
  const CuResult alloc_after = b.d.MemAlloc(&p, 4096);
  const bool sticky = alloc == CuResult::kLaunchFailed && launch == CuResult::kLaunchFailed &&
                      stream == CuResult::kLaunchFailed && event == CuResult::kLaunchFailed &&
                      attributes;
  return {sticky && (retain != CuResult::kSuccess || alloc_after != CuResult::kSuccess),
          absl::StrFormat("after a trap: alloc %s, launch %s, stream %s, "
                          "event %s, attributes %s; release+retain %s then "
                          "alloc %s",
                          N(alloc), N(launch), N(stream), N(event), attributes ? "ok" : "fail",
                          N(retain), N(alloc_after))};
}

Outcome Sem06(Bench& b) {
  Flag cb, host_fn, late;
  StreamHandle other;
  b.d.StreamCreate(&other, StreamFlags::kNonBlocking);
  Flag other_cb;
  b.Busy(30, other);
  b.d.StreamAddCallback(other, &SetFlag, &other_cb);
  b.Trap();
  b.d.StreamAddCallback(kLegacyStream, &SetFlag, &cb);
  b.d.LaunchHostFunc(kLegacyStream, &SetFlagHost, &host_fn);
  b.d.CtxSynchronize();
  absl::SleepFor(absl::Milliseconds(100));
  const CuResult added_late = b.d.StreamAddCallback(kLegacyStream, &SetFlag, &late);
  absl::SleepFor(absl::Milliseconds(50));
  const bool ok = cb.value == 1 && cb.status == 719 && host_fn.value == 0 &&
                  added_late != CuResult::kSuccess && late.value == 0;
  return {ok, absl::StrFormat("callback behind the trap ran with status %d; host function "
                              "%s; other stream's callback status %d; callback added "
                              "after: %s",
                              cb.status.load(), host_fn.value ? "ran" : "dropped",
                              other_cb.status.load(), N(added_late))};
}

Outcome Sem07(Bench& b) {
  StreamHandle s1, s2;
  b.d.StreamCreate(&s1, StreamFlags::kNonBlocking);
  b.d.StreamCreate(&s2, StreamFlags::kNonBlocking);
  Flag a, c;
  a.sleep = c.sleep = absl::Milliseconds(150);
  const absl::Time t0 = absl::Now();
  b.d.StreamAddCallback(s1, &SetFlag, &a);
  b.d.StreamAddCallback(s2, &SetFlag, &c);
  b.d.CtxSynchronize();
  const double ms = Ms(absl::Now() - t0);
  const ThreadId me = real::CurrentOsThreadId();
  return {a.thread != me && c.thread != me && a.thread == c.thread && ms >= 280,
          absl::StrFormat("two 150 ms callbacks on independent streams took "
                          "%.0f ms (%s), on %s thread(s), not the enqueuer's",
                          ms, ms >= 280 ? "serial" : "concurrent",
                          a.thread == c.thread ? "one" : "two")};
}

Outcome Sem08(Bench& b) {
  StreamHandle s;
  EventHandle after;
  b.d.StreamCreate(&s, StreamFlags::kBlocking);
  b.d.EventCreate(&after);
  Flag f;
  f.sleep = absl::Milliseconds(150);
  b.d.StreamAddCallback(s, &SetFlag, &f);
  b.Busy(0, s);
  b.d.EventRecord(after, s);
  absl::SleepFor(absl::Milliseconds(40));
  const CuResult query = b.d.StreamQuery(s);
  const CuResult event = b.d.EventQuery(after);
  const absl::Time t0 = absl::Now();
  b.d.StreamSynchronize(s);
  const double waited = Ms(absl::Now() - t0);
  return {query == CuResult::kNotReady && event == CuResult::kNotReady && waited > 50,
          absl::StrFormat("during a 150 ms callback: cuStreamQuery %s, event "
                          "behind it %s, cuStreamSynchronize waited %.0f ms",
                          N(query), N(event), waited)};
}

struct CallbackCalls {
  real::CudaDevice* d;
  CuResult alloc = CuResult::kUnknown;
  CuResult launch_host_fn = CuResult::kUnknown;
  std::atomic<bool> done{false};
};
void CallDriver(StreamHandle, CuResult, void* p) {
  auto* c = static_cast<CallbackCalls*>(p);
  DevicePtr ptr = 0;
  c->alloc = c->d->MemAlloc(&ptr, 4096);
  static Flag nested;
  c->launch_host_fn = c->d->LaunchHostFunc(kLegacyStream, &SetFlagHost, &nested);
  c->done = true;
}

Outcome Sem09(Bench& b) {
  CallbackCalls calls;
  calls.d = &b.d;
  b.d.StreamAddCallback(kLegacyStream, &CallDriver, &calls);
  b.d.CtxSynchronize();
  b.d.CtxSynchronize();
  const real::DeviceLedger l = b.d.Ledger();
  return {calls.alloc == CuResult::kNotPermitted && calls.launch_host_fn == CuResult::kSuccess,
          absl::StrFormat("from a callback: cuMemAlloc %s, cuLaunchHostFunc "
                          "%s; the backend counted %d call(s) from callback "
                          "context",
                          N(calls.alloc), N(calls.launch_host_fn), l.calls_from_callback)};
}

Outcome Sem10(Bench& b) {
  b.Busy(300);
  DevicePtr p = 0;
  const absl::Time t0 = absl::Now();
  const CuResult alloc = b.d.MemAlloc(&p, 64 << 20);
  const double ms = Ms(absl::Now() - t0);
  DevicePtr q = 0;
  const CuResult zero = b.d.MemAlloc(&q, 0);
  const CuResult huge = b.d.MemAlloc(&q, std::uint64_t{1} << 50);
  const CuResult after = b.d.MemAlloc(&q, 4096);
  b.d.CtxSynchronize();
  return {alloc == CuResult::kSuccess && ms < 50 && zero == CuResult::kInvalidValue &&
              huge == CuResult::kOutOfMemory && after == CuResult::kSuccess,
          absl::StrFormat("64 MiB alloc beside a 300 ms kernel took %.2f ms; "
                          "0 bytes: %s; 1 PiB: %s; next alloc: %s",
                          ms, N(zero), N(huge), N(after))};
}

Outcome Sem11(Bench& b) {
  DevicePtr unrelated = 0, second = 0;
  b.d.MemAlloc(&unrelated, 1 << 20);
  b.d.MemAlloc(&second, 1 << 20);
  b.Busy(300);
  absl::Time t0 = absl::Now();
  b.d.MemFree(unrelated);
  const double kernel_wait = Ms(absl::Now() - t0);
  Flag f;
  f.sleep = absl::Milliseconds(200);
  b.d.StreamAddCallback(kLegacyStream, &SetFlag, &f);
  absl::SleepFor(absl::Milliseconds(20));
  t0 = absl::Now();
  b.d.MemFree(second);
  const double callback_wait = Ms(absl::Now() - t0);
  const CuResult twice = b.d.MemFree(second);
  const CuResult null_free = b.d.MemFree(0);
  return {kernel_wait > 200 && callback_wait > 100 && twice == CuResult::kInvalidValue &&
              null_free == CuResult::kSuccess,
          absl::StrFormat("cuMemFree of an unrelated block waited %.0f ms for "
                          "a 300 ms kernel and %.0f ms for a 200 ms callback; "
                          "double free %s; free(0) %s",
                          kernel_wait, callback_wait, N(twice), N(null_free))};
}

Outcome Sem12(Bench& b) {
  MemInfo before, after;
  b.d.MemGetInfo(&before);
  DevicePtr p = 0;
  b.d.MemAlloc(&p, 1 << 30);
  b.d.MemGetInfo(&after);
  const double drop_mib = (static_cast<double>(before.free_bytes) - after.free_bytes) / (1 << 20);
  b.d.MemFree(p);
  return {drop_mib >= 1024 && drop_mib <= 1024 + 64,
          absl::StrFormat("free %.0f MiB of %.0f MiB; a 1 GiB alloc lowered "
                          "it by %.1f MiB",
                          before.free_bytes / 1048576.0, before.total_bytes / 1048576.0, drop_mib)};
}

Outcome Sem13(Bench& b) {
  StreamHandle s;
  b.d.StreamCreate(&s, StreamFlags::kNonBlocking);
  DevicePtr p = 0;
  const CuResult alloc = b.d.MemAllocAsync(&p, 8 << 20, s);
  b.Busy(200, s);
  const absl::Time t0 = absl::Now();
  const CuResult free_async = b.d.MemFreeAsync(p, s);
  const double ms = Ms(absl::Now() - t0);
  b.d.StreamSynchronize(s);
  return {alloc == CuResult::kSuccess && free_async == CuResult::kSuccess && ms < 50,
          absl::StrFormat("cuMemAllocAsync %s; cuMemFreeAsync behind a 200 ms "
                          "kernel %s in %.2f ms (no synchronisation)",
                          N(alloc), N(free_async), ms)};
}

Outcome Sem14(Bench& b) {
  EventHandle never;
  b.d.EventCreate(&never);
  const CuResult unrecorded = b.d.EventQuery(never);
  StreamHandle s1, s2;
  EventHandle e, tail;
  b.d.StreamCreate(&s1, StreamFlags::kNonBlocking);
  b.d.StreamCreate(&s2, StreamFlags::kNonBlocking);
  b.d.EventCreate(&e);
  b.d.EventCreate(&tail);
  b.Busy(100, s1);
  b.d.EventRecord(e, s1);
  const absl::Time t0 = absl::Now();
  b.d.StreamWaitEvent(s2, e);
  const double wait_ms = Ms(absl::Now() - t0);
  b.Busy(0, s2);
  b.d.EventRecord(tail, s2);
  absl::SleepFor(absl::Milliseconds(30));
  const CuResult ordered = b.d.EventQuery(tail);
  const CuResult stream_busy = b.d.StreamQuery(s1);
  b.d.CtxSynchronize();
  return {unrecorded == CuResult::kSuccess && wait_ms < 50 && ordered == CuResult::kNotReady &&
              stream_busy == CuResult::kNotReady,
          absl::StrFormat("unrecorded event: %s; cuStreamWaitEvent returned "
                          "in %.2f ms and held s2 (%s); busy stream query %s",
                          N(unrecorded), wait_ms, N(ordered), N(stream_busy))};
}

Outcome Sem15(Bench& b) {
  // Straight to the driver: CudaDevice::CtxDestroy synchronises first, which
  // would hide whether the driver's own teardown drains.
  const real::CudaEntryPoints& api = b.d.api();
  CUdevice dev = 0;
  api.cuDeviceGet(&dev, 0);
  Flag f;
  b.Busy(200);
  b.d.StreamAddCallback(kLegacyStream, &SetFlag, &f);
  const absl::Time t0 = absl::Now();
  const CUresult release = api.cuDevicePrimaryCtxRelease(dev);
  const double ms = Ms(absl::Now() - t0);
  const bool ran = f.value == 1;
  return {release == CUDA_SUCCESS && ran && ms > 150,
          absl::StrFormat("last cuDevicePrimaryCtxRelease took %.0f ms behind "
                          "a 200 ms kernel (%s); its callback %s before it "
                          "returned",
                          ms, real::DriverErrorName(release), ran ? "ran" : "had not run")};
}

Outcome Sem16(Bench& b) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        DevicePtr p = 0;
        if (b.d.MemAlloc(&p, 1 << 16) != CuResult::kSuccess ||
            b.d.MemFree(p) != CuResult::kSuccess) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const real::DeviceLedger l = b.d.Ledger();
  return {failures == 0 && l.live_blocks == 0,
          absl::StrFormat("4 threads x 200 alloc/free: %d failures, %d blocks "
                          "live after",
                          failures.load(), l.live_blocks)};
}

// EXT-01 (sim/README.md): a stream-ordered write to a mapped host word lands
// after the kernel before it, and a write queued behind a trapping kernel
// never lands, while the word stays readable.
Outcome Ext01(Bench& b) {
  HostWordHandle word{};
  if (CuResult r = b.d.HostWordAlloc(&word); r != CuResult::kSuccess) {
    return {false, "cuMemHostAlloc: " + N(r)};
  }
  b.Busy(50);
  const CuResult w1 = b.d.StreamWriteValue32(kLegacyStream, word, 1);
  const std::uint32_t during = b.d.HostWordLoad(word);
  const CuResult s1 = b.d.StreamSynchronize(kLegacyStream);
  const std::uint32_t after = b.d.HostWordLoad(word);
  b.Trap();
  const CuResult w2 = b.d.StreamWriteValue32(kLegacyStream, word, 2);
  const CuResult s2 = b.d.StreamSynchronize(kLegacyStream);
  const std::uint32_t after_trap = b.d.HostWordLoad(word);
  const bool ok = w1 == CuResult::kSuccess && s1 == CuResult::kSuccess && during == 0 &&
                  after == 1 && w2 == CuResult::kSuccess && s2 == CuResult::kLaunchFailed &&
                  after_trap == 1;
  return {ok, absl::StrFormat("write behind 50 ms kernel: %s, word %u during, %u after "
                              "sync; write behind trap: %s, sync %s, word %u",
                              N(w1), during, after, N(w2), N(s2), after_trap)};
}

// EXT-02 (sim/README.md): a kernel given a completion word writes it as its
// last block finishes, across a full grid; a trapping kernel never does.
Outcome Ext02(Bench& b) {
  HostWordHandle word{};
  if (CuResult r = b.d.HostWordAlloc(&word); r != CuResult::kSuccess) {
    return {false, "cuMemHostAlloc: " + N(r)};
  }
  KernelArgs a;
  a.duration_ns = 50 * kMsNs;
  a.completion_word = word;
  a.completion_value = 1;
  const CuResult l1 = b.d.LaunchKernel(b.kernel, {528}, {32, 8}, a, kLegacyStream);
  const std::uint32_t during = b.d.HostWordLoad(word);
  const CuResult s1 = b.d.StreamSynchronize(kLegacyStream);
  const std::uint32_t after = b.d.HostWordLoad(word);
  a.duration_ns = 0;
  a.completion_value = 2;  // 1000 back-to-back kernels: the counter wraps each time
  CuResult l2 = CuResult::kSuccess;
  for (int i = 0; i < 1000 && l2 == CuResult::kSuccess; ++i) {
    a.completion_value = 2 + i;
    l2 = b.d.LaunchKernel(b.kernel, {528}, {32, 8}, a, kLegacyStream);
  }
  b.d.StreamSynchronize(kLegacyStream);
  const std::uint32_t after_many = b.d.HostWordLoad(word);
  a.action = KernelAction::kTrap;
  a.completion_value = 5000;
  b.d.LaunchKernel(b.kernel, {528}, {32, 8}, a, kLegacyStream);
  const CuResult s2 = b.d.StreamSynchronize(kLegacyStream);
  const std::uint32_t after_trap = b.d.HostWordLoad(word);
  const bool ok = l1 == CuResult::kSuccess && s1 == CuResult::kSuccess && during == 0 &&
                  after == 1 && l2 == CuResult::kSuccess && after_many == 1001 &&
                  s2 == CuResult::kLaunchFailed && after_trap == 1001;
  return {ok, absl::StrFormat("528x8 kernel of 50 ms: launch %s, word %u during, %u after "
                              "sync; after 1000 more: %u (expect 1001); trapping kernel: "
                              "sync %s, word %u",
                              N(l1), during, after, after_many, N(s2), after_trap)};
}

struct ProbeSpec {
  const char* id;
  const char* spec;
  const char* sim_test;
  Outcome (*run)(Bench&);
};

constexpr ProbeSpec kProbes[] = {
    {"SEM-01", "stream operations run in FIFO order",
     "SemStreams.SEM01_StreamOperationsRunInFifoOrder", &Sem01},
    {"SEM-02", "legacy stream waits for blocking streams, not non-blocking",
     "SemStreams.SEM02_LegacyStreamBarrierExemptsNonBlockingStreams", &Sem02},
    {"SEM-03", "launch is asynchronous; bad configs give 1 at once, not sticky",
     "SemStreams.SEM03_LaunchIsAsynchronousCopiesArgumentsAndRejectsBadConfigs", &Sem03},
    {"SEM-04", "__trap() gives 719 at the next synchronising call",
     "SemStreams.SEM04_KernelHasStartAndEndAndTrapBecomesStickyAtEnd", &Sem04},
    {"SEM-05", "719 is sticky; attributes still work; no in-process recovery",
     "SemErrors.SEM05_StickyErrorIsAbsorbingAndEveryContextCallReturnsIt", &Sem05},
    {"SEM-06", "on error pending callbacks run with the error, host fns drop",
     "SemErrors.SEM06_PendingCallbacksRunWithErrorQueuedWorkAndHostFunctionsDrop", &Sem06},
    {"SEM-07", "one driver thread runs callbacks, serially (default mode)",
     "SemCallbacks.SEM07_CallbacksRunOnTheDriverThreadSeriallyByDefault", &Sem07},
    {"SEM-08", "a running callback occupies its stream",
     "SemCallbacks.SEM08_RunningCallbackHoldsItsStreamAndTheLegacyStream", &Sem08},
    {"SEM-09", "driver calls from a callback: 800, callbacks/host fns allowed",
     "SemCallbacks.SEM09_DriverCallsFromCallbackAreRefusedAndFlagged", &Sem09},
    {"SEM-10", "cuMemAlloc does not wait; 0 -> 1, too much -> 2, not sticky",
     "SemMemory.SEM10_AllocValidatesRoundsAndFailsWithoutWaiting", &Sem10},
    {"SEM-11", "cuMemFree waits for all streams, callbacks included",
     "SemMemory.SEM11_FreeWaitsForRunningCallback", &Sem11},
    {"SEM-12", "cuMemGetInfo: free = capacity - live (granularity)",
     "SemMemory.SEM12_MemGetInfoReportsCapacityMinusLiveRoundedBytes", &Sem12},
    {"SEM-13", "stream-ordered free does not synchronise",
     "SemMemory.SEM13_StreamOrderedFreeCompletesInStreamOrderAndNeverSynchronizes", &Sem13},
    {"SEM-14", "unrecorded event complete; stream wait orders without blocking",
     "SemSync.SEM14_EventsCaptureTheTailAndStreamWaitEventOrdersWithoutBlocking", &Sem14},
    {"SEM-15", "context teardown drains kernels and callbacks first",
     "SemSync.SEM15_CtxDestroyDrainsRunsCallbacksThenInvalidatesBlocks", &Sem15},
    {"SEM-16", "driver calls from several threads are safe",
     "SemSync.SEM16_CallsFromSeveralThreadsAreAtomicAndOrderTheirStream", &Sem16},
    {"EXT-01", "stream write to a host word: in order, dropped behind a fault",
     "ExtHostWord.EXT01_WriteLandsInStreamOrderAndIsDroppedBehindAFault", &Ext01},
    {"EXT-02", "kernel completion word: written by the last block, not on trap",
     "ExtHostWord.EXT02_KernelWritesItsCompletionWordUnlessItTraps", &Ext02},
};

// Child: set up, run the probe, write "1|observed" or "0|observed".
[[noreturn]] void ProbeChild(const ProbeSpec& probe, int fd) {
  auto say = [fd](bool ok, absl::string_view text) {
    const std::string line = absl::StrCat(ok ? "1|" : "0|", text);
    ssize_t unused = write(fd, line.data(), line.size());
    (void)unused;
    _exit(0);
  };
  absl::StatusOr<std::unique_ptr<real::CudaDevice>> d = real::CudaDevice::Create();
  if (!d.ok()) say(false, d.status().message());
  ModuleHandle m;
  FunctionHandle k;
  CuResult r = (*d)->Init();
  if (r == CuResult::kSuccess) r = (*d)->CtxCreate();
  if (r == CuResult::kSuccess) r = (*d)->ModuleLoad(&m, kKernelImage);
  if (r == CuResult::kSuccess) r = (*d)->ModuleGetFunction(&k, m, kRegionKernel);
  if (r != CuResult::kSuccess) say(false, absl::StrCat("setup: ", N(r)));
  Bench bench{**d, k};
  const Outcome o = probe.run(bench);
  say(o.ok, o.observed);
  std::abort();  // `say` ends the child; the compiler cannot see that
}

SemProbeResult RunOne(const ProbeSpec& probe) {
  SemProbeResult result{probe.id, probe.spec, probe.sim_test, false, ""};
  int fds[2];
  if (pipe(fds) != 0) {
    result.observed = "pipe failed";
    return result;
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ProbeChild(probe, fds[1]);
  }
  close(fds[1]);
  std::string text;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  char buf[512];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int left = static_cast<int>(
        std::max<std::int64_t>(0, absl::ToInt64Milliseconds(deadline - absl::Now())));
    if (poll(&p, 1, left) <= 0) {
      kill(pid, SIGKILL);
      text = "0|hung past 20 s";
      break;
    }
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    text.append(buf, n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.size() < 2) {
    result.observed = absl::StrCat(
        "probe process ended without a result (", WIFSIGNALED(status) ? "signal " : "exit ",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), ")");
    return result;
  }
  result.as_specified = text[0] == '1';
  result.observed = text.substr(2);
  return result;
}

}  // namespace

std::vector<SemProbeResult> RunSemProbes() {
  std::vector<SemProbeResult> out;
  for (const ProbeSpec& p : kProbes) out.push_back(RunOne(p));
  return out;
}

std::string FormatSemProbes(const std::vector<SemProbeResult>& results) {
  std::string out = absl::StrFormat("%-7s %-9s %s\n", "rule", "hardware",
                                    "spec (simulator) / observed on the GPU");
  for (const SemProbeResult& r : results) {
    absl::StrAppendFormat(&out, "%-7s %-9s spec: %s\n", r.id,
                          r.as_specified ? "as-spec" : "DIFFERS", r.spec);
    absl::StrAppendFormat(&out, "%-7s %-9s sim:  tests/sim %s\n", "", "", r.sim_test);
    absl::StrAppendFormat(&out, "%-7s %-9s gpu:  %s\n", "", "", r.observed);
  }
  return out;
}

}  // namespace stackcheck::hardware
