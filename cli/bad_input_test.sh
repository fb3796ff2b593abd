#!/usr/bin/env bash
# Bad input is refused with a clear one-line message and exit 2, never a
# crash, a hang, an unbounded read or a silently different run: replay files
# and tokens, flags a command does not read, raw bytes echoed to a terminal.
set -u
bin="cli/stackcheck"
corpus="tests/corpus/v1b-callback-lock.no-deadlock.replay"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
check() {  # check NAME WANT_RC CMD... (output in $out)
  local name=$1 want=$2; shift 2
  out=$(timeout 60 "$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output: ${out:0:2000}"; fail=1; fi
}
contains() {  # contains NAME NEEDLE (in $out)
  grep -qF -- "$2" <<<"$out" || { echo "FAIL $1: output lacks '$2': ${out:0:2000}"; fail=1; }
}

# Replay is strict about its schedule: a value out of range or left over is
# bad input naming the step, not some other interleaving.
sed 's/^schedule.*/schedule 999999999999/' "$corpus" >"$tmp/range.replay"
check replay_choice_out_of_range 2 "$bin" replay "$tmp/range.replay"
contains replay_choice_out_of_range "replay step 0: choice 999999999999 is out of range"
sed 's/^schedule.*/schedule 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1/' \
  "$corpus" >"$tmp/long.replay"
check replay_schedule_too_long 2 "$bin" replay "$tmp/long.replay"
contains replay_schedule_too_long "the execution ended after"
check replay_corpus_file 0 "$bin" replay "$corpus"

# A scenario file's step bound too small for its own operations is bad input
# naming the bound, not a NEW livelock: below the first schedule's length, and
# (checked after the search) below a schedule the search reported stuck.
printf 'modes step_bound=3\nthread\nrun warps=1\nthread\nrun aborts=1 mapped_vars=1\n' \
  >"$tmp/tiny_bound.scenario"
check scenario_step_bound_tiny 2 "$bin" check --policy event-fence \
  --scenario_file "$tmp/tiny_bound.scenario"
contains scenario_step_bound_tiny "modes step_bound=3 is below the"
sed -i 's/step_bound=3/step_bound=56/' "$tmp/tiny_bound.scenario"
check scenario_step_bound_short 2 "$bin" check --policy event-fence \
  --scenario_file "$tmp/tiny_bound.scenario"
contains scenario_step_bound_short "modes step_bound=56 is too small"
sed -i 's/step_bound=56/step_bound=200/' "$tmp/tiny_bound.scenario"
check scenario_step_bound_enough 0 "$bin" check --policy event-fence \
  --scenario_file "$tmp/tiny_bound.scenario"

# Memory follows the input: a checkpoint of a few bytes is read in a few
# bytes, even under a 600 MB address-space limit (the cap is 1 GiB).
printf 'stackcheck checkpoint 4\n' >"$tmp/tiny.checkpoint"
check resume_tiny_checkpoint 2 bash -c "ulimit -v 600000; exec $bin check --policy event-fence \
  --jobs 2 --resume $tmp/tiny.checkpoint"
contains resume_tiny_checkpoint "the checkpoint is cut short"

# Unbounded or odd inputs: devices, directories, huge files.
check replay_dev_zero 2 "$bin" replay /dev/zero
contains replay_dev_zero "not a regular file"
check replay_directory 2 "$bin" replay "$tmp"
contains replay_directory "is a directory"
{ cat "$corpus"; head -c 2000000 /dev/zero | tr '\0' '#'; echo; } >"$tmp/big.replay"
check replay_huge_file 2 "$bin" replay "$tmp/big.replay"
contains replay_huge_file "larger than"
check replay_huge_token 2 "$bin" replay "sc1.$(head -c 110000 /dev/zero | tr '\0' 'A')"
contains replay_huge_token "longer than"

# Products that would wrap at 2^64 are out of range.
sed 's/stack_size_per_warp=[0-9]*/stack_size_per_warp=4611686018427387904/' "$corpus" >"$tmp/wrap.replay"
check replay_stack_product 2 "$bin" replay "$tmp/wrap.replay"
contains replay_stack_product "stack_size_per_warp x teams x warps"
contains replay_stack_product "line 10:"

# Validation errors name their line.
sed 's/^property .*/property no-such-property/' "$corpus" >"$tmp/prop.replay"
check replay_unknown_property 2 "$bin" replay "$tmp/prop.replay"
contains replay_unknown_property "line 5: unknown property 'no-such-property'"
sed 's/^tool .*/tool 0.0.1/' "$corpus" >"$tmp/version.replay"
check replay_old_version 2 "$bin" replay "$tmp/version.replay"
contains replay_old_version "line 3: written by stackcheck 0.0.1"
grep -q -- "--corpus_dir" <<<"$out" && { echo "FAIL replay_old_version: names a flag that does not exist"; fail=1; }

# Raw input is escaped and cut, never echoed byte for byte.
printf 'stackcheck-replay 2\n\033[2Jevil\n' >"$tmp/escape.replay"
check replay_escape_sequence 2 "$bin" replay "$tmp/escape.replay"
contains replay_escape_sequence '\033[2Jevil'
if grep -q $'\033' <<<"$out"; then echo "FAIL replay_escape_sequence: raw ESC echoed"; fail=1; fi
sed "s/^policy .*/policy $(printf '\033')]0;pwned/" "$corpus" >"$tmp/policy.replay"
check replay_escape_policy 2 "$bin" replay "$tmp/policy.replay"
if grep -q $'\033' <<<"$out"; then echo "FAIL replay_escape_policy: raw ESC echoed"; fail=1; fi
{ echo "stackcheck-replay 2"; head -c 1000000 /dev/zero | tr '\0' 'k'; echo; } >"$tmp/keyword.replay"
check replay_huge_keyword 2 "$bin" replay "$tmp/keyword.replay"
(( ${#out} < 1000 )) || { echo "FAIL replay_huge_keyword: a ${#out}-byte message"; fail=1; }
check unknown_command_escape 2 "$bin" $'\033[31mred'
if grep -q $'\033' <<<"$out"; then echo "FAIL unknown_command_escape: raw ESC echoed"; fail=1; fi

# A flag the command does not read is a usage error, not a silent no-op.
check replay_threads 2 "$bin" replay "$corpus" --threads 3
contains replay_threads "--threads has no effect on replay"
check policies_format 2 "$bin" policies --format chrome
check check_random_bound 2 "$bin" check --policy=v2-gcc11 --strategy random --bound 2
check check_peer_threads 2 "$bin" check --policy=v2-gcc11 --scenario peer --threads 4 --regions 8
check check_dfs_seed 2 "$bin" check --policy=v2-gcc11 --seed 3
check campaign_format 2 "$bin" campaign --format text
check policies_json_ok 0 "$bin" policies --json

# --out naming the input would destroy it.
cp "$corpus" "$tmp/self.replay"
check replay_out_is_input 2 "$bin" replay "$tmp/self.replay" --format chrome --out "$tmp/self.replay"
cmp -s "$corpus" "$tmp/self.replay" || { echo "FAIL replay_out_is_input: the replay file changed"; fail=1; }

# Output that cannot be written is a failed run.
if [[ -w /dev/full ]]; then
  "$bin" policies >/dev/full 2>"$tmp/err"; rc=$?
  [[ $rc -ne 0 ]] || { echo "FAIL policies_dev_full: exit 0"; fail=1; }
  grep -q "error writing standard output" "$tmp/err" || { echo "FAIL policies_dev_full: $(cat "$tmp/err")"; fail=1; }
  "$bin" replay "$corpus" --json >/dev/full 2>/dev/null && { echo "FAIL replay_json_dev_full: exit 0"; fail=1; }
fi

# With --json, a failure still prints one JSON object on stdout.
json_error() {  # json_error NAME WANT_RC CMD... : one object with "error"
  local name=$1 want=$2; shift 2
  stdout=$("$@" 2>/dev/null); rc=$?
  [[ $rc -eq $want ]] || { echo "FAIL $name: exit $rc, want $want"; fail=1; }
  [[ $(wc -l <<<"$stdout") -eq 1 && "$stdout" == "{"*'"error":'*'"exit_status":'"$want}" ]] ||
    { echo "FAIL $name: not one JSON error object: $stdout"; fail=1; }
}
json_error json_bad_replay 2 "$bin" replay "$tmp" --json
json_error json_unknown_flag 2 "$bin" policies --bogus --json
json_error json_unknown_command 2 "$bin" frobnicate --json

exit $fail
