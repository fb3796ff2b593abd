#include "properties/shard_top.h"

#include <limits>

namespace stackcheck::properties {

absl::StatusOr<std::size_t> ChooseShardTop(const ExploreSpec& spec, std::uint64_t units_per_shard) {
  constexpr std::size_t kStep = 8;
  constexpr std::size_t kDeepest = 128;
  // A walk this long already spreads the units thinly enough.
  constexpr std::uint64_t kLongestWalk = 200'000;
  const std::uint64_t wanted = units_per_shard * spec.shard.count;
  ExploreSpec walk = spec;
  // A shard that owns no unit (the last of as many as there can be): its run
  // is the walk alone.
  walk.shard.count = std::numeric_limits<std::uint32_t>::max();
  walk.shard.index = walk.shard.count - 1;
  walk.shard.before = {};
  walk.stop = StopRule::kNever;
  walk.max_executions = 0;
  walk.time_budget = absl::InfiniteDuration();
  walk.on_progress = nullptr;
  walk.on_execution = nullptr;
  walk.coverage = nullptr;
  // The units grow unevenly with the depth (a stretch where every thread
  // runs alone adds none): go on until there are enough, the walk gets
  // long, or the top takes whole executions.
  for (std::size_t depth = kStep;; depth += kStep) {
    walk.split_choices = depth;
    const ExploreReport r = Explore(walk);
    if (!r.status.ok()) return r.status;
    if (r.interrupted) return absl::CancelledError("interrupted while choosing the top's depth");
    if (r.shard.units_seen >= wanted || r.executions >= kLongestWalk || depth >= kDeepest) {
      return depth;
    }
  }
}

}  // namespace stackcheck::properties
