#include "sim/libcuda/bridge.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/monitors/monitor_set.h"
#include "sim/monitors/monitors.h"
#include "sim/program/device_addresses.h"
#include "sim/program/program_threads.h"
#include "sim/simulator.h"
#include "sim/strategies/random_strategy.h"
#include "sim/trace/named_format.h"

namespace stackcheck::libcuda {

using program::AtPoint;
using program::CallRecord;
using program::Controlled;
using program::FirstDeviceAddress;
using program::InForkedChild;
using program::LogProgramCall;
using program::OnSimulatorThread;
using program::Twin;

namespace {

namespace ctx = boost::context;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

thread_local bool t_inside = false;

// The exit status of a process whose simulated execution ended with a
// violation (a monitor's, a deadlock, the step bound), whether it stopped
// inside a driver call or at the program's end.
constexpr int kEndedEarlyStatus = 86;

class Bridge {
 public:
  Bridge() {
    // A device the size of an H200's memory: the ledger counts bytes, the
    // driver library backs only the blocks a program allocates, lazily.
    config_.device_capacity = 140 * kGiB;
    config_.first_device_address = FirstDeviceAddress();
    config_.modes.step_bound = std::uint64_t{1} << 40;
  }

  CuResult Run(const std::function<CuResult(Device&)>& call) {
    if (t_inside) return call(*device_);
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return CuResult::kDeinitialized;
    if (!started_) Start();
    request_ = &call;
    Enter();
    request_ = nullptr;
    if (!sim_side_) EndedEarly();
    return result_;
  }

  void Log(std::string line) {
    std::lock_guard<std::mutex> lock(log_mu_);
    calls_.push_back(std::move(line));
  }

  void Finish() {
    if (t_inside) {
      // exit() called from inside the simulation (a callback): the
      // execution cannot be ended from its own fiber; report what it has.
      finished_ = true;
      Report(/*partial=*/true);
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    if (started_) {
      quit_ = true;
      Enter();
    }
    if (Report(/*partial=*/false)) {
      std::fflush(nullptr);
      std::_Exit(kEndedEarlyStatus);
    }
  }

  std::uint64_t capacity() const { return config_.device_capacity; }

 private:
  void Start() {
    started_ = true;
    sim::MonitorParams params;
    auto set = sim::MakeMonitorSet(sim::MonitorNames(), params);
    std::vector<std::unique_ptr<sim::Monitor>> monitors;
    if (set.ok()) monitors.push_back(std::move(*set));
    simulator_ = std::make_unique<sim::Simulator>(config_, std::move(monitors));
    std::uint64_t seed = 0;
    if (const char* s = std::getenv("STACKCHECK_LIBCUDA_SEED")) {
      seed = std::strtoull(s, nullptr, 10);
    }
    sim::RandomStrategy::Options options;
    options.seed = seed;
    options.max_executions = 1;
    strategy_ = std::make_unique<sim::RandomStrategy>(options);
    strategy_->NewExecution();
    sim_side_ = ctx::fiber(
        std::allocator_arg, ctx::protected_fixedsize_stack(8 << 20), [this](ctx::fiber&& program) {
          program_ = std::move(program);
          result_run_ =
              &simulator_->Run(*strategy_, [this](Device& device, Host&, RuntimeObserver&) {
                device_ = &device;
                for (;;) {
                  Yield();
                  if (quit_) return;
                  result_ = (*request_)(device);
                }
              });
          return std::move(program_);
        });
    Enter();  // until T0 first yields
  }

  // Program side: run the simulation until T0 yields (or Run ends).
  void Enter() {
    t_inside = true;
    sim_side_ = std::move(sim_side_).resume();
    t_inside = false;
  }

  // The simulated execution ended while the program was in a driver call: a
  // monitor's violation, a deadlock or the step bound stopped it, so the call
  // has no outcome. The report is the result; the process ends with it.
  [[noreturn]] void EndedEarly() {
    finished_ = true;
    Report(/*partial=*/false);
    std::fflush(nullptr);
    std::_Exit(kEndedEarlyStatus);
  }

  // T0 side: let the program run until its next call.
  void Yield() { program_ = std::move(program_).resume(); }

  // Writes the report; true if the verdict is a violation.
  bool Report(bool partial) {
    std::string text;
    bool violation = false;
    for (const std::string& line : calls_) absl::StrAppend(&text, line, "\n");
    std::string summary = "stackcheck libcuda: simulation not started (no driver call)";
    if (partial) {
      summary =
          "stackcheck libcuda: the process exited inside the simulation "
          "(from a callback); no verdict";
    } else if (result_run_ != nullptr) {
      const sim::ExecutionResult& r = *result_run_;
      violation = r.violation.has_value();
      std::vector<std::string> names;
      for (sim::ActorId a = 0; a < 64; ++a) {
        names.emplace_back(simulator_->ActorName(a));
      }
      absl::StrAppend(&text, "== simulator event log ==\n");
      for (const sim::Event& e : r.trace) {
        absl::StrAppend(&text, absl::StrFormat("%12u ns  %-8s %s\n", e.time_ns,
                                               e.actor < names.size() ? names[e.actor] : "-",
                                               sim::FormatEventNamed(e, names)));
      }
      summary = absl::StrCat("stackcheck libcuda: ", calls_.size(), " driver calls, ",
                             r.trace.size(), " events, ", r.steps, " steps; verdict: ",
                             r.violation ? absl::StrCat("VIOLATION ", r.violation->property, ": ",
                                                        r.violation->message)
                                         : std::string("no violation"));
    }
    absl::StrAppend(&text, summary, "\n");
    if (const char* path = std::getenv("STACKCHECK_LIBCUDA_LOG")) {
      if (std::FILE* f = std::fopen(path, "w")) {
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
      } else {
        std::fprintf(stderr, "stackcheck libcuda: cannot write %s\n", path);
      }
    }
    std::fprintf(stderr, "%s\n", summary.c_str());
    return violation;
  }

  std::mutex mu_;
  std::mutex log_mu_;
  bool started_ = false;
  bool finished_ = false;
  bool quit_ = false;
  sim::SimConfig config_;
  std::unique_ptr<sim::Simulator> simulator_;
  std::unique_ptr<sim::RandomStrategy> strategy_;
  const sim::ExecutionResult* result_run_ = nullptr;
  ctx::fiber sim_side_;
  ctx::fiber program_;
  Device* device_ = nullptr;
  const std::function<CuResult(Device&)>* request_ = nullptr;
  CuResult result_ = CuResult::kSuccess;
  std::vector<std::string> calls_;
};

// Never destroyed: the program may call the driver from its own exit
// handlers and destructors, in any order with this library's.
Bridge& TheBridge() {
  static Bridge* bridge = new Bridge;
  return *bridge;
}

}  // namespace

// A controlled process (program_threads.h) runs each call at a scheduling
// point of the calling thread's twin; otherwise the single-thread bridge
// above serves it.
CuResult RunOnDevice(const std::function<CuResult(Device&)>& call) {
  if (Controlled()) {
    CuResult result = CuResult::kDeinitialized;
    AtPoint([&](Twin& twin) { result = call(twin.device); });
    return result;
  }
  return TheBridge().Run(call);
}

bool InsideSimulation() { return Controlled() ? OnSimulatorThread() : t_inside; }

namespace {

void LogCall(CallRecord::Kind kind, absl::string_view function, std::string detail) {
  if (Controlled()) {
    LogProgramCall(kind, function, std::move(detail));
    return;
  }
  TheBridge().Log(absl::StrCat(function, detail));
}

}  // namespace

void LogDriverCall(absl::string_view function, std::string detail) {
  LogCall(CallRecord::Kind::kDriver, function, std::move(detail));
}

void LogDriverNote(std::string text) {
  LogCall(CallRecord::Kind::kDriverNote, "", std::move(text));
}

void FinishSimulation() {
  // The controller reports at the program's exit; a forked child has nothing
  // of its own to report.
  if (Controlled() || InForkedChild()) return;
  TheBridge().Finish();
}

std::uint64_t DeviceCapacity() { return TheBridge().capacity(); }

}  // namespace stackcheck::libcuda
