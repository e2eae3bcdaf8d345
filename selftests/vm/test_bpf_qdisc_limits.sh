#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_bpf_qdisc_limits.sh - what a BPF qdisc (struct_ops Qdisc_ops, Linux
# 6.16 and later: trixie-backports' 7.3 has it) can do for Symphony
# without the module, measured on the kernel rather than read from its
# source (docs/symphony_bpf.md, "A BPF qdisc?"): the smallest one,
# selftests/progs/bpf_qdisc_probe.bpf.c, built here against the running
# kernel's BTF and registered with bpftool.  It attaches at the root and
# under mq, and not under HTB (the testbeds' shaper); its enqueue reads a
# packet through an skb dynptr but may not write it (the dynptr is
# read-only in struct_ops programs), so it cannot mark CE.  Skips on a
# kernel without BPF qdiscs.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq clang ping
[ -e /sys/kernel/btf/vmlinux ] ||
	ktap_skip_all "$(uname -r) has no BTF (/sys/kernel/btf/vmlinux)"
"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	grep -q "STRUCT 'bpf_struct_ops_Qdisc_ops'" ||
	ktap_skip_all "$(uname -r) has no BPF qdiscs (CONFIG_NET_SCH_BPF, Linux 6.16 and later)"
"$BPFTOOL" struct_ops help 2>&1 | grep -q register ||
	ktap_skip_all "$BPFTOOL cannot register struct_ops: make bpftool"

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"
ktap_plan 8

"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format c > "$tmp/vmlinux.h"
check "the probe builds against $(uname -r)'s BTF" \
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wno-missing-declarations \
	-I"$tmp" -c "$TOP_DIR/selftests/progs/bpf_qdisc_probe.bpf.c" \
	-o "$tmp/probe.bpf.o"
check "bpftool registers its Qdisc_ops, symofan_probe" \
	"$BPFTOOL" struct_ops register "$tmp/probe.bpf.o"
on_exit "$BPFTOOL" struct_ops unregister name symofan_probe

netns_create ns
ip -n "$ns" link add v0 numtxqueues 2 type veth peer name v1
ip -n "$ns" addr add 10.74.0.1/24 dev v0
ip -n "$ns" link set v0 up
ip -n "$ns" link set v1 up
# the pings leave by v0 (v1 answers nothing: the probe drops them anyway)
ip -n "$ns" neigh add 10.74.0.2 dev v0 lladdr \
	"$(ip -n "$ns" -j link show dev v1 | jq -r '.[0].address')"
check "it attaches as the root qdisc" \
	tc -n "$ns" qdisc add dev v0 root handle 1: symofan_probe
ip netns exec "$ns" ping -q -c 3 -i 0.2 -W 1 -Q 0x02 10.74.0.2 >/dev/null 2>&1 || true
# libbpf names the object's globals "probe.bss"
bss=$("$BPFTOOL" map dump name probe.bss -j |
	jq -c '[.[0].formatted.value.".bss"[] | to_entries[]] | from_entries')
ktap_print "after 3 pings (TOS 0x02, ECT(0)): $bss"
check_jq "its enqueue reads the IPv4 TOS byte through the skb dynptr" \
	'.probe_packets >= 1 and .probe_read_rc == 0 and .probe_tos == 2' "$bss"
check_jq "... and may not write it back: bpf_dynptr_write() returns -EINVAL (read-only), so no CE" \
	'.probe_write_rc == -22' "$bss"

tc -n "$ns" qdisc del dev v0 root
tc -n "$ns" qdisc add dev v0 root handle 1: htb default 1
tc -n "$ns" class add dev v0 parent 1: classid 1:1 htb rate 100mbit
r=$(tc -n "$ns" qdisc add dev v0 parent 1:1 handle 10: symofan_probe 2>&1) && rc=0 || rc=$?
ktap_print "under HTB: $r"
check_eq "under HTB it is refused: only at the root or under mq" "2 yes" \
	"$rc $(grep -q 'BPF qdisc only supported on root or mq' <<<"$r" && echo yes)"

tc -n "$ns" qdisc del dev v0 root
tc -n "$ns" qdisc add dev v0 root handle 1: mq
check "under mq it attaches, one per transmit queue" \
	tc -n "$ns" qdisc replace dev v0 parent 1:1 handle 10: symofan_probe
check "... and is taken off again" tc -n "$ns" qdisc del dev v0 root
ktap_finished
