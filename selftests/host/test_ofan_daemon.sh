#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_daemon.sh - "symofan daemon" on a small switch made of network
# namespaces with multipath routes: --once derives each key's valid ports
# from the routes (exact prefix, longest covering route, intersection over
# a key's prefixes, configured ports when there is no route); running, it
# follows carrier and admin state of an uplink and a route that loses a
# nexthop within 100 ms, while traffic is delivered and avoids the
# withdrawn uplink; kill -9 leaves maps and forwarding alone, a restart
# keeps every pointer and catches up; bad input exits 1 or 2.
#
#	hA --d0--\            /--u0-- upA (10.0.1.2)
#	          switch (sw)
#	hB --d1--/            \--u1-- upB (10.0.2.2)
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter jq bpftool
require_tools symofan rocegen
require_bpffs

pins=/sys/fs/bpf/ofan-daemon-$$
tmp=$(mktemp -d /tmp/test_ofan_daemon.XXXXXX)
on_exit rm -rf "$tmp"
log=$tmp/daemon.log

ktap_plan 40

netns_create sw hA hB upA upB
veth_pair "$hA" eth0 10.1.1.2/24 "$sw" d0 10.1.1.1/24
veth_pair "$hB" eth0 10.1.2.2/24 "$sw" d1 10.1.2.1/24
veth_pair "$sw" u0 10.0.1.1/24 "$upA" eth0 10.0.1.2/24
veth_pair "$sw" u1 10.0.2.1/24 "$upB" eth0 10.0.2.2/24
ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
ip -n "$hA" route add default via 10.1.1.1
ip -n "$hB" route add default via 10.1.2.1
both="nexthop via 10.0.1.2 dev u0 nexthop via 10.0.2.2 dev u1"
for net in 10.9.0.0/24 10.9.1.0/24 10.9.2.0/24 10.5.0.0/24; do
	ip -n "$sw" route add "$net" $both
done
ip -n "$sw" route add 10.8.0.0/16 via 10.0.1.2 dev u0	# covers key 6
ip -n "$sw" route add 10.5.1.0/24 via 10.0.2.2 dev u1	# key 7's second
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force

conf=$tmp/ofan.conf
cat > "$conf" <<EOF
role edge
pin-dir $pins
seed 7
uplink 0 dev u0 via 10.0.1.2
uplink 1 dev u1 via 10.0.2.2
downlink dev d0
downlink dev d1
key 1 local
key 2 ports all
key 3 ports all
key 4 ports 1		# listed ports: ANDed with the route's
key 5			# no route at all: stays as configured
key 6			# no route of its own: 10.8.0.0/16 covers it
key 7			# two prefixes: the intersection
prefix 10.1.0.0/16 key 1
prefix 10.9.0.0/24 key 2
prefix 10.9.1.0/24 key 3
prefix 10.9.2.0/24 key 4
prefix 10.6.0.0/24 key 5
prefix 10.8.0.0/24 key 6
prefix 10.5.0.0/24 key 7
prefix 10.5.1.0/24 key 7
EOF

status() { in_ns "$sw" "$symofan" ofan status --pin-dir "$pins" --json; }
keys_of() { jq -c '[.keys[] | "\(.key) \(.valid_ports | map(tostring) | join(","))"]' <<<"$1"; }
# (bpftool's BTF-formatted text and sed: a probe takes ~6 ms, jq ~40)
up_ports() {
	ofan_lookup "$pins" ofan_config 0 |
		sed -n 's/.*"up_ports": \([0-9]*\).*/\1/p'
}
valid_ports() {
	ofan_lookup "$pins" ofan_dests "$1" |
		sed -n 's/.*"valid_ports": \([0-9]*\).*/\1/p'
}
probe_up() { up_ports; }
probe_key2() { valid_ports 2; }
probe_key6() { valid_ports 6; }
rx() { ip -n "$1" -j -s link show dev "$2" | jq '.[0].stats64.rx.packets'; }
uppers() { echo "$(rx "$upA" eth0) $(rx "$upB" eth0)"; }
ports_of() { jq -r '"\(.ports[0].packets) \(.ports[1].packets)"' <<<"$1"; }
delta() {
	local a=($1) b=($2)
	echo "$((b[0] - a[0])) $((b[1] - a[1]))"
}
sum() { local a=($1); echo $((a[0] + a[1])); }
wait_uppers() {	# wait_uppers BEFORE TOTAL
	local i
	for i in $(seq 60); do
		[ "$(sum "$(delta "$1" "$(uppers)")")" -ge "$2" ] && return 0
		sleep 0.05
	done
}
send() {	# send COUNT DEST [ROCEGEN OPTIONS]
	local count=$1 dest=$2
	shift 2
	ip netns exec "$hA" "$rocegen" "$@" "$dest" "job=1,step=1,count=$count" >/dev/null
}
daemon_pid=""
# start_daemon, then check NAME synced (not in a subshell: the pid stays)
start_daemon() {
	: > "$log"
	# nsenter execs symofan: $! is the daemon itself
	nsenter --net="/run/netns/$sw" "$symofan" daemon --pin-dir "$pins" \
		>> "$log" 2>&1 &
	daemon_pid=$!
}
synced() {
	local i
	for i in $(seq 100); do
		grep -q '^in sync' "$log" && return 0
		sleep 0.02
	done
	cat "$log"
	return 1
}
on_exit 'kill -9 $daemon_pid'
# exits CODE PATTERN COMMAND...: COMMAND exits CODE, its first line of
# stderr matches PATTERN, and (unless CODE is 2) it is its only line.
exits() {
	local code=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
	if [ "$rc" -ne "$code" ] || ! head -n 1 <<<"$out" | grep -q -- "$pat" ||
	   { [ "$code" -ne 2 ] && [ "$(wc -l <<<"$out")" -ne 1 ]; }; then
		echo "exit $rc, stderr:"
		echo "$out"
		return 1
	fi
}

check "load the switch" in_ns "$sw" "$symofan" ofan load "$conf"
st=$(status)
check_eq "the load takes the routes at once: configured ports, a covering route, an intersection" \
	'["1 ","2 0,1","3 0,1","4 1","5 0,1","6 0","7 1"]' "$(keys_of "$st")"

# a route that appears while no daemon runs: --once catches up
ip -n "$sw" route add 10.6.0.0/24 via 10.0.1.2 dev u0	# key 5 via u0
in_ns "$sw" "$symofan" daemon --once --pin-dir "$pins" > "$tmp/once" 2>&1 &&
	rc=0 || rc=$?
check_eq "daemon --once exits 0" 0 "$rc"
st=$(status)
check_eq "--once: key 5 follows its new route" \
	'["1 ","2 0,1","3 0,1","4 1","5 0","6 0","7 1"]' "$(keys_of "$st")"
check_eq "--once logs one line per change" "key 5: valid ports 0x3 -> 0x1" \
	"$(grep '^key' "$tmp/once" | paste -sd '|')"
in_ns "$sw" "$symofan" daemon --once --pin-dir "$pins" > "$tmp/once" 2>&1
check_eq "a second --once writes nothing" "" "$(grep -E '^(key|uplink)' "$tmp/once")"
ip -n "$sw" route del 10.6.0.0/24

start_daemon
check "the daemon starts and syncs" synced
react "peer's end down: uplink 1 off" 1 probe_up ip -n "$upB" link set eth0 down
react "peer's end up: uplink 1 back" 3 probe_up ip -n "$upB" link set eth0 up
react "ip link set u0 down: uplink 0 off" 2 probe_up ip -n "$sw" link set u0 down
react "ip link set u0 up: uplink 0 back" 3 probe_up ip -n "$sw" link set u0 up
# u0 down flushed 10.8.0.0/16 without a netlink message: key 6 has no
# route left, so its configured ports; the multipath routes came back
check_eq "u0 down/up: key 6 lost its route (configured ports), the others as before" \
	'["1 ","2 0,1","3 0,1","4 1","5 0,1","6 0,1","7 1"]' "$(keys_of "$(status)")"
ip -n "$sw" neigh replace 10.0.1.2 dev u0 lladdr \
	"$(ip -n "$upA" -br link show eth0 | awk '{ print $3 }')"
react "10.8.0.0/16 via u0 again: key 6 valid ports" 1 probe_key6 \
	ip -n "$sw" route add 10.8.0.0/16 via 10.0.1.2 dev u0

# a multipath route loses a nexthop while 600 packets flow to it
before=$(uppers)
send 600 10.9.0.5 --pps 3000 &
sender=$!
sleep 0.05
keys_before=$(keys_of "$(status)")
react "key 2's route loses uplink 1: valid ports" 1 probe_key2 \
	ip -n "$sw" route replace 10.9.0.0/24 nexthop via 10.0.1.2 dev u0
check_eq "the other keys are unchanged" \
	"$(jq -c 'map(select(startswith("2 ") | not))' <<<"$keys_before")" \
	"$(keys_of "$(status)" | jq -c 'map(select(startswith("2 ") | not))')"
wait "$sender"
wait_uppers "$before" 600
check_eq "all 600 packets sent across the withdrawal are delivered" 600 \
	"$(sum "$(delta "$before" "$(uppers)")")"
before=$(uppers)
p_before=$(ports_of "$(status)")
send 200 10.9.0.5
wait_uppers "$before" 200
check_eq "afterwards no packet uses the withdrawn uplink, all delivered" \
	"200 0 200 0" \
	"$(delta "$p_before" "$(ports_of "$(status)")") $(delta "$before" "$(uppers)")"
react "the second nexthop returns: valid ports" 3 probe_key2 \
	ip -n "$sw" route replace 10.9.0.0/24 $both
check "the log says what changed, one line each" sh -c "
	grep -qx 'uplink 1 (u1) down' '$log' && grep -qx 'uplink 0 (u0) up' '$log' &&
	grep -qx 'key 2: valid ports 0x3 -> 0x1' '$log' &&
	grep -qx 'key 2: valid ports 0x1 -> 0x3' '$log'"

# the operator's "port 1 down" survives the daemon's link events
in_ns "$sw" "$symofan" ofan port 1 down --pin-dir "$pins" >/dev/null
ip -n "$upB" link set eth0 down
ip -n "$upB" link set eth0 up
react "with uplink 1 set down by the operator, link events leave it down" 0 \
	probe_up ip -n "$sw" link set u0 down
react "uplink 0 back once its link is, uplink 1 still down" 1 probe_up \
	ip -n "$sw" link set u0 up
check_jq "status tells the operator's state from the link's" \
	'[.ports[] | "\(.up) \(.admin_up) \(.link_up)"] ==
	 ["true true true", "false false true"]' "$(status)"
react "the operator sets it up: up again" 3 probe_up \
	in_ns "$sw" "$symofan" ofan port 1 up --pin-dir "$pins"
ip -n "$sw" neigh replace 10.0.1.2 dev u0 lladdr \
	"$(ip -n "$upA" -br link show eth0 | awk '{ print $3 }')"
ip -n "$sw" route add 10.8.0.0/16 via 10.0.1.2 dev u0 2>/dev/null

# a reload under the running daemon agrees with the routes at once
ip -n "$sw" route replace 10.9.0.0/24 nexthop via 10.0.1.2 dev u0
react "key 2's route via uplink 0 only" 1 probe_key2 true
in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null
check_eq "a reload with the daemon running keeps key 2 on uplink 0 at once" \
	1 "$(probe_key2)"
react "the daemon follows the reload: key 2 regains uplink 1" 3 probe_key2 \
	ip -n "$sw" route replace 10.9.0.0/24 $both

# unload and load again: the daemon follows the new maps
in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" >/dev/null
in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null
react "after unload and load, the daemon writes the new maps: uplink 1 off" 1 \
	probe_up ip -n "$upB" link set eth0 down
react "and on" 3 probe_up ip -n "$upB" link set eth0 up
check "it said it follows the new load" \
	grep -q "was loaded again: reading it and $conf anew" "$log"

# kill -9: nothing changes; a change made meanwhile is caught up later
st=$(status)
{ kill -9 "$daemon_pid"; wait "$daemon_pid"; } 2>/dev/null
gone=$(kill -0 "$daemon_pid" 2>/dev/null && echo alive || echo gone)
daemon_pid=""
st2=$(status)
check_eq "kill -9 leaves ports, keys and pointers as they were" \
	"gone $(jq -c '[.up_ports_mask, .keys, .rr_pointer]' <<<"$st")" \
	"$gone $(jq -c '[.up_ports_mask, .keys, .rr_pointer]' <<<"$st2")"
before=$(uppers)
p_before=$(ports_of "$st2")
send 100 10.9.0.5
wait_uppers "$before" 100
check_eq "forwarding goes on without the daemon, over both uplinks" \
	"50 50 50 50" \
	"$(delta "$p_before" "$(ports_of "$(status)")") $(delta "$before" "$(uppers)")"
ip -n "$sw" route replace 10.9.1.0/24 via 10.0.2.2 dev u1
st=$(status)
start_daemon
check "a restarted daemon syncs" synced
st2=$(status)
check_eq "and catches up: key 3 lost uplink 0 meanwhile" '["3 1"]' \
	"$(keys_of "$st2" | jq -c 'map(select(startswith("3 ")))')"
check_eq "a restart changes no pointer" \
	"$(jq -c '[.keys[] | {key, pointers}], .rr_pointer' <<<"$st")" \
	"$(jq -c '[.keys[] | {key, pointers}], .rr_pointer' <<<"$st2")"
kill -TERM "$daemon_pid"
wait "$daemon_pid" && rc=0 || rc=$?
daemon_pid=""
check_eq "SIGTERM: exit 0 after saying so" "0 1" \
	"$rc $(grep -c '^exiting on' "$log")"

# bad input
check "no pin folder: exit 1, one line" \
	exits 1 "nothing loaded at /sys/fs/bpf/nothing-$$" \
	in_ns "$sw" "$symofan" daemon --once --pin-dir "/sys/fs/bpf/nothing-$$"
check "a pin folder not on bpffs: exit 1, one line" \
	exits 1 "$tmp is not on a bpf filesystem" \
	in_ns "$sw" "$symofan" daemon --once --pin-dir "$tmp"
check "another network namespace: exit 1, one line" \
	exits 1 "was loaded in network namespace" \
	in_ns "$hA" "$symofan" daemon --once --pin-dir "$pins"
check "an unknown option: exit 2" \
	exits 2 "daemon: unknown option '--bogus'" \
	"$symofan" daemon --bogus
check "an unknown letter in a cluster is named, not the word before it" \
	exits 2 "daemon: unknown option '-x'" \
	"$symofan" daemon -xv

ktap_finished
