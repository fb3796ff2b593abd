// Test support: a strict little JSON reader (RFC 8259 grammar) returning a
// tree, so tests can check that the Chrome trace is well-formed JSON and look
// inside it without depending on a JSON library.
#ifndef STACKCHECK_SIM_TRACE_JSON_CHECK_H_
#define STACKCHECK_SIM_TRACE_JSON_CHECK_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::sim::json {

struct Value {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  // Member lookup; nullptr if absent or not an object.
  const Value* Get(absl::string_view key) const;
};

// The parsed document, or an error naming the offset where parsing failed.
absl::StatusOr<Value> Parse(absl::string_view text);

}  // namespace stackcheck::sim::json

#endif  // STACKCHECK_SIM_TRACE_JSON_CHECK_H_
