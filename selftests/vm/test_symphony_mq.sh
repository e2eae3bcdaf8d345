#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_mq.sh - symphony under mq on a multi-queue veth: one
# instance per TX queue, all sharing one jobs map, traffic on every queue
# at once (the map's per-job locks serialise CPUs); then the map's entries
# rewritten under load by bpftool and by the agent's "job del", which
# must leave the datapath running without a splat (a zeroed psn_rec is
# read once before it divides).
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

queues=4
ktap_plan 7

bpffs_pin_dir mq
job() { "$BUILD_DIR/symofan" job "$@" --pin-dir "$pins"; }
job init --jobs 64 >/dev/null

netns_create a b
ip link add va numtxqueues $queues numrxqueues $queues netns "$a" type veth \
	peer vb numtxqueues $queues numrxqueues $queues netns "$b"
ip -n "$a" addr add 10.247.0.1/24 dev va
ip -n "$b" addr add 10.247.0.2/24 dev vb
ip -n "$a" link set va up
ip -n "$b" link set vb up
ip -n "$a" neigh replace 10.247.0.2 dev va lladdr \
	"$(ip -n "$b" -br link show vb | awk '{ print $3 }')"

tc -n "$a" qdisc add dev va root handle 1: mq
ok=1
for i in $(seq 1 $queues); do
	in_ns "$a" tc qdisc add dev va parent "1:$i" handle "$((10 + i)):" \
		symphony kmin 50mb kmax 60mb k 100 twin 10ms \
		jobs_map "$pins/jobs" || ok=0
done
check_eq "a symphony instance on each of the $queues TX queues" 1 "$ok"

# 32 flows of one job, each its own socket and source port (the step):
# the flows hash across the queues.
flows=""
for s in $(seq 1 32); do flows+=" job=7,step=$s,psn=1,count=200"; done
# shellcheck disable=SC2086
ip netns exec "$a" "$rocegen" 10.247.0.2 $flows >/dev/null &
# shellcheck disable=SC2086
ip netns exec "$a" "$rocegen" 10.247.0.2 $flows >/dev/null
wait
per_queue=$(tc -n "$a" -j -s qdisc show dev va |
	jq -c '[.[] | select(.kind == "symphony") | .collective_packets]')
ktap_print "collective packets per queue: $per_queue"
check_jq "every queue carried the job's packets" 'length == '$queues' and all(. > 0)' "$per_queue"
check_eq "the shared map counts every packet of every queue once" \
	"$(jq 'add' <<<"$per_queue")" "$(job show 7 --json | jq .packets)"

# Rewrite the job's entry under load: bpftool zeroes it, the agent
# deletes and re-adds it, while two senders keep every queue busy.
flows=""
for s in $(seq 1 16); do flows+=" job=7,step=$s,psn=1,count=1500"; done
# shellcheck disable=SC2086
ip netns exec "$a" "$rocegen" 10.247.0.2 $flows >/dev/null &
s1=$!
# shellcheck disable=SC2086
ip netns exec "$a" "$rocegen" 10.247.0.2 $flows >/dev/null &
s2=$!
zero=$(printf '0 %.0s' $(seq 1 "$(bpftool -j map show pinned "$pins/jobs" | jq .bytes_value)"))
rounds=0
while kill -0 "$s1" 2>/dev/null || kill -0 "$s2" 2>/dev/null; do
	# shellcheck disable=SC2086
	bpftool map update pinned "$pins/jobs" key 7 0 0 0 value $zero
	job del 7 >/dev/null 2>&1
	job add --id 7 >/dev/null 2>&1
	rounds=$((rounds + 1))
done
wait
ktap_print "$rounds rounds of rewrites under load"
check "the entry was rewritten under load" test "$rounds" -gt 0
# collective packets: the link's own IPv6 solicitations pass the qdiscs too
before=$(tc -n "$a" -j -s qdisc show dev va | jq '[.[] | select(.kind == "symphony") | .collective_packets] | add')
ip netns exec "$a" "$rocegen" 10.247.0.2 job=7,step=1,psn=1,count=100 job=7,step=2,psn=1,count=100 >/dev/null
after=$(tc -n "$a" -j -s qdisc show dev va | jq '[.[] | select(.kind == "symphony") | .collective_packets] | add')
check_eq "the qdiscs forward after the rewrites" 200 $((after - before))
check_jq "the job's state is live again" '.packets > 0' "$(job show 7 --json)"
check "the instances go with the mq root" tc -n "$a" qdisc del dev va root

ktap_finished
