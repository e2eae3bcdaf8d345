#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# symphony_controls.sh - where the RED+DCQCN baseline's collective
# completion time goes on this testbed, and what Symphony changes in each
# part.  It runs eval/symphony_ring.sh's "rings" scenario (one job of two
# 8-rank rings) under controls that take the perturbations away one at a
# time, as the Symphony paper's Fig. 2 does (static balanced routing with
# a 1.13x slower hop, or with light background traffic), and under
# controls of this testbed's own (ECMP alone; ECMP without RED marks).
# Each control is one symphony_ring.sh run, every seed with the baseline
# and with Symphony; its JSON and plots go to build/results/symphony_controls/.
# Then it writes build/results/symphony_controls.json (per control: both
# markings' CCT, the paired ratio, the step overlap, and the baseline's
# median CCT over the ring's lower bound) and a bar plot of the CCTs.
#
# Usage: eval/symphony_controls.sh [options]     (as root, after "make")
#   --seeds N            seeds per control (default 10)
#   --controls "C ..."   which controls to run (default: all, in the order
#                        below)
#   --summary            no runs: summarise the controls' JSON already in
#                        the folder
#   --dir DIR            the controls' JSON and plots (default
#                        build/results/symphony_controls)
#   --out FILE           the summary (default build/results/symphony_controls.json;
#                        its plot next to it, .png)
#   --engine vm|sim      where the runs go: the testbed in the VM (default)
#                        or the ns-3 simulator (symphony_ring.sh --engine)
# Controls (every one on the same leaf-spine, rates and DCQCN):
#   ecmp                 the headline setting: ECMP, the 1.13x hop and 10%
#                        background traffic
#   ecmp_quiet           ECMP alone: no slower hop, no background
#   ecmp_quiet_nored     ECMP alone without RED marks (kmin 8 MB): no
#                        sender slows down but for Symphony's marks
#   static_quiet         static balanced routing and nothing else: this
#                        testbed's floor (the paper's "theoretical")
#   static_imb           static routing, the 1.13x hop (Fig. 2 "load
#                        imbalance")
#   static_bg            static routing, 10% background (Fig. 2
#                        "congestion")
#   static_imb_steps     static_imb with each step a flow of its own on 4
#                        queue pairs (--step-qps 4 --step-flows on) and
#                        k 0.002, the setting in which Symphony has gained
#                        most
#   static_imb_steps_nored  the same without RED marks (kmin 8 MB)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
prog=symphony_controls.sh
all_controls="ecmp ecmp_quiet ecmp_quiet_nored static_quiet static_imb static_bg static_imb_steps static_imb_steps_nored"
seeds=10
controls=$all_controls
summary_only=0
engine=vm
dir=$top/build/results/symphony_controls
out=$top/build/results/symphony_controls.json

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '16,44s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--summary) summary_only=1; shift; continue ;;
	-h|--help) usage ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds=$2 ;;
	--controls) controls=$2 ;;
	--dir) dir=$2 ;;
	--out) out=$2 ;;
	--engine) engine=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $engine =~ ^(vm|sim)$ ]] || die "--engine '$engine': vm or sim"

# RED thresholds no queue of the testbed reaches (1000 packets of 4 KiB
# are 4 MB): no RED marks
no_red="limit 1000 kmin 8mb kmax 16mb pmax 0.2"

# control_args NAME: the symphony_ring.sh options of a control
control_args() {
	case $1 in
	ecmp) echo "" ;;
	ecmp_quiet) echo "--imbalance 1 --background 0" ;;
	ecmp_quiet_nored) echo "--imbalance 1 --background 0 --red '$no_red'" ;;
	static_quiet) echo "--routing static --imbalance 1 --background 0" ;;
	static_imb) echo "--routing static --background 0" ;;
	static_bg) echo "--routing static --imbalance 1" ;;
	static_imb_steps) echo "--routing static --background 0 --step-qps 4 --step-flows on --symphony 'k 0.002 tau 0.25 twin 100ms warmup 4 samples 4'" ;;
	static_imb_steps_nored) echo "$(control_args static_imb_steps) --red '$no_red'" ;;
	*) return 1 ;;
	esac
}
for c in $controls; do
	control_args "$c" >/dev/null || die "--controls: unknown control '$c' ($all_controls)"
done

if [ "$summary_only" -eq 0 ]; then
	[ "$engine" = sim ] || [ "$(id -u)" -eq 0 ] || die "must run as root"
	mkdir -p "$dir"
	args=()
	i=0
	progress_start "$prog"
	for c in $controls; do
		i=$((i + 1))
		progress "$i" "$(wc -w <<<"$controls")" "control $c"
		echo "$prog: control $c: $(control_args "$c")" >&2
		eval "args=($(control_args "$c"))"
		"$top/eval/symphony_ring.sh" --engine "$engine" --scenarios rings \
			--seeds "$seeds" "${args[@]}" --out "$dir/$c.json"
	done
	progress_done
fi

files=()
for c in $all_controls; do
	[ ! -s "$dir/$c.json" ] || files+=("$dir/$c.json")
done
[ ${#files[@]} -gt 0 ] || die "no control has run yet: no JSON in $dir"

# Each control's lower bound: the 2(N-1) steps of an N-rank ring's
# AllReduce, size/N bytes each, back to back at the host rate (payload
# only).  A "rings" ring has a rank at each of the 4 ToRs twice, N = 8.
jq -n --arg date "$(date -u +%FT%TZ)" '
  def bytes: capture("^(?<n>[0-9]+)(?<u>[kKmMgG]?)[bB]?$")
    | (.n | tonumber) * ({"": 1, k: 1024, m: 1048576, g: 1073741824}[.u | ascii_downcase]);
  def bits_per_s: capture("^(?<n>[0-9]+)(?<u>bit|kbit|mbit|gbit)$")
    | (.n | tonumber) * ({bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9}[.u]);
  def bound_ms: 8 as $ranks
    | 2 * ($ranks - 1) * (.workload.size_per_rank | bytes) / $ranks * 8 * 1000
      / (.testbed.rate | bits_per_s);
  {
    benchmark: "symphony_controls",
    date: $date,
    method: "eval/symphony_ring.sh, scenario rings (two 8-rank rings of one job), per control; every seed with the RED+DCQCN baseline and with Symphony OR RED; lower bound: 2(N-1) steps of size/N bytes at the host rate, payload only",
    controls: [inputs | bound_ms as $bound
      | (.summary | map(select(.scenario == "rings"))) as $s
      | ($s | map(select(.marking == "red"))[0]) as $b
      | ($s | map(select(.marking == "symphony"))[0]) as $y
      | (.comparison | map(select(.scenario == "rings"))[0]) as $c
      | {control: (input_filename | sub(".*/"; "") | sub("\\.json$"; "")),
	 testbed: .testbed, step_qps: .workload.step_qps,
	 step_flows: .workload.step_flows, red: .qdisc.red,
	 symphony: .qdisc.symphony, seeds: $b.runs,
	 baseline_cct_ms: $b.cct_ms, symphony_cct_ms: $y.cct_ms,
	 lower_bound_ms: $bound,
	 baseline_over_bound: ($b.cct_ms.median / $bound),
	 paired_cct_ratio: $c.paired_cct_ratio,
	 paired_symphony_faster: $c.paired_symphony_faster,
	 max_step_overlap_baseline: $b.max_step_overlap,
	 max_step_overlap_symphony: $y.max_step_overlap,
	 red_marks_baseline: $b.red_marks, symphony_marks: $y.symphony_marks}]
  }' "${files[@]}" >"$out.tmp" && mv "$out.tmp" "$out"

if command -v gnuplot >/dev/null; then
	dat=$(mktemp /tmp/symphony_controls.XXXXXX)
	trap 'rm -f "$dat"' EXIT
	bound_s=$(jq '.controls[0].lower_bound_ms / 1000' "$out")
	jq -r '.controls[] | "\(.control) \(.baseline_cct_ms.median / 1000) \(.baseline_cct_ms.p25 / 1000) \(.baseline_cct_ms.p75 / 1000) \(.symphony_cct_ms.median / 1000) \(.symphony_cct_ms.p25 / 1000) \(.symphony_cct_ms.p75 / 1000)"' \
		"$out" >"$dat"
	{
		echo "set terminal pngcairo size 900,500 noenhanced"
		echo "set output '${out%.json}.png'"
		echo "set title 'Ring AllReduce CCT per control (median, bars p25..p75; line: lower bound)'"
		echo "set ylabel 'collective completion time (s)'"
		echo "set yrange [0:*]"
		echo "set style data histogram"
		echo "set style histogram errorbars gap 2 lw 1"
		echo "set style fill solid 0.6 border -1"
		echo "set xtics rotate by -20"
		echo "set rmargin 10"
		echo "set key outside bottom center horizontal"
		echo "plot '$dat' using 2:3:4:xtic(1) title 'RED+DCQCN (baseline)', '' using 5:6:7 title 'Symphony+DCQCN', $bound_s with lines lw 2 dt 2 title 'lower bound'"
	} | gnuplot
fi

jq -r '"control            seeds  baseline CCT s (p25..p75)  Symphony CCT s  paired ratio (faster)  overlap max RED / Symphony  baseline / bound",
       (.controls[] | "\(.control)\t\(.seeds)\t\(.baseline_cct_ms.median / 10 | round / 100) (\(.baseline_cct_ms.p25 / 10 | round / 100)..\(.baseline_cct_ms.p75 / 10 | round / 100))\t\(.symphony_cct_ms.median / 10 | round / 100)\t\(.paired_cct_ratio.median * 1000 | round / 1000) (\(.paired_symphony_faster) of \(.seeds))\t\(.max_step_overlap_baseline.max) / \(.max_step_overlap_symphony.max)\t\(.baseline_over_bound * 100 | round / 100)")' "$out"
echo "$prog: $out, ${out%.json}.png"
