#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the project's demonstration (run by "make demo").  Boots the
# VM with the freshly built sch_symphony.ko, builds a two-namespace veth
# link, attaches the qdisc as the leaf of a 10 Mbit/s HTB class, sends a
# burst through it and shows "tc -s qdisc"; on the host, attaches the
# ecnstat tc-BPF counter to a veth and shows what it counted.
#
# Usage: scripts/demo.sh          (as root, after "make")
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

inside_vm() {
	export TC_LIB_DIR=$top/build/tc
	ip netns add demo-a
	ip netns add demo-b
	ip link add va netns demo-a type veth peer name vb netns demo-b
	ip -n demo-a addr add 10.200.0.1/24 dev va
	ip -n demo-b addr add 10.200.0.2/24 dev vb
	ip -n demo-a link set va up
	ip -n demo-b link set vb up
	tc -n demo-a qdisc add dev va root handle 1: htb default 1
	tc -n demo-a class add dev va parent 1: classid 1:1 htb rate 10mbit
	tc -n demo-a qdisc add dev va parent 1:1 handle 10: symphony limit 64
	echo "\$ tc qdisc show dev va"
	tc -n demo-a qdisc show dev va
	echo "# a burst of 500 UDP datagrams of 1400 bytes into a 64-packet queue"
	ip netns exec demo-a bash -c \
		'exec 3>/dev/udp/10.200.0.2/9; for i in {1..500}; do printf "%1400s" >&3; done' \
		2>/dev/null || true
	sleep 1
	echo "\$ tc -s qdisc show dev va"
	tc -n demo-a -s qdisc show dev va
}

if [ "${1:-}" = --inside-vm ]; then
	inside_vm
	exit 0
fi

[ "$(id -u)" -eq 0 ] || { echo "demo.sh: must run as root" >&2; exit 1; }
echo "== sch_symphony in QEMU (Debian $(. "$here/lib.sh"; headers_abi) kernel) =="
"$here/vm-run.sh" -- "$0" --inside-vm

echo
echo "== ecnstat tc-BPF counter on the host kernel ($(uname -r)) =="
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
cleanup() {
	ip netns del demo-h1 2>/dev/null || true
	ip netns del demo-h2 2>/dev/null || true
}
trap cleanup EXIT
cleanup
ip netns add demo-h1
ip netns add demo-h2
ip link add h1 netns demo-h1 type veth peer name h2 netns demo-h2
ip -n demo-h1 addr add 10.201.0.1/24 dev h1
ip -n demo-h2 addr add 10.201.0.2/24 dev h2
ip -n demo-h1 link set h1 up
ip -n demo-h2 link set h2 up
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" attach h2
ip netns exec demo-h1 ping -q -c 4 -i 0.1 -Q 0x02 10.201.0.2 >/dev/null
ip netns exec demo-h1 ping -q -c 2 -i 0.1 -Q 0x03 10.201.0.2 >/dev/null
echo "\$ ecnstat show h2    # after 4 ECT(0) and 2 CE pings"
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" show h2
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" detach h2
