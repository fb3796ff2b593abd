#include "properties/json_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::properties {

std::string JsonEscape(absl::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(ch);
        }
    }
  }
  out += "\"";
  return out;
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
