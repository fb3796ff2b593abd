// The hardware results of `stackcheck validate` as JSON, for --json: one
// hardware run, a steered replay, the SEM probes, and the side-by-side
// campaign (the verdict table and each policy x scenario outcome: the
// simulator's search, the steered counterexamples and, with the hardware
// column, one comparison per property with its status).
#ifndef STACKCHECK_CLI_VALIDATE_JSON_H_
#define STACKCHECK_CLI_VALIDATE_JSON_H_

#include <vector>

#include "hardware/hardware_runner.h"
#include "hardware/sem_probes.h"
#include "hardware/side_by_side.h"
#include "hardware/steered_replay.h"
#include "properties/json_writer.h"

namespace stackcheck::cli {

void WriteHardwareRunJson(const hardware::HardwareRunResult& run, properties::JsonWriter& json);
void WriteSteeredReplayJson(const hardware::SteeredReplayResult& result,
                            properties::JsonWriter& json);
void WriteSemProbesJson(const std::vector<hardware::SemProbeResult>& probes,
                        properties::JsonWriter& json);
void WriteSideBySideJson(const hardware::SideBySideResult& result, properties::JsonWriter& json);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_VALIDATE_JSON_H_
