#!/usr/bin/env bash
# The property commands' command-line contract: campaign, replay and bench bugs
# exit 0 when every verdict matches, 1 when one does not, 2 on bad input; write
# replay files and traces; and speak JSON with --json.
set -u
bin="cli/stackcheck"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
check() {  # check NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL $name: exit $rc, want $want; output:"; echo "$out" | tail -20; fail=1
  fi
}
contains() {  # contains NAME NEEDLE (in $out)
  if ! grep -qF -- "$2" <<<"$out"; then echo "FAIL $1: output lacks '$2'"; echo "$out" | tail -20; fail=1; fi
}

# campaign: a small deterministic run of one buggy policy matches the table.
check campaign_v1b 0 "$bin" campaign --policy=v1b-callback-lock --executions=1000 --jobs=1 \
  --replay_dir="$tmp/replays"
contains campaign_v1b "no-deadlock"
contains campaign_v1b "every verdict matches its expectation"
contains campaign_v1b "deadlock: "
[[ -f "$tmp/replays/v1b-callback-lock.no-deadlock.replay" ]] || { echo "FAIL: no replay file written"; fail=1; }
token=$(grep -oE 'sc1\.[A-Za-z0-9_-]+' <<<"$out" | head -1)

# A verdict that does not match (v3's B1 deadlock cannot show in 1 execution) exits 1.
check campaign_mismatch 1 "$bin" campaign --policy=v3-trunk --executions=1 --replay_dir=
contains campaign_mismatch "MISMATCH"

check campaign_json 0 "$bin" campaign --policy=event-fence --executions=200 --replay_dir= --json
contains campaign_json '"command":"campaign"'
contains campaign_json '"all_match":true'
[[ "$out" == "{"* ]] || { echo "FAIL campaign_json: not a JSON object"; fail=1; }

check campaign_bad_policy 2 "$bin" campaign --policy=nope
contains campaign_bad_policy "unknown policy 'nope'"
check campaign_bad_jobs 2 "$bin" campaign --jobs=-1
check campaign_bad_shard 2 "$bin" campaign --shard_index=2 --shard_count=2
check campaign_args 2 "$bin" campaign extra

# replay: a corpus file, the written file, the token; text and chrome.
check replay_corpus 0 "$bin" replay tests/corpus/v1b-callback-lock.no-deadlock.replay
contains replay_corpus "VIOLATED again"
contains replay_corpus "!! violation of no-deadlock"
check replay_written 0 "$bin" replay "$tmp/replays/v1b-callback-lock.no-deadlock.replay"
if [[ -n "$token" ]]; then
  check replay_token 0 "$bin" replay "$token"
  # A token kept as a file (a corpus entry): scenario, schedule, digest and
  # fingerprint, and it replays as the token did.
  check replay_save 0 "$bin" replay "$token" --save "$tmp/saved.replay"
  contains replay_save "replay file written to $tmp/saved.replay"
  grep -q "^fingerprint [a-z-]*: " "$tmp/saved.replay" || { echo "FAIL: --save wrote no fingerprint"; fail=1; }
  grep -q "^digest [0-9a-f]*$" "$tmp/saved.replay" || { echo "FAIL: --save wrote no digest"; fail=1; }
  check replay_saved 0 "$bin" replay "$tmp/saved.replay"
  check replay_save_unwritable 2 "$bin" replay "$token" --save "$tmp/no-such-dir/x.replay"
else
  echo "FAIL: campaign printed no replay token"; fail=1
fi
check replay_chrome 0 "$bin" replay tests/corpus/v1b-callback-lock.no-deadlock.replay \
  --format chrome --out "$tmp/trace.json"
head -c 20 "$tmp/trace.json" | grep -q '{"traceEvents"' || { echo "FAIL: chrome trace"; fail=1; }
check replay_json 0 "$bin" replay tests/corpus/v1b-callback-lock.no-deadlock.replay --json
contains replay_json '"recurred":true'

check replay_bad_format 2 "$bin" replay tests/corpus/v1b-callback-lock.no-deadlock.replay --format xml
check replay_missing 2 "$bin" replay "$tmp/no-such.replay"
check replay_no_args 2 "$bin" replay
echo "not a replay" >"$tmp/bad.replay"
check replay_garbage 2 "$bin" replay "$tmp/bad.replay"
contains replay_garbage "line 1"
sed 's/^policy .*/policy no-such-policy/' tests/corpus/v1b-callback-lock.no-deadlock.replay >"$tmp/p.replay"
check replay_unknown_policy 2 "$bin" replay "$tmp/p.replay"
contains replay_unknown_policy "unknown policy 'no-such-policy'"
check replay_bad_token 2 "$bin" replay sc1.AAAA

# check: DPOR finds GCC's exit-time hang with two threads, one region each
# mapping a variable, one aborting: a known bug, its cycle through both locks.
for p in v2-gcc11 v3-trunk; do
  check "check_exit_hang_$p" 0 "$bin" check --policy=$p --strategy=dfs --threads=2 --regions=1 \
    --mapped_vars=1 --abort --only_kept --no_plain --max_executions=2000
  contains "check_exit_hang_$p" "known_met no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault abort"
done
check check_mapped_range 2 "$bin" check --policy=v2-gcc11 --mapped_vars=9

# GCC 12.2's target.c (--shipped_target): a mapping's failed allocation exits
# and closes the device under the other thread's region, whose plugin entry
# faults - replayable; the known-bug table is the default runtime's, so the
# finding is NEW (exit 1). The default runtime (0003's checks) holds.
check check_shipped_crash 1 "$bin" check --policy=v2-gcc11 --strategy=dfs --threads=2 \
  --regions=2 --mapped_vars=1 --oom_at=2 --shipped_target --property=no-crash --no_plain \
  --max_executions=2000
contains check_shipped_crash "fingerprint NEW: no-crash: process-killed on host thread holding {}; fault out-of-memory"
crash_token=$(grep -oE '^replay sc1\.[A-Za-z0-9_-]+' <<<"$out" | head -1 | cut -d' ' -f2)
check replay_shipped_crash 0 "$bin" replay "$crash_token"
contains replay_shipped_crash "process-killed signal 11"
contains replay_shipped_crash "the process died of SIGSEGV on T2"
check check_checked_no_crash 0 "$bin" check --policy=v2-gcc11 --strategy=dfs --threads=2 \
  --regions=2 --mapped_vars=1 --oom_at=2 --property=no-crash --no_plain --max_executions=2000
contains check_checked_no_crash "violation none"

# bench bugs: the figures, per buggy policy.
check bench_bugs 0 "$bin" bench bugs --bench_seeds=2
contains bench_bugs "time_to_bug_s v1b-callback-lock"
contains bench_bugs "shrunk_regions v1b-callback-lock"
check bench_bugs_bad 2 "$bin" bench bugs --bench_seeds=0

exit $fail
