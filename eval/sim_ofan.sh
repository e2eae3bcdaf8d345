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
# PNG plots that CCT increase against P.  With several --k, the paper's
# Figs. 5 and 6 (the CCT increase against the network's size: a -size.png);
# with several --payloads and message sizes in KiB, its Fig. 8 (the CCT
# increase against the packet size, a -packet.png with Thm. 6's optimum).
#
# Usage: eval/sim_ofan.sh [options]           (after "make sim")
#   --k "K ..."        fat-tree arity (default 8: 128 hosts); several: a
#                      -size.png of the CCT increase against the hosts at the
#                      first size (Fig. 5; Fig. 6 with pOfan's variants)
#   --two-level        a two-level fat tree of K-port switches instead (the
#                      paper's Fig. 10): K leaves of K/2 hosts under K/2
#                      spines, K^2/2 hosts (K=64: 2,048)
#   --sizes "M ..."    packets per host and destination (default "64 256 1024
#                      4096"), or a message in KiB ("512k 4096k": as many
#                      packets of the payload as carry it), or (all-to-all)
#                      packets per host over all its destinations ("4096h":
#                      each destination 4096 / (hosts - 1), rounded up: the
#                      paper's Fig. 5(c), a constant per-host size)
#   --pattern P        permutation (default) or all-to-all (every host m
#                      packets to every other: the paper's Figs. 5(b, c), 7(b))
#   --payloads "B ..." payload bytes per packet (default 4096); several, with
#                      sizes in KiB: the paper's Fig. 8, each message also at
#                      Thm. 6's optimum payload sqrt(H D / alpha) (H the
#                      frame's header and gap bytes, alpha 10 packets of
#                      queueing, the paper's), a -packet.png of the CCT over
#                      the best bound of the sweep against the payload
#   --modes "L ..."    load balancing (default "ofan pofan drb jsq ar reps rps rr
#                      ecmp"; 4ofan too, which at k <= 8 is ofan, and Nofan,
#                      pOfan with N ports a pipe (Fig. 6's 1ofan, 2ofan); reps: ECMP
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
payloads=4096
pattern=permutation
alpha=10	# Thm. 6: the queueing of a destination-rotation scheme, in packets
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
	--payloads) payloads=$2 ;;
	--pattern) pattern=$2 ;;
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
ks=$k
k=${ks%% *}
[ "$(wc -w <<<"$ks")" -eq 1 ] || k="${ks// /, }"
[ -z "$two_level" ] && fabric_name="k=$k fat tree" || fabric_name="two-level k=$k fat tree"
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
for kk in $ks; do
	[[ $kk =~ ^([4-9]|[1-9][0-9]+)$ ]] && [ $((kk % 2)) -eq 0 ] || die "--k: '$kk' is not an even arity, 4 or more"
done
case $pattern in permutation|all-to-all) ;; *) die "--pattern '$pattern': permutation or all-to-all" ;; esac
for m in $sizes; do
	[[ $m =~ ^[1-9][0-9]*[kh]?$ ]] || die "--sizes: '$m' is neither a packet count, KiB (512k) nor per host (4096h)"
	[[ $m != *h ]] || [ "$pattern" = all-to-all ] || die "--sizes: '$m' (per host) is for --pattern all-to-all"
done
for b in $payloads; do
	[[ $b =~ ^[1-9][0-9]*$ ]] && [ "$b" -ge 64 ] && [ "$b" -le 65491 ] ||
		die "--payloads: '$b' is not a payload of 64..65491 bytes (IPv4 less the headers)"
done
if [ "$(wc -w <<<"$payloads")" -gt 1 ]; then
	for m in $sizes; do
		[[ $m == *k ]] || die "--payloads: several want every --sizes in KiB (512k), not '$m'"
	done
fi
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

# Thm. 6's optimum payload for a message of D bytes: sqrt(H D / alpha),
# H the data frame's header and gap bytes (--paper-ofan: 62 + 20, the
# paper's 82; else 46 + 0), read off a one-packet run
header_bytes() {
	local f=$work/header.json

	[ -s "$f" ] || "$sim" perm "${paper[@]}" --k 4 --packets 1 --out "$f" >/dev/null ||
		die "$sim perm did not run"
	jq '.perm.data_frame_bytes - .perm.payload_bytes + .perm.ifg_bytes' "$f"
}
fig8=
if [ "$(wc -w <<<"$payloads")" -gt 1 ]; then
	fig8=1
	hdr=$(header_bytes)
fi

# one line per run: k mode m seed failure-probability load payload
for p in $fail_probs; do
	for l in $loads; do
		for kk in $ks; do
			for m in $sizes; do
				pl=$payloads
				[ -z "$fig8" ] || pl+=" $(awk -v h="$hdr" -v d="${m%k}" -v a=$alpha \
					'BEGIN { printf "%d", sqrt(h * d * 1024 / a) + 0.5 }')"
				for b in $(tr ' ' '\n' <<<"$pl" | sort -nu); do
					for mode in $modes; do
						for ((seed = 1; seed <= seeds; seed++)); do
							echo "$kk $mode $m $seed $p $l $b"
						done
					done
				done
			done
		done
	done
done >"$work/plan"
total=$(wc -l <"$work/plan")

run_one() {	# run_one K MODE M SEED P LOAD PAYLOAD: the run's summary line on stdout
	local k=$1
	shift
	local f=$work/$k-$1-$2-$3-$4-$5-$6.json lb=(--lb "$1") packets=$2 bytes=null hosts
	[[ $1 != *+* ]] || lb=(--lb "${1%%+*}" --lb-mix "${1#*+}")
	# a message in KiB: as many packets of the payload as carry it
	[[ $2 != *k ]] || { bytes=$((${2%k} * 1024)); packets=$(((bytes + $6 - 1) / $6)); }
	# all-to-all, per host: spread over the other hosts
	if [[ $2 == *h ]]; then
		[ -z "$two_level" ] && hosts=$((k * k * k / 4)) || hosts=$((k * k / 2))
		packets=$(((${2%h} + hosts - 2) / (hosts - 1)))
	fi
	local topo=(--k "$k")
	[ -z "$two_level" ] || topo=(--topology leafspine --leaves "$k" --spines $((k / 2))
				     --hosts-per-leaf $((k / 2)) --uplink-rate "$rate")
	"$sim" perm "${paper[@]}" "${topo[@]}" --pattern "$pattern" --rate "$rate" --load "$5" --packets "$packets" \
		--mtu "$6" "${lb[@]}" --seed "$3" "${fail_args[@]}" --fail-prob "$4" --out "$f" ||
		echo "$prog: k=$k $1 m=$2 seed $3 fail-prob $4 payload $6 did not complete" >&2
	jq -c --argjson k "$k" --arg mode "$1" --arg m "$2" --argjson packets "$packets" \
		--argjson bytes "$bytes" --argjson seed "$3" --argjson p "$4" --arg load "$5" '
	  .perm.data_frame_bytes as $frame
	  # the wire time of a data frame and its gap at the host rate
	  | (($frame + .perm.ifg_bytes) * 8e9 / .topology.rate_bps) as $frame_ns
	  | {k: $k, hosts: (.hosts | length), mode: $mode,
	     m: (if $m | test("[kh]$") then $m else $packets end), packets: $packets,
	     message_bytes: $bytes, payload: .perm.payload_bytes, frame_bytes: $frame,
	     seed: $seed, fail_prob: $p,
	     load: (if $load == "max" then "max" else ($load | tonumber) end),
	     # Fig. 1: each host link busy with its data over its CCT, mean
	     utilization: ([.hosts[] | select(.cct_ns > 0) | .expected * $frame_ns / .cct_ns] | add / length),
	     failed_links: (.topology.failed_links | length),
	     pace_pct: .perm.load_pct, feasible_rate: .perm.feasible_rate,
	     complete: .sim.complete,
	     max_queue_frames: ([.ports[].max_backlog_bytes] | max / $frame),
	     max_queue_bytes: ([.ports[].max_backlog_bytes] | max),
	     ifg_bytes: .perm.ifg_bytes, rate_bps: .topology.rate_bps,
	     cct_ms: ([.hosts[].cct_ns] | max / 1e6),
	     # the collective: its slowest host over the longest path bound
	     cct_increase: (([.hosts[].cct_ns] | max) / ([.hosts[].lower_bound_ns] | max) - 1),
	     bound_ns: ([.hosts[].lower_bound_ns] | max),
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
while read -r kk mode m seed p l b; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
		n=$((n + 1))
		progress "$n" "$total" "$fabric_name, $pattern"
	done
	run_one "$kk" "$mode" "$m" "$seed" "$p" "$l" "$b" >>"$work/runs.jsonl" &
done <"$work/plan"
wait
progress_done

jq -s --arg ks "$ks" --arg two_level "$two_level" --arg rate "$rate" --arg load "$load" --arg fail "$fail" \
	--arg preset "${paper[*]:+paper-ofan}" --argjson alpha "$alpha" --arg pattern "$pattern" \
	--arg date "$(date -u +%FT%TZ)" '
  def med: sort | .[(length / 2 | floor)];
  def mean: add / length;
  def stat(f): [.[] | f] | {mean: mean,
	sem: (if length < 2 then null else (mean as $u | (map((. - $u) * (. - $u)) | add / (length - 1))
					      | sqrt) / (length | sqrt) end)};
  def list: split(" ") | map(if . == "max" then . else tonumber end) | if length == 1 then .[0] else . end;
  # Fig. 8: per fabric, load and message, the best (smallest) Appendix-A
  # bound over the payloads swept, the CCT increase over it
  (group_by([.k, .fail_prob, (.load | tostring), .m])
   | map((map(.bound_ns) | min) as $best | map(. + {best_bound_ns: $best,
	 cct_increase_best_bound: (.cct_ms * 1e6 / $best - 1)})) | add) as $runs
  | {
    benchmark: "sim_ofan",
    date: $date,
    engine: "sim",
    pattern: $pattern,
    method: "symofan-sim perm: k-ary fat tree of point-to-point links, every host sends m packets (4 KiB payloads unless --payloads) to its partner in the seed derangement (all-to-all: to every other host, round-robin) at the load, each ACKed, no congestion control; largest queue of any switch port in data frames; CCT over the Appendix-A bound (the worst host); cct_increase: the slowest host over the longest path bound - 1; Fig. 8: cct_increase_best_bound, over the smallest bound of the payloads swept",
    fabric: {k: ($ks | list), tiers: (if $two_level == "" then 3 else 2 end),
	     hosts: ($ks | split(" ") | map(tonumber | if $two_level == "" then . * . * . / 4 else . * . / 2 end)
		     | if length == 1 then .[0] else . end), rate: $rate,
	     preset: (if $preset == "" then null else $preset end),
	     load: ($load | list), failed_links: $fail},
    summary: ($runs | group_by([.fail_prob, (.load | tostring), .k, .payload, .mode, .m]) | map({
      mode: .[0].mode, m: .[0].m, k: .[0].k, hosts: .[0].hosts, payload: .[0].payload,
      packets: .[0].packets, message_bytes: .[0].message_bytes,
      fail_prob: .[0].fail_prob, load: .[0].load, runs: length,
      utilization: stat(.utilization),
      cct_increase: stat(.cct_increase),
      cct_increase_best_bound: stat(.cct_increase_best_bound),
      max_queue_bytes: stat(.max_queue_bytes),
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
      | sort_by(.fail_prob, (if .load == "max" then 1e9 else .load end), .k, .payload, .mode, .m)),
    # Thm. 6 (Fig. 8 red dots): per message, the payload that minimises
    # the modelled CCT with alpha packets queued, sqrt(H D / alpha), and
    # the model there: the bound at that payload plus alpha frames of
    # queueing, over the best bound of the sweep
    packet_model: ([$runs[] | select(.message_bytes != null)] | group_by([.k, .m]) | map(
      (.[0].frame_bytes - .[0].payload + .[0].ifg_bytes) as $h
      | (.[0].message_bytes * $h / $alpha | sqrt | round) as $opt
      | (map(select(.payload == $opt)) | .[0]) as $at
      | {k: .[0].k, m: .[0].m, message_bytes: .[0].message_bytes, header_bytes: $h, alpha_packets: $alpha,
	 optimum_payload: $opt,
	 modelled_increase: (if $at == null then null
			     else ($at.bound_ns + $alpha * ($at.frame_bytes + $at.ifg_bytes) * 8e9 / $at.rate_bps)
				  / $at.best_bound_ns - 1 end)})
      | if length == 0 then null else . end),
    runs: $runs
  }' "$work/runs.jsonl" >"$out.tmp" && mv "$out.tmp" "$out"

base=${out%.json}
p0=${fail_probs%% *}
l0=${loads%% *}
k0=${ks%% *}
b0=${payloads%% *}
m0=${sizes%% *}
[ "$l0" = max ] && l0j='"max"' || l0j=$l0
plots="$base-queue.png"
[ "$(wc -w <<<"$fail_probs")" -le 1 ] || plots+=", $base-failures.png"
[ "$(wc -w <<<"$loads")" -le 1 ] || plots+=", $base-load.png"
[ "$(wc -w <<<"$ks")" -le 1 ] || plots+=", $base-size.png"
[ -z "$fig8" ] || plots+=", $base-packet.png"
# plot_modes TAG FILTER [jq options]: a gnuplot "plot" of a line per
# mode, FILTER's "x y" lines for it (jq over $out, $mode bound, and $k0,
# $b0 the first fabric and payload), kept in $base.MODE.TAG.dat; then
# $plot_extra, if set
plot_modes() {
	local tag=$1 filter=$2 sep= mode

	shift 2
	printf "plot "
	for mode in $modes; do
		jq -r --arg mode "$mode" --argjson k0 "$k0" --argjson b0 "$b0" "$@" "$filter" "$out" \
			>"$base.$mode.$tag.dat"
		printf "%s'%s' using 1:2 with linespoints lw 2 title '%s'" "$sep" "$base.$mode.$tag.dat" "$mode"
		sep=", "
	done
	echo "${plot_extra:-}"
}
if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-queue.png'"
		echo "set title 'Largest switch queue, $pattern on a $fabric_name (median over seeds, fail-prob $p0)'"
		echo "set xlabel 'packets per host and destination (m)'"
		echo "set ylabel 'largest queue (4 KiB frames)'"
		echo "set logscale xy"
		echo "set key top left"
		plot_modes queue '.summary[] | select(.mode == $mode and .fail_prob == $p and .load == $l and
						   .k == $k0 and .payload == $b0)
			  | "\(.packets) \([.max_queue_frames.median, 0.1] | max)"' --argjson p "$p0" --argjson l "$l0j"
		# Fig. 9: the CCT increase over the failure-free line-rate bound
		# against the failure probability, at the largest m
		if [ "$(wc -w <<<"$fail_probs")" -gt 1 ]; then
			mmax=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
			echo "set output '$base-failures.png'"
			echo "unset logscale"
			echo "set title 'CCT increase with random link failures, $fabric_name, m = $mmax (mean over seeds)'"
			echo "set xlabel 'probability of each switch link failing'"
			echo "set ylabel 'CCT over the bound without failures - 1 (%)'"
			plot_modes fail '.summary[] | select(.mode == $mode and (.m | tostring) == $m and .load == $l and
						      .k == $k0 and .payload == $b0)
				  | "\(.fail_prob) \((.cct_over_full_rate_bound.mean - 1) * 100)"' \
				--arg m "$mmax" --argjson l "$l0j"
		fi
		# Fig. 1: the largest queue and the utilization against the
		# load, at the largest m
		if [ "$(wc -w <<<"$loads")" -gt 1 ]; then
			mmax=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
			echo "set output '$base-load.png'"
			echo "set terminal pngcairo size 1200,500 noenhanced"
			echo "unset title"
			echo "set multiplot layout 1,2 title '$pattern on a $fabric_name, m = $mmax, no congestion control (mean over seeds)'"
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
				plot_modes "load-$what" '.summary[] | select(.mode == $mode and (.m | tostring) == $m and
									   .fail_prob == $p and .k == $k0 and .payload == $b0)
					  | "\(.load) \(if $what == "queue" then [.max_queue_frames.median, 0.1] | max
						      else .utilization.mean * 100 end)"' \
					--arg m "$mmax" --argjson p "$p0" --arg what "$what"
			done
			echo "unset multiplot"
		fi
		# Figs. 5 and 6: the CCT increase against the hosts, at the
		# first size
		if [ "$(wc -w <<<"$ks")" -gt 1 ]; then
			echo "set output '$base-size.png'"
			echo "set terminal pngcairo size 800,500 noenhanced"
			echo "unset logscale"
			echo "set logscale x 2"
			echo "set title 'CCT increase against the network size, $pattern, m = $m0 (mean over seeds)'"
			echo "set xlabel 'hosts'"
			echo "set ylabel 'CCT over the bound - 1 (%)'"
			echo "set key top left"
			plot_modes size '.summary[] | select(.mode == $mode and (.m | tostring) == $m and
							  .fail_prob == $p and .load == $l and .payload == $b0)
				  | "\(.hosts) \(.cct_increase.mean * 100)"' \
				--arg m "$m0" --argjson p "$p0" --argjson l "$l0j"
		fi
		# Fig. 8: the CCT increase over the sweep's best bound against
		# the payload, a panel per message, Thm. 6's optimum in red
		if [ -n "$fig8" ]; then
			echo "set output '$base-packet.png'"
			echo "set terminal pngcairo size $((500 * $(wc -w <<<"$sizes") + 100)),500 noenhanced"
			echo "unset title"
			echo "set multiplot layout 1,$(wc -w <<<"$sizes") title 'CCT increase against the packet size, $fabric_name (mean over seeds; red: Thm. 6, alpha = $alpha)'"
			for m in $sizes; do
				echo "unset logscale"
				echo "set logscale x 2"
				echo "set title '$m message'"
				echo "set xlabel 'payload (bytes)'"
				echo "set ylabel 'CCT over the best bound - 1 (%)'"
				echo "set key top left"
				jq -r --arg m "$m" --argjson k0 "$k0" '.packet_model[]? | select(.m == $m and .k == $k0)
				  | "\(.optimum_payload) \((.modelled_increase // 0) * 100)"' "$out" >"$base.model.$m.dat"
				plot_extra=", '$base.model.$m.dat' using 1:2 with points pt 7 ps 2 lc rgb 'red' title 'model'" \
				plot_modes "packet-$m" '.summary[] | select(.mode == $mode and .m == $m and .k == $k0 and
									 .fail_prob == $p and .load == $l)
					  | "\(.payload) \(.cct_increase_best_bound.mean * 100)"' \
					--arg m "$m" --argjson p "$p0" --argjson l "$l0j"
			done
			echo "unset multiplot"
		fi
	} | gnuplot
	rm -f "$base".*.dat
fi
jq -r '"mode    k   payload  m      fail-prob  load  utilization %  failed links  pace %  largest queue, frames: median (max)   CCT / bound: median (max)   CCT / bound without failures: mean   lost",
  (.summary[] | "\(.mode)\t\(.k)\t\(.payload)\t\(.m)\t\(.fail_prob)\t\(.load)\t\(.utilization.mean * 1000 | round / 10)\t\(.failed_links * 10 | round / 10)\t\(.pace_pct * 10 | round / 10)\t\(.max_queue_frames.median * 10 | round / 10) (\(.max_queue_frames.max * 10 | round / 10))\t\(.cct_over_bound.median * 1000 | round / 1000) (\(.cct_over_bound.max * 1000 | round / 1000))\t\(.cct_over_full_rate_bound.mean * 1000 | round / 1000)\t\(.lost)")' "$out"
echo "$prog: $out, $plots"
