# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# topology.sh - the model of tc-scripts/fattree.sh (sourced by it): the
# node and port tables of a k-ary fat tree, computed from k alone: names,
# addresses, MACs, port roles, peers and the routes through each port;
# and each switch's multipath hash seed.  Nothing here touches the system.
#
# Topology (k even, h = k/2): k pods of h edge and h aggregation switches,
# h*h core switches, h hosts under each edge switch.  Edge j of pod p links
# to every aggregation switch of pod p; aggregation j of pod p links to
# cores j*h .. j*h+h-1; core c links to aggregation c/h of every pod.
#
# Names (namespaces are PREFIX-NODE, default prefix "ft"):
#   hN    host N = E*h + i, the i-th host under edge switch E, 0..k^3/4-1
#   eP-J  edge switch J of pod P; its global index, the key, E = P*h + J
#   aP-J  aggregation switch J of pod P
#   cC    core switch C, 0..h*h-1
# Interfaces: hosts eth0; switches upN (to the layer above, N = the
# aggregation index on an edge, the core offset c - j*h on an
# aggregation) and dnN (to the layer below: N = host index i on an edge,
# edge index on an aggregation, pod on a core).
#
# Addresses (IPv4; IPv6 with --ipv6 mirrors them):
#   host i under edge E   10.0.E.(2+i)/24, gateway 10.0.E.1 (on every dnN
#                         of the edge switch); fd00::E:(2+i)/112, E in hex
#   edge key              E = third octet of a host address; pod = E / h
#   edge P-J upA <-> aggregation P-A dnJ:
#                         172.16.P.(2*(J*h+A)) aggregation side,
#                         172.16.P.(2*(J*h+A)+1) edge side, /31
#   aggregation P-J upI <-> core C = J*h+I dnP:
#                         172.16.(128+P).(2*C) core side, +1 aggregation
#                         side, /31
#   (IPv6 links: 172.16.X.Y/31 -> fd00:1::X:Y/127, X and Y in hex)
# MAC of a port: 02:RR:II:II:DD:NN with RR the role (01 host, 02 edge,
# 03 aggregation, 04 core), IIII the node's global index (host N, edge E,
# aggregation P*h+J, core C), DD 00 eth0, 01 up, 02 dn, and NN the port.
#
# Tables (filled by topology, from k):
#   nodes                      node names: hosts, edges, aggregations, cores
#   n_role n_pod n_idx n_key   per node: host/edge/aggregation/core, pod,
#                              index, edge key (hosts, edges) or pod
#                              (aggregations)
#   n_ports n_ord              per node: its port indices; its place in nodes
#   p_node p_if p_role p_idx   per port: node, interface, role (host,
#                              uplink, downlink), index N of upN/dnN
#   p_addr p_plen p_addr6 p_plen6 p_mac p_peer
#   p_routes p_routes6         destinations routed through the port

# The node part of a namespace name, as an extended regular expression.
node_name_re='h[0-9]+|[ea][0-9]+-[0-9]+|c[0-9]+'

# mac ROLE GID DIR PORT
mac() {
	printf -v REPLY '02:%02x:%02x:%02x:%02x:%02x' "$1" $(($2 >> 8)) \
		$(($2 & 255)) "$3" "$4"
}

# The IPv6 twin of a link address 172.16.X.Y, fd00:1::X:Y, and of a host
# address 10.0.E.Y, fd00::E:Y (hex, canonical: fd00::Y when E is 0).
v6link() { v6pair fd00:1 "$1" "$2"; }
v6host() { v6pair fd00 "$1" "$2"; }
v6pair() {
	if [ "$2" -ne 0 ]; then
		printf -v REPLY '%s::%x:%x' "$1" "$2" "$3"
	elif [ "$3" -ne 0 ]; then
		printf -v REPLY '%s::%x' "$1" "$3"
	else
		REPLY=$1::
	fi
}

# cover FIRST COUNT: the fewest aligned CIDR blocks of the host /24s of
# edge keys FIRST..FIRST+COUNT-1, as REPLY (IPv4) and REPLY6.
cover() {
	local s=$1 n=$2 b size out="" out6=""
	while [ "$n" -gt 0 ]; do
		b=0
		while size=$((1 << (b + 1))) && [ $((s % size)) -eq 0 ] &&
			[ "$size" -le "$n" ]; do
			b=$((b + 1))
		done
		out+=" 10.0.$s.0/$((24 - b))"
		v6host "$s" 0
		out6+=" $REPLY/$((112 - b))"
		s=$((s + (1 << b)))
		n=$((n - (1 << b)))
	done
	REPLY=${out# }
	REPLY6=${out6# }
}

# add_port NODE IFNAME ROLE INDEX ADDR PLEN MAC ADDR6 PLEN6 ROUTES ROUTES6
# (the peer fields are set by link)
add_port() {
	local i=${#p_node[@]}
	p_node[i]=$1 p_if[i]=$2 p_role[i]=$3 p_idx[i]=$4 p_addr[i]=$5
	p_plen[i]=$6 p_mac[i]=$7 p_addr6[i]=$8 p_plen6[i]=$9
	p_routes[i]=${10} p_routes6[i]=${11}
	n_ports[$1]+=" $i"
	REPLY=$i
}

# link LOWER_PORT UPPER_PORT: the two port indices are peers.
link() {
	p_peer[$1]=$2
	p_peer[$2]=$1
}

# add_node NAME ROLE POD INDEX KEY
add_node() {
	n_ord[$1]=${#nodes[@]}
	nodes+=("$1")
	n_role[$1]=$2 n_pod[$1]=$3 n_idx[$1]=$4 n_key[$1]=$5
	n_ports[$1]=""
}

# topology: fills the tables for k (and sets h).
topology() {
	local p j a i c e n lo ax ay m a6 r6 pod4 pod6
	h=$((k / 2))
	nodes=()
	p_node=() p_if=() p_role=() p_idx=() p_addr=() p_plen=() p_mac=()
	p_addr6=() p_plen6=() p_routes=() p_routes6=() p_peer=()
	declare -gA n_role=() n_pod=() n_idx=() n_key=() n_ports=() n_ord=()

	for ((n = 0; n < k * h * h; n++)); do
		add_node "h$n" host $((n / h / h)) "$n" $((n / h))
	done
	for ((p = 0; p < k; p++)); do
		for ((j = 0; j < h; j++)); do
			add_node "e$p-$j" edge "$p" "$j" $((p * h + j))
		done
	done
	for ((p = 0; p < k; p++)); do
		for ((j = 0; j < h; j++)); do
			add_node "a$p-$j" aggregation "$p" "$j" "$p"
		done
	done
	for ((c = 0; c < h * h; c++)); do
		add_node "c$c" core "" "$c" ""
	done

	# Hosts and edge switches.
	for ((e = 0; e < k * h; e++)); do
		p=$((e / h)) j=$((e % h))
		for ((i = 0; i < h; i++)); do
			n=$((e * h + i))
			mac 1 "$n" 0 0; m=$REPLY
			v6host "$e" $((2 + i)); a6=$REPLY
			add_port "h$n" eth0 host 0 "10.0.$e.$((2 + i))" 24 \
				"$m" "$a6" 112 0.0.0.0/0 ::/0
			lo=$REPLY
			mac 2 "$e" 2 "$i"; m=$REPLY
			v6host "$e" 1
			add_port "e$p-$j" "dn$i" downlink "$i" "10.0.$e.1" 24 \
				"$m" "$REPLY" 112 "10.0.$e.$((2 + i))/32" "$a6/128"
			link "$lo" "$REPLY"
		done
	done

	# Edge and aggregation switches.
	for ((p = 0; p < k; p++)); do
		for ((j = 0; j < h; j++)); do
			e=$((p * h + j))
			for ((a = 0; a < h; a++)); do
				ax=$p ay=$((2 * (j * h + a)))
				mac 2 "$e" 1 "$a"; m=$REPLY
				v6link "$ax" $((ay + 1))
				add_port "e$p-$j" "up$a" uplink "$a" \
					"172.16.$ax.$((ay + 1))" 31 "$m" "$REPLY" 127 \
					0.0.0.0/0 ::/0
				lo=$REPLY
				mac 3 $((p * h + a)) 2 "$j"; m=$REPLY
				v6host "$e" 0; r6=$REPLY/112
				v6link "$ax" "$ay"
				add_port "a$p-$a" "dn$j" downlink "$j" \
					"172.16.$ax.$ay" 31 "$m" "$REPLY" 127 \
					"10.0.$e.0/24" "$r6"
				link "$lo" "$REPLY"
			done
		done
	done

	# Aggregation and core switches.
	for ((p = 0; p < k; p++)); do
		cover $((p * h)) "$h"
		pod4=$REPLY pod6=$REPLY6
		for ((j = 0; j < h; j++)); do
			for ((i = 0; i < h; i++)); do
				c=$((j * h + i)) ax=$((128 + p)) ay=$((2 * (j * h + i)))
				mac 3 $((p * h + j)) 1 "$i"; m=$REPLY
				v6link "$ax" $((ay + 1))
				add_port "a$p-$j" "up$i" uplink "$i" \
					"172.16.$ax.$((ay + 1))" 31 "$m" "$REPLY" 127 \
					0.0.0.0/0 ::/0
				lo=$REPLY
				mac 4 "$c" 2 "$p"; m=$REPLY
				v6link "$ax" "$ay"
				add_port "c$c" "dn$p" downlink "$p" \
					"172.16.$ax.$ay" 31 "$m" "$REPLY" 127 \
					"$pod4" "$pod6"
				link "$lo" "$REPLY"
			done
		done
	done
}

# ordered_ports NODE: its port indices, uplinks first.
ordered_ports() {
	local pi up="" other=""
	for pi in ${n_ports[$1]}; do
		if [ "${p_role[pi]}" = uplink ]; then
			up+=" $pi"
		else
			other+=" $pi"
		fi
	done
	echo "${up# }${other}"
}

# node_seed NODE: the multipath hash seed of a switch, from --seed and the
# node; never 0 (which means the kernel's seed, the same in every netns:
# all switches would hash alike and the aggregation layer would follow
# the edge layer's choice, using half of the core switches).
node_seed() {
	local x=$(( (seed * 2654435761 + (${n_ord[$1]} + 1) * 2246822519) & 0xffffffff ))
	x=$(( ((x ^ (x >> 16)) * 2146121005) & 0xffffffff ))
	x=$(( x ^ (x >> 15) ))
	[ "$x" -ne 0 ] || x=1
	echo "$x"
}
