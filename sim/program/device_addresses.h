// Where the simulator's device addresses begin, for a program whose kernels
// dereference them: the simulated libcuda.so.1 maps every block at its
// device address (SimConfig::first_device_address).
#ifndef STACKCHECK_SIM_PROGRAM_DEVICE_ADDRESSES_H_
#define STACKCHECK_SIM_PROGRAM_DEVICE_ADDRESSES_H_

#include <cstdint>

namespace stackcheck::program {

// 4 GiB, below where Linux places a program; in a build with AddressSanitizer
// 32 TiB, above the shadow memory it keeps at [2 GiB, 16 TiB) on x86-64,
// where no block could be mapped at its address for a kernel's code.
constexpr std::uint64_t FirstDeviceAddress() {
#ifdef STACKCHECK_ASAN
  return std::uint64_t{1} << 45;
#else
  return std::uint64_t{1} << 32;
#endif
}

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_DEVICE_ADDRESSES_H_
