# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib.sh - helpers shared by the testbed scripts of tc-scripts/, sourced
# (not run) by them: messages and exits, root and command checks, integer
# checks, the network namespaces of a prefix, veth pairs, and the HTB /
# netem / leaf qdisc stack of one link end.
#
# A script may set, before sourcing this file, the parts of its messages
# that differ from one script to another:
#   prog          its name, which starts every message (default: the
#                 name it was run by)
#   error_tag     put before die's message ("error: " in fattree.sh;
#                 default none)
#   root_message  need_root's message (default "must run as root")
# then defines usage and sources this file from its own folder:
#	. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

: "${prog:=${0##*/}}"
: "${error_tag:=}"
: "${root_message:=must run as root}"

# project_prog NAME: the path of the project's program NAME (symofan,
# ringcoll, ...): the build tree's beside these scripts in a source
# checkout, else the installed one (the symphony-ofan and
# symphony-ofan-tools packages), else NAME for need_cmd to report.
project_prog() {
	local built
	built=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../build/$1
	if [ -x "$built" ]; then
		echo "$built"
	else
		command -v "$1" || echo "$1"
	fi
}

# log MSG...: "PROG: MSG" on stderr.
log() { printf '%s: %s\n' "$prog" "$*" >&2; }

# die MSG...: "PROG: MSG", with error_tag before MSG, on stderr; exit 1.
die() { printf '%s: %s%s\n' "$prog" "$error_tag" "$*" >&2; exit 1; }

# bad_usage MSG...: "PROG: MSG" and the usage on stderr; exit 2.
bad_usage() {
	log "$@"
	usage >&2
	exit 2
}

# need_root: die with root_message unless root.
need_root() { [ "$(id -u)" -eq 0 ] || die "$root_message"; }

# need_cmd CMD...: die naming the first CMD that is not in PATH.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || die "command '$c' not found"
	done
}

# need_built PATH: die unless the project's tool PATH is built.
need_built() { [ -x "$1" ] || die "no $1: run 'make'"; }

# is_uint VALUE [MIN MAX]: VALUE is a decimal integer (in MIN..MAX).
is_uint() {
	[[ $1 =~ ^[0-9]+$ ]] || return 1
	[ $# -lt 3 ] || { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
}

# int_in NAME VALUE MIN MAX: bad usage "NAME 'VALUE': wants MIN..MAX"
# unless VALUE is an integer in MIN..MAX.
int_in() { is_uint "$2" "$3" "$4" || bad_usage "$1 '$2': wants $3..$4"; }

# rate_bps RATE: a tc rate (a decimal number with bit, kbit, mbit or
# gbit) in bits per second, as an integer.
rate_bps() {
	[[ $1 =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$ ]] || return 1
	awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN {
		printf "%.0f\n", n * (u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1) }'
}

# ---------------------------------------------------------------------
# Network namespaces: a testbed's are PREFIX-NODE, in /run/netns.

# netns_list PREFIX NODE_ERE: the namespaces PREFIX-NODE whose NODE
# matches the extended regular expression NODE_ERE as a whole, one a
# line, in name order.
netns_list() {
	local f n
	for f in /run/netns/"$1"-*; do
		[ -e "$f" ] || continue
		n=${f##*/}
		[[ ${n#"$1"-} =~ ^($2)$ ]] && echo "$n"
	done
	return 0
}

# need_netns NS: die unless the namespace NS exists.
need_netns() { [ -e "/run/netns/$1" ] || die "no network namespace '$1'"; }

# netns_add NS...: create the namespaces, in one "ip -batch".
netns_add() { printf 'netns add %s\n' "$@" | ip -batch -; }

# netns_kill NS...: end the processes inside the namespaces (they would
# keep a namespace and its links alive after its deletion).
netns_kill() {
	local ns pids
	for ns in "$@"; do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one PID a word
		[ -z "$pids" ] || kill $pids 2>/dev/null || true
	done
}

# netns_del NS...: delete the namespaces, ignoring errors (netns_list
# tells what is left).
netns_del() {
	[ $# -gt 0 ] || return 0
	printf 'netns del %s\n' "$@" | ip -force -batch - 2>/dev/null || true
}

# netns_run NS CMD...: run CMD in the network namespace NS, entered with
# nsenter --net (not "ip netns exec", which remounts /sys and hides
# /sys/fs/bpf).
netns_run() { nsenter --net="/run/netns/$1" -- "${@:2}"; }

# netns_exec NS CMD...: the same, in place of the script.
netns_exec() { exec nsenter --net="/run/netns/$1" -- "${@:2}"; }

# ---------------------------------------------------------------------
# Links.  These print commands, one a line, for "ip -batch" / "tc -batch"
# or, word-split, for one "ip" / "tc" each.

# veth_cmd DEV_A NS_A OPTIONS_A DEV_B NS_B OPTIONS_B: the ip command that
# makes the veth pair DEV_A in NS_A - DEV_B in NS_B, with each end's link
# OPTIONS ("address 02:...", "mtu 9000"; may be empty).
veth_cmd() {
	echo "link add $1 netns $2${3:+ $3} type veth peer name $4 netns $5${6:+ $6}"
}

# shape_cmds DEV RATE DELAY LEAF [HTB_OPTIONS [CLASS_OPTIONS [LEAF_HANDLE]]]:
# the tc commands of one link end's qdiscs:
#   RATE    an HTB root 1: ("default 1 HTB_OPTIONS") with one class 1:1
#           ("rate RATE CLASS_OPTIONS") that all traffic takes;
#   DELAY   a netem 10: ("delay DELAY limit 100000") under class 1:1, or
#           the root 1: when RATE is empty;
#   LEAF    "KIND ARGS", a qdisc under the netem as 20:, or, without
#           DELAY, under class 1:1 as LEAF_HANDLE (default 20:); needs
#           RATE.
# Empty arguments leave their part out.
shape_cmds() {
	local dev=$1 rate=$2 delay=$3 leaf=$4 htb=${5:-} class=${6:-}
	local leaf_handle=${7:-20:} leaf_parent=1:1
	if [ -z "$rate" ]; then
		echo "qdisc add dev $dev root handle 1: netem delay $delay limit 100000"
		return
	fi
	echo "qdisc add dev $dev root handle 1: htb default 1${htb:+ $htb}"
	echo "class add dev $dev parent 1: classid 1:1 htb rate $rate${class:+ $class}"
	if [ -n "$delay" ]; then
		echo "qdisc add dev $dev parent 1:1 handle 10: netem delay $delay limit 100000"
		leaf_parent=10:1 leaf_handle=20:
	fi
	[ -z "$leaf" ] ||
		echo "qdisc add dev $dev parent $leaf_parent handle $leaf_handle $leaf"
}

# guard_start DIR HOSTLOAD NS...: the first half of a run's guard
# (guard.jq): the HTB classes of every link of the testbeds of the hosts'
# namespaces NS (every namespace PREFIX-* of a host's PREFIX-hN: the
# switches' too), each distinct setting once with the number of links
# that have it, in DIR/classes.json; and HOSTLOAD (build/hostload)
# sampling the machine into DIR/hostload.json until guard_stop DIR.
guard_start() {
	local dir=$1 hostload=$2 ns dev
	shift 2
	for ns in "$@"; do
		if [[ $ns =~ ^(.+)-h[0-9]+$ ]]; then
			netns_list "${BASH_REMATCH[1]}" '.+'
		else
			echo "$ns"
		fi
	done | sort -u | while read -r ns; do
		for dev in $(ip -n "$ns" -o link show |
			     awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'); do
			tc -n "$ns" -d class show dev "$dev" 2>/dev/null
		done
	done | sed -n 's/^class htb [^ ]* \(root \|parent [^ ]* \)\{0,1\}\(leaf [^ ]* \)\{0,1\}//p' |
		sort | uniq -c | jq -R -s '
		  # tc prints a size near a multiple of 1 KiB (within 16
		  # bytes) or 1 MiB as Kb or Mb: bytes, to that precision
		  def size_after($word): capture(" \($word) (?<n>[0-9.]+)(?<u>[KM]?)b")
		    | (.n | tonumber) * (if .u == "M" then 1048576 elif .u == "K" then 1024 else 1 end)
		    | floor;
		  [split("\n")[] | select(length > 0)
		  | capture("^ *(?<links>[0-9]+) (?<class>.*)$")
		  | .links |= tonumber
		  | .burst_bytes = (.class | size_after("burst"))
		  | .cburst_bytes = (.class | size_after("cburst"))]' \
		>"$dir/classes.json" 2>/dev/null || echo '[]' >"$dir/classes.json"
	"$hostload" --out "$dir/hostload.json" 2>"$dir/hostload.err" &
	guard_load_pid=$!
}

# guard_stop DIR: the machine's load from guard_start's sampler ({} when
# it failed, with a message).
guard_stop() {
	kill -TERM "$guard_load_pid" 2>/dev/null || true
	wait "$guard_load_pid" ||
		log "hostload failed: $(tr '\n' ' ' <"$1/hostload.err")"
	[ -s "$1/hostload.json" ] || echo '{}' >"$1/hostload.json"
}
