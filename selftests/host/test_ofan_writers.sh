#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_writers.sh - Ofan's three writers in any order: "ofan load"
# (reloads), "ofan port 1 down|up" (the operator), and "symofan daemon"
# (links and routes; restarted with kill -9), interleaved with link and
# route changes in two seeded permutations.  After each step the
# datapath's state must settle to what the operator and the kernel say
# (uplink 1 up while set up and its link is up; key 2's valid ports its
# route's), and a burst of packets to key 2 must all arrive, over the
# uplinks that state allows only.  At the end, the daemon finds nothing to
# correct against the kernel's routes.
#
#	hA --d0-- switch (sw) --u0-- upA (10.0.1.2)
#	                      \-u1-- upB (10.0.2.2)
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter jq bpftool awk
require_tools symofan rocegen
require_bpffs

pins=/sys/fs/bpf/ofan-writers-$$
tmp=$(mktemp -d /tmp/test_ofan_writers.XXXXXX)
on_exit rm -rf "$tmp"
log=$tmp/daemon.log
burst=40
actions=(reload "port down" "port up" "link down" "link up" "daemon restart"
	 "route u0" "route both")
ktap_plan $((2 * 2 * ${#actions[@]} + 2))

netns_create sw hA upA upB
veth_pair "$hA" eth0 10.1.1.2/24 "$sw" d0 10.1.1.1/24
veth_pair "$sw" u0 10.0.1.1/24 "$upA" eth0 10.0.1.2/24
veth_pair "$sw" u1 10.0.2.1/24 "$upB" eth0 10.0.2.2/24
ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
ip -n "$hA" route add default via 10.1.1.1
both="nexthop via 10.0.1.2 dev u0 nexthop via 10.0.2.2 dev u1"
ip -n "$sw" route add 10.9.0.0/24 $both
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force

conf=$tmp/ofan.conf
cat > "$conf" <<EOC
role edge
pin-dir $pins
seed 11
uplink 0 dev u0 via 10.0.1.2
uplink 1 dev u1 via 10.0.2.2
downlink dev d0
key 1 local
key 2
prefix 10.1.0.0/16 key 1
prefix 10.9.0.0/24 key 2
EOC
in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null

daemon_pid=""
on_exit 'kill -9 $daemon_pid'
start_daemon() {
	local i
	: > "$log"
	nsenter --net="/run/netns/$sw" "$symofan" daemon --pin-dir "$pins" \
		>> "$log" 2>&1 &
	daemon_pid=$!
	for i in $(seq 100); do
		grep -q '^in sync' "$log" && return 0
		sleep 0.02
	done
}
start_daemon

# the true state, as the operator and the kernel have it
admin1=up link1=up route2=both
act() {
	case "$1" in
	reload) in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null ;;
	"port down") in_ns "$sw" "$symofan" ofan port 1 down --pin-dir "$pins" >/dev/null
		admin1=down ;;
	"port up") in_ns "$sw" "$symofan" ofan port 1 up --pin-dir "$pins" >/dev/null
		admin1=up ;;
	"link down") ip -n "$upB" link set eth0 down; link1=down ;;
	"link up") ip -n "$upB" link set eth0 up; link1=up ;;
	"daemon restart")
		{ kill -9 "$daemon_pid"; wait "$daemon_pid"; } 2>/dev/null
		start_daemon ;;
	"route u0") ip -n "$sw" route replace 10.9.0.0/24 via 10.0.1.2 dev u0
		route2=u0 ;;
	"route both") ip -n "$sw" route replace 10.9.0.0/24 $both
		route2=both ;;
	esac
}
# "UP_PORTS VALID_PORTS_OF_KEY_2" as the datapath has them, and as it should
dp_state() {
	echo "$(ofan_lookup "$pins" ofan_config 0 |
		sed -n 's/.*"up_ports": \([0-9]*\).*/\1/p') $(
		ofan_lookup "$pins" ofan_dests 2 |
		sed -n 's/.*"valid_ports": \([0-9]*\).*/\1/p')"
}
want_state() {
	local up=1
	[ "$admin1" = up ] && [ "$link1" = up ] && up=3
	echo "$up $([ "$route2" = both ] && echo 3 || echo 1)"
}
rx() { ip -n "$1" -j -s link show dev eth0 | jq '.[0].stats64.rx.packets'; }
port_packets() {
	in_ns "$sw" "$symofan" ofan status --pin-dir "$pins" --json |
		jq -r '"\(.ports[0].packets) \(.ports[1].packets)"'
}

# permutation SEED: the actions in a seeded random order, one per line
permutation() {
	printf '%s\n' "${actions[@]}" | awk -v seed="$1" '
		BEGIN { srand(seed) }
		{ line[NR] = $0 }
		END {
			for (i = NR; i > 1; i--) {
				j = int(rand() * i) + 1
				t = line[i]; line[i] = line[j]; line[j] = t
			}
			for (i = 1; i <= NR; i++)
				print line[i]
		}'
}

step=0
# two orders (awk's generator, seeds 1 and 7), each from the state where
# uplink 1 is allowed: together they cross every writer with uplink 1
# both allowed and not
for seed in 1 7; do
	act "port up"; act "link up"; act "route both"
	while read -r a; do
		step=$((step + 1))
		act "$a"
		want=$(want_state)
		for i in $(seq 200); do
			got=$(dp_state)
			[ "$got" = "$want" ] && break
			sleep 0.01
		done
		check_eq "step $step ($a): the datapath settles to up ports and key 2's valid ports" \
			"$want" "$got"

		read -r p0 p1 <<<"$(port_packets)"
		before=$(( $(rx "$upA") + $(rx "$upB") ))
		ip netns exec "$hA" "$BUILD_DIR/rocegen" 10.9.0.5 \
			"job=1,step=1,count=$burst" >/dev/null
		for i in $(seq 100); do
			got=$(( $(rx "$upA") + $(rx "$upB") - before ))
			[ "$got" -ge "$burst" ] && break
			sleep 0.01
		done
		read -r q0 q1 <<<"$(port_packets)"
		used1=$((q1 - p1))
		usable1=no
		[ "$want" = "3 3" ] && usable1=yes
		check_eq "step $step ($a): $burst packets arrive, uplink 1 used only if allowed ($usable1)" \
			"$burst $usable1" \
			"$got $([ "$used1" -gt 0 ] && echo yes || echo no)"
	done < <(permutation "$seed")
done

in_ns "$sw" "$symofan" daemon --once --pin-dir "$pins" > "$tmp/once" 2>&1
check_eq "at the end the daemon finds nothing to correct against the kernel" \
	"" "$(grep -E '^(key|uplink)' "$tmp/once")"

# Reloads that change w under traffic: the config with both uplinks and
# one with uplink 0 only, 20 times each while packets flow to key 2.
# Each load publishes its whole set at once, so no packet sees a w with
# another load's ports or port orders: none takes the kernel path.
act "port up"; act "link up"; act "route both"
grep -v '^uplink 1 ' "$conf" > "$tmp/one_uplink.conf"
kernel_path() {
	in_ns "$sw" "$symofan" ofan status --pin-dir "$pins" --json |
		jq '.packets | .no_valid_port + .uplink_missing + .unknown_dst + .unconfigured'
}
reloads() {
	local i
	for i in $(seq 20); do
		in_ns "$sw" "$symofan" ofan load "$tmp/one_uplink.conf" >/dev/null
		in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null
	done
}
# time the reloads alone, then send for half as long again at 2000/s
t0=$(now_ms)
reloads
count=$(( ($(now_ms) - t0) * 3 ))
k_before=$(kernel_path)
before=$(( $(rx "$upA") + $(rx "$upB") ))
ip netns exec "$hA" "$BUILD_DIR/rocegen" --pps 2000 10.9.0.5 \
	"job=1,step=1,count=$count" >/dev/null &
sender=$!
reloads
loaded_while_sending=$(kill -0 "$sender" 2>/dev/null && echo yes || echo no)
wait "$sender"
for i in $(seq 200); do
	got=$(( $(rx "$upA") + $(rx "$upB") - before ))
	[ "$got" -ge "$count" ] && break
	sleep 0.01
done
check_eq "40 reloads changing w under $count packets: all arrive, none on the kernel path" \
	"yes $count 0" "$loaded_while_sending $got $(( $(kernel_path) - k_before ))"

ktap_finished
