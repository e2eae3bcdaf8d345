#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cpu_hog.py - selftest helper: take a CPU away from everything else,
BUSY_MS of every PERIOD_MS, as a busier machine of the same kind would.

Usage: cpu_hog.py BUSY_MS PERIOD_MS
Run it under "chrt -f PRIO taskset -c CPU" for a hog that preempts the
ordinary (SCHED_OTHER) tasks on that CPU for exactly BUSY_MS at a time,
the kernel's RT throttling (95% by default) permitting; it runs until
killed.
"""
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    busy_s = float(sys.argv[1]) / 1000
    period_s = float(sys.argv[2]) / 1000
    if not 0 < busy_s < period_s:
        sys.exit("cpu_hog.py: wants 0 < BUSY_MS < PERIOD_MS")
    while True:
        until = time.monotonic() + busy_s
        while time.monotonic() < until:
            pass
        time.sleep(period_s - busy_s)


if __name__ == "__main__":
    main()
