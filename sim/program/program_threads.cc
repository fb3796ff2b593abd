#include "sim/program/program_threads.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/monitors/monitor_set.h"
#include "sim/monitors/monitors.h"
#include "sim/program/baton.h"
#include "sim/program/device_addresses.h"
#include "sim/program/exec_options.h"
#include "sim/program/exec_result.h"
#include "sim/program/fault_handlers.h"
#include "sim/program/fork_server.h"
#include "sim/program/futex_trap.h"
#include "sim/program/real_functions.h"
#include "sim/simulator.h"
#include "sim/strategies/registry.h"
#include "sim/strategies/replay_strategy.h"

namespace stackcheck::program {

struct NewThread {
  Baton go;  // posted when the twin is picked: the thread may run
  const absl::FunctionRef<void(Twin&)>* work = nullptr;  // its pending point
  ThreadId twin = kNoThread;
  pthread_t handle{};
  bool created = false;
  bool leaving = false;   // the thread is done: its twin ends
  std::string last_call;  // its last line of the call log
};

namespace {

// Passes the answers through and records each one relative to the running
// actor, as SequenceStrategy reads them: the shrinker's form of a schedule.
class RecordingStrategy final : public sim::Strategy {
 public:
  explicit RecordingStrategy(std::unique_ptr<sim::Strategy> inner) : inner_(std::move(inner)) {}
  bool NewExecution() override { return inner_->NewExecution(); }
  std::size_t NextActor(const sim::SchedulingPoint& point) override {
    const std::size_t pick = inner_->NextActor(point);
    const std::size_t n = point.runnable.size();
    const bool preempts = point.current >= 0 && pick != static_cast<std::size_t>(point.current);
    preemptions_ += preempts;
    relative_.push_back(point.current >= 0 && pick < n
                            ? (pick + n - static_cast<std::size_t>(point.current)) % n
                            : pick);
    widths_.push_back(n);
    preempts_.push_back(point.current >= 0);
    return pick;
  }
  std::uint64_t NextNumber(std::uint64_t n) override {
    const std::uint64_t v = inner_->NextNumber(n);
    relative_.push_back(v);
    widths_.push_back(n);
    preempts_.push_back(false);
    return v;
  }
  bool ObservesEveryStep() const override { return inner_->ObservesEveryStep(); }
  const std::vector<std::uint64_t>& relative() const { return relative_; }
  const std::vector<std::uint64_t>& widths() const { return widths_; }
  const std::vector<bool>& preempts() const { return preempts_; }
  // Points where a runnable thread was made to wait for another.
  std::uint64_t preemptions() const { return preemptions_; }

 private:
  std::unique_ptr<sim::Strategy> inner_;
  std::vector<std::uint64_t> relative_;
  std::vector<std::uint64_t> widths_;
  std::vector<bool> preempts_;
  std::uint64_t preemptions_ = 0;
};

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
// The exit status of a process whose execution stopped at a violation, and
// of one stuck outside every scheduling point.
constexpr int kViolationStatus = 86;
constexpr int kStuckStatus = 87;

// The file the program's standard error was when the execution began.
// stackcheck's own lines go there only while descriptor 2 is still that file:
// a program that closes it and opens a file of its own there must not find
// our report in it (the result file carries the report anyway). No
// descriptor of ours is added to the program's.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool known = false;
};
FileId g_stderr_file;

FileId StderrFile() {
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return {};
  return {st.st_dev, st.st_ino, true};
}

bool StderrIsTheExecutions() {
  const FileId now = StderrFile();
  return g_stderr_file.known && now.known && now.dev == g_stderr_file.dev &&
         now.ino == g_stderr_file.ino;
}

thread_local NewThread* t_self = nullptr;
thread_local bool t_on_simulator = false;

class Controller {
 public:
  bool active() const { return active_; }
  // The forked child's copy of the controller lets go of everything.
  void Detach() {
    active_ = false;
    ended_.store(true, std::memory_order_release);
    t_self = nullptr;
  }
  int watchdog_s() const { return options_.watchdog_s; }

  // The program dies of `signal` at `at`: the execution so far, as a finding.
  void ReportCrash(int signal, const void* at) {
    if (!active_ || ended_.exchange(true)) return;
    sim::ExecutionResult so_far = simulator_->SoFar();
    ExecReport report = DescribeExecution(*simulator_, *host_, so_far, options_.chrome_trace);
    Dl_info info{};
    std::string where = "unknown code";
    if (dladdr(at, &info) != 0 && info.dli_fname != nullptr) {
      const char* object = std::strrchr(info.dli_fname, '/');
      object = object != nullptr ? object + 1 : info.dli_fname;
      where = info.dli_sname != nullptr ? absl::StrCat(info.dli_sname, " (", object, ")")
                                        : std::string(object);
    }
    const std::string thread = TwinName();
    report.verdict = "violation";
    report.property = "no-crash";
    report.message = absl::StrCat(thread.empty() ? "a thread" : thread, " died of ",
                                  strsignal(signal), " in ", where);
    report.fingerprint = absl::StrCat("no-crash: ", sigabbrev_np(signal), " in ", where);
    FillSchedule(&report);
    Fill(&report);
    Write(report);
    std::fflush(nullptr);
  }

  // Ends the execution as stuck: the report, then status 87. The execution
  // so far is in it - its choices, its trace's digest - so that a replay
  // follows the same schedule to the same stuck state and can be compared.
  [[noreturn]] void EndStuck(std::string message, std::string fingerprint) {
    ended_.store(true, std::memory_order_release);
    ExecReport report;
    if (active_) {
      report = DescribeExecution(*simulator_, *host_, simulator_->SoFar(), options_.chrome_trace);
      FillSchedule(&report);
    }
    report.verdict = "stuck";
    report.property = "progress";
    report.message = std::move(message);
    report.fingerprint = std::move(fingerprint);
    report.waits.clear();
    report.calls = calls_;
    Fill(&report);
    Write(report);
    std::fflush(nullptr);
    _exit(kStuckStatus);
  }

  bool ended() const { return ended_.load(std::memory_order_acquire); }

  // Before main: start the simulated execution, with the main thread's twin.
  void Start() {
    g_stderr_file = StderrFile();
    absl::StatusOr<ExecOptions> options = ExecOptionsFromEnvironment();
    if (!options.ok()) Fail(options.status().message());
    options_ = *std::move(options);
    // Processes the program starts (a shell, a helper) are not this
    // execution: they run uncontrolled and leave its result file alone.
    unsetenv("STACKCHECK_EXEC");
    unsetenv("STACKCHECK_EXEC_RESULT");
    if (absl::Status trap = InstallFutexTrap(); !trap.ok()) Fail(trap.message());
    InstallFaultHandlers();

    sim::SimConfig config;
    // A device the size of an H200's memory (the ledger counts bytes; the
    // library backs only what a program allocates, lazily).
    config.device_capacity = 140 * kGiB;
    config.first_device_address = FirstDeviceAddress();
    config.modes.step_bound = std::uint64_t{1} << 24;
    // The plan's allocation failures are the driver's to inject (sim/libcuda/entry_memory.cc):
    // it counts the program's own cuMemAlloc calls.
    config.launch_failure_at_call = options_.faults.reject_at_launch;
    sim::MonitorParams params;
    std::vector<std::unique_ptr<sim::Monitor>> monitors;
    // Every monitor but the two that judge what the policy models report
    // through RuntimeObserver (regions, fatal errors, the cache's size),
    // which real code does not: its messages are in the timeline instead.
    std::vector<absl::string_view> names;
    for (absl::string_view name : sim::MonitorNames()) {
      if (name != "abort-attribution" && name != "bounded-cache") names.push_back(name);
    }
    auto set = sim::MakeMonitorSet(names, params);
    if (!set.ok()) Fail(set.status().message());
    monitors.push_back(*std::move(set));
    simulator_ = std::make_unique<sim::Simulator>(config, std::move(monitors));
    // A destroy of a held mutex fails with EBUSY and leaves it locked, and
    // the program goes on (GCC 12.2's exit handler after a fatal error does
    // exactly this): reported, and the execution goes on too, so that a
    // thread that blocks on the destroyed lock later, and the program's exit
    // status, are seen.
    simulator_->set_violation_pass([](const sim::Violation& v) {
      return v.property == "mutex-discipline" &&
             absl::StrContains(v.fingerprint, ": mutex-destroy ");
    });

    std::unique_ptr<sim::Strategy> inner;
    if (options_.strategy == "replay") {
      replay_ = new sim::ReplayStrategy(options_.schedule);
      inner.reset(replay_);
    } else {
      auto row = sim::FindStrategy(options_.strategy);
      if (!row.ok()) Fail(row.status().message());
      sim::StrategyParams p;
      p.seed = options_.seed;
      p.max_executions = 1;
      p.schedule = options_.schedule;
      inner = (*row)->make(p);
    }
    strategy_ = std::make_unique<RecordingStrategy>(std::move(inner));
    strategy_->NewExecution();

    threads_.emplace_back();
    NewThread* main_thread = &threads_.back();
    t_self = main_thread;
    active_ = true;
    pthread_t simulator_thread;
    if (CreateOwnThread(&simulator_thread, nullptr, &Controller::SimulatorMain, this) != 0) {
      Fail("cannot start the simulator's thread");
    }
    on_exit(&Controller::OnProgramExit, this);
    main_thread->go.Wait();  // main goes on once its twin is picked
  }

  bool AtPoint(absl::FunctionRef<void(Twin&)> work) {
    if (t_on_simulator) {
      Twin twin{*host_, *device_};
      work(twin);
      return true;
    }
    NewThread* self = t_self;
    if (self == nullptr || ended()) return false;
    self->work = &work;
    posted_.Post();
    self->go.Wait();
    return true;
  }

  bool InStreamCallback() const {
    return t_on_simulator && host_ != nullptr && !ended() && host_->InCallback();
  }

  // The thread waits on the yield queue, which the next step of any other
  // program thread wakes (Serve), and which expires when nothing can move.
  void YieldToOthers(Twin& twin) {
    if (yield_queue_ == kNoQueue) yield_queue_ = twin.host.NewWaitQueue("sched_yield");
    ++yielders_;
    twin.host.WaitOnQueueOrTimeOut(yield_queue_);
    --yielders_;
  }

  NewThread* Prepare() {
    threads_.emplace_back();
    return &threads_.back();
  }

  void Spawned(Twin& twin, NewThread* thread) {
    thread->twin = twin.host.Spawn("thread", [this, thread] { Serve(thread); });
  }

  void Begins(NewThread* thread) {
    t_self = thread;
    thread->go.Wait();
  }

  void Ends() {
    NewThread* self = t_self;
    t_self = nullptr;
    if (self == nullptr || ended()) return;
    self->leaving = true;
    posted_.Post();
  }

  ThreadId TwinOf(pthread_t handle) const {
    for (const NewThread& t : threads_) {
      if (t.created && pthread_equal(t.handle, handle)) return t.twin;
    }
    return kNoThread;
  }

  std::string TwinName() const {
    if (t_on_simulator) return host_ != nullptr ? NameOf(host_->CurrentThread()) : "";
    if (t_self == nullptr) return "";
    return NameOf(t_self->twin);
  }

  void Log(CallRecord call) {
    if (t_self != nullptr) t_self->last_call = FormatCall(call);
    calls_.push_back(std::move(call));
  }
  const FaultPlan& faults() const { return options_.faults; }

 private:
  [[noreturn]] static void Fail(absl::string_view why) {
    if (StderrIsTheExecutions()) {
      std::fprintf(stderr, "stackcheck exec: %.*s\n", static_cast<int>(why.size()), why.data());
      std::fflush(stderr);
    }
    _exit(2);
  }

  std::string NameOf(ThreadId thread) const {
    if (thread == kNoThread) return "";
    return std::string(simulator_->ActorName(sim::SimHost::ToActor(thread)));
  }

  static void* SimulatorMain(void* self) {
    static_cast<Controller*>(self)->RunExecution();
    return nullptr;
  }

  void RunExecution() {
    t_on_simulator = true;
    const sim::ExecutionResult& result =
        simulator_->Run(*strategy_, [this](Device& device, Host& host, RuntimeObserver&) {
          device_ = &device;
          host_ = static_cast<sim::SimHost*>(&host);
          threads_.front().twin = host.CurrentThread();
          Serve(&threads_.front());
        });
    Conclude(result);
  }

  // The twin of `thread`: hands control to it and runs each point's work.
  void Serve(NewThread* thread) {
    for (;;) {
      if (thread->leaving) return;
      thread->go.Post();
      if (!posted_.WaitFor(options_.watchdog_s)) Stuck(thread);
      if (thread->leaving) return;
      Twin twin{*host_, *device_};
      // A step of this thread: the threads that yielded may go on.
      if (yielders_ > 0) host_->WakeQueue(yield_queue_, yielders_);
      const std::uint64_t steps_before = steps_done_;
      (*thread->work)(twin);
      ++steps_done_;
      // Another thread's step is done: the one giving way may take one.
      if (giving_way_ != nullptr && giving_way_ != thread) host_->WakeQueue(fair_queue_, 1);
      GiveWayIfUnfair(thread, twin, /*waited=*/steps_done_ != steps_before + 1);
    }
  }

  // Fairness. A thread that has taken kFairSteps steps in a row, no other
  // thread stepping in between, gives way: after each of its next steps it
  // waits until another thread completes one (or nothing else can move).
  // A schedule that never preempts it - dfs's default - would otherwise
  // starve the others for ever when it loops until they act: a spin, not a
  // bug of the program (CHESS's fair scheduling assumes the same). Giving way
  // after every step, a lock's release among them, lets a thread blocked on a
  // lock the spinner takes again and again get it in between. It ends when
  // the thread waits in a step of its own (`waited`: others stepped
  // meanwhile) or after kFairSteps steps so taken.
  void GiveWayIfUnfair(NewThread* thread, Twin& twin, bool waited) {
    if (giving_way_ == thread && waited) giving_way_ = nullptr;
    streak_ = last_stepper_ == thread && !waited ? streak_ + 1 : 1;
    last_stepper_ = thread;
    if (giving_way_ == nullptr && streak_ > kFairSteps) {
      giving_way_ = thread;
      given_ = 0;
    }
    if (giving_way_ != thread) return;
    if (++given_ > kFairSteps) {
      giving_way_ = nullptr;
      streak_ = 0;
      return;
    }
    if (fair_queue_ == kNoQueue) fair_queue_ = twin.host.NewWaitQueue("fair scheduling");
    twin.host.WaitOnQueueOrTimeOut(fair_queue_);
  }

  static void OnProgramExit(int status, void* self) {
    auto* c = static_cast<Controller*>(self);
    c->exit_status_ = status;
    NewThread* exiting = t_self;  // the work runs on the simulator's thread
    c->AtPoint([c, exiting, status](Twin& twin) {
      c->exiting_ = exiting;
      twin.host.Exit(status);
    });
  }

  // The simulated execution is over: report, then let the exiting thread
  // finish the process, or end it here after a violation.
  void Conclude(const sim::ExecutionResult& result) {
    ended_.store(true, std::memory_order_release);
    ExecReport report = MakeReport(result);
    const bool violation = result.violation.has_value() || !report.replay_status.empty();
    Write(report);
    if (violation || exiting_ == nullptr) {
      std::fflush(nullptr);
      _exit(kViolationStatus);
    }
    exiting_->go.Post();
  }

  [[noreturn]] void Stuck(NewThread* thread) {
    const std::string last = thread->last_call.empty() ? std::string("none") : thread->last_call;
    // The fingerprint names the place, not the thread's number in this run.
    EndStuck(absl::StrFormat("%s ran %d s without reaching a scheduling point: it waits or spins "
                             "somewhere stackcheck does not control (its last driver or plugin "
                             "call: %s)",
                             NameOf(thread->twin), options_.watchdog_s, last),
             absl::StrCat("progress: stuck outside every scheduling point after ",
                          last.substr(0, last.find('('))));
  }

  ExecReport MakeReport(const sim::ExecutionResult& result) {
    ExecReport report = DescribeExecution(*simulator_, *host_, result, options_.chrome_trace);
    if (replay_ != nullptr) {
      absl::Status s = replay_->Finish();
      if (!s.ok()) {
        report.replay_status = absl::StrCat(
            "the execution diverged from the recorded schedule (nondeterminism): ", s.message());
      }
    }
    report.exit_status = result.process_exited ? exit_status_ : -1;
    FillSchedule(&report);
    Fill(&report);
    return report;
  }

  // The schedule the strategy gave, in the forms exec walks and shrinks, and
  // the call log.
  void FillSchedule(ExecReport* report) const {
    report->sequence = strategy_->relative();
    report->point_widths = strategy_->widths();
    report->point_preempts = strategy_->preempts();
    report->preemptions = strategy_->preemptions();
    report->calls = calls_;
  }

  void Fill(ExecReport* report) const {
    report->strategy = options_.strategy;
    report->seed = options_.seed;
    report->faults = FormatFaults(options_.faults);
  }

  void Write(const ExecReport& report) const {
    const bool say = StderrIsTheExecutions();
    if (say) std::fprintf(stderr, "stackcheck exec: %s\n", OneLine(report).c_str());
    if (options_.result_path.empty()) return;
    if (absl::Status s = WriteReport(report, options_.result_path); !s.ok() && say) {
      std::fprintf(stderr, "stackcheck exec: %s\n", std::string(s.message()).c_str());
    }
  }

  bool active_ = false;
  std::atomic<bool> ended_{false};
  ExecOptions options_;
  std::unique_ptr<sim::Simulator> simulator_;
  std::unique_ptr<RecordingStrategy> strategy_;
  sim::ReplayStrategy* replay_ = nullptr;  // strategy_, when replaying
  sim::SimHost* host_ = nullptr;
  Device* device_ = nullptr;
  Baton posted_;                   // the running program thread reached a point (or ended)
  std::deque<NewThread> threads_;  // stable addresses; front() is main
  NewThread* exiting_ = nullptr;
  // Threads inside sched_yield, and the wait queue they wait on until
  // another thread takes a step (YieldToOthers).
  static constexpr std::uint32_t kNoQueue = 0xffffffffu;
  std::uint32_t yield_queue_ = kNoQueue;
  std::uint32_t yielders_ = 0;
  // Fair scheduling (GiveWayIfUnfair): the thread that took the latest
  // point and how many in a row, and the thread giving way, if any.
  static constexpr std::uint64_t kFairSteps = 1000;
  const NewThread* last_stepper_ = nullptr;
  std::uint64_t streak_ = 0;
  const NewThread* giving_way_ = nullptr;
  std::uint64_t given_ = 0;       // steps the thread giving way took so
  std::uint64_t steps_done_ = 0;  // steps of every program thread, completed
  std::uint32_t fair_queue_ = kNoQueue;
  int exit_status_ = -1;
  std::vector<CallRecord> calls_;
};

// Never destroyed: program threads may reach a point during exit.
Controller& TheController() {
  static Controller* controller = new Controller;
  return *controller;
}

__attribute__((constructor)) void StartControlIfAsked() {
  ServeForksIfAsked();  // returns in each execution's process
  const char* exec = std::getenv("STACKCHECK_EXEC");
  if (exec == nullptr || std::string(exec) != "1") return;
  TheController().Start();
}

}  // namespace

bool Controlled() { return TheController().active(); }

namespace {
std::atomic<bool> g_forked_child{false};
}  // namespace

void BecomeForkedChild() {
  g_forked_child.store(true, std::memory_order_release);
  TheController().Detach();
}
bool InForkedChild() { return g_forked_child.load(std::memory_order_acquire); }
bool OnSimulatorThread() { return t_on_simulator; }
bool HasTwin() { return t_self != nullptr; }
bool InStreamCallback() { return TheController().InStreamCallback(); }
void YieldToOthers(Twin& twin) { TheController().YieldToOthers(twin); }

bool AtPoint(absl::FunctionRef<void(Twin&)> work) { return TheController().AtPoint(work); }

NewThread* PrepareThread() { return TheController().Prepare(); }

void ThreadCreated(NewThread* thread, pthread_t handle) {
  thread->handle = handle;
  thread->created = true;
}

void ThreadCreateFailed(NewThread* thread) { thread->leaving = true; }

void SpawnTwin(Twin& twin, NewThread* thread) { TheController().Spawned(twin, thread); }

ThreadId TwinOfNew(const NewThread* thread) { return thread->twin; }

void ThreadBegins(NewThread* thread) { TheController().Begins(thread); }
void ThreadEnds() { TheController().Ends(); }
ThreadId TwinOf(pthread_t handle) { return TheController().TwinOf(handle); }

// exit() is not thread-safe (POSIX); glibc 2.36 lets a second caller take
// exit handlers the first one has not run yet, and whichever thread runs out
// of handlers first ends the process, maybe while the other is inside one
// (this library's own, which writes the report, among them). Here the second
// caller waits for the first to end the process, and the wait-for graph
// shows it if that never happens.
void ExitBegins(int status) {
  static ThreadId first = kNoThread;
  AtPoint([status](Twin& twin) {
    twin.host.ProgramCall("exit", 0, static_cast<std::uint64_t>(status));
    if (first == kNoThread) {
      first = twin.host.CurrentThread();
      twin.host.ProgramExitBegins();
      return;
    }
    if (first != twin.host.CurrentThread()) twin.host.ProgramExitAgain(first);
  });
}

void LogProgramCall(CallRecord::Kind kind, absl::string_view function, std::string detail) {
  Controller& c = TheController();
  c.Log(CallRecord{c.TwinName(), kind, std::string(function), std::move(detail)});
}

std::string CurrentTwinName() { return TheController().TwinName(); }

const FaultPlan& Faults() { return TheController().faults(); }

int WatchdogSeconds() { return Controlled() ? TheController().watchdog_s() : 0; }

void EndStuck(std::string message, std::string fingerprint) {
  TheController().EndStuck(std::move(message), std::move(fingerprint));
}

void ProgramCrashes(int signal, const void* at) { TheController().ReportCrash(signal, at); }

}  // namespace stackcheck::program
