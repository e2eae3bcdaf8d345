#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# leafspine.sh - a leaf-spine testbed in network namespaces: T ToR
# switches, S spines, H hosts per ToR, veth links, routed by the kernel
# (IP forwarding, a multipath default route at each ToR over the spines,
# or static balanced routes; one route per ToR subnet at each spine),
# HTB-shaped at a chosen rate
# and netem delay on every link end, and a chosen qdisc (symphony, red,
# pfifo, ...) under the HTB of every switch egress port; with the
# perturbations of the Symphony evaluation: a slower hop (load imbalance
# ratio), a link failure and its repair.  Works on the host kernel (HTB,
# pfifo) and in the VM (every qdisc, the project's symphony).
#
# Usage: leafspine.sh COMMAND [OPTIONS]
#   up [OPTIONS]
#      --prefix NAME        namespace prefix (default ls): NAME-h0, NAME-t0, NAME-s0
#      --tors T             ToR switches, 1..16 (default 4)
#      --spines S           spines, 1..8 (default 2)
#      --hosts-per-tor H    hosts per ToR, 1..16 (default 4)
#      --rate RATE          HTB rate of every link end (default 100mbit)
#      --uplink-rate RATE   rate of the ToR - spine links instead (default --rate)
#      --burst BYTES|auto   HTB burst and cburst of every link's class: the
#                           bytes a link may send at once after an idle
#                           spell, so a queue is seen to that resolution.
#                           auto (default): 5 ms at the link's rate, at
#                           least 1600 (tc's own default; at 2.5 Mbit/s
#                           that is 5 ms, one 4 KiB RoCE frame at a time);
#                           traffic below the rate passes in such bursts
#                           without a shaper timer per packet
#      --mtu BYTES          MTU of every link (default 1500; 9000 for 4096-byte RoCE)
#      --delay TIME         netem delay under each switch port's HTB (e.g. 50us)
#      --qdisc KIND         leaf qdisc of every switch egress port (default pfifo)
#      --qdisc-args ARGS    its options, one string ("limit 1000")
#      --datapath qdisc|bpf bpf: Symphony as tc-BPF (symofan symphony attach)
#                           on every switch egress port instead of the
#                           qdisc, with --qdisc symphony's --qdisc-args and
#                           RED on a phantom queue at the port's rate; the
#                           leaf qdisc is then pfifo; a job registry per
#                           switch (per-switch state); no module needed
#      --bpf-state switch|port  --datapath bpf: a job registry per switch,
#                           shared by its ports (default; the paper's
#                           per-switch state), or one per port (each port
#                           tracks only the jobs' steps it carries, as the
#                           qdisc without a jobs map does)
#      --symphony-at all|tor|tor-up  with --qdisc symphony (either
#                           datapath): the switch ports where Symphony
#                           marks, every port (default), the ToRs' only (the
#                           Symphony paper's deployment) or the ToRs'
#                           uplinks only; the others get the same options
#                           with "marking red"
#      --imbalance T:S:R    the link from ToR T up to spine S runs at rate / R
#                           (R a decimal ratio, e.g. 1.13)
#      --routing MODE       ecmp (default): each ToR hashes flows over the
#                           spines on the 5-tuple; static: balanced
#                           destination routes, host i of every ToR reached
#                           through spine i mod S (no hash collisions: the
#                           Symphony paper's "static balanced routing")
#      --force              tear down an existing testbed of the prefix first
#   down [--prefix NAME]    remove every namespace of the prefix
#   info [--prefix NAME]    hosts (namespace, address, ToR) as JSON
#   exec [--prefix NAME] NODE CMD...   run CMD in NODE (h3, t0, s1)
#   link [--prefix NAME] T S down|up   fail or repair the ToR T - spine S link
# Hosts: 10.1.T.(2+i)/24 behind ToR T (gateway 10.1.T.1; the /24 is not
# on-link, the ToR routes each host over its own port); the ToR T -
# spine S link is 10.2.T.(4S+1)/30 (ToR) and .(4S+2) (spine).
set -euo pipefail

prog=leafspine.sh
prefix="ls"
tors=4
spines=2
hpt=4
rate=100mbit
uplink_rate=
burst=auto
mtu=1500
delay=
qdisc=pfifo
qdisc_args=
datapath=qdisc
bpf_state=switch
symphony_at=all
imbalance=
routing=ecmp
force=0

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=tc-scripts/lib.sh
. "$here/lib.sh"
symofan=$(project_prog symofan)

usage() { sed -n '14,54s/^# \{0,1\}//p' "$0"; }

parse_up() {
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || [ "$1" = --force ] || bad_usage "$1 needs a value"
		case "$1" in
		--prefix) prefix=$2 ;;
		--tors) int_in --tors "$2" 1 16; tors=$2 ;;
		--spines) int_in --spines "$2" 1 8; spines=$2 ;;
		--hosts-per-tor) int_in --hosts-per-tor "$2" 1 16; hpt=$2 ;;
		--rate) rate=$2 ;;
		--uplink-rate) uplink_rate=$2 ;;
		--burst) burst=$2 ;;
		--mtu) int_in --mtu "$2" 1280 9000; mtu=$2 ;;
		--delay) delay=$2 ;;
		--qdisc) qdisc=$2 ;;
		--qdisc-args) qdisc_args=$2 ;;
		--datapath) datapath=$2 ;;
		--symphony-at) symphony_at=$2 ;;
		--bpf-state) bpf_state=$2 ;;
		--imbalance) imbalance=$2 ;;
		--routing) routing=$2 ;;
		--force) force=1; shift; continue ;;
		*) bad_usage "unknown option '$1'" ;;
		esac
		shift 2
	done
	[[ $prefix =~ ^[a-zA-Z0-9][a-zA-Z0-9_]{0,11}$ ]] ||
		bad_usage "--prefix '$prefix': 1..12 letters, digits or _"
	[[ $rate =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] ||
		bad_usage "--rate '$rate': a number with bit, kbit, mbit or gbit"
	[ -n "$uplink_rate" ] || uplink_rate=$rate
	[[ $uplink_rate =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] ||
		bad_usage "--uplink-rate '$uplink_rate': a number with bit, kbit, mbit or gbit"
	[ "$burst" = auto ] || [[ $burst =~ ^[1-9][0-9]{2,7}$ ]] ||
		bad_usage "--burst '$burst': auto or bytes, 100..99999999"
	[[ $routing =~ ^(ecmp|static)$ ]] ||
		bad_usage "--routing '$routing': ecmp or static"
	[[ $datapath =~ ^(qdisc|bpf)$ ]] ||
		bad_usage "--datapath '$datapath': qdisc or bpf"
	[[ $bpf_state =~ ^(switch|port)$ ]] ||
		bad_usage "--bpf-state '$bpf_state': switch or port"
	[ "$bpf_state" = switch ] || [ "$datapath" = bpf ] ||
		bad_usage "--bpf-state is the tc-BPF datapath's (--datapath bpf); the qdisc keeps a port's state without a jobs map"
	[[ $symphony_at =~ ^(all|tor|tor-up)$ ]] ||
		bad_usage "--symphony-at '$symphony_at': all, tor or tor-up"
	[ "$symphony_at" = all ] || [ "$qdisc" = symphony ] ||
		bad_usage "--symphony-at places Symphony: it wants --qdisc symphony"
	if [ "$datapath" = bpf ]; then
		[ "$qdisc" = symphony ] ||
			bad_usage "--datapath bpf runs Symphony: it wants --qdisc symphony (its --qdisc-args are the program's)"
		need_built "$symofan"
	fi
	if [ -n "$imbalance" ]; then
		[[ $imbalance =~ ^[0-9]+:[0-9]+:[0-9]+(\.[0-9]+)?$ ]] ||
			bad_usage "--imbalance '$imbalance': wants TOR:SPINE:RATIO"
		IFS=: read -r imb_t imb_s imb_r <<<"$imbalance"
		[ "$imb_t" -lt "$tors" ] && [ "$imb_s" -lt "$spines" ] ||
			bad_usage "--imbalance '$imbalance': no such ToR or spine"
	fi
}

namespaces() { netns_list "$prefix" '[hts][0-9]+'; }

do_down() {
	local list=()
	mapfile -t list < <(namespaces)
	netns_del "${list[@]}"
	rm -rf "/sys/fs/bpf/symofan-$prefix"-*
}

# port_args PORT: the switch port's qdisc options, PORT tor-down, tor-up
# or spine: --qdisc-args, with "marking red" where --symphony-at leaves
# Symphony out (any "marking" of --qdisc-args dropped there)
port_args() {
	case $symphony_at:$1 in
	all:*|tor:tor-*|tor-up:tor-up) echo "$qdisc_args" ;;
	*) sed -E 's/(^| )marking +[a-z]+//g; s/$/ marking red/; s/^ +//' <<<"$qdisc_args" ;;
	esac
}

# Symphony as tc-BPF on switch port DEV of NS at RATE, options ARGS: the
# switch's own job registry and program pins under
# /sys/fs/bpf/symofan-PREFIX-NODE-* (--bpf-state port: the port's own,
# /sys/fs/bpf/symofan-PREFIX-NODE-DEV-*)
symphony_bpf() {
	local ns=$1 dev=$2 r=$3 args=$4 pins=/sys/fs/bpf/symofan-$1
	[ "$bpf_state" = switch ] || pins+=-$dev
	[ -e "$pins-jobs/jobs" ] || "$symofan" job init --pin-dir "$pins-jobs" >/dev/null
	# shellcheck disable=SC2086 # the qdisc's words
	nsenter --net="/run/netns/$ns" "$symofan" symphony attach "$dev" rate "$r" \
		$args --registry "$pins-jobs" --pin-dir "$pins-bpf" >/dev/null
}

# link_burst RATE: the HTB burst of a link of RATE, bytes (--burst)
link_burst() {
	if [ "$burst" = auto ]; then
		rate_bps "$1" | awk '{ b = int($1 * 0.005 / 8); print (b < 1600 ? 1600 : b) }'
	else
		echo "$burst"
	fi
}

# the burst of each rate in use, worked out once (two forks each; under
# TCG a fork costs tens of ms, and a testbed has 48 link ends)
declare -A burst_of_rate=()

# shape NS DEV RATE [PORT]: HTB at RATE, netem and the leaf qdisc under
# it on switch ports (PORT tor-down, tor-up or spine; the leaf is 10:
# without netem), one tc each
shape() {
	local ns=$1 dev=$2 r=$3 sw=${4:-} cmds c b args=
	[ -z "$sw" ] || args=$(port_args "$sw")
	[ -n "${burst_of_rate[$r]:-}" ] || burst_of_rate[$r]=$(link_burst "$r")
	b=${burst_of_rate[$r]}
	if [ -n "$sw" ] && [ "$datapath" = bpf ]; then
		mapfile -t cmds < <(shape_cmds "$dev" "$r" "$delay" \
			"pfifo limit 1000" "r2q 100" "burst $b cburst $b" 10:)
	elif [ -n "$sw" ]; then
		mapfile -t cmds < <(shape_cmds "$dev" "$r" "$delay" \
			"$qdisc $args" "r2q 100" "burst $b cburst $b" 10:)
	else
		mapfile -t cmds < <(shape_cmds "$dev" "$r" "" "" "r2q 100" \
			"burst $b cburst $b")
	fi
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086 # words, as tc -batch takes them
		tc -n "$ns" $c
	done
	[ -z "$sw" ] || [ "$datapath" != bpf ] || symphony_bpf "$ns" "$dev" "$r" "$args"
}

# the rate of the ToR t - spine s link
link_rate() {
	if [ -n "$imbalance" ] && [ "$1" = "$imb_t" ] && [ "$2" = "$imb_s" ]; then
		rate_bps "$uplink_rate" |
			awk -v r="$imb_r" '{ printf "%dkbit\n", $1 / 1000 / r }'
	else
		echo "$uplink_rate"
	fi
}

veth() {	# veth NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B
	# shellcheck disable=SC2046 # words of one ip command
	ip $(veth_cmd "$2" "$1" "mtu $mtu" "$5" "$4" "mtu $mtu")
	# shellcheck disable=SC2086
	ip -n "$1" addr add $3 dev "$2"
	# shellcheck disable=SC2086
	ip -n "$4" addr add $6 dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

do_up() {
	local t s i t0 nh
	need_root
	if [ -n "$(namespaces)" ]; then
		[ "$force" -eq 1 ] || die "a testbed with prefix '$prefix' exists: run down, or up --force"
		do_down
	fi
	trap 'log "build failed; tearing down"; do_down' ERR
	t0=$(date +%s%N)
	for ((s = 0; s < spines; s++)); do
		ip netns add "$prefix-s$s"
	done
	for ((t = 0; t < tors; t++)); do
		ip netns add "$prefix-t$t"
		for ((i = 0; i < hpt; i++)); do
			ip netns add "$prefix-h$((t * hpt + i))"
		done
	done
	for ns in $(namespaces); do
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv4.conf.all.ignore_routes_with_linkdown=1
	done
	for ((t = 0; t < tors; t++)); do
		for ((i = 0; i < hpt; i++)); do
			h=$((t * hpt + i))
			# the /24 is not on-link on either side (the ToR's
			# hosts sit on separate links): host routes instead
			veth "$prefix-h$h" eth0 "10.1.$t.$((2 + i))/24 noprefixroute" \
			     "$prefix-t$t" "d$i" "10.1.$t.1/24 noprefixroute"
			ip -n "$prefix-h$h" route add "10.1.$t.1/32" dev eth0
			ip -n "$prefix-h$h" route add default via "10.1.$t.1"
			ip -n "$prefix-t$t" route add "10.1.$t.$((2 + i))/32" dev "d$i"
			shape "$prefix-h$h" eth0 "$rate"
			shape "$prefix-t$t" "d$i" "$rate" tor-down
		done
		nh=
		for ((s = 0; s < spines; s++)); do
			veth "$prefix-t$t" "u$s" "10.2.$t.$((4 * s + 1))/30" \
			     "$prefix-s$s" "d$t" "10.2.$t.$((4 * s + 2))/30"
			shape "$prefix-t$t" "u$s" "$(link_rate "$t" "$s")" tor-up
			shape "$prefix-s$s" "d$t" "$uplink_rate" spine
			ip -n "$prefix-s$s" route add "10.1.$t.0/24" via "10.2.$t.$((4 * s + 1))"
			nh+=" nexthop via 10.2.$t.$((4 * s + 2)) dev u$s"
		done
		# shellcheck disable=SC2086
		ip -n "$prefix-t$t" route add default $nh
		ip netns exec "$prefix-t$t" sysctl -qw net.ipv4.fib_multipath_hash_policy=1
	done
	[ "$routing" = ecmp ] || static_routes "$tors" "$spines" "$hpt"
	trap - ERR
	echo "$prog: leaf-spine '$prefix' up: $tors ToRs, $spines spines, $((tors * hpt)) hosts, $rate (uplinks $uplink_rate, burst ${burst_of_rate[$rate]}/${burst_of_rate[$uplink_rate]} bytes)${delay:+, delay $delay}, $routing routing, $qdisc$([ "$datapath" = bpf ] && echo " (tc-BPF, phantom-queue RED)") on switch ports in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

do_info() {
	local ns t i
	[ -n "$(namespaces)" ] || die "no testbed with prefix '$prefix'"
	for ns in $(namespaces); do
		[[ $ns =~ -h([0-9]+)$ ]] || continue
		i=${BASH_REMATCH[1]}
		t=$(ip -n "$ns" -j route show default | jq -r '.[0].gateway' | cut -d. -f3)
		jq -n --arg name "h$i" --arg ns "$ns" --argjson tor "$t" \
			--arg addr "$(ip -n "$ns" -j addr show eth0 | jq -r '.[0].addr_info[] | select(.family == "inet") | .local')" \
			'{name: $name, netns: $ns, tor: $tor, addr: $addr}'
	done | jq -s --arg p "$prefix" '{prefix: $p, hosts: sort_by(.name | ltrimstr("h") | tonumber)}'
}

# uplink_up T S: whether the ToR T - spine S link is up
uplink_up() { ip -n "$prefix-t$1" link show "u$2" | grep -q ",UP"; }

# static_routes TORS SPINES HOSTS_PER_TOR: the balanced destination
# routes of --routing static, at every ToR: host i of another ToR through
# spine i mod S, or, while a link of that path is down, through the next
# spine whose links to both ToRs are up.  They are /32 routes of protocol
# "static", more specific than the multipath default and the ToR subnets.
static_routes() {
	local n_tors=$1 n_spines=$2 n_hpt=$3 o t i k s
	local -A up=()
	for ((t = 0; t < n_tors; t++)); do
		for ((s = 0; s < n_spines; s++)); do
			! uplink_up "$t" "$s" || up[$t.$s]=1
		done
	done
	for ((o = 0; o < n_tors; o++)); do
		for ((t = 0; t < n_tors; t++)); do
			[ "$t" -ne "$o" ] || continue
			for ((i = 0; i < n_hpt; i++)); do
				for ((k = 0; k < n_spines; k++)); do
					s=$(((i + k) % n_spines))
					[ -z "${up[$o.$s]:-}" ] || [ -z "${up[$t.$s]:-}" ] || break
				done
				[ "$k" -lt "$n_spines" ] || die "no spine joins ToRs $o and $t: they are cut apart"
				ip -n "$prefix-t$o" route replace "10.1.$t.$((2 + i))/32" \
					proto static via "10.2.$o.$((4 * s + 2))" dev "u$s"
			done
		done
	done
}

# The other ToRs route around a failed ToR T - spine S link as a routing
# protocol would: ToR T's subnet over the other spines only; the repair
# removes that route and restores the spine's own.
do_link() {
	local t=$1 s=$2 state=$3 ns o sp nh n_tors n_spines
	ip -n "$prefix-t$t" link set "u$s" "$state"
	ip -n "$prefix-s$s" link set "d$t" "$state"
	n_tors=$(namespaces | grep -c -- "-t[0-9]*$")
	n_spines=$(namespaces | grep -c -- "-s[0-9]*$")
	for ((o = 0; o < n_tors; o++)); do
		[ "$o" -ne "$t" ] || continue
		ns=$prefix-t$o
		if [ "$state" = down ]; then
			nh=
			for ((sp = 0; sp < n_spines; sp++)); do
				[ "$sp" -ne "$s" ] || continue
				uplink_up "$t" "$sp" || continue
				nh+=" nexthop via 10.2.$o.$((4 * sp + 2)) dev u$sp"
			done
			[ -n "$nh" ] || die "ToR $t has no other spine: it is cut off"
			# shellcheck disable=SC2086
			ip -n "$ns" route replace "10.1.$t.0/24" $nh
		else
			ip -n "$ns" route del "10.1.$t.0/24" 2>/dev/null || true
		fi
	done
	[ "$state" = down ] || ip -n "$prefix-s$s" route replace "10.1.$t.0/24" \
		via "10.2.$t.$((4 * s + 1))"
	# --routing static: the ToRs' balanced routes move off the link and back
	[ -z "$(ip -n "$prefix-t0" route show proto static)" ] ||
		static_routes "$n_tors" "$n_spines" \
			"$(( $(namespaces | grep -c -- "-h[0-9]*$") / n_tors ))"
}

cmd=${1:-}
[ -n "$cmd" ] || { usage >&2; exit 2; }
shift
case "$cmd" in
up) parse_up "$@"; do_up ;;
down|info|exec|link)
	if [ "${1:-}" = --prefix ]; then
		[ $# -ge 2 ] || bad_usage "--prefix needs a value"
		prefix=$2
		shift 2
	fi
	case "$cmd" in
	down) need_root; do_down ;;
	info) do_info ;;
	exec)
		[ $# -ge 2 ] || bad_usage "exec needs NODE and CMD"
		[ -e "/run/netns/$prefix-$1" ] || die "no node '$1' in '$prefix'"
		netns_exec "$prefix-$1" "${@:2}" ;;
	link)
		[ $# -eq 3 ] && [[ $3 =~ ^(up|down)$ ]] || bad_usage "link wants TOR SPINE up|down"
		[ -e "/run/netns/$prefix-t$1" ] && [ -e "/run/netns/$prefix-s$2" ] ||
			die "no ToR $1 or spine $2 in '$prefix'"
		do_link "$@" ;;
	esac ;;
-h|--help|help) usage ;;
*) bad_usage "unknown command '$cmd'" ;;
esac
