#!/usr/bin/env bash
# Prints, one per line and sorted, the CUDA driver entry points that GCC's
# libgomp nvptx plugin resolves. The plugin does not link against libcuda: it
# dlopens "libcuda.so.1" and looks every function up with dlsym by name, so the
# names are string constants of the plugin binary, not dynamic symbols
# (`objdump -T` shows only dlopen/dlsym). Every string of the form cu<Upper>...
# is such a name; the two other strings starting with "cu" (cuda_lib,
# cuda_callback_wrapper) do not match because the fourth character is lower case.
set -euo pipefail
plugin=${1:-/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1}
[[ -r "$plugin" ]] || { echo "list_entry_points.sh: cannot read $plugin" >&2; exit 1; }
strings -a -n 4 "$plugin" | grep -E '^cu[A-Z][A-Za-z0-9_]*$' | LC_ALL=C sort -u
