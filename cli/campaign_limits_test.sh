#!/usr/bin/env bash
# The campaign keeps its promises about counts, interrupts and replay files:
# an --executions count the time budget cuts short fails loudly, SIGINT stops
# it with the partial verdict table, and a replay directory holds one run.
set -u
bin="cli/stackcheck"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
check() {  # check NAME WANT_RC CMD... (output in $out)
  local name=$1 want=$2; shift 2
  out=$(timeout 120 "$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output:"; echo "$out" | tail -20; fail=1; fi
}
contains() {  # contains NAME NEEDLE (in $out)
  grep -qF -- "$2" <<<"$out" || { echo "FAIL $1: output lacks '$2'"; echo "$out" | tail -20; fail=1; }
}

# A count is a count: cut short by the budget, the run says so and fails.
check count_not_reached 1 "$bin" campaign --policy=event-fence --executions=100000000 \
  --time_budget_s=1 --jobs=1 --replay_dir=
contains count_not_reached "INCOMPLETE: event-fence:"
contains count_not_reached "of 100000000 executions explored"
check count_not_reached_json 1 "$bin" campaign --policy=event-fence --executions=100000000 \
  --time_budget_s=1 --jobs=1 --replay_dir= --json
contains count_not_reached_json '"complete":false'
check count_reached_json 0 "$bin" campaign --policy=event-fence --executions=50 --jobs=1 \
  --replay_dir= --json
contains count_reached_json '"complete":true'

# One run per replay directory; files are written whole (no temporary left).
check first_run 0 "$bin" campaign --policy=v1b-callback-lock --executions=1000 --jobs=1 \
  --replay_dir="$tmp/replays"
ls "$tmp/replays"/*.replay >/dev/null 2>&1 || { echo "FAIL first_run: no replay files"; fail=1; }
if ls "$tmp/replays" | grep -q '\.tmp\.'; then echo "FAIL first_run: temporary files left"; fail=1; fi
before=$(cat "$tmp/replays"/*.replay | md5sum)
check second_run_same_dir 2 "$bin" campaign --policy=v1b-callback-lock --executions=300 \
  --jobs=1 --replay_dir="$tmp/replays"
contains second_run_same_dir "already holds replay files"
[[ $(cat "$tmp/replays"/*.replay | md5sum) == "$before" ]] || { echo "FAIL second_run_same_dir: files changed"; fail=1; }

# The default directory is shared (exec writes there too): each campaign run
# gets a subdirectory of its own, and a second run in the same place works.
bin_abs=$(readlink -f "$bin")
mkdir -p "$tmp/default_dir/stackcheck-replays"
touch "$tmp/default_dir/stackcheck-replays/exec-some_program-0123456789abcdef.replay"
for run in 1 2; do
  out=$(cd "$tmp/default_dir" && timeout 120 "$bin_abs" campaign --policy=v2-gcc11 \
    --executions=200 --jobs=1 2>&1); rc=$?
  [[ $rc -ne 2 ]] || { echo "FAIL default_dir run $run: exit 2: ${out:0:500}"; fail=1; }
done
[[ $(ls -d "$tmp"/default_dir/stackcheck-replays/campaign-* | wc -l) -eq 2 ]] ||
  { echo "FAIL default_dir: not one subdirectory per run"; ls -R "$tmp/default_dir"; fail=1; }

# SIGINT: a clean stop with the partial table, exit 128 + 2.
"$bin" campaign --policy=v0-nocache,v2-gcc11 --time_budget_s=120 --jobs=1 \
  --replay_dir="$tmp/interrupted" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"; rc=$?
out=$(cat "$tmp/int.out")
[[ $rc -eq 130 ]] || { echo "FAIL interrupt: exit $rc, want 130; stderr: $(tail -5 "$tmp/int.err")"; fail=1; }
contains interrupt "INTERRUPTED"
contains interrupt "v0-nocache  no-leak"
grep -q "stopping; the results so far follow" "$tmp/int.err" || { echo "FAIL interrupt: no note on stderr"; fail=1; }

exit $fail
