#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_frr.sh - "symofan daemon" under a real routing daemon: FRR's
# bgpd in each namespace (tc-scripts/frr-netns.sh).  Two upstream routers
# announce the destination prefix by eBGP; the switch's bgpd installs a
# multipath route (through nexthop objects, as FRR 8 does) and Ofan uses
# both uplinks for the key; when one router withdraws the prefix, bgpd
# shrinks the route and the daemon takes that uplink out of the key's
# valid ports, other keys unchanged, while traffic keeps arriving; the
# announcement back restores it.
#
#	hA --d0-- sw (AS 65000) --u0-- rA (AS 65001) --+
#	                         \-u1-- rB (AS 65002) --+-- dst 10.9.0.2
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter jq bpftool vtysh
[ -x /usr/lib/frr/bgpd ] || ktap_skip_all "FRR is not installed (apt-get install frr)"
require_tools symofan rocegen
require_bpffs

frr=$TOP_DIR/tc-scripts/frr-netns.sh
pins=/sys/fs/bpf/ofan-frr-$$
tmp=$(mktemp -d /tmp/test_ofan_frr.XXXXXX)
chmod 755 "$tmp"	# FRR runs as user frr
on_exit rm -rf "$tmp"

ktap_plan 9

netns_create sw hA rA rB dst
veth_pair "$hA" eth0 10.1.1.2/24 "$sw" d0 10.1.1.1/24
veth_pair "$sw" u0 10.0.1.1/24 "$rA" e0 10.0.1.2/24
veth_pair "$sw" u1 10.0.2.1/24 "$rB" e0 10.0.2.2/24
veth_pair "$rA" e1 10.2.1.1/24 "$dst" ea 10.2.1.2/24
veth_pair "$rB" e1 10.2.2.1/24 "$dst" eb 10.2.2.2/24
ip -n "$dst" addr add 10.9.0.2/24 dev lo
ip -n "$dst" addr add 10.7.0.2/24 dev lo
ip -n "$dst" route add 10.1.0.0/16 via 10.2.1.1
for ns in "$sw" "$rA" "$rB"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1
done
ip -n "$hA" route add default via 10.1.1.1
for r in "$rA" "$rB"; do
	ip -n "$r" route add 10.9.0.0/24 via "$(ip -n "$r" -j addr show e1 |
		jq -r '.[0].addr_info[0].local' | sed 's/\.1$/.2/')"
	ip -n "$r" route add 10.7.0.0/24 via "$(ip -n "$r" -j addr show e1 |
		jq -r '.[0].addr_info[0].local' | sed 's/\.1$/.2/')"
	ip -n "$r" route add 10.1.0.0/16 via "$(ip -n "$r" -j addr show e0 |
		jq -r '.[0].addr_info[0].local' | sed 's/\.2$/.1/')"
done

# bgpd.conf of namespace $1: AS $2, router id $3, prefixes to announce
# in $4 (space separated, may be empty), then neighbours as IP:AS
bgp_conf() {
	local ns=$1 as=$2 id=$3 nets=$4 n net
	shift 4
	mkdir -p "$tmp/$ns"
	{
		echo "router bgp $as"
		echo " bgp router-id $id"
		echo " no bgp ebgp-requires-policy"
		echo " bgp bestpath as-path multipath-relax"
		echo " timers bgp 1 3"
		for n in "$@"; do
			echo " neighbor ${n%:*} remote-as ${n#*:}"
			echo " neighbor ${n%:*} timers connect 1"
			echo " neighbor ${n%:*} advertisement-interval 0"
		done
		echo " address-family ipv4 unicast"
		for net in $nets; do echo "  network $net"; done
		echo "  maximum-paths 4"
		echo " exit-address-family"
	} > "$tmp/$ns/bgpd.conf"
}
bgp_conf "$rA" 65001 10.0.1.2 "10.9.0.0/24 10.7.0.0/24" 10.0.1.1:65000
bgp_conf "$rB" 65002 10.0.2.2 "10.9.0.0/24 10.7.0.0/24" 10.0.2.1:65000
bgp_conf "$sw" 65000 10.0.1.1 "" 10.0.1.2:65001 10.0.2.2:65002
for ns in "$rA" "$rB" "$sw"; do
	on_exit "$frr" stop "$ns" "$tmp/$ns"
	"$frr" start "$ns" "$tmp/$ns"
done

route_paths() {	# the number of nexthops of the switch's route to $1
	ip -n "$sw" -j route show "$1" |
		jq '[.[0] | (.nexthops // [.]) | .[] | select(.gateway)] | length'
}
for _ in $(seq 150); do
	[ "$(route_paths 10.9.0.0/24) $(route_paths 10.7.0.0/24)" = "2 2" ] && break
	sleep 0.1
done
check_eq "bgpd installs a two-path route to each announced prefix" "2 2" \
	"$(route_paths 10.9.0.0/24) $(route_paths 10.7.0.0/24)"

cat > "$tmp/ofan.conf" <<EOF
role edge
pin-dir $pins
seed 3
uplink 0 dev u0 via 10.0.1.2
uplink 1 dev u1 via 10.0.2.2
downlink dev d0
key 1 local
key 2
key 3
prefix 10.1.0.0/16 key 1
prefix 10.9.0.0/24 key 2
prefix 10.7.0.0/24 key 3
EOF
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force
check "Ofan loads on the switch" in_ns "$sw" "$symofan" ofan load "$tmp/ofan.conf"

valid() {
	ofan_lookup -j "$pins" ofan_dests "$1" |
		jq .formatted.value.valid_ports
}
# wait_ms WANT CMD...: ms until CMD prints WANT (polled), or "timeout"
wait_ms() {
	local want=$1 t0
	shift
	t0=$(date +%s%N)
	while [ "$("$@")" != "$want" ]; do
		[ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 10000 ] || { echo timeout; return; }
		sleep 0.005
	done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
in_ns "$sw" "$symofan" daemon --pin-dir "$pins" >"$tmp/daemon.log" 2>&1 &
daemon=$!
on_exit kill "$daemon"
sleep 0.3
check_eq "the daemon finds both uplinks valid for both keys" "3 3" "$(valid 2) $(valid 3)"

ports() { in_ns "$sw" "$symofan" ofan status --pin-dir "$pins" --json | jq -c '[.ports[].packets]'; }
rx() { ip -n "$dst" -j -s link show "$1" | jq '.[0].stats64.rx.packets'; }
send() { ip netns exec "$hA" "$rocegen" --pps 2000 10.9.0.2 "job=1,step=1,count=$1" >/dev/null; }

# rB withdraws 10.9.0.0/24 while hA sends to it
rxa=$(rx ea); rxb=$(rx eb)
send 600 & sender=$!
sleep 0.1
t0=$(date +%s%N)
"$frr" vtysh "$rB" "$tmp/$rB" -c "configure terminal" -c "router bgp 65002" \
	-c "address-family ipv4 unicast" -c "no network 10.9.0.0/24" >/dev/null
ms=$(wait_ms 1 route_paths 10.9.0.0/24)
ms_map=$(wait_ms 1 valid 2)
ktap_print "withdrawal: kernel route after ${ms} ms, key 2's valid ports after $(( ($(date +%s%N) - t0) / 1000000 )) ms from the vtysh command"
check "bgpd's shrunk route takes uplink 1 out of key 2 (valid ports 0x1)" \
	test "$ms_map" != timeout
check_eq "key 3, still announced by both, keeps both uplinks" 3 "$(valid 3)"
wait "$sender"
sleep 0.3
check_eq "every packet sent across the withdrawal arrives" 600 \
	$(( $(rx ea) + $(rx eb) - rxa - rxb ))
before=$(ports)
send 200
sleep 0.3
check_eq "after it, key 2's packets all take uplink 0" "200 0" \
	"$(jq -n -r --argjson b "$before" --argjson a "$(ports)" '[range(2) | $a[.] - $b[.]] | join(" ")')"

"$frr" vtysh "$rB" "$tmp/$rB" -c "configure terminal" -c "router bgp 65002" \
	-c "address-family ipv4 unicast" -c "network 10.9.0.0/24" >/dev/null
ms=$(wait_ms 3 valid 2)
ktap_print "announcement back: key 2 valid on both after $ms ms"
check "the announcement back restores uplink 1 for key 2" test "$ms" != timeout
check "the daemon logged each change" grep -q "key 2: valid ports 0x3 -> 0x1" "$tmp/daemon.log"

ktap_finished
