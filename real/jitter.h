// Random delays at scheduling points, to shake real threads into
// interleavings that free scheduling rarely produces. Seeded, so a run's delay
// plan can be repeated (the OS still decides the rest).
#ifndef STACKCHECK_REAL_JITTER_H_
#define STACKCHECK_REAL_JITTER_H_

#include <cstdint>

#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace stackcheck::real {

struct JitterOptions {
  double probability = 0.0;  // of delaying at a given point; 0 = never
  absl::Duration max_delay = absl::Milliseconds(2);
  std::uint64_t seed = 1;
};

class Jitter {
 public:
  explicit Jitter(const JitterOptions& options);
  // Sleeps a random time in [0, max_delay) with the configured probability.
  void Point();
  std::uint64_t delays() const;

 private:
  const JitterOptions options_;
  mutable absl::Mutex mu_;
  absl::BitGen gen_ ABSL_GUARDED_BY(mu_);
  std::uint64_t delays_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_JITTER_H_
