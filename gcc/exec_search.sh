# Sourced by gcc/'s exec tests: the runfiles' paths, and exec's depth-first
# search over every plan of up to two faults, each with every schedule
# without preemption, of a program beside a given libgomp and plugin.
#
#   exec_search NAME LIBRARY_DIR PROGRAM ARGS...   its JSON in $tmp/NAME.json
#   fingerprints NAME                              the findings', sorted
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
stackcheck=$here/cli/stackcheck
libcuda=$here/sim/libcuda/libcuda.so.1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
exec_search() {
  local name=$1 dir=$2
  shift 2
  LD_LIBRARY_PATH=$dir "$stackcheck" exec --json --exec_strategy dfs --exec_bound 0 \
    --exec_faults search --exec_max_faults 2 --executions 100000 --libcuda "$libcuda" \
    --exec_replay_dir "" -- "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
}
fingerprints() { grep -o '"fingerprint":"[^"]*"' "$tmp/$1.json" | sort; }
