// The last step of a policy's turn in a campaign: shrinking what its
// exploration found, each violation and each NEW fingerprint, to a small case
// with its replay token and replay file. A private header of the campaign
// library: campaign.cc explores, campaign_shrink.cc shrinks.
#ifndef STACKCHECK_PROPERTIES_CAMPAIGN_SHRINK_H_
#define STACKCHECK_PROPERTIES_CAMPAIGN_SHRINK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"

namespace stackcheck::properties {

// One policy's turn in a campaign, and its deadlines.
struct PolicyTurn {
  const CampaignOptions& options;
  const PolicyInfo& policy;
  absl::Time explore_end;   // exploring stops
  absl::Time policy_end;    // shrinking should stop, unless the count is fixed
  absl::Time campaign_end;  // the whole budget is spent
};

// Shrinks every violation of `pr`, spread over the jobs, and every NEW
// fingerprint to a case of its own; once `interrupted`, none: they are kept
// as found. With a fixed count, a shrink the time budget cut short is
// reported in `shortfalls`.
absl::Status ShrinkFindings(const PolicyTurn& turn, bool interrupted, PolicyResult& pr,
                            std::vector<std::string>& shortfalls);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_CAMPAIGN_SHRINK_H_
