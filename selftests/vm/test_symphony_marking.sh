#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_marking.sh - crafted RoCEv2 and UEC packets through a veth
# with the symphony qdisc: lagging steps are never marked, outpacing steps
# are (once the lagging step is past warm-up), LAST advances step_min, jobs
# do not interfere, non-collective and malformed packets pass unmarked,
# a LAST in any segment of a GSO packet counts, a packet whose IP header
# the qdisc cannot rewrite is neither marked nor counted as marked, and
# what the qdisc counts as marked arrives CE at the receiver.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool ecnstat jq nsenter

ktap_plan 28

netns_create a b
veth_pair "$a" va 10.252.0.1/24 "$b" vb 10.252.0.2/24

# RED out of the way; k = 100 makes P = 1 once psn > psn_rec / 100.
tc -n "$a" qdisc add dev va root symphony kmin 50mb kmax 60mb k 100 \
	twin 10s warmup 16
in_ns "$b" "$ecnstat" attach vb >/dev/null
on_exit in_ns "$b" "$ecnstat" detach vb

send() { ip netns exec "$a" "$rocegen" "$@" >/dev/null; }
# A burst whose marks are counted exactly goes out well inside one 10 s
# T_win period: a window roll within it leaves the outpacing packet after
# the roll unmarked (psn_rec reset).  On the debug kernel a send of 150
# packets takes about 2 s, process start included.
send_counted() { sleep_unless_period_left 10 4; send "$@"; }
# one process per reading: this test reads counters some 40 times
stat() { json_uint "$1" "$(tc -n "$a" -j -s qdisc show dev va)"; }
ce() { json_uint ce "$(in_ns "$b" "$ecnstat" show vb --json)"; }

send 10.252.0.2 job=1,step=10,psn=1,count=200
check_eq "200 packets of the lagging step are collective" 200 "$(stat collective_packets)"
check_eq "the lagging step is never marked" "0 0" "$(stat symphony_marks) $(ce)"

# Each outpacing burst goes out interleaved with packets of the lagging
# step, so that psn_rec is fresh whatever the VM's pace: a window roll
# between two commands would reset it and hold Symphony in warm-up.
# P = min(1, 100 * psn / psn_rec) = 1 for psn >= 10 here.
send_counted 10.252.0.2 job=1,step=10,psn=201,count=100 job=1,step=11,psn=10,count=100
marks=$(stat symphony_marks)
check_eq "100 packets of step 11 are outpacing" 100 "$(stat outpacing_packets)"
check_eq "outpacing packets are marked, the lagging ones not" 100 "$marks"
check_eq "the receiver sees every Symphony mark as CE" "$marks" "$(ce)"

send 10.252.0.2 job=1,step=10,psn=301,count=1,last
send 10.252.0.2 job=1,step=11,psn=101,count=50
check_eq "after LAST of step 10, step 11 is lagging: no new marks" \
	"$marks" "$(stat symphony_marks)"

send 10.252.0.2 job=2,step=3,psn=1,count=100
check_eq "another job's lower step is its own step_min: unmarked" \
	"$marks" "$(stat symphony_marks)"
send_counted 10.252.0.2 job=1,step=11,psn=151,count=20 job=1,step=12,psn=50,count=20
check_eq "job 1's step 12 is still outpacing its own step_min" 20 \
	$(( $(stat symphony_marks) - marks ))
marks=$(stat symphony_marks)

send 10.252.0.2 job=1,step=9,psn=1,count=20
check_eq "a late packet of an older step corrects step_min: unmarked" \
	"$marks" "$(stat symphony_marks)"

before=$(stat unclassified_packets)
ip netns exec "$a" ping -q -c 50 -i 0.01 -Q 2 10.252.0.2 >/dev/null
send 10.252.0.2 job=1,step=40,psn=1,count=30,truncate=5
check_eq "ECT pings and truncated RoCEv2 packets are unclassified" \
	$((before + 80)) "$(stat unclassified_packets)"
check_eq "the truncated ones count as malformed" 30 "$(stat malformed_packets)"
check_eq "none of them was marked" "$marks" "$(stat symphony_marks)"

# psn_rec >= 1000: P = min(1, 100 * 100 / psn_rec) = 1 for every packet
send_counted --proto uec 10.252.0.2 job=7,step=1,psn=1000,count=100 job=7,step=2,psn=100,count=50
check_eq "UEC: the outpacing PDC is marked, the lagging one not" 50 \
	$(( $(stat symphony_marks) - marks ))
marks=$(stat symphony_marks)

# IPv6 only from here on: its own packets (router solicitations, MLD
# reports) would otherwise cross the unclassified count above
ip netns exec "$a" sysctl -qw net.ipv6.conf.va.router_solicitations=0 \
	net.ipv6.conf.va.disable_ipv6=0
ip netns exec "$b" sysctl -qw net.ipv6.conf.vb.disable_ipv6=0
ip -n "$a" addr add fd00:252::1/64 dev va nodad
ip -n "$b" addr add fd00:252::2/64 dev vb nodad
ip -n "$a" neigh replace fd00:252::2 dev va lladdr \
	"$(ip -n "$b" -br link show vb | awk '{ print $3 }')"
send_counted fd00:252::2 job=9,step=1,psn=100,count=100 job=9,step=2,psn=1,count=50
check_eq "IPv6: the outpacing step is marked (P = min(1, 100 psn / psn_rec))" 50 \
	$(( $(stat symphony_marks) - marks ))
marks=$(stat symphony_marks)
before=$(stat collective_packets)
send_counted --gso 4 10.252.0.2 job=11,step=1,psn=100,count=100 job=11,step=2,psn=50,count=40
check_eq "GSO packets count as their segments" $((before + 140)) \
	"$(stat collective_packets)"
check_eq "every segment of a marked GSO packet is marked" 40 \
	$(( $(stat symphony_marks) - marks ))
# A GSO packet is accounted segment by segment: its second segment's
# LAST (packets 5 and 6 of the step go as one GSO send) ends step 1, and
# step 2 is then the lowest in flight, not outpacing.
outpacing=$(stat outpacing_packets)
send --gso 4 10.252.0.2 job=12,step=1,psn=1,count=6,last
send 10.252.0.2 job=12,step=2,psn=1,count=20
check_eq "a LAST in a GSO packet's later segment advances step_min" 0 \
	$(( $(stat outpacing_packets) - outpacing ))
# 20000 jobs in the own table; UEC's 24-bit JobID reaches the last one.
tc -n "$a" qdisc change dev va root symphony jobs 20000
marks=$(stat symphony_marks)
send_counted --proto uec 10.252.0.2 job=19999,step=1,psn=1000,count=100 job=19999,step=2,psn=100,count=50
check_eq "job 19999 of a 20000-job table is tracked and marked" 50 \
	$(( $(stat symphony_marks) - marks ))
# qmin above the backlog: Symphony still tracks the job, but marks nothing.
tc -n "$a" qdisc change dev va root symphony qmin 1mb
marks=$(stat symphony_marks)
outpacing=$(stat outpacing_packets)
send --proto uec 10.252.0.2 job=19998,step=1,psn=1000,count=100 job=19998,step=2,psn=100,count=50
check_eq "below qmin the outpacing step is tracked but not marked" "50 0" \
	"$(( $(stat outpacing_packets) - outpacing )) $(( $(stat symphony_marks) - marks ))"
# Packets of an outpacing step whose IP header lies outside the linear
# head (AF_PACKET with a virtio-net header): CE cannot be set, so they
# are neither marked nor counted as marks.
tc -n "$a" qdisc change dev va root symphony qmin 0
ip -n "$a" link set va mtu 9000
ip -n "$b" link set vb mtu 9000
send 10.252.0.2 job=15,step=1,psn=1000,count=100
marks=$(stat symphony_marks)
collective=$(stat collective_packets)
ip netns exec "$a" "$SELFTESTS_DIR/tools/afpacket_frags.py" va \
	"$(ip -n "$b" -br link show vb | awk '{ print $3 }')" 10.252.0.1 10.252.0.2 \
	--job 15 --step 2 --psn 100 --count 20 --lead 1:1100
check_eq "packets with a non-linear IP header are parsed" 40 \
	$(( $(stat collective_packets) - collective ))
check_eq "... and, unmarkable, not counted as Symphony marks" 0 \
	$(( $(stat symphony_marks) - marks ))
send_counted 10.252.0.2 job=15,step=1,psn=1101,count=10 job=15,step=2,psn=200,count=10
check_eq "the same step's linear packets are marked" 10 \
	$(( $(stat symphony_marks) - marks ))
# IPv6 with a 64-byte Destination Options header, all of it past the
# 14-byte linear head: the parser follows the extension header through
# the fragments; the packets, unmarkable, are not counted as marked.
marks=$(stat symphony_marks)
collective=$(stat collective_packets)
ip netns exec "$a" "$SELFTESTS_DIR/tools/afpacket_frags.py" va \
	"$(ip -n "$b" -br link show vb | awk '{ print $3 }')" fd00:252::1 fd00:252::2 \
	--job 16 --step 2 --psn 100 --count 10 --lead 1:1000 --dest-opts 64
check_eq "IPv6 through an extension header in the fragments is parsed" 20 \
	$(( $(stat collective_packets) - collective ))
check_eq "... and, unmarkable, not counted as marked" 0 \
	$(( $(stat symphony_marks) - marks ))
# VLAN: the tag travels in the skb's metadata past the qdisc.
ip -n "$a" link add link va name va.10 type vlan id 10
ip -n "$b" link add link vb name vb.10 type vlan id 10
ip -n "$a" addr add 10.252.10.1/24 dev va.10
ip -n "$b" addr add 10.252.10.2/24 dev vb.10
ip -n "$a" link set va.10 up
ip -n "$b" link set vb.10 up
ip -n "$a" neigh replace 10.252.10.2 dev va.10 lladdr \
	"$(ip -n "$b" -br link show vb.10 | awk '{ print $3 }')"
marks=$(stat symphony_marks)
collective=$(stat collective_packets)
send_counted 10.252.10.2 job=17,step=1,psn=1000,count=20 job=17,step=2,psn=100,count=10
check_eq "VLAN-tagged collective packets are parsed" 30 \
	$(( $(stat collective_packets) - collective ))
check_eq "... and their outpacing step is marked" 10 \
	$(( $(stat symphony_marks) - marks ))
check_eq "no RED marks below kmin" 0 "$(stat red_marks)"
check_eq "qdisc marks and receiver CE agree" "$(stat symphony_marks)" "$(ce)"

ktap_finished
