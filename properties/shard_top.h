// How deep the top of a sharded proof goes (ExploreSpec::split_choices with
// ExploreSpec::Shard), unless told: deep enough that its units, dealt out
// by index mod count, balance the shards. Units vary in size by orders of
// magnitude (the first option at each node carries most of the tree), so
// a balanced split needs many units per shard; each unit costs every shard
// one execution of the walk, so not many more.
//
// Every shard computes the same answer: it walks the top at depths 8, 16,
// 24, ... (each walk one execution per unit, owning none) until the units
// reach `units_per_shard` x count, a walk gets long, or the depth is 128.
#ifndef STACKCHECK_PROPERTIES_SHARD_TOP_H_
#define STACKCHECK_PROPERTIES_SHARD_TOP_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "properties/explore.h"

namespace stackcheck::properties {

inline constexpr std::uint64_t kUnitsPerShard = 32;

absl::StatusOr<std::size_t> ChooseShardTop(const ExploreSpec& spec,
                                           std::uint64_t units_per_shard = kUnitsPerShard);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SHARD_TOP_H_
