#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fattree.sh - builds a k-ary fat tree of network namespaces joined by
# veth links, routed by the kernel alone (IP forwarding, multipath routes
# hashed on L4 ports), for the Ofan load balancer's tests and benchmarks.
#
# Usage: tc-scripts/fattree.sh COMMAND [--prefix NAME] ...   (as root)
#   up [-k K] [--rate RATE] [--delay TIME] [--qdisc KIND [--qdisc-args ARGS]]
#      [--ipv6] [--arp] [--seed N] [--force]
#   down | status | info [--json] | exec NODE CMD...
# Details: usage() below and tc-scripts/README.md.
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
# Routes (the kernel alone delivers everything): a host has its default
# route via 10.0.E.1 (its /24 is not on-link: noprefixroute); an edge
# switch a /32 per host on its dnN, "unreachable" for the rest of its /24
# and a default route multipath over its upN; an aggregation switch the
# /24 of each edge of its pod via dnJ and a default multipath over its
# upN; a core switch each pod's /24s (fewest aligned blocks: 10.0.2P.0/23
# for k=4) via dnP.  Switches hash flows on addresses, protocol and ports
# with a seed of their own (see node_sysctls); rp_filter and redirects are
# off, IPv6 is disabled unless --ipv6, and neighbours are static entries
# unless --arp.
# MAC of a port: 02:RR:II:II:DD:NN with RR the role (01 host, 02 edge,
# 03 aggregation, 04 core), IIII the node's global index (host N, edge E,
# aggregation P*h+J, core C), DD 00 eth0, 01 up, 02 dn, and NN the port.
set -euo pipefail

prog=${0##*/}
state_dir=${FATTREE_STATE_DIR:-/run/fattree}

log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }

usage() {
	cat <<EOF
Usage: $prog COMMAND [OPTIONS]
  up [OPTIONS]        build the fat tree
     -k K               switch radix, even, 2..16 (default 4: 16 hosts,
                        20 switches)
     --prefix NAME      namespace name prefix (default ft): PREFIX-h0, ...
     --rate RATE        HTB root qdisc of that rate on every link end
     --delay TIME       netem delay on every link end (under the HTB when
                        --rate is given, else as the root qdisc)
     --qdisc KIND       leaf qdisc under the HTB of switch ports (needs --rate)
     --qdisc-args ARGS  its parameters, one string ("limit 100")
     --ipv6             also IPv6 addresses and routes (default IPv4 only)
     --arp              resolve neighbours by ARP (default: static entries)
     --seed N           base of the switches' multipath hash seeds (default 1):
                        the same N gives the same paths on every run
     --force            tear down an existing testbed of the prefix first
  down [--prefix NAME]             remove every namespace of the prefix
  status [--prefix NAME]           what exists; exit 0 only when complete
  info [--prefix NAME] [--json]    nodes, ports, addresses, next hops
  exec [--prefix NAME] NODE CMD... run CMD in NODE's network namespace
                                   (NODE: h0, e0-1, a1-0, c3 or PREFIX-NODE)
EOF
}

bad_usage() {
	printf '%s: %s\n' "$prog" "$*" >&2
	usage >&2
	exit 2
}

need_root() {
	[ "$(id -u)" -eq 0 ] ||
		die "must run as root: it creates and enters network namespaces"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "command '$c' not found"
	done
}

check_prefix() {
	[[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ ]] ||
		bad_usage "bad prefix '$1': letters, digits, '_', '.', '-'; at most 32"
}

# The namespaces owned by $prefix: PREFIX-NODE for any NODE name shape,
# whatever k built them (so a failed or interrupted up is found too).
owned_netns() {
	local f n
	for f in /run/netns/"$prefix"-*; do
		[ -e "$f" ] || continue
		n=${f##*/}
		[[ ${n#"$prefix"-} =~ ^(h[0-9]+|[ea][0-9]+-[0-9]+|c[0-9]+)$ ]] &&
			echo "$n"
	done
	return 0
}

state_file() { echo "$state_dir/$prefix.conf"; }

# read_state: sets the build parameters from the prefix's state file.
read_state() {
	local f key val
	f=$(state_file)
	[ -f "$f" ] || return 1
	k="" rate="" delay="" qdisc="" qdisc_args="" ipv6=0 arp=0 built=""
	seed=1 have_seed=0
	while IFS='=' read -r key val; do
		case "$key" in
		k) k=$val ;;
		rate) rate=$val ;;
		delay) delay=$val ;;
		qdisc) qdisc=$val ;;
		qdisc_args) qdisc_args=$val ;;
		ipv6) ipv6=$val ;;
		arp) arp=$val ;;
		built) built=$val ;;
		seed) seed=$val ;;
		have_seed) have_seed=$val ;;
		esac
	done <"$f"
	[[ $k =~ ^[0-9]+$ ]] || die "$f: no valid k"
}

# ---------------------------------------------------------------------
# The topology: node and port tables, computed from k alone.

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

add_node() {
	n_ord[$1]=${#nodes[@]}
	nodes+=("$1")
	n_role[$1]=$2 n_pod[$1]=$3 n_idx[$1]=$4 n_key[$1]=$5
	n_ports[$1]=""
}

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

# ---------------------------------------------------------------------
# up

shaped_port() { # PORT: tc lines for the qdiscs of one link end
	local dev=${p_if[$1]} leaf=1:1 switch=0
	[ "${p_role[$1]}" = host ] || switch=1
	if [ -z "$rate" ]; then
		echo "qdisc add dev $dev root handle 1: netem delay $delay limit 100000"
		return
	fi
	echo "qdisc add dev $dev root handle 1: htb default 1"
	echo "class add dev $dev parent 1: classid 1:1 htb rate $rate ceil $rate quantum 60000"
	if [ -n "$delay" ]; then
		echo "qdisc add dev $dev parent 1:1 handle 10: netem delay $delay limit 100000"
		leaf=10:1
	fi
	if [ "$switch" -eq 1 ] && [ -n "$qdisc" ]; then
		echo "qdisc add dev $dev parent $leaf handle 20: $qdisc $qdisc_args"
	fi
}

# node_batch NODE: the "ip -batch" lines that configure NODE.
node_batch() {
	local node=$1 role=${n_role[$1]} pi nh="" nh6="" r
	echo "link set lo up"
	for pi in ${n_ports[$node]}; do
		local dev=${p_if[pi]} q=${p_peer[pi]} npr=""
		# Host links: the /24 is not on-link, the edge routes per host.
		[ "${p_plen[pi]}" -ne 24 ] || npr=noprefixroute
		echo "addr add ${p_addr[pi]}/${p_plen[pi]} dev $dev $npr"
		[ "$ipv6" -eq 0 ] ||
			echo "addr add ${p_addr6[pi]}/${p_plen6[pi]} dev $dev nodad $npr"
		echo "link set $dev up"
		if [ "$arp" -eq 0 ]; then
			echo "neigh replace ${p_addr[q]} dev $dev lladdr ${p_mac[q]} nud permanent"
			[ "$ipv6" -eq 0 ] ||
				echo "neigh replace ${p_addr6[q]} dev $dev lladdr ${p_mac[q]} nud permanent"
		fi
		case "${p_role[pi]}" in
		host)
			echo "route add default via ${p_addr[q]} dev $dev onlink"
			[ "$ipv6" -eq 0 ] ||
				echo "route add ::/0 via ${p_addr6[q]} dev $dev onlink"
			;;
		uplink)
			nh+=" nexthop via ${p_addr[q]} dev $dev"
			nh6+=" nexthop via ${p_addr6[q]} dev $dev"
			;;
		downlink)
			if [ "$role" = edge ]; then
				echo "route add ${p_routes[pi]} dev $dev src ${p_addr[pi]}"
				[ "$ipv6" -eq 0 ] ||
					echo "route add ${p_routes6[pi]} dev $dev src ${p_addr6[pi]}"
				continue
			fi
			for r in ${p_routes[pi]}; do
				echo "route add $r via ${p_addr[q]} dev $dev"
			done
			[ "$ipv6" -eq 1 ] || continue
			for r in ${p_routes6[pi]}; do
				echo "route add $r via ${p_addr6[q]} dev $dev"
			done
			;;
		esac
	done
	if [ "$role" = edge ]; then
		echo "route add unreachable 10.0.${n_key[$node]}.0/24"
		[ "$ipv6" -eq 0 ] ||
			echo "route add unreachable $(v6host "${n_key[$node]}" 0; echo "$REPLY")/112"
	fi
	if [ -n "$nh" ]; then
		echo "route add default$nh"
		[ "$ipv6" -eq 0 ] || echo "route add ::/0$nh6"
	fi
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

node_sysctls() { # NODE
	local role=${n_role[$1]} c policy=3 fields=0x0037 list=(
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
		net.ipv4.conf.all.accept_redirects=0
		net.ipv4.conf.default.accept_redirects=0
		net.ipv4.icmp_ratelimit=0
	)
	if [ "$role" != host ]; then
		list+=(net.ipv4.ip_forward=1
		       net.ipv4.conf.all.send_redirects=0
		       net.ipv4.conf.default.send_redirects=0)
		# An L4 hash (addresses, protocol, ports) computed by each
		# switch: policy 3 with these fields, as policy 1 would reuse
		# the sender's socket hash that the packet carries across the
		# veths and every switch would choose alike (polarization:
		# half of the core switches unused).  Each switch has its own
		# seed; kernels before 6.11 have none, there the aggregation
		# layer hashes other fields (no protocol) than the edge layer.
		if [ "$have_seed" -eq 1 ]; then
			list+=("net.ipv4.fib_multipath_hash_seed=$(node_seed "$1")")
		elif [ "$role" = aggregation ]; then
			fields=0x0033
		fi
		list+=("net.ipv4.fib_multipath_hash_fields=$fields"
		       "net.ipv6.fib_multipath_hash_fields=$fields")
		list+=("net.ipv4.fib_multipath_hash_policy=$policy"
		       "net.ipv6.fib_multipath_hash_policy=$policy")
	fi
	if [ "$ipv6" -eq 0 ]; then
		list+=(net.ipv6.conf.all.disable_ipv6=1
		       net.ipv6.conf.default.disable_ipv6=1)
		printf '%s\n' "${list[@]}"
		return
	fi
	# IPv6 without DAD, autoconfiguration, router solicitations and
	# link-local addresses: only the static addresses below.
	for c in all default; do
		list+=("net.ipv6.conf.$c.accept_dad=0" "net.ipv6.conf.$c.dad_transmits=0"
		       "net.ipv6.conf.$c.autoconf=0" "net.ipv6.conf.$c.accept_ra=0"
		       "net.ipv6.conf.$c.router_solicitations=0"
		       "net.ipv6.conf.$c.addr_gen_mode=1")
	done
	list+=(net.ipv6.icmp.ratelimit=0)
	[ "$role" = host ] || list+=(net.ipv6.conf.all.forwarding=1)
	printf '%s\n' "${list[@]}"
}

# not_up NS: how many of the namespace's interfaces (but lo) are not up.
not_up() {
	ip -n "$1" -o link show | grep -v ' lo:' | grep -cv 'state UP' || true
}

# The kernel starts a veth's qdisc and reports it up (linkwatch) a moment
# after both ends are up; until then packets are dropped.
wait_links_up() {
	local node tries=0
	for node in "${nodes[@]}"; do
		while [ "$(not_up "$prefix-$node")" -ne 0 ]; do
			tries=$((tries + 1))
			[ "$tries" -le 100 ] ||
				die "interfaces of $prefix-$node did not come up"
			sleep 0.05
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

up_cleanup() {
	local rc=$?
	[ -n "${tmp:-}" ] && rm -rf "$tmp"
	if [ "$up_done" -eq 0 ]; then
		log "up failed or was interrupted: removing what it built"
		trap - INT TERM
		do_down >/dev/null 2>&1 || true
		[ "$rc" -ne 0 ] || rc=1
	fi
	exit "$rc"
}

do_up() {
	local force=0 t0 t1 node pi i q ns sc
	k=4 rate="" delay="" qdisc="" qdisc_args="" ipv6=0 arp=0 seed=1 up_done=1
	while [ $# -gt 0 ]; do
		case "$1" in
		-k) [ $# -ge 2 ] || bad_usage "-k needs a value"; k=$2; shift 2 ;;
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; shift 2 ;;
		--rate) [ $# -ge 2 ] || bad_usage "--rate needs a value"; rate=$2; shift 2 ;;
		--delay) [ $# -ge 2 ] || bad_usage "--delay needs a value"; delay=$2; shift 2 ;;
		--qdisc) [ $# -ge 2 ] || bad_usage "--qdisc needs a value"; qdisc=$2; shift 2 ;;
		--qdisc-args) [ $# -ge 2 ] || bad_usage "--qdisc-args needs a value"
			      qdisc_args=$2; shift 2 ;;
		--seed) [ $# -ge 2 ] || bad_usage "--seed needs a value"; seed=$2; shift 2 ;;
		--ipv6) ipv6=1; shift ;;
		--arp) arp=1; shift ;;
		--force) force=1; shift ;;
		*) bad_usage "up: unknown argument '$1'" ;;
		esac
	done
	check_prefix "$prefix"
	if ! [[ $k =~ ^[0-9]+$ ]] || [ $((k % 2)) -ne 0 ] || [ "$k" -lt 2 ] ||
		[ "$k" -gt 16 ]; then
		bad_usage "-k must be even, 2..16: '$k'"
	fi
	[ -z "$rate" ] || [[ $rate =~ ^[0-9]+(\.[0-9]+)?([KkMmGgTt]i?)?(bit|bps)?$ ]] ||
		bad_usage "bad --rate '$rate' (e.g. 100mbit)"
	[ -z "$delay" ] || [[ $delay =~ ^[0-9]+(\.[0-9]+)?(s|sec|secs|ms|msec|msecs|us|usec|usecs)?$ ]] ||
		bad_usage "bad --delay '$delay' (e.g. 1ms)"
	[ -z "$qdisc" ] || [[ $qdisc =~ ^[a-z][a-z0-9_]*$ ]] ||
		bad_usage "bad --qdisc '$qdisc'"
	[[ $seed =~ ^[0-9]{1,9}$ ]] || bad_usage "--seed must be a number: '$seed'"
	[ -z "$qdisc" ] || [ -n "$rate" ] || bad_usage "--qdisc needs --rate"
	[ -z "$qdisc_args" ] || [ -n "$qdisc" ] || bad_usage "--qdisc-args needs --qdisc"
	[[ $qdisc_args != *[$'\n'\;]* ]] || bad_usage "bad --qdisc-args"
	need_root
	need_cmd ip nsenter sysctl
	[ -z "$rate$delay" ] || need_cmd tc

	if [ -n "$(owned_netns)" ] || [ -e "$(state_file)" ]; then
		[ "$force" -eq 1 ] ||
			die "a testbed with prefix '$prefix' exists: 'down --prefix $prefix' or 'up --force'"
		do_down
	fi

	have_seed=0
	[ ! -e /proc/sys/net/ipv4/fib_multipath_hash_seed ] || have_seed=1
	t0=$(date +%s%N)
	up_done=0
	tmp=$(mktemp -d /tmp/fattree.XXXXXX)
	trap up_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	topology

	for node in "${nodes[@]}"; do
		echo "netns add $prefix-$node"
	done >"$tmp/netns"
	ip -batch "$tmp/netns"
	for node in "${nodes[@]}"; do
		mapfile -t sc < <(node_sysctls "$node")
		nsenter --net="/run/netns/$prefix-$node" sysctl -q -w "${sc[@]}" >/dev/null
	done

	for ((i = 0; i < ${#p_node[@]}; i++)); do
		q=${p_peer[i]}
		[ "$q" -gt "$i" ] || continue
		echo "link add ${p_if[i]} netns $prefix-${p_node[i]} address ${p_mac[i]}" \
			"type veth peer name ${p_if[q]} netns $prefix-${p_node[q]}" \
			"address ${p_mac[q]}"
	done >"$tmp/links"
	ip -batch "$tmp/links"

	for node in "${nodes[@]}"; do
		node_batch "$node" >"$tmp/$node.ip"
		ip -n "$prefix-$node" -batch "$tmp/$node.ip"
	done

	if [ -n "$rate$delay" ]; then
		for node in "${nodes[@]}"; do
			for pi in ${n_ports[$node]}; do
				shaped_port "$pi"
			done >"$tmp/$node.tc"
			tc -n "$prefix-$node" -batch "$tmp/$node.tc" ||
				die "tc failed in $prefix-$node: does the kernel have the qdiscs (${rate:+htb}${delay:+ netem}${qdisc:+ $qdisc})?"
		done
	fi

	wait_links_up

	mkdir -p "$state_dir"
	t1=$(date +%s%N)
	{
		echo "k=$k"
		echo "rate=$rate"
		echo "delay=$delay"
		echo "qdisc=$qdisc"
		echo "qdisc_args=$qdisc_args"
		echo "ipv6=$ipv6"
		echo "arp=$arp"
		echo "seed=$seed"
		echo "have_seed=$have_seed"
		echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$(state_file).tmp"
	mv "$(state_file).tmp" "$(state_file)"
	up_done=1
	trap - INT TERM
	printf -v ns '%d.%02d' $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 10000000 % 100))
	log "fat tree '$prefix' up: k=$k, $((k * h * h)) hosts, $((5 * h * h)) switches, ${#nodes[@]} namespaces, ${#p_node[@]} ports in $ns s"
}

# ---------------------------------------------------------------------
# down, status, exec

do_down() {
	local list=() ns pids
	mapfile -t list < <(owned_netns)
	for ns in "${list[@]}"; do
		# Processes still inside would keep the namespace and its links.
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one PID a word
		[ -z "$pids" ] || kill $pids 2>/dev/null || true
	done
	if [ ${#list[@]} -gt 0 ]; then
		printf 'netns del %s\n' "${list[@]}" | ip -force -batch - 2>/dev/null || true
	fi
	rm -f "$(state_file)" "$(state_file).tmp"
	mapfile -t list < <(owned_netns)
	[ ${#list[@]} -eq 0 ] || die "could not remove: ${list[*]}"
}

do_status() {
	local node ns missing=0 down_ifs=0 present
	present=$(owned_netns | wc -l)
	if ! read_state; then
		if [ "$present" -eq 0 ]; then
			echo "$prefix: no testbed"
		else
			echo "$prefix: incomplete: $present namespaces, no state (failed up?): run down"
		fi
		return 1
	fi
	topology
	for node in "${nodes[@]}"; do
		ns=$prefix-$node
		if [ ! -e "/run/netns/$ns" ]; then
			missing=$((missing + 1))
			echo "missing namespace $ns"
			continue
		fi
		down_ifs=$((down_ifs + $(not_up "$ns")))
	done
	echo "$prefix: k=$k, $((${#nodes[@]} - missing))/${#nodes[@]} namespaces," \
		"$down_ifs interfaces not up, ipv6 $([ "$ipv6" -eq 1 ] && echo on || echo off)," \
		"shaping: ${rate:+rate $rate }${delay:+delay $delay }${qdisc:+qdisc $qdisc $qdisc_args}$([ -n "$rate$delay" ] || echo none), built $built"
	[ "$missing" -eq 0 ] && [ "$down_ifs" -eq 0 ]
}

do_exec() {
	local node=$1 ns
	shift
	case "$node" in
	"$prefix"-*) ns=$node ;;
	*) ns=$prefix-$node ;;
	esac
	[[ ${ns#"$prefix"-} =~ ^(h[0-9]+|[ea][0-9]+-[0-9]+|c[0-9]+)$ ]] ||
		bad_usage "exec: bad node '$node' (h0, e0-1, a1-0, c3)"
	[ -e "/run/netns/$ns" ] || die "no namespace $ns"
	exec nsenter --net="/run/netns/$ns" -- "$@"
}

# ---------------------------------------------------------------------
# info

# j NAME VALUE: a JSON member with a string value, or null when empty.
jstr() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

jlist() { # WORDS...: a JSON array of strings
	local w out=""
	for w in "$@"; do
		out+="${out:+,}\"$w\""
	done
	printf '[%s]' "$out"
}

jopt() { if [ -n "$1" ]; then jstr "$1"; else printf null; fi; }

port_json() { # PORT
	local i=$1 q=${p_peer[$1]} v6="null" pv6="null" r6="null"
	if [ "$ipv6" -eq 1 ]; then
		v6="\"${p_addr6[i]}\"" pv6="\"${p_addr6[q]}\""
		# shellcheck disable=SC2086
		r6=$(jlist ${p_routes6[i]})
	fi
	# shellcheck disable=SC2086
	printf '{"ifname":"%s","role":"%s","index":%d,"addr":"%s","prefixlen":%d,"addr6":%s,"prefixlen6":%s,"mac":"%s","peer":"%s","peer_netns":"%s","peer_ifname":"%s","peer_addr":"%s","peer_addr6":%s,"peer_mac":"%s","next_hop":"%s","next_hop6":%s,"routes":%s,"routes6":%s}' \
		"${p_if[i]}" "${p_role[i]}" "${p_idx[i]}" "${p_addr[i]}" "${p_plen[i]}" \
		"$v6" "$([ "$ipv6" -eq 1 ] && echo "${p_plen6[i]}" || echo null)" \
		"${p_mac[i]}" "${p_node[q]}" "$prefix-${p_node[q]}" "${p_if[q]}" \
		"${p_addr[q]}" "$pv6" "${p_mac[q]}" "${p_addr[q]}" "$pv6" \
		"$(jlist ${p_routes[i]})" "$r6"
}

info_json() {
	local node pi q p e sep log2h=0 fastpod=null ups downs ports
	while [ $((1 << (log2h + 1))) -le "$h" ]; do
		log2h=$((log2h + 1))
	done
	[ $((1 << log2h)) -ne "$h" ] ||
		fastpod="{\"net\":\"10.0.0.0/16\",\"shift\":$((8 + log2h)),\"mask\":$((255 >> log2h))}"
	printf '{"version":1,"prefix":"%s","k":%d,"pods":%d,"edges_per_pod":%d,"aggregations_per_pod":%d,"hosts_per_edge":%d,"cores":%d,' \
		"$prefix" "$k" "$k" "$h" "$h" "$h" $((h * h))
	printf '"counts":{"hosts":%d,"edge":%d,"aggregation":%d,"core":%d,"switches":%d,"namespaces":%d},' \
		$((k * h * h)) $((k * h)) $((k * h)) $((h * h)) $((5 * h * h)) ${#nodes[@]}
	printf '"ipv6":%s,"static_neighbours":%s,"hash_seed":%d,"built":%s,' \
		"$([ "$ipv6" -eq 1 ] && echo true || echo false)" \
		"$([ "$arp" -eq 0 ] && echo true || echo false)" "$seed" "$(jopt "$built")"
	printf '"shaping":{"rate":%s,"delay":%s,"qdisc":%s,"qdisc_args":%s},' \
		"$(jopt "$rate")" "$(jopt "$delay")" "$(jopt "$qdisc")" "$(jopt "$qdisc_args")"
	printf '"addressing":{"host_net":"10.0.0.0/16","host_prefixlen":24,"host_net6":"fd00::/96","host_prefixlen6":112,'
	printf '"host":"10.0.E.(2+i)/24 gw 10.0.E.1; fd00::E:(2+i)/112 gw fd00::E:1 (E hex)",'
	printf '"edge_key":"E = pod*k/2 + edge index = third octet of a host address (bits 8..15)","pod_of_key":"pod = E / (k/2)",'
	printf '"link_net":"172.16.0.0/16","link_net6":"fd00:1::/96",'
	printf '"edge_agg_link":"172.16.P.(2*(J*k/2+A)) aggregation A dnJ, +1 edge J upA (pod P, /31)",'
	printf '"agg_core_link":"172.16.(128+P).(2*C) core C dnP, +1 aggregation C/(k/2) up(C mod k/2) (pod P, /31)",'
	printf '"fast_path":{"edge_key":{"net":"10.0.0.0/16","shift":8,"mask":255},"pod_key":%s}},' "$fastpod"
	printf '"pod_nets":['
	for ((p = 0; p < k; p++)); do
		cover $((p * h)) "$h"
		local keys=() r6=null
		for ((e = p * h; e < p * h + h; e++)); do keys+=("$e"); done
		# shellcheck disable=SC2086
		[ "$ipv6" -eq 0 ] || r6=$(jlist $REPLY6)
		# shellcheck disable=SC2086
		printf '%s{"pod":%d,"edge_keys":[%s],"prefixes":%s,"prefixes6":%s}' \
			"$([ "$p" -eq 0 ] || echo ,)" "$p" "$(IFS=,; echo "${keys[*]}")" \
			"$(jlist $REPLY)" "$r6"
	done
	printf '],"hosts":['
	sep=""
	for node in "${nodes[@]}"; do
		[ "${n_role[$node]}" = host ] || continue
		pi=${n_ports[$node]# } q=${p_peer[pi]}
		e=${n_key[$node]}
		printf '%s{"name":"%s","netns":"%s","index":%d,"pod":%d,"edge":%d,"edge_key":%d,"port":%d,"ifname":"eth0","addr":"%s","prefixlen":24,"gateway":"%s","addr6":%s,"gateway6":%s,"mac":"%s","switch":"%s","switch_ifname":"%s","switch_mac":"%s"}' \
			"$sep" "$node" "$prefix-$node" "${n_idx[$node]}" "${n_pod[$node]}" \
			$((e % h)) "$e" "${p_idx[q]}" "${p_addr[pi]}" "${p_addr[q]}" \
			"$([ "$ipv6" -eq 1 ] && echo "\"${p_addr6[pi]}\"" || echo null)" \
			"$([ "$ipv6" -eq 1 ] && echo "\"${p_addr6[q]}\"" || echo null)" \
			"${p_mac[pi]}" "${p_node[q]}" "${p_if[q]}" "${p_mac[q]}"
		sep=,
	done
	printf '],"switches":['
	sep=""
	for node in "${nodes[@]}"; do
		local role=${n_role[$node]}
		[ "$role" != host ] || continue
		ups=() downs=() ports=""
		for pi in $(ordered_ports "$node"); do
			case "${p_role[pi]}" in
			uplink) ups+=("${p_if[pi]}") ;;
			downlink) downs+=("${p_if[pi]}") ;;
			esac
			ports+="${ports:+,}$(port_json "$pi")"
		done
		local extra
		case "$role" in
		edge)
			e=${n_key[$node]}
			extra="\"pod\":${n_pod[$node]},\"edge_key\":$e,\"prefix\":\"10.0.$e.0/24\",\"prefix6\":$([ "$ipv6" -eq 1 ] && v6host "$e" 0 && echo "\"$REPLY/112\"" || echo null),\"agg_index\":null"
			;;
		aggregation)
			extra="\"pod\":${n_pod[$node]},\"edge_key\":null,\"prefix\":null,\"prefix6\":null,\"agg_index\":${n_idx[$node]}"
			;;
		core)
			extra="\"pod\":null,\"edge_key\":null,\"prefix\":null,\"prefix6\":null,\"agg_index\":$((${n_idx[$node]} / h))"
			;;
		esac
		printf '%s{"name":"%s","netns":"%s","role":"%s","index":%d,%s,"hash_seed":%s,"uplinks":%s,"downlinks":%s,"ports":[%s]}' \
			"$sep" "$node" "$prefix-$node" "$role" "${n_idx[$node]}" "$extra" \
			"$([ "$have_seed" -eq 1 ] && node_seed "$node" || echo null)" \
			"$(jlist "${ups[@]}")" "$(jlist "${downs[@]}")" "$ports"
		sep=,
	done
	printf ']}\n'
}

info_text() {
	local node pi q role
	echo "fat tree '$prefix': k=$k, $k pods, $((k * h * h)) hosts, $((k * h)) edge +" \
		"$((k * h)) aggregation + $((h * h)) core switches (built $built)"
	echo "shaping: ${rate:+rate $rate }${delay:+delay $delay }${qdisc:+qdisc $qdisc $qdisc_args}$([ -n "$rate$delay" ] || echo none);" \
		"ipv6 $([ "$ipv6" -eq 1 ] && echo on || echo off);" \
		"neighbours $([ "$arp" -eq 0 ] && echo static || echo ARP)"
	echo "addressing: host i (0..$((h - 1))) under edge switch E = pod*$h + edge index is"
	echo "  10.0.E.(2+i)/24, gateway 10.0.E.1; edge key E = third octet; pod = E / $h"
	echo "  links /31 from 172.16.0.0/16: 172.16.POD.x edge-aggregation," \
		"172.16.(128+POD).x aggregation-core (upper switch even, lower odd)"
	echo "hosts:"
	for node in "${nodes[@]}"; do
		[ "${n_role[$node]}" = host ] || continue
		pi=${n_ports[$node]# } q=${p_peer[pi]}
		printf '  %-6s %-14s eth0 %s/24 gw %s  %s %s  key %d pod %d\n' \
			"$node" "$prefix-$node" "${p_addr[pi]}" "${p_addr[q]}" \
			"${p_node[q]}" "${p_if[q]}" "${n_key[$node]}" "${n_pod[$node]}"
	done
	echo "switches (port  address  role -> peer port, next hop  routes):"
	for node in "${nodes[@]}"; do
		role=${n_role[$node]}
		[ "$role" != host ] || continue
		case "$role" in
		edge) echo "  $node ($prefix-$node): edge, pod ${n_pod[$node]}, key ${n_key[$node]}" ;;
		aggregation) echo "  $node ($prefix-$node): aggregation, pod ${n_pod[$node]}" ;;
		core) echo "  $node ($prefix-$node): core, to aggregation $((${n_idx[$node]} / h)) of each pod" ;;
		esac
		for pi in $(ordered_ports "$node"); do
			q=${p_peer[pi]}
			printf '    %-4s %-16s %-8s -> %s %s, via %s  %s\n' "${p_if[pi]}" \
				"${p_addr[pi]}/${p_plen[pi]}" "${p_role[pi]}" "${p_node[q]}" \
				"${p_if[q]}" "${p_addr[q]}" "${p_routes[pi]}"
		done
	done
}

do_info() {
	local json=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--json) json=1; shift ;;
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; check_prefix "$prefix"; shift 2 ;;
		*) bad_usage "info: unknown argument '$1'" ;;
		esac
	done
	read_state || die "no testbed with prefix '$prefix' (run up)"
	topology
	if [ "$json" -eq 1 ]; then
		info_json
	else
		info_text
	fi
}

# ---------------------------------------------------------------------

prefix=ft
# --prefix may also come before the command.
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
		  prefix=$2; shift 2 ;;
	-h|--help|help) usage; exit 0 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || bad_usage "no command"
cmd=$1
shift
case "$cmd" in
up)
	do_up "$@"
	;;
down|status)
	while [ $# -gt 0 ]; do
		case "$1" in
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; shift 2 ;;
		*) bad_usage "$cmd: unknown argument '$1'" ;;
		esac
	done
	check_prefix "$prefix"
	need_root
	if [ "$cmd" = down ]; then
		do_down
	else
		do_status
	fi
	;;
info)
	check_prefix "$prefix"
	do_info "$@"
	;;
exec)
	while [ $# -gt 0 ]; do
		case "$1" in
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -ge 2 ] || bad_usage "exec needs NODE and CMD"
	check_prefix "$prefix"
	need_root
	do_exec "$@"
	;;
*)
	bad_usage "unknown command '$cmd'"
	;;
esac
