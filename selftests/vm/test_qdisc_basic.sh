#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_qdisc_basic.sh - the symphony qdisc attaches as root, as an HTB
# leaf and as a TBF child on a veth, takes its limit through the tc
# plugin, reports it in text and JSON, forwards traffic, and tail-drops
# beyond the limit, with drop reason OVERLIMIT where the kernel traces
# qdisc drops (qdisc:qdisc_drop, after 6.18).
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool rocegen jq ping

ktap_plan 15

netns_create a b
veth_pair "$a" va 10.251.0.1/24 "$b" vb 10.251.0.2/24

check "attach as root qdisc" tc -n "$a" qdisc add dev va root handle 1: symphony
check_eq "the default limit is 1000 packets" 1000 \
	"$(tc -n "$a" -j qdisc show dev va | jq '.[0].options.limit_packets')"
check "change the limit" tc -n "$a" qdisc change dev va root symphony limit 200
check "text output shows it" sh -c \
	"tc -n $a qdisc show dev va | grep -q 'qdisc symphony 1: root .*limit 200p'"
check_fails "the plugin rejects limit 0" \
	tc -n "$a" qdisc change dev va root symphony limit 0
check_fails "the plugin rejects an unknown option" \
	tc -n "$a" qdisc change dev va root symphony frobnicate 1
check_eq "a rejected change keeps the old limit" 200 \
	"$(tc -n "$a" -j qdisc show dev va | jq '.[0].options.limit_packets')"

ip netns exec "$a" ping -q -c 20 -i 0.01 10.251.0.2 >/dev/null
check_eq "traffic passes: 20 echo requests sent" 20 \
	"$(tc -n "$a" -j -s qdisc show dev va | jq '.[0].packets')"

# As HTB leaf at 1 Mbit/s with a 10-packet limit, a burst must overflow.
tc -n "$a" qdisc del dev va root
tc -n "$a" qdisc add dev va root handle 1: htb default 1
tc -n "$a" class add dev va parent 1: classid 1:1 htb rate 1mbit burst 2k
check "attach as the leaf of an HTB class" \
	tc -n "$a" qdisc add dev va parent 1:1 handle 10: symphony limit 10
# 300 UDP datagrams of 1400 bytes, back to back (one write each).
traced=0
drop_trace_start && traced=1
ip netns exec "$a" bash -c \
	'exec 3>/dev/udp/10.251.0.2/9; for i in {1..300}; do printf "%1400s" >&3; done' \
	2>/dev/null
stats=$(tc -n "$a" -j -s qdisc show dev va | jq '.[] | select(.kind == "symphony")')
ktap_print "leaf stats: $(echo "$stats" | jq -c '{packets, drops, limit_drops, max_backlog_packets}')"
check_jq "overflow is tail-dropped and counted" \
	'.drops > 0 and .limit_drops == .drops' "$stats"
if [ "$traced" -eq 1 ]; then
	check_eq "each drop past the limit is traced with reason OVERLIMIT (qdisc:qdisc_drop), as sch_red's" \
		"OVERLIMIT $(jq .limit_drops <<<"$stats")" "$(drop_trace_reasons htb | paste -sd, -)"
else
	ktap_skip "each drop past the limit is traced with reason OVERLIMIT" "no qdisc:qdisc_drop event (6.18 and older)"
fi
check_jq "the backlog reached but never exceeded the limit" \
	'.max_backlog_packets == 10' "$stats"

# Lowering the limit under a full queue trims it at once, and HTB above
# learns of it (its qlen follows the leaf's).
tc -n "$a" class change dev va parent 1: classid 1:1 htb rate 50kbit burst 2k
tc -n "$a" qdisc change dev va parent 1:1 handle 10: symphony limit 100
ip netns exec "$a" "$BUILD_DIR/rocegen" --payload 1400 10.251.0.2 \
	job=1,step=1,count=150 >/dev/null
tc -n "$a" qdisc change dev va parent 1:1 handle 10: symphony limit 5
qlens=$(tc -n "$a" -j -s qdisc show dev va | jq -c '[.[] | .qlen]')
ktap_print "qlen of htb and symphony after the change: $qlens"
check_jq "a lower limit trims the queue and its parent at once" \
	'.[1] <= 5 and .[0] == .[1]' "$qlens"

tc -n "$a" qdisc del dev va root
tc -n "$a" qdisc add dev va root handle 1: tbf rate 1mbit burst 2k latency 100ms
check "attach as the child of TBF" \
	tc -n "$a" qdisc add dev va parent 1:1 handle 10: symphony limit 10
ip netns exec "$a" ping -q -c 5 -i 0.05 10.251.0.2 >/dev/null
check_eq "traffic passes through TBF and symphony" 5 \
	"$(tc -n "$a" -j -s qdisc show dev va | jq '.[] | select(.kind == "symphony") | .dequeued_packets')"

ktap_finished
