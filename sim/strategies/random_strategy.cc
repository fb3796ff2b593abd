#include "sim/strategies/random_strategy.h"

namespace stackcheck::sim {

std::uint64_t ExecutionSeed(std::uint64_t seed, std::uint64_t execution) {
  // Two mixing rounds so that neighbouring (seed, execution) pairs give
  // unrelated streams.
  std::uint64_t state = seed;
  std::uint64_t mixed = SplitMix64(state) ^ execution;
  return SplitMix64(mixed);
}

RandomStrategy::RandomStrategy(const Options& options) : options_(options) {}

bool RandomStrategy::NewExecution() {
  if (options_.max_executions != 0 && started_ >= options_.max_executions) {
    return false;
  }
  execution_ = options_.first_execution + started_;
  ++started_;
  rng_.Seed(ExecutionSeed(options_.seed, execution_));
  return true;
}

std::size_t RandomStrategy::NextActor(const SchedulingPoint& point) {
  const std::size_t n = point.runnable.size();
  return n <= 1 ? 0 : static_cast<std::size_t>(rng_.Below(n));
}

std::uint64_t RandomStrategy::NextNumber(std::uint64_t n) { return n <= 1 ? 0 : rng_.Below(n); }

}  // namespace stackcheck::sim
