#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_sweep.sh - the Symphony paper's Fig. 8 in the ns-3
# simulator: Symphony's CCT against the RED+DCQCN baseline's as one
# parameter moves, every value an eval/sim_symphony.sh run on the same
# seeds (so each value's runs, CDFs and overlap plots are that script's,
# kept next to the sweep's JSON).  Fig. 8a: the load imbalance (one
# ToR-spine link at 1/R of the rate), multiple 1D rings; Fig. 8b: k, a 2D
# ring; Fig. 8c: the chunk (a collective's bytes per rank over the ranks
# of its ring), a 2D ring.  Writes JSON (per value: both markings' CCT
# medians, the normalised CCT, Symphony's median over the baseline's, the
# paired ratios by seed and the max step overlaps) and a gnuplot PNG of
# the normalised CCT against the parameter.
#
# Usage: eval/sim_symphony_sweep.sh --param imbalance|k|chunk [options]
#   --values "V ..."   the parameter's values (defaults, the paper's axes:
#                      imbalance "1.1 1.3 1.5 1.7", k "0.0001 0.001 0.01
#                      0.1", chunk "128k 512k 2m 8m 32m")
#   --scenarios S      sim_symphony.sh's (default: rings for imbalance,
#                      grid for k and chunk, as the paper's Fig. 8)
#   --seeds N          (default 10)
#   --out FILE         JSON (default build/results/sim_symphony_sweep_
#                      PARAM.json); the plot next to it (-normalised.png)
#   --replot           no runs: plot and summarise the JSON in --out
#   Other options (--nodes, --spines, --iterations, --chunk, --k,
#   --imbalance, --state, --cc, --pfc, --job-offset, --jobs, --stack,
#   --flows, --symphony-at) pass to
#   sim_symphony.sh for every value.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony_sweep.sh
param=
values=
scenarios=
seeds=10
out=
pass=()
replot=0

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--replot) replot=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--param) param=$2 ;;
	--values) values=$2 ;;
	--scenarios) scenarios=$2 ;;
	--seeds) seeds=$2 ;;
	--out) out=$2 ;;
	--nodes|--spines|--iterations|--chunk|--k|--imbalance|--state|--cc|--pfc|--job-offset|--jobs|--stack|--flows|--symphony-at)
		pass+=("$1" "$2") ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
case $param in
imbalance)
	: "${values:=1.1 1.3 1.5 1.7}" "${scenarios:=rings}"
	xlabel="load imbalance: one ToR-spine link at 1/R of the rate (R)" logx= ;;
k)
	: "${values:=0.0001 0.001 0.01 0.1}" "${scenarios:=grid}"
	xlabel="Symphony's k" logx="set logscale x" ;;
chunk)
	: "${values:=128k 512k 2m 8m 32m}" "${scenarios:=grid}"
	xlabel="chunk: collective bytes per rank over the ranks of its ring (KiB)" logx= ;;
"") usage ;;
*) die "--param '$param': imbalance, k or chunk" ;;
esac
for opt in "${pass[@]}"; do
	[ "$opt" != "--$param" ] || die "--$param is the swept parameter: give --values"
done
for v in $values; do
	case $param in
	imbalance) [[ $v =~ ^[1-9][0-9]*(\.[0-9]+)?$ ]] || die "--values: '$v' is not a ratio >= 1" ;;
	k) [[ $v =~ ^0?\.[0-9]+$|^1$ ]] || die "--values: '$v' is not a k in (0, 1]" ;;
	chunk) [[ $v =~ ^[1-9][0-9]*[km]?$ ]] || die "--values: '$v' is not bytes, with k or m" ;;
	esac
done
[ -n "$out" ] || out=$top/build/results/sim_symphony_sweep_$param.json
base=${out%.json}
mkdir -p "$(dirname "$out")"

parts=()
[ "$replot" -eq 0 ] || [ -s "$out" ] || die "--replot: no $out"
if [ "$replot" -eq 1 ]; then
	scenarios=$(jq -r '[.points[].scenario] | unique | join(" ")' "$out")
	[ "$(jq -r .param "$out")" = "$param" ] || die "--replot: $out is not a sweep of $param"
fi
[ "$replot" -eq 1 ] || for v in $values; do
	echo "$prog: $param $v" >&2
	"$top/eval/sim_symphony.sh" "${pass[@]}" --scenarios "$scenarios" --seeds "$seeds" \
		--"$param" "$v" --out "$base.$param-$v.json" | sed "s/^/  /" >&2
	parts+=("$base.$param-$v.json")
done

# one entry per value and scenario: the paper's normalised CCT is
# Symphony's median over the baseline's
if [ "$replot" -eq 0 ]; then
jq -s --arg param "$param" --arg values "$values" --arg date "$(date -u +%FT%TZ)" '
  [$values | splits(" +")] as $vs
  | {date: $date, param: $param,
     method: "eval/sim_symphony.sh once per value on the same seeds; normalised CCT = Symphony median CCT / RED+DCQCN median CCT",
     paper: {imbalance: "Fig. 8a: improvement grows with the imbalance, 1.1x to 1.7x",
	     k: "Fig. 8b: a sweet spot at k 1e-3 to 1e-2; worse at k >= 0.1 and k <= 1e-4",
	     chunk: "Fig. 8c: up to about 20% lower CCT at chunks of 512 kB and more; little effect at 128 kB"}[$param],
     testbed: .[0].testbed, workload: .[0].workload, qdisc: .[0].qdisc,
     points: [range(length) as $i | .[$i] as $r | $r.comparison[] as $c
       | ($r.summary | map(select(.scenario == $c.scenario))) as $s
       | ($s | map(select(.marking == "red"))[0]) as $red
       | ($s | map(select(.marking == "symphony"))[0]) as $sym
       | {value: $vs[$i], scenario: $c.scenario, seeds: $red.runs,
	  red_cct_ms: $red.cct_ms.median, symphony_cct_ms: $sym.cct_ms.median,
	  normalised_cct: ($sym.cct_ms.median / $red.cct_ms.median),
	  paired_cct_ratio: $c.paired_cct_ratio, symphony_faster: $c.paired_symphony_faster,
	  pairs: $c.pairs,
	  max_step_overlap_red: $red.max_step_overlap, max_step_overlap_symphony: $sym.max_step_overlap,
	  file: ($base + "." + $param + "-" + $vs[$i] + ".json" | split("/")[-1])}]}' \
	--arg base "$base" "${parts[@]}" >"$out.tmp" && mv "$out.tmp" "$out"
fi

if command -v gnuplot >/dev/null; then
	for s in $scenarios; do
		# value (a number for the axis; chunks in KiB), normalised CCT,
		# paired min, max
		jq -r --arg s "$s" --arg p "$param" '.points[] | select(.scenario == $s)
		  | (.value | ascii_downcase
		     | if test("k$") then (.[:-1] | tonumber)
		       elif test("m$") then (.[:-1] | tonumber) * 1024
		       elif $p == "chunk" then tonumber / 1024 else tonumber end) as $x
		  | "\($x) \(.normalised_cct) \(.paired_cct_ratio.min) \(.paired_cct_ratio.max)"' \
			"$out" >"$base.$s.dat"
	done
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-normalised.png'"
		echo "set xlabel \"$xlabel\""
		echo "set ylabel 'Symphony CCT / baseline CCT (median; bars: paired min..max)'"
		echo "set key top left"
		echo "set format x '%g'"
		echo "set offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05"
		[ "$param" != chunk ] || echo "set logscale x 2"
		echo "$logx"
		echo "set title 'Fig. 8 ($param) in the simulator: below 1, Symphony is faster'"
		printf "plot 1 with lines dt 2 lc rgb 'gray' title 'no change'"
		for s in $scenarios; do
			printf ", '%s' using 1:2:3:4 with yerrorlines lw 2 title '%s'" "$base.$s.dat" "$s"
		done
		echo
	} | gnuplot
	rm -f "$base".*.dat
fi
jq -r '"value\tscenario\tRED ms\tSymphony ms\tnormalised\tpaired (min..max)\tfaster\tmax overlap RED/Symphony",
  (.points[] | "\(.value)\t\(.scenario)\t\(.red_cct_ms | round)\t\(.symphony_cct_ms | round)\t\(.normalised_cct * 1000 | round / 1000)\t\(.paired_cct_ratio.median * 1000 | round / 1000) (\(.paired_cct_ratio.min * 1000 | round / 1000)..\(.paired_cct_ratio.max * 1000 | round / 1000))\t\(.symphony_faster)/\(.pairs)\t\(.max_step_overlap_red.median)/\(.max_step_overlap_symphony.median)")' "$out"
echo "$prog: $out, $base-normalised.png"
