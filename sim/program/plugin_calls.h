// The plugin's entry points as libgomp calls them, made visible. libgomp
// finds the plugin's GOMP_OFFLOAD_* functions with dlsym, which this library
// interposes when preloaded: each comes back wrapped, so that every call is a
// scheduling point with its real name in the timeline, and the calls libgomp
// makes holding its device lock (target.c: gomp_map_vars and
// gomp_unmap_vars around a region, omp_target_alloc/free/memcpy, image
// loading, gomp_init_device, gomp_target_fini) tell who holds that lock,
// which no other event shows. GOMP_PLUGIN_fatal and GOMP_PLUGIN_error, which
// the plugin calls into libgomp with, are interposed too, so the timeline
// holds the messages a user sees.
#ifndef STACKCHECK_SIM_PROGRAM_PLUGIN_CALLS_H_
#define STACKCHECK_SIM_PROGRAM_PLUGIN_CALLS_H_

#include <string>

#include "core/host.h"

namespace stackcheck::program {

// The one thread other than `except` inside a plugin call made with the
// device lock held, with that call's name in *call; kNoThread if none or
// several.
ThreadId DeviceLockHolder(ThreadId except, std::string* call);

// The target arguments of the GOMP_OFFLOAD_run the calling thread is in
// (the region's thread limit, number of teams); nullptr outside one.
void* const* RunTargetArguments();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_PLUGIN_CALLS_H_
