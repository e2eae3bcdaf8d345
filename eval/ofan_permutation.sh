#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ofan_permutation.sh - the Ofan paper's comparison on this datapath: a
# k=4 fat tree of network namespaces on the host kernel, fixed-rate
# permutation traffic (permsend, one ACK per packet) at a chosen load,
# for each load-balancing mode of the same tc-BPF program (ofan, pofan,
# rr, rps, ecmp, and the paper's comparators: ar, switch adaptive routing
# on quantized phantom backlogs, jsq, the shortest phantom backlog, and
# reps, UEC's host-based REPS: the switches in ecmp, each permsend
# choosing its packets' source ports with --reps), message size and seed:
# the CCT increase over the
# Appendix-A lower bound and the maximum queueing, from per-packet
# one-way delays (the namespaces share one clock, the kernel stamps each
# arrival), optionally with failed uplinks.  Every run carries its guard
# (tc-scripts/permrun.sh): a run whose senders fell behind their schedule
# is run again, up to --guard-retries times, and one still untrustworthy
# is kept but flagged, in its point's summary too.  Writes JSON (every
# run, and medians with spreads per mode and size) and gnuplot PNGs of
# queue and CCT increase against message size.
#
# Usage: eval/ofan_permutation.sh [options]        (as root, after "make")
#   --sizes "M ..."     message sizes in packets (default "64 256 1024 4096")
#   --modes "MODE ..."  (default "ofan pofan rr rps ecmp ar jsq reps")
#   --ecn-bytes B       with reps among the modes: every switch port marks
#                       CE above B bytes of backlog (RED on a phantom queue
#                       at the link rate, tc-BPF; for every mode, so that
#                       all run alike), the Ofan paper's 10% of its 800 KB
#                       buffer (default 80000; 0: no marking)
#   --seeds N           seeded permutations per point (default 10)
#   --load PCT          offered load (default 90: each host's link also
#                       carries the ACKs of the flow it receives, 6% more
#                       bytes, so 100% over-subscribes every host link
#                       whatever the load balancer does)
#   --rate RATE         link rate (default 20mbit), or "auto": the rate
#                       eval/calibrate.sh finds this machine sustains
#   --guard-retries N   runs again a run the guard flags, up to N times
#                       (default 2)
#   --fail N            links to fail, 0..2 (default 0): 1 takes e0-0's up1
#                       (to a0-1) down, 2 also a1-0's up1 (to core c1); the
#                       switches whose paths to the cut-off destinations
#                       crossed the link route around it (see fail_link)
#   --out FILE          JSON (default build/results/ofan_permutation.json); plots
#                       next to it (FILE without .json, -queue.png, -cct.png)
#   --prefix NAME       testbed prefix (default ofev)
#   --pipe-ports N      downlinks per pOfan pipe (default 1: a pipe per
#                       downlink; a k=4 switch has two, see ofan-fattree.sh)
#   --replot            no runs: summarise and plot the runs already in --out
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
fattree=$top/tc-scripts/fattree.sh
ofan=$top/tc-scripts/ofan-fattree.sh
permrun=$top/tc-scripts/permrun.sh
sizes="64 256 1024 4096"
modes="ofan pofan rr rps ecmp ar jsq reps"
ecn_bytes=80000
seeds=10
load=90
rate=20mbit
fail=0
out=$top/build/results/ofan_permutation.json
prefix=ofev
pipe_ports=1
replot=0
guard_retries=2
calibration=null

die() { echo "ofan_permutation.sh: $*" >&2; exit 1; }
usage() { sed -n '21,47s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	if [ "$1" = --replot ]; then
		replot=1
		shift
		continue
	fi
	[ $# -ge 2 ] || usage
	case "$1" in
	--sizes) sizes=$2 ;;
	--modes) modes=$2 ;;
	--seeds) seeds=$2 ;;
	--pipe-ports) pipe_ports=$2 ;;
	--load) load=$2 ;;
	--rate) rate=$2 ;;
	--guard-retries) guard_retries=$2 ;;
	--fail) fail=$2 ;;
	--ecn-bytes) ecn_bytes=$2 ;;
	--out) out=$2 ;;
	--prefix) prefix=$2 ;;
	*) usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds wants a count"
[[ $fail =~ ^[0-2]$ ]] || die "--fail wants 0, 1 or 2"
[[ $guard_retries =~ ^[0-9]+$ ]] || die "--guard-retries wants a count"
[[ $ecn_bytes =~ ^[0-9]+$ ]] || die "--ecn-bytes wants a number of bytes"
for mode in $modes; do
	[[ $mode =~ ^(ofan|pofan|rr|rps|ecmp|ar|jsq|reps)$ ]] ||
		die "unknown mode '$mode' (ofan pofan rr rps ecmp ar jsq reps)"
done
# CE marking at the switch ports: for REPS, whose hosts read it
[[ " $modes " == *" reps "* ]] || ecn_bytes=0
[ "$(id -u)" -eq 0 ] || die "must run as root"
[ -x "$top/build/permsend" ] || die "run 'make' first"

# symofan inside switch $1's namespace, on that switch's pins
symofan_at() {
	local sw=$1
	shift
	"$fattree" exec --prefix "$prefix" "$sw" "$top/build/symofan" "$@" \
		--pin-dir "/sys/fs/bpf/ofan-$prefix-$sw"
}

# mark_ecn: every port of every switch marks CE-capable packets above
# $ecn_bytes of backlog, Symphony's tc-BPF on their egress running RED
# only on a phantom queue drained at the link rate (kmin = kmax: a step,
# as REPS's evaluation marks); packets that are not ECT (the ACKs) pass
mark_ecn() {
	local sw ns dev pins
	for sw in $("$fattree" info --prefix "$prefix" --json | jq -r '.switches[].name'); do
		pins=/sys/fs/bpf/symofan-$prefix-$sw
		ns=$prefix-$sw
		"$top/build/symofan" job init --pin-dir "$pins-jobs" >/dev/null
		for dev in $(ip -n "$ns" -o link show | awk -F'[ :@]+' '$2 ~ /^(up|dn)[0-9]+$/ { print $2 }'); do
			nsenter --net="/run/netns/$ns" "$top/build/symofan" symphony attach "$dev" \
				rate "$rate" kmin "$ecn_bytes" kmax "$ecn_bytes" pmax 1 nonect pass \
				marking red --registry "$pins-jobs" --pin-dir "$pins-bpf" >/dev/null
		done
	done
}

# fail_link SWITCH J: take uplink J of SWITCH down, as a routing protocol
# would see it.  The destinations below SWITCH (its /24 at an edge
# switch, its pod's prefixes at an aggregation switch) are now reachable
# through uplink J of no switch at SWITCH's level: every path down to
# them through the J-th upper switch of a pod (edge) or the J-th core
# of that group (aggregation) crosses the cut link.  So each other
# switch of that level that has an uplink J (every other edge switch;
# the aggregation switches of SWITCH's index in the other pods) routes
# those prefixes over its other uplinks, and "symofan daemon --once"
# (here and at SWITCH, whose link is down) makes Ofan's up ports and
# valid ports follow the kernel's links and routes.
fail_link() {
	local sw=$1 j=$2 info nets peers peer prefix_net nh key
	info=$("$fattree" info --prefix "$prefix" --json)
	# the cut-off destinations' key: SWITCH's edge key, or its pod
	key=$(jq -r --arg s "$sw" '.switches[] | select(.name == $s)
	  | if .role == "edge" then .edge_key else .pod end' <<<"$info")
	"$fattree" exec --prefix "$prefix" "$sw" ip link set "up$j" down
	nets=$(jq -r --arg s "$sw" '
	  (.switches[] | select(.name == $s)) as $me
	  | if $me.role == "edge" then
		.hosts[] | select(.switch == $s) | .addr | split(".") | .[0:3] | join(".") + ".0/24"
	    else
		.pod_nets[] | select(.pod == $me.pod) | .prefixes[]
	    end' <<<"$info" | sort -u)
	peers=$(jq -r --arg s "$sw" '
	  (.switches[] | select(.name == $s)) as $me
	  | .switches[] | select(.role == $me.role and .name != $s)
	  | select($me.role == "edge" or (.name | split("-")[1]) == ($me.name | split("-")[1]))
	  | .name' <<<"$info")
	for peer in $peers; do
		nh=$(jq -r --arg s "$peer" --argjson j "$j" '
		  .switches[] | select(.name == $s) | [.ports[]
		  | select(.role == "uplink" and .index != $j)
		  | "nexthop via \(.next_hop) dev \(.ifname)"] | join(" ")' <<<"$info")
		[ -n "$nh" ] || die "$peer has no uplink besides up$j"
		for prefix_net in $nets; do
			# shellcheck disable=SC2086 # one word per nexthop field
			"$fattree" exec --prefix "$prefix" "$peer" \
				ip route replace "$prefix_net" $nh
		done
		symofan_at "$peer" daemon --once >/dev/null
		symofan_at "$peer" ofan status --json |
			jq -e --argjson k "$key" --argjson j "$j" \
			   '.keys[] | select(.key == $k) | .valid_ports | index($j) == null' >/dev/null ||
			die "$peer: key $key still has up$j among its valid ports"
	done
	symofan_at "$sw" daemon --once >/dev/null
	symofan_at "$sw" ofan status --json |
		jq -e --argjson j "$j" '.ports[$j].up == false' >/dev/null ||
		die "$sw: up$j is still up in Ofan's ports"
}

work=$(mktemp -d /tmp/ofan_permutation.XXXXXX)
runs=$work/runs.jsonl
if [ "$replot" -eq 1 ]; then
	[ -s "$out" ] || die "--replot: no $out"
	jq -c '.runs[]' "$out" >"$runs"
	modes=$(jq -r '[.runs[].mode] | unique | join(" ")' "$out")
	rate=$(jq -r .rate "$out")
	load=$(jq -r .load_pct "$out")
	fail=$(jq -r .failed_uplinks "$out")
	pipe_ports=$(jq -r '.pipe_ports // 4' "$out")
	ecn_bytes=$(jq -r '.ecn_bytes // 0' "$out")
	trap 'rm -rf "$work"' EXIT
else
	cleanup() {
		"$ofan" unload --prefix "$prefix" >/dev/null 2>&1 || true
		"$fattree" down --prefix "$prefix" >/dev/null 2>&1 || true
		rm -rf "/sys/fs/bpf/symofan-$prefix"-* "$work"
	}
	trap cleanup EXIT
	if [ "$rate" = auto ]; then
		rate=$("$top/eval/calibrate.sh" --load "$load" \
			--out "$work/calibration.json") ||
			die "calibration found no rate this machine sustains"
		calibration=$(jq -c 'del(.tries)' "$work/calibration.json")
	fi
	"$fattree" up --prefix "$prefix" --rate "$rate" --force >/dev/null
	"$ofan" load --prefix "$prefix" --pipe-ports "$pipe_ports" >/dev/null
	[ "$ecn_bytes" -eq 0 ] || mark_ecn
	hosts=$("$fattree" info --prefix "$prefix" --json | jq -r '[.hosts[] | "\(.netns):\(.addr)"] | join(",")')
	for ((i = 0; i < fail; i++)); do
		if [ "$i" -eq 0 ]; then fail_link e0-0 1; else fail_link a1-0 1; fi
	done

	: >"$runs"
	total=$(( $(wc -w <<<"$sizes") * $(wc -w <<<"$modes") * seeds ))
	n=0
	progress_start ofan_permutation.sh
	for m in $sizes; do
		for mode in $modes; do
			# reps: ECMP switches, REPS in the hosts
			reps=()
			if [ "$mode" = reps ]; then
				"$ofan" set-mode ecmp --prefix "$prefix" >/dev/null
				reps=(--reps)
			else
				"$ofan" set-mode "$mode" --prefix "$prefix" >/dev/null
			fi
			for ((seed = 1; seed <= seeds; seed++)); do
				n=$((n + 1))
				progress "$n" "$total" "$mode, $m packets, seed $seed"
				for ((try = 0; try <= guard_retries; try++)); do
					rm -rf "$work/run"
					"$permrun" --out "$work/run" --hosts "$hosts" -- --packets "$m" \
						--load "$load" --seed "$seed" --rate "$rate" --timeout 5 "${reps[@]}" \
						>/dev/null 2>&1 || true
					[ "$(jq -r '.guard.verdict // "none"' "$work/run/result.json" 2>/dev/null)" != trustworthy ] ||
						break
				done
				[ "$try" -le "$guard_retries" ] || try=$guard_retries
				# queueing: one-way delay above the smallest seen, in
				# packets of the link's frame time
				jq -c --arg mode "$mode" --argjson m "$m" --argjson seed "$seed" \
					--argjson retries "$try" '
				  ((.mtu_bytes + 62) * 8 * 1e9 / .rate_bps) as $frame_ns
				  | ([.per_host[].one_way_delay_ns.min // empty] | min) as $base
				  | {mode: $mode, packets: $m, seed: $seed, cct_ns, lower_bound_ns,
				     cct_increase: (.cct_over_bound - 1),
				     max_queue_packets: (((.one_way_delay_max_ns - $base) / $frame_ns) * 10 | round / 10),
				     delivered: .received, expected: .expected, reordered,
				     ce_received: (.ce_received // 0), reps: (.reps // null),
				     guard_retries: $retries,
				     guard: (.guard | del(.link_classes))}' \
					"$work/run/result.json" >>"$runs"
				[ -s "$work/htb_classes.json" ] ||
					jq -c '.guard.link_classes' "$work/run/result.json" \
						>"$work/htb_classes.json"
			done
		done
	done
	progress_done
fi

mkdir -p "$(dirname "$out")"
if [ "$replot" -eq 1 ]; then
	jq -c '.link_classes // .htb_classes // null' "$out" >"$work/htb_classes.json"
	calibration=$(jq -c '.calibration // null' "$out")
fi
[ -s "$work/htb_classes.json" ] || echo null >"$work/htb_classes.json"
jq -s --arg rate "$rate" --argjson load "$load" --argjson fail "$fail" \
	--argjson pipe_ports "$pipe_ports" --argjson calibration "$calibration" \
	--argjson ecn "$ecn_bytes" \
	--slurpfile htb "$work/htb_classes.json" \
	--arg kernel "$(uname -r)" --arg date "$(date -u +%FT%TZ)" '
  def med: sort | .[(length / 2 | floor)];
  def untrusted: map(select((.guard.verdict // "none") != "trustworthy")) | length;
  {
    benchmark: "ofan_permutation",
    date: $date, kernel: $kernel,
    method: "k=4 fat tree of netns on the host kernel, HTB links; permsend permutation, one ACK per packet, fixed rate; CCT increase = CCT / Appendix-A bound - 1; queue = max one-way delay (kernel receive stamps) above the minimum, in frame times",
    rate: $rate, load_pct: $load, failed_uplinks: $fail,
    ecn_bytes: $ecn,
    pipe_ports: $pipe_ports,
    calibration: $calibration,
    link_classes: $htb[0],
    guard: {
      runs: length,
      untrustworthy_runs: untrusted,
      retried_runs: (map(select((.guard_retries // 0) > 0)) | length),
      worst_sender_lag_frames_max: (map(.guard.worst_sender_lag_frames // null) | max),
      max_burst_packets_max: (map(.guard.max_burst_packets // null) | max),
      cpu_busy_max_window_pct_max: (map(.guard.cpu_busy_max_window_pct // null) | max),
      timer_irqs_per_s_max: (map(.guard.timer_irqs_per_s // null) | max),
      verdict: (if any(.[]; .guard == null) then "unguarded"
		elif untrusted == 0 then "trustworthy" else "untrustworthy" end)
    },
    summary: (group_by([.mode, .packets]) | map({
      mode: .[0].mode, packets: .[0].packets, runs: length,
      cct_increase_median: ([.[].cct_increase] | med),
      cct_increase_min: ([.[].cct_increase] | min),
      cct_increase_max: ([.[].cct_increase] | max),
      max_queue_median: ([.[].max_queue_packets] | med),
      max_queue_max: ([.[].max_queue_packets] | max),
      delivered_pct: (([.[].delivered] | add) * 100 / ([.[].expected] | add)),
      ce_marked_pct: (([.[].ce_received // 0] | add) * 100 / ([.[].delivered] | add | if . > 0 then . else 1 end) * 10 | round / 10),
      untrustworthy_runs: untrusted
    })),
    runs: .
  }' "$runs" >"$out"

base=${out%.json}
for what in queue cct; do
	jq -r --arg what "$what" '.summary[] | "\(.mode) \(.packets) \(if $what == "queue" then .max_queue_median else .cct_increase_median * 100 end)"' \
		"$out" >"$work/$what.dat"
done
if command -v gnuplot >/dev/null; then
	for what in queue cct; do
		{
			echo "set terminal pngcairo size 800,500 noenhanced"
			echo "set output '$base-$what.png'"
			echo "set logscale x 2"
			echo "set xlabel 'message size (packets)'"
			if [ "$what" = queue ]; then
				echo "set logscale y 10"
				echo "set ylabel 'max queue (packets, median over seeds; log)'"
			else
				echo "set ylabel 'CCT increase over the lower bound (%, median)'"
			fi
			echo "set key top left"
			echo "set title 'Permutation on a k=4 fat tree, $rate links, load $load%, $fail failed uplink(s)'"
			printf "plot "
			first=1
			for mode in $modes; do
				[ $first -eq 1 ] || printf ", "
				first=0
				printf "'< grep \"^%s \" %s' using 2:3 with linespoints title '%s'" \
					"$mode" "$work/$what.dat" "$mode"
			done
			echo
		} | gnuplot
	done
fi
jq -r '"mode    packets  CCT increase (median, min..max)   max queue pkts (median, max)  delivered  CE-marked  untrustworthy runs",
       (.summary[] | "\(.mode)\t\(.packets)\t\(.cct_increase_median * 1000 | round / 10)% (\(.cct_increase_min * 1000 | round / 10)..\(.cct_increase_max * 1000 | round / 10))\t\(.max_queue_median) (\(.max_queue_max))\t\(.delivered_pct * 10 | round / 10)%\t\(.ce_marked_pct // 0)%\t\(.untrustworthy_runs // "?")/\(.runs)"),
       "guard: \(.guard.verdict): \(.guard.untrustworthy_runs) of \(.guard.runs) runs untrustworthy (\(.guard.retried_runs) run again); worst sender lag \(.guard.worst_sender_lag_frames_max) frames, longest burst \(.guard.max_burst_packets_max) packets, CPU busiest window \(.guard.cpu_busy_max_window_pct_max)%, up to \(.guard.timer_irqs_per_s_max) timer interrupts/s at \(.rate)\(if .calibration then " (calibrated)" else "" end)"' "$out"
echo "ofan_permutation.sh: $out${base:+, $base-queue.png, $base-cct.png}"
