// How the engine logs a Device call: a kDriverCall event carries the call as
// core's DriverCall value (core/driver_call.h) and the flags below, in a
// `payload::Call` (sim/event_payloads.h), without a string.
#ifndef STACKCHECK_SIM_DRIVER_API_H_
#define STACKCHECK_SIM_DRIVER_API_H_

#include <cstdint>

#include "core/driver_call.h"

namespace stackcheck::sim {

// Bits of a kDriverCall / kDriverCallBlock event's `payload::Call::flags`.
inline constexpr std::uint32_t kCallFromCallback = 1;    // SEM-09: made on the callback thread
inline constexpr std::uint32_t kCallDuringTeardown = 2;  // SEM-15: concurrent with cuCtxDestroy

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_DRIVER_API_H_
