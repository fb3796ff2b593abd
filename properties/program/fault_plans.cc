#include "properties/program/fault_plans.h"

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_format.h"

namespace stackcheck::properties {
namespace {

using program::FaultPlan;

// Each plan is walked to its end by the search: beyond this, no search ends.
constexpr std::size_t kMaxPlans = 1000000;

struct Unit {
  enum class Kind { kTrap, kReject, kOom, kOomTwice } kind;
  std::uint32_t at;  // the launch or the (first) allocation, 1-based
};

// Merges `extra` into `into` where they can go together; false (and `into`
// unchanged) where not.
bool Merge(const FaultPlan& extra, FaultPlan* into) {
  FaultPlan merged = *into;
  if (extra.abort_at_launch != 0) {
    if (merged.abort_at_launch != 0 || merged.reject_at_launch == extra.abort_at_launch) {
      return false;
    }
    merged.abort_at_launch = extra.abort_at_launch;
  }
  if (extra.reject_at_launch != 0) {
    if (merged.reject_at_launch != 0 || merged.abort_at_launch == extra.reject_at_launch) {
      return false;
    }
    merged.reject_at_launch = extra.reject_at_launch;
  }
  for (std::uint32_t k : extra.oom_at_allocs) {
    std::vector<std::uint32_t>& ooms = merged.oom_at_allocs;
    if (std::find(ooms.begin(), ooms.end(), k) != ooms.end()) return false;
    ooms.push_back(k);
  }
  std::sort(merged.oom_at_allocs.begin(), merged.oom_at_allocs.end());
  *into = std::move(merged);
  return true;
}

std::vector<Unit> Units(std::uint32_t launches, std::uint32_t allocs) {
  std::vector<Unit> units;
  for (std::uint32_t k = 1; k <= launches; ++k) {
    units.push_back({Unit::Kind::kTrap, k});
    units.push_back({Unit::Kind::kReject, k});
  }
  for (std::uint32_t k = 1; k <= allocs; ++k) {
    units.push_back({Unit::Kind::kOom, k});
    if (k < allocs) units.push_back({Unit::Kind::kOomTwice, k});
  }
  return units;
}

// Adds `u` to `plan`; false when the plan cannot hold it.
bool Add(const Unit& u, FaultPlan* plan) {
  switch (u.kind) {
    case Unit::Kind::kTrap:
      if (plan->abort_at_launch != 0 || plan->reject_at_launch == u.at) return false;
      plan->abort_at_launch = u.at;
      return true;
    case Unit::Kind::kReject:
      if (plan->reject_at_launch != 0 || plan->abort_at_launch == u.at) return false;
      plan->reject_at_launch = u.at;
      return true;
    case Unit::Kind::kOom:
    case Unit::Kind::kOomTwice: {
      std::vector<std::uint32_t>& ooms = plan->oom_at_allocs;
      const std::uint32_t last = u.kind == Unit::Kind::kOom ? u.at : u.at + 1;
      for (std::uint32_t k = u.at; k <= last; ++k) {
        if (std::find(ooms.begin(), ooms.end(), k) != ooms.end()) return false;
        ooms.push_back(k);
      }
      std::sort(ooms.begin(), ooms.end());
      return true;
    }
  }
  return false;
}

void Extend(const std::vector<Unit>& units, std::size_t from, int left, const FaultPlan& plan,
            std::set<std::string>* seen, std::vector<FaultPlan>* out) {
  for (std::size_t i = from; i < units.size() && out->size() <= kMaxPlans; ++i) {
    FaultPlan bigger = plan;
    if (!Add(units[i], &bigger)) continue;
    if (seen->insert(program::FormatFaults(bigger)).second) out->push_back(bigger);
    if (left > 1) Extend(units, i + 1, left - 1, bigger, seen, out);
  }
}

int UnitCount(const FaultPlan& p) {
  // The size a plan was built at: OOMs in a row count as pairs.
  int n = (p.abort_at_launch != 0) + (p.reject_at_launch != 0);
  const std::vector<std::uint32_t>& o = p.oom_at_allocs;
  for (std::size_t i = 0; i < o.size();) {
    const bool pair = i + 1 < o.size() && o[i + 1] == o[i] + 1;
    i += pair ? 2 : 1;
    ++n;
  }
  return n;
}

}  // namespace

FaultPlan RandomFault(std::uint64_t seed, std::uint32_t launches, std::uint32_t allocs) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
  FaultPlan plan;
  switch (rng() % 5) {
    case 0:
      break;
    case 1:
      if (launches > 0) plan.abort_at_launch = 1 + rng() % launches;
      break;
    case 2:
      if (allocs > 0) plan.oom_at_allocs = {static_cast<std::uint32_t>(1 + rng() % allocs)};
      break;
    case 3:
      if (launches > 0) plan.reject_at_launch = 1 + rng() % launches;
      break;
    case 4: {
      // Two in a row: the retry after a failed allocation fails too, which
      // makes a mapping's allocation failure fatal (gomp_map_vars).
      if (allocs == 0) break;
      const auto first = static_cast<std::uint32_t>(1 + rng() % allocs);
      plan.oom_at_allocs = {first, first + 1};
      break;
    }
  }
  return plan;
}

FaultPlan RandomPlan(std::uint64_t seed, std::uint32_t launches, std::uint32_t allocs,
                     int max_units) {
  FaultPlan plan = RandomFault(seed, launches, allocs);
  // Further draws from seeds of their own, so that one unit's plan stays what
  // RandomFault gives for the seed.
  for (int k = 1; k < max_units; ++k) {
    Merge(RandomFault(seed ^ (0x5851f42d4c957f2dull * static_cast<std::uint64_t>(k)), launches,
                      allocs),
          &plan);
  }
  return plan;
}

absl::StatusOr<std::vector<FaultPlan>> EveryPlan(std::uint32_t launches, std::uint32_t allocs,
                                                 int max_units) {
  std::vector<FaultPlan> plans;
  std::set<std::string> seen;
  if (max_units < 1) return plans;
  Extend(Units(launches, allocs), 0, max_units, FaultPlan{}, &seen, &plans);
  if (plans.size() > kMaxPlans) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "more than %d fault plans of up to %d faults over %d launches and %d allocations; "
        "lower --exec_max_faults",
        kMaxPlans, max_units, launches, allocs));
  }
  // Smaller plans first (a bug that needs fewer faults is found first), in
  // the order built within a size.
  std::stable_sort(plans.begin(), plans.end(), [](const FaultPlan& a, const FaultPlan& b) {
    return UnitCount(a) < UnitCount(b);
  });
  return plans;
}

}  // namespace stackcheck::properties
