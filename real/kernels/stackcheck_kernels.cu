// The kernels of the "stackcheck" image (core/device.h names them).
//
// omp_region is shaped like a libgomp OpenMP target kernel: grid (teams,1,1),
// block (32, warps, 1), each warp owning one soft-stack slot of the block the
// host passes in. To make overlap, reuse and free-while-running visible on real
// hardware, lane 0 of every warp stamps its slot's two ends with a word naming
// (region tag, warp), keeps re-reading them while it "works" for duration_ns,
// and counts a corruption if another kernel overwrote either end. The count,
// and the first bad word seen, go to a host-mapped report the host can read
// even after the context is poisoned.
//
// Warps that completed their final check are counted per block in shared
// memory and then once per block in a device-memory counter the host passes
// in, so the count costs next to nothing in the launch-cost benchmark's tiny
// kernel.
//
// With a completion word (EXT-02), the last block to finish writes the
// completion value into that host-mapped word. A counter in device memory,
// bumped once per block after all its warps are done, names the last one; it
// is the same returning atomic that adds the block's checked warps (its high
// half), so a block pays one atomic either way. A trapping block never
// counts, so a kernel that traps never writes. This is the kernel's critical
// path at default geometry, where 528 blocks take about as long on the GPU as
// a launch takes on the host, so the tail is kept to one atomic per block
// (real/experiments/completion_tail.cu compares the variants; figures in
// hardware/VALIDATION.md).
//
// ctor_dtor stands for device global constructors/destructors: the same body,
// launched by the runtime with one warp.
#include <cstdint>

namespace {

// Layout of the host-mapped report (embedded_kernels.h mirrors it).
enum ReportSlot : int {
  kCorruptions = 0,    // warps that found a stamp not theirs
  kExpected = 1,       // the stamp such a warp wrote (first corruption)
  kObserved = 2,       // what it found instead
};

enum Action : unsigned int { kRun = 0, kTrap = 1 };

__device__ __forceinline__ unsigned long long GlobalTimerNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ bool SlotIntact(volatile unsigned long long* low,
                                           volatile unsigned long long* high,
                                           unsigned long long stamp,
                                           unsigned long long* seen) {
  const unsigned long long a = *low;
  const unsigned long long b = *high;
  *seen = a != stamp ? a : b;
  return a == stamp && b == stamp;
}

__device__ void RegionBody(unsigned long long stacks,
                           unsigned long long stack_size_per_warp,
                           unsigned int region_tag,
                           unsigned long long duration_ns, unsigned int action,
                           unsigned long long* report,
                           unsigned long long* warps_checked,
                           unsigned int* completion_word,
                           unsigned int completion_value,
                           unsigned long long* completion_counter) {
  const unsigned int warp = blockIdx.x * blockDim.y + threadIdx.y;
  const bool leader = threadIdx.x == 0;
  const bool has_slot = stacks != 0 && stack_size_per_warp >= 16;
  const unsigned long long stamp =
      (static_cast<unsigned long long>(region_tag) << 32) | warp;

  // The slot of warp w spans [base + size*w, base + size*(w+1)); libgomp's
  // stack grows down from its top end.
  volatile unsigned long long* low = nullptr;
  volatile unsigned long long* high = nullptr;
  if (leader && has_slot) {
    const unsigned long long begin = stacks + stack_size_per_warp * warp;
    low = reinterpret_cast<volatile unsigned long long*>(begin);
    high = reinterpret_cast<volatile unsigned long long*>(
        begin + stack_size_per_warp - sizeof(unsigned long long));
    *low = stamp;
    *high = stamp;
    __threadfence();
  }
  if (action == kTrap) {
    // An aborting region works for its duration before it aborts, as the
    // simulator's aborting kernel does (it ends with the trap code at its
    // duration): a counterexample that needs the kernel still running while
    // another thread acts is then steered by stretching the duration.
    const unsigned long long start = GlobalTimerNs();
    while (GlobalTimerNs() - start < duration_ns) __nanosleep(256);
    __trap();  // what abort() in offloaded code becomes (SEM-04)
  }

  __shared__ unsigned int checked_in_block;
  const bool block_leader = threadIdx.x == 0 && threadIdx.y == 0;
  if (block_leader) checked_in_block = 0;
  __syncthreads();

  if (leader) {
    bool corrupted = false;
    unsigned long long seen = stamp;
    const unsigned long long start = GlobalTimerNs();
    while (GlobalTimerNs() - start < duration_ns) {
      if (has_slot && !SlotIntact(low, high, stamp, &seen)) {
        corrupted = true;
        break;
      }
      __nanosleep(256);
    }
    if (has_slot && !corrupted) {
      corrupted = !SlotIntact(low, high, stamp, &seen);
    }
    if (corrupted && report != nullptr) {
      if (atomicAdd(&report[kCorruptions], 1ULL) == 0) {
        report[kExpected] = stamp;
        report[kObserved] = seen;
      }
      __threadfence_system();
    }
    atomicAdd(&checked_in_block, 1u);
  }
  __syncthreads();
  if (block_leader && completion_word != nullptr) {
    // Kernels carrying a completion word run one at a time (core/device.h),
    // so one counter serves them all: its low half counts this kernel's
    // blocks, and the last block takes them back out (no borrow: the low half
    // is then exactly `blocks`); its high half accumulates checked warps.
    // No fence before the word: it says that every block got past its work,
    // not that the kernel's stores are visible (the stream's completion
    // orders those for later work), and a system fence there would lengthen
    // every launch at default geometry.
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned long long before = atomicAdd(
        completion_counter,
        (static_cast<unsigned long long>(checked_in_block) << 32) | 1ULL);
    if ((before & 0xffffffffULL) == blocks - 1) {
      atomicAdd(completion_counter, 0ULL - blocks);
      *reinterpret_cast<volatile unsigned int*>(completion_word) =
          completion_value;
    }
  } else if (block_leader && warps_checked != nullptr) {
    atomicAdd(warps_checked, checked_in_block);
  }
}

}  // namespace

extern "C" __global__ void omp_region(unsigned long long stacks,
                                      unsigned long long stack_size_per_warp,
                                      unsigned int region_tag,
                                      unsigned long long duration_ns,
                                      unsigned int action,
                                      unsigned long long* report,
                                      unsigned long long* warps_checked,
                                      unsigned int* completion_word,
                                      unsigned int completion_value,
                                      unsigned long long* completion_counter) {
  RegionBody(stacks, stack_size_per_warp, region_tag, duration_ns, action,
             report, warps_checked, completion_word, completion_value,
             completion_counter);
}

extern "C" __global__ void ctor_dtor__mgomp(unsigned long long stacks,
                                     unsigned long long stack_size_per_warp,
                                     unsigned int region_tag,
                                     unsigned long long duration_ns,
                                     unsigned int action,
                                     unsigned long long* report,
                                     unsigned long long* warps_checked,
                                     unsigned int* completion_word,
                                     unsigned int completion_value,
                                     unsigned long long* completion_counter) {
  RegionBody(stacks, stack_size_per_warp, region_tag, duration_ns, action,
             report, warps_checked, completion_word, completion_value,
             completion_counter);
}
