#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_agent_jobs_qdisc.sh - symphony qdiscs use the map of "symofan job
# init" and pick up what the agent changes there without a tc change: a
# registered job's own k turns marking on and off, its live state shows
# in "symofan job show", and "job del" starts the job afresh.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

ktap_plan 9

pins=/sys/fs/bpf/symofan-qjobs-$$
on_exit rm -rf "$pins"
job() { "$BUILD_DIR/symofan" job "$@" --pin-dir "$pins"; }

netns_create a b
veth_pair "$a" va1 10.254.1.1/24 "$b" vb1 10.254.1.2/24

check "the agent creates the registry" job init --jobs 256
# k = 0 in the qdisc: only a job's own k can mark.  RED out of the way.
check "a symphony qdisc takes the registry's jobs map" \
	in_ns "$a" tc qdisc add dev va1 root symphony kmin 50mb kmax 60mb \
		k 0 twin 10s jobs_map "$pins/jobs"
check_eq "the qdisc reports the map's size" 256 \
	"$(tc -n "$a" -j qdisc show dev va1 | jq .[0].options.jobs)"

send() { ip netns exec "$a" "$rocegen" "$@" >/dev/null; }
sym_marks() { tc -n "$a" -j -s qdisc show dev va1 | jq .[0].symphony_marks; }

id=$(job add --name ring0 --json | jq .id)
send 10.254.1.2 job=$id,step=10,psn=1,count=100 job=$id,step=11,psn=50,count=40
check_eq "a registered job with the qdisc's k = 0 is not marked" 0 "$(sym_marks)"
check "the agent sets the job's k = 100 while the qdisc runs" job set "$id" --k 100
send 10.254.1.2 job=$id,step=10,psn=101,count=10 job=$id,step=12,psn=50,count=40
check_eq "the qdisc marks its outpacing packets from the next packet on" 40 "$(sym_marks)"
show=$(job show "$id" --json)
check_jq "job show reports the live state block and counters" \
	'.active and .step_min == 10 and .psn_rec >= 101 and .alpha >= 1 and
	 .packets == 190 and .outpacing_packets == 80 and .symphony_marks == 40' "$show"
check "the agent deletes the job" job del "$id"
check_jq "its state block is cleared" '.registered == false and .packets == 0 and (.active | not)' \
	"$(job show "$id" --json)"

ktap_finished
