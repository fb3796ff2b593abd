#include "sim/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#ifdef STACKCHECK_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace stackcheck::sim {

StackPool::StackPool(std::size_t stack_bytes)
    : guard_bytes_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  // Round up to whole pages so the guard page stays aligned.
  stack_bytes_ = (stack_bytes + guard_bytes_ - 1) / guard_bytes_ * guard_bytes_;
}

StackPool::~StackPool() {
  for (char* m : mapped_) munmap(m, stack_bytes_ + guard_bytes_);
}

boost::context::stack_context StackPool::Allocate() {
  char* low;
  if (!free_.empty()) {
    low = free_.back();
    free_.pop_back();
  } else {
    void* m = mmap(nullptr, stack_bytes_ + guard_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      std::fprintf(stderr, "stackcheck: cannot map a fiber stack\n");
      std::abort();
    }
    // A stack overflow hits the guard page and faults instead of corrupting
    // the neighbouring stack.
    mprotect(m, guard_bytes_, PROT_NONE);
    mapped_.push_back(static_cast<char*>(m));
    low = static_cast<char*>(m) + guard_bytes_;
  }
#ifdef STACKCHECK_ASAN
  // A reused stack still carries the redzones of the frames that lived on it
  // (an abandoned fiber's in particular); the new fiber starts clean.
  __asan_unpoison_memory_region(low, stack_bytes_);
#endif
  boost::context::stack_context stack;
  stack.size = stack_bytes_;
  stack.sp = low + stack_bytes_;  // stacks grow down: sp is the top
  last_ = stack;
  return stack;
}

void StackPool::Deallocate(const boost::context::stack_context& stack) {
  free_.push_back(static_cast<char*>(stack.sp) - stack.size);
}

}  // namespace stackcheck::sim
