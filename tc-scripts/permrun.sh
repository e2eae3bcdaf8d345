#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# permrun.sh - run a permutation (or all-to-all) collective across the hosts
# of a netns testbed: one permsend (userspace/workload/permsend.c) per host
# namespace, all starting at one instant; merge their results into one JSON:
# the collective's completion time (the last ACK at any host), the
# Appendix-A lower bound and their ratio, packets sent, delivered, lost and
# reordered, and one-way delays; print a summary line.
#
# Usage: permrun.sh [--out DIR] [--delay MS] [--permsend PATH]
#                   --hosts NS:ADDR,NS:ADDR,... [-- PERMSEND OPTIONS]
#   --hosts     every host: network namespace and its address
#   --out DIR   where NS.json of each host and result.json go
#               (default: a new folder under /tmp)
#   --delay MS  start this long after launch (default 500)
#   options after -- go to every permsend (--packets, --load, --seed, ...)
# Exit status: 0 when every host completed, 1 otherwise, 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
permsend=$here/../build/permsend
out=
delay_ms=500
hosts=
extra=()

prog=permrun.sh
root_message="must run as root (network namespaces, raw sockets)"
# shellcheck source=tc-scripts/lib.sh
. "$here/lib.sh"

usage() { sed -n '10,18s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--delay) [ $# -ge 2 ] || usage; delay_ms=$2; shift 2 ;;
	--permsend) [ $# -ge 2 ] || usage; permsend=$2; shift 2 ;;
	--hosts) [ $# -ge 2 ] || usage; hosts=$2; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) usage ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
[ -n "$hosts" ] || bad_usage "no --hosts"
is_uint "$delay_ms" || bad_usage "--delay wants milliseconds"
need_built "$permsend"
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

files=()
for ns in "${namespaces[@]}"; do
	[ -s "$out/$ns.json" ] && files+=("$out/$ns.json")
done
[ ${#files[@]} -gt 0 ] || die "no host wrote a result"
jq -s '
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
      per_host: [$h[] | {address, dests, cct_ns, cct_over_bound, sent, acked,
			 received, lost, reordered, one_way_delay_ns}]
    }
  | .cct_over_bound = (if .lower_bound_ns > 0 then .cct_ns / .lower_bound_ns else 0 end)
' "${files[@]}" >"$out/result.json" || die "cannot merge the results in $out"
jq -r '"\(.pattern) of \(.hosts) hosts x \(.packets_per_dest) packets at \(.load_pct)% of \(.rate_bps / 1e6) Mbit/s: CCT \(.cct_ns / 1e6 * 1000 | round / 1000) ms, lower bound \(.lower_bound_ns / 1e6 * 1000 | round / 1000) ms (x\(.cct_over_bound * 1000 | round / 1000)); delivered \(.received)/\(.expected), reordered \(.reordered), max one-way delay \(.one_way_delay_max_ns / 1000 | round) us"' "$out/result.json"
echo "$prog: results in $out/result.json"
exit $failed
