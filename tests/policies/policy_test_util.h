// A runtime on the sequential fake backend, for the policy unit tests.
#ifndef STACKCHECK_TESTS_POLICIES_POLICY_TEST_UTIL_H_
#define STACKCHECK_TESTS_POLICIES_POLICY_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/strings/str_join.h"
#include "core/policies/registry.h"
#include "core/runtime.h"
#include "core/scenario.h"
#include "tests/policies/fake_backend.h"

namespace stackcheck::testing {

inline RegionSpec Region(RegionId id, std::uint32_t teams, std::uint32_t warps,
                         bool aborts = false) {
  RegionSpec r;
  r.id = id;
  r.teams = teams;
  r.warps = warps;
  r.aborts = aborts;
  return r;
}

// Host, device, observer and an opened runtime with the image loaded.
struct Harness {
  explicit Harness(const std::string& policy, FakeDeviceOptions options = {}, bool ctors = false,
                   bool dtors = false, RuntimeOptions runtime_options = {})
      : device(host, options) {
    const PolicyInfo* info = FindPolicy(policy);
    if (info == nullptr) throw std::invalid_argument("no policy " + policy);
    runtime = std::make_unique<Runtime>(device, host, observer, *info, runtime_options);
    runtime->OpenDevice();
    runtime->LoadImage(ctors, dtors);
  }

  // Ends the process the normal way: exit(0) runs the close-device handler.
  void ExitNormally() {
    try {
      host.Exit(0);
    } catch (const ProcessExited&) {
    }
  }

  std::string Violations() const { return absl::StrJoin(host.violations(), "\n"); }

  // Declared first: mutexes report to the host when destroyed.
  FakeHost host;
  FakeDevice device;
  RecordingObserver observer;
  std::unique_ptr<Runtime> runtime;
};

}  // namespace stackcheck::testing

#endif  // STACKCHECK_TESTS_POLICIES_POLICY_TEST_UTIL_H_
