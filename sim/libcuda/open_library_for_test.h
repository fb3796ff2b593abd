// The simulated libcuda.so.1 in a test's runfiles, opened as the plugin opens
// it (dlopen, its own symbols first): for the tests that call its entry
// points directly.
#ifndef STACKCHECK_SIM_LIBCUDA_OPEN_LIBRARY_FOR_TEST_H_
#define STACKCHECK_SIM_LIBCUDA_OPEN_LIBRARY_FOR_TEST_H_

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace stackcheck::libcuda {

// The handle, or nullptr with dlerror() saying why.
inline void* OpenLibcudaForTest() {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/" +
                           std::getenv("TEST_WORKSPACE") + "/sim/libcuda/libcuda.so.1";
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
}

}  // namespace stackcheck::libcuda

#endif  // STACKCHECK_SIM_LIBCUDA_OPEN_LIBRARY_FOR_TEST_H_
