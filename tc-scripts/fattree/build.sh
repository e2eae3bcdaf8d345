# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# build.sh - the builder of tc-scripts/fattree.sh (sourced by it): "up"
# turns the model (topology.sh) into namespaces, veth pairs, addresses,
# neighbours, routes, sysctls and qdiscs, with "ip -batch" / "tc -batch"
# per node; "down", "status" and "exec" act on what a prefix has.
#
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

# The namespaces owned by $prefix: PREFIX-NODE for any NODE name shape,
# whatever k built them (so a failed or interrupted up is found too).
owned_netns() { netns_list "$prefix" "$node_name_re"; }

shaped_port() { # PORT: tc lines for the qdiscs of one link end
	local leaf=""
	# The leaf qdisc is on switch ports only.
	if [ "${p_role[$1]}" != host ] && [ -n "$qdisc" ]; then
		leaf="$qdisc $qdisc_args"
	fi
	shape_cmds "${p_if[$1]}" "$rate" "$delay" "$leaf" "" \
		"ceil $rate${burst:+ burst $burst cburst $burst} quantum 60000"
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

# do_up: builds the fat tree of the parameters parse_up set (k, rate,
# delay, qdisc, qdisc_args, ipv6, arp, seed, force).
do_up() {
	local t0 t1 node pi i q ns sc
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

	netns_add "${nodes[@]/#/$prefix-}"
	for node in "${nodes[@]}"; do
		mapfile -t sc < <(node_sysctls "$node")
		nsenter --net="/run/netns/$prefix-$node" sysctl -q -w "${sc[@]}" >/dev/null
	done

	for ((i = 0; i < ${#p_node[@]}; i++)); do
		q=${p_peer[i]}
		[ "$q" -gt "$i" ] || continue
		veth_cmd "${p_if[i]}" "$prefix-${p_node[i]}" "address ${p_mac[i]}" \
			"${p_if[q]}" "$prefix-${p_node[q]}" "address ${p_mac[q]}"
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

	t1=$(date +%s%N)
	write_state
	up_done=1
	trap - INT TERM
	printf -v ns '%d.%02d' $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 10000000 % 100))
	log "fat tree '$prefix' up: k=$k, $((k * h * h)) hosts, $((5 * h * h)) switches, ${#nodes[@]} namespaces, ${#p_node[@]} ports in $ns s"
}

do_down() {
	local list=()
	mapfile -t list < <(owned_netns)
	# Processes still inside would keep the namespace and its links.
	netns_kill "${list[@]}"
	netns_del "${list[@]}"
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

# do_exec NODE CMD...: CMD in place of the script, in NODE's namespace.
do_exec() {
	local node=$1 ns
	shift
	case "$node" in
	"$prefix"-*) ns=$node ;;
	*) ns=$prefix-$node ;;
	esac
	[[ ${ns#"$prefix"-} =~ ^($node_name_re)$ ]] ||
		bad_usage "exec: bad node '$node' (h0, e0-1, a1-0, c3)"
	[ -e "/run/netns/$ns" ] || die "no namespace $ns"
	netns_exec "$ns" "$@"
}
