// A counting handoff between OS threads, on the futex system call directly.
//
// The program threads of a controlled run and the simulator's thread pass
// control with these. They cannot use pthread mutexes or condition variables:
// this library interposes those (interpose_pthread.cc), and a futex called
// through libc's syscall() is not one the futex trap (futex_trap.h) catches,
// which only watches libgomp's own code.
#ifndef STACKCHECK_SIM_PROGRAM_BATON_H_
#define STACKCHECK_SIM_PROGRAM_BATON_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace stackcheck::program {

class Baton {
 public:
  // Lets one Wait return (now, or when it comes).
  void Post() {
    count_.fetch_add(1, std::memory_order_release);
    syscall(SYS_futex, &count_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }

  // Takes one Post, waiting for it.
  void Wait() {
    while (!TryTake()) {
      syscall(SYS_futex, &count_, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
    }
  }

  // Takes one Post, waiting at most `seconds`; false if none came.
  bool WaitFor(int seconds) {
    timespec deadline{};
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += seconds;
    while (!TryTake()) {
      timespec now{};
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec > deadline.tv_sec ||
          (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
        return false;
      }
      timespec left{deadline.tv_sec - now.tv_sec, deadline.tv_nsec - now.tv_nsec};
      if (left.tv_nsec < 0) left.tv_sec -= 1, left.tv_nsec += 1000000000L;
      syscall(SYS_futex, &count_, FUTEX_WAIT_PRIVATE, 0, &left, nullptr, 0);
    }
    return true;
  }

 private:
  bool TryTake() {
    int c = count_.load(std::memory_order_acquire);
    while (c > 0) {
      if (count_.compare_exchange_weak(c, c - 1, std::memory_order_acquire)) return true;
    }
    return false;
  }

  std::atomic<int> count_{0};
};

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_BATON_H_
