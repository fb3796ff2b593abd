#!/usr/bin/env bash
# Every finding of a seeded campaign replays: each replay file it writes and
# each token it prints shows its violation again with the recorded trace
# digest. Accepted deviations (sync-completion) included: they are findings
# too, and a replay that passed them as "known" would show something else.
set -u
bin="cli/stackcheck"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
timeout 300 "$bin" campaign --executions=20000 --seed=7 --jobs=2 --replay_dir="$tmp/replays" \
  --json >"$tmp/campaign.json" 2>"$tmp/campaign.err"
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL campaign: exit $rc"; tail -5 "$tmp/campaign.err"; exit 1
fi
files=("$tmp"/replays/*.replay)
if [[ ${#files[@]} -lt 20 ]]; then echo "FAIL: only ${#files[@]} replay files written"; fail=1; fi
ls "$tmp"/replays/*.sync-completion.replay >/dev/null 2>&1 ||
  { echo "FAIL: the campaign wrote no file for a deviation; the test no longer covers one"; fail=1; }
replayed=0
replay() {  # replay WHAT (file or token)
  local out rc
  out=$(timeout 60 "$bin" replay "$1" 2>&1); rc=$?
  if [[ $rc -ne 0 ]] || ! grep -q "VIOLATED again" <<<"$out" || grep -q "trace differs" <<<"$out"; then
    local what=${1##*/}; echo "FAIL replay of ${what:0:120}: exit $rc"; echo "$out" | tail -4; fail=1
  fi
  replayed=$((replayed + 1))
}
for f in "${files[@]}"; do replay "$f"; done
tokens=$(grep -o '"token":"[^"]*"' "$tmp/campaign.json" | cut -d'"' -f4)
[[ -n "$tokens" ]] || { echo "FAIL: no tokens in the campaign's JSON"; fail=1; }
for t in $tokens; do replay "$t"; done
echo "replayed $replayed files and tokens"
exit $fail
