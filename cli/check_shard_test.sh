#!/usr/bin/env bash
# A sharded proof through the command line: the shards' parts merge into
# `exhausted yes`; a part dropped, given twice, edited or of another search
# is refused; a shard stopped by its budget goes on from its part; the
# merge script finds parts in a Bazel test's outputs, zipped or not; bad
# input exits 2.
set -u
bin="cli/stackcheck"
merge_script="properties/proof_merge.sh"
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
expect_rc() {  # expect_rc NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output: $out"; fail=1; fi
}
expect_line() {  # expect_line NAME REGEX (in $out)
  grep -Eq -- "$2" <<<"$out" || { echo "FAIL $1: no line matching '$2' in: $out"; fail=1; }
}
search=(--policy=event-fence --threads=3 --regions=3)

# One search, unsplit, for its execution count.
expect_rc whole 0 "$bin" check "${search[@]}" --no_plain
whole_executions=$(sed -n 's/^executions //p' <<<"$out")

# Four shards, each its own process, then the merge.
for i in 0 1 2 3; do
  expect_rc "shard_$i" 0 "$bin" check "${search[@]}" --shard_count=4 --shard_index=$i \
    --part="$tmp/p$i.txt"
  expect_line "shard_$i" "^whole yes$"
  expect_line "shard_$i" "^top_choices [0-9]+$"
done
expect_rc merge 0 "$bin" check --merge "$tmp"/p{0,1,2,3}.txt
expect_line merge "^exhausted yes$"
expect_line merge "^shards 4$"
expect_line merge "^violation none$"
expect_line merge "^longest_over_mean_seconds [0-9.]+$"
merged_executions=$(sed -n 's/^executions \([0-9]*\)$/\1/p' <<<"$out")
# The split costs the walk of the top and the escapes, not a second search.
if ((merged_executions > whole_executions * 3 / 2 || merged_executions < whole_executions * 9 / 10)); then
  echo "FAIL merge: $merged_executions executions in the parts, $whole_executions unsplit"
  fail=1
fi
expect_rc merge_json 0 "$bin" check --merge "$tmp"/p{0,1,2,3}.txt --json
expect_line merge_json '"exhausted":true'
expect_line merge_json '"command":"merge"'

# Refusals: nothing is claimed from a set of parts that is not the split.
expect_rc dropped 2 "$bin" check --merge "$tmp"/p{0,1,3}.txt
expect_line dropped "shard 2 of 4 is missing"
expect_rc twice 2 "$bin" check --merge "$tmp"/p{0,1,2,3,1}.txt
expect_line twice "shard 1 of 4 is given twice"
sed 's/^units \([0-9]*\) 1$/units 1\1 1/' "$tmp/p3.txt" >"$tmp/edited.txt"
cmp -s "$tmp/p3.txt" "$tmp/edited.txt" && { echo "FAIL: the edit changed nothing"; fail=1; }
expect_rc edited 2 "$bin" check --merge "$tmp"/p{0,1,2}.txt "$tmp/edited.txt"
expect_line edited "edited.txt: the part's content does not match its digest"
expect_rc foreign_shard 0 "$bin" check --policy=event-fence --threads=2 --regions=2 \
  --shard_count=4 --shard_index=3 --part="$tmp/other3.txt"
expect_rc foreign 2 "$bin" check --merge "$tmp"/p{0,1,2}.txt "$tmp/other3.txt"
expect_line foreign "a part of another search"
printf 'not a part\n' >"$tmp/junk.txt"
expect_rc junk 2 "$bin" check --merge "$tmp/p0.txt" "$tmp/junk.txt"
expect_line junk "junk.txt: not a proof part"
sed '1s/^stackcheck proof part 2$/stackcheck proof part 1/' "$tmp/p3.txt" >"$tmp/earlier.txt"
expect_rc earlier_format 2 "$bin" check --merge "$tmp"/p{0,1,2}.txt "$tmp/earlier.txt"
expect_line earlier_format "earlier.txt: the part was written by an earlier stackcheck"

# A shard stopped by its budget says so, and goes on from its part.
expect_rc stopped 0 "$bin" check "${search[@]}" --shard_count=4 --shard_index=1 \
  --part="$tmp/r1.txt" --max_executions=40
expect_line stopped "^whole no$"
expect_rc unfinished 0 "$bin" check --merge "$tmp"/p{0,2,3}.txt "$tmp/r1.txt"
expect_line unfinished "^exhausted no$"
expect_line unfinished "^unfinished shard 1 .*stopped by max_executions"
for run in 1 2 3 4 5 6 7 8; do
  expect_rc "resumed_$run" 0 "$bin" check "${search[@]}" --shard_count=4 --shard_index=1 \
    --part="$tmp/r1.txt" --resume="$tmp/r1.txt" --max_executions=$((40 << run))
  grep -qx "whole yes" <<<"$out" && break
done
expect_line resumed "^whole yes$"
expect_rc resumed_merge 0 "$bin" check --merge "$tmp"/p{0,2,3}.txt "$tmp/r1.txt"
expect_line resumed_merge "^exhausted yes$"
expect_rc resume_other_shard 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=2 \
  --part="$tmp/x.txt" --resume="$tmp/r1.txt"
expect_line resume_other_shard "is shard 1 of 4, and this run is shard 2 of 4"

# The merge script, on a test's outputs as Bazel leaves them.
logs="$tmp/testlogs/pkg/proof"
for i in 0 1 2 3; do
  mkdir -p "$logs/shard_$((i + 1))_of_4/test.outputs"
  cp "$tmp/p$i.txt" "$logs/shard_$((i + 1))_of_4/test.outputs/part-$i-of-4.txt"
done
expect_rc merge_script 0 "$merge_script" "$bin" pkg proof "$tmp/testlogs"
expect_line merge_script "^exhausted yes$"
if command -v zip >/dev/null && command -v unzip >/dev/null; then
  (cd "$logs/shard_3_of_4/test.outputs" && zip -q outputs.zip part-2-of-4.txt && rm part-2-of-4.txt)
  expect_rc merge_script_zip 0 "$merge_script" "$bin" pkg proof "$tmp/testlogs"
  expect_line merge_script_zip "^exhausted yes$"
fi
expect_rc merge_script_none 2 "$merge_script" "$bin" pkg nothing "$tmp/testlogs"
expect_line merge_script_none "no test logs of //pkg:nothing: run bazel test //pkg:nothing first"

# Bad input: one line, exit 2.
expect_rc index_too_big 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=4 \
  --part="$tmp/x.txt"
expect_line index_too_big "--shard_index must be below --shard_count"
expect_rc no_part 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=0
expect_line no_part "needs --part"
expect_rc part_dir 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=0 --part="$tmp"
expect_rc with_jobs 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=0 \
  --part="$tmp/x.txt" --jobs=2
expect_rc with_bound 2 "$bin" check "${search[@]}" --shard_count=4 --shard_index=0 \
  --part="$tmp/x.txt" --bound=1
expect_rc merge_with_policy 2 "$bin" check --merge --policy=event-fence "$tmp/p0.txt"
expect_line merge_with_policy "takes the parts alone"
expect_rc merge_nothing 2 "$bin" check --merge
expect_rc merge_missing_file 2 "$bin" check --merge "$tmp/none.txt"

exit $fail
