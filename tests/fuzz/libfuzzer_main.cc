// libFuzzer's entry point for FuzzReplayInput (built by build_libfuzzer.sh).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/replay_input_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stackcheck::fuzz::FuzzReplayInput(data, size);
  return 0;
}
