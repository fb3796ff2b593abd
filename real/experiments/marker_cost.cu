// Experiment behind hardware/VALIDATION.md: the per-launch host cost of
// each stream-ordered completion marker a runtime could queue behind a kernel.
// Stand-alone (CUDA runtime + driver API; the build only compiles it):
//   nvcc -O2 -arch=sm_90 -o marker_cost marker_cost.cu -lcuda && ./marker_cost
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>

__global__ void tiny(char* stacks) {
  if (stacks && threadIdx.x == 0) stacks[blockIdx.x * 8 * 131072 + threadIdx.y * 131072] = 1;
}

typedef CUresult (*WriteV1)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

int main() {
  cudaFree(0);
  CUdevice dev; cuDeviceGet(&dev, 0);
  int v1 = -1;
  cuDeviceGetAttribute(&v1, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev);
  printf("CAN_USE_STREAM_MEM_OPS_V1=%d\n", v1);
  char* stacks; cudaMalloc(&stacks, 528ull * 8 * 131072);
  unsigned* word; cudaHostAlloc(&word, 64, cudaHostAllocMapped | cudaHostAllocPortable);
  unsigned* dword; cudaMalloc(&dword, 64);
  cudaEvent_t ev; cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  WriteV1 wv1 = nullptr; CUdriverProcAddressQueryResult q;
  CUresult gr = cuGetProcAddress("cuStreamWriteValue32", (void**)&wv1, 11000, CU_GET_PROC_ADDRESS_DEFAULT, &q);
  printf("v1 proc: r=%d q=%d ptr=%p\n", gr, q, (void*)wv1);
  CUstream legacy = CU_STREAM_LEGACY;
  const char* names[] = {"launch only", "+ cuEventRecord", "+ WriteValue32 v2 host", "+ WriteValue32 v2 device word",
                         "+ WriteValue32 v1 NO_BARRIER host", "+ MemsetD32Async host"};
  for (int geo = 0; geo < 2; ++geo) {
    int teams = geo ? 528 : 8;
    for (int m = 0; m < 6; ++m) {
      std::vector<double> reps;
      bool fail = false;
      for (int rep = 0; rep < 5; ++rep) {
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 1000; ++i) {
          tiny<<<teams, dim3(32, 8), 0, 0>>>(stacks);
          CUresult r = CUDA_SUCCESS;
          switch (m) {
            case 1: r = (CUresult)cudaEventRecord(ev, 0); break;
            case 2: r = cuStreamWriteValue32(legacy, (CUdeviceptr)word, i, 0); break;
            case 3: r = cuStreamWriteValue32(legacy, (CUdeviceptr)dword, i, 0); break;
            case 4: r = wv1 ? wv1(legacy, (CUdeviceptr)word, i, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) : CUDA_ERROR_NOT_FOUND; break;
            case 5: r = cuMemsetD32Async((CUdeviceptr)word, i, 1, legacy); break;
          }
          if (r != CUDA_SUCCESS) { if (!fail) printf("  mode %d: error %d\n", m, r); fail = true; break; }
        }
        cudaDeviceSynchronize();
        auto t1 = std::chrono::steady_clock::now();
        reps.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 1000);
        if (fail) break;
      }
      std::sort(reps.begin(), reps.end());
      printf("%dx8 %-36s %.2f us (min %.2f)%s\n", teams, names[m], reps[reps.size()/2], reps[0], fail ? " FAILED" : "");
    }
  }
  printf("word=%u last err=%s\n", *word, cudaGetErrorString(cudaGetLastError()));
}
