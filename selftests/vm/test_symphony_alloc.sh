#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_alloc.sh - the qdisc's allocations fail cleanly: its job
# table is charged to the caller's memory cgroup (a table above the
# cgroup's limit is refused with ENOMEM, the old one kept), the largest
# table (2^24 slots) is either taken or refused without the OOM killer,
# and, on a kernel with fault injection (the debug kernel), failing each
# allocation of an add or a change in turn (fail-nth) leaves either the
# old or the new configuration, never a half-made one or a splat.
. "$(dirname "$0")/../lib.sh"

in_vm || ktap_skip_all "runs in the VM (scripts/vm-run.sh)"
require_root
require_cmd tc jq
require_built "$BUILD_DIR/tc/q_symphony.so" "$BUILD_DIR/rocegen" \
	"$BUILD_DIR/selftests/symphony_nl" "$BUILD_DIR/symjobs"
require_bpffs
export TC_LIB_DIR=$BUILD_DIR/tc

ktap_plan 8

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

# 2^24 slots, the most the 24-bit job ids address: taken or refused,
# without the OOM killer.
if tc -n "$a" qdisc change dev va root symphony jobs 16777216 2>/dev/null; then
	ip netns exec "$a" "$BUILD_DIR/rocegen" --proto uec 10.248.0.2 \
		job=16777215,step=1,count=5 >/dev/null
	check_eq "2^24 slots taken: the last job id is tracked" 5 \
		"$(tc -n "$a" -j -s qdisc show dev va | jq '.[0].collective_packets')"
else
	check_eq "2^24 slots refused: the old table stays" 4096 "$(jobs_of)"
fi
check_fails "2^24 + 1 slots are refused" \
	tc -n "$a" qdisc change dev va root symphony jobs 16777217
check_fails "the OOM killer did not run" grep -qi 'out of memory' <(dmesg)
tc -n "$a" qdisc change dev va root symphony jobs 4096

# fail-nth: the n-th fault-injectable allocation of the command fails.
dbg=/sys/kernel/debug
if [ ! -w /proc/self/fail-nth ] || [ ! -d "$dbg/failslab" ]; then
	for name in "every failed allocation of a change leaves a whole configuration" \
		    "every failed allocation of an add leaves no qdisc or a whole one" \
		    "fault injection reached the qdisc's own allocations"; do
		ktap_skip "$name" "no fault injection in this kernel"
	done
	ktap_finished
fi
for f in failslab fail_page_alloc; do
	echo N > "$dbg/$f/ignore-gfp-wait"
	echo 0 > "$dbg/$f/verbose"
done
echo 0 > "$dbg/fail_page_alloc/min-order"

nl=$BUILD_DIR/selftests/symphony_nl
pins=/sys/fs/bpf/symofan-alloc-$$
mkdir -p "$pins"
on_exit rm -rf "$pins"
"$BUILD_DIR/symjobs" create "$pins/jobs" --jobs 64 >/dev/null
ip -n "$a" link add d0 type dummy
ip -n "$a" link set d0 up
nl_run() { in_ns "$a" "$nl" "$@" 2>&1; }
dump() { tc -n "$a" -j qdisc show dev d0 | jq -c '.[0] | {kind, jobs: .options.jobs, k: .options.k_ppm, map: (.options.jobs_map_id // 0)}'; }

# The n-th allocation of the request fails, for n = 1, 2, ... until the
# request makes fewer than n: a change then leaves the old configuration
# or the new one whole, an add no qdisc or a whole one.
nl_run d0 add jobs=64 >/dev/null
bad=""
injected=0
for n in $(seq 1 200); do
	old=$(dump)
	k=$((1000 + n))
	out=$(nl_run --fail-nth "$n" d0 change jobs=$((100 + n)) k=$k)
	new=$(dump)
	case "$out" in *"fail-nth: not reached"*) break ;; esac
	injected=$((injected + 1))
	if grep -q '^ok' <<<"$out"; then
		[ "$(jq -c '[.jobs, .k]' <<<"$new")" = "[$((100 + n)),$k]" ] || bad+=" change#$n:$new"
	else
		[ "$new" = "$old" ] || bad+=" change#$n:$old->$new"
	fi
done
ktap_print "a change's allocations: $injected failed one by one"
for n in $(seq 1 200); do
	old=$(dump)
	out=$(nl_run --fail-nth "$n" d0 change "jobs_map=$pins/jobs")
	new=$(dump)
	case "$out" in *"fail-nth: not reached"*) break ;; esac
	if grep -q '^ok' <<<"$out"; then
		[ "$(jq .map <<<"$new")" != 0 ] || bad+=" map#$n:$new"
		nl_run d0 change jobs_fd=-1 >/dev/null
	else
		[ "$new" = "$old" ] || bad+=" map#$n:$old->$new"
	fi
done
check_eq "every failed allocation of a change leaves a whole configuration" "" "$bad"

tc -n "$a" qdisc del dev d0 root
bad=""
for n in $(seq 1 200); do
	out=$(nl_run --fail-nth "$n" d0 add jobs=100)
	case "$out" in *"fail-nth: not reached"*) tc -n "$a" qdisc del dev d0 root; break ;; esac
	new=$(dump)
	if grep -q '^ok' <<<"$out"; then
		[ "$(jq .jobs <<<"$new")" = 100 ] || bad+=" add#$n:$new"
		tc -n "$a" qdisc del dev d0 root
	else
		[ "$(jq -r .kind <<<"$new")" != symphony ] || bad+=" add#$n:left $new"
	fi
done
check_eq "every failed allocation of an add leaves no qdisc or a whole one" "" "$bad"
check "fault injection reached the qdisc's own allocations" test "$injected" -gt 2

ktap_finished
