#include "properties/json_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace stackcheck::properties {

std::string JsonEscape(absl::string_view s) {
  // nlohmann's serializer; bytes that are not UTF-8 become U+FFFD.
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += "{";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  out_ += "}";
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += "[";
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  out_ += "]";
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  absl::StrAppend(&out_, JsonEscape(key), ":");
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::String(absl::string_view value) {
  BeforeValue();
  out_ += JsonEscape(value);
  return *this;
}
JsonWriter& JsonWriter::Int(std::int64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
  return *this;
}
JsonWriter& JsonWriter::Uint(std::uint64_t value) {
  BeforeValue();
  absl::StrAppend(&out_, value);
  return *this;
}
JsonWriter& JsonWriter::Double(double value) {
  BeforeValue();
  if (std::isfinite(value)) {
    absl::StrAppendFormat(&out_, "%.6g", value);
  } else {
    out_ += "null";
  }
  return *this;
}
JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

}  // namespace stackcheck::properties
