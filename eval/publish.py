#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""publish.py - copy evaluation and benchmark results into results/, the
folder EVALUATION.md cites: each JSON as a compact summary (per-run
timelines left out, one run per line) with its plots.

The evaluation and the benchmarks write their full output under
build/results/ (every run with its step-overlap timeline); this is the
deliberate step that refreshes the tracked copies.

  eval/publish.py build/results/symphony_ring.json [...] [--to results/]
  eval/publish.py --all          every JSON under build/results/

A file whose copy is already in one of results/'s section folders
(results/1-symphony-testbed/, ...) is refreshed there; a new one goes to
the top of --to (move it to its section's folder and index it there).
"""
import argparse
import glob
import json
import os
import shutil
import sys

# Per-run fields too long for a summary: timelines a plot already shows.
TIMELINES = ("step_overlap",)


def summarise(doc):
    """@doc without per-run timelines."""
    runs = doc.get("runs") if isinstance(doc, dict) else None
    for run in runs if isinstance(runs, list) else []:
        if isinstance(run, dict):
            for key in TIMELINES:
                run.pop(key, None)
    return doc


def compact(doc):
    """JSON text: top-level keys one per line, lists of runs one per line."""
    if not isinstance(doc, dict):
        return json.dumps(doc, separators=(",", ":")) + "\n"
    lines = []
    for key, value in doc.items():
        name = json.dumps(key)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n  ".join(json.dumps(v, separators=(",", ":"))
                                 for v in value)
            lines.append("%s:[\n  %s]" % (name, items))
        else:
            lines.append("%s:%s" % (name, json.dumps(value,
                                                     separators=(",", ":"))))
    return "{" + ",\n".join(lines) + "}\n"


def destination(dest_root, rel):
    """Where @rel goes under @dest_root: where a copy of it already is, in
    one of the section folders (results/4-simulator/...), or at the top."""
    dest = os.path.join(dest_root, rel)
    if os.path.exists(dest):
        return dest
    found = sorted(glob.glob(os.path.join(glob.escape(dest_root), "*", rel)))
    return found[0] if len(found) == 1 else dest


def publish(src, src_root, dest_root):
    rel = os.path.relpath(src, src_root) if src_root else os.path.basename(src)
    dest = destination(dest_root, rel)
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    with open(src) as f:
        doc = json.load(f)
    with open(dest + ".tmp", "w") as f:
        f.write(compact(summarise(doc)))
    os.replace(dest + ".tmp", dest)
    plots = sorted(glob.glob(src[:-len(".json")] + "-*.png"))
    for plot in plots:
        shutil.copyfile(plot, os.path.join(os.path.dirname(dest),
                                           os.path.basename(plot)))
    print("%s -> %s (%d bytes)%s" % (src, dest, os.path.getsize(dest),
          "".join(", " + os.path.basename(p) for p in plots)))


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="*", help="result files (under build/results/)")
    p.add_argument("--all", action="store_true",
                   help="every JSON under build/results/")
    p.add_argument("--to", default=os.path.join(top, "results"),
                   help="destination folder (default: results/)")
    args = p.parse_args()
    src_root = os.path.join(top, "build", "results")
    files = args.json
    if args.all:
        files += sorted(glob.glob(os.path.join(src_root, "**", "*.json"),
                                  recursive=True))
    if not files:
        p.error("no result files: give some, or --all")
    for src in files:
        if not src.endswith(".json") or not os.path.isfile(src):
            p.error("%s: not a JSON result file" % src)
        inside = os.path.abspath(src).startswith(src_root + os.sep)
        try:
            publish(os.path.abspath(src), src_root if inside else None,
                    args.to)
        except (OSError, ValueError) as e:
            print("publish.py: %s: %s" % (src, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
