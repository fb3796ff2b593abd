#include "real/jitter.h"

#include <random>

#include "absl/time/clock.h"

namespace stackcheck::real {

Jitter::Jitter(const JitterOptions& options)
    : options_(options),
      gen_(std::seed_seq{static_cast<std::uint32_t>(options.seed),
                         static_cast<std::uint32_t>(options.seed >> 32)}) {}

void Jitter::Point() {
  if (options_.probability <= 0) return;
  absl::Duration delay;
  {
    absl::MutexLock lock(&mu_);
    if (!absl::Bernoulli(gen_, options_.probability)) return;
    delay = absl::Nanoseconds(
        absl::Uniform<std::int64_t>(gen_, 0, absl::ToInt64Nanoseconds(options_.max_delay) + 1));
    ++delays_;
  }
  absl::SleepFor(delay);
}

std::uint64_t Jitter::delays() const {
  absl::MutexLock lock(&mu_);
  return delays_;
}

}  // namespace stackcheck::real
