// What every interposer of a C library call asks first: is this call the
// program's, to be modelled as a scheduling point of its thread's twin
// (program_threads.h), or does it go to the real C library? A call goes to
// the real one when the process is not controlled (a forked child among
// them), after the simulated execution ended, on the simulator's own thread,
// or when this library itself is the caller (its own std::mutex). The caller
// is the interposer's return address, taken in the entry point itself
// (STACKCHECK_CALLER).
#ifndef STACKCHECK_SIM_PROGRAM_INTERPOSED_CALL_H_
#define STACKCHECK_SIM_PROGRAM_INTERPOSED_CALL_H_

#include <cstdint>

#include "sim/program/program_threads.h"

#define STACKCHECK_CALLER __builtin_return_address(0)

namespace stackcheck::program {

// While one lives on a thread, none of the thread's calls is the program's:
// a call this library makes through something that calls back into it (a
// sanitizer's pthread_create interceptor, CreateOwnThread).
class OwnCallScope {
 public:
  OwnCallScope();
  ~OwnCallScope();
  OwnCallScope(const OwnCallScope&) = delete;
  OwnCallScope& operator=(const OwnCallScope&) = delete;

 private:
  bool outer_;
};

// A call by a program thread, from the program's code.
bool IsProgramCall(const void* caller);

// A synchronisation call (a lock, a condition variable) to model: the
// program threads' calls, and those of a stream callback the program added,
// which runs as the driver's callback thread, so that a callback waiting for
// a lock a thread holds while it waits for the stream is the deadlock it is.
bool IsProgramSyncCall(const void* caller);

// The simulator's wait queue standing for the program's object at `object`
// (a condition variable, a barrier, a read-write lock), made on first use
// and named "KIND #N".
std::uint32_t WaitQueueOf(Twin& twin, const void* object, const char* kind);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_INTERPOSED_CALL_H_
