#include "properties/program/steering.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace stackcheck::properties {
namespace {

using Kind = program::CallRecord::Kind;

// "T0", "T12": the threads both sides number alike (not the simulator's own).
bool ProgramThread(absl::string_view thread) {
  return thread.size() >= 2 && thread[0] == 'T' &&
         thread.find_first_not_of("0123456789", 1) == absl::string_view::npos;
}

}  // namespace

std::vector<std::string> SteeringOrder(const std::vector<program::CallRecord>& calls) {
  std::vector<std::string> order;
  for (const program::CallRecord& call : calls) {
    const bool ordered =
        call.kind == Kind::kOpenmp || call.kind == Kind::kPluginEntry || call.kind == Kind::kDriver;
    if (!ordered || call.function.empty() || !ProgramThread(call.thread)) continue;
    order.push_back(absl::StrCat(call.thread, " ", call.function));
  }
  return order;
}

}  // namespace stackcheck::properties
