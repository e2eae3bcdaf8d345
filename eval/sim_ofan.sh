#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_ofan.sh - the Ofan paper's Fig. 7 in the ns-3 simulator: the
# permutation collective on a k-ary fat tree (every host sends m packets
# of 4 KiB to its partner in the seed's derangement, each ACKed), every
# load-balancing mode on the same seeds and sizes; the largest queue of
# any switch port in 4 KiB frames (Ofan bounded, rps growing like
# sqrt(m), rr and ECMP like m) and the CCT over the Appendix-A bound.
# Writes JSON (every run; per mode and m the medians and maxima over the
# seeds) and a gnuplot PNG of the largest queue against m.  With
# --fail-prob, the paper's Fig. 9: every seed draws its own failed links
# (each switch link down with probability P), hosts pace at the highest
# rate the live links carry (--load max), and the CCT is compared with
# the bound of the fabric without failures at the line rate; a second
# PNG plots that CCT increase against P.
#
# Usage: eval/sim_ofan.sh [options]           (after "make sim")
#   --k K              fat-tree arity (default 8: 128 hosts)
#   --two-level        a two-level fat tree of K-port switches instead (the
#                      paper's Fig. 10): K leaves of K/2 hosts under K/2
#                      spines, K^2/2 hosts (K=64: 2,048)
#   --sizes "M ..."    packets per host (default "64 256 1024 4096")
#   --modes "L ..."    load balancing (default "ofan pofan drb jsq ar reps rps rr
#                      ecmp"; 4ofan too, which at k <= 8 is ofan; reps: ECMP
#                      switches under the hosts' REPS, ECN at 80 KB; drb:
#                      the hosts' destination rotation, switches following;
#                      A+B@WHERE: --lb A with --lb-mix B@WHERE, the paper's
#                      Fig. 11, e.g. 4ofan+ar@edge)
#   --seeds N          seeds per mode and size (default 3)
#   --rate RATE        every link (default 100gbit)
#   --load "PCT ..."|max  each host's pace, % of the rate (default 100; with
#                      --fail-prob: max, the highest the live links carry
#                      when switches split traffic evenly); several loads:
#                      the paper's Fig. 1, a third PNG (-load.png) of the
#                      largest queue and the hosts' link utilization against
#                      the load at the largest m
#   --fail "L ..."     failed switch links, by number (default none)
#   --fail-prob "P ..."  each switch link down with probability P, drawn
#                      per seed (default 0: none)
#   --jobs N           runs at once (default: the cores)
#   --paper-ofan       the Ofan paper's settings (symofan-sim's --paper-ofan:
#                      800 Gbit/s, 0.5 us links, 4,158-byte frames and a
#                      20-byte gap, time in ps); --k defaults to 12 (432
#                      hosts), --rate to 800gbit; given, they override
#   --out FILE         JSON (default build/results/sim_ofan.json); the
#                      plot next to it (FILE without .json, -queue.png)
# Environment: SYMOFAN_SIM, the simulator (default build/symofan-sim)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
prog=sim_ofan.sh
k=8
sizes="64 256 1024 4096"
modes="ofan pofan drb jsq ar reps rps rr ecmp"
seeds=3
rate=100gbit
load=
fail=
fail_probs=0
jobs=$(nproc)
out=$top/build/results/sim_ofan.json
paper=()
k_set=
two_level=
rate_set=

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--paper-ofan) paper=(--paper-ofan); shift; continue ;;
	--two-level) two_level=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--k) k=$2; k_set=1 ;;
	--sizes) sizes=$2 ;;
	--modes) modes=$2 ;;
	--seeds) seeds=$2 ;;
	--rate) rate=$2; rate_set=1 ;;
	--load) load=$2 ;;
	--fail) fail=$2 ;;
	--fail-prob) fail_probs=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
if [ ${#paper[@]} -gt 0 ]; then
	[ -n "$k_set" ] || k=12
	[ -n "$rate_set" ] || rate=800gbit
fi
sim=${SYMOFAN_SIM:-$top/build/symofan-sim}
[ -z "$two_level" ] || [ ${#paper[@]} -eq 0 ] || die "--two-level: --paper-ofan runs a three-tier fat tree"
[ -z "$two_level" ] && fabric_name="k=$k fat tree" || fabric_name="two-level k=$k fat tree"
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
for m in $sizes; do [[ $m =~ ^[1-9][0-9]*$ ]] || die "--sizes: '$m' is not a packet count"; done
for p in $fail_probs; do
	[[ $p =~ ^0?(\.[0-9]+)?$|^0$ ]] && [ -n "$p" ] || die "--fail-prob: '$p' is not a probability below 1"
done
# failures draw their own links: pace at what the live links carry
[ -n "$load" ] || { [ "$fail_probs" = 0 ] && load=100 || load=max; }
for l in $load; do
	[[ $l =~ ^([1-9][0-9]?|100|max)$ ]] || die "--load '$l': 1..100 or max"
done
[ "$(wc -w <<<"$load")" -eq 1 ] || [[ $load != *max* ]] || die "--load max goes alone"
loads=$load
fail_args=()
for l in $fail; do fail_args+=(--fail "$l"); done

work=$(mktemp -d /tmp/sim_ofan.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"

# one line per run: mode m seed failure-probability load
for p in $fail_probs; do
	for l in $loads; do
		for m in $sizes; do
			for mode in $modes; do
				for ((seed = 1; seed <= seeds; seed++)); do
					echo "$mode $m $seed $p $l"
				done
			done
		done
	done
done >"$work/plan"
total=$(wc -l <"$work/plan")

run_one() {	# run_one MODE M SEED P LOAD: the run's summary line on stdout
	local f=$work/$1-$2-$3-$4-$5.json lb=(--lb "$1")
	[[ $1 != *+* ]] || lb=(--lb "${1%%+*}" --lb-mix "${1#*+}")
	local topo=(--k "$k")
	[ -z "$two_level" ] || topo=(--topology leafspine --leaves "$k" --spines $((k / 2))
				     --hosts-per-leaf $((k / 2)) --uplink-rate "$rate")
	"$sim" perm "${paper[@]}" "${topo[@]}" --rate "$rate" --load "$5" --packets "$2" "${lb[@]}" \
		--seed "$3" "${fail_args[@]}" --fail-prob "$4" --out "$f" ||
		echo "$prog: $1 m=$2 seed $3 fail-prob $4 did not complete" >&2
	jq -c --arg mode "$1" --argjson m "$2" --argjson seed "$3" --argjson p "$4" --arg load "$5" '
	  (4096 + 52) as $frame
	  # the wire time of a data frame and its gap at the host rate
	  | ((if .paper_ofan then .paper_ofan.frame_bytes + .paper_ofan.ifg_bytes else 4142 end)
	     * 8e9 / .topology.rate_bps) as $frame_ns
	  | {mode: $mode, m: $m, seed: $seed, fail_prob: $p,
	     load: (if $load == "max" then "max" else ($load | tonumber) end),
	     # Fig. 1: each host link busy with its data over its CCT, mean
	     utilization: ([.hosts[] | select(.cct_ns > 0) | .expected * $frame_ns / .cct_ns] | add / length),
	     failed_links: (.topology.failed_links | length),
	     pace_pct: .perm.load_pct, feasible_rate: .perm.feasible_rate,
	     complete: .sim.complete,
	     max_queue_frames: ([.ports[].max_backlog_bytes] | max / $frame),
	     cct_ms: ([.hosts[].cct_ns] | max / 1e6),
	     cct_over_bound: ([.hosts[].cct_over_bound] | max),
	     cct_over_bound_median: ([.hosts[].cct_over_bound] | sort | .[length / 2 | floor]),
	     # Fig. 9: over the bound without failures, at the line rate
	     cct_over_full_rate_bound: (([.hosts[].cct_ns] | max) / ([.hosts[].lower_bound_full_rate_ns] | max)),
	     lost: ([.hosts[].lost] | add), reordered: ([.hosts[].reordered] | add),
	     drops: ([.ports[].limit_drops] | add),
	     events: .sim.events, wall_s: .sim.wall_s}' "$f"
	rm -f "$f"
}
progress_start "$prog"
n=0
: >"$work/runs.jsonl"
while read -r mode m seed p l; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
		n=$((n + 1))
		progress "$n" "$total" "$fabric_name, permutations"
	done
	run_one "$mode" "$m" "$seed" "$p" "$l" >>"$work/runs.jsonl" &
done <"$work/plan"
wait
progress_done

jq -s --arg k "$k" --arg two_level "$two_level" --arg rate "$rate" --arg load "$load" --arg fail "$fail" \
	--arg preset "${paper[*]:+paper-ofan}" \
	--arg date "$(date -u +%FT%TZ)" '
  def med: sort | .[(length / 2 | floor)];
  {
    benchmark: "sim_ofan",
    date: $date,
    engine: "sim",
    method: "symofan-sim perm: k-ary fat tree of point-to-point links, every host sends m 4 KiB packets to its partner in the seed derangement at the load, each ACKed, no congestion control; largest queue of any switch port in frames of 4148 bytes; CCT over the Appendix-A bound (the worst host)",
    fabric: {k: ($k | tonumber), tiers: (if $two_level == "" then 3 else 2 end),
	     hosts: (($k | tonumber) | if $two_level == "" then . * . * . / 4 else . * . / 2 end), rate: $rate,
	     preset: (if $preset == "" then null else $preset end),
	     load: ($load | split(" ") | map(if . == "max" then . else tonumber end)
		    | if length == 1 then .[0] else . end), failed_links: $fail},
    summary: (group_by([.fail_prob, (.load | tostring), .mode, .m]) | map({
      mode: .[0].mode, m: .[0].m, fail_prob: .[0].fail_prob, load: .[0].load, runs: length,
      utilization: {mean: ([.[].utilization] | add / length),
		    sem: (if length < 2 then null else ([.[].utilization] | (add / length) as $u
			  | (map((. - $u) * (. - $u)) | add / (length - 1)) | sqrt) / (length | sqrt) end)},
      complete: ([.[].complete] | all),
      failed_links: ([.[].failed_links] | add / length),
      pace_pct: ([.[].pace_pct] | add / length),
      max_queue_frames: {median: ([.[].max_queue_frames] | med), max: ([.[].max_queue_frames] | max)},
      cct_over_bound: {median: ([.[].cct_over_bound] | med), max: ([.[].cct_over_bound] | max)},
      # the paper averages the CCT over topology instances
      cct_over_full_rate_bound: {mean: ([.[].cct_over_full_rate_bound] | add / length),
				 median: ([.[].cct_over_full_rate_bound] | med)},
      lost: ([.[].lost] | add), reordered: ([.[].reordered] | med),
      events_per_s: ([.[] | .events / .wall_s] | med | round)})
      | sort_by(.fail_prob, (if .load == "max" then 1e9 else .load end), .mode, .m)),
    runs: .
  }' "$work/runs.jsonl" >"$out.tmp" && mv "$out.tmp" "$out"

base=${out%.json}
p0=${fail_probs%% *}
l0=${loads%% *}
[ "$l0" = max ] && l0j='"max"' || l0j=$l0
plots="$base-queue.png"
[ "$(wc -w <<<"$fail_probs")" -le 1 ] || plots+=", $base-failures.png"
[ "$(wc -w <<<"$loads")" -le 1 ] || plots+=", $base-load.png"
# plot_modes TAG FILTER [jq options]: a gnuplot "plot" of a line per
# mode, FILTER's "x y" lines for it (jq over $out, $mode bound), kept in
# $base.MODE.TAG.dat
plot_modes() {
	local tag=$1 filter=$2 sep= mode

	shift 2
	printf "plot "
	for mode in $modes; do
		jq -r --arg mode "$mode" "$@" "$filter" "$out" >"$base.$mode.$tag.dat"
		printf "%s'%s' using 1:2 with linespoints lw 2 title '%s'" "$sep" "$base.$mode.$tag.dat" "$mode"
		sep=", "
	done
	echo
}
if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-queue.png'"
		echo "set title 'Largest switch queue, permutation on a $fabric_name (median over seeds, fail-prob $p0)'"
		echo "set xlabel 'packets per host (m)'"
		echo "set ylabel 'largest queue (4 KiB frames)'"
		echo "set logscale xy"
		echo "set key top left"
		plot_modes queue '.summary[] | select(.mode == $mode and .fail_prob == $p and .load == $l)
			  | "\(.m) \([.max_queue_frames.median, 0.1] | max)"' --argjson p "$p0" --argjson l "$l0j"
		# Fig. 9: the CCT increase over the failure-free line-rate bound
		# against the failure probability, at the largest m
		if [ "$(wc -w <<<"$fail_probs")" -gt 1 ]; then
			mmax=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
			echo "set output '$base-failures.png'"
			echo "unset logscale"
			echo "set title 'CCT increase with random link failures, $fabric_name, m = $mmax (mean over seeds)'"
			echo "set xlabel 'probability of each switch link failing'"
			echo "set ylabel 'CCT over the bound without failures - 1 (%)'"
			plot_modes fail '.summary[] | select(.mode == $mode and .m == $m and .load == $l)
				  | "\(.fail_prob) \((.cct_over_full_rate_bound.mean - 1) * 100)"' \
				--argjson m "$mmax" --argjson l "$l0j"
		fi
		# Fig. 1: the largest queue and the utilization against the
		# load, at the largest m
		if [ "$(wc -w <<<"$loads")" -gt 1 ]; then
			mmax=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
			echo "set output '$base-load.png'"
			echo "set terminal pngcairo size 1200,500 noenhanced"
			echo "unset title"
			echo "set multiplot layout 1,2 title 'Permutation on a $fabric_name, m = $mmax, no congestion control (mean over seeds)'"
			for what in queue util; do
				echo "unset logscale"
				echo "set xlabel 'load (% of the line rate)'"
				if [ $what = queue ]; then
					echo "set ylabel 'largest queue (frames)'"
					echo "set logscale y"
				else
					echo "set ylabel 'host link utilization (%)'"
				fi
				echo "set key top left"
				plot_modes "load-$what" '.summary[] | select(.mode == $mode and .m == $m and .fail_prob == $p)
					  | "\(.load) \(if $what == "queue" then [.max_queue_frames.median, 0.1] | max
						      else .utilization.mean * 100 end)"' \
					--argjson m "$mmax" --argjson p "$p0" --arg what "$what"
			done
			echo "unset multiplot"
		fi
	} | gnuplot
	rm -f "$base".*.dat
fi
jq -r '"mode    m      fail-prob  load  utilization %  failed links  pace %  largest queue, frames: median (max)   CCT / bound: median (max)   CCT / bound without failures: mean   lost",
  (.summary[] | "\(.mode)\t\(.m)\t\(.fail_prob)\t\(.load)\t\(.utilization.mean * 1000 | round / 10)\t\(.failed_links * 10 | round / 10)\t\(.pace_pct * 10 | round / 10)\t\(.max_queue_frames.median * 10 | round / 10) (\(.max_queue_frames.max * 10 | round / 10))\t\(.cct_over_bound.median * 1000 | round / 1000) (\(.cct_over_bound.max * 1000 | round / 1000))\t\(.cct_over_full_rate_bound.mean * 1000 | round / 1000)\t\(.lost)")' "$out"
echo "$prog: $out, $plots"
