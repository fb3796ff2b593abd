#!/usr/bin/env bash
# entry_points.tsv lists exactly what the installed plugin resolves, and
# libcuda.so.1 exports every one of them (and cuGetProcAddress) under the
# soname the plugin dlopens; besides the driver API it exports exactly the
# interposers exports.lds names (program_threads.h), nothing of its own.
set -euo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/sim/libcuda
table=$here/entry_points.tsv
lib=$here/libcuda.so.1
listed=$(grep -v '^#' "$table" | tail -n +2 | cut -f1)
found=$("$here/list_entry_points.sh")
if [[ "$listed" != "$found" ]]; then
  echo "FAIL: entry_points.tsv and the installed plugin disagree:"
  diff <(echo "$listed") <(echo "$found") || true
  exit 1
fi
exports=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort -u)
missing=0
for name in $listed cuGetProcAddress; do
  grep -qx -- "$name" <<<"$exports" || { echo "FAIL: libcuda.so.1 does not export $name"; missing=1; }
done
extra=$(grep -v '^cu' <<<"$exports" | sort || true)
interposers=$(sed -n '/global:/,/local:/p' "$here/exports.lds" | tr ' ;' '\n\n' |
              grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | grep -v '^cu' | sort || true)
[[ "$extra" == "$interposers" ]] || {
  echo "FAIL: libcuda.so.1's non-driver exports differ from exports.lds's interposers:"
  diff <(echo "$interposers") <(echo "$extra") || true
  missing=1
}
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
[[ "$soname" == libcuda.so.1 ]] || { echo "FAIL: soname is '$soname'"; missing=1; }
[[ $missing -eq 0 ]] || exit 1
echo "PASS: $(wc -w <<<"$listed") entry points listed and exported, soname $soname"
