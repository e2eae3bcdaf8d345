#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_ops.sh - Ofan's agent under an operator's hands:
#  - "ofan port N down" belongs to the interface: a reload whose
#    configuration drops another uplink and renumbers the rest keeps that
#    interface down and the others up;
#  - "ofan port N up|down" from another network namespace than the load's
#    is refused, naming both, and changes nothing;
#  - a reload that renumbers keys writes prefixes' keys into the set it
#    fills only: the set in use keeps the last load's keys until the flip
#    (the LPM tries and the pipes map hold a value per set), prefixes and
#    downlinks that leave go after it.
#
#	sw (up0, up1, up2 to peer; d0 to host)
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip jq nsenter
require_tools symofan
require_bpffs

pins=/sys/fs/bpf/symofan-ofan-ops-$$
tmp=$(mktemp -d)
on_exit rm -rf "$tmp" "$pins"

ktap_plan 10

netns_create sw peer host other
for i in 0 1 2; do
	veth_pair "$sw" "up$i" "10.73.$i.1/24" "$peer" "e$i" "10.73.$i.2/24"
done
veth_pair "$host" eth0 10.74.0.2/24 "$sw" d0 10.74.0.1/24
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force
ofan() { in_ns "$sw" "$symofan" ofan "$@"; }
status_of() { local out rc; out=$("$@" 2>&1) && rc=0 || rc=$?; echo "$rc: $out"; }
# each uplink as "NAME:up|down" (carrying traffic or not) and its admin state
uplinks() {
	ofan status --pin-dir "$pins" --json |
		jq -r '[.ports[] | "\(.ifname):\(if .up then "up" else "down" end)/\(if .admin_up then "admin-up" else "admin-down" end)"] | join(" ")'
}

conf() {	# FILE UPLINK_DEV...
	local f=$1 i=0 dev
	shift
	{
		echo "role edge"
		echo "mode ofan"
		echo "pin-dir $pins"
		for dev in "$@"; do
			echo "uplink $i dev $dev via 10.73.${dev#up}.2"
			i=$((i + 1))
		done
		echo "downlink dev d0"
	} > "$f"
}
conf "$tmp/three.conf" up0 up1 up2
conf "$tmp/two.conf" up1 up2

check "load three uplinks" ofan load "$tmp/three.conf"
check "set uplink 1 (up1) administratively down" ofan port 1 down --pin-dir "$pins"
check_eq "up1 is down, the others up" \
	"up0:up/admin-up up1:down/admin-down up2:up/admin-up" "$(uplinks)"
ofan load "$tmp/two.conf" >/dev/null
check_eq "a reload that drops up0 keeps up1 down (now uplink 0) and up2 up" \
	"up1:down/admin-down up2:up/admin-up" "$(uplinks)"

r=$(status_of in_ns "$other" "$symofan" ofan port 1 down --pin-dir "$pins")
check "port down from another namespace is refused, naming both" \
	grep -q "^1: .*was loaded from network namespace net:\[[0-9]*\], this is net:\[[0-9]*\]" <<<"$r"
check_eq "... and changes nothing" \
	"up1:down/admin-down up2:up/admin-up" "$(uplinks)"

# ---- renumbered keys ------------------------------------------------
pins2=$pins-keys
on_exit rm -rf "$pins2"
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins2" --force
keys_conf() {	# FILE "KEY PORTS"... -- "PREFIX KEY"...
	local f=$1
	shift
	{
		printf 'role edge\nmode ofan\npin-dir %s\n' "$pins2"
		echo "uplink 0 dev up0 via 10.73.0.2"
		echo "uplink 1 dev up1 via 10.73.1.2"
		echo "downlink dev d0"
		while [ "$1" != -- ]; do echo "key $1"; shift; done
		shift
		for p in "$@"; do echo "prefix $p"; done
	} > "$f"
}
keys_conf "$tmp/a.conf" "1 ports 0" "2 ports 1" -- \
	"10.9.0.0/24 key 1" "10.9.1.0/24 key 2" "10.9.2.0/24 key 2"
keys_conf "$tmp/b.conf" "1 ports 1" "2 ports 0" -- \
	"10.9.0.0/24 key 2" "10.9.1.0/24 key 1" "10.9.3.0/24 key 1"
# PREFIX's keys "IN_USE/OTHER" (none: 4294967295), or "absent"
keys_of() {
	local set
	set=$(bpftool -j map lookup pinned "$pins2/ofan_active" key 0 0 0 0 |
		jq '.formatted.value.set % 2')
	local v
	v=$(bpftool -j map lookup pinned "$pins2/ofan_dst4" key 24 0 0 0 $1 0 \
		2>/dev/null) || { echo absent; return; }
	jq -r ".formatted.value.key | \"\(.[$set])/\(.[1 - $set])\"" <<<"$v"
}
ofan load "$tmp/a.conf" >/dev/null
ofan load "$tmp/b.conf" >/dev/null
check_eq "renumbered prefixes: the new keys in the set in use, the last load's in the other" \
	"2/1 1/2" "$(keys_of "10 9 0") $(keys_of "10 9 1")"
check_eq "a new prefix has no key in the last load's set" "1/4294967295" "$(keys_of "10 9 3")"
check_eq "a prefix the reload dropped is gone once the new set is in use" "absent" \
	"$(keys_of "10 9 2")"
check_jq "the downlink's pipe is kept per set" \
	'.formatted.value.pipe == [0, 0]' \
	"$(bpftool -j map lookup pinned "$pins2/ofan_pipes" key \
	   $(ip -n "$sw" -j link show dev d0 | jq -r '.[0].ifindex as $i | [$i % 256, ($i / 256 | floor) % 256, 0, 0] | map(tostring) | join(" ")'))"

ktap_finished
