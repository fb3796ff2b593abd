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

void WriteSearchJson(const hardware::ScenarioSearch& search, properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("dpor_executions").Uint(search.dfs_executions);
  json.Key("exhausted").Bool(search.exhausted);
  json.Key("random_executions").Uint(search.random_executions);
  json.Key("counterexamples").BeginObject();
  for (const auto& [property, cx] : search.counterexamples) {
    json.Key(property).BeginObject();
    json.Key("message").String(cx.message);
    json.Key("replay").String(cx.token);
    json.EndObject();
  }
  json.EndObject();
  if (!search.error.empty()) json.Key("error").String(search.error);
  json.EndObject();
}

void WriteComparisonJson(const hardware::PropertyComparison& c, properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("property").String(c.property);
  json.Key("status").String(hardware::RowStatusName(c.comparison.status));
  json.Key("disagrees").Bool(hardware::Disagrees(c.comparison.status));
  json.Key("text").String(c.comparison.text);
  json.Key("sim").BeginObject();
  json.Key("checked").Bool(c.sim.checked);
  json.Key("violated").Bool(c.sim.violated);
  json.Key("executions").Uint(c.sim.executions);
  json.Key("exhaustive").Bool(c.sim.exhaustive);
  json.Key("search").String(c.sim.search);
  if (c.sim.violated) {
    json.Key("message").String(c.sim.message);
    json.Key("replay").String(c.sim.token);
  }
  if (!c.sim.error.empty()) json.Key("error").String(c.sim.error);
  json.EndObject();
  json.Key("cuda").BeginObject();
  json.Key("observable").Bool(c.hw.observable);
  json.Key("runs").Int(c.hw.runs);
  json.Key("violated_runs").Int(c.hw.violated_runs);
  if (!c.hw.evidence.empty()) json.Key("evidence").String(c.hw.evidence);
  if (!c.hw.unavailable.empty()) json.Key("unavailable").String(c.hw.unavailable);
  if (c.hw.steered) {
    json.Key("steering").String(c.hw.steering);
    json.Key("steerable").Bool(c.hw.not_steerable.empty());
    if (!c.hw.not_steerable.empty()) json.Key("not_steerable").String(c.hw.not_steerable);
    json.Key("steered_runs").Int(c.hw.steered_runs);
    json.Key("reproduced").Int(c.hw.reproduced);
    if (!c.hw.steer_error.empty()) json.Key("steer_error").String(c.hw.steer_error);
  }
  json.EndObject();
  json.EndObject();
}

}  // namespace

void WriteHardwareRunJson(const hardware::HardwareRunResult& run, properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("ending").String(run.EndingText());
  json.Key("seconds").Double(run.seconds);
  json.Key("properties").BeginObject();
  for (const hardware::PropertyResult& p : run.properties) {
    json.Key(p.property).BeginObject();
    json.Key("verdict").String(hardware::HwVerdictName(p.verdict));
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

void WriteSteeredReplayJson(const hardware::SteeredReplayResult& result,
                            properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("policy").String(result.record.policy);
  json.Key("property").String(result.record.property);
  json.Key("scenario").String(result.scenario_text);
  json.Key("sim_violated").Bool(result.sim_violated);
  json.Key("sim_message").String(result.sim_message);
  json.Key("reproduced").Int(result.reproduced);
  json.Key("runs").BeginArray();
  for (const hardware::HardwareRunResult& run : result.runs) WriteHardwareRunJson(run, json);
  json.EndArray();
  json.EndObject();
}

void WriteSemProbesJson(const std::vector<hardware::SemProbeResult>& probes,
                        properties::JsonWriter& json) {
  json.BeginArray();
  for (const hardware::SemProbeResult& p : probes) {
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

void WriteSideBySideJson(const hardware::SideBySideResult& result, properties::JsonWriter& json) {
  json.Key("verdicts");
  properties::WriteVerdictTableJson(result.table, json);
  json.Key("outcomes").BeginArray();
  for (const hardware::ScenarioOutcome& o : result.outcomes) {
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
    for (const hardware::HardwareRunResult& run : o.hardware_runs) {
      WriteHardwareRunJson(run, json);
    }
    json.EndArray();
    json.Key("sim_search");
    WriteSearchJson(o.sim_search, json);
    if (!o.sim_targeted.empty()) {
      json.Key("sim_targeted").BeginObject();
      for (const auto& [property, search] : o.sim_targeted) {
        json.Key(property);
        WriteSearchJson(search, json);
      }
      json.EndObject();
    }
    if (!o.steered.empty()) {
      json.Key("steered").BeginObject();
      for (const auto& [property, s] : o.steered) {
        json.Key(property).BeginObject();
        json.Key("replay").String(s.token);
        json.Key("steering").String(s.steering.Describe());
        json.Key("steerable").Bool(s.steering.steerable);
        json.Key("reproduced").Int(s.reproduced);
        if (!s.error.empty()) json.Key("error").String(s.error);
        json.Key("runs").BeginArray();
        for (const hardware::HardwareRunResult& run : s.runs) WriteHardwareRunJson(run, json);
        json.EndArray();
        json.EndObject();
      }
      json.EndObject();
    }
    if (!o.comparisons.empty()) {
      json.Key("comparison").BeginArray();
      for (const hardware::PropertyComparison& c : o.comparisons) WriteComparisonJson(c, json);
      json.EndArray();
    }
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace stackcheck::cli
