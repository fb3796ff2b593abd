#!/usr/bin/env bash
# Runs our OpenMP offload programs (tests/programs, built by Debian's GCC 12
# with GCC 12.2's libgomp and nvptx plugin bundled) on a machine with a real
# GPU and driver, and records what each does: the same binaries that
# `stackcheck exec` explores on the simulated driver.
#
#   hardware/programs_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR [RUNS] [OBSERVE_SO] [STEER_DIR]
#
# With OBSERVE_SO (hardware/observe's libstackcheck_observe.so) the correct
# programs also run with it preloaded: the plugin's and the driver's calls
# timed (a region's cost broken down), and the abort runs once more with its
# jitter and its watchdog, which reports each thread's last call.
#
# With STEER_DIR (hardware/steering, written by hardware/make_steering.sh) each
# awm_<mode>.steer, a deadlock the simulator found, is run RUNS times steered
# by the observe preload (its threads enter the plugin's and the driver's
# calls in the simulated order) and RUNS times free, with the same arguments.
#
# For abort_while_mapping (thread A's first region traps while thread B maps,
# allocates, updates or runs regions) a run that has not ended after
# HANG_S seconds is a hang: its threads' stacks are written with gdb when gdb
# is there, then it is killed.
set -uo pipefail
tar_file=$1 out=$2 runs=${3:-3} observe=${4:-} steer_dir=${5:-}
[[ -z $observe ]] || observe=$(readlink -f "$observe")
[[ -z $steer_dir ]] || steer_dir=$(readlink -f "$steer_dir")
if [[ -n $steer_dir && -z $observe ]]; then echo "STEER_DIR needs OBSERVE_SO"; exit 2; fi
HANG_S=${HANG_S:-15}
mkdir -p "$out"
# Only the summary comes back when there are many files: keep logs apart.
mkdir -p "$out/logs"
work=$(mktemp -d)
tar -xf "$tar_file" -C "$work" || { echo "cannot unpack $tar_file"; exit 2; }
cd "$work/gpu_programs" || exit 2
export LD_LIBRARY_PATH=$PWD/lib OMP_TARGET_OFFLOAD=MANDATORY
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
note "machine: $(hostname); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
note "libgomp: $(readlink -f lib/libgomp.so.1)"

# run_one NAME ARGS...: one run, its status (124 = still running after HANG_S).
run_one() {
  local name=$1; shift
  local log=$out/logs/$name.log start end status
  start=$(date +%s%N)
  "$@" >"$log" 2>&1 &
  local pid=$!
  local waited=0
  while kill -0 "$pid" 2>/dev/null && (( waited < HANG_S * 10 )); do
    sleep 0.1; waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    status=124
    if command -v gdb >/dev/null; then
      gdb -p "$pid" -batch -ex 'thread apply all bt' >"$out/logs/$name.stacks" 2>&1
    fi
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  else
    wait "$pid"; status=$?
  fi
  end=$(date +%s%N)
  local ms=$(( (end - start) / 1000000 ))
  note "$(printf '%-28s status %3d  %6d ms  %s' "$name" "$status" "$ms" "$(grep -v '^$' "$log" | tail -1 | cut -c1-100)")"
}

# SYNC_ONLY=1: only the synchronisation programs (callback_lock, cond_wait,
# mutex_kinds).
sync_programs() {
  # A callback that locks a mutex main holds across cuStreamSynchronize: the
  # simulator reports the deadlock; the real driver must hang.
  for r in $(seq "$runs"); do
    run_one "callback_lock_deadlock_$r" ./callback_lock deadlock
  done
  run_one "callback_lock_safe" ./callback_lock safe
  for mode in signal timed-expires timed-woken lost; do
    for r in $(seq "$runs"); do
      run_one "cond_wait_${mode}_$r" ./cond_wait "$mode"
    done
  done
  # glibc's mutex types: recursive and errorcheck end, normal (a relock by
  # the owner) hangs.
  for mode in recursive errorcheck normal; do
    run_one "mutex_kinds_$mode" ./mutex_kinds "$mode"
  done
}
if [[ ${SYNC_ONLY:-0} == 1 ]]; then
  sync_programs
  echo "done: $summary"
  exit 0
fi

# STEERING_ONLY=1: only the steered and free runs of STEER_DIR's files.
if [[ ${STEERING_ONLY:-0} != 1 ]]; then
sync_programs
for mode in map alloc update regions; do
  for r in $(seq "$runs"); do
    run_one "awm_${mode}_trap_$r" ./abort_while_mapping "$mode" 2 0 100000
  done
  run_one "awm_${mode}_notrap" ./abort_while_mapping "$mode" 2 -1 200
done
# B doing host work only: the trap alone must end the process with status 1.
run_one "awm_trap_alone" ./abort_while_mapping map 2 0 0
for r in $(seq "$runs"); do
  run_one "threads_regions_2x100_$r" ./threads_regions 2 100 8 8
done
run_one "target_alloc_loop" ./target_alloc_loop 2 100 4 4096
if [[ -n $observe ]]; then
  for shape in "1 200 8 8" "2 200 8 8" "1 50 528 8"; do
    name="observed_threads_regions_${shape// /x}"
    STACKCHECK_OBSERVE_OUT=$out/$name.timing LD_PRELOAD=$observe \
      run_one "$name" ./threads_regions $shape
    cat "$out/$name.timing" >>"$summary"
  done
  for mode in map alloc; do
    name="observed_awm_${mode}_jitter"
    STACKCHECK_OBSERVE_OUT=$out/$name.report STACKCHECK_OBSERVE_JITTER_US=20 \
      STACKCHECK_OBSERVE_WATCHDOG_S=$((HANG_S - 5)) LD_PRELOAD=$observe \
      run_one "$name" ./abort_while_mapping "$mode" 2 0 100000
    grep -v '^  cu\|^  GOMP\|^  pthread\|calls timed' "$out/$name.report" >>"$summary" || true
  done
fi
fi
if [[ -n $steer_dir ]]; then
  for steer in "$steer_dir"/awm_*.steer; do
    [[ -e $steer ]] || continue
    # "# stackcheck steering: PROGRAM ARGS; PROPERTY": the simulated run's arguments.
    args=$(head -1 "$steer" | sed -E 's/^# stackcheck steering: [^ ]+ //; s/;.*$//')
    base=$(basename "$steer" .steer)
    for how in steered free; do
      for r in $(seq "$runs"); do
        name="${base}_${how}_$r"
        steer_file=""
        [[ $how == steered ]] && steer_file=$steer
        STACKCHECK_OBSERVE_STEER=$steer_file STACKCHECK_OBSERVE_OUT="$out/logs/$name.report" \
          STACKCHECK_OBSERVE_WATCHDOG_S=$((HANG_S - 5)) LD_PRELOAD="$observe" \
          run_one "$name" ./abort_while_mapping $args
        grep -h 'steering:\|STUCK' "$out/logs/$name.report" >>"$summary" 2>/dev/null || true
      done
    done
  done
fi
[[ ${STEERING_ONLY:-0} == 1 ]] || run_one "big_teams_528" ./big_teams 528 8
echo "done: $summary"
