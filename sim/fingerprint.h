// A violation's fingerprint: what identifies the bug rather than the property,
// so that a second bug breaking an already-broken property is told apart from
// the first. It names
//   - the property;
//   - the operation that broke it ("kernel-start", "cuMemFree", "mutex-destroy
//     'stacks lock'", "error-reported" (whichever call printed it), or "at the
//     end" for a violation found at the end of the execution), on which actor kind (host thread,
//     callback thread, gpu stream; "in exit handlers" when the actor runs them), under which held
//     locks (by name);
//   - the same for the earlier event that set it up, when the monitor names
//     one (Violation::cause_index: the free under a use-after-free, the
//     allocation of a leaked block);
//   - for a deadlock, the shape of its wait-for cycle: each link with actor
//     names replaced by actor kinds, rotated to start at its smallest link;
//   - the first injected fault the execution met before the violation
//     (abort, out-of-memory, rejected launch, or none).
// Thread ids, stream numbers, addresses and event indices never appear, so
// the fingerprint is the same for every schedule that shows the same bug.
//
//   no-use-after-free: kernel-start on gpu stream holding {}; after free on
//   host thread in exit handlers holding {device lock}; fault out-of-memory
#ifndef STACKCHECK_SIM_FINGERPRINT_H_
#define STACKCHECK_SIM_FINGERPRINT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/event.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

// What the fingerprint needs of the engine besides the trace.
struct FingerprintFacts {
  // "host thread", "callback thread" or "gpu stream".
  std::function<absl::string_view(ActorId)> actor_kind;
  // The runtime's name for a mutex (Host::NewMutex), e.g. "stacks lock".
  std::function<absl::string_view(std::uint32_t)> mutex_name;
  ActorId exit_handlers_actor = kNoActor;  // kNoActor: nobody exited
  std::size_t exit_handlers_from = 0;      // the first event of the handlers
};

// `trace` is the violating execution's trace (up to the violation at least).
std::string Fingerprint(const Violation& violation, absl::Span<const Event> trace,
                        const FingerprintFacts& facts);

// An actor's kind from its engine name ("T3" -> "host thread", "callback0" ->
// "callback thread", "gpu:s1" -> "gpu stream"); "" for anything else.
absl::string_view ActorKindOfName(absl::string_view name);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_FINGERPRINT_H_
