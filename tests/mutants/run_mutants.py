#!/usr/bin/env python3
"""Mutation testing of stackcheck's exploration: does it catch planted mistakes?

Each tests/mutants/NN-name.patch plants one realistic mistake in a policy or
in the runtime code the policies share. For each, this script applies the
patch to a scratch copy of the working tree (never the caller's tree), builds
stackcheck there, and runs exploration alone - `campaign --policy P
--executions N` and `check --policy P --only_kept` over a few small scenarios,
with execution budgets, so the result is the same on any machine - for every
policy the patch header names. A run that exits 1 (a NEW violation
fingerprint, or a verdict that differs from the expected-verdicts table)
caught the mutant; the unmutated tree must exit 0 on every run first.

    tests/mutants/run_mutants.py                # every mutant (~1 min each on 2 cores)
    tests/mutants/run_mutants.py --only 04,14   # some of them
    tests/mutants/run_mutants.py --json out.json

A patch starts with its header, before the diff:

    Mutant: one line saying what mistake it plants
    Policies: v2-gcc11,event-fence      (the policies exploration runs on)
    Equivalent: why no run can tell     (only for an equivalent mutant)

Per mutant it prints which runs caught it, after how many executions and
seconds (the wall time of the smallest budget that catches it: a campaign of
found_at + 1 executions, or the check's own search time), and the regions of
the counterexample (the campaign's shrunk one; the check's scenario). Exit
status: 0 when every non-equivalent mutant is caught, 1 when one is not, 2 on
bad input or when the unmutated tree is not clean.

Only the Python standard library is used.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATCH_DIR = os.path.join(ROOT, "tests", "mutants")
BINARY = "bazel-bin/cli/stackcheck"

# The exploration each mutant meets, per policy: the campaign on a fixed
# count, then `check` over small scenarios (label, flags). --only_kept lets an
# exhaustive search pass the policy's known bugs, so that only a NEW one stops
# it.
CAMPAIGN_EXECUTIONS = 20000
CHECK_EXECUTIONS = 20000
CHECKS = [
    ("2x2", ["--threads=2", "--regions=2"]),
    ("2x1 abort mapped", ["--threads=2", "--regions=1", "--abort", "--mapped_vars=1"]),
    ("3x1 abort", ["--threads=3", "--regions=1", "--abort"]),
    ("2x2 mapped", ["--threads=2", "--regions=2", "--mapped_vars=1"]),
    ("race-oom", ["--scenario=race-oom"]),
    ("race-oom-abort", ["--scenario=race-oom-abort"]),
    ("race-soft-limit", ["--scenario=race-soft-limit"]),
    ("race-abort+cdtors", ["--scenario=race-abort+cdtors"]),
    ("1x2 is_device_ptr free-no-wait",
     ["--threads=1", "--regions=2", "--user_alloc", "--is_device_ptr", "--free_no_wait"]),
]


def fail(message, status=2):
    sys.stderr.write("run_mutants: %s\n" % message)
    sys.exit(status)


class Mutant:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)[:-len(".patch")]
        self.description = ""
        self.policies = []
        self.equivalent = ""
        with open(path) as f:
            for line in f:
                if line.startswith("diff --git"):
                    break
                key, _, value = line.partition(":")
                if key == "Mutant":
                    self.description = value.strip()
                elif key == "Policies":
                    self.policies = [p.strip() for p in value.split(",") if p.strip()]
                elif key == "Equivalent":
                    self.equivalent = value.strip()
        if not self.description or not self.policies:
            fail("%s: the header needs a `Mutant:` and a `Policies:` line" % path)


def load_mutants(only):
    paths = sorted(glob.glob(os.path.join(PATCH_DIR, "*.patch")))
    if not paths:
        fail("no patches in %s" % PATCH_DIR)
    mutants = [Mutant(p) for p in paths]
    if only:
        wanted = set(only)
        mutants = [m for m in mutants if m.name.split("-")[0] in wanted or m.name in wanted]
        if not mutants:
            fail("--only %s matches no patch" % ",".join(only))
    return mutants


def sh(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, **kw)


def sync_tree(scratch):
    """Makes `scratch` hold the caller's working tree: tracked files and
    untracked ones git does not ignore, as they are now. Bazel's convenience
    links and output base (keyed on the scratch path) survive, so a second
    run rebuilds only what changed."""
    listed = sh(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT)
    if listed.returncode != 0:
        fail("git ls-files failed in %s: %s" % (ROOT, listed.stderr.strip()))
    files = [f for f in listed.stdout.split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]
    os.makedirs(scratch, exist_ok=True)
    for entry in os.listdir(scratch):
        if entry.startswith("bazel-"):
            continue
        path = os.path.join(scratch, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    for f in files:
        dst = os.path.join(scratch, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dst)


def build(scratch, disk_cache, into):
    """Builds stackcheck in the scratch tree and copies the binary to `into`.
    Returns (ok, seconds, log tail)."""
    start = time.monotonic()
    r = sh([os.path.join(scratch, "bazelw"), "--max_idle_secs=900", "build",
            "--disk_cache=" + disk_cache, "//cli:stackcheck"], scratch)
    seconds = time.monotonic() - start
    if r.returncode != 0:
        return False, seconds, "\n".join((r.stdout + r.stderr).strip().splitlines()[-15:])
    shutil.copy2(os.path.join(scratch, BINARY), into)
    return True, seconds, ""


def run_json(argv):
    start = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True)
    wall = time.monotonic() - start
    doc = None
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        pass
    return r.returncode, doc, wall, r.stderr


def campaign_argv(binary, policy, executions, replay_dir, shrink=3000):
    return [binary, "campaign", "--policy=" + policy, "--executions=%d" % executions,
            "--jobs=1", "--time_budget_s=3600", "--shrink_executions=%d" % shrink,
            "--replay_dir=" + replay_dir, "--json"]


def check_argv(binary, policy, flags):
    return [binary, "check", "--policy=" + policy, "--only_kept", "--no_plain",
            "--max_executions=%d" % CHECK_EXECUTIONS, "--json", *flags]


def campaign_catch(doc):
    """What a campaign that exited 1 caught: (executions, regions, what)."""
    best = None
    for v in doc.get("violations", []):
        for f in v.get("fingerprints", []):
            if f.get("known"):
                continue
            cand = (f["found_at"] + 1, f.get("regions"), "NEW " + f["fingerprint"])
            best = cand if best is None or cand[0] < best[0] else best
    for row in doc.get("verdicts", []):
        if row.get("matches", True):
            continue
        sim = row.get("sim", {})
        what = "%s %s, expected %s" % (row["property"], sim.get("verdict"), row["expected"])
        found = [v for v in doc.get("violations", [])
                 if v["policy"] == row["policy"] and v["property"] == row["property"]]
        if found:
            cand = (found[0]["found_at"] + 1, found[0].get("regions"), what)
        else:  # a verdict that should be violated held: known only at the end
            cand = (doc.get("executions"), None, what)
        best = cand if best is None or cand[0] < best[0] else best
    if doc.get("shortfalls"):
        cand = (doc.get("executions"), None, "shortfall: " + doc["shortfalls"][0])
        best = cand if best is None else best
    return best


def explore(binary, policy, scratch_tmp, stop_at_first=False):
    """Runs the campaign and the checks on one policy. Returns a list of
    dicts, one per run: command, rc, caught, executions, seconds, regions,
    what."""
    runs = []
    replay_dir = tempfile.mkdtemp(prefix="campaign-", dir=scratch_tmp)
    rc, doc, wall, err = run_json(campaign_argv(binary, policy, CAMPAIGN_EXECUTIONS, replay_dir))
    run = {"command": "campaign", "policy": policy, "rc": rc, "caught": rc == 1,
           "seconds": None, "executions": None, "regions": None, "what": ""}
    if rc == 1 and doc is not None:
        catch = campaign_catch(doc)
        if catch is not None:
            run["executions"], run["regions"], run["what"] = catch
            # The wall time of the smallest campaign that catches it (the
            # indices are planned from the seed alone, so a shorter run meets
            # the same executions first).
            if run["executions"] and run["executions"] < CAMPAIGN_EXECUTIONS:
                small_dir = tempfile.mkdtemp(prefix="campaign-", dir=scratch_tmp)
                rc2, _, wall2, _ = run_json(campaign_argv(binary, policy, run["executions"],
                                                          small_dir, shrink=0))
                run["seconds"] = wall2 if rc2 == 1 else None
            else:
                run["seconds"] = wall
    elif rc not in (0, 1):
        run["what"] = "exit %s: %s" % (rc, (err.strip().splitlines() or [""])[-1])
    runs.append(run)
    if stop_at_first and run["caught"]:
        return runs
    for label, flags in CHECKS:
        rc, doc, wall, err = run_json(check_argv(binary, policy, flags))
        run = {"command": "check " + label, "policy": policy, "rc": rc, "caught": rc == 1,
               "seconds": None, "executions": None, "regions": None, "what": ""}
        if doc is not None:
            v = doc.get("violation")
            if rc == 1 and v:
                run["executions"] = v.get("at_execution")
                run["seconds"] = doc.get("seconds")
                run["regions"] = doc.get("regions_in_all")
                run["what"] = ("NEW " if not v.get("known") else "") + v.get("fingerprint", "")
            elif rc == 1 and doc.get("fixed"):
                run["executions"] = doc.get("executions")
                run["seconds"] = doc.get("seconds")
                run["what"] = "FIXED? " + doc["fixed"][0]
        if rc not in (0, 1):
            run["what"] = "exit %s: %s" % (rc, (err.strip().splitlines() or [""])[-1])
        runs.append(run)
        if stop_at_first and run["caught"]:
            break
    return runs


def summarise(mutant, runs):
    caught = [r for r in runs if r["caught"]]
    by = sorted({("campaign" if r["command"] == "campaign" else "check") for r in caught})
    timed = [r for r in caught if r["seconds"] is not None]
    fastest = min(timed, key=lambda r: r["seconds"]) if timed else (caught[0] if caught else None)
    sized = [r["regions"] for r in caught if r["regions"] is not None]
    return {
        "mutant": mutant.name,
        "description": mutant.description,
        "policies": mutant.policies,
        "equivalent": mutant.equivalent,
        "caught": bool(caught),
        "caught_by": "+".join(by) if by else "none",
        "fastest": fastest["command"] + " " + fastest["policy"] if fastest else None,
        "seconds": fastest["seconds"] if fastest else None,
        "regions": min(sized) if sized else None,
        "what": fastest["what"] if fastest else "",
        "runs": runs,
    }


def provenance():
    """When, on what and on which commit the figures were measured."""
    commit = sh(["git", "rev-parse", "--short", "HEAD"], ROOT).stdout.strip() or "unknown"
    if sh(["git", "status", "--porcelain", "--untracked-files=no"], ROOT).stdout.strip():
        commit += "+changes"
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit,
            "machine": "%s, %s, %d cores" % (platform.machine(), model, os.cpu_count() or 0)}


def fmt_s(x):
    return "–" if x is None else ("%.2f" % x)


def print_table(rows, out):
    out.write("%-32s %-16s %8s %8s  %s\n" % ("mutant", "caught by", "seconds", "regions",
                                             "first catch"))
    for r in rows:
        if r.get("build_failed"):
            out.write("%-32s %-16s %8s %8s  %s\n" % (r["mutant"], "BUILD FAILED", "", "", ""))
            continue
        by = r["caught_by"] if r["caught"] or not r["equivalent"] else "none (equivalent)"
        out.write("%-32s %-16s %8s %8s  %s\n" % (
            r["mutant"], by, fmt_s(r["seconds"]),
            "–" if r["regions"] is None else r["regions"],
            (r["fastest"] + ": " + r["what"])[:110] if r["fastest"] else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated mutant numbers or names")
    ap.add_argument("--scratch", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "stackcheck-mutants"),
        help="scratch directory (kept between runs, so builds are incremental)")
    ap.add_argument("--json", default="", help="also write the results as JSON to this file")
    ap.add_argument("--disk_cache", default="",
                    help="Bazel disk cache shared with other trees (default: in --scratch)")
    ap.add_argument("--first_catch", action="store_true",
                    help="stop a mutant's runs at the first that catches it")
    args = ap.parse_args()

    mutants = load_mutants([s for s in args.only.split(",") if s])
    scratch = os.path.abspath(args.scratch)
    if scratch == ROOT or scratch.startswith(ROOT + os.sep):
        fail("--scratch must be outside the working tree")
    tree = os.path.join(scratch, "tree")
    bins = os.path.join(scratch, "bin")
    tmp = os.path.join(scratch, "tmp")
    disk_cache = os.path.abspath(args.disk_cache or os.path.join(scratch, "disk-cache"))
    for d in (bins, tmp, disk_cache):
        os.makedirs(d, exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    sys.stderr.write("run_mutants: copying the working tree to %s\n" % tree)
    sync_tree(tree)
    for m in mutants:
        r = sh(["git", "apply", "--check", m.path], tree)
        if r.returncode != 0:
            fail("%s no longer applies: %s" % (m.name, r.stderr.strip()))

    sys.stderr.write("run_mutants: building the unmutated tree\n")
    baseline = os.path.join(bins, "baseline")
    ok, _, log = build(tree, disk_cache, baseline)
    if not ok:
        fail("the unmutated tree does not build:\n" + log)
    policies = sorted({p for m in mutants for p in m.policies})
    for policy in policies:
        sys.stderr.write("run_mutants: baseline runs on %s\n" % policy)
        for run in explore(baseline, policy, tmp):
            if run["rc"] != 0:
                fail("on the unmutated tree `%s` on %s exits %s (%s): exploration must be "
                     "clean before mutants mean anything" % (run["command"], policy, run["rc"],
                                                            run["what"]))

    stamp = provenance()
    rows = []
    for m in mutants:
        sys.stderr.write("run_mutants: %s: %s\n" % (m.name, m.description))
        r = sh(["git", "apply", m.path], tree)
        if r.returncode != 0:
            fail("%s does not apply: %s" % (m.name, r.stderr.strip()))
        binary = os.path.join(bins, m.name)
        try:
            ok, build_s, log = build(tree, disk_cache, binary)
        finally:
            r = sh(["git", "apply", "-R", m.path], tree)
            if r.returncode != 0:
                fail("%s does not revert in %s: %s" % (m.name, tree, r.stderr.strip()))
        if not ok:
            sys.stderr.write(log + "\n")
            rows.append({"mutant": m.name, "description": m.description, "build_failed": True,
                         "caught": False, "equivalent": m.equivalent})
            continue
        runs = []
        for policy in m.policies:
            runs += explore(binary, policy, tmp, stop_at_first=args.first_catch)
            if runs[-1]["caught"] and args.first_catch:
                break
        row = summarise(m, runs)
        row["build_seconds"] = build_s
        rows.append(row)
        sys.stderr.write("run_mutants:   caught by %s (%s s, %s regions)\n" % (
            row["caught_by"], fmt_s(row["seconds"]), row["regions"]))

    print_table(rows, sys.stdout)
    judged = [r for r in rows if not r["equivalent"] and not r.get("build_failed")]
    caught = [r for r in judged if r["caught"]]
    fast = [r for r in caught if r["seconds"] is not None and r["seconds"] <= 1.0
            and r["regions"] is not None and r["regions"] <= 3]
    equivalent = [r for r in rows if r["equivalent"]]
    failed = [r for r in rows if r.get("build_failed")]
    sys.stdout.write(
        "\ncaught %d of %d non-equivalent mutants by exploration alone (%d within 1 s with a "
        "counterexample of at most 3 regions); %d equivalent%s\n" % (
            len(caught), len(judged), len(fast), len(equivalent),
            "; %d did not build" % len(failed) if failed else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**stamp, "campaign_executions": CAMPAIGN_EXECUTIONS,
                       "check_executions": CHECK_EXECUTIONS,
                       "checks": [label for label, _ in CHECKS],
                       "mutants": rows, "non_equivalent": len(judged), "caught": len(caught),
                       "caught_fast": len(fast), "equivalent": len(equivalent),
                       "build_failed": len(failed)}, f, indent=1)
            f.write("\n")
    return 0 if len(caught) == len(judged) and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
