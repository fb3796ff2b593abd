#!/usr/bin/env bash
# Builds the fuzzer of every parser of user input (replay files and tokens,
# scenario files, checkpoints, exec replay files, fault plans) with clang's libFuzzer,
# AddressSanitizer and UBSan, outside Bazel (the Bazel toolchain is gcc), and
# optionally runs it on a copy of the corpus:
#
#   tests/fuzz/build_libfuzzer.sh            # builds /tmp/stackcheck-replay-fuzzer
#   tests/fuzz/build_libfuzzer.sh -max_total_time=600   # ... and runs it
#
# Run from the repository root. Needs clang++ with libFuzzer (Debian: clang).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${FUZZER_OUT:-/tmp/stackcheck-replay-fuzzer}
sources=(
  tests/fuzz/libfuzzer_main.cc tests/fuzz/replay_input_fuzz.cc
  properties/replay_file.cc properties/quoted_text.cc properties/atomic_file.cc
  properties/catalogue.cc properties/case.cc core/cu_result.cc
  properties/search_checkpoint.cc properties/program/program_replay.cc sim/program/exec_options.cc
)
absl_libs=(absl_status absl_statusor absl_strings absl_str_format_internal absl_raw_hash_set
           absl_hash absl_city absl_low_level_hash absl_cord absl_cord_internal
           absl_cordz_info absl_cordz_functions absl_cordz_handle absl_synchronization
           absl_int128 absl_strings_internal absl_throw_delegate absl_raw_logging_internal
           absl_base absl_spinlock_wait absl_time absl_time_zone absl_stacktrace
           absl_symbolize absl_malloc_internal absl_debugging_internal absl_demangle_internal
           absl_graphcycles_internal absl_exponential_biased absl_crc32c absl_crc_cord_state
           absl_crc_internal absl_crc_cpu_detect)
links=()
for lib in "${absl_libs[@]}"; do
  if ls /usr/lib/*/lib"$lib".so >/dev/null 2>&1; then links+=("-l$lib"); fi
done
clang++ -std=c++17 -O1 -g -I. -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined "${sources[@]}" "${links[@]}" -o "$out"
echo "built $out" >&2
if (($# > 0)); then
  work=$(mktemp -d)
  cp tests/corpus/*.replay "$work"/
  "$out" "$work" "$@"
fi
