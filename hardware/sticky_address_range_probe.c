// What the driver answers after a kernel traps, for the calls GCC 12.2's
// nvptx plugin makes before a copy: GOMP_OFFLOAD_host2dev and
// GOMP_OFFLOAD_dev2host check the device pointer with cuMemGetAddressRange
// first, so which call reports the sticky error (719) decides the message a
// thread copying beside a trapped kernel prints ("cuMemGetAddressRange
// error" or "cuMemcpyHtoD_v2 error"). The simulated libcuda follows what
// this prints (sim/libcuda/libcuda.cc, cuMemGetAddressRange_v2).
//   gcc sticky_address_range_probe.c -I/usr/local/cuda/include -lcuda && ./a.out
#include <cuda.h>
#include <stdio.h>

static const char kTrapPtx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry trap_kernel()\n"
    "{\n"
    "  trap;\n"
    "  ret;\n"
    "}\n";

int main(void) {
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction trap;
  CUdeviceptr block, base = 0;
  size_t size = 0;
  char byte = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      cuModuleLoadData(&module, kTrapPtx) != CUDA_SUCCESS ||
      cuModuleGetFunction(&trap, module, "trap_kernel") != CUDA_SUCCESS ||
      cuMemAlloc(&block, 64) != CUDA_SUCCESS) {
    puts("no device");
    return 2;
  }
  printf("before the trap: cuMemGetAddressRange %d\n",
         (int)cuMemGetAddressRange(&base, &size, block + 8));
  printf("trap launch: %d\n", (int)cuLaunchKernel(trap, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
  printf("cuCtxSynchronize: %d\n", (int)cuCtxSynchronize());
  base = 0;
  size = 0;
  const CUresult range = cuMemGetAddressRange(&base, &size, block + 8);
  printf("after the trap: cuMemGetAddressRange %d (base %s, size %zu)\n", (int)range,
         base == block ? "the block" : "not the block", size);
  printf("after the trap: cuMemGetAddressRange of no block %d\n",
         (int)cuMemGetAddressRange(&base, &size, (CUdeviceptr)0x1000));
  printf("after the trap: cuMemcpyHtoD %d\n", (int)cuMemcpyHtoD(block, &byte, 1));
  printf("after the trap: cuMemcpyDtoH %d\n", (int)cuMemcpyDtoH(&byte, block, 1));
  printf("after the trap: cuMemAlloc %d\n", (int)cuMemAlloc(&base, 64));
  printf("after the trap: cuMemFree %d\n", (int)cuMemFree(block));
  printf("after the trap: cuDevicePrimaryCtxRelease %d\n", (int)cuDevicePrimaryCtxRelease(device));
  return 0;
}
