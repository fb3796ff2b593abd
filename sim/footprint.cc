#include "sim/footprint.h"

namespace stackcheck::sim {

bool Dependent(const Footprint& a, const Footprint& b) {
  if (((a.program & kProgramWide) && (b.program & kRunsProgram)) ||
      ((b.program & kProgramWide) && (a.program & kRunsProgram))) {
    return true;
  }
  if (((a.held & b.breaks) | (b.held & a.breaks)) != 0) return true;
  for (int i = 0; i < a.count; ++i) {
    for (int j = 0; j < b.count; ++j) {
      const Access& x = a.accesses[i];
      const Access& y = b.accesses[j];
      if (x.object == kGlobalObject || y.object == kGlobalObject) return true;
      if (!x.write && !y.write) continue;
      if (x.object == y.object) return true;
      if (x.object == kDeviceWideObject && (y.object & kDeviceBit) &&
          !(b.beside & kBesideDeviceWide)) {
        return true;
      }
      if (y.object == kDeviceWideObject && (x.object & kDeviceBit) &&
          !(a.beside & kBesideDeviceWide)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace stackcheck::sim
