"""stackcheck_program_test: run a program of yours under `stackcheck exec`.

    load("//tests/programs:stackcheck.bzl", "stackcheck_program_test")

    stackcheck_program_test(
        name = "my_offload_test",
        program = ":my_offload_program",   # an OpenMP offload executable
        args = ["4"],
        executions = 200,                  # split among the shards
        shard_count = 4,
        faults = "search",                 # or a plan, or "" (none)
        expect = "clean",                  # or a property: "no-deadlock", ...
    )

Each shard explores its own seeds (the test's executions split evenly), so
sharding multiplies the schedules covered per minute of wall time. The test
passes when every execution is clean (`expect = "clean"`) or when the named
property is violated (a known bug kept as a regression test); on failure
its log holds the counterexample, its replay file is among the test's
outputs (bazel-testlogs/.../test.outputs) and the token in the log replays
it with `stackcheck replay`.
"""

def stackcheck_program_test(
        name,
        program,
        args = [],
        executions = 100,
        faults = "",
        expect = "clean",
        strategy = "random",
        shard_count = 1,
        tags = [],
        **kwargs):
    native.sh_test(
        name = name,
        srcs = ["//tests/programs:stackcheck_program_test.sh"],
        args = [
            "$(rootpath //cli:stackcheck)",
            "$(rootpath //sim/libcuda:libcuda.so.1)",
            "$(rootpath %s)" % program,
            str(executions),
            faults if faults else "-",
            expect,
            strategy,
        ] + args,
        data = [
            program,
            "//cli:stackcheck",
            "//sim/libcuda:libcuda.so.1",
        ],
        shard_count = shard_count,
        # The simulated driver's fiber switches are not announced to TSan.
        # (Under ASan, exec preloads the runtime ahead of the library.)
        tags = tags + ["no_tsan"],
        **kwargs
    )
