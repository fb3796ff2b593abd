// The entry points of linking and modules: PTX in, functions and
// `.global` variables out.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/libcuda/driver_state.h"
#include "sim/sim_device.h"

namespace stackcheck::libcuda {

namespace {

// The module's variables start with their initialisers, as the driver's
// module load writes them; an address in one is another variable's, and a
// variable paired with a host variable is reached at the host's address,
// where its bytes are while a kernel's code runs (RunWithDeviceVariables).
void InitializeGlobals(const Module& m) {
  auto address_of = [&m](absl::string_view symbol, std::uint64_t* address) {
    auto it = m.globals.find(std::string(symbol));
    if (it == m.globals.end() || it->second.first == 0) return false;
    *address = it->second.first;
    std::lock_guard<std::mutex> lock(g_mu);
    auto paired = g_paired.find(it->second.first);
    if (paired != g_paired.end() && !paired->second.link) {
      *address = reinterpret_cast<std::uint64_t>(paired->second.address);
    }
    return true;
  };
  for (const auto& g : m.symbols.globals) {
    if (g.initializer.empty()) continue;
    std::vector<unsigned char> bytes;
    std::string error;
    if (!stackcheck::libcuda::InitialBytes(g, address_of, &bytes, &error)) {
      LogDriverNote(absl::StrCat("module variable ", g.name, ": initialiser element \"", error,
                                 "\" not understood; the variable starts zero-filled"));
      continue;
    }
    const DevicePtr ptr = m.globals.at(g.name).first;
    std::lock_guard<std::mutex> lock(g_mu);
    if (Shadow* block = FindBlock(ptr, bytes.size())) {
      std::memcpy(block->data, bytes.data(), bytes.size());
    }
  }
}

CUresult LoadModule(CUmodule* out, absl::string_view image, absl::string_view api) {
  auto module = std::make_unique<Module>();
  if (image.size() > sizeof kImageMagic &&
      std::memcmp(image.data(), kImageMagic, sizeof kImageMagic) == 0) {
    image.remove_prefix(sizeof kImageMagic);
  }
  stackcheck::libcuda::ParsePtx(image, &module->symbols);
  Module* m = module.get();
  const CuResult r = RunOnDevice([&](Device& d) {
    CuResult r = d.ModuleLoad(&m->sim, stackcheck::kKernelImage);
    if (r != CuResult::kSuccess) return r;
    for (const auto& g : m->symbols.globals) {
      DevicePtr ptr = 0;
      if (g.bytes != 0) {
        r = AllocateBlock(d, &ptr, g.bytes);
        if (r != CuResult::kSuccess) return r;
      }
      m->globals[g.name] = {ptr, g.bytes};
      // A `declare target` variable of the program's: its block holds the
      // data (or, for a link variable, a pointer to the data). A constant
      // is the same on both sides, and read-only on the host's.
      const auto host = stackcheck::program::HostVariableOf(g.name);
      if (ptr != 0 && host && !g.constant &&
          (host->link ? g.bytes == sizeof(DevicePtr) : host->bytes == g.bytes)) {
        std::lock_guard<std::mutex> lock(g_mu);
        g_paired[ptr] = *host;
      }
    }
    return CuResult::kSuccess;
  });
  if (r == CuResult::kSuccess) InitializeGlobals(*m);
  LogDriverCall(api,
                absl::StrCat("(", image.size(), " bytes of PTX: ", m->symbols.kernels.size(),
                             " .entry, ", m->symbols.globals.size(), " .global) -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  *out = reinterpret_cast<CUmodule>(module.release());
  return 0;
}

}  // namespace

namespace {

void AnswerJitOptions(unsigned int count, const int* options, void** values) {
  if (options == nullptr || values == nullptr) return;
  for (unsigned int i = 0; i < count; ++i) {
    if (options[i] == kJitWallTime) {
      const float zero = 0;
      std::memcpy(&values[i], &zero, sizeof zero);
    } else if ((options[i] == kJitInfoLogBuffer || options[i] == kJitErrorLogBuffer) &&
               values[i] != nullptr) {
      // The size option follows the buffer option in the driver's numbering.
      for (unsigned int k = 0; k < count; ++k) {
        if (options[k] == options[i] + 1 && reinterpret_cast<std::uintptr_t>(values[k]) > 0) {
          static_cast<char*>(values[i])[0] = '\0';
        }
      }
    }
  }
}

CUresult LinkCreate(unsigned int count, int* options, void** values, CUlinkState* state) {
  if (state == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  AnswerJitOptions(count, options, values);
  *state = reinterpret_cast<CUlinkState>(new Link);
  return 0;
}

CUresult LinkAddData(CUlinkState state, int type, void* data, std::size_t size, const char* name,
                     const char* api) {
  if (state == nullptr || data == nullptr) return Code(CuResult::kInvalidValue);
  if (type != kJitInputPtx) {
    std::fprintf(stderr, "stackcheck libcuda: %s: input type %d is not PTX; only PTX links\n", api,
                 type);
    return Code(CuResult::kNotSupported);
  }
  auto* link = reinterpret_cast<Link*>(state);
  absl::string_view ptx(static_cast<const char*>(data), size);
  while (!ptx.empty() && ptx.back() == '\0') ptx.remove_suffix(1);
  stackcheck::libcuda::ParsePtx(ptx, &link->symbols);
  ++link->inputs;
  LogDriverCall(api, absl::StrCat("(PTX, ", size, " bytes, \"", name ? name : "", "\") -> 0 (",
                                  link->symbols.kernels.size(), " .entry, ",
                                  link->symbols.globals.size(), " .global so far)"));
  return 0;
}

}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuLinkCreate(unsigned int n, int* options, void** values,
                                             CUlinkState* s) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkCreate(n, options, values, s);
}
STACKCHECK_CUDA_EXPORT CUresult cuLinkCreate_v2(unsigned int n, int* options, void** values,
                                                CUlinkState* s) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkCreate(n, options, values, s);
}
STACKCHECK_CUDA_EXPORT CUresult cuLinkAddData(CUlinkState s, int type, void* data, std::size_t size,
                                              const char* name, unsigned int, int*, void**) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkAddData(s, type, data, size, name, "cuLinkAddData");
}
STACKCHECK_CUDA_EXPORT CUresult cuLinkAddData_v2(CUlinkState s, int type, void* data,
                                                 std::size_t size, const char* name, unsigned int,
                                                 int*, void**) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkAddData(s, type, data, size, name, "cuLinkAddData_v2");
}

STACKCHECK_CUDA_EXPORT CUresult cuLinkComplete(CUlinkState state, void** image, std::size_t* size) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (state == nullptr || image == nullptr) return Code(CuResult::kInvalidValue);
  auto* link = reinterpret_cast<Link*>(state);
  link->image.assign(kImageMagic, sizeof kImageMagic);
  absl::StrAppend(&link->image, stackcheck::libcuda::FormatPtxDeclarations(link->symbols));
  *image = link->image.data();
  if (size) *size = link->image.size();
  LogDriverCall("cuLinkComplete", absl::StrCat("(", link->inputs, " PTX inputs) -> 0"));
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuLinkDestroy(CUlinkState state) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  delete reinterpret_cast<Link*>(state);
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (module == nullptr || image == nullptr) return Code(CuResult::kInvalidValue);
  const char* text = static_cast<const char*>(image);
  std::size_t size = 0;
  if (std::memcmp(text, kImageMagic, sizeof kImageMagic) == 0) {
    size = sizeof kImageMagic + std::strlen(text + sizeof kImageMagic);
  } else {
    size = std::strlen(text);
  }
  return LoadModule(module, absl::string_view(text, size), Symbol(DriverCall::kModuleLoad));
}

STACKCHECK_CUDA_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* path) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (module == nullptr || path == nullptr) return Code(CuResult::kInvalidValue);
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return Code(CuResult::kNotFound);
  std::string text;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return LoadModule(module, text, "cuModuleLoad");
}

STACKCHECK_CUDA_EXPORT CUresult cuModuleUnload(CUmodule handle) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (handle == nullptr) return Code(CuResult::kInvalidHandle);
  auto* m = reinterpret_cast<Module*>(handle);
  const CuResult r = RunOnDevice([&](Device& d) {
    CuResult r = d.ModuleUnload(m->sim);
    if (r != CuResult::kSuccess) return r;
    for (const auto& [name, global] : m->globals) {
      if (global.first != 0 && d.MemFree(global.first) == CuResult::kSuccess) {
        DropBlock(global.first);
      }
    }
    return r;
  });
  LogDriverCall(Symbol(DriverCall::kModuleUnload), absl::StrCat(" -> ", Name(r)));
  if (r == CuResult::kSuccess) delete m;
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule handle,
                                                    const char* name) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (function == nullptr || handle == nullptr || name == nullptr) {
    return Code(CuResult::kInvalidValue);
  }
  auto* m = reinterpret_cast<Module*>(handle);
  const stackcheck::libcuda::PtxKernel* kernel = nullptr;
  for (const auto& k : m->symbols.kernels) {
    if (k.name == name) kernel = &k;
  }
  stackcheck::FunctionHandle sim{};
  // Every entry is the simulator's OpenMP-shaped region kernel; for a name
  // the module does not declare the SimDevice is asked for the empty name, so
  // it answers with its admission error or NOT_FOUND.
  const CuResult r = RunOnDevice([&](Device& d) {
    return d.ModuleGetFunction(&sim, m->sim,
                               kernel ? stackcheck::kRegionKernel : absl::string_view());
  });
  LogDriverCall(Symbol(DriverCall::kModuleGetFunction),
                absl::StrCat("(\"", name, "\") -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  auto& slot = m->functions[name];
  if (!slot) {
    slot = std::make_unique<Function>();
    slot->name = name;
    slot->param_sizes = kernel->param_sizes;
    slot->sim = sim;
    slot->host = stackcheck::program::HostFunctionOf(name);
  }
  *function = reinterpret_cast<CUfunction>(slot.get());
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr* ptr, std::size_t* bytes,
                                                     CUmodule handle, const char* name) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (handle == nullptr || name == nullptr) return Code(CuResult::kInvalidValue);
  auto* m = reinterpret_cast<Module*>(handle);
  // The sticky error first (SEM-05: module calls fail with it too).
  CuResult r = RunOnDevice([](Device& d) {
    auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d);
    return sim ? sim->sticky() : CuResult::kSuccess;
  });
  auto it = m->globals.find(name);
  if (r == CuResult::kSuccess && it == m->globals.end()) r = CuResult::kNotFound;
  LogDriverCall("cuModuleGetGlobal_v2", absl::StrCat("(\"", name, "\") -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  if (ptr) *ptr = it->second.first;
  if (bytes) *bytes = it->second.second;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (value == nullptr || function == nullptr) return Code(CuResult::kInvalidValue);
  // 64 registers per thread: with the device attributes above, the plugin's
  // default geometry is then 528 teams x 8 warps, what it chose on the H200
  // (docs/cuda-semantics.md, costs table).
  switch (attribute) {
    case kFuncMaxThreadsPerBlock:
      *value = 1024;
      break;
    case kFuncNumRegs:
      *value = 64;
      break;
    default:
      *value = 0;
      break;
  }
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size,
                                                                 CUfunction function, void*,
                                                                 std::size_t,
                                                                 int block_size_limit) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (min_grid == nullptr || block_size == nullptr || function == nullptr) {
    return Code(CuResult::kInvalidValue);
  }
  // 32 registers per thread leave room for two 1024-thread blocks per SM.
  *block_size = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
  *min_grid = 132 * (2048 / *block_size);
  return 0;
}

}  // namespace stackcheck::libcuda
