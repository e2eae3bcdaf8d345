#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# calibrate.sh - the highest link rate at which this machine runs the
# Ofan testbed faithfully: a k=4 fat tree of network namespaces (16
# hosts, HTB links, Ofan on the switches) is built at each rate of a
# ladder, from the fastest down, and a permutation at the evaluation's
# load is run there; the first rate whose runs all pass the guard
# (tc-scripts/permrun.sh: senders on schedule within a few frame times,
# kernel-stamped delays, every ACK sent) is the one this machine sustains.
# A busier or slower machine of the same kind gets a lower rate, instead
# of results that measure its CPUs rather than the network.  With
# --testbed leafspine the same for Symphony's testbed on this kernel: the
# 16-host leaf-spine with Symphony as tc-BPF, section 1's ring AllReduce
# ("rings", both markings) with the size scaled to the rate (1 MiB per
# rank at 2.5 Mbit/s), through eval/symphony_ring.sh --engine host.
#
# Usage: eval/calibrate.sh [options]                   (as root, after "make")
#   --testbed T           fattree (default) or leafspine
#   --ladder "RATE ..."   rates to try, fastest first (default
#                         "160mbit 80mbit 40mbit 20mbit 10mbit 5mbit 2mbit 1mbit";
#                         leafspine: "50mbit 25mbit 10mbit 5mbit 2500kbit")
#   --packets M           fattree: packets per host and run (default 1024)
#   --load PCT            fattree: offered load (default 90)
#   --seeds N             runs per rate, all of which must pass (default 2)
#   --guard-lag-frames N  the guard's lag limit (default 4; leafspine: 4)
#   --prefix NAME         testbed prefix (default ofcal)
#   --out FILE            JSON (default build/results/calibration.json)
# Prints the sustained rate; exit 0 when one was found, 1 when none of
# the ladder's rates passed, 2 on bad usage.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fattree=$top/tc-scripts/fattree.sh
ofan=$top/tc-scripts/ofan-fattree.sh
permrun=$top/tc-scripts/permrun.sh
ladder=
testbed=fattree
packets=1024
load=90
seeds=2
lag_frames=4
prefix=ofcal
out=$top/build/results/calibration.json

prog=calibrate.sh
# rate_bps (its die is replaced by this script's below)
# shellcheck source=tc-scripts/lib.sh
. "$top/tc-scripts/lib.sh"
die() { echo "calibrate.sh: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^# the ladder/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--testbed) testbed=$2 ;;
	--ladder) ladder=$2 ;;
	--packets) packets=$2 ;;
	--load) load=$2 ;;
	--seeds) seeds=$2 ;;
	--guard-lag-frames) lag_frames=$2 ;;
	--prefix) prefix=$2 ;;
	--out) out=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || { echo "calibrate.sh: --seeds wants a count" >&2; exit 2; }
[[ $packets =~ ^[1-9][0-9]*$ ]] || { echo "calibrate.sh: --packets wants a count" >&2; exit 2; }
[[ $testbed =~ ^(fattree|leafspine)$ ]] || { echo "calibrate.sh: --testbed '$testbed': fattree or leafspine" >&2; exit 2; }
if [ "$testbed" = leafspine ]; then
	[ "$lag_frames" = 4 ] || { echo "calibrate.sh: --guard-lag-frames: the leaf-spine's runs use ringrun.sh's 4" >&2; exit 2; }
	[ -n "$ladder" ] || ladder="50mbit 25mbit 10mbit 5mbit 2500kbit"
	[ "$prefix" = ofcal ] || { echo "calibrate.sh: --prefix: the leaf-spine's runs use symphony_ring.sh's" >&2; exit 2; }
else
	[ -n "$ladder" ] || ladder="160mbit 80mbit 40mbit 20mbit 10mbit 5mbit 2mbit 1mbit"
fi
for rate in $ladder; do
	[[ $rate =~ ^[1-9][0-9]*(kbit|mbit|gbit)$ ]] ||
		{ echo "calibrate.sh: --ladder: '$rate' is not a rate in kbit, mbit or gbit" >&2; exit 2; }
done
[ -n "$ladder" ] || { echo "calibrate.sh: --ladder is empty" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "must run as root"
[ -x "$top/build/permsend" ] || die "run 'make' first"

work=$(mktemp -d /tmp/calibrate.XXXXXX)
cleanup() {
	"$ofan" unload --prefix "$prefix" >/dev/null 2>&1 || true
	"$fattree" down --prefix "$prefix" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

: >"$work/tries.jsonl"

# try_leafspine RATE: section 1's rings at RATE on this kernel, $seeds
# seeds of each marking; passed=1 when every run completed and the guard
# trusted it
try_leafspine() {
	local rate=$1 size_k
	size_k=$((1024 * $(rate_bps "$rate") / 2500000))
	passed=0
	"$top/eval/symphony_ring.sh" --engine host --seeds "$seeds" --scenarios rings \
		--rate "$rate" --size "${size_k}k" --out "$work/ring.json" \
		>"$work/ring.log" 2>&1 || true
	if [ ! -s "$work/ring.json" ]; then
		jq -n -c --arg rate "$rate" --arg log "$(tail -3 "$work/ring.log")" \
			'{rate: $rate, completed: false, verdict: "failed", log: $log}' \
			>>"$work/tries.jsonl"
		return
	fi
	jq -c --arg rate "$rate" --arg size "${size_k}k" '.runs[]
	  | {rate: $rate, size_per_rank: $size, seed, marking, completed: .complete,
	     verdict: (if .complete then .guard.verdict else "failed" end),
	     cct_ms, guard: (.guard | del(.link_classes))}' \
		"$work/ring.json" >>"$work/tries.jsonl"
	jq -e '[.runs[] | .complete and .guard.verdict == "trustworthy"] | all' \
		"$work/ring.json" >/dev/null && passed=1
	rm -f "$work/ring.json"
}

# try_fattree RATE: the permutation at RATE on a new fat tree, $seeds
# seeds, up to the first that fails; passed=1 when every run completed
# and the guard trusted it
try_fattree() {
	local rate=$1 hosts seed rc
	# a new tree per rate: Ofan's pins go with the old one's namespaces
	"$ofan" unload --prefix "$prefix" >/dev/null 2>&1 || true
	"$fattree" up --prefix "$prefix" --rate "$rate" --force >/dev/null
	"$ofan" load --prefix "$prefix" >/dev/null
	hosts=$("$fattree" info --prefix "$prefix" --json |
		jq -r '[.hosts[] | "\(.netns):\(.addr)"] | join(",")')
	passed=1
	for ((seed = 1; seed <= seeds; seed++)); do
		rc=0
		"$permrun" --out "$work/run" --hosts "$hosts" \
			--guard-lag-frames "$lag_frames" -- --packets "$packets" \
			--load "$load" --seed "$seed" --rate "$rate" --timeout 5 \
			>"$work/run.log" 2>&1 || rc=$?
		if [ ! -s "$work/run/result.json" ]; then
			passed=0
			jq -n -c --arg rate "$rate" --argjson seed "$seed" \
				--arg log "$(tail -3 "$work/run.log")" \
				'{rate: $rate, seed: $seed, completed: false, verdict: "failed", log: $log}' \
				>>"$work/tries.jsonl"
			break
		fi
		jq -c --arg rate "$rate" --argjson seed "$seed" --argjson rc "$rc" '
		  {rate: $rate, seed: $seed, completed: ($rc == 0),
		   verdict: (if $rc == 0 then .guard.verdict else "failed" end),
		   cct_over_bound, delivered: .received, expected,
		   guard: (.guard | del(.link_classes))}' \
			"$work/run/result.json" >>"$work/tries.jsonl"
		if [ "$rc" -ne 0 ] ||
		   [ "$(jq -r .guard.verdict "$work/run/result.json")" != trustworthy ]; then
			passed=0
			break
		fi
	done
}

sustained=
for rate in $ladder; do
	"try_$testbed" "$rate"
	jq -r --arg rate "$rate" 'select(.rate == $rate)
	  | "calibrate.sh: \($rate) seed \(.seed // "-")\(if .marking then " " + .marking else "" end): \(.verdict)\(if .guard then ", worst sender lag \(.guard.worst_sender_lag_frames) frames, CPU busiest \(.guard.cpu_busy_max_window_pct)%, \(.guard.timer_irqs_per_s) timer interrupts/s" else "" end)"' \
		"$work/tries.jsonl" >&2
	if [ "$passed" -eq 1 ]; then
		sustained=$rate
		break
	fi
done

mkdir -p "$(dirname "$out")"
jq -s --arg sustained "$sustained" --arg ladder "$ladder" \
	--argjson packets "$packets" --argjson load "$load" \
	--argjson seeds "$seeds" --argjson lag_frames "$lag_frames" \
	--arg kernel "$(uname -r)" --arg date "$(date -u +%FT%TZ)" \
	--argjson cpus "$(nproc)" --arg testbed "$testbed" '
  {benchmark: "calibration", date: $date, kernel: $kernel, cpus: $cpus,
   testbed: $testbed,
   method: ((if $testbed == "leafspine" then "the leaf-spine of section 1 on this kernel (Symphony as tc-BPF), ring AllReduce of 2 rings of 8 ranks with the size scaled to the rate, both markings" else "k=4 fat tree, Ofan, permutation at the given load" end) + "; the fastest rate of the ladder whose runs all pass the guard"),
   ladder: ($ladder | split(" ") | map(select(length > 0))),
   packets: $packets, load_pct: $load, seeds: $seeds,
   guard_lag_limit_frames: $lag_frames,
   sustained_rate: (if $sustained == "" then null else $sustained end),
   tries: .}' "$work/tries.jsonl" >"$out"
if [ -z "$sustained" ]; then
	echo "calibrate.sh: no rate of \"$ladder\" passed the guard on this machine ($out)" >&2
	exit 1
fi
echo "$sustained"
echo "calibrate.sh: this machine sustains $sustained ($out)" >&2
