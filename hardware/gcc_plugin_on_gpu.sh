#!/usr/bin/env bash
# GCC's nvptx plugin, stock and patched, on a machine with a real GPU: the
# exit-time hang's program steered and free (programs_on_gpu.sh), and
# kernel_shapes natively.
#
#   hardware/gcc_plugin_on_gpu.sh DIR OUT_DIR
#
# DIR holds gpu_programs.tar (//tests/programs:gpu_programs.tar, Debian's
# plugin inside), gpu_programs_rebuilt.tar and gpu_programs_patched.tar (the
# same with lib/libgomp-plugin-nvptx.so.1 replaced by //gcc:stock_plugin and
# //gcc:patched_plugin) and libstackcheck_observe.so (hardware/observe).
# OUT_DIR gets card.txt, kernel_shapes.txt and summary_{stock,rebuilt,patched}.txt.
set -u
dir=$(readlink -f "$1") out=$(readlink -f "$2")
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/card.txt"
work=$(mktemp -d)
tar -xf "$dir/gpu_programs.tar" -C "$work"
(cd "$work/gpu_programs" && for i in 1 2 3; do
  LD_LIBRARY_PATH=$PWD/lib OMP_TARGET_OFFLOAD=MANDATORY timeout 120 ./kernel_shapes
  echo "exit $?"
done) >"$out/kernel_shapes.txt" 2>&1
for v in stock:gpu_programs.tar rebuilt:gpu_programs_rebuilt.tar patched:gpu_programs_patched.tar; do
  name=${v%%:*} tarf=${v#*:}
  HANG_S=8 STEERING_ONLY=1 bash "$here/programs_on_gpu.sh" "$dir/$tarf" "$work/out_$name" 3 \
    "$dir/libstackcheck_observe.so" "$here/steering" >"$work/log_$name.txt" 2>&1
  cp "$work/out_$name/summary.txt" "$out/summary_$name.txt"
done
