#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# symphony_fig9.sh - the Symphony paper's hardware experiment (Fig. 9) on
# a network-namespace testbed, natively with Symphony as tc-BPF
# (--engine host) or in the QEMU VM with the sch_symphony module
# (--engine vm); --engine sim hands over to sim_symphony_fig9.sh.  Two
# equal flows of one job, of consecutive steps, share one switch port:
# two 2-rank rings of ringcoll (allgather, one step each), A = h0,h2 with
# the lagging step k and B = h1,h3 with step k+1 (its UDP source port one
# higher), h0 and h1 behind ToR 0, h2 and h3 behind ToR 1, one spine, so
# both forward flows leave ToR 0 by its one uplink (and both reverse
# flows ToR 1 by its).  B starts first, A later, from the whole flow's
# line-rate time later (no overlap) to at once.  Each shift runs on a
# testbed built anew, once with the ports marking RED only (the DCQCN-only
# baseline) and once Symphony OR RED.
#
# The senders run the mlx5 DCQCN profile with its time constants scaled
# by 10 Gbit/s / --rate (the simulator's Fig. 9 runs 10 Gbit/s): the
# alpha period, rate timer, cut interval, CNP interval and Symphony's
# window grow by that factor and its rates shrink by it (ringcoll scales
# the rates), while the byte counter, RED's thresholds in bytes and the
# flow's size stay the simulator's; so the testbed runs the simulator's
# experiment slowed down by that factor (a slower --bytes shortens it).
#
# Usage: eval/symphony_fig9.sh [options]      (as root, after "make")
#   --engine host|vm|sim  where (default host)
#   --rate RATE        every link's rate (default 100mbit on the host,
#                      10mbit in the VM)
#   --bytes BYTES      each flow's size (k or m; default 100m on the
#                      host, as the simulator's; 10m in the VM)
#   --shifts "P ..."   how far the two flows overlap at the line rate,
#                      percent of a flow (default "0 25 50 75 100")
#   --k K              Symphony's k (default 0.01)
#   --out FILE         JSON (default build/results/symphony_fig9_ENGINE.json);
#                      the plot next to it (-completion.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=symphony_fig9.sh
# netns_run, need_root, die, bad_usage, rate_bps
# shellcheck source=tc-scripts/lib.sh
. "$top/tc-scripts/lib.sh"
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0"; }

engine=host
rate=
bytes=
shifts="0 25 50 75 100"
k=0.01
out=
inside=0
orig_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--inside-vm) inside=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || bad_usage "$1 needs a value"
	case "$1" in
	--engine) engine=$2 ;;
	--rate) rate=$2 ;;
	--bytes) bytes=$2 ;;
	--shifts) shifts=$2 ;;
	--k) k=$2 ;;
	--out) out=$2 ;;
	*) bad_usage "unknown option '$1'" ;;
	esac
	shift 2
done
[[ $engine =~ ^(host|vm|sim)$ ]] || bad_usage "--engine '$engine': host, vm or sim"
for s in $shifts; do
	[[ $s =~ ^[0-9]+$ ]] && [ "$s" -le 100 ] || bad_usage "--shifts: '$s' is not 0..100"
done
[[ $k =~ ^0?\.[0-9]+$|^1$ ]] || bad_usage "--k '$k': a fraction, 0..1"
[ -n "$out" ] || out=$top/build/results/symphony_fig9_$engine.json
if [ "$engine" = sim ]; then
	[ -z "$rate" ] || bad_usage "--rate: the simulator's Fig. 9 runs at 10 Gbit/s"
	exec "$top/eval/sim_symphony_fig9.sh" --shifts "$shifts" --k "$k" \
		--out "$out" ${bytes:+--bytes "$bytes"}
fi
if [ "$engine" = host ]; then
	rate=${rate:-100mbit}
	bytes=${bytes:-100m}
else
	rate=${rate:-10mbit}
	bytes=${bytes:-10m}
fi
rate_bps=$(rate_bps "$rate") && [ "$rate_bps" -ge 1000000 ] && [ "$rate_bps" -le 1000000000 ] ||
	bad_usage "--rate '$rate': 1mbit..1gbit"
[[ $bytes =~ ^([1-9][0-9]*)([km]?)$ ]] || bad_usage "--bytes '$bytes': bytes, with k or m"
case ${BASH_REMATCH[2]} in
k) n=$((BASH_REMATCH[1] * 1024)) ;;
m) n=$((BASH_REMATCH[1] * 1048576)) ;;
*) n=${BASH_REMATCH[1]} ;;
esac
[ "$n" -ge 65536 ] || bad_usage "--bytes '$bytes': at least 64k"
need_root
ringcoll=$top/build/ringcoll
symofan=$top/build/symofan
ls_sh=$top/tc-scripts/leafspine.sh
[ -x "$ringcoll" ] && [ -x "$symofan" ] || die "run 'make' first"
[ "$engine" = host ] || [ -f "$top/kernel/sch_symphony.ko" ] || die "no kernel/sch_symphony.ko: run 'make'"

# the time scale: the simulator's 10 Gbit/s over this rate
scale=$((10000000000 / rate_bps))
mtu=4096
flow_us=$((n * 8 * 1000000 / rate_bps))
red="limit 1000 kmin 50kb kmax 100kb pmax 0.2"
symphony="k $k tau 0.25 twin $((100 * scale))us warmup 16 samples 16"
# mlx5 with its periods slowed by the scale; its byte counter unscaled
# (ringcoll scales it to the rate, which keeps its period at 10 Gbit/s's)
cc=(--cc mlx5 --dcqcn-alpha-us "$scale" --dcqcn-timer-us $((300 * scale))
    --dcqcn-decrease-us $((4 * scale)) --cnp-interval $((4 * scale))
    --dcqcn-bytes $((32767 * 64)))
prefix=f9
h0=10.1.0.2 h1=10.1.0.3 h2=10.1.1.2 h3=10.1.1.3
step_a=49152

# port_marks: the marking counters of ToR 0's uplink and ToR 1's, as JSON
port_marks() {
	local t
	for t in 0 1; do
		if [ "$engine" = host ]; then
			netns_run "$prefix-t$t" "$symofan" symphony status \
				--pin-dir "/sys/fs/bpf/symofan-$prefix-t$t-bpf" --json |
				jq -c --arg t "t$t" '.[] | select(.dev == "u0") | {tor: $t, red_marks: .stats.red_marks,
				  symphony_marks: .stats.symphony_marks, drops: .stats.red_drops}'
		else
			tc -n "$prefix-t$t" -s -j qdisc show dev u0 |
				jq -c --arg t "t$t" '.[] | select(.kind == "symphony") | {tor: $t, red_marks,
				  symphony_marks, drops}'
		fi
	done | jq -s -c .
}

# one_run SHIFT MARKING: the testbed anew, B at once and A later; one
# JSON line of both rings' flows
one_run() {
	local shift=$1 marking=$2 w=$work/$1-$2 t0 a_at datapath=() pids=() ns i
	mkdir -p "$w"
	[ "$engine" != host ] || datapath=(--datapath bpf)
	"$ls_sh" up --prefix "$prefix" --tors 2 --spines 1 --hosts-per-tor 2 \
		--rate "$rate" --mtu 9000 --qdisc symphony \
		--qdisc-args "$red $symphony marking $marking" "${datapath[@]}" --force >/dev/null
	# ranks start 1 s after launch; A by (100 - SHIFT)% of a flow later
	t0=$(( $(date +%s%N) + 1000000000 ))
	a_at=$((t0 + flow_us * 1000 * (100 - shift) / 100))
	for i in "0 $h0 $h0,$h2 $step_a $a_at" "1 $h1 $h1,$h3 $((step_a + 1)) $t0" \
		 "2 $h2 $h0,$h2 $step_a $a_at" "3 $h3 $h1,$h3 $((step_a + 1)) $t0"; do
		read -r ns addr ring base at <<<"$i"
		ip netns exec "$prefix-h$ns" "$ringcoll" --job "1=$ring" --local "$addr" \
			--collective allgather --size $((2 * n)) --mtu "$mtu" --rate "$rate" \
			"${cc[@]}" --flows astra --step-base "$base" --start-at "$at" \
			--timeout 60 --out "$w/h$ns.json" 2>"$w/h$ns.err" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || die "shift $shift%, $marking: rank h$i failed: $(cat "$w/h$i.err")"
	done
	# flow X->Y: from X's step start to Y's arrival
	jq -n -c --argjson shift "$shift" --arg m "$marking" --argjson marks "$(port_marks)" \
		--slurpfile h0 "$w/h0.json" --slurpfile h1 "$w/h1.json" \
		--slurpfile h2 "$w/h2.json" --slurpfile h3 "$w/h3.json" '
	  def step($h): $h[0].jobs[0].iterations[0].steps[0];
	  def flow($from; $to; $t0): {start_ms: ((step($from).start_ns - $t0) / 1e6),
	    end_ms: ((step($to).end_ns - $t0) / 1e6),
	    completion_ms: ((step($to).end_ns - step($from).start_ns) / 1e6)};
	  def overlap($a; $b): [0, ([$a.end_ms, $b.end_ms] | min) - ([$a.start_ms, $b.start_ms] | max)] | max;
	  ([$h0, $h1, $h2, $h3] | map(step(.).start_ns) | min) as $t0
	  | flow($h0; $h2; $t0) as $a | flow($h1; $h3; $t0) as $b
	  | flow($h2; $h0; $t0) as $ar | flow($h3; $h1; $t0) as $br
	  | {shift_pct: $shift, marking: $m, a: $a, b: $b,
	     overlap_ms: overlap($a; $b),
	     both_done_ms: (([$a.end_ms, $b.end_ms] | max) - ([$a.start_ms, $b.start_ms] | min)),
	     reverse: {a: $ar, b: $br, overlap_ms: overlap($ar; $br)},
	     symphony_marks: ($marks | map(.symphony_marks) | add),
	     red_marks: ($marks | map(.red_marks) | add), uplinks: $marks,
	     cnps_received: ([$h0, $h1, $h2, $h3] | map(.[0].counters.cnps_received) | add),
	     retransmitted_packets: ([$h0, $h1, $h2, $h3] | map(.[0].counters.retransmitted_packets) | add),
	     retransmission_timeouts: ([$h0, $h1, $h2, $h3] | map(.[0].counters.retransmission_timeouts) | add),
	     naks_received: ([$h0, $h1, $h2, $h3] | map(.[0].counters.naks_received) | add),
	     worst_sender_lag_ms: ([$h0, $h1, $h2, $h3] | map(.[0].pacing.worst_lag_ns) | max / 1e6)}'
}

run_inside() {
	local s m
	work=$(mktemp -d /tmp/symphony_fig9.XXXXXX)
	trap '"$ls_sh" down --prefix "$prefix" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
	export TC_LIB_DIR=$top/build/tc
	for s in $shifts; do
		for m in red symphony; do
			echo "$prog: shift $s%, $m" >&2
			one_run "$s" "$m" >>"$work/runs.jsonl"
		done
	done
	"$ls_sh" down --prefix "$prefix" >/dev/null 2>&1 || true
	jq -s --arg date "$(date -u +%FT%TZ)" --arg engine "$engine" --arg rate "$rate" \
		--argjson bytes "$n" --argjson flow_us "$flow_us" --argjson scale "$scale" \
		--arg red "$red" --arg symphony "$symphony" --arg cc "${cc[*]}" '
	  {date: $date, engine: $engine,
	   figure: "Symphony Fig. 9: two flows of consecutive steps of one job through one port",
	   method: ("leafspine.sh: 2 ToRs of 2 hosts, 1 spine, every link \($rate) (HTB), " +
		    (if $engine == "host" then "Symphony as tc-BPF on this kernel" else "sch_symphony in the VM" end) +
		    "; rings A = h0,h2 (step k) and B = h1,h3 (step k+1) of job 1, ringcoll allgather of one step each; " +
		    "flow B starts first, flow A later by (100 - shift)% of a flow'"'"'s line-rate time; a and b are the " +
		    "flows through ToR 0'"'"'s uplink (h0->h2, h1->h3), reverse the other direction; marking red " +
		    "(baseline) or Symphony OR RED on every switch port"),
	   rate: $rate, bytes_per_flow: $bytes, flow_line_rate_ms: ($flow_us / 1000),
	   time_scale: $scale, qdisc: {red: $red, symphony: $symphony}, ringcoll_cc: $cc,
	   paper: "the lagging flow A finishes sooner with Symphony, more so the more the flows overlap; the overlap shrinks; B barely slows",
	   runs: .}' "$work/runs.jsonl" >"$out"
}

mkdir -p "$(dirname "$out")"
if [ "$engine" = host ] || [ "$inside" -eq 1 ]; then
	run_inside
	[ "$inside" -eq 0 ] || exit 0
else
	"$top/scripts/vm-run.sh" --timeout $((600 + $(wc -w <<<"$shifts") * 2 * (3 * flow_us / 1000000 + 60))) \
		--rw "$(dirname "$out")" -- "$0" --inside-vm "${orig_args[@]}" --out "$out"
fi

base=${out%.json}
if command -v gnuplot >/dev/null; then
	for m in red symphony; do
		jq -r --arg m "$m" '.runs[] | select(.marking == $m) |
		  "\(.shift_pct) \(.a.completion_ms) \(.b.completion_ms) \(.overlap_ms)"' "$out" >"$base.$m.dat"
	done
	gnuplot <<GP
set terminal pngcairo size 800,500 noenhanced
set output '$base-completion.png'
set title 'Fig. 9, $engine testbed: two flows of consecutive steps ($rate, DCQCN x$scale slower)'
set xlabel 'overlap of the two flows at the line rate (% of a flow)'
set ylabel 'ms'
set key below maxrows 2
plot '$base.red.dat' using 1:2 with linespoints lw 2 title 'A (lagging step), RED+DCQCN', \
     '$base.symphony.dat' using 1:2 with linespoints lw 2 title 'A (lagging step), Symphony', \
     '$base.red.dat' using 1:3 with linespoints dt 2 title 'B (step ahead), RED+DCQCN', \
     '$base.symphony.dat' using 1:3 with linespoints dt 2 title 'B (step ahead), Symphony', \
     '$base.red.dat' using 1:4 with lines dt 3 title 'overlap, RED+DCQCN', \
     '$base.symphony.dat' using 1:4 with lines dt 3 title 'overlap, Symphony'
GP
	rm -f "$base".*.dat
fi
jq -r '"overlap% marking   A completion ms  B completion ms  overlap ms  both done ms  Symphony marks  RED marks",
  (.runs[] | "\(.shift_pct)\t\(.marking)\t\(.a.completion_ms | round)\t\(.b.completion_ms | round)\t\(.overlap_ms | round)\t\(.both_done_ms | round)\t\(.symphony_marks)\t\(.red_marks)")' "$out"
echo "$prog: $out" >&2
