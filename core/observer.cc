#include "core/observer.h"

namespace stackcheck {

RuntimeObserver& NullObserver() {
  static RuntimeObserver* const observer = new RuntimeObserver();
  return *observer;
}

}  // namespace stackcheck
