#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdc_run.py - run tc-testing (tdc) JSON test cases and print KTAP.

The cases follow the kernel's tools/testing/selftests/tc-testing format,
so that they also run under upstream tdc.py (nsPlugin): each has an id, a
name, setup and teardown command lists, cmdUnderTest with expExitCode, and
verifyCmd whose output must hold matchCount matches of the regular
expression matchPattern.  Each case runs in a network namespace of its own
with a dummy device: $TC, $IP, $DEV1 and $DUMMY expand as under tdc's
nsPlugin ($TC and $IP run inside the namespace).  A setup or teardown entry
is a command, or a list of a command and the exit codes it may return.

Usage: tdc_run.py [-e ID[,ID...]] FILE.json...
"""
import argparse
import json
import os
import re
import subprocess
import sys

DUMMY = "dummy1"
DEV1 = "v0p1"


def expand(cmd, ns):
    subst = {
        "$TC": "nsenter --net=/run/netns/%s tc" % ns,
        "$IP": "ip -n %s" % ns,
        "$DUMMY": DUMMY,
        "$DEV1": DEV1,
        "$NS": ns,
    }
    # longest names first, so that $DEV1 is not read as $DEV + 1
    for key in sorted(subst, key=len, reverse=True):
        cmd = cmd.replace(key, subst[key])
    return cmd


def run(cmd, ns):
    proc = subprocess.run(expand(cmd, ns), shell=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    return proc.returncode, proc.stdout


def run_stage(stage, cmds, ns):
    """Runs setup or teardown; returns an error text or None."""
    for entry in cmds:
        if isinstance(entry, list):
            cmd, allowed = entry[0], [int(c) for c in entry[1:]]
        else:
            cmd, allowed = entry, [0]
        rc, out = run(cmd, ns)
        if rc not in allowed:
            return "%s command '%s' exited %d: %s" % (stage, cmd, rc, out.strip())
    return None


def diag(text):
    for line in text.rstrip().splitlines():
        print("# " + line)


def run_case(case, ns):
    """Returns (ok, reason)."""
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        rc, out = run("$IP link add $DUMMY type dummy && $IP link set $DUMMY up", ns)
        if rc:
            return False, "no dummy device: " + out
        err = run_stage("setup", case.get("setup", []), ns)
        if err:
            return False, err
        rc, out = run(case["cmdUnderTest"], ns)
        want = int(case["expExitCode"])
        if rc != want:
            return False, "'%s' exited %d, expected %d: %s" % (
                case["cmdUnderTest"], rc, want, out.strip())
        if case.get("verifyCmd"):
            rc, out = run(case["verifyCmd"], ns)
            found = len(re.findall(case["matchPattern"], out))
            if found != int(case["matchCount"]):
                return False, "'%s' matched /%s/ %d times, expected %s:\n%s" % (
                    case["verifyCmd"], case["matchPattern"], found,
                    case["matchCount"], out.strip())
        err = run_stage("teardown", case.get("teardown", []), ns)
        if err:
            return False, err
        return True, None
    finally:
        subprocess.run(["ip", "netns", "del", ns])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-e", "--execute", help="only these test ids, comma-separated")
    p.add_argument("files", nargs="+")
    args = p.parse_args()

    cases = []
    for path in args.files:
        with open(path) as f:
            cases += json.load(f)
    ids = [c["id"] for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        print("tdc_run: duplicate test ids: %s" % ", ".join(dup), file=sys.stderr)
        return 2
    if args.execute:
        wanted = set(args.execute.split(","))
        cases = [c for c in cases if c["id"] in wanted]

    print("TAP version 13")
    print("1..%d" % len(cases))
    failed = 0
    for n, case in enumerate(cases, 1):
        ns = "tdc-%s-%d" % (case["id"], os.getpid())
        ok, reason = run_case(case, ns)
        label = "%s: %s" % (case["id"], case["name"])
        if ok:
            print("ok %d %s" % (n, label))
        else:
            failed += 1
            print("not ok %d %s" % (n, label))
            diag(reason)
    print("# totals: pass:%d fail:%d skip:0" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
