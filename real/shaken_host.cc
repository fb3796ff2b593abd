#include "real/shaken_host.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace stackcheck::real {
namespace {

class ShakenMutex final : public Mutex {
 public:
  ShakenMutex(std::unique_ptr<Mutex> inner, std::string name, Jitter& jitter, ActivityLog& log)
      : inner_(std::move(inner)), name_(std::move(name)), jitter_(jitter), log_(log) {}

  void Lock() override {
    jitter_.Point();
    const ThreadId owner = inner_->Owner();
    log_.Begin(owner == kNoThread ? absl::StrCat("lock(", name_, ")")
                                  : absl::StrCat("lock(", name_, ") held by thread ", owner));
    inner_->Lock();
    log_.End();
  }
  void Unlock() override {
    jitter_.Point();
    inner_->Unlock();
  }
  bool TryLock() override {
    jitter_.Point();
    return inner_->TryLock();
  }
  ThreadId Owner() const override { return inner_->Owner(); }
  bool Destroy() override {
    jitter_.Point();
    return inner_->Destroy();
  }

 private:
  const std::unique_ptr<Mutex> inner_;
  const std::string name_;
  Jitter& jitter_;
  ActivityLog& log_;
};

}  // namespace

std::unique_ptr<Mutex> ShakenHost::NewMutex(absl::string_view name) {
  return std::make_unique<ShakenMutex>(inner_.NewMutex(name), std::string(name), jitter_, log_);
}

ThreadId ShakenHost::Spawn(absl::string_view name, std::function<void()> body) {
  ActivityLog* log = &log_;
  const std::size_t index = spawned_++;
  const absl::Duration delay =
      index < spawn_delays_.size() ? spawn_delays_[index] : absl::ZeroDuration();
  return inner_.Spawn(name, [log, delay, name = std::string(name), body = std::move(body)] {
    log->NameThread(name);
    if (delay > absl::ZeroDuration()) {
      log->Begin("steering delay before the program starts");
      absl::SleepFor(delay);
      log->End();
    }
    body();
  });
}

void ShakenHost::Join(ThreadId thread) {
  jitter_.Point();
  log_.Begin(absl::StrCat("join(thread ", thread, ")"));
  inner_.Join(thread);
  log_.End();
}

void ShakenHost::Exit(int status) {
  log_.Begin(absl::StrCat("exit(", status, ") handlers"));
  inner_.Exit(status);
  // Host::Exit never returns; GCC cannot see that through the virtual call.
  std::abort();
}

}  // namespace stackcheck::real
