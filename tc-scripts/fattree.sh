#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fattree.sh - builds a k-ary fat tree of network namespaces joined by
# veth links, routed by the kernel alone (IP forwarding, multipath routes
# hashed on L4 ports), for the Ofan load balancer's tests and benchmarks.
#
# Usage: tc-scripts/fattree.sh COMMAND [--prefix NAME] ...   (as root)
#   up [-k K] [--rate RATE [--burst BYTES]] [--delay TIME]
#      [--qdisc KIND [--qdisc-args ARGS]]
#      [--ipv6] [--arp] [--seed N] [--force]
#   down | status | info [--json] | exec NODE CMD...
# Details: usage() below and tc-scripts/README.md.
#
# This file parses the command line, keeps the testbed's parameters
# (the state file of its prefix) and runs the command; the rest is in
# fattree/ next to it:
#   topology.sh  the model: nodes, names, addresses, MACs, port roles and
#                routes, computed from k (its header describes them)
#   build.sh     up, down, status, exec: namespaces, links, routes, qdiscs
#   report.sh    info, as text or JSON
# and the helpers shared with the other testbeds in lib.sh.
set -euo pipefail

prog=${0##*/}
error_tag="error: "
state_dir=${FATTREE_STATE_DIR:-/run/fattree}
root_message="must run as root: it creates and enters network namespaces"

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
# shellcheck source=tc-scripts/lib.sh
. "$here/lib.sh"
# shellcheck source=tc-scripts/fattree/topology.sh
. "$here/fattree/topology.sh"
# shellcheck source=tc-scripts/fattree/build.sh
. "$here/fattree/build.sh"
# shellcheck source=tc-scripts/fattree/report.sh
. "$here/fattree/report.sh"

usage() {
	cat <<EOF
Usage: $prog COMMAND [OPTIONS]
  up [OPTIONS]        build the fat tree
     -k K               switch radix, even, 2..16 (default 4: 16 hosts,
                        20 switches)
     --prefix NAME      namespace name prefix (default ft): PREFIX-h0, ...
     --rate RATE        HTB root qdisc of that rate on every link end
     --burst BYTES      its class's burst and cburst (default 16000): the
                        bytes a link may send at once after an idle spell.
                        tc's default (about one MTU) makes HTB run on a
                        timer per packet, which at 16 hosts and 20 Mbit/s
                        saturates a 2-core machine's softirq; 16000 bytes
                        is 15 frames of 1086 bytes, so queues below that
                        are within the shaper's own burst
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

check_prefix() {
	[[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ ]] ||
		bad_usage "bad prefix '$1': letters, digits, '_', '.', '-'; at most 32"
}

# ---------------------------------------------------------------------
# The testbed's parameters: k, rate, burst, delay, qdisc, qdisc_args, ipv6, arp,
# seed (from up's options, or read back from the state file), have_seed
# (whether the kernel takes a multipath hash seed) and built (when).

state_file() { echo "$state_dir/$prefix.conf"; }

# read_state: sets the build parameters from the prefix's state file.
read_state() {
	local f key val
	f=$(state_file)
	[ -f "$f" ] || return 1
	k="" rate="" burst="" delay="" qdisc="" qdisc_args="" ipv6=0 arp=0 built=""
	seed=1 have_seed=0
	while IFS='=' read -r key val; do
		case "$key" in
		k) k=$val ;;
		rate) rate=$val ;;
		burst) burst=$val ;;
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

# write_state: records the build parameters in the prefix's state file.
write_state() {
	mkdir -p "$state_dir"
	{
		echo "k=$k"
		echo "rate=$rate"
		echo "burst=$burst"
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
}

# parse_up ARGS...: up's options, checked, into the build parameters and
# force.
parse_up() {
	k=4 rate="" burst=16000 delay="" qdisc="" qdisc_args="" ipv6=0 arp=0 seed=1
	force=0
	while [ $# -gt 0 ]; do
		case "$1" in
		-k) [ $# -ge 2 ] || bad_usage "-k needs a value"; k=$2; shift 2 ;;
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; shift 2 ;;
		--rate) [ $# -ge 2 ] || bad_usage "--rate needs a value"; rate=$2; shift 2 ;;
		--burst) [ $# -ge 2 ] || bad_usage "--burst needs a value"; burst=$2; shift 2 ;;
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
	if ! is_uint "$k" || [ $((k % 2)) -ne 0 ] || [ "$k" -lt 2 ] ||
		[ "$k" -gt 16 ]; then
		bad_usage "-k must be even, 2..16: '$k'"
	fi
	[ -z "$rate" ] || [[ $rate =~ ^[0-9]+(\.[0-9]+)?([KkMmGgTt]i?)?(bit|bps)?$ ]] ||
		bad_usage "bad --rate '$rate' (e.g. 100mbit)"
	[[ $burst =~ ^[1-9][0-9]{2,7}$ ]] ||
		bad_usage "bad --burst '$burst' (bytes, 100..99999999)"
	[ -z "$delay" ] || [[ $delay =~ ^[0-9]+(\.[0-9]+)?(s|sec|secs|ms|msec|msecs|us|usec|usecs)?$ ]] ||
		bad_usage "bad --delay '$delay' (e.g. 1ms)"
	[ -z "$qdisc" ] || [[ $qdisc =~ ^[a-z][a-z0-9_]*$ ]] ||
		bad_usage "bad --qdisc '$qdisc'"
	[[ $seed =~ ^[0-9]{1,9}$ ]] || bad_usage "--seed must be a number: '$seed'"
	[ -z "$qdisc" ] || [ -n "$rate" ] || bad_usage "--qdisc needs --rate"
	[ -z "$qdisc_args" ] || [ -n "$qdisc" ] || bad_usage "--qdisc-args needs --qdisc"
	[[ $qdisc_args != *[$'\n'\;]* ]] || bad_usage "bad --qdisc-args"
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
	parse_up "$@"
	do_up
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
	json=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--json) json=1; shift ;;
		--prefix) [ $# -ge 2 ] || bad_usage "--prefix needs a value"
			  prefix=$2; check_prefix "$prefix"; shift 2 ;;
		*) bad_usage "info: unknown argument '$1'" ;;
		esac
	done
	do_info "$json"
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
