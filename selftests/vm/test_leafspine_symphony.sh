#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_leafspine_symphony.sh - the leaf-spine builder inside the VM with
# the project's qdisc on every switch port: 2 ToRs, 2 spines, 4 hosts at
# 20 Mbit/s with symphony under each port's HTB; a ring AllReduce of the
# emulator crosses it, the symphony qdiscs classify its packets as
# collective (job and step from the BTH and the UDP source port), and the
# testbed tears down completely.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool ringcoll ip jq nsenter

ls=$TOP_DIR/tc-scripts/leafspine.sh
prefix=lsv$$
tmp=$(mktemp -d /tmp/test_leafspine_vm.XXXXXX)
on_exit rm -rf "$tmp"
on_exit "$ls" down --prefix "$prefix"

ktap_plan 4

check "a leaf-spine with symphony on every switch port" \
	"$ls" up --prefix "$prefix" --tors 2 --spines 2 --hosts-per-tor 2 \
	--rate 20mbit --qdisc symphony --qdisc-args "kmin 10kb kmax 40kb"
ring="7=$prefix-h0:10.1.0.2,$prefix-h2:10.1.1.2,$prefix-h1:10.1.0.3,$prefix-h3:10.1.1.3"
"$TOP_DIR/tc-scripts/ringrun.sh" --out "$tmp/run" --delay 1500 --job "$ring" \
	-- --size 256k --rate 20mbit --timeout 30 >"$tmp/run.log" 2>&1 && rc=0 || rc=$?
ktap_print "$(head -1 "$tmp/run.log")"
check_eq "a ring AllReduce across the ToRs completes" 0 "$rc"
collective=$(for n in t0 t1 s0 s1; do
	for dev in $(ip -n "$prefix-$n" -br link show | awk '$1 ~ /^[ud][0-9]/ { sub(/@.*/, "", $1); print $1 }'); do
		tc -n "$prefix-$n" -s -j qdisc show dev "$dev"
	done
done | jq -s '[.[][] | select(.kind == "symphony") | .collective_packets] | add')
ktap_print "collective packets counted by the switch ports' symphony qdiscs: $collective"
check "the symphony qdiscs of the switch ports see its packets as collective" \
	test "$collective" -gt 0
"$ls" down --prefix "$prefix"
check_eq "down leaves no namespace behind" 0 "$(ip netns list | grep -c "^$prefix-" || true)"

ktap_finished
