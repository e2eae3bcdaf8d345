#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_ops.sh - Ofan's agent under an operator's hands:
#  - "ofan port N down" belongs to the interface: a reload whose
#    configuration drops another uplink and renumbers the rest keeps that
#    interface down and the others up;
#  - "ofan port N up|down" from another network namespace than the load's
#    is refused, naming both, and changes nothing.
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

ktap_plan 6

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

ktap_finished
