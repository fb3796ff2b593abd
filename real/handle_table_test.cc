#include "real/handle_table.h"

#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::real {
namespace {

enum class TestHandle : std::uint32_t {};

TEST(HandleTableTest, HandlesStartAtOneAndReleasedOnesStayDead) {
  int a = 0, b = 0;
  HandleTable<TestHandle, int*> table;
  const TestHandle ha = table.Add(&a);
  const TestHandle hb = table.Add(&b);
  EXPECT_EQ(static_cast<std::uint32_t>(ha), 1u);
  EXPECT_EQ(static_cast<std::uint32_t>(hb), 2u);
  int* out = nullptr;
  EXPECT_FALSE(table.Find(TestHandle{0}, &out));
  EXPECT_FALSE(table.Find(TestHandle{3}, &out));
  ASSERT_TRUE(table.Take(ha, &out));
  EXPECT_EQ(out, &a);
  EXPECT_FALSE(table.Find(ha, &out)) << "a released handle is not reused";
  EXPECT_FALSE(table.Take(ha, &out)) << "nor released twice";
  EXPECT_EQ(static_cast<std::uint32_t>(table.Add(&a)), 3u);
  std::vector<int*> live;
  table.ForEachLive([&](int* p) { live.push_back(p); });
  EXPECT_EQ(live, (std::vector<int*>{&b, &a}));
  table.Clear();
  EXPECT_FALSE(table.Find(hb, &out));
}

}  // namespace
}  // namespace stackcheck::real
