#!/usr/bin/env bash
# Regenerates the regression corpus: one shrunk .replay file per known bug
# (every policy x property the expected-verdicts table marks violated).
# Run from the repository root after a change that legitimately alters
# schedules (the engine's scheduling points, a policy's driver calls, the tool
# version), then review the diff: corpus_test replays every file.
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build //cli:stackcheck
bin=bazel-bin/cli/stackcheck
out=$(mktemp -d)
# A fixed execution count keeps the result deterministic; the budget is only a cap.
# 400,000 per policy: V2 and V3 use-after-free at close first shows at 258,241
# and 327,649 (seed 1).
"$bin" campaign --executions="${EXECUTIONS:-400000}" --time_budget_s=1200 --jobs=2 \
  --shrink_executions=20000 --replay_dir="$out" >"$out/campaign.txt" || true
rm -f tests/corpus/*.replay
for f in "$out"/*.replay; do
  name=$(basename "$f" .replay)
  policy=${name%%.*}
  property=${name#*.}
  # Accepted deviations are not bugs; only violated rows belong here.
  if grep -qE "^$policy +$property +violated" "$out/campaign.txt"; then
    cp "$f" tests/corpus/
  fi
done
ls tests/corpus/*.replay | wc -l
