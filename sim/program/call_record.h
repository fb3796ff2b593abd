// One entry of an execution's call log, typed: which thread called what, at
// which layer. The log crosses from the program's process to `exec` in the
// result file as these fields, so what reads it (the fault search counting
// launches, the steering order for the real driver) asks for a kind and a
// name instead of matching text.
#ifndef STACKCHECK_SIM_PROGRAM_CALL_RECORD_H_
#define STACKCHECK_SIM_PROGRAM_CALL_RECORD_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace stackcheck::program {

struct CallRecord {
  enum class Kind {
    kOpenmp,          // the program into libgomp's offloading entry points
    kPluginEntry,     // libgomp into the plugin, with its arguments
    kPluginReturn,    // the plugin's return value
    kDriver,          // the plugin into the (simulated) driver, with its result
    kDriverNote,      // the driver's remark: a kernel trapped, a value not understood
    kLibgompMessage,  // libgomp's GOMP_PLUGIN_error / _fatal text
    kFutexWait,       // a libgomp futex wait (the word's address: this run's only)
  };
  std::string thread;  // "T0" the main thread, "T<k>" the k-th created; "" none
  Kind kind = Kind::kDriverNote;
  std::string function;  // the called symbol ("cuLaunchKernel"); "" for notes
  // What follows the name as shown: "(\"main$_omp_fn$0\", grid 1x1x1, ...) -> 0".
  std::string detail;
};

// "T1 cuLaunchKernel(...) -> 0": the record as one line of the call log.
std::string FormatCall(const CallRecord& call);

// "openmp", "plugin-entry", ...: the kind's name in the result file.
absl::string_view KindName(CallRecord::Kind kind);
std::optional<CallRecord::Kind> KindNamed(absl::string_view name);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_CALL_RECORD_H_
