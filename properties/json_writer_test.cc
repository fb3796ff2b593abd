#include "properties/json_writer.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace stackcheck::properties {
namespace {

using Json = nlohmann::json;

Json Parsed(const std::string& text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON: " << text;
  return doc;
}

TEST(JsonWriterTest, WritesWhatAParserReadsBack) {
  const std::string odd = "quote \" backslash \\ newline \n tab \t bell \a nul";
  JsonWriter w;
  w.BeginObject();
  w.Key("s").String(odd + std::string(1, '\0'));
  w.Key("n").Int(-3);
  w.Key("u").Uint(18446744073709551615u);
  w.Key("d").Double(0.25);
  w.Key("inf").Double(std::numeric_limits<double>::infinity());
  w.Key("b").Bool(true);
  w.Key("z").Null();
  w.Key("a").BeginArray().Int(1).BeginObject().EndObject().BeginArray().EndArray().EndArray();
  w.EndObject();
  const Json doc = Parsed(w.str());
  EXPECT_EQ(doc["s"].get<std::string>(), odd + std::string(1, '\0'));
  EXPECT_EQ(doc["n"].get<int>(), -3);
  EXPECT_EQ(doc["u"].get<std::uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(doc["d"].get<double>(), 0.25);
  EXPECT_TRUE(doc["inf"].is_null());
  EXPECT_TRUE(doc["b"].get<bool>());
  EXPECT_TRUE(doc["z"].is_null());
  EXPECT_EQ(doc["a"].dump(), "[1,{},[]]");
}

TEST(JsonWriterTest, BytesThatAreNotUtf8StillGiveJson) {
  const std::string text = JsonEscape("name \xff\xfe end");
  const Json doc = Parsed(text);
  EXPECT_EQ(doc.get<std::string>(), "name \xEF\xBF\xBD\xEF\xBF\xBD end");  // U+FFFD each
}

TEST(JsonWriterTest, KeepsUtf8AsItIs) { EXPECT_EQ(JsonEscape("µs"), "\"µs\""); }

}  // namespace
}  // namespace stackcheck::properties
