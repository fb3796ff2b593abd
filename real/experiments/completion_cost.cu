// Experiment behind hardware/VALIDATION.md: the GPU-side cost of a
// last-block-done completion write (EXT-02) on back-to-back tiny kernels, measured
// interleaved with the same kernel without it. Stand-alone (the build only compiles it):
//   nvcc -O2 -arch=sm_90 -o completion_cost completion_cost.cu && ./completion_cost
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>

__global__ void k(int mode, unsigned long long* checked, unsigned* count, unsigned* word, unsigned value) {
  __shared__ unsigned in_block;
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  if (leader) in_block = 0;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&in_block, 1u);
  __syncthreads();
  if (leader) atomicAdd(checked, in_block);
  if (mode == 0 || !leader) return;
  const unsigned blocks = gridDim.x;
  if (mode == 1) __threadfence();
  if (atomicInc(count, blocks - 1) == blocks - 1) {
    __threadfence_system();
    *reinterpret_cast<volatile unsigned*>(word) = value;
  }
}

int main() {
  cudaFree(0);
  unsigned long long* checked; cudaMalloc(&checked, 8);
  unsigned* count; cudaMalloc(&count, 4); cudaMemset(count, 0, 4);
  unsigned* word; cudaHostAlloc(&word, 64, cudaHostAllocMapped);
  const char* names[] = {"baseline (warps-checked atomic)", "+ fence + atomicInc + word", "+ atomicInc + word (no fence)"};
  for (int teams : {8, 528}) {
    std::vector<double> r[3];
    for (int round = 0; round < 7; ++round) {
      for (int mode = 0; mode < 3; ++mode) {
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 1000; ++i) k<<<teams, dim3(32, 8)>>>(mode, checked, count, word, i + 1);
        cudaDeviceSynchronize();
        auto t1 = std::chrono::steady_clock::now();
        r[mode].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 1000);
      }
    }
    for (int mode = 0; mode < 3; ++mode) {
      std::sort(r[mode].begin(), r[mode].end());
      printf("%3dx8 %-34s median %.2f us  min %.2f us\n", teams, names[mode], r[mode][3], r[mode][0]);
    }
  }
  printf("word %u, err %s\n", *word, cudaGetErrorString(cudaGetLastError()));
}
