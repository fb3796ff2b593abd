// Experiment behind hardware/VALIDATION.md: where event-fence's
// extra ~0.5-1 us per launch at 528 x 8 comes from. completion_cost.cu timed the
// completion write through the runtime API, whose ~5.3 us per launch hides
// GPU-side cost; this one launches with the driver API (cuLaunchKernel, as
// `bench launch` does, ~3.5 us per launch: close to what 528 blocks take on the
// GPU, so a longer kernel tail shows) and varies the tail one thing at a time,
// interleaved, with the stack stamping of the real kernel. Stand-alone:
//   nvcc -O2 -arch=sm_90 -o completion_tail completion_tail.cu -lcuda && ./completion_tail
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

enum Tail : int {
  kBaseline = 0,      // warps-checked reduction only (launch-only's kernel)
  kCurrent,           // + atomicInc next to it (same line) + system fence + word
  kSeparateLine,      // the counter on its own 128-byte line, fence, word
  kSeparateNoFence,   // own line, no system fence before the word
  kSameLineNoFence,   // same line, no fence
  kCountOnly,         // own line, atomicInc only, no word
  kWordFromBlock0,    // no counter: block 0 writes the word (a lower bound)
  kMergedNoFence,     // one returning atomic counts blocks and warps; word
  kMergedCountOnly,   // the same, no word
  kTreeNoFence,       // 16 group counters, then a top counter; word
  kTails
};
const char* kNames[kTails] = {
    "baseline (warps-checked only)", "counter same line + fence + word",
    "counter own line + fence + word", "counter own line + word (no fence)",
    "counter same line + word (no fence)", "counter own line, no word",
    "word from block 0, no counter", "merged counter + word (no fence)",
    "merged counter, no word", "two-level counter + word (no fence)"};

__global__ void region(unsigned long long stacks, unsigned long long size,
                       int tail, unsigned long long* checked,
                       unsigned* counter, unsigned* word, unsigned value) {
  const unsigned warp = blockIdx.x * blockDim.y + threadIdx.y;
  const bool leader = threadIdx.x == 0;
  const bool block_leader = leader && threadIdx.y == 0;
  volatile unsigned long long* low = nullptr;
  volatile unsigned long long* high = nullptr;
  const unsigned long long stamp = (1ull << 32) | warp;
  if (leader) {
    low = reinterpret_cast<volatile unsigned long long*>(stacks + size * warp);
    high = reinterpret_cast<volatile unsigned long long*>(stacks + size * (warp + 1) - 8);
    *low = stamp;
    *high = stamp;
    __threadfence();
  }
  __shared__ unsigned in_block;
  if (block_leader) in_block = 0;
  __syncthreads();
  if (leader) {
    if (*low == stamp && *high == stamp) atomicAdd(&in_block, 1u);
  }
  __syncthreads();
  const unsigned blocks = gridDim.x;
  if (block_leader && (tail == kMergedNoFence || tail == kMergedCountOnly)) {
    // Low 32 bits: blocks of this kernel done; high: warps checked, ever.
    unsigned long long* merged = checked + 8;
    const unsigned long long old =
        atomicAdd(merged, (static_cast<unsigned long long>(in_block) << 32) | 1);
    if ((old & 0xffffffffu) == blocks - 1) {
      atomicAdd(merged, 0ull - blocks);  // no borrow: the low half is `blocks`
      if (tail == kMergedNoFence) *reinterpret_cast<volatile unsigned*>(word) = value;
    }
    return;
  }
  if (block_leader) atomicAdd(checked, in_block);
  if (!block_leader || tail == kBaseline) return;
  if (tail == kTreeNoFence) {
    const unsigned groups = blocks < 16 ? blocks : 16;
    const unsigned g = blockIdx.x % groups;
    const unsigned in_group = blocks / groups + (g < blocks % groups ? 1 : 0);
    if (atomicInc(counter + 32 * (g + 1), in_group - 1) == in_group - 1 &&
        atomicInc(counter, groups - 1) == groups - 1) {
      *reinterpret_cast<volatile unsigned*>(word) = value;
    }
    return;
  }
  if (tail == kWordFromBlock0) {
    if (blockIdx.x == 0) *reinterpret_cast<volatile unsigned*>(word) = value;
    return;
  }
  if (atomicInc(counter, blocks - 1) == blocks - 1) {
    if (tail == kCountOnly) return;
    if (tail == kCurrent || tail == kSeparateLine) __threadfence_system();
    *reinterpret_cast<volatile unsigned*>(word) = value;
  }
}

#define CHECK(x)                                                           \
  do {                                                                     \
    CUresult r_ = (x);                                                     \
    if (r_ != CUDA_SUCCESS) {                                              \
      std::printf("%s failed: %d (line %d)\n", #x, r_, __LINE__);          \
      return 1;                                                            \
    }                                                                      \
  } while (0)

int main() {
  cudaFree(0);  // the primary context, current on this thread
  CUfunction f;
  if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(region)) != cudaSuccess) {
    std::printf("cudaGetFuncBySymbol failed\n");
    return 1;
  }
  const unsigned long long size = 128 * 1024;  // kDefaultStackSizePerWarp
  const unsigned warps = 8;
  CUdeviceptr stacks, counters;
  CHECK(cuMemAlloc(&stacks, size * 528 * warps));
  CHECK(cuMemAlloc(&counters, 8192));
  CHECK(cuMemsetD8(counters, 0, 8192));
  unsigned* word;
  if (cudaHostAlloc(&word, 64, cudaHostAllocMapped) != cudaSuccess) return 1;
  unsigned* word_dev;
  cudaHostGetDevicePointer(&word_dev, word, 0);
  auto* checked = reinterpret_cast<unsigned long long*>(counters);
  auto* same_line = reinterpret_cast<unsigned*>(counters + 8);
  auto* own_line = reinterpret_cast<unsigned*>(counters + 512);
  auto* tree = reinterpret_cast<unsigned*>(counters + 1024);
  unsigned value = 0;
  const int kLaunches = 1000, kRounds = 9;
  for (unsigned teams : {8u, 528u}) {
    std::vector<double> us[kTails];
    for (int round = 0; round < kRounds; ++round) {
      for (int tail = 0; tail < kTails; ++tail) {
        unsigned* counter =
            (tail == kCurrent || tail == kSameLineNoFence) ? same_line
            : tail == kTreeNoFence                          ? tree
                                                            : own_line;
        CHECK(cuCtxSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kLaunches; ++i) {
          ++value;
          void* args[] = {&stacks, const_cast<unsigned long long*>(&size), &tail,
                          &checked, &counter, &word_dev, &value};
          CHECK(cuLaunchKernel(f, teams, 1, 1, 32, warps, 1, 0, nullptr, args, nullptr));
        }
        CHECK(cuCtxSynchronize());
        const auto t1 = std::chrono::steady_clock::now();
        us[tail].push_back(
            std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches);
      }
    }
    const double base = [&] {
      auto v = us[kBaseline];
      std::sort(v.begin(), v.end());
      return v[kRounds / 2];
    }();
    for (int tail = 0; tail < kTails; ++tail) {
      std::sort(us[tail].begin(), us[tail].end());
      const double median = us[tail][kRounds / 2];
      std::printf("tail %3ux%u %-38s median %.2f us  min %.2f us  %+5.1f%%\n", teams,
                  warps, kNames[tail], median, us[tail][0], 100 * (median / base - 1));
    }
  }
  std::printf("word %u (last value %u)\n", *word, value);
  return 0;
}
