// ReportSink renders one description twice: text lines and a JSON object.
// Pinned here: fields, groups and table rows in both forms.
#include "cli/report_sink.h"

#include <string>

#include "gtest/gtest.h"

namespace stackcheck::cli {
namespace {

// Describes a small report: a field, a group and a table of two rows, the
// second with a text prefix.
int Describe(bool json) {
  ReportSink out(json, "demo");
  out.Field("policy", "v2-gcc11");
  out.Group("plain").Field("executions", 7).EndGroup();
  out.BeginRows("scenarios");
  out.BeginRow("peer").Number("rate", 1234.56, "%.0f").Field("violations", 0).EndRow();
  out.BeginRow("peer", "engine_only ").Number("rate", 2.25, "%.1f").EndRow();
  out.EndRows();
  return out.Finish(3);
}

std::string Rendered(bool json, int* rc) {
  ::testing::internal::CaptureStdout();
  *rc = Describe(json);
  return ::testing::internal::GetCapturedStdout();
}

TEST(ReportSinkTest, TextPutsEachRowsLabelAfterTheKey) {
  int rc = 0;
  EXPECT_EQ(Rendered(false, &rc),
            "policy v2-gcc11\n"
            "plain_executions 7\n"
            "rate peer 1235\n"
            "violations peer 0\n"
            "engine_only rate peer 2.2\n");
  EXPECT_EQ(rc, 3);
}

TEST(ReportSinkTest, JsonMakesRowsAnArrayOfObjects) {
  int rc = 0;
  const std::string json = Rendered(true, &rc);
  EXPECT_NE(json.find(R"("command":"demo","policy":"v2-gcc11","plain":{"executions":7},)"
                      R"("scenarios":[{"rate":1234.56,"violations":0},{"rate":2.25}],)"
                      R"("exit_status":3)"),
            std::string::npos)
      << json;
  EXPECT_EQ(rc, 3);
}

}  // namespace
}  // namespace stackcheck::cli
