#!/usr/bin/env bash
# `stackcheck exec` on GCC 12.2's real libgomp and nvptx plugin:
# 1. abort_while_mapping (thread A's first region traps, thread B maps data):
#    the exit-time hang is found as a deadlock whose wait-for cycle names
#    libgomp's device lock and the plugin's stacks lock, and the destroy of
#    the held stacks lock at exit as a mutex-discipline violation;
# 2. the deadlock's replay file and token replay it with the same trace
#    digest, every time, and as a Chrome trace;
# 3. a thread stuck outside every scheduling point is reported, not hung;
# 4. a process the program starts or forks runs uncontrolled, none outlives
#    its execution, and no descriptor of
#    stackcheck's is open in the program;
# 5. bad input: exit 2 with a message, never a crash;
# 6. depth-first search: every schedule within a preemption bound, the
#    exit-time deadlock among them, and a correct program exhausted clean;
# 7. condition variables, plain and timed;
# 8. locks taken in a stream callback;
# 9. recursive, error-checking and normal mutexes; timed mutex locks,
#    read-write locks, spin locks, and threads that block every signal;
# 10. a thread spinning on sched_yield, and one spinning without (fair
#     scheduling); exit() on two threads at once, and from an exit handler;
# 11. fault plans count the program's own allocations, and hold several: one
#     failed allocation is retried (the plugin frees its cache), two in a row
#     make the mapping's failure fatal;
# 12. a crash of the program (GCC's plugin on a device another thread's exit
#     closed) is a finding that replays to the same crash;
# 13. depth-first search over faults: every plan of one fault (and of two
#     allocation failures in a row), and of up to two faults, each with every
#     schedule in the bound;
# 14. a time budget and a signal stop exec within a moment, with what it
#     covered, and no command leaves a scratch directory behind.
set -euo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
stackcheck=$here/cli/stackcheck
libcuda=$here/sim/libcuda/libcuda.so.1
program=$here/tests/programs/abort_while_mapping
tmp=${TEST_TMPDIR:-$(mktemp -d)}
replays=${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}/replays
fail() { echo "FAIL: $*"; exit 1; }
programs_dir=$here/tests/programs
# Every command's scratch directories land here; section 14 checks it is empty.
export TMPDIR=$tmp/exec_tmpdir
mkdir -p "$TMPDIR"

# 1. Exploration: at most 300 executions (the deadlock shows in about one in
# three; the seeds are fixed, so this is the same run every time).
status=0
"$stackcheck" exec --executions 300 --exec_all_findings --exec_faults abort@launch:1 \
  --libcuda "$libcuda" --exec_replay_dir "$replays" -- "$program" map 2 0 4 \
  >"$tmp/exec.out" 2>&1 || status=$?
cat "$tmp/exec.out"
[[ $status -eq 1 ]] || fail "exec should report violations (exit 1), got $status"
grep -q "^VIOLATION no-deadlock: deadlock: T[0-9] waits on libgomp's device lock .* held by T[0-9]; T[0-9] waits for mutex 'ptx_dev->omp_stacks.lock (the stacks lock)' held by T[0-9]$" "$tmp/exec.out" ||
  fail "no deadlock through the device lock and the stacks lock"
grep -q "^VIOLATION mutex-discipline: T[0-9] destroyed mutex 'ptx_dev->omp_stacks.lock (the stacks lock)' while" "$tmp/exec.out" ||
  fail "no destroy of the held stacks lock"
grep -q "^wait-for cycle:$" "$tmp/exec.out" || fail "no wait-for cycle printed"
grep -q "GOMP_OFFLOAD_alloc" "$tmp/exec.out" || fail "the timeline lacks the plugin's calls"
# (sed -n 1p rather than head or grep -m1: under pipefail, a reader that
# stops early can kill the writer with SIGPIPE, and the script with it.)
found=$(grep -A1 "^VIOLATION no-deadlock" "$tmp/exec.out" |
  sed -n 's/.*found at execution \([0-9]*\).*/\1/p' | sed -n 1p)
[[ $found -le 300 ]] || fail "deadlock found at execution $found"

# 2. Replay: the deadlock's file, then its token, a hundred times each (every
# one the same trace digest and the deadlock), and a Chrome trace.
replay=$(grep -A200 "^VIOLATION no-deadlock" "$tmp/exec.out" |
  sed -n 's/^replay: stackcheck replay \(.*\) -- .*/\1/p' | sed -n 1p)
token=$(grep -A200 "^VIOLATION no-deadlock" "$tmp/exec.out" | sed -n 's/^token: //p' | sed -n 1p)
[[ -f $replay ]] || fail "no replay file ($replay)"
for i in $(seq 100); do
  "$stackcheck" replay "$replay" --libcuda "$libcuda" -- "$program" >"$tmp/replay.out" 2>&1 ||
    { cat "$tmp/replay.out"; fail "replay $i did not reproduce"; }
  grep -q "^same trace digest as recorded$" "$tmp/replay.out" || fail "replay $i: digest differs"
done
for i in $(seq 100); do
  "$stackcheck" replay "$token" --libcuda "$libcuda" -- "$program" >"$tmp/token.out" 2>&1 ||
    { cat "$tmp/token.out"; fail "token replay $i did not reproduce"; }
  grep -q "^same trace digest as recorded$" "$tmp/token.out" || fail "token replay $i: digest differs"
  grep -q "^VIOLATION no-deadlock" "$tmp/token.out" || fail "token replay $i: not the deadlock"
done
"$stackcheck" replay "$replay" --libcuda "$libcuda" --json -- "$program" >"$tmp/replay.json" ||
  { cat "$tmp/replay.json"; fail "replay --json did not reproduce"; }
grep -q '^{"command":"replay",.*"recurred":true,.*"digest_matches":true' "$tmp/replay.json" ||
  { cat "$tmp/replay.json"; fail "replay --json: not one object saying it recurred"; }
"$stackcheck" replay "$replay" --libcuda "$libcuda" --format chrome --out "$tmp/trace.json" \
  -- "$program"
grep -q '^{"traceEvents":\[' "$tmp/trace.json" || fail "the Chrome trace does not start as one"
events=$(grep -o '"ph":"i"' "$tmp/trace.json" | wc -l)
[[ $events -gt 10 ]] || fail "the Chrome trace has $events events"

# 3. A thread stuck where exec cannot see (a semaphore): reported, not hung.
# (TEST_TMPDIR may hold an earlier run's directory: start empty.)
rm -rf "$tmp/stuck_replays"
status=0
"$stackcheck" exec --executions 1 --exec_watchdog_s 2 --libcuda "$libcuda" \
  --exec_replay_dir "$tmp/stuck_replays" -- "$here/tests/programs/stuck_outside" \
  >"$tmp/stuck.out" 2>&1 || status=$?
cat "$tmp/stuck.out"
[[ $status -eq 1 ]] || fail "a stuck program should be a finding (exit 1), got $status"
grep -q "^STUCK progress: T[0-9] ran 2 s without reaching a scheduling point" "$tmp/stuck.out" ||
  fail "no stuck report"
grep -q "^replayed: stuck again, same trace digest$" "$tmp/stuck.out" || fail "the stuck run's replay"
# Its file holds the schedule to the stuck state, the digest so far and a
# fingerprint; `replay` follows it there again.
stuck_file=$(ls "$tmp"/stuck_replays/*.replay)
grep -q "^fingerprint progress: stuck outside every scheduling point" "$stuck_file" ||
  fail "the stuck finding's file has no fingerprint"
! grep -q "^digest 0000000000000000$" "$stuck_file" || fail "the stuck finding's file has no digest"
"$stackcheck" replay --exec_watchdog_s 2 --libcuda "$libcuda" "$stuck_file" \
  -- "$here/tests/programs/stuck_outside" >"$tmp/stuck_replay.out" 2>&1 ||
  { cat "$tmp/stuck_replay.out"; fail "the stuck finding's file did not replay"; }
grep -q "^same trace digest as recorded$" "$tmp/stuck_replay.out" || fail "the stuck replay's digest"

# 4. A process the program starts is not controlled: it runs, exits 0, and
# leaves the execution's result alone.
status=0
# Built with --config=asan the library needs ASan's runtime loaded first.
asan=$(ldd "$libcuda" | awk '/libasan\.so/ && !found {print $3; found = 1}')
ASAN_OPTIONS=detect_leaks=0 STACKCHECK_EXEC=1 STACKCHECK_EXEC_RESULT="$tmp/spawn.json" \
  LD_PRELOAD="${asan:+$asan:}$libcuda" \
  "$here/tests/programs/spawn_child" >"$tmp/spawn.out" 2>&1 || status=$?
cat "$tmp/spawn.out"
[[ $status -eq 0 ]] || fail "spawn_child exited $status"
grep -q "^spawn_child: child status 0 " "$tmp/spawn.out" || fail "the child did not run as itself"
grep -q '"verdict": "clean"' "$tmp/spawn.json" || fail "the execution's result is not the parent's"

# A child the program forks holds none of the threads control hands over
# to: it runs uncontrolled, its driver calls fail (what a real driver does
# there is not yet measured), and the parent's wait for it is the program's
# own. A child
# left running ends with its execution: no process stays behind.
fork_explore() {
  local name=$1 mode=$2 status=0
  "$stackcheck" exec --libcuda "$libcuda" --exec_replay_dir "" --exec_faults none --executions 5 \
    -- "$here/tests/programs/fork_wait" "$mode" >"$tmp/$name.out" 2>&1 || status=$?
  cat "$tmp/$name.out"
  [[ $status -eq 0 ]] || fail "$name: exit $status"
  grep -q "5 executions .*no violation" "$tmp/$name.out" || fail "$name: not 5 clean executions"
}
fork_explore fork_exit _exit
fork_explore fork_region region
fork_explore fork_orphan orphan
sleep 0.5
for f in /proc/[0-9]*/cmdline; do
  if tr '\0' ' ' <"$f" 2>/dev/null | grep -q "fork_wait orphan"; then
    fail "a child the program forked outlived exec: ${f%/cmdline}"
  fi
done

# 4b. The program finds only its own descriptors open (0-2): neither the
# fork server's pipes nor anything else of stackcheck's, with the fork server
# and without it (the replay runs the program directly).
"$stackcheck" exec --executions 3 --exec_faults none --json --libcuda "$libcuda" \
  --exec_replay_dir "" -- "$here/tests/programs/open_descriptors" >"$tmp/fds.json" 2>"$tmp/fds.err" ||
  { cat "$tmp/fds.json" "$tmp/fds.err"; fail "open_descriptors under exec"; }
grep -q '"program_exit_statuses":\[0\]' "$tmp/fds.json" ||
  { cat "$tmp/fds.json"; fail "the program inherited descriptors of stackcheck's"; }

# A program that closes its standard error and opens a file there gets
# libgomp's lines in it, as on a GPU, and none of stackcheck's.
status=0
"$stackcheck" exec --executions 2 --exec_faults none --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$programs_dir/closed_stderr" "$tmp/program_stderr.txt" >"$tmp/closed.out" 2>&1 || status=$?
[[ $status -eq 1 ]] || { cat "$tmp/closed.out"; fail "closed_stderr: exit $status, want 1"; }
grep -q "^libgomp: cuCtxSynchronize error" "$tmp/program_stderr.txt" ||
  { cat "$tmp/program_stderr.txt"; fail "closed_stderr: libgomp's line is not in the program's file"; }
! grep -q "stackcheck" "$tmp/program_stderr.txt" ||
  { cat "$tmp/program_stderr.txt"; fail "stackcheck's report landed in the program's file"; }

# Started with SIGCHLD ignored (inherited from a parent), a correct program
# explores clean, and no fork server is left behind.
bash -c "trap '' CHLD; exec \"$stackcheck\" exec --executions 3 --exec_faults none \
  --libcuda \"$libcuda\" --exec_replay_dir '' -- \"$programs_dir/threads_regions\" 1 1 8 4" \
  >"$tmp/sigchld.out" 2>&1 || { cat "$tmp/sigchld.out"; fail "SIGCHLD ignored: not clean"; }
grep -q "no violation" "$tmp/sigchld.out" || { cat "$tmp/sigchld.out"; fail "SIGCHLD ignored"; }
sleep 0.5
! pgrep -f "$programs_dir/threads_regions 1 1 8 4" >/dev/null || fail "a fork server was left running"

# 5. Bad input.
expect_usage() {  # expect_usage MESSAGE-ERE ARGS...
  local ere=$1; shift
  local s=0
  "$stackcheck" "$@" >"$tmp/bad.out" 2>&1 || s=$?
  [[ $s -eq 2 ]] || { cat "$tmp/bad.out"; fail "'$*' should exit 2, got $s"; }
  grep -Eq "$ere" "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "'$*': no message matching $ere"; }
}
expect_usage "libgomp.so.1 is not loaded" exec --executions 1 --libcuda "$libcuda" -- /bin/true
expect_usage "no program 'no-such-program' on PATH" exec --libcuda "$libcuda" -- no-such-program
expect_usage "unknown fault" exec --exec_faults nonsense@launch:1 --libcuda "$libcuda" -- "$program"
expect_usage "exec_strategy is random, pct or dfs" exec --exec_strategy bfs --libcuda "$libcuda" -- "$program"
expect_usage "exec_bound must be in" exec --exec_strategy dfs --exec_bound -2 --libcuda "$libcuda" -- "$program"
expect_usage "usage: exec" exec --libcuda "$libcuda"
expect_usage "the program's name is empty" exec --libcuda "$libcuda" -- ""
expect_usage "is a directory, not a program" exec --libcuda "$libcuda" -- "$tmp"
expect_usage "a kernel name holds letters" exec --exec_faults "abort@kernel:a$(printf '\t')b:1" \
  --libcuda "$libcuda" -- "$program"
# A replay directory that cannot be written loses nothing: the token stays.
status=0
"$stackcheck" exec --executions 3 --exec_faults abort@launch:1 --exec_replay_dir /proc/no-such-dir \
  --libcuda "$libcuda" -- "$here/tests/programs/threads_regions" 1 1 8 4 >"$tmp/nodir.out" 2>&1 ||
  status=$?
[[ $status -eq 1 ]] || { cat "$tmp/nodir.out"; fail "unwritable replay dir: exit $status, want 1"; }
grep -q "the replay file was not written" "$tmp/nodir.out" || fail "unwritable replay dir unsaid"
grep -q "^token: exec1:" "$tmp/nodir.out" || fail "unwritable replay dir: the token was lost"
printf 'stackcheck exec replay v1\nprogram %s\nschedule 0,x\n' "$program" >"$tmp/bad.replay"
expect_usage "line 3: not a number in the schedule" replay "$tmp/bad.replay" --libcuda "$libcuda"
expect_usage "not base64" replay 'exec1:###' --libcuda "$libcuda"
# A token runs only the program its user names, and only the recorded build:
# a forged one that names the dynamic loader runs nothing.
expect_usage "runs only the program you name" replay "$replay" --libcuda "$libcuda"
expect_usage "is not the program the replay recorded" replay "$replay" --libcuda "$libcuda" \
  -- "$here/tests/programs/threads_regions"
forged="exec1:$(printf 'stackcheck exec replay v1\nprogram /lib64/ld-linux-x86-64.so.2\narg --preload\narg libgomp.so.1\narg /bin/sh\narg -c\narg touch %s/pwned\nschedule 0\ndigest 0\n' "$tmp" | base64 -w0 | tr '+/' '-_' | tr -d '=')"
expect_usage "runs only the program you name" replay "$forged" --libcuda "$libcuda"
[[ ! -e $tmp/pwned ]] || fail "a forged token ran a command"

# 6. Depth-first search. Without preemptions the map program's schedules are
# few (threads choose only where the running one blocks or ends), and the
# deadlock is among them.
status=0
"$stackcheck" exec --exec_strategy dfs --exec_bound 0 --exec_all_findings --exec_faults abort@launch:1 \
  --libcuda "$libcuda" --exec_replay_dir "" -- "$program" map 2 0 4 >"$tmp/dfs.out" 2>&1 || status=$?
cat "$tmp/dfs.out"
[[ $status -eq 1 ]] || fail "dfs should report the deadlock (exit 1), got $status"
grep -q "(dfs, preemption bound 0: exhausted yes" "$tmp/dfs.out" || fail "dfs did not exhaust bound 0"
grep -q "^VIOLATION no-deadlock: deadlock: T[0-9] waits on libgomp's device lock" "$tmp/dfs.out" ||
  fail "dfs did not find the deadlock"
# The same search as JSON: one object, the findings in it.
status=0
"$stackcheck" exec --json --exec_strategy dfs --exec_bound 0 --exec_all_findings \
  --exec_faults abort@kernel:thread_a:1 --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$program" map 2 0 4 >"$tmp/dfs.json" 2>/dev/null || status=$?
[[ $status -eq 1 ]] || fail "dfs --json should exit 1, got $status"
grep -q '^{"command":"exec",.*"exhausted":true,.*"findings":\[{.*"property":"no-deadlock".*"exit_status":1}$' \
  "$tmp/dfs.json" || { cat "$tmp/dfs.json"; fail "dfs --json: not one object with the deadlock"; }
status=0
"$stackcheck" exec --exec_strategy dfs --exec_bound 0 --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$here/tests/programs/threads_regions" 2 1 8 4 >"$tmp/dfs_clean.out" 2>&1 || status=$?
cat "$tmp/dfs_clean.out"
[[ $status -eq 0 ]] || fail "a correct program should explore clean, got $status"
grep -Eq "^exec .*: ([0-9]+) executions \(dfs, preemption bound 0: exhausted yes.*\), \1 distinct traces, no violation" \
  "$tmp/dfs_clean.out" || fail "dfs did not exhaust the correct program with every trace distinct"

# Sections 7-10 run one of our programs under exec: explore NAME STATUS
# EXEC-FLAGS... -- PROGRAM ARGS expects that exit status, the output in
# $tmp/NAME.out; expect_in NAME ERE WHAT checks a line of it.
explore() {
  local name=$1 expected=$2 status=0
  shift 2
  "$stackcheck" exec --libcuda "$libcuda" --exec_replay_dir "" --exec_faults none "$@" \
    >"$tmp/$name.out" 2>&1 ||
    status=$?
  cat "$tmp/$name.out"
  [[ $status -eq $expected ]] || fail "$name: exit $status, expected $expected"
}
expect_in() { grep -q -- "$2" "$tmp/$1.out" || fail "$1: $3"; }
# exhausted_clean NAME BOUND PROGRAM ARGS: every schedule within BOUND
# preemptions, none with a finding.
exhausted_clean() {
  local name=$1 bound=$2
  shift 2
  explore "$name" 0 --exec_strategy dfs --exec_bound "$bound" --exec_watchdog_s 20 -- "$@"
  expect_in "$name" "(dfs, preemption bound $bound: exhausted yes.*no violation" "not exhausted clean"
}
programs=$here/tests/programs

# 7. Condition variables (cond_wait.c): a correct hand-over explores clean
# within one preemption; a lost wake-up is a deadlock; a timed wait can be
# woken by the signal (the program aborts when it is, so exploration must
# crash it), and times out when nothing else can move (no signal: it ends).
exhausted_clean cond_signal 1 "$programs/cond_wait" signal
exhausted_clean cond_timed_expires 1 "$programs/cond_wait" timed-expires
explore cond_lost 1 --executions 100 -- "$programs/cond_wait" lost
expect_in cond_lost "^VIOLATION no-deadlock: .*T[0-9] waits on condition variable" \
  "the lost wake-up is not reported as a deadlock"
explore cond_timed_woken 1 --executions 100 -- "$programs/cond_wait" timed-woken
expect_in cond_timed_woken "^VIOLATION no-crash: T[0-9] died of Aborted" \
  "no timed wait was woken by the signal"

# 8. A stream callback's locks are the program's (callback_lock.c): holding
# a mutex the callback takes while waiting for the stream is a deadlock whose
# cycle runs through the stream and its callback; waiting first is clean.
explore callback_safe 0 --executions 50 -- "$programs/callback_lock" safe
explore callback_deadlock 1 --executions 50 -- "$programs/callback_lock" deadlock
expect_in callback_deadlock "^VIOLATION no-deadlock: deadlock: T0 waits in cuStreamSynchronize for gpu:s0 to drain; gpu:s0 waits for callback #0 running on callback; callback waits for mutex 'pthread mutex #1' held by T0$" \
  "not the cycle through the callback's lock"

# 9. glibc's mutex types (mutex_kinds.c): a recursive mutex relocked by its
# owner and an error-checking one's refusals explore clean (the program
# aborts on a wrong answer); a normal mutex relocked by its owner waits for
# itself.
exhausted_clean kinds_recursive 1 "$programs/mutex_kinds" recursive
exhausted_clean kinds_errorcheck 1 "$programs/mutex_kinds" errorcheck
explore kinds_normal 1 --executions 5 -- "$programs/mutex_kinds" normal
expect_in kinds_normal "^VIOLATION mutex-discipline: T0 locks mutex 'pthread mutex #1' again while holding it" \
  "the relock is not reported"

# Timed mutex locks, read-write locks (two readers hold one at once), spin
# locks, and threads that block every signal while they wait for libgomp's
# device lock (more_locks.c): correct programs, explored clean.
exhausted_clean locks_timedlock 1 "$programs/more_locks" timedlock
exhausted_clean locks_rwlock 1 "$programs/more_locks" rwlock
exhausted_clean locks_spin 1 "$programs/more_locks" spin
explore locks_sigmask 0 --executions 20 -- "$programs/more_locks" sigmask
expect_in locks_sigmask "20 executions .*no violation" "blocked signals: not 20 clean executions"

# C11 threads (c11_threads.c): glibc's thrd_*, mtx_*, cnd_* and call_once
# are controlled like the pthread calls they are built on: a correct
# hand-over explores clean and is exhausted within one preemption (more than
# one execution: the threads are scheduled), and a lost wake-up deadlocks.
exhausted_clean c11_handover 1 "$programs/c11_threads" handover
executions=$(grep -Eo '[0-9]+ executions \(dfs' "$tmp/c11_handover.out" | grep -Eo '^[0-9]+' || echo 0)
((executions > 10)) || fail "c11_handover: $executions execution(s): the C11 threads were not scheduled"
explore c11_lost 1 --executions 100 -- "$programs/c11_threads" lost
expect_in c11_lost "^VIOLATION no-deadlock: .*waits on condition variable" \
  "the C11 lost wake-up is not reported as a deadlock"

# 10. A thread that spins on sched_yield until another sets a flag
# (yield_spin.c): clean under random schedules, and depth-first within
# bounds 0 and 2 (a yield lets the other threads go first).
explore yield_random 0 --executions 30 -- "$programs/yield_spin"
exhausted_clean yield_dfs_0 0 "$programs/yield_spin"
exhausted_clean yield_dfs_2 2 "$programs/yield_spin"
# A thread that spins with device calls, no yield, until another sets a flag
# (busy_spin.c): fair scheduling lets the other run, so depth-first search
# ends clean within bounds 0 and 1 instead of starving it (STUCK).
exhausted_clean busy_dfs_0 0 "$programs/busy_spin"
explore busy_dfs_1 0 --exec_strategy dfs --exec_bound 1 --executions 60 --exec_watchdog_s 20 \
  -- "$programs/busy_spin"
expect_in busy_dfs_1 "^exec .*: 60 executions (dfs, preemption bound 1: exhausted no), .*no violation" \
  "a fair schedule of the spinning program did not end clean"

# Two exits (two_exits.c). Natively, glibc runs the exit handlers on both
# threads at once - what makes a second exit a finding; under exec that is
# no-concurrent-exit. An exit from a handler on the exiting thread goes on
# with the other handlers, natively and under exec alike: clean, status 4.
"$programs/two_exits" threads >"$tmp/two_exits_native.out" 2>&1 || true
grep -q "handler [0-9] on main" "$tmp/two_exits_native.out" &&
  grep -q "handler [0-9] on other" "$tmp/two_exits_native.out" ||
  { cat "$tmp/two_exits_native.out"; fail "glibc did not run the handlers on both exiting threads"; }
explore exits_threads 1 --executions 20 -- "$programs/two_exits" threads
expect_in exits_threads "^VIOLATION no-concurrent-exit: T[0-9] calls exit() while T[0-9]'s exit runs the exit handlers" \
  "the second thread's exit is not reported"
explore exits_handler 0 --exec_strategy dfs --exec_bound 1 -- "$programs/two_exits" handler
expect_in exits_handler "exhausted yes.*no violation, the program exited 4" \
  "an exit from an exit handler is not clean with status 4"

# 11. threads_regions 1 2 allocates three times itself (a mapping, the
# stacks, a mapping); the module's variables are the driver's own.
explore oom_once 0 --executions 3 --exec_faults oom@alloc:3 -- "$programs/threads_regions" 1 2 8 4
expect_in oom_once "no violation (" "one failed allocation should be retried and the program end well"
explore oom_twice 0 --executions 3 --exec_faults oom@alloc:3,oom@alloc:4 \
  -- "$programs/threads_regions" 1 2 8 4
expect_in oom_twice "the program exited 1" "two failed allocations should make the mapping fatal"

# 12. One thread's fatal mapping failure exits and closes the device; the
# other's region goes on into GOMP_OFFLOAD_run (seed 45 of this plan).
crash_dir=$tmp/crash
explore plugin_crash 1 --executions 1 --seed 45 --exec_faults oom@alloc:4,oom@alloc:5 \
  --exec_replay_dir "$crash_dir" -- "$programs/threads_regions" 2 3 8 4
expect_in plugin_crash "^VIOLATION no-crash: T[0-9] died of Segmentation fault in GOMP_OFFLOAD_run" \
  "the plugin's crash is not a finding"
expect_in plugin_crash "^replayed: same trace digest" "the crash did not replay"
crash_replay=$(ls "$crash_dir"/*.replay | sed -n 1p)
"$stackcheck" replay "$crash_replay" --libcuda "$libcuda" -- "$programs/threads_regions" \
  >"$tmp/crash_replay.out" 2>&1 ||
  { cat "$tmp/crash_replay.out"; fail "the crash's replay file did not replay"; }
grep -q "^same trace digest as recorded$" "$tmp/crash_replay.out" || fail "crash replay: digest differs"

# 13. threads_regions 1 2 launches twice and allocates three times: 10 plans
# (none, 2 x 2 launch faults, 3 single and 2 paired allocation failures).
status=0
"$stackcheck" exec --exec_strategy dfs --exec_bound 0 --exec_faults search --libcuda "$libcuda" \
  --exec_replay_dir "" -- "$programs/threads_regions" 1 2 8 4 >"$tmp/dfs_faults.out" 2>&1 || status=$?
cat "$tmp/dfs_faults.out"
[[ $status -eq 1 ]] || fail "dfs over faults: expected findings (exit 1), got $status"
grep -q "10 fault plans .*: exhausted yes" "$tmp/dfs_faults.out" ||
  fail "dfs over faults: not every plan walked to its end"
grep -q "^VIOLATION mutex-discipline: T[0-9] destroyed mutex 'ptx_dev->omp_stacks.lock" \
  "$tmp/dfs_faults.out" || fail "dfs over faults: a trap's destroy of the held lock not found"
# Up to two faults a plan: 33 plans and the fault-free one (counted by hand
# in properties/program/fault_plans_test.cc), each walked to its end.
status=0
"$stackcheck" exec --exec_strategy dfs --exec_bound 0 --exec_faults search --exec_max_faults 2 \
  --libcuda "$libcuda" --exec_replay_dir "" -- "$programs/threads_regions" 1 2 8 4 \
  >"$tmp/dfs_faults2.out" 2>&1 || status=$?
[[ $status -eq 1 ]] || { cat "$tmp/dfs_faults2.out"; fail "dfs over two faults: exit $status"; }
grep -q "34 fault plans (none, and every plan of up to 2 faults.*: exhausted yes" \
  "$tmp/dfs_faults2.out" || { cat "$tmp/dfs_faults2.out"; fail "dfs over two faults: not exhausted"; }

# 14. Bounds. A budget of 1 s ends a run whose first execution would take the
# watchdog's 20 s; the first SIGINT stops the execution in progress and
# reports what was covered (exit 130); two in a row end the process at once.
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
status=0
"$stackcheck" exec --time_budget_s 1 --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$here/tests/programs/stuck_outside" >"$tmp/budget.out" 2>&1 || status=$?
took=$(($(ms) - t0))
cat "$tmp/budget.out"
[[ $status -eq 0 ]] || fail "a budget that ends the run: exit $status"
((took < 10000)) || fail "a 1 s budget took $took ms (the execution in progress was not stopped)"
grep -q "the time budget (1 s) ended the run" "$tmp/budget.out" || fail "the budget's end unsaid"
# A count given is a count: cut short by the budget, the run says so and fails.
status=0
"$stackcheck" exec --executions 100000 --time_budget_s 1 --exec_faults none --libcuda "$libcuda" \
  --exec_replay_dir "" -- "$programs/threads_regions" 1 1 8 4 >"$tmp/count.out" 2>&1 || status=$?
[[ $status -eq 1 ]] || { cat "$tmp/count.out"; fail "a count cut short: exit $status, want 1"; }
grep -q "INCOMPLETE: [0-9]* of 100000 executions explored" "$tmp/count.out" ||
  fail "a count cut short is not said"
"$stackcheck" exec --executions 100000 --exec_faults none --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$programs/threads_regions" 1 1 8 4 >"$tmp/sigint.out" 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
t0=$(ms)
status=0
wait "$pid" || status=$?
took=$(($(ms) - t0))
cat "$tmp/sigint.out"
[[ $status -eq 130 ]] || fail "SIGINT: exit $status, want 130"
((took < 5000)) || fail "SIGINT took $took ms to stop exec"
grep -q "INTERRUPTED by signal 2 after [1-9][0-9]* executions" "$tmp/sigint.out" ||
  fail "SIGINT: what was covered is not reported"
"$stackcheck" exec --executions 5 --libcuda "$libcuda" --exec_replay_dir "" \
  -- "$here/tests/programs/stuck_outside" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"; kill -INT "$pid"
wait "$pid" || true
sleep 0.5
leftover=$(ls -A "$TMPDIR")
[[ -z "$leftover" ]] || fail "scratch directories left in TMPDIR: $leftover"
echo PASS
