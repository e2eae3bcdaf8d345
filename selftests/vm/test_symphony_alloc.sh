#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_alloc.sh - the qdisc's allocations fail cleanly: its job
# table is charged to the caller's memory cgroup (a table above the
# cgroup's limit is refused with ENOMEM, the old one kept), the largest
# table (2^24 slots) is taken in a stock kernel's VM beside 512 MiB held
# elsewhere, refused in the debug kernel's, without the OOM killer.
# (test_symphony_fault_injection.sh fails each allocation in turn.)
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool rocegen jq

ktap_plan 5

netns_create a b
veth_pair "$a" va 10.248.0.1/24 "$b" vb 10.248.0.2/24
tc -n "$a" qdisc add dev va root symphony jobs 4096
jobs_of() { tc -n "$a" -j qdisc show dev va | jq '.[0].options.jobs'; }

# A memory cgroup of 64 MiB: 4194304 slots (~436 MB) do not fit.
cg=/sys/fs/cgroup
mountpoint -q "$cg" || mount -t cgroup2 none "$cg"
echo +memory > "$cg/cgroup.subtree_control" 2>/dev/null
mkdir -p "$cg/symofan-$$"
on_exit rmdir "$cg/symofan-$$"
echo 64M > "$cg/symofan-$$/memory.max"
out=$(sh -c "echo \$\$ > $cg/symofan-$$/cgroup.procs &&
	exec tc -n $a qdisc change dev va root symphony jobs 4194304" 2>&1)
rc=$?
ktap_print "in a 64 MiB cgroup: exit $rc: $out"
check "a table above the cgroup's limit is refused with its message" \
	test "$rc" -ne 0 -a -n "$(grep 'cannot allocate the job table' <<<"$out")"
check_eq "and the old table stays" 4096 "$(jobs_of)"

# 2^24 slots, the most the 24-bit job ids address: 112 B a slot, 1.75 GiB.
# A stock kernel's VM has 4 GiB (scripts/vm-run.sh) so that the table is
# taken with 512 MiB held elsewhere, as the page cache and tmpfs files of
# a boot's earlier tests hold it (at 2 GiB it was refused or pushed the
# guest into compaction, depending on what ran before).  The debug
# kernel's 1 GiB cannot hold it: refused there, the old table kept.
# Either way without the OOM killer.
ballast=$(mktemp -d)
on_exit rmdir "$ballast"
mount -t tmpfs -o size=600m none "$ballast"
on_exit umount "$ballast"
dd if=/dev/zero of="$ballast/held" bs=1M count=512 status=none
vmalloc_kib() { awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo; }
before=$(vmalloc_kib)
if tc -n "$a" qdisc change dev va root symphony jobs 16777216 2>/dev/null; then
	ktap_print "2^24 slots taken: vmalloc grew by $(($(vmalloc_kib) - before)) KiB"
	ip netns exec "$a" "$BUILD_DIR/rocegen" --proto uec 10.248.0.2 \
		job=16777215,step=1,count=5 >/dev/null
	check_eq "2^24 slots taken: the last job id is tracked" 5 \
		"$(tc -n "$a" -j -s qdisc show dev va | jq '.[0].collective_packets')"
else
	ktap_print "2^24 slots refused, $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) KiB available"
	case "${SYMOFAN_VM_KERNEL:-}" in
	*debug*)
		check_eq "2^24 slots refused in the debug kernel's 1 GiB: the old table stays" \
			4096 "$(jobs_of)" ;;
	*)
		check "2^24 slots taken beside 512 MiB held (a stock kernel's VM)" false ;;
	esac
fi
rm -f "$ballast/held"
check_fails "2^24 + 1 slots are refused" \
	tc -n "$a" qdisc change dev va root symphony jobs 16777217
check_fails "the OOM killer did not run" grep -qi 'out of memory' <(dmesg)
tc -n "$a" qdisc change dev va root symphony jobs 4096

ktap_finished
