#!/bin/bash
# libgomp and plugin with 0001-0003 on the GPU: free runs with the crash reporter,
# steered runs, per-region cost beside Debian's and the plugin patches alone.
OUT=$1; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
HANG_S=3 hardware/exit_crash_on_gpu.sh .gpu/gpu_programs.tar $OUT/free 50 fixed=.gpu/fixed_libgomp > /dev/null 2>&1
cat $OUT/free/summary.txt
date -u
HANG_S=8 STEERING_ONLY=1 timeout 200 hardware/programs_on_gpu.sh .gpu/gpu_programs_fixed.tar $OUT/steer 3 .gpu/libstackcheck_observe.so hardware/steering > $OUT/steer.log 2>&1
echo "steer rc $?"; cat $OUT/steer/summary.txt; rm -rf $OUT/steer/logs
date -u
timeout 200 hardware/plugin_region_cost_on_gpu.sh .gpu/gpu_programs.tar $OUT/cost keep=.gpu/keep fixed=.gpu/fixed_libgomp > $OUT/cost.log 2>&1
echo "cost rc $?"; cat $OUT/cost/summary.txt
date -u
