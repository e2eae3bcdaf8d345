#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_ablation.sh - from this project's earlier simulator model
# to the Symphony paper's stack one change at a time, on Fig. 5's set-up
# (Table 1: 32 nodes, 4 ToRs of 8 hosts, 4 spines, 10 Gbit/s, the rail
# rings of one job, 8 MB chunks, one AllReduce), so that each difference
# between the two shows how much it moves Symphony's CCT against
# RED+DCQCN's.  Every step is an eval/sim_symphony.sh run on the same
# seeds; the JSON lists each step's options, both markings' median CCTs
# and the paired ratio, and a markdown table is printed.
#
# Usage: eval/sim_symphony_ablation.sh [options]        (after "make sim")
#   --seeds N          (default 10)
#   --jobs N           simulations at once (default: the cores)
#   --out FILE         JSON (default build/results/sim_symphony_ablation.json);
#                      each step's runs next to it
#   --summary          no runs: the table of the steps' JSON already there
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_ablation.sh
seeds=10
jobs=$(nproc)
out=
summary_only=0

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--summary) summary_only=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[ -n "$out" ] || out=$top/build/results/sim_symphony_ablation.json
base=${out%.json}
mkdir -p "$(dirname "$out")"

# name|what changes|sim_symphony.sh options: the cumulative path first,
# then single changes from the earlier model
steps=(
	"legacy|this project's model until 2026-12|--stack legacy"
	"+hpcc|+ HPCC's DCQCN (its constants: alpha every 1 us, cuts on a 4 us grid, one fast-recovery event, no byte counter, a 1 Gbit/s floor, a CNP per 4 us; and the target rate clamped only after a timer increase)|--stack legacy --cc hpcc"
	"+astra|+ Astra-Sim's flows (a queue pair per step at line rate, PSN from 0 per message)|--stack legacy --cc hpcc --flows astra"
	"+tor|+ Symphony on the ToRs only|--stack legacy --cc hpcc --flows astra --symphony-at tor"
	"paper|+ state per switch: the paper's stack|--stack paper"
	"paper-clamp|the paper's stack, but the target rate clamped on every cut (legacy's rule)|(below)"
	"astra-only|the earlier model with Astra-Sim's flows alone|--stack legacy --flows astra"
	"mlx5-only|the earlier model with mlx5's DCQCN alone|--stack legacy --cc mlx5"
	"nccl|the paper's stack with NCCL's flows (a queue pair per channel, steps in order)|--stack nccl"
)

if [ "$summary_only" -eq 0 ]; then
	for s in "${steps[@]}"; do
		IFS='|' read -r name _ opts <<<"$s"
		args=()
		# shellcheck disable=SC2206
		case $name in
		paper-clamp) args=(--stack paper --dcqcn "--dcqcn-clamp always") ;;
		*) args=($opts) ;;
		esac
		echo "$prog: $name: ${args[*]}" >&2
		"$top/eval/sim_symphony.sh" --nodes 32 --spines 4 --scenarios rails --seeds "$seeds" \
			--jobs "$jobs" "${args[@]}" --out "$base.$name.json" | sed "s/^/  /" >&2
	done
fi

for s in "${steps[@]}"; do
	IFS='|' read -r name what opts <<<"$s"
	[ "$name" != paper-clamp ] || opts='--stack paper --dcqcn "--dcqcn-clamp always"'
	[ -s "$base.$name.json" ] || continue
	jq -c --arg name "$name" --arg what "$what" --arg opts "$opts" '
	  def mark($m): .summary | map(select(.marking == $m))[0];
	  {step: $name, change: $what, options: $opts, seeds: mark("red").runs,
	   red_cct_ms: mark("red").cct_ms.median, symphony_cct_ms: mark("symphony").cct_ms.median,
	   paired_cct_ratio: .comparison[0].paired_cct_ratio,
	   symphony_faster: .comparison[0].paired_symphony_faster, pairs: .comparison[0].pairs,
	   max_step_overlap_red: mark("red").max_step_overlap.max,
	   max_step_overlap_symphony: mark("symphony").max_step_overlap.max,
	   file: (input_filename | split("/")[-1])}' "$base.$name.json"
done | jq -s --arg date "$(date -u +%FT%TZ)" '{date: $date,
  setup: "eval/sim_symphony.sh --nodes 32 --spines 4 --scenarios rails (Table 1: rail rings of one job, 8 MB chunks, one AllReduce), per step the options below",
  steps: .}' >"$out.tmp"
mv "$out.tmp" "$out"
jq -r '"| step | change | RED+DCQCN ms | Symphony ms | paired Symphony/RED (range) | faster | max overlap RED / Symphony |",
  "|---|---|--:|--:|--:|--:|--:|",
  (.steps[] | "| \(.step) | \(.change) | \(.red_cct_ms | round) | \(.symphony_cct_ms | round) | \(.paired_cct_ratio.median * 1000 | round / 1000) (\(.paired_cct_ratio.min * 1000 | round / 1000)..\(.paired_cct_ratio.max * 1000 | round / 1000)) | \(.symphony_faster) of \(.pairs) | \(.max_step_overlap_red) / \(.max_step_overlap_symphony) |")' "$out"
echo "$prog: $out" >&2
