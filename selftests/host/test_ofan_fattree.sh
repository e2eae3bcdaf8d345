#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_fattree.sh - Ofan on a k=4 fat tree (16 hosts, 20 switches) in
# network namespaces on the host kernel, driven by a paced UDP sender:
# under ofan every uplink of a switch carries the same number of packets
# of a destination key to within one per round, at edge and aggregation
# layers; a downed and invalidated uplink carries nothing while every
# packet is still delivered; pofan, rr, rps and ecmp deliver everything.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq nsenter
require_built "$BUILD_DIR/symofan" "$BUILD_DIR/rocegen"
require_bpffs

fattree=$TOP_DIR/tc-scripts/fattree.sh
ofan=$TOP_DIR/tc-scripts/ofan-fattree.sh
prefix=oft$$

ktap_plan 14

on_exit "$fattree" down --prefix "$prefix"
on_exit "$ofan" unload --prefix "$prefix"
check "build the k=4 fat tree" "$fattree" up --prefix "$prefix"
check "load Ofan on its 16 edge and aggregation switches" \
	"$ofan" load --prefix "$prefix"

ports() { "$ofan" status "$1" --prefix "$prefix" --json | jq -c '[.ports[].packets]'; }
rx() { "$fattree" exec --prefix "$prefix" "$1" ip -s -j link show eth0 | jq '.[0].stats64.rx.packets'; }
send() {	# send SRC DST_ADDR COUNT
	"$fattree" exec --prefix "$prefix" "$1" "$BUILD_DIR/rocegen" --pps 4000 \
		"$2" "job=1,step=1,count=$3" >/dev/null
}
# split BEFORE AFTER: the per-port deltas, as "a b"
split() { jq -n -r --argjson b "$1" --argjson a "$2" '[range($a | length) | $a[.] - $b[.]] | join(" ")'; }
balanced() {	# balanced "a b ..." TOTAL: sums to TOTAL, max - min <= 1
	local d=($1) sum=0 min=${d[0]} max=${d[0]} x
	for x in "${d[@]}"; do
		sum=$((sum + x))
		[ "$x" -lt "$min" ] && min=$x
		[ "$x" -gt "$max" ] && max=$x
	done
	[ "$sum" -eq "$2" ] && [ $((max - min)) -le 1 ]
}

# h0 (edge key 0, pod 0) to h8 (edge key 4, pod 2): 401 packets, an odd
# number so that "within one" is tested, not "equal".
e0=$(ports e0-0); a00=$(ports a0-0); a01=$(ports a0-1); r8=$(rx h8)
send h0 10.0.4.2 401
sleep 0.3
d_e0=$(split "$e0" "$(ports e0-0)")
d_a00=$(split "$a00" "$(ports a0-0)")
d_a01=$(split "$a01" "$(ports a0-1)")
ktap_print "e0-0 uplinks: $d_e0; a0-0: $d_a00; a0-1: $d_a01"
check "edge switch: both uplinks carry the key's 401 packets to within one" \
	balanced "$d_e0" 401
e0_up=($d_e0)
check "aggregation a0-0: its share split evenly over its cores" \
	balanced "$d_a00" "${e0_up[0]}"
check "aggregation a0-1: likewise" balanced "$d_a01" "${e0_up[1]}"
check_eq "every packet is delivered" 401 $(( $(rx h8) - r8 ))

# Four sources under four edge switches to four other pods, at once.
before=$(for h in h2 h6 h10 h14; do rx $h; done | xargs)
send h0 10.0.1.2 300 & send h4 10.0.3.2 300 & send h8 10.0.5.2 300 &
send h12 10.0.7.2 300 & wait
sleep 0.3
after=$(for h in h2 h6 h10 h14; do rx $h; done | xargs)
check_eq "four concurrent flows all arrive" "300 300 300 300" \
	"$(jq -n -r --arg b "$before" --arg a "$after" \
	   '[$a | split(" ") | map(tonumber)] as [$x] | [$b | split(" ") | map(tonumber)] as [$y]
	    | [range(4) | $x[.] - $y[.]] | join(" ")')"

# e0-0's uplink 1 goes down and is marked invalid.
"$fattree" exec --prefix "$prefix" e0-0 ip link set up1 down
"$ofan" port e0-0 1 down --prefix "$prefix" >/dev/null
e0=$(ports e0-0); r8=$(rx h8)
send h0 10.0.4.2 200
sleep 0.3
check_eq "a down uplink carries nothing; the other takes all" "200 0" \
	"$(split "$e0" "$(ports e0-0)")"
check_eq "and every packet is still delivered" 200 $(( $(rx h8) - r8 ))
"$fattree" exec --prefix "$prefix" e0-0 ip link set up1 up
"$ofan" port e0-0 1 up --prefix "$prefix" >/dev/null
sleep 1

for mode in pofan rr rps ecmp; do
	"$ofan" set-mode "$mode" --prefix "$prefix"
	r8=$(rx h8)
	e0=$(ports e0-0)
	send h0 10.0.4.2 200
	sleep 0.3
	check_eq "$mode delivers every packet (e0-0 uplinks: $(split "$e0" "$(ports e0-0)"))" \
		200 $(( $(rx h8) - r8 ))
done

check "unload removes every pin" sh -c \
	"'$ofan' unload --prefix '$prefix' && ! ls -d /sys/fs/bpf/ofan-$prefix-* 2>/dev/null"

ktap_finished
