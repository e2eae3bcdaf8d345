#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_eval_symphony_host.sh - a small run of eval/symphony_ring.sh on the
# host kernel (--engine host: Symphony as tc-BPF with its phantom-queue
# RED on every switch port, no module), so that the native evaluation
# cannot rot: one seed of "rings" on 8 hosts completes under both
# markings; each marking starts from fresh per-switch registries and
# zero counters; the program classified the ring as collective and
# Symphony-marked only under "marking symphony"; the ports of each of the
# 6 switches share one registry; the guard judged the runs; and the
# testbed and its pins are gone after.  --state port is refused: the
# program keeps a job's state per switch.  eval/calibrate.sh --testbed
# leafspine tries a rate on the same testbed, with the size scaled to it.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter
require_tools symofan ringcoll rocegen

tmp=$(mktemp -d /tmp/test_eval_symphony_host.XXXXXX)
on_exit rm -rf "$tmp"
eval_sh=$TOP_DIR/eval/symphony_ring.sh

ktap_plan 9

# 14 steps of 128 KiB at 20 Mbit/s: about 0.8 s a run
check "the native evaluation runs (8 hosts, rings, one seed, 20 Mbit/s)" \
	"$eval_sh" --engine host --seeds 1 --scenarios rings --hosts-per-tor 2 \
	--rate 20mbit --size 512k --background 0 --out "$tmp/sym.json"
res=$(cat "$tmp/sym.json" 2>/dev/null || echo '{}')
ktap_print "$(jq -c '.runs[]? | {marking, cct_ms, switch_ports}' <<<"$res" | tr '\n' ' ')"
check_jq "its JSON has both markings, complete, with step overlaps, engine host, state switch" \
	'([.summary[] | .marking] | sort) == ["red", "symphony"] and
	 ([.runs[] | .complete and .cct_ms > 0 and .max_step_overlap >= 1] | all) and
	 .engine == "host" and .qdisc.state == "switch"' "$res"
check_jq "every switch port's program saw the ring's packets as collective, in both runs" \
	'[.runs[] | .switch_ports.collective_packets > 0] == [true, true]' "$res"
check_jq "marking red never Symphony-marks" \
	'[.runs[] | select(.marking == "red") | .switch_ports.symphony_marks] == [0]' "$res"
check_jq "the ports of each of the 6 switches share one registry" \
	'[.runs[].switch_ports.jobs_maps] == [6, 6]' "$res"
check_jq "the guard judged each run (trustworthy or not: not judged here)" \
	'[.runs[].guard.verdict | . == "trustworthy" or . == "untrustworthy"] == [true, true]' "$res"
check "the testbed and its pins are gone after" sh -c \
	"! ip netns list | grep -q '^syev-' && ! ls -d /sys/fs/bpf/symofan-syev-* 2>/dev/null"
r=$("$eval_sh" --engine host --state port --seeds 1 2>&1) && rc=0 || rc=$?
check_eq "--state port is refused: the program keeps a job's state per switch" \
	"1 yes" "$rc $(grep -q 'per switch' <<<"$r" && echo yes)"

# one rate, one seed: whether the guard trusts it is the machine's; the
# tries are the script's
"$TOP_DIR/eval/calibrate.sh" --testbed leafspine --ladder 20mbit --seeds 1 \
	--out "$tmp/cal.json" >/dev/null 2>"$tmp/cal.log" && rc=0 || rc=$?
check_jq "calibrate.sh --testbed leafspine tries both markings at 20 Mbit/s, 8 MiB per rank (exit $rc)" \
	'.testbed == "leafspine" and ([.tries[] | "\(.rate) \(.size_per_rank) \(.marking) \(.completed)"] | sort)
	 == ["20mbit 8192k red true", "20mbit 8192k symphony true"] and
	 (.sustained_rate == null or .sustained_rate == "20mbit")' \
	"$(cat "$tmp/cal.json" 2>/dev/null || echo '{}')"

ktap_finished
