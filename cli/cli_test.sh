#!/usr/bin/env bash
# The command line's contract: --help exits 0 and lists commands; an unknown
# command or flag exits 2 with a one-line error.
set -u
bin="cli/stackcheck"
fail=0
check() {  # check NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $name: exit $rc, want $want; output: $out"; fail=1; fi
}
check help 0 "$bin" --help
"$bin" --help | grep -q "^  info" || { echo "FAIL: --help does not list info"; fail=1; }
check unknown_command 2 "$bin" frobnicate
check unknown_flag 2 "$bin" --no_such_flag
lines=$("$bin" --no_such_flag 2>&1 | wc -l)
[[ $lines -eq 1 ]] || { echo "FAIL: unknown flag error is $lines lines, want 1"; fail=1; }
check info 0 "$bin" info
exit $fail
