#!/usr/bin/env bash
# One shard of a stackcheck_proof_test (properties/stackcheck_proof.bzl):
#   proof_shard.sh STACKCHECK CHECK_FLAGS...
# Bazel says which shard of how many this is; the part goes to the test's
# undeclared outputs. Passes when the part is whole and check's exit status
# is 0 (no NEW violation).
set -uo pipefail
stackcheck=$1
shift
index=${TEST_SHARD_INDEX:-0}
count=${TEST_TOTAL_SHARDS:-1}
# Tells Bazel this test knows the sharding protocol.
if [[ -n "${TEST_SHARD_STATUS_FILE:-}" ]]; then touch "$TEST_SHARD_STATUS_FILE"; fi
out=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}
part="$out/part-$index-of-$count.txt"
report=$("$stackcheck" check "$@" --shard_count "$count" --shard_index "$index" --part "$part")
rc=$?
printf '%s\n' "$report"
if ((rc != 0)); then
  echo "proof_shard: shard $index of $count: check exited with $rc" >&2
  exit "$rc"
fi
if ! grep -qx "whole yes" <<<"$report"; then
  echo "proof_shard: shard $index of $count: its part is not whole" >&2
  exit 1
fi
