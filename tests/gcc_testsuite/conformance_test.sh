#!/usr/bin/env bash
# GCC 12.2's libgomp testsuite as stackcheck's conformance suite: every
# offloading run test (built by build_programs.sh) runs three ways, and
# `stackcheck exec` must agree with what the test expects of a working
# offload system:
#
#   native      the program alone: no GPU here, so libgomp's host fallback
#   simulated   on the simulated driver, preloaded so that it sees the
#               program's offload images: kernels execute on the simulated
#               device, one schedule; exit status, and stdout equal to the
#               native run's where that one passed
#   exec        `stackcheck exec`, fault-free, EXECUTIONS random schedules:
#               no finding and exit 0 for a test that passes; for one that
#               expects to fail (dg-shouldfail), a non-zero exit, the
#               program dying of a signal (no-crash), or GCC 12.2's own
#               destroy of the held stacks lock (mutex-discipline), which
#               the GPU shows too
#
#   conformance_test.sh PROGRAMS.tar STACKCHECK LIBCUDA_DIR UNSUPPORTED.tsv
#
# Prints a row per program and a summary; writes the rows as TSV to
# $TEST_UNDECLARED_OUTPUTS_DIR/gcc_testsuite.tsv. Fails on any disagreement,
# any crash of stackcheck's, an unsupported row that now agrees, or more
# unsupported programs than 5 % of those judged.
set -euo pipefail
programs_tar=$1
stackcheck=$(realpath "$2")
libcuda_dir=$(realpath "$3")
unsupported_tsv=$(realpath "$4")
executions=${EXECUTIONS:-3}
work=${TEST_TMPDIR:-$(mktemp -d)}/gcc_testsuite
results=${TEST_UNDECLARED_OUTPUTS_DIR:-$work}/gcc_testsuite.tsv
rm -rf "$work"
mkdir -p "$work/programs" "$work/runs"
tar -xf "$programs_tar" -C "$work/programs"
cd "$work/runs"

# One program, all three ways; prints its TSV row:
# name expect native simulated exec_verdict exec_exit exec_per_s agrees note
judge() {
  local name=$1 expect=$2 bin=$work/programs/bin/$1 dir=$work/runs/$1
  mkdir -p "$dir" && cd "$dir"
  local native=0 simulated=0
  timeout 120 "$bin" >native.out 2>native.err </dev/null || native=$?
  LD_PRELOAD=$libcuda_dir/libcuda.so.1 LD_LIBRARY_PATH=$libcuda_dir timeout 300 "$bin" \
    >sim.out 2>sim.err </dev/null || simulated=$?
  local exec_status=0
  timeout 600 "$stackcheck" exec --executions "$executions" --exec_faults none --json \
    --libcuda "$libcuda_dir/libcuda.so.1" \
    --exec_replay_dir "$dir/replays" -- "$bin" >exec.json 2>exec.err </dev/null || exec_status=$?
  local verdict exit_status properties
  verdict=$(grep -o '"verdict":"[a-z-]*"' exec.json | head -1 | cut -d'"' -f4)
  # The program's own exit statuses over the executions, e.g. "0" or "1".
  exit_status=$(grep -o '"program_exit_statuses":\[[-0-9,]*\]' exec.json | head -1 |
    sed 's/.*\[//; s/\]//')
  properties=$(grep -o '"property":"[a-z-]*"' exec.json | cut -d'"' -f4 | sort -u | tr '\n' ' ')
  local rate
  rate=$(grep -o '"executions_per_s":[0-9.e+-]*' exec.json | head -1 | cut -d: -f2)
  local agrees=yes note=""
  if [[ $exec_status -ne 0 && $exec_status -ne 1 ]]; then
    agrees=no note="stackcheck exec exited $exec_status: $(tail -c 300 exec.err | tr '\n\t' '  ')"
  elif [[ $expect == pass ]]; then
    if [[ $simulated -ne 0 ]]; then
      agrees=no note="simulated run exited $simulated: $(tail -c 200 sim.err | tr '\n\t' '  ')"
    elif [[ $native -eq 0 ]] && ! cmp -s native.out sim.out; then
      agrees=no note="simulated stdout differs from native"
    elif [[ $verdict != clean || $exit_status != 0 ]]; then
      agrees=no note="exec: $verdict ${properties}exit $exit_status"
    fi
  else
    if [[ $simulated -eq 0 ]]; then
      agrees=no note="simulated run exited 0 where the test expects a failure"
    elif [[ $verdict == clean && ,$exit_status, == *,0,* ]]; then
      agrees=no note="exec: clean, exit $exit_status, where the test expects a failure"
    elif [[ $verdict != clean && $properties != "no-crash " &&
            ($properties != "mutex-discipline " || $(grep -c 'omp_stacks.lock' exec.json) -eq 0) ]]; then
      agrees=no note="exec: $verdict $properties"
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$expect" "$native" "$simulated" \
    "${verdict:-none}" "${exit_status:-none}" "${rate:-0}" "$agrees" "$note"
}
export -f judge
export work stackcheck libcuda_dir executions

tail -n +2 "$work/programs/manifest.tsv" | awk -F'\t' '$2 != "skip" {print $1 "\t" $2}' |
  xargs -P "$(nproc)" -L 1 bash -c 'judge "$0" "$1"' | sort >"$work/rows.tsv"

passed=0 failed=0 unsupported=0 unsupported_agree=0
declare -A reason
while IFS=$'\t' read -r name why; do
  [[ -z $name || $name == \#* ]] && continue
  reason[$name]=$why
done <"$unsupported_tsv"
{
  printf 'name\texpect\tnative\tsimulated\texec\texec_exit\texec_per_s\tagrees\tnote\n'
  cat "$work/rows.tsv"
  awk -F'\t' '$2 == "skip" {print $1 "\tskip\t\t\t\t\t\tskipped\t" $4}' "$work/programs/manifest.tsv"
} >"$results"
printf '%-52s %-6s %-6s %-9s %-10s %s\n' program expect native simulated exec result
while IFS=$'\t' read -r name expect native simulated verdict exit_status _rate agrees note; do
  result=ok
  if [[ -n ${reason[$name]:-} ]]; then
    unsupported=$((unsupported + 1))
    result="unsupported: ${reason[$name]}"
    if [[ $agrees == yes ]]; then
      unsupported_agree=$((unsupported_agree + 1))
      result="AGREES NOW, remove it from unsupported.tsv"
    fi
  elif [[ $agrees == yes ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    result="DISAGREES: $note"
  fi
  printf '%-52s %-6s %-6s %-9s %-10s %s\n' "$name" "$expect" "$native" "$simulated" \
    "$verdict/$exit_status" "$result"
done <"$work/rows.tsv"
skipped=$(tail -n +2 "$work/programs/manifest.tsv" | awk -F'\t' '$2 == "skip"' | wc -l)
echo
tail -n +2 "$work/programs/manifest.tsv" | awk -F'\t' '$2 == "skip" {print "skipped: " $1 ": " $4}'
judged=$((passed + failed))
echo "agreeing $passed, disagreeing $failed, unsupported $unsupported (listed), skipped $skipped (the testsuite's own requirements or build)"
status=0
if ((unsupported_agree > 0)); then status=1; fi
if ((unsupported * 20 > judged + unsupported)); then
  echo "more than 5 % of the programs are unsupported"
  status=1
fi
echo "$passed passed, $((failed + unsupported_agree)) failed"
((failed == 0)) || status=1
exit $status
