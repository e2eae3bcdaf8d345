#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_baseline.sh - which reading of the Symphony paper's Table 1
# reproduces its baseline.  Table 1 gives 4 ToRs, 4 spines, 32 nodes, a 2D
# ring of 8 x 4, 8 MB chunks; Fig. 2 and 5 run "multiple 1D Ring
# AllReduce (see Table 1)".  Each reading runs RED+DCQCN alone (the
# paper's stack: HPCC's DCQCN, Astra-Sim's flows, ECMP on the 5-tuple
# with the step in the UDP source port) over the same seeds, with and
# without Fig. 2's light background, and eval/stats.py sets its CCT over
# the bound and its step overlap beside the paper's (Fig. 2a and 4b: an
# overlap of about 30, P50 31; the CCT 1.6x the bound; Fig. 5's CCTs
# 600-1000 ms).  The readings (sim_symphony.sh's scenarios):
#   rails     8 rings of 4 ranks, host i of every ToR (the 2D ring's
#             column rings; EVALUATION's Table 1 rows until 2026-12)
#   rings     4 rings of 8 ranks over the ToRs, 2 hosts of each
#   torrings  4 rings of 8 ranks, a ToR's hosts each (the 2D ring's row
#             rings; nothing crosses a spine)
#   ring1     one ring of all 32, visiting the ToRs in turn
#   grid      the 2D 8 x 4 ring, hierarchically (row, column, row)
#
# Usage: eval/sim_symphony_baseline.sh [options]      (after "make sim")
#   --readings "R ..."  (default "rails rings torrings ring1 grid")
#   --backgrounds "P ..."  background percentages of the line, each a run
#                      of every reading (default "0 10")
#   --spines "N ..."   spines, each a run of every reading (default 4,
#                      Table 1's: the ToRs' uplinks 2:1 over-subscribed;
#                      8: none)
#   --seeds N          (default 20)
#   --markings "M ..." also run these beside RED (default "red")
#   --state switch|port  Symphony's job state (default switch, the
#                      paper's); port writes DIR/READING-sN-bgP-port.json
#   --jobs N           simulations at once (default: the cores)
#   --out DIR          (default build/results/sim_symphony_baseline); a
#                      reading's runs in DIR/READING-sN-bgP.json, the
#                      summary in DIR/summary.json, the plot in
#                      DIR/summary-overlap.png
#   --summary          no runs: the summary and plot of the runs in DIR
#   --resume           keep the runs of each reading's JSON already in DIR
#                      and run only those it lacks (more seeds, a run cut
#                      short; sim_symphony.sh --resume)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_baseline.sh
readings="rails rings torrings ring1 grid"
backgrounds="0 10"
spines=4
seeds=20
markings=red
state=switch
jobs=$(nproc)
out=$top/build/results/sim_symphony_baseline
summary_only=0
resume=0

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--summary) summary_only=1; shift; continue ;;
	--resume) resume=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--readings) readings=$2 ;;
	--backgrounds) backgrounds=$2 ;;
	--spines) spines=$2 ;;
	--seeds) seeds=$2 ;;
	--markings) markings=$2 ;;
	--state) state=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
for r in $readings; do
	[[ $r =~ ^(rails|rings|torrings|ring1|grid)$ ]] ||
		die "--readings: '$r' is not rails, rings, torrings, ring1 or grid"
done
for b in $backgrounds; do
	[[ $b =~ ^[0-9]+$ ]] && [ "$b" -le 50 ] || die "--backgrounds: '$b' is not a percentage 0..50"
done
for n in $spines; do
	[[ $n =~ ^[1-9][0-9]?$ ]] || die "--spines: '$n' wants 1..64"
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $state =~ ^(switch|port)$ ]] || die "--state '$state': switch or port"
suffix=
[ "$state" = switch ] || suffix=-$state
mkdir -p "$out"

if [ "$summary_only" -eq 0 ]; then
	for n in $spines; do
		for b in $backgrounds; do
			for r in $readings; do
				echo "$prog: $r, $n spines, background $b%" >&2
				file=$out/$r-s$n-bg$b$suffix.json
				prior=()
				[ "$resume" = 0 ] || [ ! -e "$file" ] || {
					cp "$file" "$file.prior"
					prior=(--resume "$file.prior")
				}
				"$top/eval/sim_symphony.sh" --nodes 32 --spines "$n" --stack paper "${prior[@]}" \
					--scenarios "$r" --background "$b" --markings "$markings" --state "$state" \
					--seeds "$seeds" --jobs "$jobs" --out "$file" 2>&1 |
					sed 's/^/  /' >&2
				rm -f "$file.prior"
			done
		done
	done
fi

# the summary: each reading's baseline beside the paper's, and the median
# step overlap over time (each run's timeline sampled every 10 ms)
exec /usr/bin/python3 "$top/eval/baseline_summary.py" --dir "$out" \
	--readings "$readings" --backgrounds "$backgrounds" --spines "$spines"
