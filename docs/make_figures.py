#!/usr/bin/env python3
"""Writes docs/figures.md: every measured figure of the project, generated.

Simulator figures come from running `stackcheck ... --json` (and the two Google
Benchmark binaries with --benchmark_format=json) on this machine, each row
stamped with the date, the commit and the machine. Hardware (H200) figures come
from the raw output committed under the hardware log's validation/ folder; they
are rendered with the date, build and machine the log records for them, never
re-measured here. So are the exhaustive searches that take an hour or more:
their text output is committed under docs/proofs/, headed by date, commit and
machine. Mutation testing is rendered from the JSON that
tests/mutants/run_mutants.py last wrote (committed), with its own stamp.

    docs/make_figures.py                # build, run everything (a few minutes on 2 cores)
    docs/make_figures.py --no-build     # use what bazel-bin already holds (-c opt)
    docs/make_figures.py --hardware-only   # only what comes from committed output
                                           # (long proofs, hardware, mutants)
    docs/make_figures.py --long         # also the runs that take minutes each

Only the Python standard library is used.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STACKCHECK = "bazel-bin/cli/stackcheck"
# What tests/mutants/run_mutants.py --json last wrote (committed; the run takes
# about a minute per mutant, too long to repeat here).
MUTANTS_JSON = "tests/mutants/last_run.json"
# Recorded output of exhaustive searches that take an hour or more (rendered,
# not rerun; see proofs_section).
PROOFS_DIR = "docs/proofs"
MONITORS_BENCH = "bazel-bin/sim/monitors/monitors_benchmark"
STRATEGY_BENCH = "bazel-bin/sim/strategies/strategy_benchmark"
BUILD_TARGETS = ["//cli:stackcheck", "//sim/monitors:monitors_benchmark",
                 "//sim/strategies:strategy_benchmark", "//tests/programs:threads_regions",
                 "//tests/programs:abort_while_mapping",
                 "//sim/libcuda:libcuda.so.1", "//tests/gcc_testsuite:programs"]
# GCC 12.2's libgomp testsuite under exec (tests/gcc_testsuite).
CONFORMANCE = ["tests/gcc_testsuite/conformance_test.sh",
               "bazel-bin/tests/gcc_testsuite/programs.tar", "bazel-bin/cli/stackcheck",
               "bazel-bin/sim/libcuda", "tests/gcc_testsuite/unsupported.tsv"]
CONFORMANCE_TITLE = "## GCC's libgomp testsuite under `exec`"
# Finding against shrinking: exec with its defaults (faults searched, every
# finding) on the exit-time hang's program, each mode.
SHRINK_TITLE = "## `exec`: time to find against time to shrink"
SHRINK_MODES = ["map", "alloc", "update", "regions"]
SHRINK_PROGRAM = "bazel-bin/tests/programs/abort_while_mapping"
# `bench exec`'s program: 2 threads x 4 regions of GCC 12.2's real plugin.
EXEC_PROGRAM = ["bazel-bin/tests/programs/threads_regions", "2", "4", "8", "4"]
BENCH_EXEC_EXECUTIONS = 200

# The exhaustive runs rendered in the `check` table: (what, flags, long).
# A "long" run takes minutes and is skipped unless --long is given.
CHECK_RUNS = [
    ("v2-gcc11, 2 x 1, against plain DFS to its end",
     ["--policy=v2-gcc11", "--regions=1", "--plain_budget=2000000"], False),
    ("event-fence, 2 x 1", ["--policy=event-fence", "--regions=1", "--no_plain"], False),
    ("event-fence, 2 x 1, one abort",
     ["--policy=event-fence", "--regions=1", "--abort", "--no_plain"], False),
    ("v2-gcc11, 2 x 3, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--no_plain"], False),
    ("v2-gcc11, 2 x 3, one abort, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--abort", "--no_plain"], False),
    ("event-fence-sync, 2 x 3", ["--policy=event-fence-sync", "--no_plain"], False),
    ("event-fence-sync, 2 x 3, one abort",
     ["--policy=event-fence-sync", "--abort", "--no_plain"], True),
    ("event-fence, 2 x 1, one mapped variable per region",
     ["--policy=event-fence", "--regions=1", "--mapped_vars=1", "--no_plain"], False),
    ("v2-gcc11, 2 x 1, one mapped variable, one abort (the exit-time hang)",
     ["--policy=v2-gcc11", "--regions=1", "--mapped_vars=1", "--abort", "--only_kept",
      "--no_plain"], False),
    ("v3-trunk, 2 x 1, one mapped variable, one abort (the exit-time hang)",
     ["--policy=v3-trunk", "--regions=1", "--mapped_vars=1", "--abort", "--only_kept",
      "--no_plain"], False),
    ("v1b-callback-lock, peer (the callback deadlock)",
     ["--policy=v1b-callback-lock", "--scenario=peer", "--no_plain"], False),
    ("v2-gcc11, 3 x 2, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--threads=3", "--regions=2", "--no_plain"], False),
    ("v2-gcc11, 3 x 2, one abort, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--threads=3", "--regions=2", "--abort",
      "--no_plain"], False),
    ("v2-gcc11, 2 x 4, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--regions=4", "--no_plain"], False),
    ("v2-gcc11, 2 x 4, one abort, every kept property",
     ["--policy=v2-gcc11", "--only_kept", "--regions=4", "--abort", "--no_plain"], False),
    ("event-fence, 3 x 2", ["--policy=event-fence", "--threads=3", "--regions=2", "--no_plain"],
     False),
    ("event-fence, 3 x 2, one abort",
     ["--policy=event-fence", "--threads=3", "--regions=2", "--abort", "--no_plain"], False),
    ("event-fence, 2 x 4", ["--policy=event-fence", "--regions=4", "--no_plain"], False),
    ("event-fence, 2 x 4, one abort",
     ["--policy=event-fence", "--regions=4", "--abort", "--no_plain"], False),
    ("event-fence, 3 x 3", ["--policy=event-fence", "--threads=3", "--regions=3", "--no_plain"],
     False),
    ("event-fence, 3 x 3, split search on 2 jobs",
     ["--policy=event-fence", "--threads=3", "--regions=3", "--jobs=2", "--no_plain"], False),
    ("event-fence, 2 x 2, one mapped variable",
     ["--policy=event-fence", "--regions=2", "--mapped_vars=1", "--no_plain"], False),
    ("event-fence, 2 x 2, one mapped variable, one abort",
     ["--policy=event-fence", "--regions=2", "--mapped_vars=1", "--abort", "--no_plain"], False),
    ("event-fence, 2 x 3, one mapped variable, split search on 2 jobs",
     ["--policy=event-fence", "--regions=3", "--mapped_vars=1", "--jobs=2",
      "--time_budget_s=240", "--max_executions=1000000000", "--no_plain"], True),
    ("event-fence, 2 x 3, an abort beside a thread mapping in every region",
     ["--policy=event-fence", "--scenario=abort-beside-mapping", "--no_plain"], False),
    ("event-fence, 2 x 3, a mapping region aborts beside a thread mapping in every region, "
     "split search on 2 jobs",
     ["--policy=event-fence", "--scenario=mapped-abort-beside-mapping", "--jobs=2",
      "--time_budget_s=600", "--max_executions=1000000000", "--no_plain"], True),
    ("event-fence-sync, 2 x 3, an abort beside a thread mapping in every region, "
     "split search on 2 jobs",
     ["--policy=event-fence-sync", "--scenario=abort-beside-mapping", "--jobs=2",
      "--time_budget_s=600", "--max_executions=1000000000", "--no_plain"], True),
    ("event-fence-sync, 2 x 3, a mapping region aborts beside a thread mapping in every "
     "region, split search on 2 jobs",
     ["--policy=event-fence-sync", "--scenario=mapped-abort-beside-mapping", "--jobs=2",
      "--time_budget_s=1200", "--max_executions=1000000000", "--no_plain"], True),
    ("event-fence, 2 x 3, one mapped variable, one abort, split search on 2 jobs",
     ["--policy=event-fence", "--regions=3", "--mapped_vars=1", "--abort", "--jobs=2",
      "--time_budget_s=3600", "--max_executions=2000000000", "--no_plain"], True),
    ("v2-gcc11, 2 x 3, preemption bound 2 (sleep sets)", ["--policy=v2-gcc11", "--bound=2"], False),
    ("event-fence, 2 x 3, preemption bound 2 (sleep sets)",
     ["--policy=event-fence", "--bound=2"], False),
]
CAMPAIGN_BUDGET_S = 60
BENCH_SIM_EXECUTIONS = 200000


# ----------------------------------------------------------------- helpers

def sh(args, **kw):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, **kw)


def git(*args):
    r = sh(["git", *args])
    return r.stdout.strip() if r.returncode == 0 else ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def this_machine():
    return "%s, %s, %d cores" % (platform.machine(), cpu_model(), os.cpu_count() or 0)


def this_commit():
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "+changes"
    return commit


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def num(x, digits=3):
    """A figure as a person reads it: 3 significant digits, thousands separated."""
    if x is None:
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return "{:,}".format(x)
    if x == 0:
        return "0"
    mag = abs(x)
    if mag >= 1e6:
        return "%s M" % num(x / 1e6, digits)
    if mag >= 1e4:
        return "{:,}".format(int(round(x)))
    if mag >= 100:
        return "%.0f" % x
    if mag >= 10:
        return "%.1f" % x
    if mag >= 1:
        return "%.2f" % x
    return "%.3g" % x


def count(x):
    """A counter Google Benchmark reports as a float."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def seconds(x):
    if x is None:
        return "–"
    if x < 1e-3:
        return "%.0f µs" % (x * 1e6)
    if x < 1:
        return "%.1f ms" % (x * 1e3)
    return "%.2f s" % x


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


class Run:
    """One command's JSON output, with when, where and how long."""

    def __init__(self, cmd, doc, rc, wall, stamp, stderr=""):
        self.cmd, self.doc, self.rc, self.wall, self.stamp = cmd, doc, rc, wall, stamp
        self.stderr = stderr

    @property
    def ok(self):
        return self.doc is not None

    def failure(self):
        tail = self.stderr.strip().splitlines()[-1:] if self.stderr else []
        return "failed (exit %s)%s" % (self.rc, (": " + tail[0]) if tail else "")


class Runner:
    def __init__(self, stamp_fn):
        self.stamp_fn = stamp_fn
        self.runs = []

    def json(self, argv, shown, timeout=900):
        """Runs argv, parses its stdout as one JSON document.

        The command runs as a child of a shell, not of this script: Linux keeps
        a process's peak RSS (ru_maxrss) across exec, so a direct child would
        report this script's memory as its own peak.
        """
        stamp = self.stamp_fn()
        start = time.monotonic()
        sys.stderr.write("make_figures: %s\n" % shown)
        try:
            r = sh(["sh", "-c", '"$@"; exit $?', "sh", *argv], timeout=timeout)
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = "", "timed out after %d s" % timeout, "timeout"
        wall = time.monotonic() - start
        doc = None
        try:
            doc = json.loads(out)
        except ValueError:
            pass
        run = Run(shown, doc, rc, wall, stamp, err)
        self.runs.append(run)
        return run


# ------------------------------------------------------- simulator figures

def stamp_cell(run):
    return run.stamp


def render_bench_sim(run):
    lines = ["### Simulator speed (`%s`)" % run.cmd, ""]
    if not run.ok:
        return lines + [run.failure(), ""]
    lines.append("Policy %s, random schedules, one core; rates per CPU-second of the "
                 "thread that runs them; each scenario with every monitor the campaign "
                 "attaches (what users run), then the engine alone. Run: %s."
                 % (run.doc.get("policy"), stamp_cell(run)))
    lines.append("")
    rows = []
    for s in run.doc.get("scenarios", []):
        rss = " / ".join("%s MiB after %s" % (num(p["kib"] / 1024.0), num(p["after_executions"]))
                         for p in s.get("peak_rss_kib", []))
        rows.append([s["scenario"], s.get("monitors", "none"), num(s["executions"]),
                     num(s["steps_per_s"]) + " steps/s",
                     num(s["executions_per_s"]) + "/s", num(s["steps_per_execution"]), rss,
                     num(s.get("violations"))])
    lines.append(table(["scenario", "monitors", "executions", "steps/s", "executions/s",
                        "steps per execution", "peak RSS", "violations"], rows))
    return lines + [""]


def render_bench_exec(run, clean=None):
    lines = ["### A real program under `exec` (`%s`)" % run.cmd, ""]
    if clean is not None and clean.ok:
        d = clean.doc
        lines += ["No false alarm: `%s` ran %s executions, %s distinct traces, verdict %s, "
                  "%s executions/s (not pinned). Run: %s." % (
                      clean.cmd, num(d["executions"]), num(d["distinct_traces"]), d["verdict"],
                      num(d["executions_per_s"]), stamp_cell(clean)), ""]
    if not run.ok:
        return lines + [run.failure(), ""]
    d = run.doc
    lines.append("GCC 12.2's real libgomp and nvptx plugin, `threads_regions 2 4 8 4` "
                 "(2 threads x 4 regions), random schedules, pinned to one core "
                 "(`taskset -c 0`); a new process per execution. Run: %s." % stamp_cell(run))
    lines.append("")
    lines.append(table(["", "executions/s", "CPU per execution"], [
        ["fork server (the program forked before main)", num(d["executions_per_s"]), "–"],
        ["exec() per execution", num(d["executions_per_s_no_fork_server"]),
         "%s ms" % num(d["cpu_ms_per_execution_no_fork_server"])]]))
    return lines + [""]


def render_bench_bugs(run):
    lines = ["### Time to the first violation (`%s`)" % run.cmd, ""]
    if not run.ok:
        return lines + [run.failure(), ""]
    lines.append("Median over %s seeds of the time until a hunt finds its target, the "
                 "executions it took, and the regions left after shrinking. A row "
                 "`policy:property` hunts that property alone; `policy` hunts all the "
                 "policy's expected violations at once. Every target found: %s. Run: %s."
                 % (run.doc.get("seeds"), num(run.doc.get("all_found")), stamp_cell(run)))
    lines.append("")
    rows = [[p["policy"], "%d of %s" % (p["found"], run.doc.get("seeds")),
             seconds(p.get("time_to_bug_s")), num(p.get("median_executions")),
             num(p.get("shrunk_regions"))] for p in run.doc.get("policies", [])]
    lines.append(table(["hunt", "found", "time to bug", "executions", "shrunk regions"], rows))
    return lines + [""]


def render_bench_dfs(run):
    lines = ["### Exhaustive checking: DPOR against plain DFS (`%s`)" % run.cmd, ""]
    if not run.ok:
        return lines + [run.failure(), ""]
    lines.append("DPOR with sleep sets, no preemption bound, run to the end of the tree "
                 "past any violation; then plain DFS on the same case, capped. A "
                 "reduction marked ≥ is a lower bound (plain DFS hit its cap). Run: %s."
                 % stamp_cell(run))
    lines.append("")
    rows = []
    for c in run.doc.get("cases", []):
        red = c.get("reduction")
        red_s = ("≥ " if c.get("reduction_is_lower_bound") else "") + num(red) + "×" \
            if c.get("plain_dfs_run") else "not run"
        rows.append([c["policy"], c["scenario"], num(c["dfs_executions"]),
                     num(c["dfs_exhausted"]), seconds(c["dfs_seconds"]),
                     num(c["dfs_executions_per_s"]) + "/s",
                     ", ".join(c.get("dfs_violations") or []) or "none",
                     num(c.get("plain_dfs_executions")), num(c.get("plain_dfs_exhausted")),
                     red_s])
    lines.append(table(["policy", "threads x regions", "DPOR executions", "exhausted", "time",
                        "rate", "violations found", "plain DFS executions", "exhausted",
                        "reduction"], rows))
    jobs = run.doc.get("jobs")
    if jobs:
        lines += ["", "Campaign scaling (event-fence, %s executions, wall clock): %s/s with "
                  "one job, %s/s with two, %s×. Run: %s." % (
                      num(jobs.get("campaign_executions")), num(jobs.get("executions_per_s_1")),
                      num(jobs.get("executions_per_s_2")), num(jobs.get("scaling")),
                      stamp_cell(run))]
    return lines + [""]


def render_checks(runs):
    lines = ["### Single scenarios (`stackcheck check`)", "",
             "Every run explores one bounded scenario (host threads x regions per "
             "thread as shown) with DPOR and sleep sets unless a preemption bound is "
             "given (then sleep sets alone). `--only_kept` leaves the policy's known "
             "bugs unmonitored so the search goes past them; deadlock and progress are "
             "always checked. A search stops at its first violation. A long run "
             "(`--long`) that a regeneration did not repeat keeps its row, and the "
             "stamp, of the run that made it.", ""]
    rows = []
    for what, run in runs:
        if isinstance(run, list):  # a long run's row from the document before
            rows.append(run)
            continue
        if run is None:
            rows.append([what, "not run (long; `--long`)", "", "", "", "", "", ""])
            continue
        if not run.ok:
            rows.append([what, run.failure(), "", "", "", "", "", run.stamp])
            continue
        d = run.doc
        v = d.get("violation")
        found = "none" if not v else "%s at execution %s" % (v["property"], num(v["at_execution"]))
        plain = d.get("plain_dfs")
        plain_s = "–"
        if plain:
            plain_s = "%s (%s)" % (num(plain["executions"]),
                                   "exhausted" if plain["exhausted"] else "not exhausted")
            if d.get("reduction_ratio") is not None:
                plain_s += ", %s%s×" % ("≥ " if d.get("reduction_ratio_is_lower_bound") else "",
                                        num(d["reduction_ratio"]))
        rows.append([what, "`%s`" % run.cmd.replace("stackcheck ", ""), num(d["executions"]),
                     num(d["exhausted"]), seconds(d["seconds"]), found, plain_s, run.stamp])
    lines.append(table(["what", "command", "executions", "exhausted", "time",
                        "first violation", "plain DFS", "run"], rows))
    return lines + [""]


def old_check_rows(path):
    """The rows of the `check` table in the document at `path`, by their first
    cell, for long runs a shorter regeneration does not repeat."""
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        text = f.read()
    m = re.search(r"^### Single scenarios.*?(?=^### )", text, flags=re.S | re.M)
    if not m:
        return rows
    for line in m.group(0).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == 8 and cells[0] != "what" and not cells[0].startswith("---") \
                and not cells[1].startswith("not run") and cells[7]:
            rows[cells[0]] = cells
    return rows


def render_campaign(run):
    lines = ["### The default campaign (`%s`)" % run.cmd, ""]
    if not run.ok:
        return lines + [run.failure(), ""]
    d = run.doc
    verdicts = d.get("verdicts", [])
    violated = sum(1 for v in verdicts if v.get("sim", {}).get("verdict") == "violated")
    lines.append("Every policy × every property, random, PCT and generated schedules, "
                 "with shrinking. %s executions in %s (%s/s) with %s jobs; %d policy × "
                 "property verdicts, %d violated, every verdict as expected: %s. Run: %s." % (
                     num(d.get("executions")), seconds(d.get("elapsed_s")),
                     num(d["executions"] / d["elapsed_s"]) if d.get("elapsed_s") else "–",
                     d.get("jobs"), len(verdicts), violated, num(d.get("all_match")),
                     run.stamp))
    rows = []
    for v in d.get("violations", []):
        rows.append([v["policy"], v["property"], v.get("found_by", ""), num(v.get("found_at")),
                     "%s threads, %s regions, %s faults, %s preemptions" % (
                         v.get("threads"), v.get("regions"), v.get("faults"),
                         v.get("preemptions"))])
    if rows:
        lines += ["", table(["policy", "property", "found by", "at execution", "shrunk to"],
                            rows)]
    probes = d.get("probes")
    if probes:
        lines += ["", "Coverage probes (executions that reached each rare situation): " +
                  ", ".join("%s %s" % (k, num(v)) for k, v in sorted(probes.items())) + "."]
    return lines + [""]


def render_benchmarks(mon, strat):
    lines = ["### Per-event and per-answer costs (Google Benchmark)", ""]
    for run, title in ((mon, "monitors"), (strat, "strategies")):
        if run is None:
            continue
        if not run.ok:
            lines += ["%s: %s" % (title, run.failure()), ""]
            continue
        rows = []
        for b in run.doc.get("benchmarks", []):
            name = b["name"] + (" (%s)" % b["label"] if b.get("label") else "")
            per_item = ""
            if b.get("items_per_second"):
                per_item = "%s ns" % num(1e9 / b["items_per_second"])
            extra = ", ".join("%s %s" % (k, num(count(b[k]))) for k in
                              ("executions", "sleep_blocked", "events/execution") if k in b)
            rows.append([name, "%s %s" % (num(b["cpu_time"]), b.get("time_unit", "ns")),
                         per_item, extra])
        lines += ["`%s` (run: %s):" % (run.cmd, run.stamp), "",
                  table(["benchmark", "CPU time per iteration", "per event / step", "counters"],
                        rows), ""]
    lines.append("The monitors' per-event cost is measured on a synthetic execution; the "
                 "strategies' DFS rows explore a toy program of 3 threads × 4 steps, a "
                 "shared object every third step.")
    return lines + [""]


# -------------------------------------------------------- hardware figures

def find_validation_dir():
    for d in ("hardware/validation", "real/validation"):
        if os.path.isdir(os.path.join(ROOT, d)):
            return d
    return None


def find_log(vdir):
    parent = os.path.dirname(vdir)
    for name in ("VALIDATION.md",):
        p = os.path.join(ROOT, parent, name)
        if os.path.exists(p):
            return os.path.join(parent, name)
    return None


def log_sections(log_path):
    """The hardware log split at its level-2 headings: [(heading, text)]."""
    if not log_path:
        return []
    with open(os.path.join(ROOT, log_path)) as f:
        text = f.read()
    parts = re.split(r"^## ", text, flags=re.M)
    return [(p.splitlines()[0].strip(), p) for p in parts[1:]]


def provenance(vdir, sections, fname):
    """What the log records about a raw file: date, build, machine."""
    rec = {"file": "%s/%s" % (vdir, fname), "date": "not recorded", "build": "not recorded",
           "machine": "not recorded"}
    for heading, text in sections:
        if fname in text:
            m = re.match(r"Run of (.*?): ", heading)
            if m:
                rec["date"] = m.group(1)
            m = re.search(r"HEAD ([0-9a-f]{7,40})", text)
            if m:
                rec["build"] = m.group(1)
            env = re.search(r"(env\d*\.txt)", text)
            digits = re.sub(r"\D", "", fname)
            if not env and digits:
                env = re.search(r"(env%s\.txt)" % digits, " ".join(os.listdir(os.path.join(ROOT, vdir))))
            gpu = driver = None
            if env and os.path.exists(os.path.join(ROOT, vdir, env.group(1))):
                with open(os.path.join(ROOT, vdir, env.group(1))) as f:
                    etext = f.read()
                g = re.search(r"NVIDIA [A-Z]\d+\w*", etext)
                dv = re.search(r"(\d{3}\.\d+\.\d+)", etext)
                gpu = g.group(0) if g else None
                driver = dv.group(1) if dv else None
            if not driver:
                dv = re.search(r"[Dd]river (\d{3}\.\d+\.\d+)", text)
                driver = dv.group(1) if dv else None
            if not gpu and "H200" in text:
                gpu = "NVIDIA H200"
            if gpu:
                rec["machine"] = gpu + (", driver " + driver if driver else "")
            break
    committed = git("log", "--diff-filter=A", "--format=%h", "--", rec["file"])
    rec["committed"] = committed.splitlines()[-1] if committed else "not committed"
    return rec


def provenance_line(rec):
    return ("Source `%s`: run %s; build %s; machine %s; committed in %s." % (
        rec["file"], rec["date"], rec["build"], rec["machine"], rec["committed"]))


def parse_launch_text(path):
    """`launch_us GEOM KERNEL ROW VALUE` and `policy_over_launch_only ...` lines."""
    cells, ratios, header, repetitions = {}, {}, "", "?"
    with open(path) as f:
        for line in f:
            if line.startswith("stackcheck bench launch:"):
                header = line.split(":", 1)[1].strip()
            m = re.match(r"us per launch: median of (\d+) repetitions", line)
            if m:
                repetitions = m.group(1)
            parts = line.split()
            if len(parts) == 5 and parts[0] == "launch_us":
                cells[(parts[3].replace("_", " "), parts[1], parts[2])] = float(parts[4])
            elif len(parts) == 5 and parts[0] == "policy_over_launch_only":
                ratios[(parts[3], parts[1], parts[2])] = parts[4]
    return header, cells, ratios, repetitions


GEOMS = [("8x8", "tiny"), ("8x8", "50us"), ("528x8", "tiny"), ("528x8", "50us")]


def render_launch(vdir, sections, fname, title):
    path = os.path.join(ROOT, vdir, fname)
    if not os.path.exists(path):
        return []
    header, cells, ratios, repetitions = parse_launch_text(path)
    rows_order = []
    for (row, _, _) in cells:
        if row not in rows_order:
            rows_order.append(row)
    rows = [[r] + [num(cells.get((r, g, k))) for g, k in GEOMS] for r in rows_order]
    lines = ["#### %s" % title, "", provenance_line(provenance(vdir, sections, fname)),
             "Device: %s." % header if header else "", "",
             table(["µs per launch (median of %s repetitions)" % repetitions] +
                   ["%s %s" % (g, k.replace("us", " µs kernel")) for g, k in GEOMS], rows)]
    if ratios:
        pols = []
        for (p, _, _) in ratios:
            if p not in pols:
                pols.append(p)
        lines += ["", "Policy over launch only, paired repetition by repetition (median of "
                  "the ratios):", "",
                  table(["policy"] + ["%s %s" % (g, k.replace("us", " µs kernel"))
                                      for g, k in GEOMS],
                        [[p] + [ratios.get((p, g, k), "–") for g, k in GEOMS] for p in pols])]
    return lines + [""]


def first_json(path):
    with open(path) as f:
        text = f.read()
    i = text.find("{")
    if i < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[i:])[0]
    except ValueError:
        return None


def render_launch_json(vdir, sections, fname, title):
    path = os.path.join(ROOT, vdir, fname)
    if not os.path.exists(path):
        return []
    d = first_json(path)
    if not d:
        return []
    lines = ["#### %s" % title, "", provenance_line(provenance(vdir, sections, fname))]
    dev = d.get("device", {})
    lines.append("Device: %s, %s SMs; %s repetitions of up to %s launches." % (
        dev.get("name"), dev.get("sm_count"), d.get("repetitions"), d.get("launches")))
    rows = {}
    for c in d.get("policy_over_launch_only", []):
        key = (c["geometry"], "tiny" if c["kernel_ns"] == 0 else "50us")
        rows.setdefault(c["policy"], {})[key] = "%+.1f%% (%s)" % (c["percent"],
                                                                  num(c["launch_only_us"]))
    lines += ["", table(["policy over launch only, paired (launch only µs)"] +
                        ["%s %s" % (g, k.replace("us", " µs kernel")) for g, k in GEOMS],
                        [[p] + [r.get(gk, "–") for gk in GEOMS] for p, r in rows.items()])]
    return lines + [""]


def render_validate(vdir, sections, fname, title):
    path = os.path.join(ROOT, vdir, fname)
    if not os.path.exists(path):
        return []
    outcomes = {}
    summary = ""
    scenario = policy = None
    per_scenario = {}  # the same runs, read from the per-scenario form
    with open(path) as f:
        for line in f:
            m = re.match(r"validate: cuda: (\S+) / (\S+) run \d+: (hang|exit \d+)", line)
            if m:
                outcomes.setdefault((m.group(1), m.group(2)), []).append(m.group(3))
            # The per-scenario form: "SCENARIO: what", "  POLICY  sim (...)",
            # "  cuda (exit 0 0.6s, hang 3.1s, ...): violated".
            m = re.match(r"([a-z0-9][\w-]*): ", line)
            if m:
                scenario = m.group(1)
            m = re.match(r"  (\S+)\s+sim \(", line)
            if m:
                policy = m.group(1)
            m = re.match(r"\s+cuda \((.*?)\):", line)
            if m and scenario and policy:
                for run in m.group(1).split(", "):
                    end = re.match(r"(hang|exit \d+|killed|signal \d+)", run)
                    if end:
                        per_scenario.setdefault((policy, scenario), []).append(end.group(1))
            m = re.match(r"\((\d+ holds-on-both.*?)(;|\))", line)
            if m:
                summary = m.group(1)
    # A file that logs every run ("validate: cuda: ...") is read from those
    # lines; the per-scenario form is the only record of the later runs.
    outcomes = outcomes or per_scenario
    lines = ["#### %s" % title, "", provenance_line(provenance(vdir, sections, fname)), ""]
    if summary:
        lines += ["Rows of the comparison: %s." % summary, ""]
    rows = []
    for (pol, scen), ends in outcomes.items():
        counts = {}
        for e in ends:
            counts[e] = counts.get(e, 0) + 1
        rows.append([pol, scen, ", ".join("%s %d of %d" % (e, n, len(ends))
                                          for e, n in counts.items())])
    lines.append(table(["policy", "scenario", "how the GPU runs ended"], rows))
    return lines + [""]


def render_probes(vdir, sections):
    files = sorted((f for f in os.listdir(os.path.join(ROOT, vdir))
                    if re.fullmatch(r"probes\d*\.txt", f)),
                   key=lambda f: int(re.sub(r"\D", "", f) or 0))
    if not files:
        return []
    fname = files[-1]
    rows = []
    with open(os.path.join(ROOT, vdir, fname)) as f:
        for line in f:
            m = re.match(r"((?:SEM|EXT)-\d+)\s+(\S+)\s+(?:spec|gpu):", line)
            if m:
                rows.append([m.group(1), m.group(2), ""])
            m = re.match(r"\s*gpu:\s+(.*)", line)
            if m and rows:
                rows[-1][2] = m.group(1).strip()
    agree = sum(1 for r in rows if r[1] == "as-spec")
    lines = ["#### SEM and EXT probes (latest probe run)", "",
             provenance_line(provenance(vdir, sections, fname)), "",
             "%d of %d probes as specified. The status compares the GPU with the "
             "specification compiled into that run's binary; the current one is "
             "`docs/cuda-semantics.md`." % (agree, len(rows)),
             "", table(["rule", "status", "what the GPU showed"], rows)]
    return lines + [""]


def render_steering(vdir, sections, fname):
    """Hangs of abort_while_mapping, steered by the simulator's counterexample or free."""
    path = os.path.join(ROOT, vdir, fname)
    if not os.path.exists(path):
        return []
    runs = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"awm_(\w+?)_(steered|free)_\d+\s+status\s+(\d+)", line)
            if m:
                hung = m.group(3) in ("87", "124")  # the watchdog's report, or killed
                runs.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(hung)
    def cell(ends):
        return "%d of %d" % (sum(ends), len(ends)) if ends else "–"
    rows = [[mode, cell(r.get("steered", [])), cell(r.get("free", []))]
            for mode, r in sorted(runs.items())]
    return ["#### The exit-time hang, steered by the simulator's counterexample", "",
            provenance_line(provenance(vdir, sections, fname)), "",
            "`abort_while_mapping MODE 2 0 4` on GCC 12.2's real plugin and driver, with the "
            "observe preload: steered (its threads enter libgomp's, the plugin's and the "
            "driver's calls in the order of the simulator's deadlock, `hardware/steering/`) "
            "or free; a hang is the watchdog's report.", "",
            table(["mode", "steered: hangs", "free: hangs"], rows), ""]


def run_exec_shrink(run):
    """exec with its defaults on abort_while_mapping MODE 1 0 50, each mode."""
    bin_ = os.path.join(ROOT, STACKCHECK)
    out = []
    for mode in SHRINK_MODES:
        argv = [bin_, "exec", "--exec_replay_dir=", "--json", "--",
                os.path.join(ROOT, SHRINK_PROGRAM), mode, "1", "0", "50"]
        out.append((mode, run.json(argv, "stackcheck exec -- abort_while_mapping %s 1 0 50"
                                   % mode)))
    return out


def exec_shrink_section(results):
    lines = [SHRINK_TITLE, "",
             "`stackcheck exec` with its defaults (100 executions, faults searched, every "
             "distinct finding shrunk and replayed) on `tests/programs/abort_while_mapping MODE "
             "1 0 50` (thread A's region traps on the device while thread B works under "
             "libgomp's device lock). Exploring is the run up to the end of its executions; "
             "shrinking is every finding's shrink, together. Target: shrinking at most 10x "
             "exploring.", ""]
    rows = []
    for mode, run in results:
        d = run.doc if run is not None and run.ok else None
        if d is None or "executions" not in d:
            # An exec that could not run prints {"error": ...} and no counts.
            rows.append([mode, "failed: %s" % (d or {}).get("error", "no output"),
                         "", "", "", "", ""])
            continue
        findings = d.get("findings", [])
        shrink = sum(f.get("shrink_s", 0) for f in findings)
        worst = max((f.get("shrink_s", 0) for f in findings), default=0)
        rows.append([mode, num(d["executions"]), seconds(d["seconds"]), num(len(findings)),
                     seconds(shrink), seconds(worst),
                     "%sx" % num(shrink / d["seconds"] if d["seconds"] else 0)])
    lines.append(table(["mode", "executions", "exploring", "findings", "shrinking (all)",
                        "longest shrink", "shrinking / exploring"], rows))
    stamps = [stamp_cell(r) for _, r in results if r is not None]
    if stamps:
        lines += ["", "Run: %s." % stamps[0]]
    return lines + [""]


def replace_section(path, title, section):
    """Replaces the section titled `title` in the document at `path` (or adds
    it before the exhaustive or hardware sections)."""
    with open(path) as f:
        old = f.read()
    pattern = re.compile(r"^%s\n.*?(?=^## )" % re.escape(title), re.S | re.M)
    if pattern.search(old):
        new = pattern.sub(lambda _: section + "\n", old)
    else:
        new = re.sub(r"^(## (?:Exhaustive|Hardware))", lambda m: section + "\n" + m.group(1),
                     old, count=1, flags=re.M)
    with open(path, "w") as f:
        f.write(new)


def build(targets):
    """The release build (`-c opt`) of `targets`; exits on failure."""
    r = subprocess.run([os.path.join(ROOT, "bazelw"), "build", "-c", "opt", *targets], cwd=ROOT)
    if r.returncode != 0:
        sys.exit("make_figures: the build failed")


def run_conformance(stamp):
    """Runs the conformance suite; returns (rows, unsupported reasons, stamp, wall)."""
    tmp = tempfile.mkdtemp(prefix="stackcheck-conformance-")
    try:
        env = dict(os.environ, TEST_UNDECLARED_OUTPUTS_DIR=tmp, TEST_TMPDIR=tmp)
        when = stamp()
        start = time.monotonic()
        sys.stderr.write("make_figures: %s\n" % " ".join(CONFORMANCE))
        subprocess.run(["bash", *[os.path.join(ROOT, a) for a in CONFORMANCE]], cwd=ROOT,
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - start
        path = os.path.join(tmp, "gcc_testsuite.tsv")
        rows = []
        if os.path.exists(path):
            with open(path) as f:
                header = f.readline().rstrip("\n").split("\t")
                rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    reasons = {}
    with open(os.path.join(ROOT, CONFORMANCE[-1])) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, _, why = line.rstrip("\n").partition("\t")
                reasons[name] = why
    return rows, reasons, when, wall


def conformance_section(result):
    rows, reasons, when, wall = result
    lines = [CONFORMANCE_TITLE, ""]
    if not rows:
        return lines + ["The conformance run wrote no results.", ""]
    judged = [r for r in rows if r["expect"] in ("pass", "fail")]
    listed = [r for r in judged if r["name"] in reasons]
    agree = [r for r in judged if r["name"] not in reasons and r["agrees"] == "yes"]
    disagree = [r for r in judged if r["name"] not in reasons and r["agrees"] != "yes"]
    skipped = [r for r in rows if r["expect"] == "skip"]
    false_alarms = [r for r in judged if r["name"] not in reasons and r["expect"] == "pass"
                    and r["exec"] not in ("clean", "")]
    crashes = [r for r in disagree if "stackcheck exec exited" in r.get("note", "")]
    langs = {}
    for r in judged:
        lang = r["name"].split(".")[1] if r["name"].count(".") >= 2 else "?"
        lang = {"c": "C", "c-c++-common": "C and C++ (built as C)", "c++": "C++",
                "fortran": "Fortran"}.get(lang, lang)
        langs[lang] = langs.get(lang, 0) + 1
    rates = sorted(float(r["exec_per_s"]) for r in judged
                   if r.get("exec_per_s") and float(r["exec_per_s"]) > 0)
    median = rates[len(rates) // 2] if rates else 0
    lines.append("The offloading run tests of GCC 12.2's libgomp testsuite, built from Debian's "
                 "gcc-12-source, each run natively, on the preloaded simulated driver and under "
                 "`stackcheck exec` (3 random schedules, fault-free), judged against what the "
                 "test expects (`tests/gcc_testsuite/`). Run: %s; the whole suite took %s on "
                 "2 cores." % (when, seconds(wall)))
    lines.append("")
    lines.append(table(["", "programs"], [
        ["built and judged (%s)" % ", ".join("%s %d" % kv for kv in sorted(langs.items())),
         len(judged)],
        ["agreeing with what the test expects, in all three runs", len(agree)],
        ["disagreeing", len(disagree)],
        ["false alarms (a finding on a passing test)", len(false_alarms)],
        ["crashes of stackcheck's", len(crashes)],
        ["listed as unsupported, with the reason", len(listed)],
        ["skipped by the test's own requirements, or not building here", len(skipped)]]))
    lines.append("")
    lines.append("`exec` on these programs: median %s executions/s (%s to %s), a new process "
                 "per execution from the fork server, not pinned." % (
                     num(median), num(rates[0]) if rates else "–",
                     num(rates[-1]) if rates else "–"))
    lines.append("")
    detail = [[r["name"], reasons[r["name"]]] for r in listed]
    detail += [[r["name"], "skipped: " + r.get("note", "")] for r in skipped]
    detail += [[r["name"], "DISAGREES: " + r.get("note", "")] for r in disagree]
    if detail:
        lines.append(table(["program", "why"], detail))
        lines.append("")
    return lines


def hardware_section():
    vdir = find_validation_dir()
    if not vdir:
        return ["## Hardware (H200, H100)", "", "No validation folder found.", ""]
    log = find_log(vdir)
    sections = log_sections(log)
    lines = ["## Hardware (H200, H100), from the committed raw output", "",
             "Rendered from the files under `%s/`; the date, build and machine are what "
             "the hardware log (`%s`) records for each; \"committed in\" is the commit "
             "that added the raw file. Nothing here is re-measured." % (vdir, log), ""]
    lines += render_launch(vdir, sections, "bench12_plain.txt", "Launch cost per region")
    lines += render_launch(vdir, sections, "bench12_mapped.txt",
                           "Launch cost per region with one mapped variable "
                           "(`--bench_mapped_vars=1`)")
    lines += render_launch(vdir, sections, "bench14_mapped1_h100.txt",
                           "Launch cost per region with one mapped variable, event-fence-keep "
                           "beside V1 and V2 (H100)")
    lines += render_launch(vdir, sections, "bench14_mapped4_h100.txt",
                           "Launch cost per region with four mapped variables (H100)")
    lines += render_launch_json(vdir, sections, "bench7_json.txt",
                                "Policy over launch only, from `bench launch --json`")
    lines += render_validate(vdir, sections, "validate8_device_lock.txt",
                             "`validate --backend=cuda`: the device-lock scenarios")
    lines += render_validate(vdir, sections, "validate14_h100.txt",
                             "`validate --backend=cuda`: every policy and scenario (H100)")
    lines += render_steering(vdir, sections, "steer12_summary.txt")
    lines += render_probes(vdir, sections)
    return lines


# ---------------------------------------------------- recorded long proofs

def read_recorded(path):
    """A recorded run: its `# key: value` header lines (what, command, started,
    commit, machine) as a dict, and the output lines after them."""
    head, body = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"# (\w+): (.*)$", line)
            if m:
                head[m.group(1)] = m.group(2)
            else:
                body.append(line)
    return head, body


def run_cell(head, directory, name):
    """A recorded run's last cell: when it began, the commit, the machine, the file."""
    return "%s · %s · %s · `%s/%s`" % (head.get("started", "?"), head.get("commit", "?"),
                                       head.get("machine", "?"), directory, name)


def what_cell(head, name):
    """A recorded run's first cell: what it was, and, for a run a later finding
    took the claim from (`# superseded: WHY`), that it no longer proves it."""
    what = head.get("what", name)
    if "superseded" in head:
        what += " — **not a proof**: %s" % head["superseded"]
    return what


def recorded_files(directory):
    """The recorded runs (`.txt`) in a directory, by name; none if it is absent."""
    if not os.path.isdir(directory):
        return []
    return sorted(f for f in os.listdir(directory) if f.endswith(".txt"))


def parse_proof(path):
    """A recorded `check` run: the header (read_recorded), then the command's
    text output as it printed it. A search run in parts (`--checkpoint`,
    `--resume`) records each part's output in turn; the last part's counts
    are the totals."""
    head, body = read_recorded(path)
    out = {}
    for line in body:
        key, _, value = line.partition(" ")
        if key in ("executions", "exhausted", "seconds", "violation", "sleep_blocked",
                   "units"):
            out[key] = value
    return head, out


def proofs_section():
    pdir = os.path.join(ROOT, PROOFS_DIR)
    lines = ["## Exhaustive searches too long to repeat here, from their recorded output", "",
             "Each row is rendered from a file under `%s/`: the command's own text output, "
             "headed by the date it began, the commit it was built from and the machine. "
             "Nothing here is re-measured; rerun the command to check a row." % PROOFS_DIR, ""]
    files = recorded_files(pdir)
    if not files:
        return lines + ["No recorded runs.", ""]
    rows = []
    for name in files:
        head, out = parse_proof(os.path.join(pdir, name))
        rows.append([what_cell(head, name), "`%s`" % head.get("command", "?"),
                     num(int(out["executions"])) if "executions" in out else "?",
                     out.get("exhausted", "?"), seconds(float(out["seconds"]))
                     if "seconds" in out else "?", out.get("violation", "?"),
                     run_cell(head, PROOFS_DIR, name)])
    lines.append(table(["what", "command", "executions", "exhausted", "time", "violation",
                        "run"], rows))
    return lines + [""]


# ------------------------------------------------------ sharded proofs

SHARDED_DIR = "docs/proofs/sharded"


def parse_sharded(path):
    """A recorded sharded proof: the header (read_recorded), then the output of
    properties/proof_shards.sh (`shard I: exit RC, S s` lines, `wall_seconds`)
    or of a Bazel run (`# wall: S` in the header), and `check --merge`'s text
    output, whose `seconds I S` rows are the shards' own times."""
    head, body = read_recorded(path)
    out = {"shard_seconds": []}
    walls = []
    for line in body:
        fields = line.split()
        if line.startswith("merge: "):
            out["shard_seconds"] = []  # a later merge's rows: the totals so far
        if len(fields) == 2 and fields[0] == "wall_seconds":
            walls.append(float(fields[1]))
        if len(fields) == 2 and fields[0] in ("shards", "units", "executions", "walk_executions",
                                               "private_executions", "escapes", "exhausted",
                                               "wall_seconds", "longest_over_mean_seconds",
                                               "most_over_mean_executions"):
            out[fields[0]] = fields[1]
        elif len(fields) == 3 and fields[0] == "seconds":
            out["shard_seconds"].append(float(fields[2]))
        elif line.startswith("violation "):
            out["violation"] = line[len("violation "):]
    # A proof run in parts: the walls of its runs together, unless the header
    # says otherwise (`# wall: none` when the runs were on different machines).
    out["wall_seconds"] = sum(walls) if walls else None
    if "wall" in head:
        try:
            out["wall_seconds"] = float(head["wall"])
        except ValueError:
            out["wall_seconds"] = None
    return head, out


def sharded_section():
    pdir = os.path.join(ROOT, SHARDED_DIR)
    lines = ["## Sharded proofs", "",
             "One `check` search split into shards that share nothing (`check --shard_count`, "
             "merged by `check --merge`; `sim/strategies/README.md`, \"Sharded proofs\"), "
             "rendered from the output recorded under `%s/`. *One core* is the sum of the "
             "shards' own times (each shard is one single-threaded process); *speed-up* is that "
             "over the wall time of the shards run at once; *balance* is the busiest shard's "
             "time over the mean. The executions include every shard's walk of the top and its "
             "escapes." % SHARDED_DIR, ""]
    files = recorded_files(pdir)
    if not files:
        return lines + ["No recorded runs.", ""]
    rows = []
    for name in files:
        head, out = parse_sharded(os.path.join(pdir, name))
        one_core = sum(out["shard_seconds"])
        wall = out["wall_seconds"]
        rows.append([what_cell(head, name), "`%s`" % head.get("command", "?"),
                     out.get("shards", "?"), num(int(out["units"])) if "units" in out else "?",
                     "%s (walks %s, escapes %s)" % (
                         num(int(out["executions"])) if "executions" in out else "?",
                         num(int(out.get("walk_executions", 0))),
                         num(int(out.get("private_executions", 0)))),
                     out.get("exhausted", "?"), out.get("violation", "?"),
                     seconds(wall) if wall is not None else "–",
                     seconds(one_core) if one_core else "?",
                     "%.1fx" % (one_core / wall) if wall and one_core else "–",
                     out.get("longest_over_mean_seconds", "?"),
                     run_cell(head, SHARDED_DIR, name)])
    lines.append(table(["what", "command", "shards", "units", "executions", "exhausted",
                        "violation", "wall", "one core", "speed-up", "balance", "run"], rows))
    return lines + [""]


# ------------------------------------------------- GCC's libgomp under exec

GCC_EXEC_DIR = "docs/gcc_exec"
GCC_EXEC_BUILDS = [
    ("debian", "Debian's libgomp and plugin"),
    ("plugin", "plugin with 0001 + 0002, Debian's libgomp"),
    ("fixed", "libgomp and plugin with 0001-0003"),
]


def gcc_exec_section():
    """gcc/exec_verification.sh's recorded runs: one `exec --json` per build of
    libgomp and mode of abort_while_mapping, headed as read_recorded reads."""
    gdir = os.path.join(ROOT, GCC_EXEC_DIR)
    lines = ["## GCC's libgomp and nvptx plugin under exec, stock and patched", "",
             "`abort_while_mapping MODE 1 0 2`, and `threads_regions 2 1 8 1` (mode `threads`: "
             "two threads, a region each, one mapped array), depth-first over every plan of up to two faults "
             "(a trap, a rejected launch, allocations failing), each with every schedule within "
             "one preemption (`gcc/exec_verification.sh`, the patches in `gcc/patches/`, "
             "`docs/gcc-report.md`). Each row is rendered from its file under `%s/`; the "
             "findings are counted by property. In mode `alloc` the program exits itself when "
             "`omp_target_alloc` returns NULL, a normal exit that 0003 leaves as it was (the "
             "patch's header says so)." % GCC_EXEC_DIR, ""]
    files = recorded_files(gdir)
    if not files:
        return lines + ["No recorded runs.", ""]
    order = {name: i for i, (name, _) in enumerate(GCC_EXEC_BUILDS)}
    modes = {m: i for i, m in enumerate(["map", "update", "alloc", "regions", "threads"])}
    rows = []
    for name in files:
        head, body = read_recorded(os.path.join(gdir, name))
        build, _, mode = head.get("what", "? ?").partition(" ")
        try:
            result = json.loads("\n".join(body))
        except ValueError:
            result = {}
        findings = {}
        for f in result.get("findings", []):
            prop = f.get("property", "?")
            findings[prop] = findings.get(prop, 0) + 1
        rows.append(((order.get(build, 9), modes.get(mode, 9)), [
            dict(GCC_EXEC_BUILDS).get(build, build), mode,
            count(result["fault_plans"]) if "fault_plans" in result else "?",
            num(int(result["executions"])) if "executions" in result else "?",
            "yes" if result.get("exhausted") else "no",
            ", ".join("%s %d" % kv for kv in sorted(findings.items())) or "none",
            seconds(float(result["seconds"])) if "seconds" in result else "?",
            run_cell(head, GCC_EXEC_DIR, name)]))
    rows.sort(key=lambda r: r[0])
    lines.append(table(["libraries", "mode", "fault plans", "executions", "exhausted",
                        "findings", "time", "run"], [r for _, r in rows]))
    return lines + [""]


# ------------------------------------------------------------- fuzzing

FUZZ_DIR = "docs/fuzzing"


def fuzz_section():
    """Recorded libFuzzer runs: the header (read_recorded), then libFuzzer's
    `Done N runs in S second(s)` and `stat::` lines."""
    fdir = os.path.join(ROOT, FUZZ_DIR)
    lines = ["## Fuzzing, from the recorded runs", ""]
    files = sorted(f for f in os.listdir(fdir) if f.endswith(".txt")) \
        if os.path.isdir(fdir) else []
    if not files:
        return lines + ["No recorded runs.", ""]
    rows = []
    for name in files:
        head, body = read_recorded(os.path.join(fdir, name))
        stats = {}
        for line in body:
            m = re.match(r"Done (\d+) runs in (\d+) second", line)
            if m:
                stats["runs"], stats["seconds"] = int(m.group(1)), float(m.group(2))
            m = re.match(r"stat::(\w+):\s+(\S+)", line)
            if m:
                stats[m.group(1)] = m.group(2)
        crashed = "runs" not in stats
        rows.append([head.get("what", name), "`%s`" % head.get("command", "?"),
                     num(stats.get("runs")) if not crashed else "?",
                     seconds(stats.get("seconds")) if not crashed else "?",
                     "none" if not crashed else "see the file",
                     "%s MB" % stats.get("peak_rss_mb", "?"),
                     run_cell(head, FUZZ_DIR, name)])
    lines.append(table(["what", "command", "inputs", "time", "crash", "peak RSS", "run"], rows))
    return lines + [""]


# ------------------------------------------------------- mutation testing

def mutants_section():
    path = os.path.join(ROOT, MUTANTS_JSON)
    lines = ["## Mutation testing, from the committed run", ""]
    if not os.path.exists(path):
        return lines + ["No `%s` found (run `tests/mutants/run_mutants.py --json %s`)."
                        % (MUTANTS_JSON, MUTANTS_JSON), ""]
    with open(path) as f:
        d = json.load(f)
    lines.append(
        "`tests/mutants/run_mutants.py` planted each mistake of `tests/mutants/` in turn and "
        "ran exploration alone: `campaign --policy P --executions %s` and `check --policy P "
        "--only_kept` (at most %s executions) over %s; caught = a run exits 1 (a NEW "
        "fingerprint, or a verdict that differs). Seconds: the smallest campaign that "
        "catches it, or the check's search. Regions: the shrunk counterexample (campaign) or "
        "the scenario (check). Run: %s · %s · %s."
        % (num(d.get("campaign_executions")), num(d.get("check_executions")),
           ", ".join("`%s`" % c for c in d.get("checks", [])), d.get("date"), d.get("commit"),
           d.get("machine")))
    lines += ["", "**%d of %d** non-equivalent mutants caught by exploration, %d of them "
              "within 1 s with a counterexample of at most 3 regions; %d equivalent." % (
                  d.get("caught", 0), d.get("non_equivalent", 0), d.get("caught_fast", 0),
                  d.get("equivalent", 0)), ""]
    rows = []
    for m in d.get("mutants", []):
        if m.get("build_failed"):
            rows.append([m["mutant"], m.get("description", ""), "did not build", "", "", ""])
            continue
        by = m["caught_by"] if m["caught"] or not m.get("equivalent") else \
            "none (equivalent: %s)" % m["equivalent"]
        rows.append([m["mutant"], m["description"], by, seconds(m.get("seconds")),
                     num(m.get("regions")), m.get("fastest") or "–"])
    lines.append(table(["mutant", "mistake", "caught by", "time", "regions", "fastest run"],
                       rows))
    return lines + [""]


# -------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-build", action="store_true", help="do not run ./bazelw build")
    ap.add_argument("--hardware-only", action="store_true",
                    help="render only the sections taken from committed output (long proofs, "
                    "hardware, mutation testing); keep the simulator figures as they are")
    ap.add_argument("--long", action="store_true", help="also the runs that take minutes")
    ap.add_argument("--conformance-only", action="store_true",
                    help="run only GCC's testsuite under exec and replace its section")
    ap.add_argument("--exec-shrink-only", action="store_true",
                    help="run only exec's find-against-shrink runs and replace their section")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "figures.md"))
    args = ap.parse_args()

    started = time.monotonic()
    machine, commit = this_machine(), this_commit()

    def stamp():
        return "%s · %s · %s" % (now_utc(), commit, machine)

    body = []
    if args.exec_shrink_only:
        if not args.no_build:
            build(["//cli:stackcheck", "//sim/libcuda:libcuda.so.1",
                   "//tests/programs:abort_while_mapping"])
        section = "\n".join(exec_shrink_section(run_exec_shrink(Runner(stamp))))
        replace_section(args.out, SHRINK_TITLE, section)
        return
    if args.conformance_only:
        if not args.no_build:
            build(["//cli:stackcheck", "//sim/libcuda:libcuda.so.1",
                   "//tests/gcc_testsuite:programs"])
        section = "\n".join(conformance_section(run_conformance(stamp)))
        replace_section(args.out, CONFORMANCE_TITLE, section)
        return
    if not args.hardware_only:
        if not args.no_build:
            build(BUILD_TARGETS)
        bin_ = os.path.join(ROOT, STACKCHECK)
        if not os.path.exists(bin_):
            sys.exit("make_figures: %s is missing; build it or drop --no-build" % STACKCHECK)
        run = Runner(stamp)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None

        sim = run.json([bin_, "bench", "sim", "--bench_executions=%d" % BENCH_SIM_EXECUTIONS,
                        "--json"], "stackcheck bench sim --bench_executions=%d"
                       % BENCH_SIM_EXECUTIONS)
        bugs = run.json([bin_, "bench", "bugs", "--json"], "stackcheck bench bugs")
        clean = None
        if args.long:
            clean = run.json([bin_, "exec", "--executions=10000", "--exec_faults=none",
                              "--exec_replay_dir=", "--json",
                              "--", *[os.path.join(ROOT, a) if a.startswith("bazel-bin") else a
                                      for a in EXEC_PROGRAM]],
                             "stackcheck exec --executions=10000 --exec_faults=none -- %s" % " ".join(EXEC_PROGRAM))
        exec_ = run.json(["taskset", "-c", "0", bin_, "bench", "exec",
                          "--executions=%d" % BENCH_EXEC_EXECUTIONS, "--json", "--",
                          *[os.path.join(ROOT, a) if a.startswith("bazel-bin") else a
                            for a in EXEC_PROGRAM]],
                         "taskset -c 0 stackcheck bench exec --executions=%d -- %s"
                         % (BENCH_EXEC_EXECUTIONS, " ".join(EXEC_PROGRAM)))
        dfs = run.json([bin_, "bench", "dfs", "--json"], "stackcheck bench dfs")
        checks = []
        kept = old_check_rows(args.out)
        for what, flags, long_run in CHECK_RUNS:
            if long_run and not args.long:
                # Its row from the last run, which carries that run's stamp.
                checks.append((what, kept.get(what)))
                continue
            # A run with its own budget gets that long and a margin, not less.
            budget = max([int(f.split("=", 1)[1]) for f in flags
                          if f.startswith("--time_budget_s=")] or [0])
            checks.append((what, run.json([bin_, "check", *flags, "--json"],
                                          "stackcheck check " + " ".join(flags),
                                          timeout=max(900, budget + 300))))
        tmp = tempfile.mkdtemp(prefix="stackcheck-figures-")
        try:
            camp = run.json([bin_, "campaign", "--time_budget_s=%d" % CAMPAIGN_BUDGET_S,
                             "--jobs=2", "--replay_dir=" + os.path.join(tmp, "replays"),
                             "--json"],
                            "stackcheck campaign --time_budget_s=%d --jobs=2"
                            % CAMPAIGN_BUDGET_S)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        mon = strat = None
        if os.path.exists(os.path.join(ROOT, MONITORS_BENCH)):
            mon = run.json([os.path.join(ROOT, MONITORS_BENCH), "--benchmark_format=json",
                            "--benchmark_min_time=0.1"], "monitors_benchmark")
        if os.path.exists(os.path.join(ROOT, STRATEGY_BENCH)):
            strat = run.json([os.path.join(ROOT, STRATEGY_BENCH), "--benchmark_format=json",
                              "--benchmark_min_time=0.1"], "strategy_benchmark")

        body += ["## Simulator, on this project's development machine", "",
                 "Commit %s, machine %s; the release build `./bazelw run` uses (`-c opt`: `-O2`, "
                 "`NDEBUG`). Load "
                 "average when the runs began: %s (the machine is shared with other "
                 "builds, so rates move by a quarter or more between runs). Each "
                 "table names its run: date · commit · machine." % (
                     commit, machine, "%.2f" % load if load is not None else "unknown"), ""]
        body += render_bench_sim(sim)
        body += render_bench_bugs(bugs)
        body += render_bench_exec(exec_, clean)
        conformance = run_conformance(stamp)
        shrink = run_exec_shrink(run)
        body += render_bench_dfs(dfs)
        body += render_checks(checks)
        body += render_campaign(camp)
        body += render_benchmarks(mon, strat)
        body += conformance_section(conformance)
        body += exec_shrink_section(shrink)
        total = time.monotonic() - started
        timing = ["### What this run cost", "",
                  table(["command", "wall time", "exit status"],
                        [["`%s`" % r.cmd, seconds(r.wall), r.rc] for r in run.runs]),
                  "", "In all %s, build excluded." % seconds(sum(r.wall for r in run.runs)),
                  ""]
        body += timing
    elif os.path.exists(args.out):
        # Keep the simulator part of the document as it is.
        with open(args.out) as f:
            old = f.read()
        m = re.search(r"(## Simulator.*?)(?=^## (?:Exhaustive|Fuzzing|Hardware))", old,
                      flags=re.S | re.M)
        if m:
            body.append(m.group(1).rstrip() + "\n")

    body += proofs_section()
    body += sharded_section()
    body += gcc_exec_section()
    body += fuzz_section()
    body += hardware_section()
    body += mutants_section()

    head = ["# Figures", "",
            "<!-- Generated by docs/make_figures.py; do not edit by hand. -->", "",
            "This document is generated by `docs/make_figures.py`: the simulator's figures "
            "from the `--json` output of the commands, run on the machine each table names; "
            "the GPUs' (H200, H100) from the raw output committed beside the hardware log, which keeps "
            "the runs' other observations in prose. Regenerate it with",
            "", "```sh", "docs/make_figures.py            # builds, then runs for a few "
            "minutes on 2 cores", "```", "",
            "and commit the result. Nothing here is edited by hand; the README and the "
            "package READMEs point here instead of quoting figures.", ""]
    text = "\n".join(head + body).rstrip() + "\n"
    text = re.sub(r"\n{3,}", "\n\n", text)
    with open(args.out, "w") as f:
        f.write(text)
    sys.stderr.write("make_figures: wrote %s in %s\n" % (
        os.path.relpath(args.out, ROOT), seconds(time.monotonic() - started)))


if __name__ == "__main__":
    main()
