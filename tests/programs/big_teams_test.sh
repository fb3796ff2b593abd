#!/usr/bin/env bash
# big_teams on the simulated driver (an H200-class device: 132 SMs, 64 Ki
# registers each, every kernel 64 registers per thread).
set -euo pipefail
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/tests/programs/sim_run.sh" || exit 1
kernel='"main\$_omp_fn\$0"'

# num_teams(100000) thread_limit(8): the plugin launches what the registers
# hold, 132 x 65536 / (64 x 32 x 8) = 528 teams, and its stacks block is
# 528 teams x 8 warps x 128 KiB = 528 MiB.
sim_run 0 tests/programs/big_teams 100000 8
expect_output '^big_teams: num_teams 100000, thread_limit 8, free device memory: not limited$'
expect_output '^big_teams: region ran: kernel not executed$'
expect_output 'verdict: no violation'
expect_count 1 "^cuLaunchKernel\($kernel, grid 528x1x1, block 32x8x1, .* -> 0 "
expect_count 1 '^cuMemAlloc_v2\(553648128 bytes\) -> 0 '

# The same region with about 256 MiB of device memory left: the stacks block
# does not fit, GOMP_OFFLOAD_run's allocation fails, a fatal error (exit 1),
# and nothing is launched.
sim_run 1 tests/programs/big_teams 100000 8 256
expect_output '^big_teams: num_teams 100000, thread_limit 8, free device memory: about 256 MiB$'
expect_output '^libgomp: cuMemAlloc error: '
expect_log '^cuMemAlloc_v2\(553648128 bytes\) -> 2 CUDA_ERROR_OUT_OF_MEMORY'
expect_calls 0 cuLaunchKernel
expect_calls 1 cuCtxDestroy_v2
echo PASS
