// Where the library calls a stream callback the program added.
//
// The interposed pthread calls tell the program's calls from the library's
// own by their return address (interpose_pthread.cc). A callback that ends
// with a pthread call may make it as a tail call, and then returns straight
// into the library; the function that calls the program's callback lives in
// a section of its own, so a return address there is the callback's call,
// not the library's.
#ifndef STACKCHECK_SIM_PROGRAM_CALLBACK_CALL_H_
#define STACKCHECK_SIM_PROGRAM_CALLBACK_CALL_H_

// On the one function that calls a program's callback. Not a sibling call,
// so the callback returns into it; end its body with
// STACKCHECK_AFTER_PROGRAM_CALLBACK() for the same reason.
#define STACKCHECK_PROGRAM_CALLBACK_CALLER                         \
  __attribute__((noinline, section("stackcheck_program_callback"), \
                 optimize("no-optimize-sibling-calls")))
#define STACKCHECK_AFTER_PROGRAM_CALLBACK() asm volatile("" ::: "memory")

namespace stackcheck::program {

// Whether `return_address` lies in the function that calls the program's
// callbacks: a call the callback made as its last act.
bool IsProgramCallbackReturn(const void* return_address);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_CALLBACK_CALL_H_
