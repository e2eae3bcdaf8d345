#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_jobs_map_checks.sh - the qdisc writes into a jobs map as a
# BPF program would, so it takes a map only from a caller with CAP_BPF (or
# CAP_SYS_ADMIN), through an fd open for reading and writing, of a map
# programs may write (not BPF_F_RDONLY_PROG), not frozen, whose value holds
# no field the kernel manages (bpf_spin_lock): each refusal with a message
# that names the reason, and the configuration left as it was.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --bpffs --tool symofan jq bpftool setpriv
nl=$BUILD_DIR/selftests/symphony_nl
require_built "$nl"

ktap_plan 10

bpffs_pin_dir checks
netns_create a
ip -n "$a" link add d0 type dummy
ip -n "$a" link set d0 up
run() { "$nl" -n "$a" d0 "$@"; }
config() { tc -n "$a" -j qdisc show dev d0 | jq -c '.[0].options'; }

"$BUILD_DIR/symofan" job init --pin-dir "$pins" --jobs 64 >/dev/null
value_size=$(bpftool -j map show pinned "$pins/jobs" | jq .bytes_value)
check "the qdisc starts with its own table" run add jobs=128
before=$(config)

# refused NAME WANT ATTRS...: a change refused with EPERM and message WANT.
refused() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 1 ] && grep -q "^error 1 " <<<"$out" &&
	   grep -qF "$want" <<<"$out"; then
		ktap_pass "$name ($(sed 's/^error [0-9]* //' <<<"$out"))"
	else
		ktap_fail "$name" "exit $rc, wanted 1 with EPERM and '$want'" "$out"
	fi
}

refused "a read-only fd is refused" "open for reading and writing" \
	run change "jobs_map=$pins/jobs:ro"
refused "a write-only fd is refused" "open for reading and writing" \
	run change "jobs_map=$pins/jobs:wo"

bpftool map create "$pins/rdonly_prog" type array key 4 value "$value_size" \
	entries 4 name rdonly_prog flags 0x80
refused "a map read-only to programs (BPF_F_RDONLY_PROG) is refused" \
	"BPF_F_RDONLY_PROG" run change "jobs_map=$pins/rdonly_prog"

bpftool map create "$pins/frozen" type array key 4 value "$value_size" \
	entries 4 name frozen
bpftool map freeze pinned "$pins/frozen"
refused "a frozen map is refused" "frozen" run change "jobs_map=$pins/frozen"

"$nl" --mkmap-spinlock "$pins/locked"
refused "a map whose value holds a bpf_spin_lock is refused" \
	"kernel-managed fields" run change "jobs_map=$pins/locked"

# Without CAP_BPF and CAP_SYS_ADMIN (CAP_NET_ADMIN stays): the map fd is
# opened as an unprivileged user may, where the sysctl allows it.
unpriv=$(cat /proc/sys/kernel/unprivileged_bpf_disabled)
on_exit "echo $unpriv > /proc/sys/kernel/unprivileged_bpf_disabled"
echo 0 > /proc/sys/kernel/unprivileged_bpf_disabled
refused "a caller without CAP_BPF or CAP_SYS_ADMIN is refused" \
	"needs CAP_BPF or CAP_SYS_ADMIN" \
	nsenter --net="/run/netns/$a" \
	setpriv --inh-caps=-bpf,-sys_admin --bounding-set=-bpf,-sys_admin -- \
	"$nl" d0 change "jobs_map=$pins/jobs"

check_eq "no refused change altered the configuration" "$before" "$(config)"
check "a map fd open for reading and writing is taken" \
	run change "jobs_map=$pins/jobs"
check_eq "the qdisc reports that map" \
	"$(bpftool -j map show pinned "$pins/jobs" | jq .id)" \
	"$(config | jq .jobs_map_id)"

ktap_finished
