#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_fattree.sh - tc-scripts/fattree.sh builds the k=4 fat tree (16
# hosts, 20 switches) in under 10 s, describes it in "info --json", the
# kernel alone delivers between any two pods and inside a pod, UDP flows
# between two pods spread over both uplinks of the edge switch and all
# core switches, a second build over it is refused, shaping puts its
# qdiscs where asked, and "down" removes everything of its prefix only.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter ping

ft=$TOP_DIR/tc-scripts/fattree.sh
prefix=ftt$$
ktap_plan 18

on_exit "$ft" down --prefix "$prefix"
on_exit "$ft" down --prefix "${prefix}s"
on_exit "$ft" down --prefix "$prefix-b"

# tx_packets NS DEV
tx_packets() {
	ip -n "$1" -s -j link show dev "$2" | jq '.[0].stats64.tx.packets'
}

t0=$(date +%s%N)
"$ft" up --prefix "$prefix" >/dev/null 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
ktap_print "k=4 build time: $ms ms"
check_eq "up builds the k=4 fat tree" 0 "$rc"
check "the build takes under 10 s" test "$ms" -lt 10000

json=$("$ft" info --prefix "$prefix" --json 2>/dev/null)
check_jq "info --json: 16 hosts and 20 switches (8 edge, 8 aggregation, 4 core)" \
	'(.hosts | length) == 16 and (.switches | length) == 20 and
	 ([.switches[] | select(.role == "edge")] | length) == 8 and
	 ([.switches[] | select(.role == "aggregation")] | length) == 8 and
	 ([.switches[] | select(.role == "core")] | length) == 4' "$json"
check_jq "info --json: 2 uplinks and 2 downlinks per edge/aggregation switch, 4 downlinks per core" \
	'all(.switches[] | select(.role != "core");
	     (.uplinks | length) == 2 and (.downlinks | length) == 2 and
	     ([.ports[] | select(.role == "uplink")] | length) == 2) and
	 all(.switches[] | select(.role == "core");
	     (.uplinks | length) == 0 and (.downlinks | length) == 4)' "$json"
check_jq "info --json: host i under edge E is 10.0.E.(2+i)/24, gateway 10.0.E.1, pod E/2" \
	'all(.hosts[]; .addr == "10.0.\(.edge_key).\(2 + .port)" and
	     .gateway == "10.0.\(.edge_key).1" and .pod == (.edge_key / 2 | floor) and
	     .edge_key == (.index / 2 | floor))' "$json"
check_jq "info --json: every uplink's next hop is its peer's address" \
	'all(.switches[].ports[] | select(.role == "uplink");
	     .next_hop == .peer_addr and (.peer_addr | startswith("172.16.")))' "$json"

# What the namespaces hold is what info describes.
mismatch=""
for i in $(seq 0 15); do
	want=$(jq -r ".hosts[$i] | \"\(.netns) \(.addr)/\(.prefixlen)\"" <<<"$json")
	got=$(ip -n "${want%% *}" -j addr show dev eth0 2>/dev/null |
		jq -r '.[0].addr_info[] | select(.family == "inet") | "\(.local)/\(.prefixlen)"')
	[ "${want#* }" = "$got" ] || mismatch+=" h$i:$got"
done
check_eq "the hosts' eth0 addresses are those of info" "" "$mismatch"
check_eq "36 namespaces carry the prefix" 36 \
	"$(ip netns list | grep -c "^$prefix-")"
check "status: complete" "$ft" status --prefix "$prefix"
check_fails "a second up over the testbed is refused" "$ft" up --prefix "$prefix"

# ping_from_all TARGET_EXPR: every host pings host number $((TARGET_EXPR))
# (i is the source host), all at once; prints the hosts that failed.
mapfile -t addrs < <(jq -r '.hosts[].addr' <<<"$json")
ping_from_all() {
	local i d pids=() failed=""
	for i in $(seq 0 15); do
		d=$(($1))
		"$ft" exec --prefix "$prefix" "h$i" \
			ping -c 1 -W 3 -q "${addrs[d]}" >/dev/null 2>&1 &
		pids[i]=$!
	done
	for i in $(seq 0 15); do
		wait "${pids[i]}" || failed+=" h$i->${addrs[$1]}"
	done
	echo "$failed"
}
check_eq "every host reaches a host in the next pod" "" \
	"$(ping_from_all '(i + 4) % 16')"
check_eq "every host reaches a host under the other edge of its pod" "" \
	"$(ping_from_all 'i ^ 2')"
check_eq "every host reaches the other host under its edge switch" "" \
	"$(ping_from_all 'i ^ 1')"

# 64 UDP flows (one socket, one source port each) from h0 (pod 0) to h8
# (pod 2): the switches' L4 multipath hash spreads them.
before=("$(tx_packets "$prefix-e0-0" up0)" "$(tx_packets "$prefix-e0-0" up1)")
core_before=()
for c in 0 1 2 3; do
	core_before[c]=$(tx_packets "$prefix-c$c" dn2)
done
"$ft" exec --prefix "$prefix" h0 bash -c \
	"for n in \$(seq 64); do echo flow > /dev/udp/${addrs[8]}/5001; done"
up0=$(($(tx_packets "$prefix-e0-0" up0) - before[0]))
up1=$(($(tx_packets "$prefix-e0-0" up1) - before[1]))
ktap_print "64 flows from h0 to h8: e0-0 up0 $up0, up1 $up1 packets"
check "UDP flows between pods use both uplinks of the source edge switch" \
	test "$up0" -gt 0 -a "$up1" -gt 0 -a $((up0 + up1)) -ge 64
per_core=""
for c in 0 1 2 3; do
	per_core+=" $(($(tx_packets "$prefix-c$c" dn2) - core_before[c]))"
done
ktap_print "per core switch towards pod 2:$per_core"
check "... and all four core switches" sh -c \
	"for n in $per_core; do [ \$n -gt 0 ] || exit 1; done"

out=$("$ft" up -k 5 --prefix "${prefix}s" 2>&1)
rc=$?
check_eq "an odd -k exits 2 with usage" "2 yes" \
	"$rc $(grep -q '^Usage' <<<"$out" && echo yes)"

# Shaping: HTB on every link end, the leaf qdisc on switch ports only.
if "$ft" up --prefix "${prefix}s" --rate 1gbit --qdisc pfifo \
	--qdisc-args "limit 50" >/dev/null 2>&1; then
	check "--rate/--qdisc: HTB (burst 16000 bytes) + pfifo on switch ports, HTB alone on hosts" sh -c \
		"tc -n ${prefix}s-e0-0 qdisc show dev up0 | grep -q '^qdisc htb 1: root' &&
		 tc -n ${prefix}s-a1-1 qdisc show dev dn0 | grep -q '^qdisc pfifo 20: parent 1:1 limit 50p' &&
		 tc -n ${prefix}s-h0 qdisc show dev eth0 | grep -q '^qdisc htb 1: root' &&
		 ! tc -n ${prefix}s-h0 qdisc show dev eth0 | grep -q pfifo &&
		 tc -n ${prefix}s-h0 class show dev eth0 | grep -q 'rate 1Gbit' &&
		 tc -n ${prefix}s-h0 -d class show dev eth0 | grep -q 'burst 16000b/1 mpu 0b cburst 16000b/1' &&
		 [ \"\$($ft info --prefix ${prefix}s --json | jq .shaping.burst_bytes)\" = 16000 ]"
	"$ft" down --prefix "${prefix}s" >/dev/null 2>&1
else
	ktap_skip "--rate/--qdisc: HTB + pfifo on switch ports" "no HTB in this kernel?"
fi

# Leftovers of a failed up ("$prefix-h3", "$prefix-e1-0") go with down,
# the namespaces of prefix "$prefix-b" stay.
"$ft" down --prefix "$prefix" >/dev/null 2>&1
ip netns add "$prefix-h3"
ip netns add "$prefix-e1-0"
ip netns add "$prefix-b-h0"
"$ft" down --prefix "$prefix" >/dev/null 2>&1
check_eq "down leaves no namespace of the prefix, even after a failed up" \
	"0 $prefix-b-h0" \
	"$(ip netns list | grep -c "^$prefix-[hace][0-9]") $(ip netns list | grep -o "^$prefix-b-h0")"
"$ft" down --prefix "$prefix-b" >/dev/null 2>&1

ktap_finished
