#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_red.sh - RED on the instantaneous backlog, OR-ed with
# Symphony: a queue above kmin gets RED marks (also on lagging steps, which
# Symphony never marks), the receiver sees them as CE, "marking red" is the
# plain RED baseline, and non-ECT packets, and ECT packets whose IP header
# cannot be rewritten, are dropped or passed as "nonect" says.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool ecnstat jq nsenter

ktap_plan 13

netns_create a b
veth_pair "$a" va 10.254.0.1/24 "$b" vb 10.254.0.2/24
in_ns "$b" "$ecnstat" attach vb >/dev/null
on_exit in_ns "$b" "$ecnstat" detach vb

# 10 Mbit/s bottleneck; RED from 3 KB to 30 KB of backlog, P = 1 at kmax.
tc -n "$a" qdisc add dev va root handle 1: htb default 1
bottleneck() { tc -n "$a" class "$1" dev va parent 1: classid 1:1 htb \
	rate "$2" burst 3k; }
bottleneck add 10mbit
leaf() { tc -n "$a" qdisc "$1" dev va parent 1:1 handle 10: symphony \
	kmin 3kb kmax 30kb pmax 1 "${@:2}"; }
stats() { tc -n "$a" -j -s qdisc show dev va | jq -c '.[] | select(.kind == "symphony")'; }
ce() { in_ns "$b" "$ecnstat" show vb --json | jq .ce; }
# A burst builds its queue whatever the sender's speed (a KASAN kernel
# under TCG sends slower than 10 Mbit/s): the bottleneck nearly stops
# while it is sent, then drains it at 10 Mbit/s until the leaf is empty.
# The senders' socket buffers must then hold a whole burst (300 packets
# of 1 KB, 60 of 4 KB) rather than block on the closed gate.
wmem_default=$(sysctl -n net.core.wmem_default)
on_exit sysctl -qw net.core.wmem_default="$wmem_default"
sysctl -qw net.core.wmem_default=4194304
gated() {
	local qlen tries=0

	bottleneck change 8kbit
	"$@"
	bottleneck change 10mbit
	while qlen=$(json_uint qlen "$(stats)") && [ "$qlen" -gt 0 ] && [ $tries -lt 100 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
	sleep 0.2	# the last packets' way to the receiver's counter
}
send_burst() { ip netns exec "$a" "$rocegen" --payload 1000 "$@" >/dev/null; }
burst() { gated send_burst "$@"; }

leaf add
burst 10.254.0.2 job=1,step=5,psn=1,count=300
s=$(stats)
ktap_print "lagging burst: $s"
check_jq "a burst above kmin is RED-marked" '.red_marks > 100' "$s"
check_jq "a lagging step gets no Symphony marks under RED" '.symphony_marks == 0 and .outpacing_packets == 0' "$s"
check_eq "the receiver sees every RED mark as CE" "$(jq .red_marks <<<"$s")" "$(ce)"

leaf change marking red
burst 10.254.0.2 job=1,step=9,psn=1,count=300
s=$(stats)
check_jq "marking red is the baseline: no parsing, no Symphony marks" \
	'.symphony_marks == 0 and .collective_packets == 300' "$s"

leaf change marking symphony nonect drop
before=$(jq .red_drops <<<"$s")
# Drops carry a reason for drop monitors: qdisc:qdisc_drop's, RED's
# congestion drop as sch_red reports it, where the kernel has the event
# (after 6.18), else the skb:kfree_skb tracepoint's.
event=/sys/kernel/tracing/events/skb/kfree_skb
tasks_named=$(cat /sys/kernel/tracing/saved_cmdlines 2>/dev/null | wc -l)
if drop_trace_start; then
	tracer=qdisc_drop
elif [ -w "$event/enable" ]; then
	tracer=kfree_skb
	trace_event_enable "$event"
else
	tracer=none
fi
burst --ecn 0 10.254.0.2 job=2,step=1,psn=1,count=300
s=$(stats)
ktap_print "non-ECT burst, nonect drop: $s"
check_jq "nonect drop: non-ECT packets RED would mark are dropped" \
	".red_drops > $before and .drops >= .red_drops" "$s"
if [ "$tracer" = qdisc_drop ]; then
	reasons=$(drop_trace_reasons htb | paste -sd, -)
	check_eq "each RED drop is traced with reason CONGESTED (qdisc:qdisc_drop), as sch_red's" \
		"CONGESTED $(( $(jq .red_drops <<<"$s") - before ))" "$reasons"
elif [ "$tracer" = kfree_skb ]; then
	trace_event_disable "$event"
	reasons=$(grep -c 'reason: QDISC_DROP' /sys/kernel/tracing/trace)
	check "each RED drop is freed with reason QDISC_DROP ($reasons traced)" \
		test "$reasons" -ge "$(( $(jq .red_drops <<<"$s") - before ))"
else
	ktap_skip "each RED drop is freed with reason QDISC_DROP" "no skb:kfree_skb event"
fi
# Tracing must not hook the scheduler's tracepoints (trace_event_enable in
# lib.sh): the task names they would record stay as they were.
if [ "$tracer" = none ]; then
	ktap_skip "the drop tracer leaves __schedule unpatched" "no drop event"
else
	check_eq "the drop tracer leaves __schedule unpatched (no task name recorded)" \
		"$tasks_named" "$(wc -l < /sys/kernel/tracing/saved_cmdlines)"
fi
drops=$(jq .red_drops <<<"$s")
marks=$(jq .red_marks <<<"$s")
check_eq "... and never marked" "$marks" "$(ce)"

# ECT packets whose IP header is outside the linear head cannot carry
# CE: RED treats them as non-ECT, as sch_red does.
ip -n "$a" link set va mtu 9000
ip -n "$b" link set vb mtu 9000
s=$(stats)
before_drops=$(jq .red_drops <<<"$s")
before_marks=$(jq .red_marks <<<"$s")
gated ip netns exec "$a" "$SELFTESTS_DIR/tools/afpacket_frags.py" va \
	"$(ip -n "$b" -br link show vb | awk '{ print $3 }')" 10.254.0.1 10.254.0.2 \
	--job 4 --step 1 --count 60
s=$(stats)
ktap_print "unmarkable ECT burst: $s"
check_jq "unmarkable ECT packets above kmax are dropped as non-ECT" \
	".red_drops > $before_drops" "$s"
check_eq "... and not counted as marks" "$before_marks $(jq .red_marks <<<"$s")" \
	"$(jq .red_marks <<<"$s") $(ce)"
ip -n "$a" link set va mtu 1500
ip -n "$b" link set vb mtu 1500
drops=$(jq .red_drops <<<"$s")

leaf change nonect pass
burst --ecn 0 10.254.0.2 job=2,step=1,psn=301,count=300
s=$(stats)
check_jq "nonect pass: no more RED drops" ".red_drops == $drops" "$s"
check_eq "... and non-ECT packets stay unmarked" "$(jq .red_marks <<<"$s")" "$(ce)"

sleep 1
s=$(stats)
before=$(jq .red_marks <<<"$s")
ip netns exec "$a" "$rocegen" --pps 200 10.254.0.2 job=3,step=1,psn=1,count=100 >/dev/null
check_jq "a paced flow that never builds a queue gets no RED marks" \
	".red_marks == $before" "$(stats)"

ktap_finished
