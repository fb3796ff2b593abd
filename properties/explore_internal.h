// Explore's parts that two of its files share (explore.cc runs one explorer,
// explore_parallel.cc runs several over a split search's units): not for
// callers, who use Explore (explore.h).
#ifndef STACKCHECK_PROPERTIES_EXPLORE_INTERNAL_H_
#define STACKCHECK_PROPERTIES_EXPLORE_INTERNAL_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "properties/explore.h"
#include "properties/search_checkpoint.h"
#include "sim/strategies/split_tree.h"

namespace stackcheck::properties::internal {

// What the workers of a parallel exploration share.
struct Workers {
  int count = 1;
  std::size_t split_choices = 0;
  // The top of the search, which the workers share (its claims: the units).
  std::shared_ptr<sim::SplitTree> tree = std::make_shared<sim::SplitTree>(/*wait_for_work=*/true);
  std::atomic<std::uint64_t> executions{0};  // owned executions, all workers
  std::atomic<bool> stop{false};             // a budget, a violation, an error
  std::chrono::steady_clock::time_point start;
  // Progress is reported by whichever worker is exploring when it is due: a
  // worker waiting for work reports nothing, and the one that does report
  // may wait a long time. Successful exchanges order the reports.
  std::atomic<std::int64_t> next_progress_ns{0};

  bool TakeProgressTurn(std::chrono::steady_clock::time_point now) {
    const std::int64_t now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count();
    std::int64_t due = next_progress_ns.load(std::memory_order_acquire);
    return now_ns >= due && next_progress_ns.compare_exchange_strong(due, now_ns + 400'000'000,
                                                                     std::memory_order_acq_rel);
  }
};

// One explorer: the whole run, or one worker of `workers`.
ExploreReport ExploreOne(const ExploreSpec& spec, Workers* workers);

// `spec.jobs` workers over the units of a split search; `resumed`: the
// checkpoint of an earlier run of the same spec to go on from.
ExploreReport ExploreParallel(const ExploreSpec& spec, const SearchCheckpoint* resumed);

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace stackcheck::properties::internal

#endif  // STACKCHECK_PROPERTIES_EXPLORE_INTERNAL_H_
