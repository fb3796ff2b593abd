#include "sim/program/offload_images.h"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>

#include "sim/program/entry_point.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

// libgomp's device type for nvptx images (gomp-constants.h).
constexpr int kDeviceNvidiaPtx = 5;

// mkoffload's nvptx target data (GCC 12, gcc/config/nvptx/mkoffload.cc):
// the PTX objects, the variable names, the kernels with their launch
// dimensions. Only the names are read here.
struct NvptxFunctionName {
  const char* name;
  unsigned short dim[3];
};
struct NvptxTargetData {
  const void* ptx_objects;
  unsigned ptx_count;
  const char* const* variable_names;
  unsigned variable_count;
  const NvptxFunctionName* function_names;
  unsigned function_count;
};

struct Images {
  std::mutex mu;
  std::map<std::string, HostFunction, std::less<>> functions;
  std::map<std::string, HostVariable, std::less<>> variables;
};

Images& TheImages() {
  static auto* images = new Images;  // program threads may look up during exit
  return *images;
}

}  // namespace

void RecordImage(const void* host_table, const void* target_data) {
  if (host_table == nullptr || target_data == nullptr) return;
  // libgomp's host table: [functions, functions end, variables, variables end];
  // a variable is two words, its address and its size (the top bit: link).
  auto* const* table = static_cast<void* const* const*>(host_table);
  void* const* functions = table[0];
  void* const* functions_end = table[1];
  void* const* variables = table[2];
  void* const* variables_end = table[3];
  const auto* data = static_cast<const NvptxTargetData*>(target_data);
  const auto host_functions = static_cast<unsigned>(functions_end - functions);
  const auto host_variables = static_cast<unsigned>((variables_end - variables) / 2);
  constexpr std::uint64_t kLinkBit = std::uint64_t{1} << 63;

  Images& images = TheImages();
  std::lock_guard<std::mutex> lock(images.mu);
  // libgomp refuses an image whose counts differ (gomp_load_image_to_device);
  // pair what both sides have.
  for (unsigned i = 0; i < data->function_count && i < host_functions; ++i) {
    if (data->function_names[i].name == nullptr) continue;
    images.functions[data->function_names[i].name] = reinterpret_cast<HostFunction>(functions[i]);
  }
  for (unsigned i = 0; i < data->variable_count && i < host_variables; ++i) {
    if (data->variable_names[i] == nullptr) continue;
    const auto size = reinterpret_cast<std::uintptr_t>(variables[2 * i + 1]);
    images.variables[data->variable_names[i]] =
        HostVariable{variables[2 * i], size & ~kLinkBit, (size & kLinkBit) != 0};
  }
}

HostFunction HostFunctionOf(absl::string_view kernel) {
  Images& images = TheImages();
  std::lock_guard<std::mutex> lock(images.mu);
  auto it = images.functions.find(kernel);
  return it == images.functions.end() ? nullptr : it->second;
}

std::optional<HostVariable> HostVariableOf(absl::string_view name) {
  Images& images = TheImages();
  std::lock_guard<std::mutex> lock(images.mu);
  auto it = images.variables.find(name);
  if (it == images.variables.end()) return std::nullopt;
  return it->second;
}

}  // namespace stackcheck::program

extern "C" STACKCHECK_ENTRY_POINT void GOMP_offload_register_ver(unsigned version,
                                                                 const void* host_table,
                                                                 int target_type,
                                                                 const void* target_data) {
  using F = void (*)(unsigned, const void*, int, const void*);
  static F next = reinterpret_cast<F>(
      stackcheck::program::Real().dlsym(RTLD_NEXT, "GOMP_offload_register_ver"));
  if (target_type == stackcheck::program::kDeviceNvidiaPtx) {
    stackcheck::program::RecordImage(host_table, target_data);
  }
  if (next != nullptr) next(version, host_table, target_type, target_data);
}
