// What the driver answers after a kernel traps, for the calls GCC 12.2's
// nvptx plugin makes before a copy: GOMP_OFFLOAD_host2dev and
// GOMP_OFFLOAD_dev2host check the device pointer with cuMemGetAddressRange
// first, so which call reports the sticky error (719) decides the message a
// thread copying beside a trapped kernel prints ("cuMemGetAddressRange
// error" or "cuMemcpyHtoD_v2 error"). The simulated libcuda follows what
// this prints (sim/libcuda/libcuda.cc, cuMemGetAddressRange_v2).
//
// `./a.out` asks after cuCtxSynchronize has returned the error. `./a.out
// sleep CALL` makes CALL 200 ms after the trap's launch, before any call has
// waited for the kernel or asked about it (does the driver know of the trap
// before a call looks?), then asks cuMemGetAddressRange, then synchronises.
// CALL: range, info, alloc, free, function, launch, query, htod.
//   gcc sticky_address_range_probe.c -I/usr/local/cuda/include -lcuda && ./a.out [sleep CALL]
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char kTrapPtx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry trap_kernel()\n"
    "{\n"
    "  trap;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry empty_kernel()\n"
    "{\n"
    "  ret;\n"
    "}\n";

// The first call after the trap, by name: its result.
static CUresult first_call(const char* call, CUmodule module, CUfunction empty, CUdeviceptr block) {
  CUdeviceptr base = 0;
  size_t a = 0, b = 0;
  CUfunction function;
  char byte = 0;
  if (strcmp(call, "range") == 0) return cuMemGetAddressRange(&base, &a, block + 8);
  if (strcmp(call, "info") == 0) return cuMemGetInfo(&a, &b);
  if (strcmp(call, "alloc") == 0) return cuMemAlloc(&base, 64);
  if (strcmp(call, "free") == 0) return cuMemFree(block);
  if (strcmp(call, "function") == 0) return cuModuleGetFunction(&function, module, "empty_kernel");
  if (strcmp(call, "launch") == 0) return cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0);
  if (strcmp(call, "query") == 0) return cuStreamQuery(NULL);
  if (strcmp(call, "htod") == 0) return cuMemcpyHtoD(block, &byte, 1);
  return (CUresult)-1;
}

static void ask(const char* when, CUdeviceptr block) {
  CUdeviceptr base = 0;
  size_t size = 0;
  const CUresult range = cuMemGetAddressRange(&base, &size, block + 8);
  printf("%s: cuMemGetAddressRange %d (base %s, size %zu)\n", when, (int)range,
         base == block ? "the block" : "not the block", size);
}

int main(int argc, char** argv) {
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CUfunction trap, empty;
  CUdeviceptr block, base = 0;
  size_t size = 0;
  char byte = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      cuModuleLoadData(&module, kTrapPtx) != CUDA_SUCCESS ||
      cuModuleGetFunction(&trap, module, "trap_kernel") != CUDA_SUCCESS ||
      cuModuleGetFunction(&empty, module, "empty_kernel") != CUDA_SUCCESS ||
      cuMemAlloc(&block, 64) != CUDA_SUCCESS) {
    puts("no device");
    return 2;
  }
  printf("before the trap: cuMemGetAddressRange %d\n",
         (int)cuMemGetAddressRange(&base, &size, block + 8));
  printf("trap launch: %d\n", (int)cuLaunchKernel(trap, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
  if (argc > 2 && strcmp(argv[1], "sleep") == 0) {
    usleep(200000);
    printf("200 ms after the launch, nothing asked: %s %d\n", argv[2],
           (int)first_call(argv[2], module, empty, block));
    ask("then", block);
  }
  printf("cuCtxSynchronize: %d\n", (int)cuCtxSynchronize());
  ask("after the trap", block);
  printf("after the trap: cuMemGetAddressRange of no block %d\n",
         (int)cuMemGetAddressRange(&base, &size, (CUdeviceptr)0x1000));
  printf("after the trap: cuMemcpyHtoD %d\n", (int)cuMemcpyHtoD(block, &byte, 1));
  printf("after the trap: cuMemcpyDtoH %d\n", (int)cuMemcpyDtoH(&byte, block, 1));
  printf("after the trap: cuMemAlloc %d\n", (int)cuMemAlloc(&base, 64));
  printf("after the trap: cuMemFree %d\n", (int)cuMemFree(block));
  printf("after the trap: cuDevicePrimaryCtxRelease %d\n", (int)cuDevicePrimaryCtxRelease(device));
  return 0;
}
