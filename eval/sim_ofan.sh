#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_ofan.sh - the Ofan paper's Fig. 7 in the ns-3 simulator: the
# permutation collective on a k-ary fat tree (every host sends m packets
# of 4 KiB to its partner in the seed's derangement, each ACKed), every
# load-balancing mode on the same seeds and sizes; the largest queue of
# any switch port in 4 KiB frames (Ofan bounded, rps growing like
# sqrt(m), rr and ECMP like m) and the CCT over the Appendix-A bound.
# Writes JSON (every run; per mode and m the medians and maxima over the
# seeds) and a gnuplot PNG of the largest queue against m.
#
# Usage: eval/sim_ofan.sh [options]           (after "make sim")
#   --k K              fat-tree arity (default 8: 128 hosts)
#   --sizes "M ..."    packets per host (default "64 256 1024 4096")
#   --modes "L ..."    load balancing (default "ofan pofan rps rr ecmp")
#   --seeds N          seeds per mode and size (default 3)
#   --rate RATE        every link (default 100gbit)
#   --load PCT         each host's pace, % of the rate (default 100)
#   --fail "L ..."     failed switch links, by number (default none)
#   --jobs N           runs at once (default: the cores)
#   --out FILE         JSON (default build/results/sim_ofan.json); the
#                      plot next to it (FILE without .json, -queue.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
prog=sim_ofan.sh
k=8
sizes="64 256 1024 4096"
modes="ofan pofan rps rr ecmp"
seeds=3
rate=100gbit
load=100
fail=
jobs=$(nproc)
out=$top/build/results/sim_ofan.json

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '13,23s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--k) k=$2 ;;
	--sizes) sizes=$2 ;;
	--modes) modes=$2 ;;
	--seeds) seeds=$2 ;;
	--rate) rate=$2 ;;
	--load) load=$2 ;;
	--fail) fail=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
sim=$top/build/symofan-sim
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
for m in $sizes; do [[ $m =~ ^[1-9][0-9]*$ ]] || die "--sizes: '$m' is not a packet count"; done
fail_args=()
for l in $fail; do fail_args+=(--fail "$l"); done

work=$(mktemp -d /tmp/sim_ofan.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"

# one line per run: mode m seed
for m in $sizes; do
	for mode in $modes; do
		for ((seed = 1; seed <= seeds; seed++)); do
			echo "$mode $m $seed"
		done
	done
done >"$work/plan"
total=$(wc -l <"$work/plan")

run_one() {	# run_one MODE M SEED: the run's summary line on stdout
	local f=$work/$1-$2-$3.json
	"$sim" perm --k "$k" --rate "$rate" --load "$load" --packets "$2" --lb "$1" \
		--seed "$3" "${fail_args[@]}" --out "$f" || echo "$prog: $1 m=$2 seed $3 did not complete" >&2
	jq -c --arg mode "$1" --argjson m "$2" --argjson seed "$3" '
	  (4096 + 52) as $frame
	  | {mode: $mode, m: $m, seed: $seed, complete: .sim.complete,
	     max_queue_frames: ([.ports[].max_backlog_bytes] | max / $frame),
	     cct_ms: ([.hosts[].cct_ns] | max / 1e6),
	     cct_over_bound: ([.hosts[].cct_over_bound] | max),
	     cct_over_bound_median: ([.hosts[].cct_over_bound] | sort | .[length / 2 | floor]),
	     lost: ([.hosts[].lost] | add), reordered: ([.hosts[].reordered] | add),
	     drops: ([.ports[].limit_drops] | add),
	     events: .sim.events, wall_s: .sim.wall_s}' "$f"
	rm -f "$f"
}
progress_start "$prog"
n=0
: >"$work/runs.jsonl"
while read -r mode m seed; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
		n=$((n + 1))
		progress "$n" "$total" "k=$k permutations"
	done
	run_one "$mode" "$m" "$seed" >>"$work/runs.jsonl" &
done <"$work/plan"
wait
progress_done

jq -s --arg k "$k" --arg rate "$rate" --argjson load "$load" --arg fail "$fail" \
	--arg date "$(date -u +%FT%TZ)" '
  def med: sort | .[(length / 2 | floor)];
  {
    benchmark: "sim_ofan",
    date: $date,
    engine: "sim",
    method: "symofan-sim perm: k-ary fat tree of point-to-point links, every host sends m 4 KiB packets to its partner in the seed derangement at the load, each ACKed, no congestion control; largest queue of any switch port in frames of 4148 bytes; CCT over the Appendix-A bound (the worst host)",
    fabric: {k: ($k | tonumber), hosts: (($k | tonumber) | . * . * . / 4), rate: $rate, load_pct: $load,
	     failed_links: $fail},
    summary: (group_by([.mode, .m]) | map({
      mode: .[0].mode, m: .[0].m, runs: length, complete: ([.[].complete] | all),
      max_queue_frames: {median: ([.[].max_queue_frames] | med), max: ([.[].max_queue_frames] | max)},
      cct_over_bound: {median: ([.[].cct_over_bound] | med), max: ([.[].cct_over_bound] | max)},
      lost: ([.[].lost] | add), reordered: ([.[].reordered] | med),
      events_per_s: ([.[] | .events / .wall_s] | med | round)})
      | sort_by(.mode, .m)),
    runs: .
  }' "$work/runs.jsonl" >"$out.tmp" && mv "$out.tmp" "$out"

base=${out%.json}
if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-queue.png'"
		echo "set title 'Largest switch queue, permutation on a k=$k fat tree (median over seeds)'"
		echo "set xlabel 'packets per host (m)'"
		echo "set ylabel 'largest queue (4 KiB frames)'"
		echo "set logscale xy"
		echo "set key top left"
		printf "plot "
		sep=
		for mode in $modes; do
			jq -r --arg mode "$mode" '.summary[] | select(.mode == $mode)
			  | "\(.m) \([.max_queue_frames.median, 0.1] | max)"' "$out" >"$work/$mode.dat"
			cp "$work/$mode.dat" "$base.$mode.dat"
			printf "%s'%s' using 1:2 with linespoints lw 2 title '%s'" "$sep" "$base.$mode.dat" "$mode"
			sep=", "
		done
		echo
	} | gnuplot
	rm -f "$base".*.dat
fi
jq -r '"mode    m      largest queue, frames: median (max)   CCT / bound: median (max)   lost",
  (.summary[] | "\(.mode)\t\(.m)\t\(.max_queue_frames.median * 10 | round / 10) (\(.max_queue_frames.max * 10 | round / 10))\t\(.cct_over_bound.median * 1000 | round / 1000) (\(.cct_over_bound.max * 1000 | round / 1000))\t\(.lost)")' "$out"
echo "$prog: $out, $base-queue.png"
