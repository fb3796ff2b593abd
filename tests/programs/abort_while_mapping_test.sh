#!/usr/bin/env bash
# abort_while_mapping on the simulated driver, no trap (kernels do not execute
# and no fault is injected): both threads finish in every mode, and the calls
# are thread A's three regions plus what thread B's four iterations do.
set -euo pipefail
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/tests/programs/sim_run.sh" || exit 1

# Thread A alone, in every mode: 3 launches, each with one block (array and
# variable table) allocated, sent, read back and freed; one stacks block.
check_a() {
  expect_output "^abort_while_mapping: mode $1, A 3 regions \(trap at region -1\), B 4 iterations: both threads finished$"
  expect_output 'verdict: no violation'
  expect_count 3 '^cuLaunchKernel\("thread_a\$_omp_fn\$0", grid 1x1x1, block 32x1x1, .* -> 0 '
  expect_count 1 '^cuMemAlloc_v2\(131072 bytes\) -> 0 '
}

# map: each iteration allocates and sends the buffer, and frees it.
sim_run 0 tests/programs/abort_while_mapping map 3 -1 4
check_a map
expect_calls 3 cuLaunchKernel
expect_calls 8 cuMemAlloc_v2
expect_calls 8 cuMemFree_v2
expect_calls 7 cuMemcpyHtoD_v2
expect_calls 3 cuMemcpyDtoH_v2

# update: one allocation; each iteration one copy each way.
sim_run 0 tests/programs/abort_while_mapping update 3 -1 4
check_a update
expect_calls 3 cuLaunchKernel
expect_calls 5 cuMemAlloc_v2
expect_calls 5 cuMemFree_v2
expect_calls 8 cuMemcpyHtoD_v2
expect_calls 7 cuMemcpyDtoH_v2

# alloc: each iteration one allocation and one free of 256 bytes.
sim_run 0 tests/programs/abort_while_mapping alloc 3 -1 4
check_a alloc
expect_calls 3 cuLaunchKernel
expect_count 4 '^cuMemAlloc_v2\(256 bytes\) -> 0 '
expect_calls 8 cuMemAlloc_v2
expect_calls 8 cuMemFree_v2

# regions: each iteration a region of its own kernel.
sim_run 0 tests/programs/abort_while_mapping regions 3 -1 4
check_a regions
expect_count 4 '^cuLaunchKernel\("regions_loop\$_omp_fn\$0", grid 1x1x1, block 32x1x1, .* -> 0 '
expect_calls 7 cuLaunchKernel
expect_calls 8 cuMemAlloc_v2
expect_calls 8 cuMemFree_v2
expect_calls 7 cuMemcpyDtoH_v2
echo PASS
