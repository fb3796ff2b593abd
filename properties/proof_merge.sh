#!/usr/bin/env bash
# The merge of a stackcheck_proof_test's parts (properties/stackcheck_proof.bzl):
#   bazel run //PKG:NAME_merge [-- --json]
# reads every shard's part from bazel-testlogs/PKG/NAME (the undeclared
# outputs: outputs.zip, or the files themselves when Bazel did not zip
# them) and runs `stackcheck check --merge` on them. Usable without Bazel:
#   proof_merge.sh STACKCHECK PKG NAME [TESTLOGS_DIR] [CHECK_FLAGS...]
set -euo pipefail
stackcheck=$1
pkg=$2
name=$3
shift 3
workspace=${BUILD_WORKSPACE_DIRECTORY:-$PWD}
dir=""
if [[ $# -gt 0 && -d "$1" ]]; then
  dir="$1/$pkg/$name"
  shift
else
  # bazel-testlogs follows the configuration of the latest command (`bazel
  # run` builds -c opt here), so look in every configuration's test logs and
  # take the latest run of the test.
  for candidate in "$workspace"/bazel-testlogs/"$pkg/$name" "$workspace"/bazel-out/*/testlogs/"$pkg/$name"; do
    if [[ -d "$candidate" && (-z "$dir" || "$candidate" -nt "$dir") ]]; then dir=$candidate; fi
  done
fi
[[ -n "$dir" && -d "$dir" ]] || {
  echo "proof_merge: no test logs of //$pkg:$name: run bazel test //$pkg:$name first" >&2
  exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
parts=()
shopt -s nullglob
# One shard: NAME/test.outputs; several: NAME/shard_K_of_N/test.outputs.
for outputs in "$dir"/test.outputs "$dir"/shard_*_of_*/test.outputs; do
  [[ -d "$outputs" ]] || continue
  if [[ -f "$outputs/outputs.zip" ]]; then
    command -v unzip >/dev/null || {
      echo "proof_merge: $outputs/outputs.zip needs unzip (apt-get install unzip)" >&2
      exit 2
    }
    into="$tmp/${#parts[@]}"
    mkdir -p "$into"
    unzip -q -o "$outputs/outputs.zip" -d "$into"
    outputs=$into
  fi
  for part in "$outputs"/part-*.txt; do parts+=("$part"); done
done
if ((${#parts[@]} == 0)); then
  echo "proof_merge: no parts under $dir: run bazel test //$pkg:$name first" >&2
  exit 2
fi
exec "$stackcheck" check --merge "${parts[@]}" "$@"
