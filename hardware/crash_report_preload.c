/* A crash reporter to preload into an OpenMP offload program on a GPU host:
 * when the program dies of SIGSEGV, SIGBUS or SIGILL, the faulting thread's
 * stack is written to stderr, one frame a line, as the module, the offset in
 * it and the nearest dynamic symbol, and the signal is raised again so the
 * exit status stays what it was (139 for SIGSEGV). The offsets resolve to
 * GCC's source lines with `addr2line -f -e PLUGIN OFFSET` on the same plugin
 * binary (//gcc:stock_plugin and //gcc:patched_plugin carry debug info).
 *
 *   gcc -shared -fPIC -O1 hardware/crash_report_preload.c -o crash_report.so
 *   LD_PRELOAD=$PWD/crash_report.so ./abort_while_mapping regions 2 0 100000
 *
 * Why a preload and not a core file or gdb: GPU hosts here do not let a
 * program set core_pattern, and under gdb the race that ends in the crash
 * (one thread's exit handlers against another thread's region) changes its
 * timing. The handler formats with snprintf and resolves with dladdr, which
 * are not async-signal-safe; the process is dying and this is diagnosis. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void say(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= (size_t)n;
  }
}

static void report_frame(int index, void* address) {
  char line[512];
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == NULL) {
    snprintf(line, sizeof line, "  #%d %p ?\n", index, address);
  } else {
    uintptr_t offset = (uintptr_t)address - (uintptr_t)info.dli_fbase;
    const char* base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (info.dli_sname != NULL) {
      snprintf(line, sizeof line, "  #%d %s+0x%lx (%s+0x%lx)\n", index, base, (unsigned long)offset,
               info.dli_sname, (unsigned long)((uintptr_t)address - (uintptr_t)info.dli_saddr));
    } else {
      snprintf(line, sizeof line, "  #%d %s+0x%lx\n", index, base, (unsigned long)offset);
    }
  }
  say(line);
}

static void on_crash(int signal_number, siginfo_t* info, void* context) {
  (void)context;
  char name[17] = {0};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  char line[256];
  snprintf(line, sizeof line,
           "stackcheck crash report: signal %d (%s) at address %p, thread "
           "%ld (%s)\n",
           signal_number, strsignal(signal_number), info->si_addr, (long)syscall(SYS_gettid), name);
  say(line);
  void* frames[64];
  int count = backtrace(frames, 64);
  for (int i = 0; i < count; ++i) report_frame(i, frames[i]);
  say("stackcheck crash report: end\n");
  /* Die of the same signal, as the program would have. */
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

__attribute__((constructor)) static void install(void) {
  /* backtrace loads libgcc_s on its first call: do that now, not in the
     handler. */
  void* warm[2];
  backtrace(warm, 2);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_crash;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, NULL);
  sigaction(SIGBUS, &action, NULL);
  sigaction(SIGILL, &action, NULL);
}
