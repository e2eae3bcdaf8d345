#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_stress.sh - reconfiguration under load: while RoCEv2 flows
# of several jobs stream through symphony qdiscs on two ports sharing one
# jobs map, change, replace, swap the map, delete and re-add them; then
# unload the module.  The runner fails the test on any oops, WARN or
# lockdep report; here we check that everything is released.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool
ko=$(symphony_ko)

ktap_plan 7

bpffs_pin_dir stress
"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 64 >/dev/null
map_id=$(bpftool -j map show pinned "$pins/jobs" | jq .id)

netns_create a b
veth_pair "$a" va1 10.254.2.1/24 "$b" vb1 10.254.2.2/24
veth_pair "$a" va2 10.254.3.1/24 "$b" vb2 10.254.3.2/24
for dev in va1 va2; do
	in_ns "$a" tc qdisc add dev "$dev" root symphony jobs_map "$pins/jobs" \
		kmin 20kb kmax 200kb k 0.5 twin 1ms
done

flows() {
	local job
	for job in 1 2 3 4; do
		echo "job=$job,step=$((job * 2)),psn=1,count=1000000"
		echo "job=$job,step=$((job * 2 + 1)),psn=1,count=1000000"
	done
}
# shellcheck disable=SC2046
ip netns exec "$a" "$BUILD_DIR/rocegen" 10.254.2.2 $(flows) >/dev/null &
p1=$!
# shellcheck disable=SC2046
ip netns exec "$a" "$BUILD_DIR/rocegen" 10.254.3.2 $(flows) >/dev/null &
p2=$!
on_exit kill "$p1" "$p2"

# 64 reconfigurations, as fast as one tc process issues them (a process
# per command would take longer than the stream on a debug kernel):
# -force goes on after a failure and reports each one.
reconfigure() {
	local i

	for i in $(seq 1 8); do
		echo "qdisc change dev va1 root symphony limit $((100 + i)) k 0.$i"
		echo "qdisc replace dev va2 root symphony marking red kmin ${i}kb kmax 300kb"
		echo "qdisc change dev va1 root symphony jobs_map none jobs $((i * 100))"
		echo "qdisc change dev va1 root symphony jobs_map $pins/jobs"
		echo "qdisc replace dev va2 root symphony jobs_map $pins/jobs marking symphony"
		echo "qdisc del dev va2 root"
		echo "qdisc add dev va2 root symphony jobs_map $pins/jobs"
		echo "qdisc show"	# with statistics (tc -s)
	done
}
batch=$(mktemp)
on_exit rm -f "$batch"
reconfigure > "$batch"
check_eq "the batch holds 64 commands" 64 "$(wc -l < "$batch")"
errors=$(in_ns "$a" tc -s -force -batch "$batch" 2>&1 >/dev/null)
[ -z "$errors" ] || ktap_print "$errors"
check_eq "64 reconfigurations under load all succeed" 0 \
	"$(grep -c "^Command failed" <<<"$errors")"
check "the senders streamed throughout" kill -0 "$p1" "$p2"
kill "$p1" "$p2" 2>/dev/null
wait "$p1" "$p2" 2>/dev/null

packets=$(bpftool -j map lookup pinned "$pins/jobs" key 1 0 0 0 | jq .formatted.value.packets)
ktap_print "job 1 packets in the shared map: $packets"
check "the shared job state kept counting" test "$packets" -gt 0

tc -n "$a" qdisc del dev va1 root
tc -n "$a" qdisc del dev va2 root
rm "$pins/jobs"
check_fails "with the qdiscs and the pin gone, the map is freed" \
	bpftool map show id "$map_id"
check "the module unloads" rmmod sch_symphony
check "and loads again" insmod "$ko"

ktap_finished
