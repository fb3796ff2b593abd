#include "sim/strategy.h"

namespace stackcheck::sim {

bool Dependent(const Footprint& a, const Footprint& b) {
  for (int i = 0; i < a.count; ++i) {
    for (int j = 0; j < b.count; ++j) {
      const Access& x = a.accesses[i];
      const Access& y = b.accesses[j];
      if (x.object == kGlobalObject || y.object == kGlobalObject) return true;
      if (x.object == y.object && (x.write || y.write)) return true;
    }
  }
  return false;
}

}  // namespace stackcheck::sim
