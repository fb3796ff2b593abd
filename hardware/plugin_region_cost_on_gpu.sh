#!/usr/bin/env bash
# What a target region that maps data costs with each build of GCC's nvptx
# plugin, on a machine with a real GPU: threads_regions (one thread, every
# region maps a small array tofrom) at libgomp's default geometry for the
# card (4 teams per SM, 8 warps: a stacks block above the plugin's 128 MiB
# soft limit), with Debian's plugin and each rebuilt one.
#
#   hardware/plugin_region_cost_on_gpu.sh PROGRAMS_TAR OUT_DIR NAME=PLUGIN_DIR...
#
# PROGRAMS_TAR is //tests/programs:gpu_programs.tar (Debian's libgomp and
# plugin inside); each PLUGIN_DIR holds a libgomp-plugin-nvptx.so.1 that
# replaces Debian's for the runs named NAME ("debian" uses the one in the
# tar), and its own libgomp.so.1 when it has one. The cost per region is
# (time of 220 regions - time of 20) / 200, so
# process start, context creation and image load cancel out; each length is
# run 5 times alternately with every plugin and the median taken. With
# OBSERVE_SO=libstackcheck_observe.so, one more 220-region run per plugin
# writes the per-call table (how often cuMemAlloc ran, and for how long) to
# OUT_DIR/observe_NAME.txt. OUT_DIR/summary.txt gets one line per plugin.
set -u
tarf=$(readlink -f "$1") out=$(readlink -f "$2")
shift 2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarf" -C "$work"
d=$work/gpu_programs
sms=$(nvidia-smi --query-gpu=multiprocessor_count --format=csv,noheader 2>/dev/null | head -1)
if ! [[ "$sms" =~ ^[0-9]+$ ]]; then
  # Older nvidia-smi has no SM count: ask the program's own default.
  sms=132
fi
teams=$((sms * 4))
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/card.txt"
echo "teams $teams (SMs $sms x 4), thread_limit 256 (8 warps)" | tee -a "$out/card.txt"
declare -A libdir
libdir[debian]=$d/lib
names=(debian)
for spec in "$@"; do
  name=${spec%%=*} dir=$(readlink -f "${spec#*=}")
  mkdir -p "$work/lib_$name"
  # A PLUGIN_DIR may hold its own libgomp.so.1 (//gcc:fixed_libgomp) too.
  libgomp=$d/lib/libgomp.so.1
  [[ -e $dir/libgomp.so.1 ]] && libgomp=$dir/libgomp.so.1
  cp -L "$libgomp" "$work/lib_$name/"
  cp -L "$dir/libgomp-plugin-nvptx.so.1" "$work/lib_$name/"
  libdir[$name]=$work/lib_$name
  names+=("$name")
done
# Seconds one run of R regions takes, or "fail".
run() {
  local name=$1 regions=$2 t0 t1
  t0=$(date +%s%N)
  if ! LD_LIBRARY_PATH=${libdir[$name]} OMP_TARGET_OFFLOAD=MANDATORY timeout 120 \
      "$d/threads_regions" 1 "$regions" "$teams" 256 >>"$out/runs_$name.log" 2>&1; then
    echo fail; return
  fi
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}
declare -A short long
for rep in 1 2 3 4 5; do
  for name in "${names[@]}"; do
    short[$name]+="$(run "$name" 20) "
    long[$name]+="$(run "$name" 220) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "fail")}'; }
: >"$out/summary.txt"
for name in "${names[@]}"; do
  s=$(echo "${short[$name]}" | median) l=$(echo "${long[$name]}" | median)
  if [[ "${short[$name]}${long[$name]}" == *fail* ]]; then
    echo "$name: a run failed (runs_$name.log); 20 regions: ${short[$name]}; 220: ${long[$name]}" \
      | tee -a "$out/summary.txt"
    continue
  fi
  per=$(awk -v s="$s" -v l="$l" 'BEGIN {printf "%.1f", (l - s) / 200}')
  echo "$name: us per region $per (median 20 regions ${s} us, 220 regions ${l} us; runs 20: ${short[$name]}; 220: ${long[$name]})" \
    | tee -a "$out/summary.txt"
  if [[ -n "${OBSERVE_SO:-}" ]]; then
    LD_LIBRARY_PATH=${libdir[$name]} OMP_TARGET_OFFLOAD=MANDATORY LD_PRELOAD=$(readlink -f "$OBSERVE_SO") \
      STACKCHECK_OBSERVE_OUT="$out/observe_$name.txt" timeout 120 \
      "$d/threads_regions" 1 220 "$teams" 256 >>"$out/runs_$name.log" 2>&1
  fi
done
