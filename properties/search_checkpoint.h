// A split search stopped before its end (a time budget, an execution budget,
// a signal), kept as text so that a later run goes on where it stood:
// `check --jobs J --checkpoint F` writes one, `--resume F` reads it.
//
// Its second line is a digest of the rest (core/text_digest.h), checked on
// --resume. It names the build that wrote it (ExecutableDigest): another
// build may order steps by another dependence, so its tree is not gone on
// from. It holds the search's key (everything in the spec that shapes the tree:
// the policy, the case, the strategy, the monitors and the split), what the
// runs so far counted, the known bugs they met and passed (--only_kept), and
// the shared top (sim::SplitTree::Save). The workers' own nodes below the top
// are not kept: the claims they were exploring are explored again from their
// start, so a stop costs at most one claim per worker.
#ifndef STACKCHECK_PROPERTIES_SEARCH_CHECKPOINT_H_
#define STACKCHECK_PROPERTIES_SEARCH_CHECKPOINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "properties/explore.h"

namespace stackcheck::properties {

struct SearchCheckpoint {
  std::string key;     // SearchKey of the spec it ran
  std::string binary;  // ExecutableDigest of the process that wrote it
  // The search had switched to every allocation ordered (see
  // ExploreSpec::exact_memory_ledger): it goes on so.
  bool exact_memory_ledger = false;
  // Executions, seconds, sleep_blocked, metrics and known_met of the runs
  // so far; the rest is unset.
  ExploreReport totals;
  std::string tree;  // sim::SplitTree::Save
};

// What must match for a checkpoint to go on under `spec`: one line, readable
// in an error message. Not the budgets, the job count or the callbacks.
std::string SearchKey(const ExploreSpec& spec);

// "fnv1a64:..." over the bytes of the running executable ("unknown" if it
// cannot be read): which build wrote a checkpoint or a proof part.
std::string ExecutableDigest();

std::string EncodeCheckpoint(const SearchCheckpoint& checkpoint);
// InvalidArgument naming the line that does not fit, or saying that the
// content does not match the digest it was written with (a damaged or edited
// file: a flag of the tree set to "finished" by hand would otherwise make a
// resumed search claim a proof it never ran); the tree itself is checked when
// a SplitTree loads it.
absl::StatusOr<SearchCheckpoint> DecodeCheckpoint(absl::string_view text);

// `text` with its digest recomputed over what follows it: for tests that
// damage a checkpoint's content on purpose to reach the checks beneath.
std::string RedigestCheckpointForTesting(absl::string_view text);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SEARCH_CHECKPOINT_H_
