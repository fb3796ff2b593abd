// Coverage probes: how many executions of a campaign reached each rare
// situation worth testing (core/probes.h), and which were never reached -- a
// campaign that never saw a callback run after its block was reallocated has
// not tested what V1 gets wrong, however many executions it ran.
//
// Two probes the runtime reports (kProbe events: "oom-retry",
// "soft-limit-free"); three are recognised from the event stream:
//  - callback-after-realloc: a stream callback starts after the block of the
//    kernel ahead of it in its stream was freed and another block allocated;
//  - abort-while-other-region-in-flight: a kernel aborts while another region
//    is open on some thread or has a kernel in flight;
//  - free-waits-on-running-callback: cuMemFree starts waiting while a callback
//    or host function is running.
//
//   CoverageProbes coverage;
//   per execution: coverage.Observe(events, [&](uint32_t id) { return registry.Name(id); });
//   per worker:    total.Merge(coverage);
//   at the end:    std::cout << total.Report();
#ifndef STACKCHECK_SIM_MONITORS_COVERAGE_PROBES_H_
#define STACKCHECK_SIM_MONITORS_COVERAGE_PROBES_H_

#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/probes.h"
#include "sim/block_ledger.h"
#include "sim/event.h"
#include "sim/kernel_table.h"

namespace stackcheck::sim {

class CoverageProbes {
 public:
  // Resolves a kProbe event's id (payload::Probe) to the probe's name.
  using ProbeNamer = absl::FunctionRef<absl::string_view(std::uint32_t)>;

  // Counts one execution: each probe it hit once, however often it hit it.
  void Observe(absl::Span<const Event> events, ProbeNamer probe_name);
  // Adds another counter's executions (e.g. from another worker).
  void Merge(const CoverageProbes& other);

  std::uint64_t executions() const { return executions_; }
  // Executions that hit `probe` (any name the runtime reported counts too).
  std::uint64_t hits(absl::string_view probe) const;
  // One line per probe with its count, then "probe NAME never hit" for each
  // of core/probes.h's probes that no execution reached.
  std::string Report() const;

 private:
  static constexpr std::size_t kProbeCount = std::size(kAllProbes);

  // Per-execution scratch, reused so Observe does not allocate once warm.
  void ResetScratch();
  void Hit(std::size_t probe) { hit_[probe] = true; }
  // Observe's steps: one event, and the events that may hit a probe.
  void ObserveEvent(const Event& e, std::size_t index, ProbeNamer probe_name);
  void KernelEnded(const Event& e);
  // Whether another region than `k`'s is open on some thread or has a
  // kernel in flight.
  bool OtherRegionInFlight(const KernelInFlight& k) const;
  void CallbackStarted(const Event& e);
  // A probe the runtime reported by `name`.
  void RuntimeProbe(const Event& e, absl::string_view name);

  std::uint64_t executions_ = 0;
  std::array<std::uint64_t, kProbeCount> counts_{};
  // Runtime probes outside core/probes.h, by name.
  std::map<std::string, std::uint64_t, std::less<>> other_counts_;

  std::array<bool, kProbeCount> hit_{};
  std::vector<std::string> other_hit_;
  BlockLedger ledger_;
  KernelTable kernels_;
  std::vector<BlockSerial> last_block_of_stream_;
  std::vector<std::uint32_t> region_of_actor_;
  int callbacks_running_ = 0;
  bool poisoned_ = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_COVERAGE_PROBES_H_
