#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the project's demonstration (run by "make demo").  Boots the
# VM with the freshly built sch_symphony.ko, builds a two-namespace veth
# link, attaches the qdisc as the leaf of an HTB class, sends RoCEv2 flows
# of a lagging and an outpacing step through it and shows "tc -s qdisc";
# on the host, attaches the ecnstat tc-BPF counter to a veth and shows
# what it counted.
#
# Usage: scripts/demo.sh          (as root, after "make")
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

# veth_link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: two new namespaces
# joined by a veth pair with the given addresses.
veth_link() {
	ip netns add "$1"
	ip netns add "$4"
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

inside_vm() {
	export TC_LIB_DIR=$top/build/tc
	local rocegen=$top/build/rocegen

	veth_link demo-a va 10.200.0.1/24 demo-b vb 10.200.0.2/24
	tc -n demo-a qdisc add dev va root handle 1: htb default 1
	tc -n demo-a class add dev va parent 1: classid 1:1 htb rate 100mbit
	tc -n demo-a qdisc add dev va parent 1:1 handle 10: symphony \
		kmin 20kb kmax 200kb k 0.05 twin 20ms samples 8
	echo "\$ tc qdisc show dev va"
	tc -n demo-a qdisc show dev va
	echo
	echo "# job 1: step 10 (lagging) and step 11 (outpacing) interleaved,"
	echo "# 1000 RoCEv2 packets each at 2000 packets/s; then job 2 alone"
	ip netns exec demo-a "$rocegen" --pps 2000 10.200.0.2 \
		job=1,step=10,psn=1,count=1000 job=1,step=11,psn=1,count=1000
	ip netns exec demo-a "$rocegen" --pps 2000 10.200.0.2 \
		job=2,step=4,psn=1,count=500
	echo "\$ tc -s qdisc show dev va"
	tc -n demo-a -s qdisc show dev va | sed -n '/symphony/,$p'
	echo
	echo "# Symphony marked only the outpacing step 11 (1000 packets), more"
	echo "# often as alpha grew over the 20 ms windows; steps 10 and job 2"
	echo "# were never marked."
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
veth_link demo-h1 h1 10.201.0.1/24 demo-h2 h2 10.201.0.2/24
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" attach h2
ip netns exec demo-h1 ping -q -c 4 -i 0.1 -Q 0x02 10.201.0.2 >/dev/null
ip netns exec demo-h1 ping -q -c 2 -i 0.1 -Q 0x03 10.201.0.2 >/dev/null
echo "\$ ecnstat show h2    # after 4 ECT(0) and 2 CE pings"
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" show h2
nsenter --net=/run/netns/demo-h2 "$top/build/ecnstat" detach h2
