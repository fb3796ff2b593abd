// The names a PTX module defines, read from its text: kernels (`.entry`, with
// the size of each `.param`) and module-scope variables in global memory
// (`.global` and `.const`, with their size in bytes and their initialiser). Declarations
// (`.extern`) define nothing. The parser reads declarations only: it does not
// check that the PTX is valid.
#ifndef STACKCHECK_SIM_LIBCUDA_PTX_SYMBOLS_H_
#define STACKCHECK_SIM_LIBCUDA_PTX_SYMBOLS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace stackcheck::libcuda {

struct PtxKernel {
  std::string name;
  std::vector<std::uint32_t> param_sizes;  // bytes, in declaration order
};

struct PtxGlobal {
  std::string name;
  std::uint64_t bytes = 0;
  // The initialiser's elements as written (`= {2,3,4,5}`), each
  // element_bytes wide: integers, or an address `generic(sym) + offset`.
  // Empty: zero-filled.
  std::uint32_t element_bytes = 0;
  std::vector<std::string> initializer;
  bool constant = false;  // in `.const` memory: never written
};

// The bytes of `global`'s initialiser, `global.bytes` long (zero past the
// listed elements); an address element is `address_of(symbol)` + offset.
// False, with the element in *error, if one cannot be read.
bool InitialBytes(
    const PtxGlobal& global,
    const std::function<bool(absl::string_view symbol, std::uint64_t* address)>& address_of,
    std::vector<unsigned char>* bytes, std::string* error);

struct PtxSymbols {
  std::vector<PtxKernel> kernels;
  std::vector<PtxGlobal> globals;
};

// Adds the kernels and globals `ptx` defines to `out`.
void ParsePtx(absl::string_view ptx, PtxSymbols* out);

// PTX that declares exactly `symbols` (no bodies): ParsePtx of it gives them
// back. A linked image is this, not the inputs' text (a program's offload
// image links libgcc's and newlib's PTX, megabytes nothing reads again).
std::string FormatPtxDeclarations(const PtxSymbols& symbols);

// Size in bytes of a PTX fundamental type name (".u64" -> 8); 0 if unknown.
std::uint32_t PtxTypeSize(absl::string_view type);

}  // namespace stackcheck::libcuda

#endif  // STACKCHECK_SIM_LIBCUDA_PTX_SYMBOLS_H_
