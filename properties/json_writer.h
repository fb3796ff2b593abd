// A minimal streaming JSON writer for the commands' --json output:
// objects, arrays, strings, numbers, booleans; commas handled for you. Strings
// are escaped by nlohmann-json, as in the Chrome trace (sim/trace/).
#ifndef STACKCHECK_PROPERTIES_JSON_WRITER_H_
#define STACKCHECK_PROPERTIES_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace stackcheck::properties {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Inside an object: the next value's key.
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view value);
  JsonWriter& Int(std::int64_t value);
  JsonWriter& Uint(std::uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included.
std::string JsonEscape(absl::string_view s);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_JSON_WRITER_H_
