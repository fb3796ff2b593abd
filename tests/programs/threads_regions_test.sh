#!/usr/bin/env bash
# threads_regions on the simulated driver: every region is one launch of the
# region's kernel with the geometry the clauses ask for, one allocation and
# free of its mapped data, and one stacks block serves every region.
set -euo pipefail
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/tests/programs/sim_run.sh" || exit 1
kernel='"run_region\$_omp_fn\$0"'

# 2 threads x 3 regions of num_teams(4) thread_limit(8).
sim_run 0 tests/programs/threads_regions 2 3 4 8
expect_output '^threads_regions: 2 threads x 3 regions, num_teams 4, thread_limit 8: ok \(kernels executed: 0 of 6\)$'
expect_output 'verdict: no violation'
expect_calls 6 cuLaunchKernel
expect_count 6 "^cuLaunchKernel\($kernel, grid 4x1x1, block 32x8x1, .* -> 0 "
# Per region: the mapped array, the flag and the variable table in one block,
# sent in one copy and read back in two. Plus the stacks block:
# 4 teams x 8 warps x 128 KiB, kept (below the 128 MiB soft limit) until the
# device is closed.
expect_calls 7 cuMemAlloc_v2
expect_calls 7 cuMemFree_v2
expect_calls 6 cuMemcpyHtoD_v2
expect_calls 12 cuMemcpyDtoH_v2
expect_count 1 '^cuMemAlloc_v2\(4194304 bytes\) -> 0 '
expect_calls 1 cuCtxDestroy_v2

# thread_limit(3) launches 3 warps: GCC 12's plugin takes the OpenMP thread
# limit as a number of warps (block 32 x thread_limit, at most 32 warps).
sim_run 0 tests/programs/threads_regions 1 1 4 3
expect_output 'ok \(kernels executed: 0 of 1\)$'
expect_count 1 "^cuLaunchKernel\($kernel, grid 4x1x1, block 32x3x1, .* -> 0 "
expect_count 1 '^cuMemAlloc_v2\(1572864 bytes\) -> 0 '
echo PASS
