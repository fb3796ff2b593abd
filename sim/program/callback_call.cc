#include "sim/program/callback_call.h"

// The linker defines these bounds for a section whose name is a C
// identifier, when something refers to them.
extern "C" const char __start_stackcheck_program_callback[];
extern "C" const char __stop_stackcheck_program_callback[];

namespace stackcheck::program {

bool IsProgramCallbackReturn(const void* return_address) {
  const char* at = static_cast<const char*>(return_address);
  return at >= __start_stackcheck_program_callback && at < __stop_stackcheck_program_callback;
}

}  // namespace stackcheck::program
