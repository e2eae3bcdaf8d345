#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_bpf.sh - Symphony as tc-BPF on the host kernel, no module:
# "symofan symphony attach" puts bpf/symphony.bpf.c on the egress of a
# veth under an HTB root, with the registry's jobs map; rocegen's crafted
# RoCEv2 packets then leave with CE on the outpacing step only (counted
# by ecnstat at the receiver), the job's counters in the registry and the
# port's in "status" agree; a second port shares the program and the
# jobs; a UDP GSO packet is read segment by segment; the last detach
# unpins it.  Bad parameters, an unknown device, an L3 device (tun), a
# relative or non-bpffs pin folder, no registry, a port not attached and
# missing privileges get clear errors; status prints counters with units.
#
#	sw (eth0, eth1) --- h0 (r0), h1 (r1)		100 Mbit/s HTB on sw
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq setpriv nsenter
require_hook_bpftool
require_tools symofan rocegen ecnstat

reg=/sys/fs/bpf/symofan-test-reg-$$
pins=/sys/fs/bpf/symofan-test-symbpf-$$
on_exit rm -rf "$reg" "$pins"

ktap_plan 22

netns_create sw h0 h1
veth_pair "$sw" eth0 10.71.0.1/24 "$h0" r0 10.71.0.2/24
veth_pair "$sw" eth1 10.71.1.1/24 "$h1" r1 10.71.1.2/24
for dev in eth0 eth1; do
	tc -n "$sw" qdisc add dev "$dev" root handle 1: htb default 1 r2q 100
	tc -n "$sw" class add dev "$dev" parent 1: classid 1:1 htb rate 100mbit
done
symofan_sw() { in_ns "$sw" "$symofan" "$@"; }
on_exit in_ns "$h0" "$ecnstat" detach r0
in_ns "$h0" "$ecnstat" attach r0 >/dev/null

r=$(symofan_sw symphony attach eth0 rate 100mbit --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "without a job registry, attach exits 1 and says how to make one" \
	"1 yes" "$rc $(grep -q "symofan job init --pin-dir $reg" <<<"$r" && echo yes)"
"$symofan" job init --jobs 64 --pin-dir "$reg" >/dev/null

# RED out of reach, k 100: an outpacing packet is marked with probability
# 1; T_win 5 s, so that psn_rec, which each window starts anew, holds
# across rocegen's runs
sym_params=(rate 100mbit k 100 warmup 0 twin 5s kmin 4000000000 kmax 4000000000)
check "attach to the egress of eth0 with the registry's jobs map" \
	symofan_sw symphony attach eth0 "${sym_params[@]}" --registry "$reg" --pin-dir "$pins"
check "the program is on eth0's egress hook (tcx, or clsact before 6.6), the HTB root stays" sh -c \
	"[ -n '$(prog_hook "$sw" eth0 egress symphony_egress)' ] &&
	 tc -n $sw qdisc show dev eth0 | grep -q 'qdisc htb 1: root'"

# job 7: 40 packets of step 5 (the slowest) and 5 of step 6 (ahead),
# taking turns, in one run of rocegen (one window)
ip netns exec "$sw" "$rocegen" 10.71.0.2 job=7,step=5,psn=1,count=40 \
	job=7,step=6,psn=1,count=5 >/dev/null
ce=$(in_ns "$h0" "$ecnstat" show r0 --json | jq .ce)
job=$("$symofan" job show 7 --pin-dir "$reg" --json 2>/dev/null || echo '{}')
st=$(symofan_sw symphony status eth0 --pin-dir "$pins" --json | jq -c '.[0].stats')
ktap_print "receiver CE $ce; job 7: $(jq -c '{packets, outpacing_packets, symphony_marks}' <<<"$job" 2>/dev/null); port: $st"
check_eq "the 5 packets of the step ahead arrive CE, the 40 of the slowest step do not" 5 "$ce"
check_jq "the registry's job 7 counts 45 packets, 5 outpacing, 5 Symphony marks" \
	'.packets == 45 and .outpacing_packets == 5 and .symphony_marks == 5' "$job"
check_jq "the port counts 45 collective packets and 5 Symphony marks, no RED mark" \
	'.collective_packets == 45 and .symphony_marks == 5 and .red_marks == 0' "$st"

check "a second port shares the program: attach to eth1" \
	symofan_sw symphony attach eth1 "${sym_params[@]}" --registry "$reg" --pin-dir "$pins"
ip netns exec "$sw" "$rocegen" 10.71.1.2 job=7,step=5,psn=41,count=3 \
	job=7,step=6,psn=6,count=3 >/dev/null
check_jq "... where job 7's state goes on: step 6 is still ahead of step_min 5; each port has its own counters" \
	'length == 2 and (.[] | select(.dev == "eth1") | .stats | .symphony_marks == 3 and .outpacing_packets == 3)
	 and (.[] | select(.dev == "eth0") | .stats | .collective_packets == 45 and .symphony_marks == 5)' \
	"$(symofan_sw symphony status --pin-dir "$pins" --json)"

# UDP GSO, 4 packets a send: three messages of 8 packets, steps 5, 6, 7
# in order (a rocegen run each), each ending LAST in a GSO packet's last
# segment; each segment's BTH is read, so every LAST moves step_min on and
# nothing runs ahead (reading the first segment's only left step_min at
# 5 and marked 16 packets of steps 6 and 7)
for step in 5 6 7; do
	ip netns exec "$sw" "$rocegen" --gso 4 10.71.0.2 job=9,step=$step,psn=1,count=8,last >/dev/null
done
job=$("$symofan" job show 9 --pin-dir "$reg" --json 2>/dev/null || echo '{}')
ktap_print "job 9 after three GSO messages: $(jq -c '{packets, step_min, outpacing_packets, symphony_marks}' <<<"$job" 2>/dev/null)"
check_jq "GSO packets are read segment by segment: steps 5, 6, 7 in order end at step_min 8, 24 packets, none outpacing or marked" \
	'.packets == 24 and .step_min == 8 and .outpacing_packets == 0 and .symphony_marks == 0' "$job"

r=$(symofan_sw symphony attach eth0 rate 100mbit kmin 2kb kmax 1kb --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "kmin above kmax exits 2, naming both" "2 yes" \
	"$rc $(grep -q 'kmin 2048 bytes is above kmax 1024 bytes' <<<"$r" && echo yes)"
r=$(symofan_sw symphony attach eth0 rate 100mbit tau 2 --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "a value out of range exits 2 with the range" "2 yes" \
	"$rc $(grep -q "tau '2': wants 0..1" <<<"$r" && echo yes)"
r=$(symofan_sw symphony attach eth0 kmin 2kb --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "no rate exits 2, saying what it is for" "2 yes" \
	"$rc $(grep -q 'rate RATE is needed' <<<"$r" && echo yes)"
r=$(symofan_sw symphony attach nosuch0 rate 1gbit --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "an unknown device exits 2, naming it" "2 yes" \
	"$rc $(grep -q "no network device 'nosuch0'" <<<"$r" && echo yes)"
st=$(symofan_sw symphony status eth0 --pin-dir "$pins")
check_eq "status without --json prints the counters with their units, not as JSON" "yes yes no" \
	"$(grep -Eq '^  sent [0-9]+ bytes [0-9]+ packets \(collective [0-9]+' <<<"$st" && echo yes) $(grep -q 'marked 0 packets by RED, [0-9]* by Symphony' <<<"$st" && echo yes) $(grep -q '{' <<<"$st" && echo yes || echo no)"
l3_name="an L3 device (tun) exits 2: the program reads an Ethernet header"
if ip -n "$sw" tuntap add mode tun dev tun0 2>/dev/null && ip -n "$sw" link set tun0 up; then
	r=$(symofan_sw symphony attach tun0 rate 1gbit --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
	check_eq "$l3_name" "2 yes no" \
		"$rc $(grep -q 'tun0 is not an Ethernet device' <<<"$r" && echo yes) $([ -n "$(prog_hook "$sw" tun0 egress symphony_egress)" ] && echo yes || echo no)"
else
	# the VM's Debian kernels have tun as a module, and load none
	ktap_skip "$l3_name" "no tun device here (/dev/net/tun, CONFIG_TUN)"
fi
r=$(symofan_sw symphony attach eth0 rate 1gbit --registry "$reg" --pin-dir relative/pins 2>&1) && rc=0 || rc=$?
check_eq "a relative --pin-dir exits 2, naming it" "2 yes" \
	"$rc $(grep -q "pin-dir 'relative/pins': wants an absolute path" <<<"$r" && echo yes)"
r=$(symofan_sw symphony attach eth0 rate 1gbit --registry "$reg" --pin-dir "/tmp/symofan-notbpf-$$" 2>&1) && rc=0 || rc=$?
check_eq "a --pin-dir off the bpf filesystem exits 1, saying so; nothing made there" "1 yes no" \
	"$rc $(grep -q 'is not on a bpf filesystem' <<<"$r" && echo yes) $([ -e "/tmp/symofan-notbpf-$$" ] && echo yes || echo no)"

r=$(in_ns "$sw" setpriv --inh-caps=-all --bounding-set=-all --reuid=65534 --regid=65534 --clear-groups \
	"$symofan" symphony attach eth0 rate 1gbit --registry "$reg" --pin-dir "$pins" 2>&1) && rc=0 || rc=$?
check_eq "without CAP_BPF attach exits 1, saying so; eth0 keeps its program" "1 yes yes" \
	"$rc $(grep -qi 'CAP_BPF\|privilege\|permission' <<<"$r" && echo yes) $([ -n "$(prog_hook "$sw" eth0 egress symphony_egress)" ] && echo yes)"

check "detach eth0" symofan_sw symphony detach eth0 --pin-dir "$pins"
symofan_sw symphony attach eth0 "${sym_params[@]}" --registry "$reg" --pin-dir "$pins" >/dev/null
check_jq "eth0 attached again counts from zero, eth1 keeps its counters" \
	'(.[] | select(.dev == "eth0") | .stats.packets == 0) and
	 (.[] | select(.dev == "eth1") | .stats.collective_packets == 6)' \
	"$(symofan_sw symphony status --pin-dir "$pins" --json)"
symofan_sw symphony detach eth0 --pin-dir "$pins"
check "... the program stays pinned for eth1" test -e "$pins/symphony_egress"
check "detach eth1, the last port: the pins go" sh -c \
	"nsenter --net=/run/netns/$sw $symofan symphony detach eth1 --pin-dir $pins && ! test -e $pins" &&
	[ -z "$(prog_hook "$sw" eth1 egress symphony_egress)" ]

ktap_finished
