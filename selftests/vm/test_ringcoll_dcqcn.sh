#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ringcoll_dcqcn.sh - the ring emulator's DCQCN loop through a
# marking qdisc: two jobs on opposite rings cross a router whose ports are
# half the hosts' rate, under HTB with symphony (RED marking) as leaf; the
# router marks CE, the receivers send CNPs (one per queue pair per 50 us
# at most), the senders cut their rates and recover, and both AllReduces
# complete; a step may start at the rate its queue pair was cut to.  With
# --step-flows each step's first packet starts a new flow at the line rate.
# With --fixed-rate the rates never move, whatever CNPs come.  Queues of
# hundreds of ms under ringcoll's 20 ms minimum timeout do not make
# go-back-N resend the run (include/workload/rto.h): the timeout follows
# the round trip.
#
#	h0 --\            /-- h2
#	      router (rt)		hosts 20 Mbit/s, router ports 10 Mbit/s
#	h1 --/            \-- h3
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool ringcoll ip jq

ringrun=$TOP_DIR/tc-scripts/ringrun.sh
tmp=$(mktemp -d /tmp/test_ringcoll_dcqcn.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 12

netns_create rt h0 h1 h2 h3
ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1
hosts=("$h0" "$h1" "$h2" "$h3")
for i in 0 1 2 3; do
	veth_pair "${hosts[i]}" eth0 "10.61.$i.2/24" "$rt" "p$i" "10.61.$i.1/24"
	ip -n "${hosts[i]}" route add default via "10.61.$i.1"
	ip netns exec "$rt" ping -c 1 -W 2 "10.61.$i.2" >/dev/null
	tc -n "${hosts[i]}" qdisc add dev eth0 root handle 1: htb default 1 r2q 100
	tc -n "${hosts[i]}" class add dev eth0 parent 1: classid 1:1 htb rate 20mbit
	tc -n "$rt" qdisc add dev "p$i" root handle 1: htb default 1 r2q 100
	tc -n "$rt" class add dev "p$i" parent 1: classid 1:1 htb rate 10mbit
	tc -n "$rt" qdisc add dev "p$i" parent 1:1 handle 10: symphony \
		limit 2000 kmin 6kb kmax 30kb pmax 0.2 marking red
done
ring=1=$h0:10.61.0.2,$h1:10.61.1.2,$h2:10.61.2.2,$h3:10.61.3.2
rev=2=$h3:10.61.3.2,$h2:10.61.2.2,$h1:10.61.1.2,$h0:10.61.0.2

run() {	# run NAME [ringcoll options]
	local name=$1
	shift
	"$ringrun" --out "$tmp/$name" --delay 1500 --job "$ring" --job "$rev" \
		-- --size 256k --rate 20mbit --timeout 30 "$@" >"$tmp/$name.log" 2>&1
}

run dcqcn && rc=0 || rc=$?
ktap_print "$(tr '\n' ' ' <"$tmp/dcqcn.log")"
check_eq "two AllReduces complete through the marking router" 0 "$rc"
res=$(cat "$tmp/dcqcn/result.json")
marks=$(for i in 0 1 2 3; do tc -n "$rt" -j -s qdisc show dev "p$i"; done |
	jq -s '[.[][] | select(.kind == "symphony") | .red_marks] | add')
ktap_print "router RED marks: $marks; counters: $(jq -c .counters <<<"$res")"
check "the router's symphony qdiscs mark CE" test "$marks" -gt 0
check_jq "receivers see CE and answer with CNPs, which reach the senders" \
	'.counters.ce_received > 0 and .counters.cnps_sent > 0 and
	 .counters.cnps_received > 0 and .counters.cnps_received <= .counters.cnps_sent' "$res"
check_jq "at most one CNP per queue pair per 50 us: fewer CNPs than CE packets" \
	'.counters.cnps_sent <= .counters.ce_received' "$res"
rates=$(for i in 0 1 2 3; do jq -c '[.rate_samples[][3]]' "$tmp/dcqcn/${hosts[i]}.json"; done | jq -s 'add')
ktap_print "DCQCN rates seen: min $(jq min <<<"$rates") max $(jq max <<<"$rates") bit/s"
check_jq "DCQCN cuts the rates below the 20 Mbit/s line" 'min < 20000000' "$rates"
check_jq "... and lets them recover (rates rise after a cut)" \
	'[range(1; length) as $i | select(.[$i] > .[$i - 1])] | length > 0' "$rates"

# the rates each rank's steps started at: each step's first packet
first_rates() {	# first_rates RUN
	for i in 0 1 2 3; do
		jq '[.jobs[].iterations[].steps[].first_rate_bps]' "$tmp/$1/${hosts[i]}.json"
	done | jq -sc add
}
ktap_print "steps started at (bit/s): $(first_rates dcqcn)"
check_jq "without --step-flows a step may start at its queue pair's cut rate" \
	'length == 2 * 4 * 6 and min < 20000000' "$(first_rates dcqcn)"

run flows --step-qps 2 --step-flows && rc=0 || rc=$?
ktap_print "step flows: $(jq -c .counters "$tmp/flows/result.json")"
check_jq "--step-flows, 2 queue pairs: both complete, 2 jobs x 4 ranks x 6 steps start a flow each" \
	'[.jobs[].iterations[0].complete] == [true, true] and .run.step_flows and
	 .counters.flow_starts == 2 * 4 * 6 and .counters.cnps_received > 0' \
	"$(cat "$tmp/flows/result.json")"
check_jq "... and every step starts at the 20 Mbit/s line rate, whatever cut its queue pair had" \
	'length == 2 * 4 * 6 and min == 20000000 and max == 20000000' "$(first_rates flows)"
# resends come of timeouts: a bound on them is a timing bound, which a
# run the guard finds untrustworthy (the machine stalled) cannot vouch for
check_timing_jq "... and under queues longer than the 20 ms minimum timeout, under 10% of the packets sent are resends" \
	'.counters.retransmitted_packets < 0.1 * .counters.packets_sent' \
	"$(cat "$tmp/flows/result.json")"

run fixed --fixed-rate && rc=0 || rc=$?
check_eq "with --fixed-rate they complete too" 0 "$rc"
ktap_print "fixed rate: $(jq -c .counters "$tmp/fixed/result.json")"
check_jq "... and whatever CNPs arrive, no rate moves (no rate samples)" \
	'([.[] | .rate_samples | length] | add) == 0' \
	"$(jq -s . "$tmp/fixed"/symofan-h*.json)"

ktap_finished
