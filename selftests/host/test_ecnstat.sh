#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ecnstat.sh - the ecnstat BPF object loads through its skeleton,
# attaches to a veth in a network namespace, counts ECN codepoints exactly,
# and attach/show/detach handle misuse with clear errors.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter ping jq
require_tools ecnstat
require_bpffs

ktap_plan 11

netns_create sender receiver
veth_pair "$sender" s0 10.250.0.1/24 "$receiver" r0 10.250.0.2/24
on_exit in_ns "$receiver" "$ecnstat" detach r0

check "attach to a veth ingress in a netns" in_ns "$receiver" "$ecnstat" attach r0
check "the program is on the clsact ingress hook" \
	sh -c "tc -n $receiver filter show dev r0 ingress | grep -q 'ecnstat'"
check_fails "a second attach is refused" in_ns "$receiver" "$ecnstat" attach r0

# 3 ECT(0) and 2 CE echo requests reach r0's ingress; replies leave by egress.
ip netns exec "$sender" ping -q -c 3 -i 0.05 -Q 0x02 10.250.0.2 >/dev/null
ip netns exec "$sender" ping -q -c 2 -i 0.05 -Q 0x03 10.250.0.2 >/dev/null
stats=$(in_ns "$receiver" "$ecnstat" show r0 --json)
check_eq "ect(0) packets counted" 3 "$(echo "$stats" | jq .ect0)"
check_eq "ce packets counted" 2 "$(echo "$stats" | jq .ce)"
check_eq "total packets and bytes (5 x 98 B)" "5 490" \
	"$(echo "$stats" | jq -r '"\(.packets) \(.bytes)"')"

check "reset zeroes the counters" sh -c \
	"nsenter --net=/run/netns/$receiver $ecnstat reset r0 &&
	 nsenter --net=/run/netns/$receiver $ecnstat show r0 --json | jq -e '.packets == 0'"
check_fails "an unknown interface is an error" in_ns "$receiver" "$ecnstat" attach nosuchdev0
check "detach removes the program and the pin" sh -c \
	"nsenter --net=/run/netns/$receiver $ecnstat detach r0 &&
	 ! tc -n $receiver filter show dev r0 ingress | grep -q ecnstat &&
	 ! nsenter --net=/run/netns/$receiver $ecnstat show r0 2>/dev/null"
# An interface name with a quote and a backslash (Linux allows both):
# the JSON escapes them (ecnstat once printed the name raw).
ip -n "$receiver" link add 'e"q\x' type veth peer name eq0
check "show --json of an interface named e\"q\\x is valid JSON naming it" sh -c \
	"nsenter --net=/run/netns/$receiver $ecnstat attach 'e\"q\\x' &&
	 nsenter --net=/run/netns/$receiver $ecnstat show 'e\"q\\x' --json |
		jq -e '.dev == \"e\\\"q\\\\x\"' >/dev/null;
	 rc=\$?; nsenter --net=/run/netns/$receiver $ecnstat detach 'e\"q\\x'; exit \$rc"
out=$("$ecnstat" frobnicate lo 2>&1); rc=$?
check_eq "an unknown command exits 2 with usage" "2 yes" \
	"$rc $(echo "$out" | grep -q '^Usage' && echo yes)"

ktap_finished
