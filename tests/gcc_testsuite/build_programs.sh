#!/usr/bin/env bash
# Builds the offloading programs of GCC 12.2's own libgomp testsuite, read
# from Debian's gcc-12-source tarball (nothing of GCC's is kept in this tree),
# with Debian's gcc-12, g++-12 and gfortran-12 for nvptx:
#
#   build_programs.sh TARBALL OUT.tar
#
# The candidates are the run tests of libgomp.c, libgomp.c-c++-common,
# libgomp.c++ and libgomp.fortran that offload (`omp target`, `omp declare
# target`): `dg-do run` is the testsuite's default; compile-only tests are
# left out. Each test's own directives are honoured: dg-options and
# dg-additional-options, dg-additional-sources, dg-shouldfail (the test
# expects a non-zero exit), and dg-require-effective-target for what an nvptx
# device is (a test that needs a device sharing the host's address space is
# skipped, as GCC's testsuite skips it there). OUT.tar holds, per program,
# bin/NAME, and a line in `manifest.tsv`: NAME, expect (pass|fail|skip),
# source, and why when skipped or not built. Programs build in parallel.
set -euo pipefail
tarball=$1
out=$(realpath -m "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$tarball" -C "$work" --wildcards --strip-components=2 \
  'gcc-12.2.0/libgomp/testsuite/libgomp.c/*' \
  'gcc-12.2.0/libgomp/testsuite/libgomp.c-c++-common/*' \
  'gcc-12.2.0/libgomp/testsuite/libgomp.c++/*' \
  'gcc-12.2.0/libgomp/testsuite/libgomp.fortran/*'
suite=$work/testsuite
mkdir -p "$work/out/bin" "$work/rows"

# Effective targets an nvptx offload device satisfies on x86-64 Debian 12
# (GCC's lib/target-supports.exp and libgomp's libgomp.exp name them).
satisfied() {
  case $1 in
    offload_device | offload_device_nonshared_as | offload_target_nvptx | size32plus | \
      sync_int_long | tls | tls_runtime | lto | fpic | shared | large_long_double | avx_runtime)
      return 0 ;;
    *) return 1 ;;
  esac
}

# The quoted argument of each `dg-NAME "..."` in FILE (one per line) that
# applies here: no target selector, or one naming nvptx or x86-64.
directive() {
  grep "dg-$1 " "$2" | grep -v -E '\{ *target' | grep -o "dg-$1 \"[^\"]*\"" |
    sed "s/^dg-$1 \"//; s/\"\$//" || true
  grep "dg-$1 " "$2" | grep -E '\{ *target[^}]*(nvptx|x86_64)' | grep -o "dg-$1 \"[^\"]*\"" |
    sed "s/^dg-$1 \"//; s/\"\$//" || true
}

build_one() {
  local file=$1 dir lang compiler name devlibs
  dir=$(basename "$(dirname "$file")")
  name=$dir.$(basename "$file" | sed 's/\.[^.]*$//')
  case $file in
    *.c) compiler=gcc-12; devlibs="" ;;
    *.C) compiler=g++-12; devlibs="" ;;
    *) compiler=gfortran-12; devlibs="-lgfortran -lm" ;;
  esac
  local expect=pass why=""
  grep -q "dg-shouldfail" "$file" && expect=fail
  if grep -E 'dg-xfail-(run-)?if' "$file" | grep -q offload_target_nvptx; then
    expect=fail
    why="the testsuite expects it to fail for nvptx (dg-xfail-if)"
  fi
  local target
  for target in $(grep -o 'dg-require-effective-target [a-z_0-9]*' "$file" | awk '{print $2}'); do
    if ! satisfied "$target"; then expect=skip; why="needs effective target $target"; fi
  done
  if [[ $expect != skip ]]; then
    local options extra="" source
    options="$(directive options "$file" | tr '\n' ' ') $(directive additional-options "$file" | tr '\n' ' ')"
    for source in $(grep -o 'dg-additional-sources "\?[^"}]*' "$file" | sed 's/dg-additional-sources "\?//'); do
      extra="$extra $(dirname "$file")/$source"
    done
    # Each program in a directory of its own: Fortran writes module files.
    mkdir -p "$work/build/$name"
    cd "$work/build/$name"
    # shellcheck disable=SC2086 # options are words
    if ! $compiler -O2 -fopenmp -foffload=nvptx-none \
        -foffload-options=nvptx-none="-misa=sm_80 $devlibs" -no-pie -I"$(dirname "$file")" \
        $options "$file" $extra -o "$work/out/bin/$name" -lm >"$work/rows/$name.log" 2>&1; then
      [[ $expect == fail ]] && why="$why; it does not build" || why="does not build here"
      why="$why: $(grep -m1 -i -E 'unresolved|error' "$work/rows/$name.log" | sed "s|$suite/||" | cut -c1-120)"
      expect=skip
    fi
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$expect" "${file#"$suite"/}" "$why" >"$work/rows/$name.tsv"
}
export -f build_one directive satisfied
export work suite

# Run tests that offload. A testsuite's aux file (another test names it in
# dg-additional-sources) is no test of its own.
aux=$(grep -h -o 'dg-additional-sources "\?[^"}]*' -r "$suite" | sed 's/dg-additional-sources "\?//' |
  tr ' ' '\n' | sed '/^$/d' | sort -u)
grep -l -E 'omp (target|declare target)' \
    "$suite"/libgomp.c/*.c "$suite"/libgomp.c-c++-common/*.c "$suite"/libgomp.c++/*.C \
    "$suite"/libgomp.fortran/*.f90 "$suite"/libgomp.fortran/*.f 2>/dev/null |
  xargs grep -L -E 'dg-do "?(compile|link|assemble|preprocess)' |
  while read -r file; do
    grep -q -x -F "$(basename "$file")" <<<"$aux" || echo "$file"
  done |
  xargs -P "$(nproc)" -n 1 bash -c 'build_one "$0"'

{
  printf 'name\texpect\tsource\twhy\n'
  cat "$work"/rows/*.tsv | sort
} >"$work/out/manifest.tsv"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/out" -cf "$out" .
