#include "sim/libcuda/ptx_symbols.h"

#include <string>

#include "gtest/gtest.h"

namespace stackcheck::libcuda {
namespace {

TEST(PtxSymbols, EntriesWithParamSizes) {
  PtxSymbols s;
  ParsePtx(R"(
// BEGIN FUNCTION DECL: main$_omp_fn$0
.visible .entry main$_omp_fn$0 (.param .u64 %arg, .param .u64 %stack, .param .u64 %sz)
{
  .reg .u64 %r<4>;
  ld.param.u64 %r1, [%arg];
}
.entry k2(.param .align 8 .b8 blob[24], .param .u32 n) { ret; }
)", &s);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, "main$_omp_fn$0");
  EXPECT_EQ(s.kernels[0].param_sizes, (std::vector<std::uint32_t>{8, 8, 8}));
  EXPECT_EQ(s.kernels[1].name, "k2");
  EXPECT_EQ(s.kernels[1].param_sizes, (std::vector<std::uint32_t>{24, 4}));
}

TEST(PtxSymbols, GlobalsWithSizesAndNoDeclarations) {
  PtxSymbols s;
  ParsePtx(R"(
.extern .global .align 8 .u64 declared_only[4];
.visible .global .align 4 .u32 __gomp_device_num;
.global .align 8 .b8 table[40] = {1, 2, 3};
.weak .global .align 16 .v2 .u64 pair;
.extern .func gomp_nvptx_main (.param .u64 %in_ar1);
.visible .func f () { .global .u32 not_module_scope; ret; }
)", &s);
  ASSERT_EQ(s.globals.size(), 3u);
  EXPECT_EQ(s.globals[0].name, "__gomp_device_num");
  EXPECT_EQ(s.globals[0].bytes, 4u);
  EXPECT_EQ(s.globals[1].name, "table");
  EXPECT_EQ(s.globals[1].bytes, 40u);
  EXPECT_EQ(s.globals[2].name, "pair");
  EXPECT_EQ(s.globals[2].bytes, 16u);
  EXPECT_TRUE(s.kernels.empty());
}

TEST(PtxSymbols, TypeSizes) {
  EXPECT_EQ(PtxTypeSize(".u64"), 8u);
  EXPECT_EQ(PtxTypeSize(".b8"), 1u);
  EXPECT_EQ(PtxTypeSize(".f32"), 4u);
  EXPECT_EQ(PtxTypeSize(".pred"), 1u);
  EXPECT_EQ(PtxTypeSize(".global"), 0u);
}

TEST(PtxSymbols, DeclarationsRoundTrip) {
  PtxSymbols in;
  in.kernels.push_back(PtxKernel{"main$_omp_fn$0", {8, 8, 8}});
  in.kernels.push_back(PtxKernel{"no_params", {}});
  in.globals.push_back(PtxGlobal{"__nvptx_stacks", 256});
  in.globals.push_back(PtxGlobal{"flag", 4});
  PtxSymbols out;
  ParsePtx(FormatPtxDeclarations(in), &out);
  ASSERT_EQ(out.kernels.size(), 2u);
  EXPECT_EQ(out.kernels[0].name, "main$_omp_fn$0");
  EXPECT_EQ(out.kernels[0].param_sizes, (std::vector<std::uint32_t>{8, 8, 8}));
  EXPECT_EQ(out.kernels[1].name, "no_params");
  EXPECT_TRUE(out.kernels[1].param_sizes.empty());
  ASSERT_EQ(out.globals.size(), 2u);
  EXPECT_EQ(out.globals[0].name, "__nvptx_stacks");
  EXPECT_EQ(out.globals[0].bytes, 256u);
  EXPECT_EQ(out.globals[1].bytes, 4u);
}

// Bodies are skipped sixteen bytes at a time: a brace, a comment or a string
// at every offset of a long body must still be seen, and what follows found.
TEST(PtxSymbols, LongBodiesAtEveryOffset) {
  const std::string filler(40, 'x');
  for (const std::string inner : {"{ }", "// } not a brace\n", "/* } */", "\"}\""}) {
    for (std::size_t offset = 0; offset < 40; ++offset) {
      const std::string ptx = ".visible .func f () {" + filler.substr(0, offset) + inner + filler +
                              "}\n.visible .global .u32 after[3];\n";
      PtxSymbols s;
      ParsePtx(ptx, &s);
      ASSERT_EQ(s.globals.size(), 1u) << "inner " << inner << " at " << offset;
      EXPECT_EQ(s.globals[0].name, "after");
      EXPECT_EQ(s.globals[0].bytes, 12u);
    }
  }
}

}  // namespace
}  // namespace stackcheck::libcuda
