# Sourced by the program tests: runs an OpenMP offload program on the
# simulated libcuda.so.1 and checks its output and the library's call log.
#
#   sim_run STATUS PROGRAM ARGS...   run it; its exit status must be STATUS
#   expect_output ERE                a line of its stdout+stderr matches
#   expect_log ERE                   a line of the call log matches
#   expect_count N ERE               exactly N lines of the call log match
#   expect_calls N NAME              exactly N calls of NAME returned 0
#
# A failed check prints the program's output and the log, and exits 1.
set -euo pipefail

sim_here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
sim_libcuda_dir=$sim_here/sim/libcuda
sim_tmp=${TEST_TMPDIR:-$(mktemp -d)}
# Each run's log is kept with the test's outputs (bazel-testlogs/.../test.outputs).
sim_logs=${TEST_UNDECLARED_OUTPUTS_DIR:-$sim_tmp}
sim_runs=0
sim_log=
sim_out=
# Built with --config=asan, the library needs the ASan runtime, which must
# come first in a program that is not itself instrumented: preload it. The
# program's own allocations are not ours to judge (LeakSanitizer would stop
# at the test programs' deliberate leaks at exit).
sim_preload=$(ldd "$sim_libcuda_dir/libcuda.so.1" | awk '/libasan\.so/ && !found {print $3; found = 1}')
if [[ -n $sim_preload ]]; then export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0; fi

sim_fail() {
  echo "FAIL: $*"
  echo "--- program output"; cat "$sim_out" || true
  echo "--- call log (the simulator's event log left out: see $sim_log)"
  sed '/^== simulator event log ==$/,$d' "$sim_log" || true
  exit 1
}

sim_run() {
  local want=$1 program=$2
  shift 2
  local plugin=/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1
  [[ -r $plugin ]] || { echo "FAIL: $plugin missing (./bazelw installs libgomp-plugin-nvptx1)"; exit 1; }
  sim_runs=$((sim_runs + 1))
  sim_log=$sim_logs/run$sim_runs.libcuda.log
  sim_out=$sim_tmp/run$sim_runs.out
  echo "=== $(basename "$program") $*"
  local status=0
  LD_PRELOAD=$sim_preload LD_LIBRARY_PATH=$sim_libcuda_dir OMP_TARGET_OFFLOAD=MANDATORY \
    STACKCHECK_LIBCUDA_LOG=$sim_log \
    timeout 120 "$sim_here/$program" "$@" >"$sim_out" 2>&1 || status=$?
  cat "$sim_out"
  [[ $status -eq $want ]] || sim_fail "exited with $status, want $want"
}

expect_output() { grep -Eq -- "$1" "$sim_out" || sim_fail "no output line matches: $1"; }
expect_log() { grep -Eq -- "$1" "$sim_log" || sim_fail "no log line matches: $1"; }

expect_count() {
  local n
  n=$(grep -Ec -- "$2" "$sim_log" || true)
  [[ $n -eq $1 ]] || sim_fail "$n log lines match $2, want $1"
}

expect_calls() { expect_count "$1" "^$2(\(.*\))? -> 0 "; }
