#!/usr/bin/env bash
# Runs GCC 12.2's libgomp testsuite programs (//tests/gcc_testsuite:programs,
# the binaries the conformance test judges under `stackcheck exec`) natively on
# a machine with a real GPU and driver, with Debian 12's libgomp, nvptx
# plugin and Fortran runtime bundled, and records what each does:
#
#   hardware/gcc_testsuite_on_gpu.sh PROGRAMS_TAR[.xz] LIB_DIR OUT_DIR
#
# LIB_DIR holds libgomp.so.1, libgomp-plugin-nvptx.so.1, libgfortran.so.5 and
# libquadmath.so.0 from Debian 12. OMP_TARGET_OFFLOAD=MANDATORY: a program
# that cannot offload fails rather than falling back to the host. A run that
# has not ended after HANG_S seconds (default 60) is a hang and is killed.
# OUT_DIR/gpu_outcomes.tsv: name, expect (the manifest's), exit status,
# seconds, and the md5 of its stdout.
set -uo pipefail
tar_file=$1 lib_dir=$(readlink -f "$2") out=$3
HANG_S=${HANG_S:-60}
mkdir -p "$out/logs"
work=$(mktemp -d)
case $tar_file in
  *.xz) xz -dc "$tar_file" | tar -xf - -C "$work" ;;
  *) tar -xf "$tar_file" -C "$work" ;;
esac || { echo "cannot unpack $tar_file"; exit 2; }
export LD_LIBRARY_PATH=$lib_dir OMP_TARGET_OFFLOAD=MANDATORY
{
  echo "# machine: $(hostname); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
  printf 'name\texpect\tgpu_exit\tseconds\tstdout_md5\n'
} >"$out/gpu_outcomes.tsv"
tail -n +2 "$work/manifest.tsv" | while IFS=$'\t' read -r name expect _source _why; do
  [[ $expect == skip ]] && continue
  start=$(date +%s%N)
  timeout -s KILL "$HANG_S" "$work/bin/$name" >"$out/logs/$name.out" 2>"$out/logs/$name.err" </dev/null
  status=$?
  [[ $status -eq 137 ]] && status=hang
  end=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$expect" "$status" \
    "$(awk -v ns=$((end - start)) 'BEGIN {printf "%.2f", ns / 1e9}')" \
    "$(md5sum <"$out/logs/$name.out" | cut -c1-12)" >>"$out/gpu_outcomes.tsv"
done
awk -F'\t' 'NR > 3 {n++; if (($2 == "pass" && $3 == "0") || ($2 == "fail" && $3 != "0")) ok++}
  END {printf "%d programs, %d as the testsuite expects\n", n, ok}' "$out/gpu_outcomes.tsv"
