/* callback_lock MODE

   A stream callback that takes a lock, the hazard of the stacks cache's first
   callback patch, written against the CUDA driver API directly: after one
   target region (libgomp's plugin then has a context current on this
   thread, and the driver loaded), main finds the driver with dlopen, as the
   plugin does, adds a callback to the legacy stream that locks a mutex,
   records that it ran and unlocks, then waits for the stream.

     deadlock   main holds the mutex while it waits for the stream: the
                callback waits for the mutex, main for the callback (the
                driver runs a stream's callbacks in order, on its own thread);
     safe       main waits for the stream first and takes the mutex after.

   Exit status 0 when the callback ran; 1 when a driver call failed or the
   driver is missing; 2 for a bad MODE. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef void* CUcontext;
typedef void* CUstream;
typedef void (*CUstreamCallback)(CUstream, CUresult, void*);

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static int g_ran;

static void on_stream_done(CUstream stream, CUresult status, void* data) {
  (void)stream;
  (void)status;
  (void)data;
  pthread_mutex_lock(&g_mutex);
  g_ran = 1;
  pthread_mutex_unlock(&g_mutex);
}

static void* resolve(void* driver, const char* name) {
  void* f = dlsym(driver, name);
  if (f == NULL) fprintf(stderr, "callback_lock: the driver has no %s\n", name);
  return f;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "deadlock") != 0 && strcmp(argv[1], "safe") != 0)) {
    fprintf(stderr, "usage: callback_lock deadlock|safe\n");
    return 2;
  }
  const int hold_while_waiting = strcmp(argv[1], "deadlock") == 0;
  int offloaded = 0;
#pragma omp target map(tofrom : offloaded)
  offloaded = 1;
  void* driver = dlopen("libcuda.so.1", RTLD_NOW);
  if (driver == NULL) {
    fprintf(stderr, "callback_lock: %s\n", dlerror());
    return 1;
  }
  CUresult (*ctx_get_current)(CUcontext*) = resolve(driver, "cuCtxGetCurrent");
  CUresult (*add_callback)(CUstream, CUstreamCallback, void*, unsigned) =
      resolve(driver, "cuStreamAddCallback");
  CUresult (*synchronize)(CUstream) = resolve(driver, "cuStreamSynchronize");
  if (!ctx_get_current || !add_callback || !synchronize) return 1;
  CUcontext context = NULL;
  if (ctx_get_current(&context) != 0 || context == NULL) {
    fprintf(stderr, "callback_lock: libgomp left no CUDA context current\n");
    return 1;
  }
  if (hold_while_waiting) pthread_mutex_lock(&g_mutex);
  CUresult r = add_callback(NULL, on_stream_done, NULL, 0);
  if (r == 0) r = synchronize(NULL);
  if (!hold_while_waiting) pthread_mutex_lock(&g_mutex);
  const int ran = g_ran;
  pthread_mutex_unlock(&g_mutex);
  printf("callback_lock %s: driver result %d, callback ran: %s (offloaded: %d)\n", argv[1], r,
         ran ? "yes" : "no", offloaded);
  return r == 0 && ran ? 0 : 1;
}
