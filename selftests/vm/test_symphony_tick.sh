#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_tick.sh - the T_win clock of the symphony qdisc
# (kernel/symphony_tick.h): while packets flow an hrtimer publishes the
# start of each T_win period, jobs' windows start and roll on multiples
# of T_win, the timer stops after an idle period and restarts with the
# next packet, windows below 20 us read the clock per packet and arm no
# timer, a new T_win applies at once (not at the old period's end), and a
# qdisc deleted with its timer armed leaves nothing behind.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

ktap_plan 12

bpffs_pin_dir tick
"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 16

netns_create a b
veth_pair "$a" va1 10.253.5.1/24 "$b" vb1 10.253.5.2/24

# Periods long enough that the checks below run within one of them.
twin_ns=300000000	# 300 ms
in_ns "$a" tc qdisc add dev va1 root symphony kmin 50mb kmax 60mb \
	twin 300ms samples 4 jobs_map "$pins/jobs"

send() { ip netns exec "$a" "$rocegen" 10.253.5.2 "$@" >/dev/null; }
job() { bpftool -j map lookup pinned "$pins/jobs" key "$1" 0 0 0 | jq -r ".formatted.value.$2"; }
timer_armed() { grep -c symphony_tick_expire /proc/timer_list || true; }
# Whether the timer is seen armed while a paced stream flows (50 packets/s,
# so that a timer idle for a 300 ms period would stop: it must not), read
# while the sender runs rather than after it, as starting a process takes
# longer than a period on a debug kernel under TCG. Prints the count seen.
armed_while_sending() {
	local sender seen=0

	ip netns exec "$a" "$rocegen" --pps 50 10.253.5.2 "$@" >/dev/null &
	sender=$!
	while kill -0 $sender 2>/dev/null; do
		seen=$(timer_armed)
		[ "$seen" -eq 1 ] && break
	done
	wait $sender
	echo "$seen"
}

check_eq "the timer is armed while packets flow" 1 \
	"$(armed_while_sending job=1,step=10,psn=1,count=100)"
start=$(job 1 window_start_ns)
check_eq "a job's window starts on a multiple of T_win" 0 \
	"$((start % twin_ns))"
check_eq "last_seen_ns is the start of the packet's period" 0 \
	"$(($(job 1 last_seen_ns) % twin_ns))"

sleep 0.8	# the timer stops at the end of the first period without packets
check_eq "the timer stops when packets stop" 0 "$(timer_armed)"

check_eq "the next packet restarts it" 1 \
	"$(armed_while_sending job=1,step=10,psn=101,count=100)"
next=$(job 1 window_start_ns)
check "and rolls the job's window to a later multiple of T_win" \
	test "$next" -gt "$start" -a "$((next % twin_ns))" -eq 0
# (2 s of packets at 50/s: several windows of more than 4 packets)
check "the ended window (more packets than samples 4) counted" \
	test "$(job 1 windows)" -ge 1

# Windows below 20 us: the clock per packet, no timer.
in_ns "$a" tc qdisc change dev va1 root symphony twin 10us
sleep 0.7	# let the 300 ms timer see an idle period and stop
send job=2,step=10,psn=1,count=20
check_eq "a 10 us window arms no timer" 0 "$(timer_armed)"
check "its packets are still accounted to the job" \
	test "$(job 2 packets)" -eq 20

# From a 10 s T_win to 100 ms: the clock restarts on the new grid at
# once, rather than staying at the old period's start for up to 10 s.
# Started just after a multiple of 10 s of CLOCK_MONOTONIC (/proc/uptime
# runs with it here), so that the old period would outlast the checks.
sleep_past_period_start 10
in_ns "$a" tc qdisc change dev va1 root symphony twin 10s
send job=4,step=10,psn=1,count=5
in_ns "$a" tc qdisc change dev va1 root symphony twin 100ms
send job=5,step=10,psn=1,count=5
first=$(job 5 window_start_ns)
sleep 0.4
send job=5,step=10,psn=6,count=5
second=$(job 5 window_start_ns)
ktap_print "job 5 window starts: $first then $second (ns)"
check_eq "after the change a window starts on a 100 ms multiple" 0 \
	"$((second % 100000000))"
check "and rolls within 100 ms periods, not after the old 10 s one" \
	test "$((second - first))" -ge 300000000

# Delete the qdisc with its timer armed: destroy cancels it.
in_ns "$a" tc qdisc change dev va1 root symphony twin 1s
send job=3,step=10,psn=1,count=5
in_ns "$a" tc qdisc del dev va1 root
sleep 1.2
check_eq "a qdisc deleted with its timer armed leaves none" 0 \
	"$(timer_armed)"

ktap_finished
