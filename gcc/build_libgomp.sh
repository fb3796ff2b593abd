#!/usr/bin/env bash
# Builds libgomp (libgomp.so.1) and its nvptx plugin (libgomp-plugin-nvptx.so.1)
# from GCC 12.2's source as Debian ships it, unmodified or with patches, by
# GCC's own configure and make for libgomp alone:
#
#   gcc/build_libgomp.sh TARBALL OUT_LIBGOMP OUT_PLUGIN [PATCH...]
#
# TARBALL is Debian's gcc-12-source tarball; libgomp/, include/ and the
# top-level configure helpers are extracted into a temporary directory and
# each PATCH applied there with `patch -p1`. The configuration is Debian's as
# far as the library can tell: offload plugins "nvptx,gcn" (the names libgomp
# dlopens), Fortran interfaces (gfortran-12) and symbol versioning, so the
# result exports exactly Debian's libgomp.so.1's symbols (libgomp_symbols_test).
set -euo pipefail
tarball=$1 out_libgomp=$(realpath -m "$2") out_plugin=$(realpath -m "$3")
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarball" -C "$work" gcc-12.2.0/libgomp gcc-12.2.0/include gcc-12.2.0/config \
  gcc-12.2.0/config.guess gcc-12.2.0/config.sub gcc-12.2.0/config-ml.in gcc-12.2.0/install-sh \
  gcc-12.2.0/ltmain.sh gcc-12.2.0/missing gcc-12.2.0/mkinstalldirs gcc-12.2.0/depcomp \
  gcc-12.2.0/compile gcc-12.2.0/libtool.m4 gcc-12.2.0/ltoptions.m4 gcc-12.2.0/multilib.am
gcc=$work/gcc-12.2.0
for p in "$@"; do
  patch -p1 -s -d "$gcc" <"$p" || { echo "build_libgomp.sh: $p does not apply" >&2; exit 1; }
done
mkdir "$work/build"
cd "$work/build"
# GFORTRAN must be a path: libgomp's configure tests it with `test -x`.
GFORTRAN=$(command -v gfortran-12) "$gcc/libgomp/configure" --host=x86_64-linux-gnu \
  --build=x86_64-linux-gnu --target=x86_64-linux-gnu --disable-multilib --enable-shared \
  --disable-static --enable-offload-targets=nvptx-none,amdgcn-amdhsa CC=gcc-12 \
  >configure.log 2>&1 || { tail -20 configure.log >&2; exit 1; }
make -j"$(nproc)" >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
cp -L .libs/libgomp.so.1 "$out_libgomp"
cp -L .libs/libgomp-plugin-nvptx.so.1 "$out_plugin"
