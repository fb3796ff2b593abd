// Control of a real program's threads: each program thread runs only when the
// simulator's strategy picks its twin, a simulated host thread, so that one
// list of strategy answers is one interleaving, and replays it.
//
// The library is preloaded (LD_PRELOAD) with STACKCHECK_EXEC=1 in the
// environment (`stackcheck exec` sets both). Before main, a thread of the
// library's own, the simulator's thread, starts one simulated execution whose
// main thread is the twin of the program's main thread. From then on exactly
// one of all these threads runs at a time:
//
//   program thread Ti                     simulator thread (Ti's twin fiber)
//   runs real code ...
//   reaches a scheduling point (a pthread
//   call, a driver call, a futex of
//   libgomp's): AtPoint(work) ---------->  runs `work` against the simulated
//   waits                                 host and device; its scheduling
//                                         points let other twins (and the GPU
//                                         and callback actors) move, each
//                                         handing control to its own thread
//                                 <------ when the strategy picks Ti again
//   goes on to its next point
//
// The real code between two points is one step of the twin, so the
// simulator's monitors, deadlock detection and strategies apply to the real
// program unchanged. The execution ends when the program's exit reaches this
// library (on_exit), when a monitor reports a violation (the process ends with
// status 86 after the report), or when a program thread runs longer than the
// watchdog without reaching a point (status 87: it is stuck somewhere this
// library cannot see). The environment:
//
//   STACKCHECK_EXEC_STRATEGY   random (default) | pct | sequence | replay
//   STACKCHECK_EXEC_SEED       the strategy's seed (default 1)
//   STACKCHECK_EXEC_SCHEDULE   replay: the answers; sequence: the values
//                              (relative to the running thread), comma-separated
//   STACKCHECK_EXEC_FAULTS     e.g. "abort@launch:2,oom@alloc:3,reject@launch:1"
//   STACKCHECK_EXEC_RESULT     where the execution's JSON result goes
//   STACKCHECK_EXEC_WATCHDOG_S seconds a program thread may run between two
//                              points (default 20)
#ifndef STACKCHECK_SIM_PROGRAM_PROGRAM_THREADS_H_
#define STACKCHECK_SIM_PROGRAM_PROGRAM_THREADS_H_

#include <pthread.h>

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/host.h"
#include "sim/program/call_record.h"
#include "sim/sim_host.h"

namespace stackcheck::program {

// What a scheduling point's work runs against: the calling program thread's
// twin is the simulation's current thread.
struct Twin {
  sim::SimHost& host;
  Device& device;
};

// Whether this process's threads are controlled (decided before main).
bool Controlled();
// Whether the caller runs on the simulator's thread: simulated actors (a
// stream callback's code) or the library itself.
bool OnSimulatorThread();
// Whether the calling OS thread is a program thread with a twin.
bool HasTwin();
// Whether the caller runs as a stream callback's actor on the simulator's
// thread, during the execution: the code of a callback the program added.
bool InStreamCallback();

// sched_yield, inside the calling thread's point: it waits until another
// program thread takes a step, or until no other actor can move. A thread
// that spins on yields until another sets a flag so lets the others make
// progress between any two of its turns, under every strategy, as a fair
// scheduler does; a yield is never a preemption. The schedules where it spins
// twice in a row while another thread could move are not explored.
void YieldToOthers(Twin& twin);

// The calling program thread's scheduling point: `work` runs on its twin
// while the thread waits, and the thread goes on when its twin is picked
// again. Called from the simulator's thread (a callback), `work` runs there.
// After the simulated execution ended, returns false without running it.
bool AtPoint(absl::FunctionRef<void(Twin&)> work);

// --- thread life (pthread_create and friends) ---
// Made at pthread_create by the creating thread; the new OS thread calls
// ThreadBegins with it first, and ThreadEnds when its start routine is done.
struct NewThread;
NewThread* PrepareThread();
// Inside the creating thread's point: the new thread's twin starts.
void SpawnTwin(Twin& twin, NewThread* thread);
ThreadId TwinOfNew(const NewThread* thread);
void ThreadCreated(NewThread* thread, pthread_t handle);
void ThreadCreateFailed(NewThread* thread);
void ThreadBegins(NewThread* thread);
void ThreadEnds();
// The twin of a thread created under control, or kNoThread.
ThreadId TwinOf(pthread_t handle);

// In a process forked from a controlled one (the program's fork()), only the
// forking thread lives on: none of the threads it would hand control to, nor
// the simulator's thread or the watchdog. The child runs uncontrolled, as a
// process the program starts does (its thread calls are the C library's,
// libgomp's futexes the kernel's, its exit its own) and the simulated driver
// refuses its calls. Called in the child, first thing.
void BecomeForkedChild();
bool InForkedChild();

// The program's exit() was called on this thread (status known).
void ExitBegins(int status);

// Seconds a program thread may run between two points (0: no watchdog, the
// process is not controlled).
int WatchdogSeconds();
// Ends the execution as stuck (status 87): the report holds the execution so
// far (choices, digest), `message` and `fingerprint` ("progress: ...").
[[noreturn]] void EndStuck(std::string message, std::string fingerprint);

// The program's process is dying of `signal`, raised at `at` in code that is
// not this library's: the execution so far is written as a no-crash finding
// (its schedule replays to the same point), once; the signal then takes its
// course.
void ProgramCrashes(int signal, const void* at);

// The faults the execution injects (exec_options.h); none when not controlled.
struct FaultPlan;
const FaultPlan& Faults();

// --- the report ---
// Appends a call to the execution's call log, as the calling thread's twin
// ("T1") made it.
void LogProgramCall(CallRecord::Kind kind, absl::string_view function, std::string detail);
// The twin's name of the calling thread, e.g. "T1"; "" without one.
std::string CurrentTwinName();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_PROGRAM_THREADS_H_
