#include "properties/case.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace stackcheck::properties {

std::string CaseSize::ToString() const {
  auto plural = [](int n, absl::string_view word) {
    return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
  };
  return absl::StrCat(plural(threads, "thread"), ", ", plural(regions, "region"), ", ",
                      plural(ops, "op"), ", ", plural(faults, "fault"), ", ",
                      plural(preemptions, "preemption"));
}

int RegionCount(const Scenario& s) {
  int n = 0;
  for (const ThreadProgram& t : s.threads) {
    for (const HostOp& op : t.ops) n += op.HasRegion();
  }
  return n;
}

CaseSize SizeOf(const Case& c) {
  CaseSize size;
  size.threads = static_cast<int>(c.scenario.threads.size());
  for (const ThreadProgram& t : c.scenario.threads) {
    size.ops += static_cast<int>(t.ops.size());
    for (const HostOp& op : t.ops) {
      if (!op.HasRegion()) continue;
      ++size.regions;
      size.faults += op.region.aborts;
    }
  }
  const FaultPlan& f = c.scenario.faults;
  size.faults += (f.alloc_failure_at_call != 0) + (f.launch_failure_at_call != 0) +
                 f.device_constructors + f.device_destructors;
  size.choices = static_cast<int>(c.schedule.size());
  for (std::uint64_t choice : c.schedule) size.preemptions += choice != 0;
  return size;
}

bool SameRegion(const RegionSpec& a, const RegionSpec& b) {
  return a.id == b.id && a.teams == b.teams && a.warps == b.warps &&
         a.stack_size_per_warp == b.stack_size_per_warp && a.duration_ns == b.duration_ns &&
         a.aborts == b.aborts && a.mapped_vars == b.mapped_vars;
}

bool SameOp(const HostOp& a, const HostOp& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case HostOp::Kind::kRun:
      return SameRegion(a.region, b.region);
    case HostOp::Kind::kRunDevicePtr:
      return SameRegion(a.region, b.region) && a.slot == b.slot;
    case HostOp::Kind::kDeviceAlloc:
    case HostOp::Kind::kEnterData:
      return a.bytes == b.bytes && a.slot == b.slot;
    case HostOp::Kind::kDeviceFree:
    case HostOp::Kind::kExitData:
    case HostOp::Kind::kUpdate:
      return a.slot == b.slot;
  }
  return false;
}

bool SameScenario(const Scenario& a, const Scenario& b) {
  if (a.threads.size() != b.threads.size()) return false;
  for (size_t i = 0; i < a.threads.size(); ++i) {
    const std::vector<HostOp>& x = a.threads[i].ops;
    const std::vector<HostOp>& y = b.threads[i].ops;
    if (x.size() != y.size()) return false;
    for (size_t j = 0; j < x.size(); ++j) {
      if (!SameOp(x[j], y[j])) return false;
    }
  }
  return a.device_capacity == b.device_capacity && a.soft_limit == b.soft_limit &&
         a.faults.alloc_failure_at_call == b.faults.alloc_failure_at_call &&
         a.faults.launch_failure_at_call == b.faults.launch_failure_at_call &&
         a.faults.device_constructors == b.faults.device_constructors &&
         a.faults.device_destructors == b.faults.device_destructors &&
         a.close_at_end == b.close_at_end && a.shipped_target == b.shipped_target;
}

bool operator==(const Case& a, const Case& b) {
  return SameScenario(a.scenario, b.scenario) && a.modes == b.modes && a.schedule == b.schedule;
}

std::string DescribeScenario(const Scenario& s) {
  std::string out = absl::StrFormat(
      "capacity %d KiB, soft limit %d KiB, alloc failure at call %d, launch failure at "
      "call %d%s%s%s%s\n",
      s.device_capacity / kKiB, s.soft_limit / kKiB, s.faults.alloc_failure_at_call,
      s.faults.launch_failure_at_call, s.faults.device_constructors ? ", device ctors" : "",
      s.faults.device_destructors ? ", device dtors" : "", s.close_at_end ? ", close at end" : "",
      s.shipped_target ? ", GCC 12.2's target.c" : "");
  for (size_t t = 0; t < s.threads.size(); ++t) {
    std::vector<std::string> ops;
    for (const HostOp& op : s.threads[t].ops) {
      switch (op.kind) {
        case HostOp::Kind::kRun:
        case HostOp::Kind::kRunDevicePtr:
          ops.push_back(absl::StrFormat("run(r%d%s %dx%d %dKiB/warp %dns%s%s)", op.region.id,
                                        op.kind == HostOp::Kind::kRunDevicePtr
                                            ? absl::StrFormat(" is_device_ptr slot %d", op.slot)
                                            : std::string(),
                                        op.region.teams, op.region.warps,
                                        op.region.stack_size_per_warp / kKiB, op.region.duration_ns,
                                        op.region.mapped_vars > 0
                                            ? absl::StrFormat(" map %d", op.region.mapped_vars)
                                            : std::string(),
                                        op.region.aborts ? " ABORT" : ""));
          break;
        case HostOp::Kind::kDeviceAlloc:
          ops.push_back(absl::StrFormat("alloc(slot %d, %d KiB)", op.slot, op.bytes / kKiB));
          break;
        case HostOp::Kind::kDeviceFree:
          ops.push_back(absl::StrFormat("free(slot %d)", op.slot));
          break;
        case HostOp::Kind::kEnterData:
          ops.push_back(absl::StrFormat("enter-data(slot %d, %d B)", op.slot, op.bytes));
          break;
        case HostOp::Kind::kExitData:
          ops.push_back(absl::StrFormat("exit-data(slot %d)", op.slot));
          break;
        case HostOp::Kind::kUpdate:
          ops.push_back(absl::StrFormat("update(slot %d)", op.slot));
          break;
      }
    }
    absl::StrAppend(&out, "  thread ", t, ": ", absl::StrJoin(ops, "; "), "\n");
  }
  return out;
}

}  // namespace stackcheck::properties
