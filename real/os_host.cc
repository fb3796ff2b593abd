#include "real/os_host.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/types/optional.h"

namespace stackcheck::real {
namespace {

std::atomic<ThreadId> next_thread_id{1};
thread_local ThreadId this_thread_id = kNoThread;

class OsMutex final : public Mutex {
 public:
  OsMutex(std::string name, std::shared_ptr<MutexAnomalyLog> log)
      : name_(std::move(name)), log_(std::move(log)) {}

  ~OsMutex() override {
    ThreadId owner;
    bool locked;
    {
      absl::MutexLock l(&mu_);
      owner = owner_;
      locked = locked_ && !destroyed_;
    }
    if (locked) {
      log_->Record({MutexAnomaly::Kind::kDestroyedLocked, name_, CurrentOsThreadId(), owner});
    }
  }

  bool Destroy() override {
    ThreadId owner;
    {
      absl::MutexLock l(&mu_);
      owner = owner_;
      if (!locked_) {
        destroyed_ = true;
        return true;
      }
    }
    log_->Record({MutexAnomaly::Kind::kDestroyedLocked, name_, CurrentOsThreadId(), owner});
    return false;  // EBUSY: stays locked, its waiters keep waiting
  }

  void Lock() override {
    const ThreadId me = CurrentOsThreadId();
    bool relock = false;
    {
      absl::MutexLock l(&mu_);
      if (destroyed_) return;
      relock = locked_ && owner_ == me;
    }
    // Recorded before blocking: a relocking owner never wakes up.
    if (relock) {
      log_->Record({MutexAnomaly::Kind::kRelockByOwner, name_, me, me});
    }
    absl::MutexLock l(&mu_);
    while (locked_) cv_.Wait(&mu_);
    locked_ = true;
    owner_ = me;
  }

  bool TryLock() override {
    absl::MutexLock l(&mu_);
    if (destroyed_) return true;
    if (locked_) return false;
    locked_ = true;
    owner_ = CurrentOsThreadId();
    return true;
  }

  void Unlock() override {
    const ThreadId me = CurrentOsThreadId();
    absl::optional<MutexAnomaly> anomaly;
    {
      absl::MutexLock l(&mu_);
      if (destroyed_) return;
      if (!locked_) {
        anomaly = MutexAnomaly{MutexAnomaly::Kind::kUnlockWhenUnlocked, name_, me, kNoThread};
      } else {
        if (owner_ != me) {
          anomaly = MutexAnomaly{MutexAnomaly::Kind::kUnlockByNonOwner, name_, me, owner_};
        }
        locked_ = false;
        owner_ = kNoThread;
        cv_.Signal();
      }
    }
    if (anomaly.has_value()) log_->Record(*std::move(anomaly));
  }

  ThreadId Owner() const override {
    absl::MutexLock l(&mu_);
    return owner_;
  }

 private:
  const std::string name_;
  const std::shared_ptr<MutexAnomalyLog> log_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool locked_ ABSL_GUARDED_BY(mu_) = false;
  bool destroyed_ ABSL_GUARDED_BY(mu_) = false;
  ThreadId owner_ ABSL_GUARDED_BY(mu_) = kNoThread;
};

}  // namespace

ThreadId CurrentOsThreadId() {
  if (this_thread_id == kNoThread) {
    this_thread_id = next_thread_id.fetch_add(1, std::memory_order_relaxed);
  }
  return this_thread_id;
}

absl::string_view MutexAnomalyName(MutexAnomaly::Kind kind) {
  switch (kind) {
    case MutexAnomaly::Kind::kUnlockByNonOwner:
      return "unlock-by-non-owner";
    case MutexAnomaly::Kind::kUnlockWhenUnlocked:
      return "unlock-when-unlocked";
    case MutexAnomaly::Kind::kRelockByOwner:
      return "relock-by-owner";
    case MutexAnomaly::Kind::kDestroyedLocked:
      return "destroyed-while-locked";
  }
  return "unknown";
}

void MutexAnomalyLog::SetHook(Hook hook) {
  absl::MutexLock l(&mu_);
  hook_ = std::move(hook);
}

void MutexAnomalyLog::Record(MutexAnomaly anomaly) {
  Hook hook;
  {
    absl::MutexLock l(&mu_);
    anomalies_.push_back(anomaly);
    hook = hook_;
  }
  if (hook) hook(anomaly);
}

std::vector<MutexAnomaly> MutexAnomalyLog::All() const {
  absl::MutexLock l(&mu_);
  return anomalies_;
}

OsHost::OsHost() : anomalies_(std::make_shared<MutexAnomalyLog>()) {
  absl::MutexLock l(&mu_);
  names_[CurrentOsThreadId()] = "main";
}

OsHost::~OsHost() {
  absl::MutexLock l(&mu_);
  for (auto& [id, thread] : threads_) {
    if (thread.joinable()) thread.detach();
  }
}

std::unique_ptr<Mutex> OsHost::NewMutex(absl::string_view name) {
  return std::make_unique<OsMutex>(std::string(name), anomalies_);
}

ThreadId OsHost::CurrentThread() { return CurrentOsThreadId(); }

ThreadId OsHost::Spawn(absl::string_view name, std::function<void()> body) {
  // The child learns its id before the parent returns it, so Join and the
  // names table never see an id that is not yet in use.
  auto id_known = std::make_shared<absl::Notification>();
  auto id = std::make_shared<ThreadId>(kNoThread);
  std::thread t([body = std::move(body), id_known, id]() {
    *id = CurrentOsThreadId();
    id_known->Notify();
    body();
  });
  id_known->WaitForNotification();
  absl::MutexLock l(&mu_);
  names_[*id] = std::string(name);
  threads_.emplace(*id, std::move(t));
  return *id;
}

void OsHost::Join(ThreadId thread) {
  std::thread t;
  {
    absl::MutexLock l(&mu_);
    auto it = threads_.find(thread);
    if (it == threads_.end()) return;  // unknown or already joined
    t = std::move(it->second);
    threads_.erase(it);
  }
  if (t.joinable()) t.join();
}

void OsHost::SleepFor(absl::Duration d) { absl::SleepFor(d); }

void OsHost::Yield() { std::this_thread::yield(); }

void OsHost::AtExit(std::function<void()> handler) {
  absl::MutexLock l(&mu_);
  at_exit_.push_back(std::move(handler));
}

void OsHost::Exit(int status) {
  // Handlers are taken one at a time so that one which calls Exit again (as
  // libgomp's fatal path can) does not rerun those already started.
  for (;;) {
    std::function<void()> handler;
    {
      absl::MutexLock l(&mu_);
      if (at_exit_.empty()) break;
      handler = std::move(at_exit_.back());
      at_exit_.pop_back();
    }
    handler();
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(status);
}

std::string OsHost::ThreadName(ThreadId thread) const {
  absl::MutexLock l(&mu_);
  auto it = names_.find(thread);
  if (it != names_.end()) return it->second;
  return absl::StrCat("thread-", thread);
}

}  // namespace stackcheck::real
