#include "sim/libcuda/driver_state.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace stackcheck::libcuda {

std::string Name(CuResult r) {
  return absl::StrCat(static_cast<int>(r), " ", stackcheck::CuResultName(r));
}

CUresult NotImplemented(const char* name) {
  std::fprintf(stderr,
               "stackcheck libcuda: %s is not implemented by the simulator; "
               "returning CUDA_ERROR_NOT_SUPPORTED\n",
               name);
  LogDriverCall(name, " -> not implemented");
  return Code(CuResult::kNotSupported);
}

// The tables are never destroyed: a program's other threads may still call
// the driver while one thread's exit runs the exit handlers, static
// destructors among them (what glibc does, no-concurrent-exit aside).
std::mutex g_mu;  // guards the tables below (not the device: the bridge does)
std::map<DevicePtr, Shadow>& g_blocks = *new std::map<DevicePtr, Shadow>;
// The device variables of loaded modules paired with the program's host
// variables, by the device block.
std::map<DevicePtr, stackcheck::program::HostVariable>& g_paired =
    *new std::map<DevicePtr, stackcheck::program::HostVariable>;

// A block holding [ptr, ptr + bytes); nullptr if none.
Shadow* FindBlock(DevicePtr ptr, std::uint64_t bytes, DevicePtr* base) {
  auto it = g_blocks.upper_bound(ptr);
  if (it == g_blocks.begin()) return nullptr;
  --it;
  if (ptr - it->first > it->second.bytes || bytes > it->second.bytes - (ptr - it->first)) {
    return nullptr;
  }
  if (bytes == 0 && ptr - it->first == it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

namespace {

constexpr std::uint64_t kPage = 4096;
std::uint64_t PageRounded(std::uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

// Memory for a block at its device address. The SimDevice's addresses
// (from FirstDeviceAddress() up, a TiB per actor, 2 MiB granules) lie below where Linux
// places a program, its heap and its libraries, and are never reused within
// an execution. Fresh anonymous pages cost nothing until touched. Where the
// address is taken anyway (or not page-aligned: a granularity under a page),
// the block lives on the heap and a kernel that needs it cannot run.
Shadow MapBlock(DevicePtr ptr, std::uint64_t bytes) {
  if (ptr % kPage == 0) {
    void* want = reinterpret_cast<void*>(ptr);
    void* got = mmap(want, PageRounded(bytes), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want)
      return Shadow{bytes, static_cast<unsigned char*>(got), Shadow::Backing::kAtAddress};
    if (got != MAP_FAILED) munmap(got, PageRounded(bytes));  // a kernel without NOREPLACE
  }
  // calloc of a large block maps fresh zero pages: no memory until touched.
  return Shadow{bytes, static_cast<unsigned char*>(std::calloc(1, bytes)), Shadow::Backing::kHeap};
}

void Release(Shadow& shadow) {
  switch (shadow.backing) {
    case Shadow::Backing::kAtAddress:
      munmap(shadow.data, PageRounded(shadow.bytes));
      break;
    case Shadow::Backing::kHeap:
      std::free(shadow.data);
      break;
  }
}

}  // namespace

CuResult AllocateBlock(Device& d, DevicePtr* ptr, std::uint64_t bytes) {
  const CuResult r = d.MemAlloc(ptr, bytes);
  if (r != CuResult::kSuccess) return r;
  Shadow shadow = MapBlock(*ptr, bytes);
  if (shadow.data == nullptr) {
    d.MemFree(*ptr);
    return CuResult::kOutOfMemory;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_blocks[*ptr] = shadow;
  return r;
}

void DropBlock(DevicePtr ptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_blocks.find(ptr);
  if (it == g_blocks.end()) return;
  g_paired.erase(ptr);
  Release(it->second);
  g_blocks.erase(it);
}

void DropAllBlocks() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& [base, shadow] : g_blocks) Release(shadow);
  g_blocks.clear();
  g_paired.clear();
}

bool AddressableAt(DevicePtr ptr) {
  if (ptr == 0) return true;
  std::lock_guard<std::mutex> lock(g_mu);
  const Shadow* block = FindBlock(ptr, 0);
  return block != nullptr && block->backing != Shadow::Backing::kHeap;
}

}  // namespace stackcheck::libcuda
