#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_alpha.sh - alpha follows eq. (2)-(3): each counted window
# (more than N_sample packets) whose outpacing share reaches tau raises it
# by one, and Symphony marks the outpacing step more often as it grows;
# once only the lagging step sends, each counted window lowers it.
# The job's state is read from the jobs map with bpftool.  The checks
# count windows rather than assume a packet rate: under TCG, and more so on
# the debug kernel, rocegen reaches well below the rate it asks for.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

ktap_plan 7

pins=/sys/fs/bpf/symofan-alpha-$$
mkdir -p "$pins"
on_exit rm -rf "$pins"
"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 16 >/dev/null

netns_create a b
veth_pair "$a" va 10.254.1.1/24 "$b" vb 10.254.1.2/24
samples=8
# k = 0.02: P = 0.02 * alpha for an outpacing flow level with the lagging
# one.  100 ms windows count from samples + 1 = 9 packets (90 packets/s);
# at the 2000 packets/s asked for, a phase of 2 x 1000 packets spans about
# 10 windows (6.1 under TCG), at the 200 the debug kernel reaches, 100.
in_ns "$a" tc qdisc add dev va root symphony kmin 50mb kmax 60mb k 0.02 \
	tau 0.25 twin 100ms samples "$samples" warmup 4 jobs_map "$pins/jobs"

marks() { tc -n "$a" -j -s qdisc show dev va | jq .[0].symphony_marks; }
# job_state: "alpha windows" of job 1 once its open window has rolled.
# Windows roll on the next packet (the T_win clock does not evaluate them),
# so the open one is evaluated here as eq. (2)-(3) will: counted when it
# holds more than $samples packets, raising alpha when the outpacing
# share reaches tau = 1/4, lowering it (not below 1) otherwise.
job_state() {
	bpftool -j map lookup pinned "$pins/jobs" key 1 0 0 0 |
		jq -r --argjson samples "$samples" '.formatted.value |
		if .cnt_total > $samples then
			(if .cnt_op * 4 >= .cnt_total then .alpha + 1
			 elif .alpha > 1 then .alpha - 1 else 1 end) as $alpha |
			"\($alpha) \(.windows + 1)"
		else "\(.alpha) \(.windows)" end'
}
# send SPEC...: rocegen at 2000 packets/s; prints the time taken in ms.
send() {
	local t0=$(date +%s%N)
	ip netns exec "$a" "$BUILD_DIR/rocegen" --pps 2000 10.254.1.2 "$@" >/dev/null
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
both() { send "job=1,step=10,psn=$1,count=1000" "job=1,step=11,psn=$1,count=1000"; }

ms1=$(both 1)
m1=$(marks)
read -r a1 w1 <<<"$(job_state)"
ms2=$(both 1001)
m2=$(( $(marks) - m1 ))
read -r a2 w2 <<<"$(job_state)"
ktap_print "first 2000 packets in $ms1 ms: alpha $a1 after $w1 counted windows, $m1 marks"
ktap_print "next 2000 in $ms2 ms: alpha $a2 after $w2 counted windows, $m2 marks"
check "enough counted windows to see alpha move (3 or more)" test "$w1" -ge 3
check_eq "each counted window with half the traffic outpacing raised alpha" \
	"$((1 + w1))" "$a1"
check_eq "and kept raising it" "$((a1 + w2 - w1))" "$a2"
check "the outpacing step is marked more often as alpha grows" \
	test "$m2" -gt "$m1"

ms3=$(send job=1,step=10,psn=2001,count=1000)
read -r a3 w3 <<<"$(job_state)"
ktap_print "1000 lagging packets in $ms3 ms: alpha $a3 after $w3 counted windows"
check "alpha decays once the outpacing traffic stops" test "$a3" -lt "$a2"
down=$(( a2 - (w3 - w2) ))
check_eq "each counted window of lagging traffic lowered it" \
	"$(( down < 1 ? 1 : down ))" "$a3"
check_eq "lagging packets were never marked" "$((m1 + m2))" "$(marks)"

ktap_finished
