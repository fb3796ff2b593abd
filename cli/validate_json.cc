#include "cli/validate_json.h"

#include <map>
#include <string>

#include "properties/verdict_table.h"

namespace stackcheck::cli {
namespace {

void WriteMessages(const std::map<std::string, std::string>& by_property,
                   properties::JsonWriter& json) {
  json.BeginObject();
  for (const auto& [property, message] : by_property) {
    json.Key(property).String(message);
  }
  json.EndObject();
}

}  // namespace

void WriteHardwareRunJson(const real::HardwareRunResult& run,
                          properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("ending").String(run.EndingText());
  json.Key("seconds").Double(run.seconds);
  json.Key("properties").BeginObject();
  for (const real::PropertyResult& p : run.properties) {
    json.Key(p.property).BeginObject();
    json.Key("verdict").String(real::HwVerdictName(p.verdict));
    if (!p.evidence.empty()) json.Key("evidence").String(p.evidence);
    json.EndObject();
  }
  json.EndObject();
  if (!run.hang_report.empty()) {
    json.Key("hang_report").BeginArray();
    for (const std::string& line : run.hang_report) json.String(line);
    json.EndArray();
  }
  json.EndObject();
}

void WriteSteeredReplayJson(const real::SteeredReplayResult& result,
                            properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("policy").String(result.record.policy);
  json.Key("property").String(result.record.property);
  json.Key("scenario").String(result.scenario_text);
  json.Key("sim_violated").Bool(result.sim_violated);
  json.Key("sim_message").String(result.sim_message);
  json.Key("reproduced").Int(result.reproduced);
  json.Key("runs").BeginArray();
  for (const real::HardwareRunResult& run : result.runs) WriteHardwareRunJson(run, json);
  json.EndArray();
  json.EndObject();
}

void WriteSemProbesJson(const std::vector<real::SemProbeResult>& probes,
                        properties::JsonWriter& json) {
  json.BeginArray();
  for (const real::SemProbeResult& p : probes) {
    json.BeginObject();
    json.Key("id").String(p.id);
    json.Key("spec").String(p.spec);
    json.Key("sim_test").String(p.sim_test);
    json.Key("as_specified").Bool(p.as_specified);
    json.Key("observed").String(p.observed);
    json.EndObject();
  }
  json.EndArray();
}

void WriteSideBySideJson(const real::SideBySideResult& result,
                         properties::JsonWriter& json) {
  json.Key("verdicts");
  properties::WriteVerdictTableJson(result.table, json);
  json.Key("outcomes").BeginArray();
  for (const real::ScenarioOutcome& o : result.outcomes) {
    json.BeginObject();
    json.Key("policy").String(o.policy->name);
    json.Key("scenario").String(o.scenario->name);
    json.Key("sim_executions").Int(o.sim_executions);
    json.Key("sim_violations");
    WriteMessages(o.sim_violations, json);
    if (!o.sim_error.empty()) json.Key("sim_error").String(o.sim_error);
    json.Key("hardware_violations");
    WriteMessages(o.hw_violations, json);
    json.Key("hardware_runs").BeginArray();
    for (const real::HardwareRunResult& run : o.hardware_runs) {
      WriteHardwareRunJson(run, json);
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace stackcheck::cli
