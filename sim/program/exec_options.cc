#include "sim/program/exec_options.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace stackcheck::program {
namespace {

absl::Status Bad(absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": '", text, "'"));
}

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

absl::StatusOr<FaultPlan> ParseFaults(absl::string_view text) {
  FaultPlan plan;
  if (text.empty()) return plan;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> kind_at = absl::StrSplit(item, '@');
    if (kind_at.size() != 2) return Bad("a fault is KIND@CALL:N", item);
    std::vector<absl::string_view> call_n = absl::StrSplit(kind_at[1], ':');
    if (kind_at[0] == "abort" && call_n.size() == 3 && call_n[0] == "kernel") {
      if (call_n[1].empty()) return Bad("abort@kernel:NAME:N needs a kernel name", item);
      // A kernel's name as GCC makes it (main$_omp_fn$0): it travels in
      // tab-separated requests and JSON, so nothing else is taken.
      for (const char c : call_n[1]) {
        if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$' &&
            c != '.') {
          return Bad("a kernel name holds letters, digits, '_', '$' and '.' only", item);
        }
      }
      if (!plan.abort_kernel.empty() || plan.abort_at_launch != 0) {
        return Bad("the same fault twice", item);
      }
      plan.abort_kernel = std::string(call_n[1]);
      call_n = {"launch", call_n[2]};
    }
    std::uint32_t n = 0;
    if (call_n.size() != 2 || !absl::SimpleAtoi(call_n[1], &n) || n == 0) {
      return Bad("a fault is KIND@CALL:N with N >= 1", item);
    }
    if (kind_at[0] == "oom" && call_n[0] == "alloc") {
      auto at = std::lower_bound(plan.oom_at_allocs.begin(), plan.oom_at_allocs.end(), n);
      if (at != plan.oom_at_allocs.end() && *at == n) return Bad("the same fault twice", item);
      plan.oom_at_allocs.insert(at, n);
      continue;
    }
    std::uint32_t* slot = nullptr;
    if (kind_at[0] == "abort" && call_n[0] == "launch") slot = &plan.abort_at_launch;
    if (kind_at[0] == "reject" && call_n[0] == "launch") slot = &plan.reject_at_launch;
    if (slot == nullptr) {
      return Bad(
          "unknown fault (known: abort@launch:N, abort@kernel:NAME:N, oom@alloc:N, "
          "reject@launch:N)",
          item);
    }
    if (*slot != 0) return Bad("the same fault twice", item);
    *slot = n;
  }
  return plan;
}

std::string FormatFaults(const FaultPlan& plan) {
  std::vector<std::string> items;
  if (plan.abort_at_launch != 0) {
    items.push_back(plan.abort_kernel.empty() ? absl::StrCat("abort@launch:", plan.abort_at_launch)
                                              : absl::StrCat("abort@kernel:", plan.abort_kernel,
                                                             ":", plan.abort_at_launch));
  }
  for (std::uint32_t n : plan.oom_at_allocs) items.push_back(absl::StrCat("oom@alloc:", n));
  if (plan.reject_at_launch != 0)
    items.push_back(absl::StrCat("reject@launch:", plan.reject_at_launch));
  return absl::StrJoin(items, ",");
}

absl::StatusOr<ExecOptions> ExecOptionsFromEnvironment() {
  ExecOptions options;
  if (const char* s = Env("STACKCHECK_EXEC_STRATEGY")) options.strategy = s;
  if (options.strategy != "random" && options.strategy != "pct" && options.strategy != "replay" &&
      options.strategy != "sequence") {
    return Bad("STACKCHECK_EXEC_STRATEGY is random, pct, sequence or replay", options.strategy);
  }
  if (const char* s = Env("STACKCHECK_EXEC_SEED")) {
    if (!absl::SimpleAtoi(s, &options.seed)) return Bad("STACKCHECK_EXEC_SEED", s);
  }
  if (const char* s = Env("STACKCHECK_EXEC_SCHEDULE")) {
    for (absl::string_view item : absl::StrSplit(s, ',', absl::SkipEmpty())) {
      std::uint64_t v = 0;
      if (!absl::SimpleAtoi(item, &v)) return Bad("STACKCHECK_EXEC_SCHEDULE", item);
      options.schedule.push_back(v);
    }
  }
  if (const char* s = Env("STACKCHECK_EXEC_FAULTS")) {
    absl::StatusOr<FaultPlan> plan = ParseFaults(s);
    if (!plan.ok()) return plan.status();
    options.faults = *plan;
  }
  if (const char* s = Env("STACKCHECK_EXEC_RESULT")) options.result_path = s;
  if (const char* s = Env("STACKCHECK_EXEC_CHROME_TRACE")) {
    if (absl::string_view(s) != "0" && absl::string_view(s) != "1") {
      return Bad("STACKCHECK_EXEC_CHROME_TRACE is 0 or 1", s);
    }
    options.chrome_trace = absl::string_view(s) == "1";
  }
  if (const char* s = Env("STACKCHECK_EXEC_WATCHDOG_S")) {
    if (!absl::SimpleAtoi(s, &options.watchdog_s) || options.watchdog_s < 1) {
      return Bad("STACKCHECK_EXEC_WATCHDOG_S is a number of seconds >= 1", s);
    }
  }
  return options;
}

}  // namespace stackcheck::program
