#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ringrun.sh - run ring collectives across the hosts of a netns testbed: one
# ringcoll (userspace/workload/ringcoll/) per host namespace, all starting
# at one instant, then merge their results into one JSON with, per job and
# iteration, the collective completion time (first step start to last
# arrival at any rank), each step's span across the ring, the step overlap
# over time (how many steps of the job are in flight at once: the Symphony
# paper's Fig. 2a/4a metric), its maximum and the final step's span, and
# the run's guard (guard.jq: the machine's load, the senders' lag behind
# their NIC pace, the links' HTB classes); print a summary line per job
# and the guard's verdict.
#
# Usage: ringrun.sh [--out DIR] [--delay MS] [--ringcoll PATH]
#                   [--guard-lag-frames N]
#                   --job ID=NS:ADDR,NS:ADDR,... [--job ...] [-- RINGCOLL OPTIONS]
#   --job       a job's ring, in order: network namespace and address of
#               each rank (the address must be that namespace's)
#   --out DIR   where NS.json of each rank and result.json go
#               (default: a new folder under /tmp)
#   --delay MS  start this long after launch (default 500)
#   --guard-lag-frames N  a sender more than N frame times behind its
#               NIC's pace makes the run untrustworthy (default 4)
#   options after -- go to every ringcoll (--size, --collective, ...)
# Exit status: 0 when every rank completed, 1 when one failed (its error
# is printed), 2 for bad usage.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
out=
delay_ms=500
lag_frames=4
jobs=()
extra=()

prog=ringrun.sh
root_message="must run as root (network namespaces, raw sockets)"
# shellcheck source=tc-scripts/lib.sh
. "$here/lib.sh"
ringcoll=$(project_prog ringcoll)
hostload=$(project_prog hostload)

usage() { sed -n '14,26s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--delay) [ $# -ge 2 ] || usage; delay_ms=$2; shift 2 ;;
	--ringcoll) [ $# -ge 2 ] || usage; ringcoll=$2; shift 2 ;;
	--guard-lag-frames) [ $# -ge 2 ] || usage; lag_frames=$2; shift 2 ;;
	--job) [ $# -ge 2 ] || usage; jobs+=("$2"); shift 2 ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) usage ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
[ ${#jobs[@]} -gt 0 ] || bad_usage "no --job"
is_uint "$delay_ms" || bad_usage "--delay wants milliseconds"
int_in --guard-lag-frames "$lag_frames" 1 100000
need_built "$ringcoll"
need_built "$hostload"
need_root
command -v jq >/dev/null || die "needs jq"

# per namespace: its --job arguments
declare -A ns_args=()
ns_order=()
for spec in "${jobs[@]}"; do
	id=${spec%%=*}
	members=${spec#*=}
	[ "$id" != "$spec" ] && [ -n "$members" ] || bad_usage "--job '$spec': wants ID=NS:ADDR,..."
	addrs=
	IFS=, read -r -a list <<<"$members"
	for m in "${list[@]}"; do
		ns=${m%%:*}
		addr=${m#*:}
		[ "$ns" != "$m" ] || bad_usage "'$m': wants NS:ADDR"
		need_netns "$ns"
		addrs=${addrs:+$addrs,}$addr
	done
	for m in "${list[@]}"; do
		ns=${m%%:*}
		if [ -z "${ns_args[$ns]+x}" ]; then
			ns_order+=("$ns")
			ns_args[$ns]=
		fi
		ns_args[$ns]+=" --job $id=$addrs"
	done
done

[ -n "$out" ] || out=$(mktemp -d /tmp/ringrun.XXXXXX)
mkdir -p "$out"
guard_start "$out" "$hostload" "${ns_order[@]}"
start=$(( $(date +%s%N) + delay_ms * 1000000 ))
pids=()
for ns in "${ns_order[@]}"; do
	# shellcheck disable=SC2086
	ip netns exec "$ns" "$ringcoll" ${ns_args[$ns]} --start-at "$start" \
		--out "$out/$ns.json" "${extra[@]}" 2>"$out/$ns.err" &
	pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		failed=1
		log "rank in ${ns_order[$i]} failed: $(tr '\n' ' ' <"$out/${ns_order[$i]}.err")"
	fi
done

guard_stop "$out"

files=()
for ns in "${ns_order[@]}"; do
	[ -s "$out/$ns.json" ] && files+=("$out/$ns.json")
done
[ ${#files[@]} -gt 0 ] || die "no rank wrote a result"

jq -s -L "$here" --slurpfile load "$out/hostload.json" \
	--slurpfile classes "$out/classes.json" --argjson lag_frames "$lag_frames" '
  include "guard"; include "ringmerge";
  ring_run as $run
  | ring_merge(run_guard($load[0]; $classes[0]; $lag_frames; $run.mtu_bytes;
			 $run.rate_bps; [.[].pacing // empty]; 0; []))
  ' "${files[@]}" >"$out/result.json" || die "cannot merge the results in $out"

jq -r '.run as $r | .counters as $c | .jobs[] |
  "job \(.job): \(.ranks) ranks, \($r.collective) of \($r.size_bytes) bytes x\($r.iterations) on \($r.channels) channel(s)\(if $r.step_qps > 1 then " of \($r.step_qps) queue pairs" else "" end), \($r.congestion_control): CCT median \(.cct_ms.median * 100 | round / 100) ms (min \(.cct_ms.min * 100 | round / 100), max \(.cct_ms.max * 100 | round / 100)), max step overlap \([.iterations[].max_step_overlap] | max), start skew \([.iterations[].start_skew_ms] | max | round) ms; CNPs \($c.cnps_received), retransmitted packets \($c.retransmitted_packets)"' \
	"$out/result.json"
jq -r -L "$here" 'include "guard"; .guard | guard_line' "$out/result.json"
echo "$prog: results in $out/result.json"
exit $failed
