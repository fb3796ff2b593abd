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

std::string FormatResult(std::uint64_t code) {
  absl::string_view name = CuResultName(static_cast<CuResult>(static_cast<int>(code)));
  absl::ConsumePrefix(&name, "CUDA_ERROR_");
  absl::ConsumePrefix(&name, "CUDA_");
  return absl::StrCat(code, " ", name);
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

}  // namespace

std::string FormatEvent(const Event& e) {
  const absl::string_view kind = EventKindName(e.kind);
  switch (e.kind) {
    case EventKind::kThreadStart:
      return absl::StrCat(kind, " parent ", Actor(e.a));
    case EventKind::kThreadEnd:
    case EventKind::kCtxDestroy:
      return std::string(kind);
    case EventKind::kCallbackStart:
      return absl::StrCat(kind, " cb", e.b, " s", e.a, " status ", FormatResult(e.x));
    case EventKind::kCallbackEnd:
      return absl::StrCat(kind, " cb", e.b, " s", e.a);
    case EventKind::kHostFnStart:
    case EventKind::kHostFnEnd:
    case EventKind::kHostFnDropped:
      return absl::StrCat(kind, " fn", e.b, " s", e.a);
    case EventKind::kMutexCreate:
    case EventKind::kMutexLock:
    case EventKind::kMutexTryLockFail:
    case EventKind::kMutexPass:
    case EventKind::kMutexPassEnd:
      return absl::StrCat(kind, " m", e.a);
    case EventKind::kMutexBlock:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy:
      return absl::StrCat(kind, " m", e.a, " owner ", Actor(e.b));
    case EventKind::kSleep:
      return absl::StrCat(kind, " ", FormatTime(e.x));
    case EventKind::kJoin:
      return absl::StrCat(kind, " ", Actor(e.a));
    case EventKind::kProcessExit:
    case EventKind::kExitHandlersDone:
      return absl::StrCat(kind, " status ", e.x);
    case EventKind::kDriverCall:
      return absl::StrCat(kind, " api ", e.a, " -> ", FormatResult(e.x));
    case EventKind::kDriverCallBlock:
      return absl::StrCat(kind, " api ", e.a);
    case EventKind::kAlloc:
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete:
      return absl::StrCat(kind, " ", FormatBlock(e.x, e.y));
    case EventKind::kAllocFailed:
      return absl::StrCat(kind, " ", FormatBytes(e.y), " -> ", FormatResult(e.x));
    case EventKind::kKernelEnqueue:
      return absl::StrCat(kind, " k", e.a, " s", e.b, " region ", e.c, " stacks ",
                          FormatBlock(e.x, e.y * e.d), " (", e.d, " x ", FormatBytes(e.y), ")");
    case EventKind::kKernelStart:
    case EventKind::kKernelDropped:
      return absl::StrCat(kind, " k", e.a, " s", e.b);
    case EventKind::kKernelEnd:
      return absl::StrCat(kind, " k", e.a, " s", e.b, " ", FormatResult(e.x));
    case EventKind::kStickyError:
      return absl::StrCat(kind, " ", FormatResult(e.x));
    case EventKind::kEventRecord:
      return absl::StrCat(kind, " e", e.a, " s", e.b);
    case EventKind::kEventComplete:
      return absl::StrCat(kind, " e", e.a);
    case EventKind::kHostWordWrite:
      return absl::StrCat(kind, " w", e.a, " s", e.b, " = ", e.x);
    case EventKind::kKernelVars:
      return e.y == 0 ? absl::StrCat(kind, " k", e.a, " table 0x", absl::Hex(e.x))
                      : absl::StrCat(kind, " k", e.a, " table 0x", absl::Hex(e.x), " data 0x",
                                     absl::Hex(e.y));
    case EventKind::kMemcpy:
      return absl::StrCat(kind, e.a == 1 ? " to " : " from ", FormatBlock(e.x, e.y));
    case EventKind::kRegionBegin:
      return absl::StrCat(kind, " region ", e.c, " (stacks ", FormatBytes(e.x), ")");
    case EventKind::kRegionEnd:
      return absl::StrCat(kind, " region ", e.c);
    case EventKind::kFatalReported:
      return absl::StrCat(kind, " region ", e.c, " ", FormatResult(e.x));
    case EventKind::kErrorReported:
      return absl::StrCat(kind, " ", FormatResult(e.x));
    case EventKind::kSharedAccess:
      return absl::StrCat(kind, e.b == 1 ? " write" : " read", " #", e.a,
                          e.c == 1                 ? " (guard held)"
                          : e.c == kSnapshotAccess ? " (atomic snapshot)"
                          : e.c == kWriteInPass    ? " (in a pass under its guard)"
                                                   : " (unguarded)");
    case EventKind::kCacheHeld:
      return absl::StrCat(kind, " ", FormatBytes(e.x));
    case EventKind::kProbe:
      // Ids are the engine's probe registry's; names live there.
      return absl::StrCat(kind, " #", e.a);
    case EventKind::kProgramCall:
      return absl::StrCat(kind, " #", e.d, " object ", e.a, " -> ", e.x);
    case EventKind::kWaitQueueBlock:
      return absl::StrCat(kind, " q", e.a, " blamed ", Actor(e.b));
    case EventKind::kWaitQueueWake:
      return absl::StrCat(kind, " q", e.a, " woke ", Actor(e.b));
    case EventKind::kAllocGaveUp:
      return absl::StrCat(kind, " ", FormatBytes(e.x), " (cache held ", FormatBytes(e.y), ")");
  }
  return absl::StrCat(kind, " a=", e.a, " b=", e.b, " c=", e.c, " d=", e.d, " x=", e.x, " y=", e.y);
}

std::string DescribeEvent(std::size_t index, const Event& event, absl::string_view actor_name) {
  return absl::StrCat("#", index, " @", FormatTime(event.time_ns), " ", actor_name, " ",
                      FormatEvent(event));
}

}  // namespace stackcheck::sim
