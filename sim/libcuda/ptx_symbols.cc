#include "sim/libcuda/ptx_symbols.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace stackcheck::libcuda {
namespace {

// The index of the first brace, slash or double quote at or after `i` (the
// characters that matter inside a body), or text.size(). Bodies are most of
// an image (half a megabyte for a small program, parsed at every module
// load), so the scan looks at sixteen bytes at a time where SSE2 is there.
std::size_t NextInBody(absl::string_view text, std::size_t i) {
  const char* const data = text.data();
  const std::size_t n = text.size();
#if defined(__SSE2__)
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  const __m128i slash = _mm_set1_epi8('/');
  const __m128i quote = _mm_set1_epi8('"');
  for (; i + 16 <= n; i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const __m128i hits =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, open), _mm_cmpeq_epi8(chunk, close)),
                     _mm_or_si128(_mm_cmpeq_epi8(chunk, slash), _mm_cmpeq_epi8(chunk, quote)));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (; i < n; ++i) {
    const char c = data[i];
    if (c == '{' || c == '}' || c == '/' || c == '"') return i;
  }
  return n;
}

// Splits PTX into tokens: identifiers and directives (letters, digits, and
// _ $ % . ), numbers, and single punctuation characters. Comments are dropped.
// Inside braces (function bodies, initialisers) only the braces themselves
// are tokens: nothing there is a declaration, and bodies are most of a
// module's text (a program's offload image links libgcc's and newlib's).
std::vector<absl::string_view> Tokenize(absl::string_view text) {
  std::vector<absl::string_view> tokens;
  tokens.reserve(text.size() / 64);
  int depth = 0;
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
           c == '.';
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (depth > 0 && c != '{' && c != '}' && c != '/' && c != '"') {
      i = NextInBody(text, i);  // inside a body: only braces, comments and strings matter
    } else if (c == '{' || c == '}') {
      depth += c == '{' ? 1 : -1;
      tokens.push_back(text.substr(i, 1));
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == absl::string_view::npos ? text.size() : end + 2;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') ++j;
      tokens.push_back(text.substr(i, j + 1 - i));
      i = j + 1;
    } else if (word_char(c)) {
      std::size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      tokens.push_back(text.substr(i, j - i));
      i = j;
    } else {
      tokens.push_back(text.substr(i, 1));
      ++i;
    }
  }
  return tokens;
}

bool IsStateSpaceOrQualifier(absl::string_view t) {
  return t == ".align" || t == ".ptr" || t == ".const" || t == ".v2" || t == ".v4" ||
         t == ".global" || t == ".shared" || t == ".local";
}

// Reads "[N]" suffixes starting at tokens[*i]; multiplies *count by each N.
// An empty "[]" (size given by the initialiser) counts as 0.
void ReadDims(const std::vector<absl::string_view>& t, std::size_t* i, std::uint64_t* count) {
  while (*i + 1 < t.size() && t[*i] == "[") {
    std::uint64_t n = 0;
    if (t[*i + 1] == "]") {
      *count = 0;
      *i += 2;
      continue;
    }
    if (!absl::SimpleAtoi(t[*i + 1], &n)) n = 0;
    *count *= n;
    *i += 2;
    if (*i < t.size() && t[*i] == "]") ++*i;
  }
}

// Reads one parameter from t[j], just after its ".param":
// [.align N] [.ptr and state spaces] .type name[dims]; appends its size.
// Returns the index of the "," or ")" that ends it.
std::size_t ReadParam(const std::vector<absl::string_view>& t, std::size_t j,
                      std::vector<std::uint32_t>* sizes) {
  std::uint32_t elem = 0;
  while (j < t.size() && t[j] != "," && t[j] != ")") {
    if (t[j] == ".align") {
      j += 2;
      continue;
    }
    if (const std::uint32_t s = PtxTypeSize(t[j]); s != 0) {
      elem = s;
      ++j;
      continue;
    }
    if (t[j] == ".ptr" || t[j] == ".global" || t[j] == ".const" || t[j] == ".shared" ||
        t[j] == ".local") {
      ++j;
      continue;
    }
    // The parameter's name, then optional dimensions.
    ++j;
    std::uint64_t count = 1;
    ReadDims(t, &j, &count);
    sizes->push_back(static_cast<std::uint32_t>(elem * count));
    break;
  }
  while (j < t.size() && t[j] != "," && t[j] != ")") ++j;
  return j;
}

// Reads the parameter list of an .entry from t[j], where its "(" is if it has
// one; appends each parameter's size. Returns the index of its ")" (or where
// the list stops: t.size(), or j without a list).
std::size_t ReadParams(const std::vector<absl::string_view>& t, std::size_t j,
                       std::vector<std::uint32_t>* sizes) {
  if (j >= t.size() || t[j] != "(") return j;
  ++j;
  while (j < t.size() && t[j] != ")") {
    if (t[j] != ".param") {
      ++j;
      continue;
    }
    j = ReadParam(t, j + 1, sizes);
    if (j < t.size() && t[j] == ",") ++j;
  }
  return j;
}

// The elements of the initialiser whose "{" is at ptx[open], as written.
void ReadInitializer(absl::string_view ptx, std::size_t open, std::vector<std::string>* out) {
  const std::size_t close = ptx.find('}', open);
  if (close == absl::string_view::npos) return;
  for (absl::string_view e : absl::StrSplit(ptx.substr(open + 1, close - open - 1), ',')) {
    e = absl::StripAsciiWhitespace(e);
    if (!e.empty()) out->emplace_back(e);
  }
}

// Reads a variable declared by the ".global" or ".const" at t[i]:
// [.visible|.weak] .global|.const [.align N] [.v2|.v4] .type name[dims] [= ...];
// (cuModuleGetGlobal finds constant memory's variables too.) False if there
// is no type and name there; else *end is the index just past its dimensions.
bool ReadGlobal(absl::string_view ptx, const std::vector<absl::string_view>& t, std::size_t i,
                PtxGlobal* global, std::size_t* end) {
  std::size_t j = i + 1;
  std::uint32_t elem = 0;
  std::uint32_t vec = 1;
  while (j < t.size()) {
    if (t[j] == ".align") {
      j += 2;
      continue;
    }
    if (t[j] == ".v2") {
      vec = 2;
      ++j;
      continue;
    }
    if (t[j] == ".v4") {
      vec = 4;
      ++j;
      continue;
    }
    if (const std::uint32_t s = PtxTypeSize(t[j]); s != 0) {
      elem = s;
      ++j;
      continue;
    }
    if (IsStateSpaceOrQualifier(t[j])) {
      ++j;
      continue;
    }
    break;
  }
  if (j >= t.size() || elem == 0) return false;
  global->name = std::string(t[j]);
  ++j;
  std::uint64_t count = 1;
  ReadDims(t, &j, &count);
  global->bytes = std::uint64_t{elem} * vec * count;
  global->element_bytes = elem;
  global->constant = t[i] == ".const";
  if (j + 1 < t.size() && t[j] == "=" && t[j + 1] == "{") {
    // The tokenizer skips what braces hold: read the elements from the text.
    ReadInitializer(ptx, static_cast<std::size_t>(t[j + 1].data() - ptx.data()),
                    &global->initializer);
  }
  *end = j;
  return true;
}

}  // namespace

std::uint32_t PtxTypeSize(absl::string_view type) {
  if (type == ".pred") return 1;
  if (type.size() < 3 || type[0] != '.') return 0;
  const char k = type[1];
  if (k != 'u' && k != 's' && k != 'b' && k != 'f') return 0;
  std::uint32_t bits = 0;
  if (!absl::SimpleAtoi(type.substr(2), &bits)) return 0;
  return bits / 8;
}

void ParsePtx(absl::string_view ptx, PtxSymbols* out) {
  const std::vector<absl::string_view> t = Tokenize(ptx);
  int depth = 0;
  bool external = false;  // the current top-level declaration is .extern
  for (std::size_t i = 0; i < t.size(); ++i) {
    const absl::string_view tok = t[i];
    if (tok == "{") {
      ++depth;
      continue;
    }
    if (tok == "}") {
      --depth;
      continue;
    }
    if (depth != 0) continue;
    if (tok == ";") {
      external = false;
      continue;
    }
    if (tok == ".extern") {
      external = true;
      continue;
    }
    if (tok == ".entry" && !external && i + 1 < t.size()) {
      PtxKernel kernel;
      kernel.name = std::string(t[i + 1]);
      const std::size_t j = ReadParams(t, i + 2, &kernel.param_sizes);
      out->kernels.push_back(std::move(kernel));
      i = j < t.size() ? j : t.size() - 1;
      continue;
    }
    if ((tok == ".global" || tok == ".const") && !external) {
      PtxGlobal global;
      std::size_t end = 0;
      if (!ReadGlobal(ptx, t, i, &global, &end)) continue;
      out->globals.push_back(std::move(global));
      i = end - 1;
      continue;
    }
  }
}

std::string FormatPtxDeclarations(const PtxSymbols& symbols) {
  std::string text;
  for (const PtxKernel& k : symbols.kernels) {
    absl::StrAppend(&text, ".visible .entry ", k.name, "(");
    for (std::size_t i = 0; i < k.param_sizes.size(); ++i) {
      absl::StrAppend(&text, i ? ", " : "", ".param .b8 p", i, "[", k.param_sizes[i], "]");
    }
    absl::StrAppend(&text, ")\n{\n}\n");
  }
  for (const PtxGlobal& g : symbols.globals) {
    const char* space = g.constant ? ".const" : ".global";
    if (g.initializer.empty() || g.element_bytes == 0) {
      absl::StrAppend(&text, ".visible ", space, " .b8 ", g.name, "[", g.bytes, "];\n");
    } else {
      absl::StrAppend(&text, ".visible ", space, " .b", g.element_bytes * 8, " ", g.name, "[",
                      g.bytes / g.element_bytes, "] = {", absl::StrJoin(g.initializer, ","),
                      "};\n");
    }
  }
  return text;
}

bool InitialBytes(
    const PtxGlobal& global,
    const std::function<bool(absl::string_view symbol, std::uint64_t* address)>& address_of,
    std::vector<unsigned char>* bytes, std::string* error) {
  bytes->assign(global.bytes, 0);
  const std::uint32_t width = global.element_bytes;
  if (width == 0 || width > 8) return global.initializer.empty();
  for (std::size_t k = 0; k < global.initializer.size(); ++k) {
    if ((k + 1) * width > global.bytes) break;
    absl::string_view e = global.initializer[k];
    std::uint64_t value = 0;
    std::int64_t signed_value = 0;
    if (absl::SimpleAtoi(e, &signed_value)) {
      value = static_cast<std::uint64_t>(signed_value);
    } else if (absl::SimpleAtoi(e, &value)) {
    } else if (absl::StartsWithIgnoreCase(e, "0x") && absl::SimpleHexAtoi(e.substr(2), &value)) {
    } else {
      // generic(symbol) [+ offset], or symbol [+ offset]
      absl::string_view symbol = e;
      std::int64_t offset = 0;
      if (const std::size_t plus = e.find('+'); plus != absl::string_view::npos) {
        symbol = absl::StripAsciiWhitespace(e.substr(0, plus));
        if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(e.substr(plus + 1)), &offset)) {
          *error = std::string(e);
          return false;
        }
      }
      if (absl::ConsumePrefix(&symbol, "generic(")) absl::ConsumeSuffix(&symbol, ")");
      std::uint64_t address = 0;
      if (width != 8 || !address_of(symbol, &address)) {
        *error = std::string(e);
        return false;
      }
      value = address + static_cast<std::uint64_t>(offset);
    }
    std::memcpy(bytes->data() + k * width, &value, width);  // little-endian, as the GPU
  }
  return true;
}

}  // namespace stackcheck::libcuda
