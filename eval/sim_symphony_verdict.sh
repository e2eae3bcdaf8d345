#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_verdict.sh - every row of EVALUATION section 4's Symphony
# verdict in the ns-3 simulator on one transport stack, in one command:
# Fig. 2's baseline against its bound, Fig. 5's CCT (Symphony and the
# priority-queue baseline against RED+DCQCN), Fig. 4's step overlap over 5
# AllReduces back to back, Fig. 7's two jobs, Fig. 7c's random arrivals,
# Fig. 8a's imbalance, 8b's k and 8c's chunk.  Table 1's set-up (but
# Fig. 7c, on sim_symphony_arrivals.sh's 128 nodes): 32 nodes
# (4 ToRs of 8 hosts, 4 spines, 10 Gbit/s), the rail rings (host i of every
# ToR in ring i: 8 rings of 4 ranks, one job), 8 MB chunks, RED 50/100 KB
# at 0.2, k 0.01.  Each row is an eval/sim_symphony.sh,
# sim_symphony_sweep.sh or sim_symphony_arrivals.sh run whose JSON is kept
# beside the verdict's; the verdict's JSON has one entry per row with its
# figures, and a markdown table is printed.
#
# Usage: eval/sim_symphony_verdict.sh [options]        (after "make sim")
#   --stack paper|nccl|legacy  sim_symphony.sh's stack (default paper)
#   --seeds N          seeds of the one-AllReduce rows: Fig. 2/5 and the
#                      sweeps' points (default 20)
#   --long-seeds N     seeds of the longer rows: Fig. 4 (5 AllReduces),
#                      Fig. 7, Fig. 7c (default 10)
#   --rows "R ..."     fig5 fig4 fig7 fig7c fig8a fig8b fig8c (default all;
#                      fig5 gives Fig. 2's row too)
#   --jobs N           simulations at once (default: the cores)
#   --out FILE         JSON (default build/results/sim_symphony_verdict_
#                      STACK.json); each row's runs next to it
#   --summary          no runs: the table of the rows' JSON already there
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_verdict.sh
stack=paper
seeds=20
long_seeds=10
rows="fig5 fig4 fig7 fig7c fig8a fig8b fig8c"
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
	--stack) stack=$2 ;;
	--seeds) seeds=$2 ;;
	--long-seeds) long_seeds=$2 ;;
	--rows) rows=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $stack =~ ^(paper|nccl|legacy)$ ]] || die "--stack '$stack': paper, nccl or legacy"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $long_seeds =~ ^[1-9][0-9]*$ ]] || die "--long-seeds '$long_seeds': wants a count"
for r in $rows; do
	[[ $r =~ ^(fig5|fig4|fig7|fig7c|fig8a|fig8b|fig8c)$ ]] ||
		die "--rows: '$r' is not fig5, fig4, fig7, fig7c, fig8a, fig8b or fig8c"
done
[ -n "$out" ] || out=$top/build/results/sim_symphony_verdict_$stack.json
base=${out%.json}
mkdir -p "$(dirname "$out")"

# Table 1's fabric and rings, every row's
table1=(--nodes 32 --spines 4 --stack "$stack" --jobs "$jobs")

# run ROW: the row's runs, into $base.ROW.json
run() {
	local f=$base.$1.json
	echo "$prog: $1 ($stack stack)" >&2
	case $1 in
	fig5) "$top/eval/sim_symphony.sh" "${table1[@]}" --scenarios rails --pq --seeds "$seeds" --out "$f" ;;
	fig4) "$top/eval/sim_symphony.sh" "${table1[@]}" --scenarios rails --iterations 5 \
		--seeds "$long_seeds" --out "$f" ;;
	fig7) "$top/eval/sim_symphony.sh" "${table1[@]}" --scenarios railtwojobs --iterations 2 \
		--job-offset 100 --seeds "$long_seeds" --out "$f" ;;
	fig7c) "$top/eval/sim_symphony_arrivals.sh" --stack "$stack" --seeds "$long_seeds" \
		--jobs "$jobs" --out "$f" ;;
	fig8a) "$top/eval/sim_symphony_sweep.sh" --param imbalance "${table1[@]}" \
		--scenarios rails --seeds "$seeds" --out "$f" ;;
	fig8b) "$top/eval/sim_symphony_sweep.sh" --param k "${table1[@]}" \
		--scenarios rails --seeds "$seeds" --out "$f" ;;
	fig8c) "$top/eval/sim_symphony_sweep.sh" --param chunk --values "128k 512k 2m 8m" \
		"${table1[@]}" --scenarios rails --seeds "$seeds" --out "$f" ;;
	esac | sed "s/^/  /" >&2
}

[ "$summary_only" -eq 1 ] || for r in $rows; do run "$r"; done

# each row's JSON, as a file jq slurps (an empty array where the row did
# not run): a row's runs are far more than one argument may hold
row() { [ -s "$base.$1.json" ] && echo "$base.$1.json" || echo /dev/null; }
# the bound of one AllReduce of the rails: 6 steps of 8 MB at 10 Gbit/s,
# the ToR uplinks 2:1 over-subscribed (8 hosts, 4 spines)
bound_ms=$(awk 'BEGIN { printf "%.3f", 6 * 8 * 1048576 * 8 / 10e9 * 1000 * 2 }')
jq -n --arg stack "$stack" --arg date "$(date -u +%FT%TZ)" --argjson bound "$bound_ms" \
	--slurpfile s5 "$(row fig5)" --slurpfile s4 "$(row fig4)" --slurpfile s7 "$(row fig7)" \
	--slurpfile s7c "$(row fig7c)" --slurpfile s8a "$(row fig8a)" --slurpfile s8b "$(row fig8b)" \
	--slurpfile s8c "$(row fig8c)" '
  $s5[0] as $fig5 | $s4[0] as $fig4 | $s7[0] as $fig7 | $s7c[0] as $fig7c
  | $s8a[0] as $fig8a | $s8b[0] as $fig8b | $s8c[0] as $fig8c
  | def r3: if . == null then null else . * 1000 | round / 1000 end;
  def mark($d; $m): $d.summary | map(select(.marking == $m))[0];
  def cmp($c): if $c == null then null else {paired_median: ($c.paired_cct_ratio.median | r3),
		paired_min: ($c.paired_cct_ratio.min | r3), paired_max: ($c.paired_cct_ratio.max | r3),
		faster: $c.paired_symphony_faster, pairs: $c.pairs} end;
  def sweep($d): if $d == null then null else [$d.points[] | {value, normalised_cct: (.normalised_cct | r3),
		   paired_median: (.paired_cct_ratio.median | r3), faster: .symphony_faster, pairs}] end;
  {date: $date, stack: $stack,
   setup: "32 nodes (4 ToRs x 8 hosts, 4 spines, 10 Gbit/s), Table 1 rail rings (8 x 4 ranks, one job), 8 MB chunks, RED 50/100 KB at 0.2, k 0.01; sim_symphony.sh --stack \($stack)",
   rows: {
     fig2: (if $fig5 == null then null else
	    {baseline_cct_ms: (mark($fig5; "red").cct_ms.median | r3), bound_ms: $bound,
	     baseline_over_bound: (mark($fig5; "red").cct_ms.median / $bound | r3),
	     max_step_overlap_red: mark($fig5; "red").max_step_overlap.max} end),
     fig5: (if $fig5 == null then null else
	    {red_cct_ms: (mark($fig5; "red").cct_ms.median | r3),
	     symphony_cct_ms: (mark($fig5; "symphony").cct_ms.median | r3),
	     pq_cct_ms: (mark($fig5; "pq").cct_ms.median | r3),
	     symphony: cmp($fig5.comparison[0]), pq: cmp($fig5.pq_comparison[0]),
	     seeds: mark($fig5; "red").runs} end),
     fig4: (if $fig4 == null then null else
	    {max_step_overlap_red: mark($fig4; "red").max_step_overlap,
	     max_step_overlap_symphony: mark($fig4; "symphony").max_step_overlap,
	     red_cct_ms: (mark($fig4; "red").cct_ms.median | r3),
	     symphony_cct_ms: (mark($fig4; "symphony").cct_ms.median | r3),
	     symphony: cmp($fig4.comparison[0]), seeds: mark($fig4; "red").runs} end),
     fig7: (if $fig7 == null then null else
	    {final_step_span_ms_red: (mark($fig7; "red").final_step_span_ms.median | r3),
	     final_step_span_ms_symphony: (mark($fig7; "symphony").final_step_span_ms.median | r3),
	     final_step_span_reduction: ($fig7.comparison[0].final_step_span_reduction | r3),
	     symphony: cmp($fig7.comparison[0])} end),
     # Fig. 7c runs on sim_symphony_arrivals.sh'"'"'s own fabric (128 nodes,
     # 16 spines, random rings), not Table 1'"'"'s
     fig7c: (if $fig7c == null then null else
	     [$fig7c.summary[] | {scale, jobs, normalised_jct_median: (.normalised_jct.median | r3),
				  faster: .symphony_faster}] end),
     fig8a: sweep($fig8a), fig8b: sweep($fig8b), fig8c: sweep($fig8c)}}' >"$out.tmp"
mv "$out.tmp" "$out"

# the table: a row per figure, the paper's claim beside the measured
jq -r '
  def pc: . * 100 | round | tostring + "%";
  def pts: map("\(.value): \(.normalised_cct)") | join(", ");
  .rows as $r
  | "| figure: the paper claims | \(.stack) stack |", "|---|---|",
    (if $r.fig2 then "| Fig. 2: baseline 1.6x its bound | \($r.fig2.baseline_over_bound)x (\($r.fig2.baseline_cct_ms) ms against \($r.fig2.bound_ms) ms) |" else empty end),
    (if $r.fig5 then "| Fig. 5: Symphony about 22-30% lower CCT, the priority queue between | Symphony/RED \($r.fig5.symphony.paired_median) (\($r.fig5.symphony.paired_min)..\($r.fig5.symphony.paired_max), faster in \($r.fig5.symphony.faster) of \($r.fig5.symphony.pairs))\(if $r.fig5.pq then "; priority queue/RED \($r.fig5.pq.paired_median) (faster in \($r.fig5.pq.faster) of \($r.fig5.pq.pairs))" else "" end) |" else empty end),
    (if $r.fig4 then "| Fig. 4: overlap held at 5 where the baseline reaches 30 | max overlap \($r.fig4.max_step_overlap_red.median) (\($r.fig4.max_step_overlap_red.max)) -> \($r.fig4.max_step_overlap_symphony.median) (\($r.fig4.max_step_overlap_symphony.max)); CCT ratio \($r.fig4.symphony.paired_median), faster in \($r.fig4.symphony.faster) of \($r.fig4.symphony.pairs) |" else empty end),
    (if $r.fig7 then "| Fig. 7: two jobs, a shorter final step | final step span \($r.fig7.final_step_span_ms_red) -> \($r.fig7.final_step_span_ms_symphony) ms; CCT ratio \($r.fig7.symphony.paired_median), faster in \($r.fig7.symphony.faster) of \($r.fig7.symphony.pairs) |" else empty end),
    (if $r.fig7c then "| Fig. 7c: gains growing with the job scale (128 nodes, random rings) | normalised JCT \($r.fig7c | map("\(.scale) nodes \(.normalised_jct_median) (\(.faster) of \(.jobs) faster)") | join(", ")) |" else empty end),
    (if $r.fig8a then "| Fig. 8a: gains growing with imbalance | \($r.fig8a | pts) |" else empty end),
    (if $r.fig8b then "| Fig. 8b: sweet spot at k 1e-3..1e-2 | \($r.fig8b | pts) |" else empty end),
    (if $r.fig8c then "| Fig. 8c: up to 20% lower at chunks >= 512 KB | \($r.fig8c | pts) |" else empty end)' "$out"
echo "$prog: $out" >&2
