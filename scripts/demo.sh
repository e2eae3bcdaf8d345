#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the project's demonstration (run by "make demo"): short
# versions of the two comparisons of EVALUATION.md, a few minutes in all.
#  1. Symphony: ring AllReduces of DCQCN senders across a leaf-spine of
#     network namespaces inside the VM (sch_symphony is a module), with
#     ECMP, a 1.13x slower hop and light background traffic, up to 4
#     steps of a rank in flight on queue pairs of their own (the paper's
#     flow per step); the switch ports mark RED only (baseline), then
#     Symphony OR RED (k 0.002), on the same seeds.
#     The testbed's links run at a few Mbit/s, so its senders keep the
#     transport this project used before 2026-12 (ringcoll --cc legacy,
#     its constants scaled to the testbed's round trip): a NIC profile's
#     microsecond timers mean nothing against a 13 ms frame time.
#  2. Symphony on the paper's own stack, in the ns-3 simulator (the same
#     C cores): Table 1's 32 nodes, rail rings and 4 spines at 10 Gbit/s,
#     HPCC's DCQCN, a new flow per step as Astra-Sim makes them, Symphony
#     on the ToRs with state per switch (sim_symphony.sh --stack paper);
#     RED+DCQCN, Symphony and the priority queue of the paper's Fig. 5.
#  3. Ofan: permutation traffic on a k=4 fat tree of namespaces on the
#     host kernel, the tc-BPF program in ecmp, rps and ofan modes.
# Prints a small table of each with its guard's verdict: whether this
# machine kept up with the testbed's senders in every run (the runs'
# guards, tc-scripts/guard.jq); a table the guard cannot vouch for says
# so, and why.  The JSON and plots go to build/results/demo/.
#
# Usage: scripts/demo.sh [--seeds N]     (as root, after "make")
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
seeds=3
case "${1:-}" in
--seeds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "demo.sh: --seeds wants a count" >&2; exit 2; }
	 seeds=$2 ;;
"") ;;
*) echo "usage: scripts/demo.sh [--seeds N]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: must run as root" >&2; exit 1; }
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
out=$top/build/results/demo
mkdir -p "$out"

# run_logged LOG CMD...: CMD's whole output into LOG, and its progress
# lines (scripts/progress.sh) on the terminal as they come; CMD's status.
run_logged() {
	local log=$1
	shift
	"$@" 2>&1 | tee "$log" |
		{ grep --line-buffered -E ': (run [0-9]+ of [0-9]+|done in )' || true; } |
		sed -u 's/^/   /'
	return "${PIPESTATUS[0]}"
}

echo "== 1. Symphony: ring AllReduce on a leaf-spine (QEMU, Debian $(. "$here/lib.sh"; headers_abi) kernel) =="
echo "   4 ToRs x 4 hosts, 2 spines, 2.5 Mbit/s hosts, ECMP, ToR0-spine0 1.13x slower,"
echo "   10% background; one job of two 8-rank rings, 4 steps in flight per rank,"
echo "   $seeds seed(s), RED vs Symphony (k 0.002)"
echo "   (the VM boots first: about a minute before the first run)"
run_logged "$out/symphony_ring.log" \
	"$top/eval/symphony_ring.sh" --seeds "$seeds" --scenarios rings --step-qps 4 \
	--symphony "k 0.002 tau 0.25 twin 100ms warmup 4 samples 4" \
	--out "$out/symphony_ring.json" ||
	{ tail -20 "$out/symphony_ring.log" >&2; exit 1; }

echo "== 2. Symphony on the paper's stack (ns-3 simulator, the same C cores) =="
echo "   32 nodes (4 ToRs x 8 hosts, 4 spines, 10 Gbit/s), 8 rail rings of 4 ranks, 8 MB steps,"
echo "   HPCC's DCQCN, a flow per step, Symphony on the ToRs; $((seeds * 2)) seed(s), RED vs Symphony vs priority queue"
run_logged "$out/sim_symphony.log" \
	"$top/eval/sim_symphony.sh" --stack paper --spines 4 --scenarios rails --pq \
	--seeds $((seeds * 2)) --out "$out/sim_symphony.json" ||
	{ tail -20 "$out/sim_symphony.log" >&2; exit 1; }

echo "== 3. Ofan: permutation on a k=4 fat tree (host kernel $(uname -r)) =="
echo "   16 hosts at 20 Mbit/s, 90% load, 1024 packets per host, $seeds seed(s)"
run_logged "$out/ofan_permutation.log" \
	"$top/eval/ofan_permutation.sh" --sizes 1024 --modes "ecmp rps ofan" \
	--seeds "$seeds" --prefix demo --out "$out/ofan_permutation.json" ||
	{ tail -20 "$out/ofan_permutation.log" >&2; exit 1; }

echo
# pad(N): the value as a string, padded with spaces to N characters
pad='def pad($n): tostring | . + (" " * ([$n - length, 1] | max));'
# pct: a fraction as a signed percentage with one decimal ("+11.6%", "-0.5%")
pad+=' def pct: (if . < 0 then "-" else "+" end) + (fabs * 1000 | round / 10 | tostring) + "%";'
# verdict: the guard's line under a table
pad+=' def verdict: .guard | "  guard: " + (if .verdict == "trustworthy"
    then "trustworthy: the machine kept up in all \(.runs) runs (worst sender lag \(.worst_sender_lag_frames_max) frame times)"
    else "NOT TRUSTWORTHY: \(.untrustworthy_runs) of \(.runs) runs had senders that fell behind (worst \(.worst_sender_lag_frames_max) frame times; busiest CPU window \(.cpu_busy_max_window_pct_max)%): the machine, not the network, may have set these numbers; see eval/calibrate.sh"
    end);'
jq -r "$pad"'
  def s: . / 1000 * 100 | round / 100 | tostring + " s";
  ("Symphony" | pad(24)) + ("median CCT" | pad(13)) + ("CCT range" | pad(18)) + "max step overlap",
  (.summary[] | ("  " + (if .marking == "red" then "RED+DCQCN (baseline)" else "Symphony+DCQCN" end) | pad(24))
    + (.cct_ms.median | s | pad(13)) + ("\(.cct_ms.min | s)..\(.cct_ms.max | s)" | pad(18))
    + (.max_step_overlap.max | tostring)),
  (.comparison[] | "  Symphony: median CCT \(-.median_cct_reduction | pct) (faster in \(.paired_symphony_faster) of \(.pairs) seeds), final step span \(-.final_step_span_reduction | pct)"),
  verdict' \
	"$out/symphony_ring.json"
echo
jq -r "$pad"'
  def s: . * 10 | round / 10 | tostring + " ms";
  def name: {red: "RED+DCQCN (baseline)", symphony: "Symphony+DCQCN", pq: "priority queue"}[.];
  ("Symphony, paper'"'"'s stack" | pad(24)) + ("median CCT" | pad(13)) + ("CCT range" | pad(22)) + "max step overlap",
  (.summary | sort_by({red: 0, symphony: 1, pq: 2}[.marking]) | .[]
    | ("  " + (.marking | name) | pad(24))
    + (.cct_ms.median | s | pad(13)) + ("\(.cct_ms.min | s)..\(.cct_ms.max | s)" | pad(22))
    + (.max_step_overlap.max | tostring)),
  (.comparison[] | "  Symphony: median CCT \(-.median_cct_reduction | pct) (paired by seed \(.paired_cct_ratio.median * 1000 | round / 1000), faster in \(.paired_symphony_faster) of \(.pairs) seeds)"),
  (.pq_comparison[]? | "  priority queue: median CCT \(-.median_cct_reduction | pct) (faster in \(.paired_symphony_faster) of \(.pairs) seeds)"),
  "  simulated: the testbed guard does not apply"' \
	"$out/sim_symphony.json"
echo
jq -r "$pad"'
  ("Ofan, 1024 packets" | pad(24)) + ("CCT over the lower bound" | pad(27)) + "max queue (packets)",
  (.summary[] | ("  " + .mode | pad(24)) + (.cct_increase_median | pct | pad(27))
    + (.max_queue_median | round | tostring)),
  verdict' \
	"$out/ofan_permutation.json"
echo
echo "JSON and plots: $out/ (the full runs: make eval; EVALUATION.md)"
