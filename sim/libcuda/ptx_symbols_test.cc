#include "sim/libcuda/ptx_symbols.h"

#include <cstring>
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
)",
           &s);
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
)",
           &s);
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
  in.globals.push_back(PtxGlobal{"__nvptx_stacks", 256, 0, {}});
  in.globals.push_back(PtxGlobal{"flag", 4, 4, {"7"}});
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
  EXPECT_EQ(out.globals[1].initializer, (std::vector<std::string>{"7"}));
}

// GCC's nvptx initialisers, as its offload compiler writes them: integers of
// the element's width (doubles as their bits), and addresses of variables.
TEST(PtxSymbols, Initialisers) {
  PtxSymbols s;
  ParsePtx(
      ".visible .global .align 16 .u32 a[4] =\n{2,3,4,5 };\n"
      ".visible .global .align 8 .u64 b[1] =\n{generic(a) + 4 };\n"
      ".visible .global .align 8 .u64 big[1] =\n{-5 };\n"
      ".visible .global .align 1 .u8 s[6] =\n{104,105,0 };\n"
      ".visible .global .align 8 .u64 zero[2];\n"
      ".const .align 16 .u32 A$10$2[2] =\n{7,8 };\n",
      &s);
  ASSERT_EQ(s.globals.size(), 6u);
  EXPECT_EQ(s.globals[5].name, "A$10$2");  // gfortran's constants live in .const
  EXPECT_TRUE(s.globals[5].constant);
  EXPECT_FALSE(s.globals[0].constant);
  PtxSymbols again;
  ParsePtx(FormatPtxDeclarations(s), &again);
  ASSERT_EQ(again.globals.size(), 6u);
  EXPECT_TRUE(again.globals[5].constant);
  EXPECT_EQ(again.globals[5].initializer, s.globals[5].initializer);
  const auto address_of = [](absl::string_view symbol, std::uint64_t* address) {
    if (symbol != "a") return false;
    *address = 0x1000;
    return true;
  };
  std::vector<unsigned char> bytes;
  std::string error;
  ASSERT_TRUE(InitialBytes(s.globals[0], address_of, &bytes, &error));
  EXPECT_EQ(bytes, (std::vector<unsigned char>{2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0}));
  ASSERT_TRUE(InitialBytes(s.globals[1], address_of, &bytes, &error));
  std::uint64_t pointer = 0;
  std::memcpy(&pointer, bytes.data(), sizeof pointer);
  EXPECT_EQ(pointer, 0x1004u);
  ASSERT_TRUE(InitialBytes(s.globals[2], address_of, &bytes, &error));
  std::int64_t minus_five = 0;
  std::memcpy(&minus_five, bytes.data(), sizeof minus_five);
  EXPECT_EQ(minus_five, -5);
  ASSERT_TRUE(InitialBytes(s.globals[3], address_of, &bytes, &error));
  EXPECT_EQ(bytes, (std::vector<unsigned char>{104, 105, 0, 0, 0, 0}));  // the rest zero
  ASSERT_TRUE(InitialBytes(s.globals[4], address_of, &bytes, &error));
  EXPECT_EQ(bytes, std::vector<unsigned char>(16, 0));
}

// What cannot be read is said, not guessed: an address of something that is
// no variable of the module (a function, say).
TEST(PtxSymbols, InitialiserOfUnknownSymbol) {
  PtxSymbols s;
  ParsePtx(".visible .global .align 8 .u64 f[1] = {generic(some_function) };\n", &s);
  ASSERT_EQ(s.globals.size(), 1u);
  std::vector<unsigned char> bytes;
  std::string error;
  EXPECT_FALSE(InitialBytes(
      s.globals[0], [](absl::string_view, std::uint64_t*) { return false; }, &bytes, &error));
  EXPECT_EQ(error, "generic(some_function)");
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
