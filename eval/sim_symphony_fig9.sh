#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_fig9.sh - the Symphony paper's hardware experiment (Fig. 9)
# in the ns-3 simulator: two equal flows of one job through one switch
# port (hosts 0 and 1 to host 2 behind one ToR, 10 Gbit/s, the paper's
# ConnectX-6 NICs as the mlx5 DCQCN profile), the later step's flow (B,
# step k+1) starting first and the lagging step's (A, step k) starting
# later, from the whole flow's length later (no overlap) to at once.  Each
# shift runs with RED marking (the DCQCN-only baseline) and with Symphony
# OR RED at the ToR.  Writes JSON (each run's flows: start, end,
# completion, their transmission timelines in 1 ms samples, and two
# overlaps: the time both flows transmit, the paper's measure, and the
# time both are alive) and a gnuplot PNG of A's and B's completion times
# against the shift (-completion.png) and the flows' sending rates over
# time at two shifts (-timeline.png, the paper's view).
#
# Usage: eval/sim_symphony_fig9.sh [options]          (after "make sim")
#   --bytes BYTES      each flow's size, with k, m or g (default 1g, the
#                      paper's 1 GB: 859 ms of payload at 10 Gbit/s)
#   --shifts "P ..."   A's start, as the share of a flow's line-rate time
#                      by which the two overlap, percent (default "0 25 50
#                      75 100": 0 starts A as B ends, 100 both at once)
#   --cc PROFILE       the senders' DCQCN (default mlx5)
#   --k K              Symphony's k (default 0.01)
#   --transmit-pct P   a flow transmits in a 1 ms sample where it sends at
#                      least P% of the line (default 0: any packet)
#   --out FILE         JSON (default build/results/sim_symphony_fig9.json);
#                      the plot next to it (-completion.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_fig9.sh
bytes=1g
transmit_pct=0
shifts="0 25 50 75 100"
cc=mlx5
k=0.01
out=$top/build/results/sim_symphony_fig9.json

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in -h|--help) usage ;; esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--bytes) bytes=$2 ;;
	--shifts) shifts=$2 ;;
	--cc) cc=$2 ;;
	--k) k=$2 ;;
	--transmit-pct) transmit_pct=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
sim=$top/build/symofan-sim
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $bytes =~ ^([1-9][0-9]*)([kmg]?)$ ]] || die "--bytes '$bytes': bytes, with k, m or g"
case ${BASH_REMATCH[2]} in
k) n=$((BASH_REMATCH[1] * 1024)) ;;
m) n=$((BASH_REMATCH[1] * 1048576)) ;;
g) n=$((BASH_REMATCH[1] * 1073741824)) ;;
*) n=${BASH_REMATCH[1]} ;;
esac
[ "$n" -lt 4294967296 ] || die "--bytes '$bytes': at most 4g - 1 (an RDMA WRITE's length)"
[[ $transmit_pct =~ ^[0-9]+$ ]] && [ "$transmit_pct" -le 100 ] || die "--transmit-pct '$transmit_pct': wants 0..100"
for s in $shifts; do [[ $s =~ ^[0-9]+$ ]] && [ "$s" -le 100 ] || die "--shifts: '$s' is not 0..100"; done
[[ $cc =~ ^(mlx5|hpcc|legacy)$ ]] || die "--cc '$cc': mlx5, hpcc or legacy"
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/sim_fig9.XXXXXX)
trap 'rm -rf "$work"' EXIT

# a flow's time at the line rate, payload only, microseconds; a sample's
# packets at --transmit-pct of the line (payload bits per 1 ms sample at
# 10 Gbit/s: 10,000,000)
mtu=4096
flow_us=$((n * 8 / 10000))
min_packets=$(( (10000000 * transmit_pct / 100 + mtu * 8 - 1) / (mtu * 8) ))
[ "$min_packets" -ge 1 ] || min_packets=1
for s in $shifts; do
	for m in red symphony; do
		"$sim" flows --leaves 1 --spines 1 --hosts-per-leaf 3 --rate 10gbit --uplink-rate 10gbit \
			--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k $k tau 0.25 twin 100us warmup 16 samples 16" \
			--marking "$m" --cc "$cc" --mtu "$mtu" --rto 4 \
			--flow "1:2:1:1:$n:0" --flow "0:2:1:0:$n:$((flow_us * (100 - s) / 100))" \
			--flow-sample-us 1000 \
			--out "$work/$s-$m.json" || die "shift $s%, $m: the simulation did not complete"
		# the paper's overlap: the samples in which both flows send at
		# least min_packets; B's share of what the port sent in them
		jq -c --argjson shift "$s" --arg m "$m" --argjson min "$min_packets" '
		  (.flows | map({(if .step == 0 then "a" else "b" end):
				 {start_ms: (.start_ns / 1e6), end_ms: (.end_ns / 1e6),
				  completion_ms: ((.end_ns - .start_ns) / 1e6),
				  sent: .sent_packets_per_sample}}) | add) as $f
		  | ([range([$f.a.sent, $f.b.sent] | map(length) | min)
		      | select($f.a.sent[.] >= $min and $f.b.sent[.] >= $min)]) as $both
		  | {shift_pct: $shift, marking: $m, a: ($f.a | del(.sent)), b: ($f.b | del(.sent)),
		     both_transmit_ms: ($both | length),
		     b_share_while_both_pct: (if ($both | length) == 0 then null else
			([$both[] | $f.b.sent[.]] | add) * 100 /
			([$both[] | $f.a.sent[.] + $f.b.sent[.]] | add) end),
		     timeline_packets_per_ms: {a: $f.a.sent, b: $f.b.sent},
		     lifetime_overlap_ms: ([0, ([$f.a.end_ms, $f.b.end_ms] | min) - ([$f.a.start_ms, $f.b.start_ms] | max)] | max),
		     both_done_ms: (([$f.a.end_ms, $f.b.end_ms] | max) - ([$f.a.start_ms, $f.b.start_ms] | min)),
		     symphony_marks: ([.ports[].symphony_marks] | add), red_marks: ([.ports[].red_marks] | add)}' \
			"$work/$s-$m.json" >>"$work/runs.jsonl"
	done
done
jq -sc --arg date "$(date -u +%FT%TZ)" --arg cc "$cc" --argjson bytes "$n" --argjson flow_us "$flow_us" \
	--argjson pct "$transmit_pct" '
  {date: $date, figure: "Symphony Fig. 9: two flows of consecutive steps of one job through one port",
   method: "symofan-sim flows: hosts 0 and 1 to host 2 behind one ToR, 10 Gbit/s, RED 50/100 KB at 0.2, DCQCN profile \($cc); flow B (step k+1) starts first, flow A (step k, the lagging step) starts later by (100 - shift)% of a flow'"'"'s line-rate time; marking red (baseline) or Symphony OR RED at the ToR",
   bytes_per_flow: $bytes, flow_line_rate_ms: ($flow_us / 1000), cc: $cc,
   overlap: "both_transmit_ms: the 1 ms samples in which each flow sends at least \($pct)% of the line (the paper'"'"'s: the time both flows transmit); lifetime_overlap_ms: the time both have started and not yet arrived whole",
   paper: "the lagging flow A finishes sooner with Symphony, more so the more the flows overlap; the overlap shrinks; B barely slows",
   runs: .}' "$work/runs.jsonl" >"$out"
base=${out%.json}
if command -v gnuplot >/dev/null; then
	for m in red symphony; do
		jq -r --arg m "$m" '.runs[] | select(.marking == $m) | "\(.shift_pct) \(.a.completion_ms) \(.b.completion_ms) \(.both_transmit_ms)"' \
			"$out" >"$base.$m.dat"
	done
	gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output '$base-completion.png'
set title 'Fig. 9 in the simulator: two flows of consecutive steps through one port ($cc DCQCN)'
set xlabel 'overlap of the two flows at the line rate (% of a flow)'
set ylabel 'ms'
set key top left
plot '$base.red.dat' using 1:2 with linespoints lw 2 title 'A (lagging step), RED+DCQCN', \
     '$base.symphony.dat' using 1:2 with linespoints lw 2 title 'A (lagging step), Symphony', \
     '$base.red.dat' using 1:3 with linespoints dt 2 title 'B (step ahead), RED+DCQCN', \
     '$base.symphony.dat' using 1:3 with linespoints dt 2 title 'B (step ahead), Symphony', \
     '$base.red.dat' using 1:4 with lines dt 3 title 'both transmit, RED+DCQCN', \
     '$base.symphony.dat' using 1:4 with lines dt 3 title 'both transmit, Symphony'
GP
	# the paper's own view: each flow's sending rate over time (10 ms
	# means of the 1 ms samples), RED and Symphony, at the largest shift
	# and at the middle one
	top_shift=$(jq '[.runs[].shift_pct] | max' "$out")
	mid_shift=$(jq '[.runs[].shift_pct] | unique | .[(length - 1) / 2 | floor]' "$out")
	panels=
	for s in $mid_shift $top_shift; do
		for m in red symphony; do
			for f in a b; do
				jq -r --argjson s "$s" --arg m "$m" --arg f "$f" --argjson mtu "$mtu" '
				  .runs[] | select(.shift_pct == $s and .marking == $m) | .timeline_packets_per_ms[$f]
				  | [_nwise(10)] | to_entries[]
				  | "\(.key * 10) \(.value | add / length * $mtu * 8 / 1e6)"' "$out" >"$base.tl-$s-$m-$f.dat"
			done
			panels+="set title 'overlap $s%, $([ "$m" = red ] && echo RED+DCQCN || echo Symphony)'
plot '$base.tl-$s-$m-a.dat' with lines lw 2 title 'A (lagging step)', '$base.tl-$s-$m-b.dat' with lines lw 2 title 'B (step ahead)'
"
		done
	done
	gnuplot <<GP
set terminal pngcairo size 1000,700 noenhanced
set output '$base-timeline.png'
set multiplot layout 2,2 title 'Fig. 9 in the simulator: each flow sending rate ($cc DCQCN, 10 ms means)'
set xlabel 'ms from the first start'
set ylabel 'Gbit/s'
set yrange [0:10.5]
set key bottom right
$panels
unset multiplot
GP
	rm -f "$base".*.dat
fi
jq -r '"overlap% marking   A completion ms  B completion ms  both transmit ms  B share %  alive together ms  both done ms",
  (.runs[] | "\(.shift_pct)\t\(.marking)\t\(.a.completion_ms * 10 | round / 10)\t\(.b.completion_ms * 10 | round / 10)\t\(.both_transmit_ms)\t\(.b_share_while_both_pct // "-" | if type == "number" then round else . end)\t\(.lifetime_overlap_ms * 10 | round / 10)\t\(.both_done_ms * 10 | round / 10)")' "$out"
echo "$prog: $out" >&2
