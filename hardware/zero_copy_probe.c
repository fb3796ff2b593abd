// What the driver does with a copy of 0 bytes into a live block, as libgomp
// makes one for a zero-length array section (the simulator's rule,
// sim/sim_device.cc's Copy): prints each call's result.
//   gcc zero_copy_probe.c -I/usr/local/cuda/include -lcuda && ./a.out
#include <cuda.h>
#include <stdio.h>

int main(void) {
  CUdevice device;
  CUcontext context;
  CUdeviceptr block;
  char byte = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS || cuMemAlloc(&block, 7) != CUDA_SUCCESS) {
    puts("no device");
    return 2;
  }
  printf("cuMemcpyHtoD 0 bytes at the block: %d\n", (int)cuMemcpyHtoD(block, &byte, 0));
  printf("cuMemcpyHtoD 0 bytes at its end: %d\n", (int)cuMemcpyHtoD(block + 7, &byte, 0));
  printf("cuMemcpyDtoH 0 bytes at the block: %d\n", (int)cuMemcpyDtoH(&byte, block, 0));
  printf("cuMemcpyHtoD 0 bytes at no block: %d\n", (int)cuMemcpyHtoD(0x1000, &byte, 0));
  cuMemFree(block);
  cuDevicePrimaryCtxRelease(device);
  return 0;
}
