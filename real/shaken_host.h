// A Host decorator for hardware runs: mutex operations are scheduling points
// where Jitter may delay, and the ActivityLog records a thread waiting for a
// mutex together with the mutex's owner at that moment, which is the edge a
// deadlock report needs ("main: in lock(stacks) held by driver-callback").
#ifndef STACKCHECK_REAL_SHAKEN_HOST_H_
#define STACKCHECK_REAL_SHAKEN_HOST_H_

#include <memory>
#include <vector>

#include "core/host.h"
#include "real/activity_log.h"
#include "real/jitter.h"

namespace stackcheck::real {

class ShakenHost final : public Host {
 public:
  ShakenHost(Host& inner, Jitter& jitter, ActivityLog& log)
      : inner_(inner), jitter_(jitter), log_(log) {}
  // The i-th thread spawned through this host sleeps delays[i] before its
  // body runs: steering the start order a counterexample needs.
  void set_spawn_delays(std::vector<absl::Duration> delays) { spawn_delays_ = std::move(delays); }

  std::unique_ptr<Mutex> NewMutex(absl::string_view name) override;
  ThreadId CurrentThread() override { return inner_.CurrentThread(); }
  ThreadId Spawn(absl::string_view name, std::function<void()> body) override;
  void Join(ThreadId thread) override;
  void SleepFor(absl::Duration d) override { inner_.SleepFor(d); }
  void Yield() override {
    jitter_.Point();
    inner_.Yield();
  }
  void AtExit(std::function<void()> handler) override { inner_.AtExit(std::move(handler)); }
  [[noreturn]] void Exit(int status) override;

 private:
  Host& inner_;
  Jitter& jitter_;
  ActivityLog& log_;
  std::vector<absl::Duration> spawn_delays_;
  std::size_t spawned_ = 0;  // Spawn is called from the scenario's main thread
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_SHAKEN_HOST_H_
