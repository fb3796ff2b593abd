#!/usr/bin/env bash
# The command line's contract: --help exits 0 and lists commands; an unknown
# command or flag exits 2 with a one-line error.
set -u
bin="cli/stackcheck"
fail=0
check() {  # check NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output: $out"; fail=1; fi
}
check help 0 "$bin" --help
"$bin" --help | grep -q "^  info" || { echo "FAIL: --help does not list info"; fail=1; }
check unknown_command 2 "$bin" frobnicate
check unknown_flag 2 "$bin" --no_such_flag
lines=$("$bin" --no_such_flag 2>&1 | wc -l)
[[ $lines -eq 1 ]] || { echo "FAIL: unknown flag error is $lines lines, want 1"; fail=1; }
check info 0 "$bin" info

# bench dfs at tiny sizes: every case's lines, the jobs figure, and --json.
bench=(bench dfs --bench_dfs_threads=1 --bench_dfs_regions=1 --bench_dfs_plain_cap=2000
       --bench_jobs_executions=40)
check bench_dfs 0 "$bin" "${bench[@]}"
for line in "^dfs_executions v2-gcc11 1x1 [1-9][0-9]*$" "^dfs_exhausted event-fence 1x1\+abort yes$" \
            "^plain_dfs_executions v2-gcc11 1x1 [1-9][0-9]*$" "^dfs_reduction event-fence 1x1 (>=)?[0-9.]+$" \
            "^dfs_violations v2-gcc11 1x1 none$" "^jobs_scaling 1->2 [0-9.]+$"; do
  grep -Eq "$line" <<<"$out" || { echo "FAIL bench_dfs: no line matching '$line' in: $out"; fail=1; }
done
check bench_dfs_json 0 "$bin" "${bench[@]}" --json
grep -q '"command":"bench dfs"' <<<"$out" || { echo "FAIL bench_dfs_json: $out"; fail=1; }
check bench_dfs_bad 2 "$bin" bench dfs --bench_dfs_regions=0

# --json on the other commands: one object each, with its command's name.
json_object() {  # json_object NAME COMMAND_NAME (in $out)
  [[ $(wc -l <<<"$out") -eq 1 && "$out" == "{"*"}" ]] || { echo "FAIL $1: not one JSON object: $out"; fail=1; }
  grep -q "\"command\":\"$2\"" <<<"$out" || { echo "FAIL $1: no command $2 in: $out"; fail=1; }
}
check info_json 0 "$bin" info --json
json_object info_json info
grep -q '"policies":\["v0-nocache",' <<<"$out" || { echo "FAIL info_json: $out"; fail=1; }
check policies_json 0 "$bin" policies --json
json_object policies_json policies
grep -q '"name":"event-fence"' <<<"$out" || { echo "FAIL policies_json: $out"; fail=1; }
check bench_sim_json 0 "$bin" bench sim --bench_executions=50 --bench_only=peer --json
json_object bench_sim_json "bench sim"
grep -q '"scenario":"peer","monitors":"all","executions":50,' <<<"$out" || { echo "FAIL bench_sim_json: $out"; fail=1; }
grep -q '"monitors":"none (engine_only)"' <<<"$out" || { echo "FAIL bench_sim_json engine_only: $out"; fail=1; }
check validate_sim_json 0 "$bin" validate --backend=sim --validate_policies=event-fence \
  --validate_scenarios=one-region --validate_sim_executions=5 --json
json_object validate_sim_json validate
grep -q '"outcomes":\[{"policy":"event-fence","scenario":"one-region"' <<<"$out" || { echo "FAIL validate_sim_json: $out"; fail=1; }
check validate_in_process_json 2 "$bin" validate --validate_in_process --json
exit $fail
