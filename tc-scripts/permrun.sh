#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# permrun.sh - run a permutation (or all-to-all) collective across the hosts
# of a netns testbed: one permsend (userspace/workload/permsend.c) per host
# namespace, all starting at one instant; merge their results into one JSON:
# the collective's completion time (the last ACK at any host), the
# Appendix-A lower bound and their ratio, packets sent, delivered, lost and
# reordered, and one-way delays (and with permsend --reps, REPS's counters
# summed over the hosts, "reps"); and the run's guard: whether the machine
# kept up (see below); print a summary line and the guard's verdict.
#
# Usage: permrun.sh [--out DIR] [--delay MS] [--permsend PATH]
#                   [--guard-lag-frames N] [--strict]
#                   --hosts NS:ADDR,NS:ADDR,... [-- PERMSEND OPTIONS]
#   --hosts     every host: network namespace and its address
#   --out DIR   where NS.json of each host and result.json go
#               (default: a new folder under /tmp)
#   --delay MS  start this long after launch (default 500)
#   --guard-lag-frames N  a sender more than N frame times behind its
#               ideal schedule makes the run untrustworthy (default 4)
#   --strict    exit 3 when the guard finds the run untrustworthy
#   options after -- go to every permsend (--packets, --load, --seed, ...)
# Exit status: 0 when every host completed, 1 otherwise, 2 bad usage,
# 3 (with --strict) completed but untrustworthy.
#
# The guard (result.json's "guard"): the machine's busy and softirq
# shares and timer interrupt rate over the run and its busiest 500 ms
# (build/hostload), the senders' worst lag behind their ideal schedule,
# longest back-to-back burst, schedule slips and refused sends
# (permsend's "pacing"), the receivers' worst wait for a CPU, how delays
# were stamped, and the HTB classes of the hosts' links (tc -d class);
# see guard.jq.  Its verdict is "untrustworthy" when a sender lagged more
# than N frame times, when a delay was taken after recvmsg() instead of
# by the kernel, or when an ACK could not be sent.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
out=
delay_ms=500
lag_frames=4
strict=0
hosts=
extra=()

prog=permrun.sh
root_message="must run as root (network namespaces, raw sockets)"
# shellcheck source=tc-scripts/lib.sh
. "$here/lib.sh"
permsend=$(project_prog permsend)
hostload=$(project_prog hostload)

usage() { sed -n '11,23s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--delay) [ $# -ge 2 ] || usage; delay_ms=$2; shift 2 ;;
	--permsend) [ $# -ge 2 ] || usage; permsend=$2; shift 2 ;;
	--guard-lag-frames) [ $# -ge 2 ] || usage; lag_frames=$2; shift 2 ;;
	--strict) strict=1; shift ;;
	--hosts) [ $# -ge 2 ] || usage; hosts=$2; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) usage ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
[ -n "$hosts" ] || bad_usage "no --hosts"
is_uint "$delay_ms" || bad_usage "--delay wants milliseconds"
int_in --guard-lag-frames "$lag_frames" 1 100000
need_built "$permsend"
need_built "$hostload"
need_root

namespaces=()
addrs=
IFS=, read -r -a list <<<"$hosts"
for m in "${list[@]}"; do
	ns=${m%%:*}
	[ "$ns" != "$m" ] || bad_usage "'$m': wants NS:ADDR"
	need_netns "$ns"
	namespaces+=("$ns")
	addrs=${addrs:+$addrs,}${m#*:}
done

[ -n "$out" ] || out=$(mktemp -d /tmp/permrun.XXXXXX)
mkdir -p "$out"
guard_start "$out" "$hostload" "${namespaces[@]}"
start=$(( $(date +%s%N) + delay_ms * 1000000 ))
pids=()
for i in "${!namespaces[@]}"; do
	ip netns exec "${namespaces[i]}" "$permsend" --hosts "$addrs" \
		--local "${list[i]#*:}" --start-at "$start" \
		--out "$out/${namespaces[i]}.json" "${extra[@]}" \
		2>"$out/${namespaces[i]}.err" &
	pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[i]}"; then
		failed=1
		log "host ${namespaces[i]} failed: $(tr '\n' ' ' <"$out/${namespaces[i]}.err")"
	fi
done

guard_stop "$out"

files=()
for ns in "${namespaces[@]}"; do
	[ -s "$out/$ns.json" ] && files+=("$out/$ns.json")
done
[ ${#files[@]} -gt 0 ] || die "no host wrote a result"
jq -s -L "$here" --slurpfile load "$out/hostload.json" \
	--slurpfile classes "$out/classes.json" --argjson lag_frames "$lag_frames" '
  include "guard";
  . as $h
  | ($h | map(.start_ns) | min) as $t0
  | ($h | map(.last_ack_ns) | max) as $t1
  | {
      pattern: $h[0].pattern, seed: $h[0].seed, hosts: ($h | length),
      packets_per_dest: $h[0].packets_per_dest, mtu_bytes: $h[0].mtu_bytes,
      rate_bps: $h[0].rate_bps, load_pct: $h[0].load_pct, hops: $h[0].hops,
      cct_ns: ($t1 - $t0),
      lower_bound_ns: ($h | map(.lower_bound_ns) | max),
      sent: ($h | map(.sent) | add), acked: ($h | map(.acked) | add),
      received: ($h | map(.received) | add),
      expected: ($h | map(.expected) | add),
      lost: ($h | map(.lost) | add),
      reordered: ($h | map(.reordered) | add),
      one_way_delay_max_ns: ($h | map(.one_way_delay_ns.max // 0) | max),
      one_way_delay_p99_ns: ($h | map(.one_way_delay_ns.p99 // 0) | max),
      ce_received: ($h | map(.ce_received // 0) | add),
      per_host: [$h[] | {address, dests, cct_ns, cct_over_bound, sent, acked,
			 received, lost, reordered, one_way_delay_ns,
			 receive_wait_ns, pacing}
			 + (if .reps then {reps} else {} end)]
    }
  # permsend --reps: its parameters, and its counters summed over hosts
  | if $h[0].reps then
	.reps_params = $h[0].reps_params
	| .reps = reduce ($h[].reps | to_entries[]) as $e ({}; .[$e.key] += $e.value)
    else . end
  | .cct_over_bound = (if .lower_bound_ns > 0 then .cct_ns / .lower_bound_ns else 0 end)
  | .guard = run_guard($load[0]; $classes[0]; $lag_frames; .mtu_bytes; .rate_bps;
		       [$h[].pacing]; [$h[].receive_wait_ns.max // 0] | max;
		       [$h[].delay_clock])
' "${files[@]}" >"$out/result.json" || die "cannot merge the results in $out"
jq -r -L "$here" 'include "guard"; "\(.pattern) of \(.hosts) hosts x \(.packets_per_dest) packets at \(.load_pct)% of \(.rate_bps / 1e6) Mbit/s: CCT \(.cct_ns / 1e6 * 1000 | round / 1000) ms, lower bound \(.lower_bound_ns / 1e6 * 1000 | round / 1000) ms (x\(.cct_over_bound * 1000 | round / 1000)); delivered \(.received)/\(.expected), reordered \(.reordered), max one-way delay \(.one_way_delay_max_ns / 1000 | round) us",
	(.guard | guard_line)' "$out/result.json"
echo "$prog: results in $out/result.json"
if [ "$failed" -eq 0 ] && [ "$strict" -eq 1 ] &&
   [ "$(jq -r .guard.verdict "$out/result.json")" != trustworthy ]; then
	exit 3
fi
exit $failed
