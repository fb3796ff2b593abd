/* The configuration libgomp's nvptx plugin is compiled with here, in place
   of the config.h GCC's configure writes: the values Debian 12's GCC 12.2
   build has on x86_64 with glibc 2.36 (facts about that build, not code).
   The plugin is built to load the CUDA driver with dlopen at run time
   (PLUGIN_NVPTX_DYNAMIC), as Debian's libgomp-plugin-nvptx1 does; the
   result exports and imports the same symbols as Debian's binary
   (gcc/plugin_symbols_test.sh checks).  */
#define HAVE_ATTRIBUTE_ALIAS 1
#define HAVE_ATTRIBUTE_VISIBILITY 1
#define HAVE_AS_SYMVER_DIRECTIVE 1
#define HAVE_SYMVER_SYMBOL_RENAMING_RUNTIME_SUPPORT 1
#define HAVE_CC_TLS 1
#define HAVE_TLS 1
#define HAVE_CLOCK_GETTIME 1
#define HAVE_DLFCN_H 1
#define HAVE_LIBDL 1
#define HAVE_PTHREAD_H 1
#define HAVE_PTHREAD_AFFINITY_NP 1
#define HAVE_SECURE_GETENV 1
#define HAVE_SEMAPHORE_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_SYNC_BUILTINS 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_ALIGNED_ALLOC 1
#define HAVE_POSIX_MEMALIGN 1
#define HAVE_MEMALIGN 1
#define HAVE_GETLOADAVG 1
#define HAVE_UNAME 1
#define HAVE_GETHOSTNAME 1
#define HAVE_GETPID 1
#define HAVE_GETUID 1
#define HAVE_GETEUID 1
#define HAVE_GETGID 1
#define HAVE_GETEGID 1
#define HAVE_STRTOULL 1
#define LIBGOMP_GNU_SYMBOL_VERSIONING 1
#define LIBGOMP_USE_PTHREADS 1
#define PLUGIN_SUPPORT 1
#define PLUGIN_NVPTX 1
#define PLUGIN_NVPTX_DYNAMIC 1
#define SIZEOF_VOID_P 8
#define STDC_HEADERS 1
#define OFFLOAD_PLUGINS "nvptx"
#define PACKAGE "libgomp"
#define VERSION "1.0"
