#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_fattree.sh - Ofan on a k=4 fat tree (16 hosts, 20 switches) in
# network namespaces on the host kernel, driven by a paced UDP sender:
# under ofan every uplink of a switch carries the same number of packets
# of a destination key to within one per round, at edge and aggregation
# layers; a downed and invalidated uplink carries nothing while every
# packet is still delivered; the agent's daemon takes a downed uplink and a
# withdrawn route out of use within 100 ms, and a kill -9 of it under
# traffic loses nothing; pofan, rr, rps and ecmp deliver everything.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq nsenter bpftool
require_built "$BUILD_DIR/symofan" "$BUILD_DIR/rocegen"
require_bpffs

fattree=$TOP_DIR/tc-scripts/fattree.sh
ofan=$TOP_DIR/tc-scripts/ofan-fattree.sh
prefix=oft$$

ktap_plan 23

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

# The agent's daemon on e0-0 follows its links and routes over rtnetlink.
pin_e0=/sys/fs/bpf/ofan-$prefix-e0-0
in_e0() { "$fattree" exec --prefix "$prefix" e0-0 "$@"; }
daemon_log=$(mktemp /tmp/test_ofan_fattree.XXXXXX)
on_exit rm -f "$daemon_log"
start_daemon() {
	in_e0 "$BUILD_DIR/symofan" daemon --pin-dir "$pin_e0" >>"$daemon_log" 2>&1 &
	daemon=$!
	sleep 0.3
}
up_ports() {
	ofan_lookup -j "$pin_e0" ofan_config 0 |
		jq .formatted.value.up_ports
}
valid() {
	ofan_lookup -j "$pin_e0" ofan_dests "$1" |
		jq .formatted.value.valid_ports
}
# wait_ms WANT CMD...: poll CMD every 5 ms until it prints WANT (at most
# 1 s); prints the milliseconds it took, or "timeout"
wait_ms() {
	local want=$1 t0 now
	shift
	t0=$(date +%s%N)
	while [ "$("$@")" != "$want" ]; do
		now=$(date +%s%N)
		[ $(( (now - t0) / 1000000 )) -lt 1000 ] || { echo timeout; return; }
		sleep 0.005
	done
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
within_100ms() { [ "$1" != timeout ] && [ "$1" -le 100 ]; }

start_daemon
on_exit kill "$daemon"
in_e0 ip link set up1 down
ms=$(wait_ms 1 up_ports)
ktap_print "up1 down reached ofan_config.up_ports after $ms ms"
check "daemon: a downed uplink leaves up_ports within 100 ms" within_100ms "$ms"
e0=$(ports e0-0); r8=$(rx h8)
send h0 10.0.4.2 200
sleep 0.3
check_eq "daemon: the down uplink carries nothing, all is delivered" "200 0 200" \
	"$(split "$e0" "$(ports e0-0)") $(( $(rx h8) - r8 ))"
in_e0 ip link set up1 up
ms=$(wait_ms 3 up_ports)
ktap_print "up1 up reached up_ports after $ms ms"
check "daemon: the uplink back up returns within 100 ms" within_100ms "$ms"

# Withdraw key 4's route through up1: a /24 via up0 only.
via0=$(in_e0 ip -j route show default | jq -r '.[0].nexthops[] | select(.dev == "up0") | .gateway')
in_e0 ip route add 10.0.4.0/24 via "$via0" dev up0
ms=$(wait_ms 1 valid 4)
ktap_print "key 4's route without up1 reached its valid ports after $ms ms"
check "daemon: a route without up1 invalidates port 1 for key 4 within 100 ms" \
	within_100ms "$ms"
check_eq "... and for that key only (keys 1, 5, 7 keep both ports)" "3 3 3" \
	"$(valid 1) $(valid 5) $(valid 7)"
e0=$(ports e0-0); r8=$(rx h8)
send h0 10.0.4.2 100
sleep 0.3
check_eq "key 4's packets take up0 only, all delivered" "100 0 100" \
	"$(split "$e0" "$(ports e0-0)") $(( $(rx h8) - r8 ))"
in_e0 ip route del 10.0.4.0/24
ms=$(wait_ms 3 valid 4)
check "daemon: the route withdrawn, key 4 has both ports again ($ms ms)" within_100ms "$ms"

# kill -9 under traffic: the datapath goes on with its maps; a restart
# changes no pointer.
r8=$(rx h8)
send h0 10.0.4.2 1200 & sender=$!
sleep 0.1
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
wait "$sender"
sleep 0.3
check_eq "kill -9 of the daemon under traffic loses no packet" 1200 $(( $(rx h8) - r8 ))
ptrs() { "$ofan" status e0-0 --prefix "$prefix" --json | jq -c '[.keys[]?.pointers]'; }
before=$(ptrs)
start_daemon
check_eq "a restarted daemon changes no pointer" "$before" "$(ptrs)"
kill "$daemon"

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
