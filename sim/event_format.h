// Human-readable renderings of events and of the quantities they carry, shared
// by violation messages, the text timeline and the Chrome trace.
#ifndef STACKCHECK_SIM_EVENT_FORMAT_H_
#define STACKCHECK_SIM_EVENT_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/cu_result.h"
#include "sim/event.h"

namespace stackcheck::sim {

// "0 B", "512 B", "8 MiB", "1.5 MiB": exact binary units when they divide,
// one decimal otherwise.
std::string FormatBytes(std::uint64_t bytes);

// A device block as "0x200000+8MiB".
std::string FormatBlock(std::uint64_t ptr, std::uint64_t bytes);

// "719 LAUNCH_FAILED".
std::string FormatResult(CuResult result);

// Virtual time, e.g. "1.250us", "3ms", "42ns".
std::string FormatTime(std::uint64_t ns);

// The kind and its fields, no actor or time: e.g.
// "kernel-enqueue k3 s0 region 2 stacks 0x200000+8MiB (64 x 128KiB)".
std::string FormatEvent(const Event& event);

// One self-contained line: "#41 @1.2us T1 free 0x200000+8MiB".
std::string DescribeEvent(std::size_t index, const Event& event, absl::string_view actor_name);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_EVENT_FORMAT_H_
