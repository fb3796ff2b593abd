#!/usr/bin/env bash
# `stackcheck check` over the whole scenario vocabulary: the shape, fault and
# mode flags, scenario files (and their errors, by line and column), and
# --enumerate, whose scenario count is checked against the bound's own
# arithmetic.
set -u
bin="cli/stackcheck"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
expect_rc() {  # expect_rc NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output: $out"; fail=1; fi
}
expect_line() {  # expect_line NAME REGEX (in $out)
  grep -Eq -- "$2" <<<"$out" || { echo "FAIL $1: no line matching '$2' in: $out"; fail=1; }
}
expect_eq() {  # expect_eq NAME GOT WANT
  [[ "$2" == "$3" ]] || { echo "FAIL $1: got '$2', want '$3'"; fail=1; }
}
field() { grep -E "^$1 " <<<"$out" | head -1 | cut -d' ' -f2; }
choose() {  # choose N K: N over K
  local n=$1 k=$2 r=1 i
  for ((i = 1; i <= k; i++)); do r=$((r * (n - k + i) / i)); done
  echo $r
}

# --- flags ---------------------------------------------------------------
expect_rc flags 0 "$bin" check --policy=event-fence --threads=1 --regions=1 --warps=2 \
  --user_alloc --enter_data --oom_at=2 --free_no_wait --no_plain
expect_line flags "scenario regions \(1 thread, 1 region, 6 ops, 1 fault"
expect_line flags "^exhausted yes$"
# A fault flag reaches the simulator: an out-of-memory at the first
# allocation sends v2-gcc11 down its fatal path (a known bug).
expect_rc oom_flag 0 "$bin" check --policy=v2-gcc11 --threads=1 --regions=1 --oom_at=1 --no_plain
expect_line oom_flag "^fingerprint known: mutex-discipline: .*; fault out-of-memory$"
expect_rc no_oom 0 "$bin" check --policy=v2-gcc11 --threads=1 --regions=1 --no_plain
expect_line no_oom "^violation none$"
expect_rc bad_warps 2 "$bin" check --policy=v2-gcc11 --warps=9
expect_line bad_warps "--warps must be 1..4, not 9"
expect_rc warps_on_catalogue 2 "$bin" check --policy=v2-gcc11 --scenario=peer --warps=2
expect_line warps_on_catalogue "--warps has no effect here"

# --- scenario files --------------------------------------------------------
cat >"$tmp/two.sc" <<'EOF'
# A region that grows the block beside target data and a user block.
device soft_limit=131072
thread
  run warps=2
  alloc slot=0
thread
  enter slot=1
  update slot=1
  run
EOF
expect_rc file 0 "$bin" check --policy=event-fence --scenario_file="$tmp/two.sc" --no_plain
expect_line file "scenario .*two\.sc \(2 threads, 2 regions, 5 ops, 0 faults"
expect_line file "^exhausted yes$"
expect_line file "^violation none$"
# Flags apply on top of the file.
expect_rc file_fault 0 "$bin" check --policy=v2-gcc11 --scenario_file="$tmp/two.sc" --oom_at=1 \
  --no_plain
expect_line file_fault "^fingerprint known: .*fault out-of-memory$"

printf 'thread\nrun warps=x\n' >"$tmp/bad.sc"
expect_rc bad_file 2 "$bin" check --policy=event-fence --scenario_file="$tmp/bad.sc"
expect_line bad_file "bad\.sc: line 2, column 5: field 'warps': expected an unsigned integer, got 'x'"
[[ $(wc -l <<<"$out") -eq 1 ]] || { echo "FAIL bad_file: not one line: $out"; fail=1; }
printf 'thread\n  run\n  jump slot=1\n' >"$tmp/bad2.sc"
expect_rc bad_keyword 2 "$bin" check --policy=event-fence --scenario_file="$tmp/bad2.sc"
expect_line bad_keyword "line 3, column 3: unknown keyword 'jump'"
expect_rc missing_file 2 "$bin" check --policy=event-fence --scenario_file="$tmp/none.sc"
expect_line missing_file "cannot open"
expect_rc file_and_name 2 "$bin" check --policy=event-fence --scenario_file="$tmp/two.sc" \
  --scenario=peer
expect_rc file_and_abort 2 "$bin" check --policy=event-fence --scenario_file="$tmp/two.sc" --abort

# --- catalogued scenarios ----------------------------------------------------
# A named scenario is checked as written: its own mapped variables stand
# unless --mapped_vars is given, exactly as the same scenario in a file.
for mapped in 0 1; do
  printf 'thread\nrun id=1 teams=2 warps=2 aborts=1\nthread\nalloc slot=0 bytes=1048576\nrun id=2 mapped_vars=%s\nalloc slot=1 bytes=1048576\n' \
    "$mapped" >"$tmp/awm$mapped.txt"
  expect_rc "awm_file$mapped" 0 "$bin" check --policy=event-fence --scenario_file="$tmp/awm$mapped.txt" --no_plain
  from_file=$(field executions)
  flag=()
  [[ $mapped == 0 ]] && flag=(--mapped_vars=0)
  expect_rc "awm_named$mapped" 0 "$bin" check --policy=event-fence --scenario=race-abort-while-mapping \
    "${flag[@]}" --no_plain
  expect_eq "named scenario as its file, mapped_vars=$mapped" "$(field executions)" "$from_file"
done

# --- enumeration: the count the bound implies --------------------------------
# W operation words with no slot rules, programs of 1..N words: P = W + ... +
# W^N; up to T interchangeable threads: multisets of t programs, t = 1..T.
words=2 N=2 T=2
programs=0
for ((n = 1; n <= N; n++)); do programs=$((programs + words ** n)); done
want=0
for ((t = 1; t <= T; t++)); do want=$((want + $(choose $((programs + t - 1)) $t))); done
expect_rc enum_count 0 "$bin" check --policy=event-fence --enumerate --max_threads=$T \
  --max_ops=$N --max_faults=0 --vocabulary=run,run-wide --free_no_wait=false \
  --concurrent_callbacks=false
expect_eq enum_count "$(field scenarios)" "$want"
expect_eq enum_count_lines "$(grep -c '^scenario [0-9]' <<<"$out")" "$want"
expect_eq enum_count_exhausted "$(field scenarios_exhausted)" "$want"
expect_line enum_count "^exhausted yes$"
expect_line enum_count "^new 0$"
# Both cuMemFree modes and both callback modes: four times as many.
expect_rc enum_modes 0 "$bin" check --policy=event-fence --enumerate --max_threads=1 \
  --max_ops=1 --max_faults=0 --vocabulary=run,run-wide
expect_eq enum_modes "$(field scenarios)" $((2 * 4))
# Faults, one thread of run words: N fault-free programs with each of the
# 1 + K scenario-wide plans (none, oom at call 1..K), and the N(N+1)/2
# programs with one aborting region.
K=2
expect_rc enum_faults 0 "$bin" check --policy=event-fence --enumerate --max_threads=1 \
  --max_ops=$N --max_faults=1 --max_fault_call=$K --vocabulary=run,abort,oom \
  --free_no_wait=false --concurrent_callbacks=false
expect_eq enum_faults "$(field scenarios)" $((N * (1 + K) + N * (N + 1) / 2))

# A buggy policy's known bug is found, by fingerprint, with its replay.
expect_rc enum_v1a 0 "$bin" check --policy=v1a-callback-unlock --enumerate --max_threads=1 \
  --max_ops=1 --max_faults=0 --vocabulary=run
expect_line enum_v1a "^fingerprint known: mutex-discipline: mutex-unlock 'stacks lock' on callback thread"
expect_line enum_v1a "^  first in scenario 1 \[run\]; replay sc1\."
expect_line enum_v1a "^new 0$"
token=$(grep -m1 '^  first in scenario' <<<"$out" | sed 's/.*replay //')
expect_rc enum_replay 0 "$bin" replay "$token"
expect_line enum_replay "VIOLATED again"
# Ours: nothing NEW at two threads of one operation and one fault (every
# word but run-mapped, whose aborting scenarios are the costly ones).
expect_rc enum_ours 0 "$bin" check --policy=event-fence --enumerate --max_threads=2 \
  --max_ops=1 --max_faults=1 --vocabulary=run,run-wide,alloc,free,enter,update,exit,abort,oom,reject,ctors,dtors \
  --concurrent_callbacks=false
expect_line enum_ours "^exhausted yes$"
expect_line enum_ours "^violating_scenarios 0$"
expect_line enum_ours "^new 0$"

# Overall budgets: the executions are capped across scenarios; nothing claims
# exhaustion. The largest bound accepted starts at once in a few MiB (the
# scenarios, and the programs they are made of, are made as they are run).
expect_rc enum_budget 0 "$bin" check --policy=event-fence --enumerate --max_threads=2 \
  --max_ops=1 --max_faults=1 --max_executions=50
[[ $(field executions) -le 50 ]] || { echo "FAIL enum_budget: $(field executions) > 50"; fail=1; }
# Scenarios are made as they are run: a run cut short knows how many it ran,
# not how many the bound holds.
[[ $(field scenarios_run) -ge 1 && -z "$(field scenarios)" ]] ||
  { echo "FAIL enum_budget: scenarios_run $(field scenarios_run), scenarios '$(field scenarios)'"; fail=1; }
expect_line enum_budget "^exhausted no$"
expect_rc enum_largest 0 bash -c "ulimit -v 600000; exec $bin check --policy=event-fence \
  --enumerate --max_threads=4 --max_ops=8 --max_faults=4 --max_executions=200"
expect_line enum_largest "^exhausted no$"
expect_rc enum_time 0 "$bin" check --policy=event-fence --enumerate --max_threads=2 \
  --max_ops=2 --max_faults=1 --time_budget_s=0.5
expect_line enum_time "^exhausted no$"
expect_line enum_time "^out_of_time yes$"

# --json: one object.
expect_rc enum_json 0 "$bin" check --policy=event-fence --enumerate --max_threads=1 \
  --max_ops=1 --max_faults=0 --vocabulary=run --json
[[ $(wc -l <<<"$out") -eq 1 && "$out" == "{"*"}" ]] || { echo "FAIL enum_json: $out"; fail=1; }
expect_line enum_json '"command":"check"'
expect_line enum_json '"scenarios":4'
expect_line enum_json '"scenario_results":\[\{"label":"\[run\]","executions":[0-9]+,"exhausted":true'
expect_line enum_json '"exit_status":0'

# Bad bounds and flags that do not apply.
expect_rc enum_bad_ops 2 "$bin" check --policy=event-fence --enumerate --max_ops=0
expect_line enum_bad_ops "--max_ops must be 1..8, not 0"
expect_rc enum_bad_word 2 "$bin" check --policy=event-fence --enumerate --vocabulary=run,jump
expect_line enum_bad_word "unknown vocabulary word 'jump'"
expect_rc enum_threads 2 "$bin" check --policy=event-fence --enumerate --threads=2
expect_line enum_threads "--threads has no effect here"
expect_rc enum_random 2 "$bin" check --policy=event-fence --enumerate --strategy=random
expect_rc max_ops_alone 2 "$bin" check --policy=event-fence --max_ops=2
expect_line max_ops_alone "--max_ops has no effect here: it is read only with --enumerate"
exit $fail
