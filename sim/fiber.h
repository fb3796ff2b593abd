// Stacks for the simulator's fibers, and the sanitizer hooks a fiber switch
// needs.
//
// Every host thread and callback of an execution runs as a
// boost::context::fiber. Executions are short and there are millions of them,
// so stacks are never returned to the system: a finished fiber's stack goes
// back to a pool and the next fiber reuses it (no allocation per execution once
// the pool is warm, which is what keeps memory flat over 1e6 executions).
#ifndef STACKCHECK_SIM_FIBER_H_
#define STACKCHECK_SIM_FIBER_H_

#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <vector>

#ifdef STACKCHECK_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#ifdef STACKCHECK_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace stackcheck::sim {

class StackPool {
 public:
  // Usable bytes per stack (a guard page below each is added).
  explicit StackPool(std::size_t stack_bytes);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  boost::context::stack_context Allocate();
  void Deallocate(const boost::context::stack_context& stack);

  std::size_t stack_bytes() const { return stack_bytes_; }
  // Stacks ever mapped: bounded by the most fibers alive at once.
  std::size_t stacks_mapped() const { return mapped_.size(); }
  // The stack handed out by the latest Allocate (for sanitizer annotations).
  const boost::context::stack_context& last_allocated() const { return last_; }

 private:
  std::size_t stack_bytes_;
  std::size_t guard_bytes_;
  std::vector<char*> free_;    // lowest usable address of each idle stack
  std::vector<char*> mapped_;  // every mapping (guard page first)
  boost::context::stack_context last_;
};

// The StackAllocator concept boost::context::fiber expects, over a pool.
class PooledStack {
 public:
  explicit PooledStack(StackPool* pool) : pool_(pool) {}
  boost::context::stack_context allocate() { return pool_->Allocate(); }
  void deallocate(boost::context::stack_context& stack) { pool_->Deallocate(stack); }

 private:
  StackPool* pool_;
};

// Default stack size: runtime code, absl::StrFormat and gtest assertions in
// test programs fit comfortably; sanitizers need more.
#if defined(STACKCHECK_ASAN) || defined(STACKCHECK_TSAN)
inline constexpr std::size_t kFiberStackBytes = 1024 * 1024;
#else
inline constexpr std::size_t kFiberStackBytes = 256 * 1024;
#endif

// AddressSanitizer must be told when the stack changes under it; these are
// no-ops in other builds. `bottom`/`size` describe the stack being entered.
// Inline, so that the no-op versions cost nothing at every fiber switch.
inline void SanitizerStartSwitch(void** fake_stack_save, const void* bottom, std::size_t size) {
#ifdef STACKCHECK_ASAN
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}
inline void SanitizerFinishSwitch(void* fake_stack_save, const void** old_bottom,
                                  std::size_t* old_size) {
#ifdef STACKCHECK_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_save, old_bottom, old_size);
#else
  (void)fake_stack_save, (void)old_bottom, (void)old_size;
#endif
}

// ThreadSanitizer keeps per-fiber state; these are no-ops in other builds.
#ifdef STACKCHECK_TSAN
inline void* TsanCurrentFiber() { return __tsan_get_current_fiber(); }
inline void* TsanCreateFiber() { return __tsan_create_fiber(0); }
inline void TsanDestroyFiber(void* fiber) {
  if (fiber != nullptr) __tsan_destroy_fiber(fiber);
}
// Immediately before a switch to `fiber`.
inline void TsanSwitchTo(void* fiber) { __tsan_switch_to_fiber(fiber, 0); }
#else
inline void* TsanCurrentFiber() { return nullptr; }
inline void* TsanCreateFiber() { return nullptr; }
inline void TsanDestroyFiber(void*) {}
inline void TsanSwitchTo(void*) {}
#endif

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_FIBER_H_
