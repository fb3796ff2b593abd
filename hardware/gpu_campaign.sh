#!/usr/bin/env bash
# Everything hardware/VALIDATION.md records, run on the H200 machine from the repo root
# with the binaries hardware/build_portable.sh put in .carry/bin. Raw output goes
# to $OUT (the device tool brings it back). Usage: gpu_campaign.sh PART...
#   env       machine, driver, binary facts
#   tests     the real/ and hardware/ unit tests (GPU cases run there, skip elsewhere)
#   probes    one hardware probe per SEM rule
#   validate  every policy x the hardware scenarios compared with the
#             simulator's search of them; every simulator counterexample is
#             steered onto the GPU (3 runs each)
#   steer     simulator counterexamples replayed on the GPU, steered
#   bench     the launch-cost benchmark
#   overlap   us per region through the runtime, back to back and with host
#             work between regions (which a policy that returns early overlaps)
#   sanitizer compute-sanitizer memcheck --leak-check full, correct policies
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/stackcheck-out}
mkdir -p "$OUT"
SC=.carry/bin/stackcheck
run() {  # run FILE CMD...: echo the command line, then its output and status
  local file=$1; shift
  { echo "\$ $*"; "$@" 2>&1; echo "[exit $?]"; echo; } >>"$OUT/$file"
}

part_env() {
  run env.txt date -u
  run env.txt uname -a
  run env.txt nvidia-smi
  run env.txt nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  run env.txt ldd "$SC"
  run env.txt "$SC" info
}

part_tests() {
  for t in cuda_entry_points_test os_host_test shaken_host_test cuda_device_test hardware_runner_test; do
    run tests.txt timeout 60 ".carry/bin/$t"
  done
}

part_probes() {
  run probes.txt timeout 90 "$SC" validate --backend=cuda --novalidate_campaign
}

part_validate() {
  run validate.txt timeout 540 "$SC" validate --backend=cuda --validate_repeat=2 \
      --validate_watchdog_s=2 --novalidate_sem_probes --validate_details
}

part_steer() {
  # Tokens printed by `stackcheck campaign` here (deterministic for a seed).
  local v1b_deadlock=sc1.AQUwLjEuMBF2MWItY2FsbGJhY2stbG9jawtuby1kZWFkbG9jawEBzwWAgASgnAGAgIADgIAgAQAAAAICAQCAgAgAAQEBgIAI6AcAAQACAQKAgAjoBwAKAAAAAAAAAAAAAQGv_PCIxI79wJMB
  local v3_b1=sc1.AQUwLjEuMAh2My10cnVuawtuby1kZWFkbG9jawEBzwWAgASgnAGAgKABgIAgAQAAAQEBAAEBAYCACOgHAQABlqDY6LXX-t1J
  local v0_misattributed=sc1.AQUwLjEuMAp2MC1ub2NhY2hlEWFib3J0LWF0dHJpYnV0aW9uAQHPBYCABKCcAYCAqAGAgEABAAAAAgIAAQEBgIAI6AcAAAIBAYCACOgHAQEBAICACBAAAAAAAAAAAAAAAAAAAAABAY-4lIfDwq3cygE
  local v1a_unlock=sc1.AQUwLjEuMBN2MWEtY2FsbGJhY2stdW5sb2NrEG11dGV4LWRpc2NpcGxpbmUBAc8FgIAEoJwBgIDgAYCAMAEAAAABAQABAQGAgAjoBwAAAaHZ5JnSu-rz6wE
  local v1b_lost_abort=sc1.AQUwLjEuMBF2MWItY2FsbGJhY2stbG9jaxFhYm9ydC1hdHRyaWJ1dGlvbgEBzwWAgASgnAGAgLgBgIBYAQAAAAEBAAEBAYCACOgHAQMAAAEBobu28rDz85Nm
  local v1b_uaf=sc1.AQUwLjEuMBF2MWItY2FsbGJhY2stbG9jaxFuby11c2UtYWZ0ZXItZnJlZQABzwWAgASgnAGAgKACgIBgAQAAAAEBAAEBAYCACOgHAAAB2pXAourXq7Yl
  # V1b: thread 0's region must be in flight, its callback pending, when
  # thread 1's bigger region takes the lock: start thread 1 20 ms later and
  # keep every kernel running 100 ms.
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v1b_deadlock \
      --validate_spawn_delays_ms=0,20 --validate_min_kernel_us=100000 --validate_repeat=3
  # Unsteered, for contrast: free scheduling with the counterexample's 1 us kernels.
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v1b_deadlock --validate_repeat=3
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v3_b1 --validate_repeat=3
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v0_misattributed \
      --validate_spawn_delays_ms=0,1 --validate_repeat=6
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v1a_unlock --validate_repeat=3
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v1b_lost_abort --validate_repeat=3
  run steer.txt "$SC" validate --backend=cuda --validate_replay=$v1b_uaf \
      --validate_min_kernel_us=50000 --validate_repeat=3
}

part_bench() {
  run bench.txt timeout 400 "$SC" bench launch --backend=cuda
}

part_overlap() {
  local b=.carry/bin/policy_launch_bench
  for policy in v2-gcc11 event-fence event-fence-sync; do
    run overlap.txt timeout 60 "$b" --policy=$policy --regions=2000
    run overlap.txt timeout 60 "$b" --policy=$policy --regions=2000 --kernel_ns=50000 --host_work_ns=50000
  done
}

part_sanitizer() {
  command -v compute-sanitizer >/dev/null || PATH=$PATH:/usr/local/cuda/bin
  for policy in v2-gcc11 event-fence event-fence-sync v0-nocache v3-trunk; do
    for scenario in two-threads alloc-after-big-region; do
      run sanitizer.txt timeout 40 compute-sanitizer --tool memcheck --leak-check full \
          --error-exitcode 99 "$SC" validate --backend=cuda --validate_in_process \
          --validate_policies=$policy --validate_scenarios=$scenario
    done
  done
}

part_steer_timed() { timeout 110 bash "$0" steer; }

for part in "$@"; do
  echo "=== $part $(date -u +%T)" >&2
  "part_$part"
done
