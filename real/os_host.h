// core/host.h on operating-system threads.
//
// Mutexes know their owner, so the hazards the testbed looks for are recorded
// rather than undefined: an unlock by a thread that does not own the mutex
// releases it (as a default pthread mutex does in practice) and is recorded; a
// relock by the owner is recorded and then blocks forever, for the hardware
// runner's watchdog to report as a deadlock; destroying a locked mutex is
// recorded. Exit runs the AtExit handlers on the calling thread, newest
// first, then ends the process with _exit (static destructors would tear the
// CUDA driver down under threads that still use it).
#ifndef STACKCHECK_REAL_OS_HOST_H_
#define STACKCHECK_REAL_OS_HOST_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/host.h"

namespace stackcheck::real {

struct MutexAnomaly {
  enum class Kind {
    kUnlockByNonOwner,  // released anyway
    kUnlockWhenUnlocked,
    kRelockByOwner,  // the owner then blocks forever
    kDestroyedLocked,
  };
  Kind kind;
  std::string mutex;
  ThreadId thread = kNoThread;  // who did it
  ThreadId owner = kNoThread;   // who held the mutex then
};

absl::string_view MutexAnomalyName(MutexAnomaly::Kind kind);

// Shared by a host and the mutexes it made (which may outlive it).
class MutexAnomalyLog {
 public:
  // Called on the offending thread, outside any mutex of ours; for the
  // hardware runner, which publishes findings before a possible hang.
  using Hook = std::function<void(const MutexAnomaly&)>;
  void SetHook(Hook hook);
  void Record(MutexAnomaly anomaly);
  std::vector<MutexAnomaly> All() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<MutexAnomaly> anomalies_ ABSL_GUARDED_BY(mu_);
  Hook hook_ ABSL_GUARDED_BY(mu_);
};

class OsHost final : public Host {
 public:
  OsHost();
  // Joins nothing: threads still running are the caller's bug (std::thread
  // would terminate); the destructor detaches them.
  ~OsHost() override;

  std::unique_ptr<Mutex> NewMutex(absl::string_view name) override;
  ThreadId CurrentThread() override;
  ThreadId Spawn(absl::string_view name, std::function<void()> body) override;
  void Join(ThreadId thread) override;
  void SleepFor(absl::Duration d) override;
  void Yield() override;
  void AtExit(std::function<void()> handler) override;
  [[noreturn]] void Exit(int status) override;

  MutexAnomalyLog& anomalies() { return *anomalies_; }
  // The name given to Spawn, "main" for the thread that made this host,
  // "thread-N" for others (e.g. the driver's callback thread).
  std::string ThreadName(ThreadId thread) const;

 private:
  std::shared_ptr<MutexAnomalyLog> anomalies_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<ThreadId, std::thread> threads_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<ThreadId, std::string> names_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void()>> at_exit_ ABSL_GUARDED_BY(mu_);
};

// The process-wide id of the calling OS thread (assigned on first use, never
// kNoThread). OsHost::CurrentThread returns this.
ThreadId CurrentOsThreadId();

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_OS_HOST_H_
