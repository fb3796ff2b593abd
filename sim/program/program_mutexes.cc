#include "sim/program/program_mutexes.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/program/interposed_call.h"

namespace stackcheck::program {
namespace {

// plugin-nvptx.c's nvptx_open_device initialises each device's three locks in
// this order; its only static mutex is ptx_dev_lock.
constexpr const char* kPluginDeviceLocks[] = {"ptx_dev->image_lock", "ptx_dev->free_blocks_lock",
                                              "ptx_dev->omp_stacks.lock (the stacks lock)"};

bool InPlugin(const void* address) {
  Dl_info info{};
  return dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
         std::strstr(info.dli_fname, "libgomp-plugin-nvptx") != nullptr;
}

struct MutexEntry {
  std::unique_ptr<Mutex> mutex;
  unsigned depth = 0;  // a recursive mutex's lock count while held
  // Where timed lockers wait (pthread_mutex_timedlock), once one has; every
  // unlock wakes them to try again.
  std::uint32_t timed_queue = 0;
};

std::map<const pthread_mutex_t*, MutexEntry>& Mutexes() {
  static auto* mutexes = new std::map<const pthread_mutex_t*, MutexEntry>;
  return *mutexes;
}

std::string NameFor(const pthread_mutex_t* m, const void* initialiser) {
  static int plugin_inits = 0;
  static int others = 0;
  if (initialiser != nullptr && InPlugin(initialiser)) {
    return kPluginDeviceLocks[plugin_inits++ % 3];
  }
  if (InPlugin(m)) return "ptx_dev_lock (plugin-nvptx.c's static mutex)";
  return absl::StrCat("pthread mutex #", ++others);
}

MutexEntry& EntryOf(Twin& twin, pthread_mutex_t* m) {
  MutexEntry& e = Mutexes()[m];
  if (e.mutex == nullptr) e.mutex = twin.host.NewMutex(NameFor(m, nullptr));
  return e;
}

// The mutex's type as glibc keeps it in the mutex (set by pthread_mutex_init
// from its attributes, or by a static initializer such as
// PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP): normal (and adaptive) mutexes
// deadlock on a relock by their owner; recursive ones count; error-checking
// ones refuse. Robust and priority flags are not modelled.
int KindOf(const pthread_mutex_t* m) {
  constexpr int kKindMask = 3;  // glibc's PTHREAD_MUTEX_KIND_MASK_NP (internal)
  return m->__data.__kind & kKindMask;
}

// Recursive and error-checking mutexes know their owner; the others do not
// look (a relock waits, an unlock by anyone releases).
bool ChecksOwner(int kind) {
  return kind == PTHREAD_MUTEX_RECURSIVE_NP || kind == PTHREAD_MUTEX_ERRORCHECK_NP;
}

bool OwnedByCaller(Twin& twin, const Mutex& mutex) {
  return mutex.Owner() == twin.host.CurrentThread();
}

}  // namespace

void NameProgramMutex(Twin& twin, const pthread_mutex_t* m, const void* initialiser) {
  Mutexes()[m].mutex = twin.host.NewMutex(NameFor(m, initialiser));
}

Mutex& ProgramMutexOf(Twin& twin, pthread_mutex_t* m) { return *EntryOf(twin, m).mutex; }

int LockProgramMutex(Twin& twin, pthread_mutex_t* m, bool try_only) {
  MutexEntry& e = EntryOf(twin, m);
  const int kind = KindOf(m);
  if (ChecksOwner(kind) && OwnedByCaller(twin, *e.mutex)) {
    if (kind == PTHREAD_MUTEX_ERRORCHECK_NP) return try_only ? EBUSY : EDEADLK;
    ++e.depth;
    return 0;
  }
  if (try_only) {
    if (!e.mutex->TryLock()) return EBUSY;
  } else {
    e.mutex->Lock();
  }
  e.depth = 1;
  return 0;
}

int UnlockProgramMutex(Twin& twin, pthread_mutex_t* m) {
  MutexEntry& e = EntryOf(twin, m);
  const int kind = KindOf(m);
  if (ChecksOwner(kind)) {
    if (!OwnedByCaller(twin, *e.mutex)) return EPERM;
    if (--e.depth > 0) return 0;
  }
  e.mutex->Unlock();
  if (e.timed_queue != 0) twin.host.WakeQueue(e.timed_queue, UINT32_MAX);
  return 0;
}

// pthread_mutex_timedlock and pthread_mutex_clocklock: the owner's relock as
// Lock answers it, except that a normal mutex's relock times out instead of
// waiting for ever; otherwise the caller waits to be woken by an unlock and
// tries again, or times out (ETIMEDOUT) when no other thread can move, as a
// timed condition wait does.
int TimedLockProgramMutex(Twin& twin, pthread_mutex_t* m, const char* name) {
  MutexEntry& e = EntryOf(twin, m);
  const int kind = KindOf(m);
  if (ChecksOwner(kind) && OwnedByCaller(twin, *e.mutex)) return LockProgramMutex(twin, m, false);
  if (e.timed_queue == 0) e.timed_queue = WaitQueueOf(twin, m, "timed mutex waiters");
  twin.host.ProgramCall(name, e.timed_queue);
  while (!e.mutex->TryLock()) {
    twin.host.BlameWaitQueue(e.timed_queue, e.mutex->Owner());
    if (!twin.host.WaitOnQueueOrTimeOut(e.timed_queue)) return ETIMEDOUT;
  }
  e.depth = 1;
  return 0;
}

}  // namespace stackcheck::program
