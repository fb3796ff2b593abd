#!/usr/bin/env bash
# crash_report_preload.c: a program that dies of SIGSEGV with the reporter
# preloaded writes the report (signal, address, frames down to main's
# module) and still dies of SIGSEGV, status 139.
set -uo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/hardware
LD_PRELOAD=$here/crash_report.so "$here/null_write" >"$TEST_TMPDIR/out" 2>&1
status=$?
cat "$TEST_TMPDIR/out"
[[ $status -eq 139 ]] || { echo "FAIL: status $status, not 139"; exit 1; }
grep -q "^stackcheck crash report: signal 11 (Segmentation fault) at address (nil)" "$TEST_TMPDIR/out" ||
  { echo "FAIL: no report of the signal"; exit 1; }
grep -q "^  #[0-9]* null_write+0x" "$TEST_TMPDIR/out" || { echo "FAIL: no frame in the program"; exit 1; }
grep -q "^stackcheck crash report: end" "$TEST_TMPDIR/out" || { echo "FAIL: the report is cut short"; exit 1; }
echo PASS
