/* Dies of SIGSEGV: a write through a null pointer the compiler cannot see
   (crash_report_test). */
#include <stdlib.h>

int main(int argc, char** argv) {
  (void)argv;
  volatile int* volatile target = NULL;
  *target = argc;
  return EXIT_SUCCESS;
}
