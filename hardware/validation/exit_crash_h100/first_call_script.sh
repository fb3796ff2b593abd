#!/bin/bash
# abort_while_mapping free, with a crash reporter preloaded: which thread
# dies of SIGSEGV at exit, and where. Plugins: Debian's, stock rebuild, patched.
OUT=$1; mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/card.txt
date -u | tee -a $OUT/card.txt
gcc -shared -fPIC -O1 .gpu/crash_report_preload.c -o /tmp/crash_report.so || exit 2
mkdir -p /tmp/gp && tar -xf .gpu/gpu_programs.tar -C /tmp/gp
P=/tmp/gp/gpu_programs; R=$PWD
one() { # one PLUGIN_DIR MODE: status and crash report
  local dir=$1 mode=$2 start end st
  start=$(date +%s%N)
  (cd $P && LD_LIBRARY_PATH=$dir:$P/lib OMP_TARGET_OFFLOAD=MANDATORY LD_PRELOAD=/tmp/crash_report.so \
     timeout -s KILL 4 ./abort_while_mapping $mode 2 0 100000) > /tmp/run.log 2>&1
  st=$?; end=$(date +%s%N)
  echo "status $st $(( (end-start)/1000000 )) ms | $(grep -v '^ *#\|crash report' /tmp/run.log | tr '\n' '|' | cut -c1-160)"
  if grep -q "crash report" /tmp/run.log; then cat /tmp/run.log; fi
}
{
for plug in debian:$P/lib stock:$R/.gpu/stock patched:$R/.gpu/patched; do
  name=${plug%%:*} dir=${plug#*:}
  if [[ $name == patched ]]; then modes="regions map alloc update"; n=25; else modes="regions"; n=20; fi
  for mode in $modes; do
    for i in $(seq $n); do echo "$name $mode $i $(one $dir $mode)"; done
  done
done
} > $OUT/crash_runs.txt 2>&1
date -u | tee -a $OUT/card.txt
echo "== summary"
awk '{print $1, $2, $4, $5}' $OUT/crash_runs.txt | grep -v '^ \|^stackcheck' | awk '$3=="status"{c[$1" "$2" "$4]++} END{for(k in c) print k, c[k]}' | sort
echo "== crash reports"
grep -B1 -A40 "crash report: signal" $OUT/crash_runs.txt | head -300
