#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_jobs_map.sh - symphony qdiscs keep job state in a pinned
# BPF array map: two qdiscs share one job's state, bpftool shows it by
# field name, a job's own k in the map takes effect without a tc change,
# maps of the wrong type or layout are refused with the configuration
# intact, and the qdiscs hold the map until they are gone.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool rocegen --tool symofan jq bpftool

ktap_plan 15

bpffs_pin_dir test

netns_create a b
veth_pair "$a" va1 10.253.1.1/24 "$b" vb1 10.253.1.2/24
veth_pair "$a" va2 10.253.2.1/24 "$b" vb2 10.253.2.2/24

check "symofan job init creates and pins a 64-job map" \
	"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 64
map_id=$(bpftool -j map show pinned "$pins/jobs" | jq .id)
value_size=$(bpftool -j map show pinned "$pins/jobs" | jq .bytes_value)

# k = 0 in the qdiscs: only a job's own k can mark.  RED out of the way.
# ("tc -n" remounts /sys and so hides bpffs pins: enter the netns instead.)
for dev in va1 va2; do
	in_ns "$a" tc qdisc add dev "$dev" root symphony kmin 50mb kmax 60mb \
		k 0 twin 10s jobs_map "$pins/jobs"
done
check_eq "both qdiscs report the map's id" "$map_id $map_id" \
	"$(for d in va1 va2; do tc -n "$a" -j qdisc show dev $d | jq .[0].options.jobs_map_id; done | xargs)"
check_eq "jobs equals the map's size" 64 \
	"$(tc -n "$a" -j qdisc show dev va1 | jq .[0].options.jobs)"

send() { ip netns exec "$a" "$rocegen" "$@" >/dev/null; }
sym_marks() { tc -n "$a" -j -s qdisc show dev "$1" | jq .[0].symphony_marks; }
job() { bpftool -j map lookup pinned "$pins/jobs" key "$1" 0 0 0 | jq ".formatted.value.$2"; }

# Give job 3 its own k = 100 (1e8 ppm at byte offset 40, little endian).
hex_value() {
	local i bytes=()
	for ((i = 0; i < value_size; i++)); do bytes+=(0); done
	bytes[40]=0x00; bytes[41]=0xe1; bytes[42]=0xf5; bytes[43]=0x05
	echo "${bytes[@]}"
}
check "a job's k is written into the map with bpftool" \
	bpftool map update pinned "$pins/jobs" key 3 0 0 0 value $(hex_value)
check_eq "bpftool shows the job's fields by name" 100000000 "$(job 3 k_ppm)"

# Both sends in one T_win: a window roll between them would reset psn_rec
# and hold Symphony in warm-up (they are seconds apart on the debug kernel).
sleep_past_period_start 10
send 10.253.1.2 job=3,step=10,psn=1,count=100
send 10.253.2.2 job=3,step=11,psn=50,count=40
check_eq "state is shared: step 10 via va1 makes step 11 via va2 outpacing" \
	40 "$(sym_marks va2)"
check_eq "the job's state block shows step_min and its packets" "10 140 40" \
	"$(job 3 step_min) $(job 3 packets) $(job 3 outpacing_packets)"
send 10.253.1.2 job=4,step=10,psn=1,count=100
send 10.253.1.2 job=4,step=11,psn=50,count=40
check_eq "a job without its own k takes the qdisc's k = 0: no marks" 0 \
	"$(sym_marks va1)"
send 10.253.1.2 job=64,step=1,psn=1,count=10
check_eq "a job id beyond the map is unclassified" 10 \
	"$(tc -n "$a" -j -s qdisc show dev va1 | jq .[0].unclassified_packets)"

bpftool map create "$pins/hash" type hash key 4 value "$value_size" entries 4 name badhash
out=$(in_ns "$a" tc qdisc change dev va1 root symphony jobs_map "$pins/hash" 2>&1)
check "a hash map is refused, naming the reason" \
	grep -q "must be a BPF array map" <<<"$out"
bpftool map create "$pins/small" type array key 4 value 8 entries 4 name badsize
out=$(in_ns "$a" tc qdisc change dev va1 root symphony limit 10 jobs_map "$pins/small" 2>&1)
check "a map of another value layout is refused" grep -q "layout mismatch" <<<"$out"
check_eq "a refused change keeps the old configuration" "1000 $map_id" \
	"$(tc -n "$a" -j qdisc show dev va1 | jq -r '.[0].options | "\(.limit_packets) \(.jobs_map_id)"')"

rm "$pins/jobs"
# lagging step 10 packets first keep psn_rec fresh (a window may have ended)
send 10.253.2.2 job=3,step=10,psn=101,count=10 job=3,step=12,psn=50,count=10
check_eq "the qdiscs hold the map after its pin is gone" 50 "$(sym_marks va2)"
tc -n "$a" qdisc change dev va1 root symphony jobs_map none
check_eq "jobs_map none returns to the own table" "null 4096" \
	"$(tc -n "$a" -j qdisc show dev va1 | jq -r '.[0].options | "\(.jobs_map_id) \(.jobs)"')"
tc -n "$a" qdisc del dev va2 root
check_fails "the map is freed once no qdisc holds it" \
	bpftool map show id "$map_id"

ktap_finished
