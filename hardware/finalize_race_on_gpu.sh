#!/usr/bin/env bash
# libgomp's finalized-device window on a machine with a GPU:
# tests/programs/finalize_race (main's mapping fails, fatally, while a second
# thread runs regions) run free, many times, with a crash reporter preloaded
# (hardware/crash_report_preload.c), beside each given libgomp. A run still
# going after HANG_S seconds is killed (status 137).
#
#   hardware/finalize_race_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS REGIONS NAME=LIB_DIR...
#
# GPU_PROGRAMS_TAR is //tests/programs:gpu_programs.tar (Debian's libgomp and
# plugin in lib/); NAME=LIB_DIR puts LIB_DIR's libgomp.so.1 and
# libgomp-plugin-nvptx.so.1 first on the library path ("debian=" for the
# bundled ones). OUT_DIR gets runs.txt (a line a run: libraries, status,
# milliseconds, messages; a crash report after it) and summary.txt (statuses
# counted per libraries, the frames the crashes were in).
set -uo pipefail
if (($# < 5)); then
  echo "usage: finalize_race_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS REGIONS NAME=LIB_DIR..." >&2
  exit 2
fi
tar_file=$(readlink -f "$1") out=$(readlink -f "$2") runs=$3 regions=$4
shift 4
[[ $runs =~ ^[1-9][0-9]*$ && $regions =~ ^[1-9][0-9]*$ ]] ||
  { echo "finalize_race_on_gpu: RUNS and REGIONS must be positive numbers" >&2; exit 2; }
HANG_S=${HANG_S:-10}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -shared -fPIC -O1 "$here/crash_report_preload.c" -o "$work/crash_report.so" ||
  { echo "cannot build the crash reporter" >&2; exit 2; }
tar -xf "$tar_file" -C "$work" || { echo "cannot unpack $tar_file" >&2; exit 2; }
programs=$work/gpu_programs
summary=$out/summary.txt runs_file=$out/runs.txt
{
  echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "glibc: $(ldd --version 2>&1 | head -1)"
  echo "command: finalize_race $regions, $runs runs per libraries, killed after $HANG_S s"
  echo "started: $(date -u)"
} >"$summary"
: >"$runs_file"
for pair in "$@"; do
  name=${pair%%=*} dir=${pair#*=}
  [[ -z $dir ]] || dir=$(readlink -f "$dir")
  for r in $(seq "$runs"); do
    start=$(date +%s%N)
    (cd "$programs" && LD_LIBRARY_PATH=${dir:+$dir:}$programs/lib \
      LD_PRELOAD=$work/crash_report.so timeout -s KILL "$HANG_S" \
      ./finalize_race "$regions") >"$work/run.log" 2>&1
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    messages=$(grep -v '^  #\|crash report' "$work/run.log" | grep -v '^$' | sort -u | tr '\n' '|')
    echo "$name run $r status $status $ms ms | $messages" >>"$runs_file"
    if grep -q "crash report: signal" "$work/run.log"; then
      sed 's/^/    /' "$work/run.log" >>"$runs_file"
    fi
  done
done
{
  echo "finished: $(date -u)"
  echo "== runs by libraries and status (137: killed after ${HANG_S} s)"
  awk '$2 == "run" && $4 == "status" {n[$1 " status " $5]++} END {for (k in n) print k ": " n[k]}' \
    "$runs_file" | sort
  echo "== the frame each crash report names first, counted"
  grep -A1 "crash report: signal" "$runs_file" | grep '#' | sed 's/^ *//' | sort | uniq -c | sort -rn
} >>"$summary"
cat "$summary"
