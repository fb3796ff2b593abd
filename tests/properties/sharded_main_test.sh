#!/usr/bin/env bash
# The property suites' main() under Bazel's sharding protocol: a shard it
# cannot honour fails the run before the status file is touched; a good one
# runs its slice, touches the file and passes RapidCheck its own seed.
set -u
probe="tests/properties/sharded_main_probe"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
run() {  # run WANT_RC TOTAL INDEX [RC_PARAMS]: output in $out, status file in $status
  local want=$1 total=$2 index=$3
  status="$tmp/status.$RANDOM"
  out=$(env -u TEST_SHARD_STATUS_FILE -u RC_PARAMS TEST_TOTAL_SHARDS="$total" \
        TEST_SHARD_INDEX="$index" TEST_SHARD_STATUS_FILE="$status" ${4:+RC_PARAMS="$4"} \
        "$probe" 2>&1); rc=$?
  if [[ $want == 0 && $rc -ne 0 ]] || [[ $want != 0 && $rc -eq 0 ]]; then
    echo "FAIL shards $index/$total: exit $rc; output: $out"; fail=1
  fi
}
for bad in "0 0" "abc 0" "2147483647 0" "3 3" "3 5" "3 -1" "3 x" "-2 0"; do
  run 1 $bad
  [[ -e "$status" ]] && { echo "FAIL shards '$bad': status file touched"; fail=1; }
  grep -q "cannot run this shard" <<<"$out" || { echo "FAIL shards '$bad': no message: $out"; fail=1; }
done
run 0 3 1
[[ -e "$status" ]] || { echo "FAIL good shard: status file not touched"; fail=1; }
grep -q "probe: shard 1 of 3" <<<"$out" || { echo "FAIL good shard: $out"; fail=1; }
grep -q "seed=1001 max_success=2000" <<<"$out" || { echo "FAIL good shard params: $out"; fail=1; }
run 0 2 1 "verbose_shrinking=1"
grep -q "RC_PARAMS=verbose_shrinking=1 seed=1001 max_success=3000" <<<"$out" ||
  { echo "FAIL user RC_PARAMS: $out"; fail=1; }
exit $fail
