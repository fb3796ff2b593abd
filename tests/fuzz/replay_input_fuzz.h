// One fuzzing input for every reader of user input - replay files and
// tokens, scenario files, checkpoints, exec replay files, fault plans: the
// entry function the libFuzzer target and the smoke test share.
#ifndef STACKCHECK_TESTS_FUZZ_REPLAY_INPUT_FUZZ_H_
#define STACKCHECK_TESTS_FUZZ_REPLAY_INPUT_FUZZ_H_

#include <cstddef>
#include <cstdint>

namespace stackcheck::fuzz {

// Feeds `data` to ParseReplayFile and DecodeReplayToken (as is and behind the
// token prefix). Whatever they accept must format and parse back to the
// same record, and encode and decode back to it; a broken promise aborts.
// Then to ParseScenarioText, DecodeCheckpoint and DecodeProofPart (as is
// and re-digested),
// ParseExecReplay (as is and behind its header) and ParseFaults, which must
// accept or refuse it without crashing.
void FuzzReplayInput(const std::uint8_t* data, std::size_t size);

}  // namespace stackcheck::fuzz

#endif  // STACKCHECK_TESTS_FUZZ_REPLAY_INPUT_FUZZ_H_
