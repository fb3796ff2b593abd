// The one way properties/ runs work on several threads: job 0 on the
// calling thread, the others on threads of their own, all joined before it
// returns. The campaign's executions and shrinking, and a parallel
// exploration's workers, use it.
#ifndef STACKCHECK_PROPERTIES_WORKER_POOL_H_
#define STACKCHECK_PROPERTIES_WORKER_POOL_H_

#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"

namespace stackcheck::properties {

// Runs work(0) .. work(jobs - 1) at once (jobs < 1 runs job 0 alone).
inline void RunOnWorkers(int jobs, absl::FunctionRef<void(int job)> work) {
  std::vector<std::thread> threads;
  for (int job = 1; job < jobs; ++job) threads.emplace_back([work, job] { work(job); });
  work(0);
  for (std::thread& t : threads) t.join();
}

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_WORKER_POOL_H_
