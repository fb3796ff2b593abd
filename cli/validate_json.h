// The hardware results of `stackcheck validate` as JSON, for --json: one
// hardware run, a steered replay, the SEM probes, and the side-by-side
// campaign (the verdict table and each policy x scenario outcome: the
// simulator's search, the steered counterexamples and, with the hardware
// column, one comparison per property with its status).
#ifndef STACKCHECK_CLI_VALIDATE_JSON_H_
#define STACKCHECK_CLI_VALIDATE_JSON_H_

#include <vector>

#include "properties/json_writer.h"
#include "real/hardware_runner.h"
#include "real/sem_probes.h"
#include "real/side_by_side.h"
#include "real/steered_replay.h"

namespace stackcheck::cli {

void WriteHardwareRunJson(const real::HardwareRunResult& run,
                          properties::JsonWriter& json);
void WriteSteeredReplayJson(const real::SteeredReplayResult& result,
                            properties::JsonWriter& json);
void WriteSemProbesJson(const std::vector<real::SemProbeResult>& probes,
                        properties::JsonWriter& json);
void WriteSideBySideJson(const real::SideBySideResult& result,
                         properties::JsonWriter& json);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_VALIDATE_JSON_H_
