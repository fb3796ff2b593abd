# shellcheck shell=bash
# Sourced by the scripts that run an OpenMP offload program many times on a
# GPU host with the crash reporter preloaded (hardware/crash_report_preload.c):
# the set-up, one run, and the summary they share.
#
#   crash_runs_setup GPU_PROGRAMS_TAR OUT_DIR
#       builds the reporter, unpacks the programs (into $programs, Debian's
#       libgomp and plugin in $programs/lib) and starts OUT_DIR/summary.txt
#       ($summary) with the machine; OUT_DIR/runs.txt ($runs_file) gets a
#       line a run.
#   crash_run NAME LIB_DIR LABEL RUN PROGRAM ARGS...
#       runs PROGRAM in $programs with LIB_DIR first on the library path (""
#       for the bundled libraries) and killed after $HANG_S seconds; appends
#       "NAME LABEL RUN status S MS ms | messages", then any crash report.
#   crash_runs_summary TITLE [LINE...]
#       appends to $summary the runs counted by NAME, LABEL and status, the
#       LINEs, and every crash report with the run it ended; prints $summary.
# Extra environment for the program: CRASH_RUN_ENV (words of NAME=VALUE).

crash_runs_setup() {
  local tar_file here
  tar_file=$(readlink -f "$1")
  crash_out=$(readlink -f "$2")
  here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
  mkdir -p "$crash_out"
  crash_work=$(mktemp -d)
  trap 'rm -rf "$crash_work"' EXIT
  gcc -shared -fPIC -O1 "$here/crash_report_preload.c" -o "$crash_work/crash_report.so" ||
    { echo "cannot build the crash reporter" >&2; exit 2; }
  tar -xf "$tar_file" -C "$crash_work" || { echo "cannot unpack $tar_file" >&2; exit 2; }
  programs=$crash_work/gpu_programs
  summary=$crash_out/summary.txt runs_file=$crash_out/runs.txt
  {
    echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "glibc: $(ldd --version 2>&1 | head -1)"
    echo "started: $(date -u)"
  } >"$summary"
  : >"$runs_file"
}

crash_run() {
  local name=$1 dir=$2 label=$3 run=$4 start status ms messages
  shift 4
  [[ -z $dir ]] || dir=$(readlink -f "$dir")
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # CRASH_RUN_ENV is words
  (cd "$programs" && env LD_LIBRARY_PATH="${dir:+$dir:}$programs/lib" ${CRASH_RUN_ENV:-} \
    LD_PRELOAD="$crash_work/crash_report.so" timeout -s KILL "$HANG_S" "$@") \
    >"$crash_work/run.log" 2>&1
  status=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  messages=$(grep -v '^  #\|crash report' "$crash_work/run.log" | grep -v '^$' | tr '\n' '|')
  echo "$name $label $run status $status $ms ms | $messages" >>"$runs_file"
  if grep -q "crash report: signal" "$crash_work/run.log"; then
    sed 's/^/    /' "$crash_work/run.log" >>"$runs_file"
  fi
}

crash_runs_summary() {
  local title=$1
  shift
  {
    echo "finished: $(date -u)"
    echo "== $title (137: killed after ${HANG_S} s, a hang)"
    awk '$3 ~ /^[0-9]+$/ && $4 == "status" {n[$1 " " $2 " status " $5]++} END {for (k in n) print k ": " n[k]}' \
      "$runs_file" | sort
    for line in "$@"; do echo "$line"; done
    echo "== crash reports"
    awk '/^[^ ]/ {run = $0} /crash report: signal/ {print run; shown = 1}
         shown && /^    (stackcheck|  #)/ {print} /crash report: end/ {shown = 0}' "$runs_file"
  } >>"$summary"
  cat "$summary"
}
