#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stats.py - the statistics every Symphony verdict number comes from.

One module computes, from the results' JSON (eval/symphony_ring.sh's
documents: a "runs" list of {scenario, marking, seed, job, cct_ms,
max_step_overlap, ...}; eval/sim_workloads.sh's, one point a file: {model,
marking, seed, jct_ns, sync_ns, ...}), what EVALUATION.md's verdict
table states:

  - the median as statisticians define it (numpy: the mean of the two
    middle values of an even count; the jq scripts before 2026-12 took
    the upper middle);
  - the paired ratio (a marking's CCT over RED's, same seed and job), its
    median, a 95% percentile-bootstrap interval of that median (scipy,
    a fixed seed, so a table regenerates to the digit) and a two-sided
    sign-test p-value (scipy's exact binomial test on faster/slower);
  - the paper's own metric beside it: Fig. 5 compares the medians of two
    CCT distributions, so the ratio of the medians;
  - a verdict: "reproduces" or "refuted" only where the interval excludes
    the other side of 1 and the sign test's p is under 0.05, "not
    distinguishable" otherwise;
  - a baseline's CCT over its lower bound, the bound derived from the
    document's own fabric and rings (steps x step bytes at each flow's
    share of its bottleneck).

  eval/stats.py compare FILE [--marking symphony] [--scenario S]
                [--metric M] [--where KEY=VALUE ...]
  eval/stats.py baseline FILE [--scenario S]
  eval/stats.py table ROWS.json [--root DIR] [--out FILE]

Bad input (a file that is not such a document, a row naming a scenario
or marking with no runs) exits 2 naming it.
"""
import argparse
import json
import os
import sys

import numpy as np
from scipy import stats as sps

BOOTSTRAP_RESAMPLES = 10000
BOOTSTRAP_SEED = 20261207
CONFIDENCE = 0.95
ALPHA = 0.05


class StatsError(Exception):
    """Input the module cannot judge: said in one line, exit 2."""


def median(values):
    """The median of @values (the mean of the two middle ones of an even
    count)."""
    if len(values) == 0:
        raise StatsError("median of no values")
    return float(np.median(np.asarray(values, dtype=float)))


def bootstrap_interval(values, statistic=np.median):
    """The 95% percentile-bootstrap interval of @statistic over @values,
    (low, high); a single value or equal values give (v, v)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise StatsError("an interval of no values")
    if data.size == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    res = sps.bootstrap((data,), statistic, n_resamples=BOOTSTRAP_RESAMPLES,
                        confidence_level=CONFIDENCE, method="percentile",
                        vectorized=True, axis=-1,
                        random_state=np.random.default_rng(BOOTSTRAP_SEED))
    return (float(res.confidence_interval.low),
            float(res.confidence_interval.high))


def sign_test(ratios):
    """Two-sided exact sign test of paired @ratios against 1: (faster,
    slower, p); ties (a ratio of exactly 1) are left out, as the test
    defines it."""
    faster = int(sum(1 for r in ratios if r < 1))
    slower = int(sum(1 for r in ratios if r > 1))
    n = faster + slower
    p = 1.0 if n == 0 else float(sps.binomtest(faster, n, 0.5).pvalue)
    return faster, slower, p


def verdict(low, high, claim="lower", p=0.0):
    """The verdict on a claim that a ratio is below 1 ("lower") or above
    ("higher"), from its interval and its sign test: the interval must
    exclude the other side of 1 and the sign test reject equal odds at
    ALPHA (the bootstrap interval of a median of 10-20 pairs can exclude 1
    where half the pairs go either way; both must agree)."""
    if claim not in ("lower", "higher"):
        raise StatsError("claim '%s': lower or higher" % claim)
    if p >= ALPHA:
        return "not distinguishable"
    if high < 1:
        return "reproduces" if claim == "lower" else "refuted"
    if low > 1:
        return "refuted" if claim == "lower" else "reproduces"
    return "not distinguishable"


def load(path):
    """The document at @path, checked to hold runs."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise StatsError("%s: %s" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise StatsError("%s: not a symphony_ring document (no runs)" % path)
    return doc


def runs_of(doc, marking, scenario=None, path="document", per="job",
            where=None):
    """{(scenario, seed, job): run} of @marking (and @scenario, and whose
    fields equal @where's, e.g. one point of a figure: {"compute_scale":
    64}); with @per "seed", one entry per seed whose figures are its
    slowest job's (an AllReduce of several job IDs ends when its last ring
    does: job None)."""
    sel = {}
    where = where or {}
    for run in doc["runs"]:
        if run.get("marking") != marking:
            continue
        if scenario is not None and run.get("scenario") != scenario:
            continue
        if any(run.get(k) != v for k, v in where.items()):
            continue
        if per == "seed":
            key = (run.get("scenario"), run.get("seed"), None)
            prev = sel.get(key)
            if prev is not None:
                run = {m: max(prev[m], run[m]) for m in
                       ("cct_ms", "final_step_span_ms", "max_step_overlap")
                       if m in run and m in prev}
            sel[key] = run
            continue
        key = (run.get("scenario"), run.get("seed"), run.get("job"))
        if key in sel:
            # a file of several points (a figure's compute scales, a
            # table's models): one pair per seed needs --where
            raise StatsError("%s: seed %s has more than one run of '%s'%s: "
                             "choose one point with where" % (
                                 path, key[1], marking, "" if key[0] is None
                                 else " in scenario '%s'" % key[0]))
        sel[key] = run
    if not sel:
        raise StatsError("%s: no runs of marking '%s'%s%s" % (
            path, marking, "" if scenario is None else
            " in scenario '%s'" % scenario, "".join(
                " with %s %s" % (k, json.dumps(v)) for k, v in where.items())))
    return sel


def compare(doc, marking="symphony", scenario=None, metric="cct_ms",
            path="document", per="job", where=None):
    """@marking against RED on @metric: the paired figures."""
    base = runs_of(doc, "red", scenario, path, per, where)
    test = runs_of(doc, marking, scenario, path, per, where)
    keys = sorted(set(base) & set(test), key=lambda k: (str(k[0]), k[1], k[2]))
    if not keys:
        raise StatsError("%s: no seed ran both red and %s" % (path, marking))
    for k in keys:
        for run in (base[k], test[k]):
            if not isinstance(run.get(metric), (int, float)):
                raise StatsError("%s: a run of seed %s has no %s" % (path, k[1], metric))
    ratios = [test[k][metric] / base[k][metric] for k in keys]
    low, high = bootstrap_interval(ratios)
    faster, slower, p = sign_test(ratios)
    base_values = [base[k][metric] for k in keys]
    test_values = [test[k][metric] for k in keys]
    return {
        "marking": marking, "scenario": scenario, "metric": metric,
        "pairs": len(keys),
        "paired_ratio_median": median(ratios),
        "paired_ratio_ci95": [low, high],
        "faster": faster, "slower": slower, "sign_test_p": p,
        "baseline_median": median(base_values),
        "marking_median": median(test_values),
        # the paper's Fig. 5 metric: medians of the two distributions
        "ratio_of_medians": median(test_values) / median(base_values),
    }


def scenario_bound_ms(doc, scenario):
    """The lower bound of one AllReduce of @scenario on @doc's fabric, in
    ms: each step's bytes at the rate a flow gets at its bottleneck when
    every flow of the step runs in lockstep (a host link, or a ToR's
    uplinks shared by the step's flows that cross the spines)."""
    tb, wl = doc.get("testbed", {}), doc.get("workload", {})
    try:
        tors, spines = int(tb["tors"]), int(tb["spines"])
        hpt, size = int(tb["hosts_per_tor"]), int(wl["size_per_rank"])
        rate = rate_bps(tb["rate"])
        uplink = rate_bps(tb["uplink_rate"])
    except (KeyError, ValueError, TypeError) as e:
        raise StatsError("the document's fabric lacks %s" % e)
    if int(tb.get("pods", 1) or 1) > 1:
        raise StatsError("no bound for multi-pod fabrics")
    iterations = 1
    rc = str(wl.get("ringcoll", "")).split()
    if "--iterations" in rc:
        iterations = int(rc[rc.index("--iterations") + 1])
    # a flow's rate when each host of a ToR sends one flow over the spines
    cross = min(rate, spines * uplink / hpt)
    if scenario in ("rails", "railjobs", "railtwojobs"):
        ranks = tors
        segments = [(2 * (ranks - 1), size / ranks, cross)]
    elif scenario in ("rings", "jobs2", "twojobs"):
        ranks = 2 * tors
        segments = [(2 * (ranks - 1), size / ranks, cross)]
    elif scenario == "ring1":
        ranks = tors * hpt
        segments = [(2 * (ranks - 1), size / ranks, cross)]
    elif scenario == "torrings":
        ranks = hpt
        segments = [(2 * (ranks - 1), size / ranks, rate)]
    elif scenario in ("grid", "gridrings"):
        # rows: a ToR's hosts, on its own switch; columns across the ToRs
        rows, cols = tors, hpt
        segments = [(2 * (cols - 1), size / cols, rate),
                    (2 * (rows - 1), size / cols / rows, cross)]
    else:
        raise StatsError("no bound for scenario '%s'" % scenario)
    seconds = sum(steps * nbytes * 8 / bps for steps, nbytes, bps in segments)
    return seconds * 1000 * iterations


def rate_bps(text):
    """'10gbit' -> 1e10."""
    units = {"gbit": 1e9, "mbit": 1e6, "kbit": 1e3, "bit": 1.0}
    for unit, mult in units.items():
        if str(text).endswith(unit):
            return float(str(text)[:-len(unit)]) * mult
    raise ValueError("rate '%s'" % text)


def baseline_miss(b, cct_over_bound, max_overlap):
    """How far baseline @b misses the paper's (@cct_over_bound,
    @max_overlap): the relative differences of its medians."""
    return (b["cct_over_bound_median"] / cct_over_bound - 1,
            b["max_step_overlap_median"] / max_overlap - 1)


def baseline(doc, scenario=None, path="document"):
    """RED+DCQCN's runs of @scenario: CCT and its bound, overlap."""
    runs = list(runs_of(doc, "red", scenario, path).values())
    if scenario is None:
        names = {r.get("scenario") for r in runs}
        if len(names) != 1:
            raise StatsError("%s: several scenarios, name one" % path)
        scenario = names.pop()
    bound = scenario_bound_ms(doc, scenario)
    cct = [r["cct_ms"] for r in runs]
    over = [c / bound for c in cct]
    overlap = [r["max_step_overlap"] for r in runs]
    low, high = bootstrap_interval(over)
    olow, ohigh = bootstrap_interval(overlap)
    return {
        "scenario": scenario, "runs": len(runs),
        "bound_ms": bound,
        "cct_ms_median": median(cct),
        "cct_ms_range": [float(min(cct)), float(max(cct))],
        "cct_over_bound_median": median(over),
        "cct_over_bound_ci95": [low, high],
        "max_step_overlap_median": median(overlap),
        "max_step_overlap_ci95": [olow, ohigh],
        "max_step_overlap_range": [int(min(overlap)), int(max(overlap))],
    }


# ---- the verdict table -----------------------------------------------

def fmt(x, digits=3):
    return "%.*f" % (digits, x)


def fmt_p(p):
    return "%.2g" % p if p < 0.001 else "%.3f" % p


def table_rows(spec, root):
    """The verdict table's rows (dicts) for @spec's rows, reading the files
    under @root."""
    out = []
    for row in spec["rows"]:
        path = os.path.join(root, row["file"])
        doc = load(path)
        kind = row.get("kind", "paired")
        if kind == "paired":
            c = compare(doc, row.get("marking", "symphony"),
                        row.get("scenario"), row.get("metric", "cct_ms"),
                        row["file"], row.get("per", "job"), row.get("where"))
            lo, hi = c["paired_ratio_ci95"]
            out.append({
                "claim": row["claim"], "setup": row["setup"],
                "runs": "%d pairs" % c["pairs"],
                "number": "%s [%s, %s]" % (fmt(c["paired_ratio_median"]),
                                           fmt(lo), fmt(hi)),
                "p": "%s (%d faster, %d slower)" % (
                    fmt_p(c["sign_test_p"]), c["faster"], c["slower"]),
                "paper_metric": fmt(c["ratio_of_medians"]),
                "verdict": verdict(lo, hi, row.get("claim_direction",
                                                    "lower"),
                                   c["sign_test_p"]),
                "file": row["file"], "values": c})
        elif kind == "baseline":
            b = baseline(doc, row.get("scenario"), row["file"])
            lo, hi = b["cct_over_bound_ci95"]
            olo, ohi = b["max_step_overlap_ci95"]
            paper = dict(spec.get("paper_baseline", {}), **row)
            miss_cct, miss_overlap = baseline_miss(
                b, float(paper["paper_cct_over_bound"]),
                float(paper["paper_max_overlap"]))
            tol = float(spec.get("baseline_tolerance", 0.25))
            ok = abs(miss_cct) <= tol and abs(miss_overlap) <= tol
            out.append({
                "claim": row["claim"], "setup": row["setup"],
                "runs": "%d runs" % b["runs"],
                "number": "CCT/bound %s [%s, %s]; max overlap %s [%s, %s]" % (
                    fmt(b["cct_over_bound_median"], 2), fmt(lo, 2),
                    fmt(hi, 2), fmt(b["max_step_overlap_median"], 1),
                    fmt(olo, 1), fmt(ohi, 1)),
                "p": "-",
                "paper_metric": "CCT %s ms (bound %s ms)" % (
                    fmt(b["cct_ms_median"], 0), fmt(b["bound_ms"], 0)),
                "verdict": ("matches the paper's baseline" if ok else
                            "misses: CCT/bound %+.0f%%, overlap %+.0f%%" % (
                                100 * miss_cct, 100 * miss_overlap)),
                "file": row["file"], "values": b})
        else:
            raise StatsError("row kind '%s': paired or baseline" % kind)
    return out


def markdown(rows):
    lines = ["| the paper's claim | set-up | runs | median [95% CI] | "
             "sign test p | ratio of medians (the paper's metric) | "
             "verdict | file |",
             "|---|---|--:|---|---|--:|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | `%s` |" % (
            r["claim"], r["setup"], r["runs"], r["number"], r["p"],
            r["paper_metric"], r["verdict"], r["file"]))
    return "\n".join(lines) + "\n"


def parse_where(items):
    """--where KEY=VALUE items as a dict, each VALUE read as JSON (64,
    true) or else taken as a string (transformer)."""
    where = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise StatsError("--where '%s': wants KEY=VALUE" % item)
        try:
            where[key] = json.loads(value)
        except ValueError:
            where[key] = value
    return where


def main(argv):
    ap = argparse.ArgumentParser(prog="stats.py", description=__doc__.split(
        "\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare", help="a marking against RED, paired")
    c.add_argument("file")
    c.add_argument("--marking", default="symphony",
                   choices=("symphony", "pq"))
    c.add_argument("--scenario")
    c.add_argument("--per", default="job", choices=("job", "seed"),
                   help="pair each job's runs, or each seed's slowest job")
    c.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                   help="only the runs whose KEY is VALUE (a JSON value or "
                        "a string), e.g. compute_scale=64; repeatable")
    c.add_argument("--metric", default="cct_ms",
                   choices=("cct_ms", "final_step_span_ms",
                            "max_step_overlap", "jct_ns", "sync_ns"))
    b = sub.add_parser("baseline", help="RED+DCQCN against its bound")
    b.add_argument("file")
    b.add_argument("--scenario")
    t = sub.add_parser("table", help="the verdict table of a row file")
    t.add_argument("rows")
    t.add_argument("--root", default=".",
                   help="the folder the rows' files are under (default .)")
    t.add_argument("--out", help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "compare":
            res = compare(load(args.file), args.marking, args.scenario,
                          args.metric, args.file, args.per,
                          parse_where(args.where))
            print(json.dumps(res, indent=1))
        elif args.cmd == "baseline":
            res = baseline(load(args.file), args.scenario, args.file)
            print(json.dumps(res, indent=1))
        else:
            try:
                with open(args.rows) as f:
                    spec = json.load(f)
            except (OSError, ValueError) as e:
                raise StatsError("%s: %s" % (args.rows, e))
            rows = table_rows(spec, args.root)
            sys.stdout.write(markdown(rows))
            if args.out:
                with open(args.out, "w") as f:
                    json.dump(rows, f, indent=1)
                    f.write("\n")
    except StatsError as e:
        print("stats.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
