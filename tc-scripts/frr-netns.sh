#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# frr-netns.sh - run FRR (Debian's frr: zebra, staticd, bgpd) inside a
# network namespace, as the routing daemon of a switch or router of a
# netns testbed, with its configs, sockets, pid files and logs in one
# folder.  "symofan daemon" then follows the routes bgpd installs.
#
# Usage: frr-netns.sh start NETNS DIR   start the daemons whose config is
#                                       in DIR (zebra.conf, staticd.conf,
#                                       bgpd.conf; zebra always)
#        frr-netns.sh stop NETNS DIR    stop them
#        frr-netns.sh vtysh NETNS DIR [vtysh args]   e.g. -c 'show bgp summary'
#
# DIR must exist; it is made the frr user's.  The namespace's own
# loopback is brought up.  Example:
#   mkdir /tmp/r1 && printf 'router bgp 65001\n neighbor 10.0.1.1 remote-as 65000\n' \
#       > /tmp/r1/bgpd.conf && frr-netns.sh start r1 /tmp/r1
set -euo pipefail

FRR_LIBDIR=${FRR_LIBDIR:-/usr/lib/frr}
prog=frr-netns.sh
# shellcheck source=tc-scripts/lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

usage() { sed -n '8,15s/^# \{0,1\}//p' "$0" >&2; exit 2; }

[ $# -ge 3 ] || usage
cmd=$1 ns=$2 dir=$3
shift 3
need_root
[ -x "$FRR_LIBDIR/zebra" ] || die "FRR is not installed ($FRR_LIBDIR/zebra): apt-get install frr"
need_netns "$ns"
[ -d "$dir" ] || die "no folder '$dir'"
dir=$(cd "$dir" && pwd)

daemon_args() {	# the options of daemon $1, in the array args
	args=(-d -N "$ns" -u frr -g frr -f "$dir/$1.conf" -i "$dir/$1.pid"
	      -z "$dir/zserv.api" --vty_socket "$dir"
	      --log "file:$dir/$1.log" -A 127.0.0.1)
}

case "$cmd" in
start)
	chown frr:frr "$dir"
	[ -f "$dir/zebra.conf" ] || echo "hostname $ns" > "$dir/zebra.conf"
	ip -n "$ns" link set lo up
	for d in zebra staticd bgpd; do
		[ -f "$dir/$d.conf" ] || continue
		chown frr:frr "$dir/$d.conf"
		daemon_args "$d"
		ip netns exec "$ns" "$FRR_LIBDIR/$d" "${args[@]}" \
			2>>"$dir/start.log" || die "$d did not start in $ns (see $dir/$d.log)"
		if [ "$d" = zebra ]; then
			for _ in $(seq 50); do
				[ -S "$dir/zserv.api" ] && break
				sleep 0.02
			done
		fi
	done
	;;
stop)
	for d in bgpd staticd zebra; do
		[ -f "$dir/$d.pid" ] || continue
		kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
		rm -f "$dir/$d.pid"
	done
	;;
vtysh)
	ip netns exec "$ns" vtysh --vty_socket "$dir" "$@"
	;;
*)
	usage
	;;
esac
