# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# report.sh - "info" of tc-scripts/fattree.sh (sourced by it): what the
# model (topology.sh) says of a built testbed, as text or as the version 1
# JSON document described in tc-scripts/README.md (nodes, ports,
# addresses, MACs, peers, next hops, routes, hash seeds).

# jstr STRING: STRING as a JSON string.
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

# jopt STRING: STRING as a JSON string, or null when empty.
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
	printf '"shaping":{"rate":%s,"burst_bytes":%s,"delay":%s,"qdisc":%s,"qdisc_args":%s},' \
		"$(jopt "$rate")" "${burst:-null}" "$(jopt "$delay")" "$(jopt "$qdisc")" \
		"$(jopt "$qdisc_args")"
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
	echo "shaping: ${rate:+rate $rate burst ${burst:-default} }${delay:+delay $delay }${qdisc:+qdisc $qdisc $qdisc_args}$([ -n "$rate$delay" ] || echo none);" \
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

# do_info JSON: the testbed of $prefix, as JSON when JSON is 1, else text.
do_info() {
	read_state || die "no testbed with prefix '$prefix' (run up)"
	topology
	if [ "$1" -eq 1 ]; then
		info_json
	else
		info_text
	fi
}
