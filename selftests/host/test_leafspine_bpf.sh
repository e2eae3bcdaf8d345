#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_leafspine_bpf.sh - the leaf-spine testbed with Symphony as tc-BPF
# on the host kernel (tc-scripts/leafspine.sh --datapath bpf), no module:
# every switch egress port carries the program over HTB and a pfifo leaf,
# each switch its own job registry; rocegen's packets of a step ahead
# reach the far host CE and those of the slowest step do not; every
# switch on the path tracks the job in its own registry; --datapath bpf without --qdisc
# symphony, and a parameter the program does not take, exit 2 naming
# them; --symphony-at tor leaves the spine's port to RED (the paper's
# deployment) and the ToRs still mark; --bpf-state port gives each port
# a registry of its own; down removes the namespaces and the pins.
#
#	h0 - t0 - s0 - t1 - h1		100 Mbit/s
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter
require_hook_bpftool
require_tools symofan rocegen ecnstat

ls=$TOP_DIR/tc-scripts/leafspine.sh
prefix=lsb$$
on_exit "$ls" down --prefix "$prefix"
on_exit in_ns "$prefix-h1" "$ecnstat" detach eth0

ktap_plan 11

args="k 100 warmup 0 twin 5s kmin 4000000000 kmax 4000000000"
check "2 ToRs, 1 spine, a host each, Symphony as tc-BPF on the switch ports" \
	"$ls" up --prefix "$prefix" --tors 2 --spines 1 --hosts-per-tor 1 \
	--qdisc symphony --qdisc-args "$args" --datapath bpf
check "t0's uplink: the program on its egress hook, HTB then pfifo under it" sh -c \
	"[ -n '$(prog_hook "$prefix-t0" u0 egress symphony_egress)' ] &&
	 tc -n $prefix-t0 qdisc show dev u0 | grep -q 'qdisc pfifo 10:'"
st=$(in_ns "$prefix-t0" "$symofan" symphony status --pin-dir "/sys/fs/bpf/symofan-$prefix-t0-bpf" --json)
check_jq "t0 runs it on both its ports, at their rates, with the testbed's parameters" \
	'length == 2 and ([.[].rate_bps] | unique) == [100000000] and
	 ([.[].k_ppm] | unique) == [100000000]' "$st"

h1_ce() { in_ns "$prefix-h1" "$ecnstat" show eth0 --json | jq .ce; }
h1_seen() {	# h1_seen N: h1 has counted N RoCEv2 packets, CE or not
	[ "$(in_ns "$prefix-h1" "$ecnstat" show eth0 --json | jq .rocev2)" = "$1" ]
}
in_ns "$prefix-h1" "$ecnstat" attach eth0 >/dev/null 2>&1
ip netns exec "$prefix-h0" "$rocegen" 10.1.1.2 job=3,step=5,psn=1,count=30 \
	job=3,step=6,psn=1,count=4 >/dev/null
wait_until 2000 h1_seen 34
ce=$(h1_ce)
check_eq "the 4 packets of the step ahead reach h1 CE, the 30 of the slowest step do not" 4 "$ce"
job3() {
	"$symofan" job show 3 --pin-dir "/sys/fs/bpf/symofan-$prefix-$1-jobs" --json |
		jq -r '"\(.packets)/\(.outpacing_packets)/\(.symphony_marks)"'
}
check_eq "each switch on the path keeps job 3 in its own registry: 34 packets, 4 ahead, 4 marked at t0, s0 and t1" \
	"34/4/4 34/4/4 34/4/4" "$(job3 t0) $(job3 s0) $(job3 t1)"

r=$("$ls" up --prefix "${prefix}x" --datapath bpf 2>&1) && rc=0 || rc=$?
check_eq "--datapath bpf without --qdisc symphony exits 2, saying why" "2 yes" \
	"$rc $(grep -q 'wants --qdisc symphony' <<<"$r" && echo yes)"
r=$("$ls" up --prefix "${prefix}y" --tors 1 --spines 1 --hosts-per-tor 1 --qdisc symphony \
	--qdisc-args "jobs_map /x" --datapath bpf 2>&1) && rc=0 || rc=$?
"$ls" down --prefix "${prefix}y" >/dev/null 2>&1 || true
check "a parameter the program does not take fails the build, naming it" \
	grep -q "'jobs_map' is not a parameter of Symphony's datapath" <<<"$r"

"$ls" down --prefix "$prefix"
"$ls" up --prefix "$prefix" --tors 2 --spines 1 --hosts-per-tor 1 --qdisc symphony \
	--qdisc-args "$args" --datapath bpf --symphony-at tor >/dev/null
marking() {
	in_ns "$prefix-$1" "$symofan" symphony status --pin-dir "/sys/fs/bpf/symofan-$prefix-$1-bpf" --json |
		jq -r '[.[].marking] | unique | join(",")'
}
check_eq "--symphony-at tor: the ToRs' ports run Symphony, the spine's RED only" \
	"symphony symphony red" "$(marking t0) $(marking t1) $(marking s0)"
in_ns "$prefix-h1" "$ecnstat" attach eth0 >/dev/null 2>&1
ip netns exec "$prefix-h0" "$rocegen" 10.1.1.2 job=3,step=5,psn=1,count=30 \
	job=3,step=6,psn=1,count=4 >/dev/null
wait_until 2000 h1_seen 34
check_eq "--symphony-at tor: the step ahead is marked at the ToRs (4 CE at h1), never at the spine" \
	"4 0" "$(h1_ce) \
$("$symofan" job show 3 --pin-dir "/sys/fs/bpf/symofan-$prefix-s0-jobs" --json | jq .symphony_marks)"
in_ns "$prefix-h1" "$ecnstat" detach eth0 >/dev/null 2>&1 || true
"$ls" down --prefix "$prefix"
"$ls" up --prefix "$prefix" --tors 2 --spines 1 --hosts-per-tor 1 --qdisc symphony \
	--qdisc-args "$args" --datapath bpf --bpf-state port >/dev/null
ip netns exec "$prefix-h0" "$rocegen" 10.1.1.2 job=3,step=5,psn=1,count=30 \
	job=3,step=6,psn=1,count=4 >/dev/null
port_job3() {
	"$symofan" job show 3 --pin-dir "/sys/fs/bpf/symofan-$prefix-$1-jobs" --json 2>/dev/null |
		jq -r '"\(.packets)/\(.outpacing_packets)/\(.symphony_marks)"'
}
t1_down_counted() { [ "$(port_job3 t1-d0)" = 34/4/4 ]; }
wait_until 2000 t1_down_counted
check_eq "--bpf-state port: a registry per port, none per switch; job 3 counted in t0's uplink's and t1's downlink's, not t0's downlink's" \
	"34/4/4 34/4/4 0/0/0 no" \
	"$(port_job3 t0-u0) $(port_job3 t1-d0) $(port_job3 t0-d0) $([ -e "/sys/fs/bpf/symofan-$prefix-t0-jobs" ] && echo shared || echo no)"
"$ls" down --prefix "$prefix"
check_eq "down removes the namespaces and every switch's pins" "0 0" \
	"$(ip netns list | grep -c "^$prefix-" || true) $(ls -d /sys/fs/bpf/symofan-"$prefix"-* 2>/dev/null | wc -l)"

ktap_finished
