#!/usr/bin/env bash
# Builds libgomp's nvptx plugin (libgomp-plugin-nvptx.so.1) from GCC 12.2's
# source as Debian ships it, unmodified and with patches applied:
#
#   gcc/build_plugin.sh TARBALL CONFIG_H OUT_SO [PATCH...]
#
# TARBALL is Debian's gcc-12-source tarball; only libgomp/ and include/ are
# extracted, into a temporary directory. CONFIG_H stands for the config.h
# GCC's configure would write (gcc/libgomp_config.h). Each PATCH applies with
# `patch -p1` at the top of GCC's tree. The plugin links against Debian's
# libgomp.so.1, whose GOMP_PLUGIN_* functions it calls.
set -euo pipefail
tarball=$1 config=$2 out=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarball" -C "$work" gcc-12.2.0/libgomp gcc-12.2.0/include
gcc=$work/gcc-12.2.0
for p in "$@"; do
  patch -p1 -s -d "$gcc" <"$p" || { echo "build_plugin.sh: $p does not apply" >&2; exit 1; }
done
mkdir -p "$work/config"
cp "$config" "$work/config/config.h"
g=$gcc/libgomp
gcc-12 -O2 -g -ffile-prefix-map="$work"=. -fPIC -shared -pthread -I"$work/config" -I"$g/config/linux/x86" \
  -I"$g/config/linux" -I"$g/config/posix" -I"$g" -I"$gcc/include" -I"$g/plugin" \
  "$g/plugin/plugin-nvptx.c" -o "$out" -Wl,-soname,libgomp-plugin-nvptx.so.1 \
  /usr/lib/x86_64-linux-gnu/libgomp.so.1 -ldl
