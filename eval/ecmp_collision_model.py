#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ecmp_collision_model.py - what ECMP hash collisions alone cost the
ring AllReduce of eval/symphony_ring.sh's "rings" scenario: a fluid
model with no congestion control, no queues and perfect lockstep.

Every host of ToR t sends one flow per step to a host of ToR t+1 (the
rings visit the ToRs in turn), over host links of one rate unit and
ToR-spine links of --uplink-ratio units.  With ECMP each flow draws its
spine anew in every step (the step is in the UDP source port); with
static routing host j goes through spine j mod S.  Rates are max-min
fair and recomputed whenever a flow finishes (work conserving); a step
ends when its last flow does.  The result is the mean step time over
the uncontended one, so a CCT of (factor x lower bound): what the
testbed's baseline would take if hash collisions were its only loss.

Usage: eval/ecmp_collision_model.py [--tors 4] [--spines 2]
           [--hosts-per-tor 4] [--uplink-ratio 2] [--steps 14]
           [--draws 300] [--seed 1] [--routing ecmp|static] [--out FILE]
Prints the JSON (median, p25, p75 of the factor over the draws, each
draw a whole AllReduce), and writes it to --out if given.
"""
import argparse
import json
import random
import sys


def max_min_rates(paths, capacity):
    """Max-min fair rate of each flow, by progressive filling."""
    rates = {}
    active = set(paths)
    left = dict(capacity)
    while active:
        users = {}
        for flow in active:
            for link in paths[flow]:
                users[link] = users.get(link, 0) + 1
        link = min(users, key=lambda l: left[l] / users[l])
        share = left[link] / users[link]
        for flow in [f for f in active if link in paths[f]]:
            rates[flow] = share
            active.discard(flow)
            for other in paths[flow]:
                left[other] -= share
    return rates


def step_time(args, rng):
    """Time of one step, in uncontended step times."""
    paths = {}
    capacity = {}
    for tor in range(args.tors):
        dst_tor = (tor + 1) % args.tors
        for host in range(args.hosts_per_tor):
            if args.routing == "ecmp":
                spine = rng.randrange(args.spines)
            else:
                spine = host % args.spines
            links = [("host", tor, host), ("up", tor, spine),
                     ("down", spine, dst_tor), ("rx", dst_tor, host)]
            paths[(tor, host)] = links
            capacity[links[0]] = capacity[links[3]] = 1.0
            capacity[links[1]] = capacity[links[2]] = args.uplink_ratio
    remaining = {flow: 1.0 for flow in paths}
    elapsed = 0.0
    while remaining:
        rates = max_min_rates({f: paths[f] for f in remaining}, capacity)
        dt = min(remaining[f] / rates[f] for f in remaining)
        elapsed += dt
        for flow in list(remaining):
            remaining[flow] -= rates[flow] * dt
            if remaining[flow] < 1e-9:
                del remaining[flow]
    return elapsed


def main():
    parser = argparse.ArgumentParser(
        description="ECMP hash collisions' cost to a leaf-spine ring "
                    "AllReduce, in a work-conserving fluid model")
    parser.add_argument("--tors", type=int, default=4)
    parser.add_argument("--spines", type=int, default=2)
    parser.add_argument("--hosts-per-tor", type=int, default=4)
    parser.add_argument("--uplink-ratio", type=float, default=2.0,
                        help="ToR-spine link rate / host link rate")
    parser.add_argument("--steps", type=int, default=14,
                        help="steps per AllReduce, 2(N-1)")
    parser.add_argument("--draws", type=int, default=300,
                        help="AllReduces drawn")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--routing", choices=("ecmp", "static"),
                        default="ecmp")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    for name in ("tors", "spines", "hosts_per_tor", "steps", "draws"):
        if getattr(args, name) < 1:
            parser.error("--%s %d: wants 1 or more"
                         % (name.replace("_", "-"), getattr(args, name)))
    if args.tors < 2:
        parser.error("--tors %d: a ring across ToRs wants 2 or more" % args.tors)
    if args.uplink_ratio <= 0:
        parser.error("--uplink-ratio %g: wants a positive ratio" % args.uplink_ratio)

    rng = random.Random(args.seed)
    factors = sorted(sum(step_time(args, rng) for _ in range(args.steps)) / args.steps
                     for _ in range(args.draws))

    def quantile(p):
        return round(factors[round((len(factors) - 1) * p)], 4)

    result = {
        "model": "ecmp_collision_model",
        "method": "fluid, max-min fair, work conserving, lockstep steps; "
                  "no congestion control, no queues",
        "topology": {"tors": args.tors, "spines": args.spines,
                     "hosts_per_tor": args.hosts_per_tor,
                     "uplink_ratio": args.uplink_ratio},
        "routing": args.routing, "steps": args.steps, "draws": args.draws,
        "seed": args.seed,
        "cct_over_bound": {"median": quantile(0.5), "p25": quantile(0.25),
                           "p75": quantile(0.75)},
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
