#!/usr/bin/env bash
# `stackcheck policies` lists every policy once, one line each with a summary,
# and rejects arguments with exit code 2. The names below are the ones this
# test knows; a policy added to the registry is checked by the same rules.
set -u
bin="cli/stackcheck"
fail=0
out=$("$bin" policies) || { echo "FAIL: policies exited $?"; fail=1; }
for name in v0-nocache v1a-callback-unlock v1b-callback-lock v2-gcc11 v3-trunk event-fence event-fence-sync; do
  n=$(grep -c "^$name  *[a-zA-Z(]" <<<"$out")
  [[ $n -eq 1 ]] || { echo "FAIL: '$name' listed $n times in: $out"; fail=1; }
done
# One line per policy: no name twice, no line that is not a policy's.
dup=$(awk '{print $1}' <<<"$out" | sort | uniq -d)
[[ -z $dup ]] || { echo "FAIL: listed twice: $dup"; fail=1; }
bad=$(grep -cv "^[a-z0-9-][a-z0-9-]*  *[a-zA-Z(]" <<<"$out")
[[ $bad -eq 0 ]] || { echo "FAIL: $bad lines that do not name a policy in: $out"; fail=1; }
"$bin" policies extra >/dev/null 2>&1; rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL: 'policies extra' exited $rc, want 2"; fail=1; }
"$bin" info | grep -q "^  event-fence " || { echo "FAIL: info does not list event-fence"; fail=1; }
exit $fail
