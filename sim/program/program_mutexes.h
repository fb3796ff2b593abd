// The program's pthread mutexes as the simulator's Mutexes, with glibc's
// semantics: normal (and adaptive) mutexes deadlock on a relock by their
// owner, recursive ones count, error-checking ones refuse; an unlock by a
// non-owner of a normal mutex releases it; timed lockers wait to be woken by
// an unlock. The plugin's mutexes are named for the locks of
// plugin-nvptx.c they are, so that reports say "the stacks lock". Called on
// the twin of the calling thread (program_threads.h), inside AtPoint.
#ifndef STACKCHECK_SIM_PROGRAM_PROGRAM_MUTEXES_H_
#define STACKCHECK_SIM_PROGRAM_PROGRAM_MUTEXES_H_

#include <pthread.h>

#include "core/host.h"
#include "sim/program/program_threads.h"

namespace stackcheck::program {

// A mutex pthread_mutex_init creates; `initialiser` is the caller's address
// (the plugin's three device locks are told apart by their order).
void NameProgramMutex(Twin& twin, const pthread_mutex_t* m, const void* initialiser);
// The simulator's mutex for `m`, made on first use (a static initialiser).
Mutex& ProgramMutexOf(Twin& twin, pthread_mutex_t* m);
// pthread_mutex_lock and _trylock: 0, or EBUSY, EDEADLK as glibc answers.
int LockProgramMutex(Twin& twin, pthread_mutex_t* m, bool try_only);
// pthread_mutex_unlock: 0, or EPERM.
int UnlockProgramMutex(Twin& twin, pthread_mutex_t* m);
// pthread_mutex_timedlock and _clocklock (`name`): 0, or ETIMEDOUT when no
// other thread can move, as a timed condition wait times out.
int TimedLockProgramMutex(Twin& twin, pthread_mutex_t* m, const char* name);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_PROGRAM_MUTEXES_H_
