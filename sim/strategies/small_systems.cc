#include "sim/strategies/small_systems.h"

#include <cstdint>

namespace stackcheck::sim::toy {

rc::Gen<System> SmallSystems() {
  return rc::gen::exec([] {
    System system;
    const int threads = *rc::gen::inRange(2, 4);
    int budget = 10;  // total steps, to keep plain DFS cheap
    for (int t = 0; t < threads; ++t) {
      toy::Thread thread;
      const int ops = *rc::gen::inRange(1, 4);
      for (int i = 0; i < ops && budget > 0; ++i) {
        const std::uint32_t object = *rc::gen::inRange(1, 4);
        switch (*rc::gen::inRange(0, 5)) {
          case 0:
            thread.steps.push_back(Read(object));
            --budget;
            break;
          case 1:
            thread.steps.push_back(Write(object));
            --budget;
            break;
          case 2:
            thread.steps.push_back(Choose(object, 2));
            --budget;
            break;
          case 3: {
            if (budget < 3) break;
            const std::uint32_t mutex = *rc::gen::inRange(5, 7);
            thread.steps.push_back(Lock(mutex));
            thread.steps.push_back(Write(object));
            thread.steps.push_back(Unlock(mutex));
            budget -= 3;
            break;
          }
          default: {
            // Nested locks in either order: lock-order deadlocks.
            if (budget < 4) break;
            const bool five_first = *rc::gen::arbitrary<bool>();
            const std::uint32_t outer = five_first ? 5 : 6;
            const std::uint32_t inner = five_first ? 6 : 5;
            thread.steps.push_back(Lock(outer));
            thread.steps.push_back(Lock(inner));
            thread.steps.push_back(Unlock(inner));
            thread.steps.push_back(Unlock(outer));
            budget -= 4;
          }
        }
      }
      if (thread.steps.empty()) thread.steps.push_back(Read(1));
      // Sometimes the thread ends by exiting, which ends the process (and
      // cuts the others short) though its footprint names one object.
      if (*rc::gen::inRange(0, 4) == 0) thread.steps.push_back(Exit(8));
      system.threads.push_back(thread);
    }
    return system;
  });
}

void showValue(const System& system, std::ostream& os) {
  static const char* kNames[] = {"R", "W", "L", "U", "C", "X"};
  for (std::size_t t = 0; t < system.threads.size(); ++t) {
    os << "T" << t << ":";
    for (const Step& step : system.threads[t].steps) {
      os << " " << kNames[static_cast<int>(step.kind)] << step.object;
    }
    os << "\n";
  }
}

}  // namespace stackcheck::sim::toy
