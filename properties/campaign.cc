#include "properties/campaign.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/probes.h"
#include "properties/campaign_shrink.h"
#include "properties/expected_verdicts.h"
#include "properties/known_bugs.h"
#include "properties/worker_pool.h"
#include "sim/monitors/monitors.h"
#include "sim/strategies/registry.h"

namespace stackcheck::properties {
namespace {

std::uint64_t SplitMix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t MixSeed(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  return SplitMix(SplitMix(seed ^ (stream << 56)) ^ index);
}

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

// Where one fingerprint was first met.
struct FingerprintStats {
  std::uint64_t first = 0;  // smallest index that met it
  absl::string_view by = kPortfolio[0];
  std::uint64_t met = 0;
  Case found;
  std::string message;
};

// What one worker learned about one property.
struct PropertyStats {
  std::uint64_t checked = 0;
  std::optional<std::uint64_t> first;  // smallest violating index seen
  absl::string_view by = kPortfolio[0];
  Case found;
  std::string message;
  std::map<std::string, FingerprintStats> fingerprints;
};

// Keeps the smaller-index one of two sightings of a fingerprint.
void MergeFingerprint(FingerprintStats& into, FingerprintStats&& from) {
  const std::uint64_t met = into.met + from.met;
  if (into.met == 0 || from.first < into.first) into = std::move(from);
  into.met = met;
}

struct WorkerStats {
  std::vector<PropertyStats> properties;  // indexed like AllProperties()
  std::uint64_t executions = 0;
  sim::CoverageProbes coverage;
  absl::Status error;
};

size_t CatalogueIndex(const PropertyInfo* p) {
  return static_cast<size_t>(p - AllProperties().data());
}

// Records one finished execution in `stats`.
void Account(const PlannedExecution& plan, std::uint64_t index, const Execution& e,
             WorkerStats& stats) {
  ++stats.executions;
  auto count = [&](const PropertyInfo* p) {
    PropertyStats& s = stats.properties[CatalogueIndex(p)];
    // An execution another property's violation ended did not check p.
    if (!e.violation.has_value() || e.violation->property == p->name) ++s.checked;
  };
  for (const PropertyInfo* p : plan.checked) count(p);
  for (const PropertyInfo& p : AllProperties()) {
    if (p.checker == Checker::kEngine) count(&p);
  }
  auto met = [&](const sim::Violation& v) {
    const PropertyInfo* p = FindProperty(v.property);
    if (p == nullptr) {
      stats.error = absl::InternalError(absl::StrFormat(
          "the simulator reported a property the catalogue does not know: '%s'", v.property));
      return;
    }
    PropertyStats& s = stats.properties[CatalogueIndex(p)];
    Case found = plan.test_case;
    found.schedule = e.schedule;
    if (!s.first.has_value() || index < *s.first) {
      s.first = index;
      s.by = plan.strategy;
      s.found = found;
      s.message = v.message;
    }
    FingerprintStats sighting;
    sighting.first = index;
    sighting.by = plan.strategy;
    sighting.met = 1;
    sighting.found = std::move(found);
    sighting.message = v.message;
    MergeFingerprint(s.fingerprints[v.fingerprint], std::move(sighting));
  };
  for (const sim::Violation& v : e.passed) met(v);
  if (e.violation.has_value()) met(*e.violation);
}

// Order of first meeting; ties (one execution) by text.
bool FirstMet(const FingerprintVerdict& a, const FingerprintVerdict& b) {
  if (a.found_at != b.found_at) return a.found_at < b.found_at;
  return a.fingerprint < b.fingerprint;
}

}  // namespace

bool PropertyVerdict::has_new() const {
  return std::any_of(fingerprints.begin(), fingerprints.end(),
                     [](const FingerprintVerdict& f) { return !f.known; });
}

int CampaignResult::new_bugs() const {
  int n = 0;
  for (const PolicyResult& pr : policies) {
    for (const PropertyVerdict& v : pr.verdicts) {
      for (const FingerprintVerdict& f : v.fingerprints) n += f.known ? 0 : 1;
    }
  }
  return n;
}

std::vector<const PropertyInfo*> AvailableProperties(
    std::vector<std::pair<const PropertyInfo*, std::string>>* unavailable) {
  std::vector<const PropertyInfo*> out;
  for (const PropertyInfo* p : SimProperties()) {
    if (p->checker == Checker::kMonitor) {
      absl::StatusOr<std::unique_ptr<sim::Monitor>> m = sim::MakeMonitor(p->monitor_name, {});
      if (!m.ok()) {
        if (unavailable != nullptr) unavailable->emplace_back(p, std::string(m.status().message()));
        continue;
      }
    }
    out.push_back(p);
  }
  return out;
}

std::vector<std::string> KnownProbes() {
  std::vector<std::string> out;
  for (absl::string_view p : kAllProbes) out.emplace_back(p);
  return out;
}

namespace {

GenOptions WithoutSchedule(GenOptions options) {
  options.draw_schedule = false;
  return options;
}

}  // namespace

CaseGens::CaseGens(GenOptions options)
    : with_schedule(GenCase(options)), without_schedule(GenCase(WithoutSchedule(options))) {}

PlannedExecution PlanExecution(const CaseGens& gens, std::uint64_t seed, std::uint64_t index,
                               const PolicyInfo& policy,
                               const std::vector<const PropertyInfo*>& available) {
  PlannedExecution plan;
  plan.strategy = kPortfolio[index % std::size(kPortfolio)];
  // The case depends on (seed, index) only, so every policy meets the same cases.
  // Sizes sweep 0..100 as in a RapidCheck run: small sizes give tight device
  // capacities (OOM paths), large ones roomy devices and long schedules.
  const bool sequence = plan.strategy == "sequence";
  plan.test_case = CaseForSeed(sequence ? gens.with_schedule : gens.without_schedule,
                               MixSeed(seed, index, 0), static_cast<int>((index / 3) % 101));
  plan.strategy_seed = MixSeed(seed, index, 1);
  std::vector<const PropertyInfo*> monitors;
  for (const PropertyInfo* p : available) {
    if (p->checker == Checker::kMonitor) monitors.push_back(p);
  }
  // Even executions check every property; odd ones focus on one, so a property
  // that another violation always pre-empts (a deviation the policy accepts,
  // an early deadlock) still gets executions of its own.
  if (monitors.empty()) return plan;
  if (index % 2 == 0) {
    for (const PropertyInfo* p : monitors) {
      if (p->is_deviation &&
          ExpectedVerdict(policy.name, p->name) == Expectation::kAcceptedDeviation) {
        continue;
      }
      plan.checked.push_back(p);
    }
  } else {
    plan.checked.push_back(monitors[(index / 2) % monitors.size()]);
  }
  return plan;
}

absl::StatusOr<Execution> RunPlanned(const PlannedExecution& plan, const PolicyInfo& policy,
                                     sim::CoverageProbes* coverage, bool pass_known) {
  ExecuteOptions options;
  options.coverage = coverage;
  options.pass_known = pass_known;
  absl::StatusOr<const sim::StrategyRow*> row = sim::FindStrategy(plan.strategy);
  if (!row.ok()) return row.status();
  sim::StrategyParams params;
  params.seed = plan.strategy_seed;
  params.max_executions = 1;
  params.depth = 3;
  params.step_estimate = 150;
  params.schedule = plan.test_case.schedule;
  const std::unique_ptr<sim::Strategy> strategy = (*row)->make(params);
  return Execute(plan.test_case, policy, plan.checked, strategy.get(), options);
}

absl::StatusOr<Hunt> HuntViolation(const PolicyInfo& policy,
                                   const std::vector<std::string>& targets, std::uint64_t seed,
                                   std::uint64_t max_executions, absl::Duration time_limit,
                                   const GenOptions& generator) {
  const CaseGens gens(generator);
  const std::vector<const PropertyInfo*> available = AvailableProperties();
  const absl::Time start = absl::Now();
  Hunt hunt;
  for (std::uint64_t i = 0; i < max_executions && absl::Now() - start < time_limit; ++i) {
    const PlannedExecution plan = PlanExecution(gens, seed, i, policy, available);
    absl::StatusOr<Execution> e = RunPlanned(plan, policy);
    if (!e.ok()) return e.status();
    ++hunt.executions;
    if (!e->violation.has_value() ||
        std::find(targets.begin(), targets.end(), e->violation->property) == targets.end()) {
      continue;
    }
    hunt.found = true;
    hunt.property = e->violation->property;
    hunt.found_case = plan.test_case;
    hunt.found_case.schedule = e->schedule;
    hunt.message = e->violation->message;
    break;
  }
  hunt.seconds = Seconds(absl::Now() - start);
  return hunt;
}

namespace {

// Refuses a job count or shard no campaign can run with.
absl::Status CheckJobsAndShard(const CampaignOptions& options) {
  if (options.jobs < 1) return absl::InvalidArgumentError("--jobs must be at least 1");
  if (options.shard_count < 1 || options.shard_index < 0 ||
      options.shard_index >= options.shard_count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("shard %d of %d does not exist", options.shard_index, options.shard_count));
  }
  return absl::OkStatus();
}

std::vector<const PolicyInfo*> PoliciesToRun(const CampaignOptions& options) {
  std::vector<const PolicyInfo*> policies = options.policies;
  if (policies.empty()) {
    for (const PolicyInfo& p : AllPolicies()) policies.push_back(&p);
  }
  return policies;
}

// What every policy's turn of one campaign shares.
struct RunningCampaign {
  explicit RunningCampaign(const CampaignOptions& o)
      : options(o),
        available(AvailableProperties(&unavailable)),
        start(absl::Now()),
        end(start + o.time_budget) {}

  bool counted() const { return options.executions > 0; }
  bool stopped() const {
    return options.stop != nullptr && options.stop->load(std::memory_order_relaxed);
  }

  const CampaignOptions& options;
  std::vector<std::pair<const PropertyInfo*, std::string>> unavailable;
  const std::vector<const PropertyInfo*> available;
  const absl::Time start;
  const absl::Time end;
  std::atomic<std::uint64_t> total_executions{0};  // all policies, for the progress reports
};

// This policy's share of what is left: 70% exploring, the rest shrinking.
// A fixed count runs whole, within the whole budget.
PolicyTurn TurnOf(const RunningCampaign& campaign, const PolicyInfo& policy, size_t policies_left) {
  const absl::Time end = campaign.end;
  const absl::Duration slice = (end - absl::Now()) / static_cast<int>(policies_left);
  const absl::Time explore_end = campaign.counted() ? end : absl::Now() + slice * 0.7;
  const absl::Time policy_end = campaign.counted() ? end : absl::Now() + slice;
  return PolicyTurn{campaign.options, policy, explore_end, policy_end, end};
}

// When job 0 last reported progress.
struct ProgressPacer {
  std::mutex mu;
  absl::Time last = absl::Now();
};

void ReportProgress(const RunningCampaign& campaign, const PolicyInfo& policy, std::uint64_t done,
                    ProgressPacer& pacer) {
  if (!campaign.options.on_progress) return;
  const absl::Time now = absl::Now();
  if (now - pacer.last < absl::Milliseconds(500)) return;
  std::lock_guard<std::mutex> lock(pacer.mu);
  pacer.last = now;
  campaign.options.on_progress(CampaignProgress{done, Seconds(now - campaign.start),
                                                std::max(0.0, Seconds(campaign.end - now)),
                                                policy.name});
}

// Job `job`'s indices of this shard: every (shard_count * jobs)-th from its
// own first, until the count, the end of exploring or a stop.
void ExploreShare(RunningCampaign& campaign, const PolicyTurn& turn, int job, ProgressPacer& pacer,
                  WorkerStats& stats) {
  const CampaignOptions& options = campaign.options;
  stats.properties.resize(AllProperties().size());
  const CaseGens gens(options.generator);
  const std::uint64_t stride = static_cast<std::uint64_t>(options.shard_count) * options.jobs;
  for (std::uint64_t i =
           options.shard_index + static_cast<std::uint64_t>(options.shard_count) * job;
       options.executions == 0 || i < options.executions; i += stride) {
    if (absl::Now() >= turn.explore_end || campaign.stopped()) break;
    const PlannedExecution plan =
        PlanExecution(gens, options.seed, i, turn.policy, campaign.available);
    absl::StatusOr<Execution> e =
        RunPlanned(plan, turn.policy, &stats.coverage, /*pass_known=*/true);
    if (!e.ok()) {
      stats.error = e.status();
      return;
    }
    Account(plan, i, *e, stats);
    if (!stats.error.ok()) return;
    const std::uint64_t done = ++campaign.total_executions;
    if (job == 0) ReportProgress(campaign, turn.policy, done, pacer);
  }
}

// Each job learns on its own; MergeWorkers joins what they learned.
std::vector<WorkerStats> ExplorePolicy(RunningCampaign& campaign, const PolicyTurn& turn) {
  std::vector<WorkerStats> workers(campaign.options.jobs);
  ProgressPacer pacer;
  RunOnWorkers(campaign.options.jobs,
               [&](int job) { ExploreShare(campaign, turn, job, pacer, workers[job]); });
  return workers;
}

// A verdict for every catalogue property, nothing checked yet.
PolicyResult NoVerdictsYet(
    const PolicyInfo& policy,
    const std::vector<std::pair<const PropertyInfo*, std::string>>& unavailable) {
  PolicyResult pr;
  pr.policy = &policy;
  for (const PropertyInfo& p : AllProperties()) {
    PropertyVerdict& v = pr.verdicts.emplace_back();
    v.property = &p;
  }
  for (const auto& [p, why] : unavailable) {
    pr.verdicts[CatalogueIndex(p)].available = false;
    pr.verdicts[CatalogueIndex(p)].unavailable_why = why;
  }
  return pr;
}

// Adds one worker's `s` to verdict `v` and to the property's fingerprints.
void MergePropertyStats(PropertyStats& s, PropertyVerdict& v,
                        std::map<std::string, FingerprintStats>& fingerprints) {
  v.checked += s.checked;
  if (s.first.has_value() && (!v.violated || *s.first < v.found_at)) {
    v.violated = true;
    v.found_at = *s.first;
    v.found_by = s.by;
    v.original = std::move(s.found);
    v.message = std::move(s.message);
  }
  for (auto& [fingerprint, f] : s.fingerprints) {
    MergeFingerprint(fingerprints[fingerprint], std::move(f));
  }
}

// Judges each fingerprint met on `v`'s property known or NEW, in order of
// first meeting.
void AddFingerprintVerdicts(const PolicyInfo& policy,
                            std::map<std::string, FingerprintStats>& fingerprints,
                            PropertyVerdict& v) {
  for (auto& [fingerprint, f] : fingerprints) {
    FingerprintVerdict& fv = v.fingerprints.emplace_back();
    fv.fingerprint = fingerprint;
    fv.known = IsKnownBug(policy.name, fingerprint) ||
               ExpectedVerdict(policy.name, v.property->name) == Expectation::kAcceptedDeviation;
    fv.found_at = f.first;
    fv.found_by = f.by;
    fv.met = f.met;
    fv.original = std::move(f.found);
    fv.counterexample = fv.original;
    fv.message = std::move(f.message);
  }
  std::stable_sort(v.fingerprints.begin(), v.fingerprints.end(), FirstMet);
}

// The policy's verdicts from what its workers learned: counts add up, the
// smallest violating index wins. Their coverage goes to `probes`.
absl::StatusOr<PolicyResult> MergeWorkers(
    const PolicyInfo& policy,
    const std::vector<std::pair<const PropertyInfo*, std::string>>& unavailable,
    std::vector<WorkerStats>& workers, std::map<std::string, std::uint64_t>& probes) {
  PolicyResult pr = NoVerdictsYet(policy, unavailable);
  std::vector<std::map<std::string, FingerprintStats>> fingerprints(pr.verdicts.size());
  for (WorkerStats& w : workers) {
    if (!w.error.ok()) return w.error;
    pr.executions += w.executions;
    for (const std::string& probe : KnownProbes()) probes[probe] += w.coverage.hits(probe);
    for (size_t k = 0; k < w.properties.size(); ++k) {
      MergePropertyStats(w.properties[k], pr.verdicts[k], fingerprints[k]);
    }
  }
  for (size_t k = 0; k < pr.verdicts.size(); ++k) {
    AddFingerprintVerdicts(policy, fingerprints[k], pr.verdicts[k]);
  }
  return pr;
}

// With a fixed count: how far the policy's exploration fell short of this
// shard's share of indices 0 .. executions-1, if it did.
std::optional<std::string> ExplorationShortfall(const CampaignOptions& options,
                                                const PolicyInfo& policy, std::uint64_t explored) {
  const std::uint64_t first = static_cast<std::uint64_t>(options.shard_index);
  const std::uint64_t share =
      options.executions > first
          ? (options.executions - first + options.shard_count - 1) / options.shard_count
          : 0;
  if (explored >= share) return std::nullopt;
  return absl::StrFormat("%s: %d of %d executions explored before the time budget ran out",
                         policy.name, explored, share);
}

// FIXED?: the known bugs of each property the table marks violated that no
// execution met.
void MarkUnmetKnownBugs(const PolicyInfo& policy, PolicyResult& pr) {
  for (PropertyVerdict& v : pr.verdicts) {
    if (ExpectedVerdict(policy.name, v.property->name) != Expectation::kViolated) continue;
    for (const KnownBug* bug : KnownBugsOf(policy.name, v.property->name)) {
      const bool seen = std::any_of(
          v.fingerprints.begin(), v.fingerprints.end(),
          [bug](const FingerprintVerdict& f) { return f.fingerprint == bug->fingerprint; });
      if (!seen) v.fixed.emplace_back(bug->fingerprint);
    }
  }
}

// One policy's turn: explore, merge, judge and shrink, into `result`.
absl::Status RunPolicyTurn(RunningCampaign& campaign, const PolicyTurn& turn,
                           CampaignResult& result) {
  std::vector<WorkerStats> workers = ExplorePolicy(campaign, turn);
  absl::StatusOr<PolicyResult> pr =
      MergeWorkers(turn.policy, campaign.unavailable, workers, result.probes);
  if (!pr.ok()) return pr.status();
  const bool interrupted = campaign.stopped();
  if (campaign.counted() && !interrupted) {
    std::optional<std::string> shortfall =
        ExplorationShortfall(campaign.options, turn.policy, pr->executions);
    if (shortfall.has_value()) result.shortfalls.push_back(*std::move(shortfall));
  }
  if (!interrupted) MarkUnmetKnownBugs(turn.policy, *pr);
  if (absl::Status s = ShrinkFindings(turn, interrupted, *pr, result.shortfalls); !s.ok()) {
    return s;
  }
  result.executions += pr->executions;
  result.policies.push_back(*std::move(pr));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CampaignResult> RunCampaign(const CampaignOptions& options) {
  if (absl::Status s = CheckJobsAndShard(options); !s.ok()) return s;
  const std::vector<const PolicyInfo*> policies = PoliciesToRun(options);
  RunningCampaign campaign(options);
  CampaignResult result;
  for (const std::string& probe : KnownProbes()) result.probes[probe] = 0;
  for (size_t pi = 0; pi < policies.size() && !campaign.stopped(); ++pi) {
    const PolicyTurn turn = TurnOf(campaign, *policies[pi], policies.size() - pi);
    if (absl::Status s = RunPolicyTurn(campaign, turn, result); !s.ok()) return s;
  }
  // Set during exploration or shrinking, or before a policy's turn came.
  result.interrupted = campaign.stopped();
  std::sort(result.shortfalls.begin(), result.shortfalls.end());
  result.elapsed_s = Seconds(absl::Now() - campaign.start);
  return result;
}

CampaignResult MergeShards(std::vector<CampaignResult> shards) {
  CampaignResult merged;
  for (CampaignResult& shard : shards) {
    merged.executions += shard.executions;
    merged.elapsed_s = std::max(merged.elapsed_s, shard.elapsed_s);
    for (const auto& [probe, n] : shard.probes) merged.probes[probe] += n;
    for (PolicyResult& pr : shard.policies) {
      PolicyResult* into = nullptr;
      for (PolicyResult& m : merged.policies) {
        if (m.policy == pr.policy) into = &m;
      }
      if (into == nullptr) {
        merged.policies.push_back(std::move(pr));
        continue;
      }
      into->executions += pr.executions;
      for (size_t k = 0; k < pr.verdicts.size() && k < into->verdicts.size(); ++k) {
        PropertyVerdict& v = pr.verdicts[k];
        PropertyVerdict& m = into->verdicts[k];
        const std::uint64_t checked = m.checked + v.checked;
        std::vector<FingerprintVerdict> fingerprints = std::move(m.fingerprints);
        for (FingerprintVerdict& f : v.fingerprints) {
          auto same = std::find_if(
              fingerprints.begin(), fingerprints.end(),
              [&f](const FingerprintVerdict& g) { return g.fingerprint == f.fingerprint; });
          if (same == fingerprints.end()) {
            fingerprints.push_back(std::move(f));
          } else {
            const std::uint64_t met = same->met + f.met;
            if (f.found_at < same->found_at) *same = std::move(f);
            same->met = met;
          }
        }
        // FIXED? only when no shard met it.
        std::vector<std::string> fixed;
        for (const std::string& fp : m.fixed) {
          if (std::none_of(fingerprints.begin(), fingerprints.end(),
                           [&fp](const FingerprintVerdict& g) { return g.fingerprint == fp; })) {
            fixed.push_back(fp);
          }
        }
        if (v.violated && (!m.violated || v.found_at < m.found_at)) m = std::move(v);
        m.checked = checked;
        std::stable_sort(fingerprints.begin(), fingerprints.end(), FirstMet);
        m.fingerprints = std::move(fingerprints);
        m.fixed = std::move(fixed);
      }
    }
  }
  return merged;
}

VerdictTable ToVerdictTable(const CampaignResult& result) {
  VerdictTable table;
  table.columns = {"sim"};
  for (const PolicyResult& pr : result.policies) {
    for (const PropertyVerdict& v : pr.verdicts) {
      VerdictRow& row = table.Row(pr.policy->name, std::string(v.property->name));
      VerdictCell& cell = row.cells[0];
      if (!v.available) {
        cell.state = VerdictCell::State::kUnavailable;
        cell.message = v.unavailable_why;
      } else if (v.violated) {
        cell.state = VerdictCell::State::kViolated;
        cell.executions = v.checked;
        cell.size = SizeOf(v.counterexample).ToString();
        if (!v.reproducible) absl::StrAppend(&cell.size, ", NOT REPRODUCIBLE");
        int fresh = 0;
        for (const FingerprintVerdict& f : v.fingerprints) fresh += f.known ? 0 : 1;
        if (fresh > 0) absl::StrAppend(&cell.size, ", ", fresh, " NEW");
        if (!v.fixed.empty()) absl::StrAppend(&cell.size, ", ", v.fixed.size(), " FIXED?");
        cell.replay = v.replay_path.empty() ? v.token : v.replay_path;
        cell.message = v.message;
      } else {
        cell.state = VerdictCell::State::kHolds;
        cell.executions = v.checked;
      }
    }
  }
  return table;
}

}  // namespace stackcheck::properties
