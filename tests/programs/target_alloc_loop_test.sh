#!/usr/bin/env bash
# target_alloc_loop on the simulated driver: every omp_target_alloc is one
# cuMemAlloc of its size and every omp_target_free one cuMemFree; no module
# is loaded (the program has no target region) and nothing is launched.
set -euo pipefail
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/tests/programs/sim_run.sh" || exit 1

sim_run 0 tests/programs/target_alloc_loop 2 3 4 1000
expect_output '^target_alloc_loop: 2 threads x 3 iterations x 4 blocks of 1000 bytes: ok \(24 allocations\)$'
expect_output 'verdict: no violation'
expect_calls 24 cuMemAlloc_v2
expect_count 24 '^cuMemAlloc_v2\(1000 bytes\) -> 0 '
expect_calls 24 cuMemFree_v2
expect_calls 0 cuModuleLoadData
expect_calls 0 cuLaunchKernel
expect_calls 1 cuCtxDestroy_v2
echo PASS
