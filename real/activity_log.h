// What each thread of a hardware run is doing, kept where a hang cannot hide
// it: fixed-size slots in memory the runner shares with its parent process, so
// the watchdog can name every thread's last operation even when the child has
// to be killed.
#ifndef STACKCHECK_REAL_ACTIVITY_LOG_H_
#define STACKCHECK_REAL_ACTIVITY_LOG_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/host.h"

namespace stackcheck::real {

// Plain data, placed in a MAP_SHARED mapping. Text fields are written before
// the sequence number that publishes them, so a reader never sees a torn name
// for the op it reports (it may see the previous op: good enough for a report).
struct ActivitySlot {
  std::atomic<ThreadId> thread{kNoThread};
  std::atomic<bool> busy{false};          // inside `op` now
  std::atomic<std::int64_t> since_ns{0};  // monotonic clock at op start
  std::atomic<std::uint64_t> ops{0};      // operations started so far
  char name[32] = {};
  char op[96] = {};
};

struct ActivityTable {
  static constexpr int kSlots = 16;
  std::atomic<int> used{0};
  ActivitySlot slots[kSlots];
};

// The child's view: one slot per thread, claimed on first use.
class ActivityLog {
 public:
  // `table` lives in shared memory and outlives this object.
  explicit ActivityLog(ActivityTable* table) : table_(table) {}

  void NameThread(absl::string_view name);
  // The calling thread starts / finishes `op` (e.g. "cuMemFree",
  // "lock(stacks) held by thread 3").
  void Begin(absl::string_view op);
  void End();

 private:
  ActivitySlot* Mine();
  ActivityTable* const table_;
};

// The parent's view after a hang: "main: in cuCtxSynchronize for 5.00 s".
std::vector<std::string> DescribeActivity(const ActivityTable& table, std::int64_t now_ns);

std::int64_t MonotonicNowNs();

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_ACTIVITY_LOG_H_
