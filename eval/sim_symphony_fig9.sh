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
# completion, and their overlap) and a gnuplot PNG of A's and B's
# completion times against the overlap.
#
# Usage: eval/sim_symphony_fig9.sh [options]          (after "make sim")
#   --bytes BYTES      each flow's size (default 100m: 84 ms at 10 Gbit/s;
#                      the paper's 1 GB scaled down tenfold)
#   --shifts "P ..."   A's start, as the share of a flow's line-rate time
#                      by which the two overlap, percent (default "0 25 50
#                      75 100": 0 starts A as B ends, 100 both at once)
#   --cc PROFILE       the senders' DCQCN (default mlx5)
#   --k K              Symphony's k (default 0.01)
#   --out FILE         JSON (default build/results/sim_symphony_fig9.json);
#                      the plot next to it (-completion.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_fig9.sh
bytes=100m
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
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
sim=$top/build/symofan-sim
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $bytes =~ ^([1-9][0-9]*)([km]?)$ ]] || die "--bytes '$bytes': bytes, with k or m"
case ${BASH_REMATCH[2]} in k) n=$((BASH_REMATCH[1] * 1024)) ;; m) n=$((BASH_REMATCH[1] * 1048576)) ;; *) n=${BASH_REMATCH[1]} ;; esac
for s in $shifts; do [[ $s =~ ^[0-9]+$ ]] && [ "$s" -le 100 ] || die "--shifts: '$s' is not 0..100"; done
[[ $cc =~ ^(mlx5|hpcc|legacy)$ ]] || die "--cc '$cc': mlx5, hpcc or legacy"
mkdir -p "$(dirname "$out")"
work=$(mktemp -d /tmp/sim_fig9.XXXXXX)
trap 'rm -rf "$work"' EXIT

# a flow's time at the line rate, payload only, microseconds
flow_us=$((n * 8 / 10000))
for s in $shifts; do
	for m in red symphony; do
		"$sim" flows --leaves 1 --spines 1 --hosts-per-leaf 3 --rate 10gbit --uplink-rate 10gbit \
			--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k $k tau 0.25 twin 100us warmup 16 samples 16" \
			--marking "$m" --cc "$cc" --mtu 4096 --rto 4 \
			--flow "1:2:1:1:$n:0" --flow "0:2:1:0:$n:$((flow_us * (100 - s) / 100))" \
			--out "$work/$s-$m.json" || die "shift $s%, $m: the simulation did not complete"
		jq -c --argjson shift "$s" --arg m "$m" '
		  (.flows | map({(if .step == 0 then "a" else "b" end):
				 {start_ms: (.start_ns / 1e6), end_ms: (.end_ns / 1e6),
				  completion_ms: ((.end_ns - .start_ns) / 1e6)}}) | add) as $f
		  | {shift_pct: $shift, marking: $m, a: $f.a, b: $f.b,
		     overlap_ms: ([0, ([$f.a.end_ms, $f.b.end_ms] | min) - ([$f.a.start_ms, $f.b.start_ms] | max)] | max),
		     both_done_ms: (([$f.a.end_ms, $f.b.end_ms] | max) - ([$f.a.start_ms, $f.b.start_ms] | min)),
		     symphony_marks: ([.ports[].symphony_marks] | add), red_marks: ([.ports[].red_marks] | add)}' \
			"$work/$s-$m.json" >>"$work/runs.jsonl"
	done
done
jq -s --arg date "$(date -u +%FT%TZ)" --arg cc "$cc" --argjson bytes "$n" --argjson flow_us "$flow_us" '
  {date: $date, figure: "Symphony Fig. 9: two flows of consecutive steps of one job through one port",
   method: "symofan-sim flows: hosts 0 and 1 to host 2 behind one ToR, 10 Gbit/s, RED 50/100 KB at 0.2, DCQCN profile \($cc); flow B (step k+1) starts first, flow A (step k, the lagging step) starts later by (100 - shift)% of a flow'"'"'s line-rate time; marking red (baseline) or Symphony OR RED at the ToR",
   bytes_per_flow: $bytes, flow_line_rate_ms: ($flow_us / 1000), cc: $cc,
   paper: "the lagging flow A finishes sooner with Symphony, more so the more the flows overlap; the overlap shrinks; B barely slows",
   runs: .}' "$work/runs.jsonl" >"$out"
base=${out%.json}
if command -v gnuplot >/dev/null; then
	for m in red symphony; do
		jq -r --arg m "$m" '.runs[] | select(.marking == $m) | "\(.shift_pct) \(.a.completion_ms) \(.b.completion_ms) \(.overlap_ms)"' \
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
     '$base.red.dat' using 1:4 with lines dt 3 title 'overlap, RED+DCQCN', \
     '$base.symphony.dat' using 1:4 with lines dt 3 title 'overlap, Symphony'
GP
	rm -f "$base".*.dat
fi
jq -r '"overlap% marking   A completion ms  B completion ms  overlap ms  both done ms",
  (.runs[] | "\(.shift_pct)\t\(.marking)\t\(.a.completion_ms * 10 | round / 10)\t\(.b.completion_ms * 10 | round / 10)\t\(.overlap_ms * 10 | round / 10)\t\(.both_done_ms * 10 | round / 10)")' "$out"
echo "$prog: $out" >&2
