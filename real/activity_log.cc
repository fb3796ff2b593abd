#include "real/activity_log.h"

#include <time.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"
#include "real/os_host.h"

namespace stackcheck::real {
namespace {

void CopyText(char* dst, std::size_t size, absl::string_view text) {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

thread_local ActivitySlot* my_slot = nullptr;
thread_local const ActivityTable* my_table = nullptr;

}  // namespace

std::int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

ActivitySlot* ActivityLog::Mine() {
  if (my_table == table_ && my_slot != nullptr) return my_slot;
  const int index = table_->used.fetch_add(1);
  if (index >= ActivityTable::kSlots) return nullptr;  // too many threads
  my_slot = &table_->slots[index];
  my_table = table_;
  const ThreadId id = CurrentOsThreadId();
  std::string fallback = absl::StrFormat("thread-%d", id);
  CopyText(my_slot->name, sizeof(my_slot->name), fallback);
  my_slot->thread.store(id, std::memory_order_release);
  return my_slot;
}

void ActivityLog::NameThread(absl::string_view name) {
  if (ActivitySlot* s = Mine()) CopyText(s->name, sizeof(s->name), name);
}

void ActivityLog::Begin(absl::string_view op) {
  ActivitySlot* s = Mine();
  if (s == nullptr) return;
  CopyText(s->op, sizeof(s->op), op);
  s->since_ns.store(MonotonicNowNs(), std::memory_order_relaxed);
  s->ops.fetch_add(1, std::memory_order_relaxed);
  s->busy.store(true, std::memory_order_release);
}

void ActivityLog::End() {
  if (ActivitySlot* s = Mine()) {
    s->since_ns.store(MonotonicNowNs(), std::memory_order_relaxed);
    s->busy.store(false, std::memory_order_release);
  }
}

std::vector<std::string> DescribeActivity(const ActivityTable& table, std::int64_t now_ns) {
  std::vector<std::string> out;
  const int used = std::min(table.used.load(), ActivityTable::kSlots);
  for (int i = 0; i < used; ++i) {
    const ActivitySlot& s = table.slots[i];
    if (s.thread.load(std::memory_order_acquire) == kNoThread) continue;
    const double seconds = static_cast<double>(now_ns - s.since_ns.load()) / 1e9;
    if (s.busy.load(std::memory_order_acquire)) {
      out.push_back(absl::StrFormat("%s (thread %d): in %s for %.2f s", s.name, s.thread.load(),
                                    s.op, seconds));
    } else {
      out.push_back(absl::StrFormat("%s (thread %d): idle %.2f s after %s", s.name, s.thread.load(),
                                    seconds, s.ops.load() ? s.op : "(nothing)"));
    }
  }
  return out;
}

}  // namespace stackcheck::real
