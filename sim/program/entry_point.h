// Every function of this library that code outside it calls (the driver's
// entry points, the interposed C library and libgomp functions, the plugin's
// wrapped functions) is marked STACKCHECK_ENTRY_POINT: it realigns the stack
// to 16 bytes on entry. The x86-64 ABI promises that alignment at a call, but
// a program, a runtime or a signal frame that breaks it must not crash this
// library (GCC's SSE spills and Abseil's copies assume it); everything this
// library calls from an entry point then runs aligned.
#ifndef STACKCHECK_SIM_PROGRAM_ENTRY_POINT_H_
#define STACKCHECK_SIM_PROGRAM_ENTRY_POINT_H_

#define STACKCHECK_ENTRY_POINT __attribute__((force_align_arg_pointer))

#endif  // STACKCHECK_SIM_PROGRAM_ENTRY_POINT_H_
