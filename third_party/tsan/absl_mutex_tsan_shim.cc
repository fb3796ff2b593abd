// ThreadSanitizer shim for Debian's prebuilt Abseil (used only by --config=tsan).
//
// libabsl_synchronization.a is not built with -fsanitize=thread, so TSan never
// sees the happens-before edges that absl::Mutex and absl::CondVar create and
// reports every access guarded by them as a race. Rebuilding Abseil for one
// configuration would need its source; instead the linker's --wrap routes our
// calls to the lock operations through these functions, which tell TSan that an
// unlock releases and a lock acquires the mutex's address. TSan's own mutex
// annotations would also check lock order, which this does not need.
//
// The wrapped functions are member functions; under the Itanium C++ ABI a
// member function is called like a free function whose first argument is
// `this`, which is what the __real_/__wrap_ declarations below spell out.
#include <sanitizer/tsan_interface.h>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

using absl::Condition;
using absl::CondVar;
using absl::Duration;
using absl::Mutex;
using absl::Notification;
using absl::Time;

namespace {

void Acquired(Mutex* mu) { __tsan_acquire(mu); }
void Releasing(Mutex* mu) { __tsan_release(mu); }
void Notifying(const Notification* n) { __tsan_release(const_cast<Notification*>(n)); }
void Notified(const Notification* n) { __tsan_acquire(const_cast<Notification*>(n)); }

}  // namespace

#define STACKCHECK_WRAP(mangled, ret, params, args, before, after) \
  extern "C" ret __real_##mangled params;                          \
  extern "C" ret __wrap_##mangled params {                         \
    before;                                                        \
    ret result = __real_##mangled args;                            \
    after;                                                         \
    return result;                                                 \
  }

#define STACKCHECK_WRAP_VOID(mangled, params, args, before, after) \
  extern "C" void __real_##mangled params;                         \
  extern "C" void __wrap_##mangled params {                        \
    before;                                                        \
    __real_##mangled args;                                         \
    after;                                                         \
  }

// Mutex::Lock / Unlock / TryLock and the reader forms.
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex4LockEv, (Mutex * mu), (mu), (void)0, Acquired(mu))
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex6UnlockEv, (Mutex * mu), (mu), Releasing(mu), (void)0)
STACKCHECK_WRAP(_ZN4absl7debian35Mutex7TryLockEv, bool, (Mutex * mu), (mu), (void)0,
                if (result) Acquired(mu))
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex10ReaderLockEv, (Mutex * mu), (mu), (void)0,
                     Acquired(mu))
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex12ReaderUnlockEv, (Mutex * mu), (mu), Releasing(mu),
                     (void)0)
STACKCHECK_WRAP(_ZN4absl7debian35Mutex13ReaderTryLockEv, bool, (Mutex * mu), (mu), (void)0,
                if (result) Acquired(mu))

// Conditional locking: the mutex is (re)acquired when these return.
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE,
                     (Mutex * mu, const Condition& c), (mu, c), (void)0, Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian35Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE, bool,
                (Mutex * mu, const Condition& c, Duration d), (mu, c, d), (void)0, Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian35Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE, bool,
                (Mutex * mu, const Condition& c, Time t), (mu, c, t), (void)0, Acquired(mu))
STACKCHECK_WRAP_VOID(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE,
                     (Mutex * mu, const Condition& c), (mu, c), Releasing(mu), Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE, bool,
                (Mutex * mu, const Condition& c, Duration d), (mu, c, d), Releasing(mu),
                Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE, bool,
                (Mutex * mu, const Condition& c, Time t), (mu, c, t), Releasing(mu), Acquired(mu))

// CondVar waits release the mutex while blocked and reacquire it on return.
STACKCHECK_WRAP_VOID(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE, (CondVar * cv, Mutex* mu),
                     (cv, mu), Releasing(mu), Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE, bool,
                (CondVar * cv, Mutex* mu, Duration d), (cv, mu, d), Releasing(mu), Acquired(mu))
STACKCHECK_WRAP(_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE, bool,
                (CondVar * cv, Mutex* mu, Time t), (cv, mu, t), Releasing(mu), Acquired(mu))

// Notification: Notify happens before every wait that sees it.
STACKCHECK_WRAP_VOID(_ZN4absl7debian312Notification6NotifyEv, (Notification * n), (n), Notifying(n),
                     (void)0)
STACKCHECK_WRAP_VOID(_ZNK4absl7debian312Notification19WaitForNotificationEv,
                     (const Notification* n), (n), (void)0, Notified(n))
STACKCHECK_WRAP(_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE,
                bool, (const Notification* n, Duration d), (n, d), (void)0, if (result) Notified(n))
STACKCHECK_WRAP(_ZNK4absl7debian312Notification31WaitForNotificationWithDeadlineENS0_4TimeE, bool,
                (const Notification* n, Time t), (n, t), (void)0, if (result) Notified(n))
