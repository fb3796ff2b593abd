#!/usr/bin/env bash
# Regenerates the regression corpus: one shrunk .replay file per known bug
# (every policy x property the expected-verdicts table marks violated).
# Run from the repository root after a change that legitimately alters
# schedules (the engine's scheduling points, a policy's driver calls, the tool
# version), then review the diff: corpus_test replays every file and checks
# that it shows the fingerprint it records, which properties/known_bugs.txt
# must list for it (a NEW fingerprint fails the campaign here first).
#
# With --digests, nothing is re-searched: each file is replayed and, where its
# recorded violation (property and fingerprint) recurs, only its trace digest
# is re-recorded. That is for a change that alters traces but not schedules
# (an allocation's address, an event's fields); a file whose violation does
# not recur is left as it was and listed, and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build //cli:stackcheck
bin=bazel-bin/cli/stackcheck
if [[ "${1:-}" == "--digests" ]]; then
  rc=0
  for f in tests/corpus/*.replay; do
    json=$("$bin" replay "$f" --json 2>/dev/null || true)
    if ! grep -q '"recurred":true' <<<"$json"; then
      echo "regenerate.sh: did not recur, left as it was: $f" >&2
      rc=1
      continue
    fi
    digest=$(grep -o '"digest":"[0-9a-f]*"' <<<"$json" | cut -d'"' -f4)
    sed -i "s/^digest [0-9a-f]*\$/digest $digest/" "$f"
  done
  exit $rc
fi
out=$(mktemp -d)
# A fixed execution count keeps the result deterministic; the budget is only a
# cap, and a count or a shrink it cuts short fails the campaign (exit 1), as
# does a verdict that differs from the table: then nothing is replaced.
# Files are replaced, never dropped: a bug the table expects only rarely
# (violated-rarely, e.g. V2's and V3's use-after-free and data race at close)
# may not be met within the count, and its file is then kept as it was and
# listed; corpus_test still replays it against the current code.
rc=0
"$bin" campaign --executions="${EXECUTIONS:-400000}" --time_budget_s="${TIME_BUDGET_S:-3600}" \
  --jobs=2 --shrink_executions=20000 --replay_dir="$out/replays" >"$out/campaign.txt" || rc=$?
if ((rc != 0)); then
  grep -E "INCOMPLETE|MISMATCH|INTERRUPTED" "$out/campaign.txt" >&2 || true
  echo "regenerate.sh: the campaign exited $rc; the corpus is left as it was ($out)" >&2
  exit 1
fi
replaced=()
for f in "$out"/replays/*.replay; do
  name=$(basename "$f" .replay)
  policy=${name%%.*}
  property=${name#*.}
  # Accepted deviations are not bugs; only violated rows belong here.
  if grep -qE "^$policy +$property +violated" "$out/campaign.txt"; then
    cp "$f" tests/corpus/
    replaced+=("$name")
  fi
done
echo "regenerate.sh: ${#replaced[@]} files written from this campaign"
for f in tests/corpus/*.replay; do
  name=$(basename "$f" .replay)
  if [[ " ${replaced[*]} " != *" $name "* ]]; then
    echo "regenerate.sh: kept as it was (not met by this campaign): $f"
  fi
done
