#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""baseline_summary.py - the summary of eval/sim_symphony_baseline.sh's
runs: each reading of Table 1 (and background) with RED+DCQCN's CCT over
its bound and its maximum step overlap (eval/stats.py's median, 95%
bootstrap interval), beside the paper's baseline, and a plot of the median
step overlap over time per reading beside Fig. 2a's shape.

  eval/baseline_summary.py --dir DIR --readings "R ..." --backgrounds "P ..."

Writes DIR/summary.json and DIR/summary-overlap.png (gnuplot), prints a
markdown table.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

# The paper's baseline (Symphony, section 2.2 and 4.2): Fig. 2a's overlap
# climbs to about 30, Fig. 4b's maximum overlap has P50 31 (24..35 over 50
# runs), the CCT is 60% over the theoretical (1.6x), Fig. 5's CCTs lie in
# 600..1000 ms.
PAPER = {"cct_over_bound": 1.6, "max_step_overlap_p50": 31,
         "max_step_overlap_range": [24, 35], "fig5_cct_ms": [600, 1000]}
GRID_MS = 10.0


def overlap_at(timeline, grid):
    """The step overlap of a timeline of [t_ms, n] events at each time of
    @grid (the count after the last event at or before it)."""
    if not timeline:
        return np.zeros(len(grid))
    t = np.array([e[0] for e in timeline], dtype=float)
    n = np.array([e[1] for e in timeline], dtype=float)
    idx = np.searchsorted(t, grid, side="right") - 1
    return np.where(idx >= 0, n[np.clip(idx, 0, None)], 0.0)


def main(argv):
    ap = argparse.ArgumentParser(prog="baseline_summary.py")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--readings", required=True)
    ap.add_argument("--backgrounds", required=True)
    ap.add_argument("--spines", default="4")
    args = ap.parse_args(argv)
    entries, curves = [], []
    for spines, bg, reading in [(n, b, r) for n in args.spines.split()
                                for b in args.backgrounds.split()
                                for r in args.readings.split()]:
            # RED's runs of a reading are the same in each of its files
            # (the simulator is deterministic; only Symphony's state or
            # the priority queue differ): the first there is
            stem = os.path.join(args.dir, "%s-s%s-bg%s" % (reading, spines,
                                                           bg))
            path = next((stem + suffix + ".json" for suffix in ("", "-port", "-pq")
                         if os.path.exists(stem + suffix + ".json")), None)
            if path is None:
                print("baseline_summary.py: %s.json: not run" % stem,
                      file=sys.stderr)
                continue
            try:
                doc = stats.load(path)
                b = stats.baseline(doc, reading, path)
            except stats.StatsError as e:
                print("baseline_summary.py: %s" % e, file=sys.stderr)
                return 2
            b["background_pct"] = int(bg)
            b["spines"] = int(spines)
            b["file"] = os.path.basename(path)
            b["miss_cct_over_bound"], b["miss_max_step_overlap"] = (
                stats.baseline_miss(b, PAPER["cct_over_bound"],
                                    PAPER["max_step_overlap_p50"]))
            entries.append(b)
            timelines = [r["step_overlap"] for r in doc["runs"]
                         if r.get("marking") == "red" and
                         r.get("step_overlap")]
            if timelines:
                end = b["cct_ms_median"]
                grid = np.arange(0.0, end + GRID_MS, GRID_MS)
                med = np.median(np.vstack([overlap_at(tl, grid)
                                           for tl in timelines]), axis=0)
                curves.append((reading, int(spines), int(bg), grid, med))
    if not entries:
        print("baseline_summary.py: no runs in %s" % args.dir,
              file=sys.stderr)
        return 2
    with open(os.path.join(args.dir, "summary.json"), "w") as f:
        json.dump({"paper": PAPER, "readings": entries}, f, indent=1)
        f.write("\n")
    print("| reading | spines | background | runs | CCT ms (range) | bound ms | "
          "CCT/bound [95% CI] | max overlap [95% CI] (range) | "
          "miss: CCT/bound, overlap |")
    print("|---|--:|--:|--:|---|--:|---|---|---|")
    for b in entries:
        print("| %s | %d | %d%% | %d | %.0f (%.0f..%.0f) | %.0f | %.2f [%.2f, %.2f]"
              " | %.1f [%.1f, %.1f] (%d..%d) | %+.0f%%, %+.0f%% |" % (
                  b["scenario"], b["spines"], b["background_pct"], b["runs"],
                  b["cct_ms_median"], b["cct_ms_range"][0],
                  b["cct_ms_range"][1], b["bound_ms"],
                  b["cct_over_bound_median"], *b["cct_over_bound_ci95"],
                  b["max_step_overlap_median"], *b["max_step_overlap_ci95"],
                  *b["max_step_overlap_range"],
                  100 * b["miss_cct_over_bound"],
                  100 * b["miss_max_step_overlap"]))
    if curves:
        plot(args.dir, curves)
    return 0


# a reading's colour
COLOURS = {"rails": "#9400d3", "rings": "#009e73", "torrings": "#56b4e9",
           "grid": "#e69f00", "ring1": "#d55e00"}


def dash(spines, bg):
    """gnuplot's dash type: Table 1's 4 spines solid, with a background
    dashed; another spine count dotted."""
    if spines != 4:
        return 3
    return 1 if bg == 0 else 2


def plot(folder, curves):
    """DIR/summary-overlap.png: each reading's median overlap over time, and the
    paper's Fig. 2a baseline as read off the figure (0 to 30 over
    2,500 ms)."""
    dat = os.path.join(folder, "overlap.dat")
    with open(dat, "w") as f:
        for _, _, _, grid, med in curves:
            for t, v in zip(grid, med):
                f.write("%.1f %.1f\n" % (t, v))
            f.write("\n\n")
    plots = ["'%s' index %d with steps lw 2 lc rgb '%s' dt %d title '%s, %d spines, bg %d%%'" % (
        dat, i, COLOURS.get(reading, "gray"), dash(spines, bg), reading, spines, bg)
        for i, (reading, spines, bg, _, _) in enumerate(curves)]
    plots.append("'-' with lines lw 1 lc rgb 'black' "
                 "title 'Fig. 2a baseline (read off the figure)'")
    script = "\n".join([
        "set terminal pngcairo size 1100,500",
        "set output '%s'" % os.path.join(folder, "summary-overlap.png"),
        "set title 'RED+DCQCN alone, median over seeds: step overlap "
        "per reading of Table 1'",
        "set xlabel 'time (ms)'", "set ylabel 'degree of step overlap'",
        "set key outside right top", "set grid",
        "plot " + ", ".join(plots),
        "0 1", "2500 30", "e", ""])
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("baseline_summary.py: no plot: %s" % e, file=sys.stderr)
    finally:
        os.unlink(dat)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
