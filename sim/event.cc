#include "sim/event.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "core/cu_result.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {

absl::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kThreadStart:
      return "thread-start";
    case EventKind::kThreadEnd:
      return "thread-end";
    case EventKind::kCallbackStart:
      return "callback-start";
    case EventKind::kCallbackEnd:
      return "callback-end";
    case EventKind::kHostFnStart:
      return "hostfn-start";
    case EventKind::kHostFnEnd:
      return "hostfn-end";
    case EventKind::kHostFnDropped:
      return "hostfn-dropped";
    case EventKind::kMutexCreate:
      return "mutex-create";
    case EventKind::kMutexLock:
      return "mutex-lock";
    case EventKind::kMutexBlock:
      return "mutex-block";
    case EventKind::kMutexTryLockFail:
      return "mutex-trylock-fail";
    case EventKind::kMutexPass:
      return "mutex-pass";
    case EventKind::kMutexPassEnd:
      return "mutex-pass-end";
    case EventKind::kMutexUnlock:
      return "mutex-unlock";
    case EventKind::kMutexDestroy:
      return "mutex-destroy";
    case EventKind::kSleep:
      return "sleep";
    case EventKind::kJoin:
      return "join";
    case EventKind::kProcessExit:
      return "process-exit";
    case EventKind::kDriverCall:
      return "driver-call";
    case EventKind::kDriverCallBlock:
      return "driver-call-block";
    case EventKind::kAlloc:
      return "alloc";
    case EventKind::kFree:
      return "free";
    case EventKind::kAllocFailed:
      return "alloc-failed";
    case EventKind::kKernelEnqueue:
      return "kernel-enqueue";
    case EventKind::kKernelStart:
      return "kernel-start";
    case EventKind::kKernelEnd:
      return "kernel-end";
    case EventKind::kKernelDropped:
      return "kernel-dropped";
    case EventKind::kStickyError:
      return "sticky-error";
    case EventKind::kEventRecord:
      return "event-record";
    case EventKind::kEventComplete:
      return "event-complete";
    case EventKind::kAsyncFreeComplete:
      return "async-free-complete";
    case EventKind::kCtxDestroy:
      return "ctx-destroy";
    case EventKind::kRegionBegin:
      return "region-begin";
    case EventKind::kRegionEnd:
      return "region-end";
    case EventKind::kFatalReported:
      return "fatal-reported";
    case EventKind::kCacheHeld:
      return "cache-held";
    case EventKind::kProbe:
      return "probe";
    case EventKind::kProgramCall:
      return "program-call";
    case EventKind::kWaitQueueBlock:
      return "wait-queue-block";
    case EventKind::kWaitQueueWake:
      return "wait-queue-wake";
    case EventKind::kAllocGaveUp:
      return "alloc-gave-up";
    case EventKind::kExitHandlersDone:
      return "exit-handlers-done";
    case EventKind::kProcessKilled:
      return "process-killed";
    case EventKind::kHostWordWrite:
      return "host-word-write";
    case EventKind::kKernelVars:
      return "kernel-vars";
    case EventKind::kMemcpy:
      return "memcpy";
    case EventKind::kErrorReported:
      return "error-reported";
    case EventKind::kSharedAccess:
      return "shared-access";
  }
  return "unknown-event";
}

std::string FormatBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t whole = bytes;
  // Climb while the next unit still gives a whole number >= 1 or the value is
  // large enough that a decimal is clearer.
  while (unit < 4 && whole >= 1024) {
    if (whole % 1024 != 0) {
      // One decimal in the next unit, e.g. "1.5 MiB".
      const double scaled =
          static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << (10 * (unit + 1)));
      return absl::StrFormat("%.1f %s", scaled, kUnits[unit + 1]);
    }
    whole /= 1024;
    ++unit;
  }
  return absl::StrCat(whole, " ", kUnits[unit]);
}

std::string FormatBlock(std::uint64_t ptr, std::uint64_t bytes) {
  std::string size = FormatBytes(bytes);
  size.erase(std::remove(size.begin(), size.end(), ' '), size.end());
  return absl::StrFormat("0x%x+%s", ptr, size);
}

std::string FormatResult(CuResult result) {
  absl::string_view name = CuResultName(result);
  absl::ConsumePrefix(&name, "CUDA_ERROR_");
  absl::ConsumePrefix(&name, "CUDA_");
  return absl::StrCat(static_cast<int>(result), " ", name);
}

std::string FormatTime(std::uint64_t ns) {
  if (ns < 1000) return absl::StrCat(ns, "ns");
  if (ns < 1000 * 1000) {
    return ns % 1000 == 0 ? absl::StrCat(ns / 1000, "us") : absl::StrFormat("%.3fus", ns / 1e3);
  }
  if (ns < 1000ull * 1000 * 1000) {
    return ns % (1000 * 1000) == 0 ? absl::StrCat(ns / 1000000, "ms")
                                   : absl::StrFormat("%.3fms", ns / 1e6);
  }
  return absl::StrFormat("%.3fs", ns / 1e9);
}

namespace {

std::string Actor(std::uint32_t actor) {
  return actor == kNoActor ? std::string("none") : absl::StrCat("#", actor);
}

// An exit status as the word it is logged in (the trace text predates the
// payload's int: a negative status prints as its 64-bit word).
std::uint64_t StatusWord(int status) { return static_cast<std::uint64_t>(status); }

absl::string_view GuardNote(SharedGuard guard) {
  switch (guard) {
    case SharedGuard::kHeld:
      return " (guard held)";
    case SharedGuard::kSnapshot:
      return " (atomic snapshot)";
    case SharedGuard::kWriteInPass:
      return " (in a pass under its guard)";
    case SharedGuard::kUnguarded:
      break;
  }
  return " (unguarded)";
}

}  // namespace

std::string FormatEvent(const Event& e) {
  namespace p = payload;
  const absl::string_view kind = EventKindName(e.kind);
  switch (e.kind) {
    case EventKind::kThreadStart:
      return absl::StrCat(kind, " parent ", Actor(e.As<p::ThreadStart>().parent));
    case EventKind::kThreadEnd:
    case EventKind::kCtxDestroy:
      return std::string(kind);
    case EventKind::kCallbackStart: {
      const auto cb = e.As<p::StreamWork>();
      return absl::StrCat(kind, " cb", cb.id, " s", cb.stream, " status ", FormatResult(cb.status));
    }
    case EventKind::kCallbackEnd: {
      const auto cb = e.As<p::StreamWork>();
      return absl::StrCat(kind, " cb", cb.id, " s", cb.stream);
    }
    case EventKind::kHostFnStart:
    case EventKind::kHostFnEnd:
    case EventKind::kHostFnDropped: {
      const auto fn = e.As<p::StreamWork>();
      return absl::StrCat(kind, " fn", fn.id, " s", fn.stream);
    }
    case EventKind::kMutexCreate:
    case EventKind::kMutexLock:
    case EventKind::kMutexTryLockFail:
    case EventKind::kMutexPass:
    case EventKind::kMutexPassEnd:
      return absl::StrCat(kind, " m", e.As<p::Mutex>().mutex);
    case EventKind::kMutexBlock:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy: {
      const auto m = e.As<p::MutexHeld>();
      return absl::StrCat(kind, " m", m.mutex, " owner ", Actor(m.owner));
    }
    case EventKind::kSleep:
      return absl::StrCat(kind, " ", FormatTime(e.As<p::Sleep>().ns));
    case EventKind::kJoin:
      return absl::StrCat(kind, " ", Actor(e.As<p::Join>().joined));
    case EventKind::kProcessExit:
    case EventKind::kExitHandlersDone:
      return absl::StrCat(kind, " status ", StatusWord(e.As<p::ExitStatus>().status));
    case EventKind::kProcessKilled:
      return absl::StrCat(kind, " signal ", e.As<p::Killed>().signal);
    case EventKind::kDriverCall: {
      const auto call = e.As<p::Call>();
      return absl::StrCat(kind, " api ", static_cast<int>(call.call), " -> ",
                          FormatResult(call.result));
    }
    case EventKind::kDriverCallBlock:
      return absl::StrCat(kind, " api ", static_cast<int>(e.As<p::Call>().call));
    case EventKind::kAlloc:
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete: {
      const auto block = e.As<p::Block>();
      return absl::StrCat(kind, " ", FormatBlock(block.ptr, block.bytes));
    }
    case EventKind::kAllocFailed: {
      const auto failed = e.As<p::AllocFailed>();
      return absl::StrCat(kind, " ", FormatBytes(failed.bytes), " -> ",
                          FormatResult(failed.result));
    }
    case EventKind::kKernelEnqueue: {
      const auto launch = e.As<p::KernelLaunch>();
      const p::Kernel& k = launch.kernel;
      return absl::StrCat(kind, " k", k.kernel, " s", k.stream, " region ", k.region_tag,
                          " stacks ", FormatBlock(launch.stacks, launch.per_warp * k.slots), " (",
                          k.slots, " x ", FormatBytes(launch.per_warp), ")");
    }
    case EventKind::kKernelStart:
    case EventKind::kKernelDropped: {
      const auto k = e.As<p::Kernel>();
      return absl::StrCat(kind, " k", k.kernel, " s", k.stream);
    }
    case EventKind::kKernelEnd: {
      const auto end = e.As<p::KernelEnd>();
      return absl::StrCat(kind, " k", end.kernel.kernel, " s", end.kernel.stream, " ",
                          FormatResult(end.result));
    }
    case EventKind::kStickyError:
      return absl::StrCat(kind, " ", FormatResult(e.As<p::StickyError>().code));
    case EventKind::kEventRecord: {
      const auto ev = e.As<p::CudaEvent>();
      return absl::StrCat(kind, " e", ev.event, " s", ev.stream);
    }
    case EventKind::kEventComplete:
      return absl::StrCat(kind, " e", e.As<p::CudaEvent>().event);
    case EventKind::kHostWordWrite: {
      const auto write = e.As<p::HostWordWrite>();
      return absl::StrCat(kind, " w", write.word, " s", write.stream, " = ", write.value);
    }
    case EventKind::kKernelVars: {
      const auto vars = e.As<p::KernelVars>();
      return vars.data == 0
                 ? absl::StrCat(kind, " k", vars.kernel, " table 0x", absl::Hex(vars.table))
                 : absl::StrCat(kind, " k", vars.kernel, " table 0x", absl::Hex(vars.table),
                                " data 0x", absl::Hex(vars.data));
    }
    case EventKind::kMemcpy: {
      const auto copy = e.As<p::Memcpy>();
      return absl::StrCat(kind, copy.to_device ? " to " : " from ",
                          FormatBlock(copy.ptr, copy.bytes));
    }
    case EventKind::kRegionBegin: {
      const auto region = e.As<p::Region>();
      return absl::StrCat(kind, " region ", region.region, " (stacks ",
                          FormatBytes(region.stacks_bytes), ")");
    }
    case EventKind::kRegionEnd:
      return absl::StrCat(kind, " region ", e.As<p::Region>().region);
    case EventKind::kFatalReported: {
      const auto fatal = e.As<p::Reported>();
      return absl::StrCat(kind, " region ", fatal.region, " ", FormatResult(fatal.code));
    }
    case EventKind::kErrorReported:
      return absl::StrCat(kind, " ", FormatResult(e.As<p::Reported>().code));
    case EventKind::kSharedAccess: {
      const auto access = e.As<p::SharedAccess>();
      return absl::StrCat(kind, access.write ? " write" : " read", " #", access.object,
                          GuardNote(access.guard));
    }
    case EventKind::kCacheHeld:
      return absl::StrCat(kind, " ", FormatBytes(e.As<p::CacheHeld>().bytes));
    case EventKind::kProbe:
      // Ids are the engine's probe registry's; names live there.
      return absl::StrCat(kind, " #", e.As<p::Probe>().probe);
    case EventKind::kProgramCall: {
      const auto call = e.As<p::ProgramCall>();
      return absl::StrCat(kind, " #", call.name, " object ", call.object, " -> ",
                          static_cast<std::uint64_t>(call.result));
    }
    case EventKind::kWaitQueueBlock: {
      const auto wait = e.As<p::WaitQueue>();
      return absl::StrCat(kind, " q", wait.queue, " blamed ", Actor(wait.actor));
    }
    case EventKind::kWaitQueueWake: {
      const auto wake = e.As<p::WaitQueue>();
      return absl::StrCat(kind, " q", wake.queue, " woke ", Actor(wake.actor));
    }
    case EventKind::kAllocGaveUp: {
      const auto gave_up = e.As<p::AllocGaveUp>();
      return absl::StrCat(kind, " ", FormatBytes(gave_up.bytes), " (cache held ",
                          FormatBytes(gave_up.cached_bytes), ")");
    }
  }
  // A kind this build does not know (a corrupted event): its bare words.
  const EventWords& w = e.words();
  return absl::StrCat(kind, " a=", w.a, " b=", w.b, " c=", w.c, " d=", w.d, " x=", w.x, " y=", w.y);
}

std::string DescribeEvent(std::size_t index, const Event& event, absl::string_view actor_name) {
  return absl::StrCat("#", index, " @", FormatTime(event.time_ns), " ", actor_name, " ",
                      FormatEvent(event));
}

}  // namespace stackcheck::sim
