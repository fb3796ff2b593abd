// Our opaque handles (core/device.h) for the driver's raw pointers: handle n
// is entry n-1 of a table that only grows, and a released entry becomes a
// tombstone, so a stale or foreign handle is recognised instead of reaching
// the driver. Not thread-safe: CudaDevice guards each table with its mutex.
#ifndef STACKCHECK_REAL_HANDLE_TABLE_H_
#define STACKCHECK_REAL_HANDLE_TABLE_H_

#include <cstdint>
#include <vector>

namespace stackcheck::real {

template <typename Handle, typename Raw>
class HandleTable {
 public:
  Handle Add(Raw raw) {
    entries_.push_back(raw);
    return static_cast<Handle>(static_cast<std::uint32_t>(entries_.size()));
  }
  // The raw pointer behind a live handle; false for 0, unknown or released.
  bool Find(Handle h, Raw* out) const {
    const auto n = static_cast<std::uint32_t>(h);
    if (n == 0 || n > entries_.size() || entries_[n - 1] == nullptr) {
      return false;
    }
    *out = entries_[n - 1];
    return true;
  }
  // Find, then release the handle.
  bool Take(Handle h, Raw* out) {
    if (!Find(h, out)) return false;
    entries_[static_cast<std::uint32_t>(h) - 1] = nullptr;
    return true;
  }
  // The live raw pointers, for teardown.
  template <typename Fn>
  void ForEachLive(Fn fn) const {
    for (Raw raw : entries_) {
      if (raw != nullptr) fn(raw);
    }
  }
  void Clear() { entries_.clear(); }

 private:
  std::vector<Raw> entries_;
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_HANDLE_TABLE_H_
