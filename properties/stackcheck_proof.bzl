"""stackcheck_proof_test: one `stackcheck check` search as a sharded Bazel test.

    load("//properties:stackcheck_proof.bzl", "stackcheck_proof_test")

    stackcheck_proof_test(
        name = "event_fence_2x3_mapped_abort_proof",
        args = ["--policy", "event-fence", "--threads", "2", "--regions", "3",
                "--mapped_vars", "1", "--abort"],
        shard_count = 16,
    )

Each Bazel test shard is one process that explores the units of the DPOR
tree that fall to it (`check --shard_count N --shard_index I`), locally
under --local_test_jobs or on a remote-execution service, and writes its
part to the test's undeclared outputs. A shard passes when its part is
whole and it met no NEW violation (check's exit status). Then

    bazel run //pkg:event_fence_2x3_mapped_abort_proof_merge

merges the parts from bazel-testlogs and says what they prove together:
`exhausted yes` only when every shard's part is there once, whole, of the
same search and the same build (`check --merge`).
"""

def stackcheck_proof_test(
        name,
        args,
        shard_count = 4,
        size = "medium",
        tags = [],
        **kwargs):
    """One check search, sharded; `name`_merge merges its parts.

    Args:
      name: the test.
      args: `stackcheck check` flags naming the search (policy, scenario,
        monitors; --split_choices to fix the top's depth).
      shard_count: the shards (processes); each explores about 1/shard_count.
      size: the Bazel test size (a shard's time budget).
      tags: extra tags.
      **kwargs: passed to the sh_test.
    """
    native.sh_test(
        name = name,
        srcs = ["//properties:proof_shard.sh"],
        args = ["$(rootpath //cli:stackcheck)"] + args,
        data = ["//cli:stackcheck"],
        shard_count = shard_count,
        size = size,
        tags = tags,
        **kwargs
    )
    native.sh_binary(
        name = name + "_merge",
        srcs = ["//properties:proof_merge.sh"],
        args = [
            "$(rootpath //cli:stackcheck)",
            native.package_name(),
            name,
        ],
        data = ["//cli:stackcheck"],
        tags = tags,
    )
