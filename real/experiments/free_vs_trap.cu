// Experiment behind hardware/VALIDATION.md (SEM-11): does a cuMemFree that
// waits for a running kernel return at the kernel's trap, with the sticky
// error, as a synchronous copy does (SEM-14)?
// Stand-alone (CUDA runtime + driver API; the build only compiles it):
//   nvcc -O2 -arch=sm_90 -o free_vs_trap free_vs_trap.cu -lcuda && ./free_vs_trap
#include <cuda.h>
#include <chrono>
#include <cstdio>

__global__ void spin_then_trap(long long ns, int trap) {
  long long start = clock64();
  // ~1.98 GHz: cycles ~ ns * 2
  while (clock64() - start < ns * 2) {}
  if (trap) __trap();
}

static const char* Name(CUresult r) { const char* s = nullptr; cuGetErrorName(r, &s); return s ? s : "?"; }

int main() {
  cuInit(0);
  CUdevice dev; cuDeviceGet(&dev, 0);
  CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
  for (int trap = 0; trap <= 1; ++trap) {
    CUdeviceptr block = 0;
    CUresult a = cuMemAlloc(&block, 1 << 20);
    spin_then_trap<<<1, 32>>>(300000000LL, trap);  // 300 ms
    auto t0 = std::chrono::steady_clock::now();
    CUresult f = cuMemFree(block);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CUresult s = cuCtxSynchronize();
    std::printf("trap=%d alloc=%s cuMemFree -> %s after %.1f ms; then cuCtxSynchronize -> %s\n",
                trap, Name(a), Name(f), ms, Name(s));
    if (trap) break;
  }
  return 0;
}
