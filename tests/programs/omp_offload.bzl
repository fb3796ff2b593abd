"""omp_offload_binary: an OpenMP offload program built by Debian's GCC 12 for nvptx."""

# The nvptx offload compiler of Debian's gcc-12-offload-nvptx; gcc-12 runs it
# for every `#pragma omp target` region when given -foffload=nvptx-none.
_OFFLOAD_COMPILER = "x86_64-linux-gnu-accel-nvptx-none-gcc-12"

_FLAGS = [
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pthread",
    "-fopenmp",
    "-foffload=nvptx-none",
    # GCC 12's default PTX target, sm_30, is rejected by CUDA 13's ptxas
    # (which the offload assembler runs when it is on PATH); sm_80 PTX is
    # accepted, and the driver compiles it for the device at load.
    "-foffload-options=nvptx-none=-misa=sm_80",
    # GCC 12's offload table object is not position independent: a PIE would
    # carry text relocations.
    "-no-pie",
]

def omp_offload_binary(name, src, copts = [], **kwargs):
    """Compiles the C file `src` into the executable file `name`.

    The binary holds its nvptx code (PTX, which the CUDA driver compiles at
    load) and needs only glibc (>= 2.34) and libgomp.so.1 at run time, plus
    libgomp's nvptx plugin and a CUDA driver (real or simulated) to offload.
    Without ptxas on PATH (Bazel's action environment has none) the offload
    assembler skips verifying the PTX.

    Args:
      name: the output file, `:name` in the package.
      src: one C file.
      copts: more gcc-12 flags.
      **kwargs: passed to the genrule (visibility, testonly, tags).
    """
    native.genrule(
        name = name + "_compile",
        srcs = [src],
        outs = [name],
        cmd = " ".join([
            "for tool in gcc-12 %s; do" % _OFFLOAD_COMPILER,
            "  command -v $$tool >/dev/null || {",
            "    echo \"omp_offload_binary: $$tool not found: install Debian's gcc-12-offload-nvptx",
            "(./bazelw installs it when missing)\" >&2; exit 1; };",
            "done;",
            "gcc-12",
            " ".join(_FLAGS + copts),
            "$(location %s) -o $@ 2>$@.log || { cat $@.log >&2; exit 1; }" % src,
        ]),
        **kwargs
    )
