#!/usr/bin/env bash
# The exit-time crash on a machine with a GPU: abort_while_mapping (thread A's
# first region traps while thread B maps, allocates, updates or runs regions)
# run free, many times, with a crash reporter preloaded
# (hardware/crash_report_preload.c), beside each given nvptx plugin. A run
# that dies of SIGSEGV writes the faulting thread's stack; a run still going
# after HANG_S seconds is killed (status 137: the exit-time hang).
#
#   hardware/exit_crash_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS NAME=PLUGIN_DIR...
#
# GPU_PROGRAMS_TAR is //tests/programs:gpu_programs.tar (Debian's libgomp and
# plugin in lib/); NAME=PLUGIN_DIR puts PLUGIN_DIR's libgomp-plugin-nvptx.so.1
# first on the library path ("debian=" for the bundled one). OUT_DIR gets
# runs.txt (one line a run: plugin, mode, status, milliseconds, messages, and
# any crash report after it) and summary.txt (statuses counted per plugin and
# mode, the crash reports, the machine's glibc). Resolve a plugin frame with
# `addr2line -f -i -e PLUGIN OFFSET` on the same plugin file.
set -uo pipefail
tar_file=$(readlink -f "$1") out=$(readlink -f "$2") runs=$3
shift 3
HANG_S=${HANG_S:-4}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -shared -fPIC -O1 "$here/crash_report_preload.c" -o "$work/crash_report.so" ||
  { echo "cannot build the crash reporter"; exit 2; }
tar -xf "$tar_file" -C "$work" || { echo "cannot unpack $tar_file"; exit 2; }
programs=$work/gpu_programs
summary=$out/summary.txt runs_file=$out/runs.txt
{
  echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "glibc: $(ldd --version 2>&1 | head -1)"
  echo "started: $(date -u)"
} >"$summary"
: >"$runs_file"
for pair in "$@"; do
  name=${pair%%=*} dir=${pair#*=}
  [[ -z $dir ]] || dir=$(readlink -f "$dir")
  for mode in regions map alloc update; do
    for r in $(seq "$runs"); do
      start=$(date +%s%N)
      (cd "$programs" && LD_LIBRARY_PATH=${dir:+$dir:}$programs/lib OMP_TARGET_OFFLOAD=MANDATORY \
        LD_PRELOAD=$work/crash_report.so timeout -s KILL "$HANG_S" \
        ./abort_while_mapping "$mode" 2 0 100000) >"$work/run.log" 2>&1
      status=$?
      ms=$((($(date +%s%N) - start) / 1000000))
      messages=$(grep -v '^  #\|crash report' "$work/run.log" | grep -v '^$' | tr '\n' '|')
      echo "$name $mode $r status $status $ms ms | $messages" >>"$runs_file"
      if grep -q "crash report: signal" "$work/run.log"; then
        sed 's/^/    /' "$work/run.log" >>"$runs_file"
      fi
    done
  done
done
{
  echo "finished: $(date -u)"
  echo "== runs by plugin, mode and status (137: killed after ${HANG_S} s, a hang)"
  awk '$3 ~ /^[0-9]+$/ && $4 == "status" {n[$1 " " $2 " status " $5]++} END {for (k in n) print k ": " n[k]}' \
    "$runs_file" | sort
  echo "== runs that printed \"device finalization failed\": $(grep -c 'device finalization failed' "$runs_file")"
  echo "== crash reports"
  awk '/^[^ ]/ {run = $0} /crash report: signal/ {print run; shown = 1}
       shown && /^    (stackcheck|  #)/ {print} /crash report: end/ {shown = 0}' "$runs_file"
} >>"$summary"
cat "$summary"
