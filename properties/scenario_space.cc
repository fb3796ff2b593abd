#include "properties/scenario_space.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "properties/generators.h"

namespace stackcheck::properties {
namespace {

// Slots of the words that fill them (per thread, core/scenario_runner.cc).
constexpr std::uint32_t kAllocSlot = 0;
constexpr std::uint32_t kDataSlot = 1;

// An operation word: what it does to its slot.
struct OpWord {
  const char* name;
  HostOp op;
  bool is_run = false;
  int fills = -1;    // the slot it fills (must be empty before)
  int empties = -1;  // the slot it empties (must be full before)
  int reads = -1;    // the slot it reads (must be full)
};

HostOp RunOp(std::uint32_t warps, std::uint32_t mapped_vars) {
  HostOp op = HostOp::Run(kNoRegion, /*teams=*/1, warps);
  op.region.mapped_vars = mapped_vars;
  return op;
}

const std::vector<OpWord>& OpWords() {
  static const std::vector<OpWord>* const words = new std::vector<OpWord>{
      {"run", RunOp(1, 0), true},
      {"run-wide", RunOp(2, 0), true},
      {"run-mapped", RunOp(1, 1), true},
      // A region whose kernel uses the thread's allocation (is_device_ptr).
      {"run-ptr", HostOp::RunDevicePtr(RunOp(1, 0).region, kAllocSlot), true, -1, -1, kAllocSlot},
      {"alloc", HostOp::DeviceAlloc(kUnit, kAllocSlot), false, kAllocSlot},
      {"free", HostOp::DeviceFree(kAllocSlot), false, -1, kAllocSlot},
      {"enter", HostOp::EnterData(kMappedVarBytes, kDataSlot), false, kDataSlot},
      {"update", HostOp::Update(kDataSlot), false, -1, -1, kDataSlot},
      {"exit", HostOp::ExitData(kDataSlot), false, -1, kDataSlot},
  };
  return *words;
}

constexpr const char* kFaultWords[] = {"abort", "oom", "reject", "ctors", "dtors"};

// One thread's program: op words, each run word maybe aborting.
struct Program {
  std::vector<std::pair<int, bool>> ops;  // (OpWords() index, aborts)
  int faults = 0;
};

bool Uses(const std::vector<std::string>& words, absl::string_view word) {
  return words.empty() || std::find(words.begin(), words.end(), word) != words.end();
}

// Every program of 1..max_ops words that follows the slot rules, by length
// then in word order, numbered from 0, handed to `visit` from number `from`
// on until it returns false (then false). Made as they come, never kept: the
// programs of eight words are tens of millions. Starting again from a later
// number repeats the walk up to it, which costs time, not memory.
bool ForEachProgram(const std::vector<int>& op_words, bool abort, int max_ops, int max_faults,
                    std::size_t from,
                    absl::FunctionRef<bool(std::size_t index, const Program&)> visit) {
  const std::vector<OpWord>& words = OpWords();
  std::size_t index = 0;
  bool go_on = true;
  for (int length = 1; length <= max_ops && go_on; ++length) {
    Program p;
    bool full[2] = {false, false};
    std::function<void()> extend = [&] {
      if (!go_on) return;
      if (static_cast<int>(p.ops.size()) == length) {
        // Emptying the lowest full slot last is what the thread's end does
        // anyway. `full` is the state after the last op, which left the
        // slots below the one it emptied as they were.
        const OpWord& last = words[static_cast<size_t>(p.ops.back().first)];
        bool redundant = last.empties >= 0;
        for (int s = 0; redundant && s < last.empties; ++s) redundant = !full[s];
        if (!redundant) {
          if (index >= from) go_on = visit(index, p);
          ++index;
        }
        return;
      }
      for (int w : op_words) {
        const OpWord& word = words[static_cast<size_t>(w)];
        if (word.fills >= 0 && full[word.fills]) continue;
        if (word.empties >= 0 && !full[word.empties]) continue;
        if (word.reads >= 0 && !full[word.reads]) continue;
        for (bool aborts : {false, true}) {
          if (aborts && (!word.is_run || !abort || p.faults >= max_faults)) continue;
          if (word.fills >= 0) full[word.fills] = true;
          if (word.empties >= 0) full[word.empties] = false;
          p.ops.emplace_back(w, aborts);
          p.faults += aborts;
          extend();
          p.faults -= aborts;
          p.ops.pop_back();
          if (word.fills >= 0) full[word.fills] = false;
          if (word.empties >= 0) full[word.empties] = true;
          if (!go_on) return;
        }
      }
    };
    extend();
  }
  return go_on;
}

std::string ProgramLabel(const Program& p) {
  std::vector<std::string> names;
  for (const auto& [w, aborts] : p.ops) {
    names.push_back(absl::StrCat(OpWords()[static_cast<size_t>(w)].name, aborts ? "+abort" : ""));
  }
  return absl::StrCat("[", absl::StrJoin(names, " "), "]");
}

ThreadProgram ToThread(const Program& p) {
  ThreadProgram t;
  for (const auto& [w, aborts] : p.ops) {
    HostOp op = OpWords()[static_cast<size_t>(w)].op;
    op.region.aborts = aborts;
    t.ops.push_back(op);
  }
  return t;
}

// A scenario-wide fault plan and its label.
struct Plan {
  FaultPlan faults;
  int count = 0;
  std::string label;
};

std::vector<Plan> Plans(const ScopeBound& b) {
  std::vector<std::uint32_t> oom = {0}, reject = {0};
  for (std::uint32_t k = 1; k <= static_cast<std::uint32_t>(b.max_fault_call); ++k) {
    if (Uses(b.words, "oom")) oom.push_back(k);
    if (Uses(b.words, "reject")) reject.push_back(k);
  }
  std::vector<bool> ctors = {false}, dtors = {false};
  if (Uses(b.words, "ctors")) ctors.push_back(true);
  if (Uses(b.words, "dtors")) dtors.push_back(true);
  std::vector<Plan> out;
  for (std::uint32_t o : oom) {
    for (std::uint32_t r : reject) {
      for (bool c : ctors) {
        for (bool d : dtors) {
          Plan p;
          p.faults.alloc_failure_at_call = o;
          p.faults.launch_failure_at_call = r;
          p.faults.device_constructors = c;
          p.faults.device_destructors = d;
          p.count = (o != 0) + (r != 0) + c + d;
          if (p.count > b.max_faults) continue;
          std::vector<std::string> parts;
          if (o != 0) parts.push_back(absl::StrCat("oom@", o));
          if (r != 0) parts.push_back(absl::StrCat("reject@", r));
          if (c) parts.emplace_back("ctors");
          if (d) parts.emplace_back("dtors");
          p.label = absl::StrJoin(parts, " ");
          out.push_back(std::move(p));
        }
      }
    }
  }
  // Fewest faults first.
  std::stable_sort(out.begin(), out.end(),
                   [](const Plan& x, const Plan& y) { return x.count < y.count; });
  return out;
}

// Refuses a bound out of range or a vocabulary word the space does not know.
absl::Status CheckBound(const ScopeBound& b) {
  if (b.max_threads < 1 || b.max_threads > 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max_threads must be 1..4, not %d", b.max_threads));
  }
  if (b.max_ops < 1 || b.max_ops > 8) {
    return absl::InvalidArgumentError(absl::StrFormat("--max_ops must be 1..8, not %d", b.max_ops));
  }
  if (b.max_faults < 0 || b.max_faults > 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max_faults must be 0..4, not %d", b.max_faults));
  }
  if (b.max_fault_call < 1 || b.max_fault_call > 8) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max_fault_call must be 1..8, not %d", b.max_fault_call));
  }
  const std::vector<std::string>& vocabulary = VocabularyWords();
  for (const std::string& w : b.words) {
    if (std::find(vocabulary.begin(), vocabulary.end(), w) == vocabulary.end()) {
      return absl::InvalidArgumentError(absl::StrFormat("unknown vocabulary word '%s' (known: %s)",
                                                        w, absl::StrJoin(vocabulary, ",")));
    }
  }
  return absl::OkStatus();
}

// The threads' programs `chosen` under fault plan `plan` and the given modes.
ScopeScenario ScenarioOf(const Case& base, const std::vector<Program>& chosen, const Plan& plan,
                         bool waits, bool serial) {
  ScopeScenario s;
  s.test_case = base;
  std::vector<std::string> label;
  for (const Program& p : chosen) {
    s.test_case.scenario.threads.push_back(ToThread(p));
    label.push_back(ProgramLabel(p));
  }
  NumberRegions(s.test_case.scenario);
  s.test_case.scenario.faults = plan.faults;
  s.test_case.modes.free_waits_for_streams = waits;
  s.test_case.modes.serial_callback_thread = serial;
  if (!plan.label.empty()) label.push_back(plan.label);
  if (!waits) label.emplace_back("free-no-wait");
  if (!serial) label.emplace_back("concurrent-callbacks");
  s.label = absl::StrJoin(label, " ");
  return s;
}

// Visits `chosen` (with `faults` among them) under every fault plan the
// bound leaves room for, in every mode: false once `visit` says stop.
bool VisitPlansAndModes(const ScopeBound& b, const std::vector<Plan>& plans,
                        const std::vector<Program>& chosen, int faults,
                        absl::FunctionRef<bool(const ScopeScenario&)> visit) {
  for (const Plan& plan : plans) {
    if (faults + plan.count > b.max_faults) continue;
    for (bool waits : b.free_waits_for_streams) {
      for (bool serial : b.serial_callback_thread) {
        if (!visit(ScenarioOf(b.base, chosen, plan, waits, serial))) return false;
      }
    }
  }
  return true;
}

}  // namespace

Case ScopeBound::DefaultScopeBase() {
  Case c;
  c.scenario.soft_limit = kUnit;
  return c;
}

const std::vector<std::string>& VocabularyWords() {
  static const std::vector<std::string>* const words = [] {
    auto* out = new std::vector<std::string>;
    for (const OpWord& w : OpWords()) out->emplace_back(w.name);
    for (const char* f : kFaultWords) out->emplace_back(f);
    return out;
  }();
  return *words;
}

absl::Status VisitScope(const ScopeBound& b, absl::FunctionRef<bool(const ScopeScenario&)> visit) {
  if (absl::Status s = CheckBound(b); !s.ok()) return s;
  std::vector<int> op_words;
  for (size_t i = 0; i < OpWords().size(); ++i) {
    if (Uses(b.words, OpWords()[i].name)) op_words.push_back(static_cast<int>(i));
  }
  if (op_words.empty()) {
    return absl::InvalidArgumentError("the vocabulary needs at least one operation word");
  }
  if (b.free_waits_for_streams.empty() || b.serial_callback_thread.empty()) {
    return absl::InvalidArgumentError("every mode needs at least one value");
  }
  const bool abort = Uses(b.words, "abort");
  const std::vector<Plan> plans = Plans(b);

  bool stopped = false;  // the visitor said so
  // The threads' programs, their numbers non-decreasing (a multiset).
  std::vector<Program> chosen;
  std::function<void(size_t, int, int)> choose = [&](size_t from, int threads, int faults) {
    if (stopped) return;
    if (static_cast<int>(chosen.size()) == threads) {
      stopped = !VisitPlansAndModes(b, plans, chosen, faults, visit);
      return;
    }
    ForEachProgram(op_words, abort, b.max_ops, b.max_faults, from,
                   [&](std::size_t index, const Program& p) {
                     if (faults + p.faults > b.max_faults) return true;
                     chosen.push_back(p);
                     choose(index, threads, faults + p.faults);
                     chosen.pop_back();
                     return !stopped;
                   });
  };
  for (int threads = 1; threads <= b.max_threads && !stopped; ++threads) choose(0, threads, 0);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ScopeScenario>> EnumerateScope(const ScopeBound& bound) {
  std::vector<ScopeScenario> out;
  absl::Status s = VisitScope(bound, [&out](const ScopeScenario& scenario) {
    out.push_back(scenario);
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace stackcheck::properties
