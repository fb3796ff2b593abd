#!/usr/bin/env bash
# Builds the GPU-side binaries with --config=portable (everything but libc,
# libm and libgcc_s linked in; the driver is dlopen'ed) and copies them to
# .carry/bin, the git-ignored folder the device tool carries to the H200
# machine. Fails if a binary needs a newer glibc than the H200 image's 2.39.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly TARGETS=(//cli:stackcheck //real:cuda_device_test //hardware:hardware_runner_test
                  //real:os_host_test //real:shaken_host_test //real:cuda_entry_points_test
                  //hardware:policy_launch_bench)
./bazelw build --config=portable "${TARGETS[@]}"
# bazel-bin follows whichever config ran last in this shared tree; ask Bazel.
bin=$(./bazelw info --config=portable bazel-bin 2>/dev/null)
mkdir -p .carry/bin
for t in "${TARGETS[@]}"; do
  path=${t#//}; path=${path/://}
  install -m 0755 "$bin/$path" .carry/bin/
  f=.carry/bin/$(basename "$path")
  max=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
  if [[ "$(printf '%s\n2.39\n' "$max" | sort -V | tail -1)" != "2.39" ]]; then
    echo "build_portable: $f needs glibc $max > 2.39" >&2; exit 1
  fi
  libs=$(ldd "$f" | awk '{print $1}' | grep -vE 'linux-vdso|ld-linux|libc\.so|libm\.so|libgcc_s' || true)
  if [[ -n "$libs" ]]; then echo "build_portable: $f links $libs" >&2; exit 1; fi
  echo "$f: glibc <= $max, $(stat -c %s "$f") bytes"
done
