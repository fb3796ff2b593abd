#include "sim/strategies/shard_plan.h"

#include <algorithm>

namespace stackcheck::sim {

ShardPlan::ShardPlan(std::uint32_t count, std::uint32_t index, const ShardProgress& before)
    : count_(count == 0 ? 1 : count),
      index_(index),
      finished_(before.finished),
      stack_before_(before.stack) {
  std::sort(finished_.begin(), finished_.end());
  finished_.erase(std::unique(finished_.begin(), finished_.end()), finished_.end());
  for (const ShardProgress::Escape& e : before.escapes) {
    bool& explored = escapes_[e.path][e.option];
    explored = explored || e.explored;
  }
}

bool ShardPlan::Explores(std::uint64_t unit) const {
  return Owns(unit) && !std::binary_search(finished_.begin(), finished_.end(), unit);
}

void ShardPlan::Finished(std::uint64_t unit) {
  const auto at = std::lower_bound(finished_.begin(), finished_.end(), unit);
  if (at == finished_.end() || *at != unit) finished_.insert(at, unit);
}

void ShardPlan::Escape(const std::vector<std::uint32_t>& path, std::uint32_t option) {
  escapes_[path].emplace(option, false);
}

void ShardPlan::EscapeExplored(const std::vector<std::uint32_t>& path, std::uint32_t option) {
  escapes_[path][option] = true;
}

const std::map<std::uint32_t, bool>* ShardPlan::EscapesAt(
    const std::vector<std::uint32_t>& path) const {
  const auto it = escapes_.find(path);
  return it == escapes_.end() ? nullptr : &it->second;
}

ShardProgress ShardPlan::progress() const {
  ShardProgress p;
  p.finished = finished_;
  p.stack = stack_;
  for (const auto& [path, options] : escapes_) {
    for (const auto& [option, explored] : options) p.escapes.push_back({path, option, explored});
  }
  return p;
}

std::uint64_t ShardPlan::escapes() const {
  std::uint64_t n = 0;
  for (const auto& entry : escapes_) n += entry.second.size();
  return n;
}

}  // namespace stackcheck::sim
