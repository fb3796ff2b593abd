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
if (($# < 4)); then
  echo "usage: exit_crash_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS NAME=PLUGIN_DIR..." >&2
  exit 2
fi
out=$2 runs=$3
HANG_S=${HANG_S:-4}
# shellcheck source=hardware/crash_runs.sh
source "$(dirname "$(readlink -f "$0")")/crash_runs.sh"
crash_runs_setup "$1" "$out"
shift 3
for pair in "$@"; do
  name=${pair%%=*} dir=${pair#*=}
  for mode in regions map alloc update; do
    for r in $(seq "$runs"); do
      CRASH_RUN_ENV="OMP_TARGET_OFFLOAD=MANDATORY" \
        crash_run "$name" "$dir" "$mode" "$r" ./abort_while_mapping "$mode" 2 0 100000
    done
  done
done
crash_runs_summary "runs by plugin, mode and status" \
  "== runs that printed \"device finalization failed\": $(grep -c 'device finalization failed' "$runs_file")"
