#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_alpha.sh - alpha follows eq. (2)-(3): while outpacing
# traffic is more than tau of each window it grows, and Symphony marks the
# outpacing step more often; once only the lagging step sends, it decays.
# The job's state is read from the jobs map with bpftool.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

ktap_plan 5

pins=/sys/fs/bpf/symofan-alpha-$$
mkdir -p "$pins"
on_exit rm -rf "$pins"
"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 16 >/dev/null

netns_create a b
veth_pair "$a" va 10.254.1.1/24 "$b" vb 10.254.1.2/24
# k = 0.02: P = 0.02 * alpha for an outpacing flow level with the lagging
# one.  20 ms windows of ~40 packets at 2000 packets/s, half outpacing.
in_ns "$a" tc qdisc add dev va root symphony kmin 50mb kmax 60mb k 0.02 \
	tau 0.25 twin 20ms samples 8 warmup 4 jobs_map "$pins/jobs"

marks() { tc -n "$a" -j -s qdisc show dev va | jq .[0].symphony_marks; }
alpha() { bpftool -j map lookup pinned "$pins/jobs" key 1 0 0 0 | jq .formatted.value.alpha; }
phase() {
	ip netns exec "$a" "$BUILD_DIR/rocegen" --pps 2000 10.254.1.2 \
		"job=1,step=10,psn=$1,count=1000" "job=1,step=11,psn=$1,count=1000" >/dev/null
}

phase 1
m1=$(marks)
a1=$(alpha)
phase 1001
m2=$(( $(marks) - m1 ))
a2=$(alpha)
ktap_print "first second: alpha $a1, $m1 marks of 1000; second: alpha $a2, $m2 marks"
check "alpha grows while half the traffic is outpacing" test "$a1" -ge 10
check "it keeps growing" test "$a2" -gt "$a1"
check "the outpacing step is marked more often as alpha grows" \
	test "$m2" -gt "$m1"

ip netns exec "$a" "$BUILD_DIR/rocegen" --pps 2000 10.254.1.2 \
	job=1,step=10,psn=2001,count=1000 >/dev/null
a3=$(alpha)
ktap_print "after half a second of lagging traffic only: alpha $a3"
check "alpha decays once the outpacing traffic stops" test "$a3" -lt "$a2"
check_eq "lagging packets were never marked" "$((m1 + m2))" "$(marks)"

ktap_finished
