// Reads the clock once every few executions instead of after each one.
//
// A search checks its deadline and its progress line after every execution,
// and an execution of a small scenario takes about 3 us: a clock read each
// time was 1-2 % of the search. The stride between reads doubles while twice
// the last interval between reads stays under `fine`, and drops back to one
// as soon as it does not: while executions take about as long as the ones
// before them, a deadline or a progress line is late by at most about `fine`
// (at most one execution, once executions take longer than `fine`).
#ifndef STACKCHECK_PROPERTIES_SAMPLED_CLOCK_H_
#define STACKCHECK_PROPERTIES_SAMPLED_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace stackcheck::properties {

template <typename Clock = std::chrono::steady_clock>
class SampledClock {
 public:
  using time_point = typename Clock::time_point;

  explicit SampledClock(time_point start,
                        typename Clock::duration fine = std::chrono::milliseconds(1))
      : fine_(fine), last_(start) {}

  // The time now, or at the last read while the stride is not used up.
  time_point Now() {
    if (--until_read_ != 0) return last_;
    const time_point now = Clock::now();
    const bool quick = (now - last_) * 2 < fine_;
    stride_ = quick ? (stride_ < kMaxStride ? stride_ * 2 : kMaxStride) : 1;
    until_read_ = stride_;
    last_ = now;
    return now;
  }
  std::uint32_t stride() const { return stride_; }

 private:
  static constexpr std::uint32_t kMaxStride = 64;
  typename Clock::duration fine_;
  time_point last_;
  std::uint32_t stride_ = 1;
  std::uint32_t until_read_ = 1;
};

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SAMPLED_CLOCK_H_
