#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_nexthop_objects.sh - "symofan daemon" follows routes through
# nexthop objects (ip nexthop, RTA_NH_ID), as FRR installs them, with
# net.ipv4.nexthop_compat_mode 0: the kernel then names only the object in
# a route and sends no route message when the object's group changes, so
# the daemon must follow the objects themselves.  A key's valid ports track
# a group's members being replaced, deleted and restored, and a route moved
# to a single next hop object.
#
#	hA --d0-- switch (sw) --u0-- upA (10.0.1.2)
#	                      \-u1-- upB (10.0.2.2)
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter bpftool
require_tools symofan
require_bpffs

pins=/sys/fs/bpf/ofan-nhobj-$$
tmp=$(mktemp -d /tmp/test_ofan_nexthop_objects.XXXXXX)
on_exit rm -rf "$tmp"
log=$tmp/daemon.log

netns_create sw hA upA upB
veth_pair "$hA" eth0 10.1.1.2/24 "$sw" d0 10.1.1.1/24
veth_pair "$sw" u0 10.0.1.1/24 "$upA" eth0 10.0.1.2/24
veth_pair "$sw" u1 10.0.2.1/24 "$upB" eth0 10.0.2.2/24
ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$sw" sysctl -qw net.ipv4.nexthop_compat_mode=0 2>/dev/null ||
	ktap_skip_all "no net.ipv4.nexthop_compat_mode in this kernel"
ip -n "$sw" nexthop add id 1 via 10.0.1.2 dev u0 ||
	ktap_skip_all "no nexthop objects in this kernel"
ip -n "$sw" nexthop add id 2 via 10.0.2.2 dev u1
ip -n "$sw" nexthop add id 10 group 1/2
ip -n "$sw" route add 10.9.0.0/24 nhid 10
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force

ktap_plan 7

cat > "$tmp/ofan.conf" <<EOC
role edge
pin-dir $pins
uplink 0 dev u0 via 10.0.1.2
uplink 1 dev u1 via 10.0.2.2
downlink dev d0
key 1 local
key 2
key 3			# no route: its configured ports stay
prefix 10.1.0.0/16 key 1
prefix 10.9.0.0/24 key 2
prefix 10.6.0.0/24 key 3
EOC

valid_ports() {
	ofan_lookup "$pins" ofan_dests "$1" |
		sed -n 's/.*"valid_ports": \([0-9]*\).*/\1/p'
}
# (one key per probe: each ofan_lookup is two bpftool runs, ~6 ms each)
probe() { valid_ports 2; }
in_ns "$sw" "$symofan" ofan load "$tmp/ofan.conf" >/dev/null
check_eq "the load reads the route's group: both uplinks for key 2" "3 3" \
	"$(valid_ports 2) $(valid_ports 3)"

nsenter --net="/run/netns/$sw" "$symofan" daemon --pin-dir "$pins" >"$log" 2>&1 &
daemon_pid=$!
on_exit 'kill $daemon_pid'
for i in $(seq 100); do grep -q '^in sync' "$log" && break; sleep 0.02; done

react "the group loses uplink 1 (no route message)" 1 probe \
	ip -n "$sw" nexthop replace id 10 group 1
react "the group has both again" 3 probe \
	ip -n "$sw" nexthop replace id 10 group 1/2
react "nexthop 1 deleted: the group keeps uplink 1" 2 probe \
	ip -n "$sw" nexthop del id 1
ip -n "$sw" nexthop add id 1 via 10.0.1.2 dev u0
react "the route moves to nexthop object 1 alone" 1 probe \
	ip -n "$sw" route replace 10.9.0.0/24 nhid 1
react "and to the group, rebuilt" 3 probe \
	sh -c "ip -n $sw nexthop replace id 10 group 1/2 &&
	       ip -n $sw route replace 10.9.0.0/24 nhid 10"
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
in_ns "$sw" "$symofan" daemon --once --pin-dir "$pins" > "$tmp/once" 2>&1
check_eq "daemon --once agrees: nothing to correct; key 3 (no route) kept its ports" \
	" 3" "$(grep -E '^(key|uplink)' "$tmp/once") $(valid_ports 3)"

ktap_finished
