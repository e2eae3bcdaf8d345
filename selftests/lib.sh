#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for the project's kselftest-style tests: TAP output,
# exit codes (0 pass, 1 fail, 4 skip), requirements, and network
# namespaces that are removed however the test ends.
#
# A test sources this file, declares its plan, runs checks and ends with
# ktap_finished:
#	. "$(dirname "$0")/../lib.sh"
#	ktap_plan 2
#	check "loads" some_command
#	ktap_finished

set -u

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

SELFTESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$SELFTESTS_DIR/.." && pwd)
BUILD_DIR=$TOP_DIR/build
# the bpftool scripts/build-bpftool.sh built (it knows tcx), else the system's
BPFTOOL=${BPFTOOL:-$(. "$TOP_DIR/scripts/lib.sh" && symofan_bpftool)}

ktap_count=0
ktap_failed=0
ktap_skipped=0
ktap_planned=0
declare -a ktap_netns=()
declare -a ktap_cleanups=()

ktap_plan() {
	ktap_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_print() { echo "# $*"; }

ktap_pass() {
	ktap_count=$((ktap_count + 1))
	echo "ok $ktap_count $1"
}

ktap_fail() {
	ktap_count=$((ktap_count + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_count $1"
	shift
	local line
	for line in "$@"; do
		echo "#   $line"
	done
}

ktap_skip() {
	ktap_count=$((ktap_count + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_count $1 # SKIP ${2:-}"
}

# Skip the whole test: a capability it needs is absent.
ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

# check NAME COMMAND...: one test point, passing when COMMAND succeeds;
# its output is shown only when it fails.
check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "command: $*" "exit status $rc" \
			"$(echo "$out" | tail -n 15)"
	fi
	return 0
}

# check_fails NAME COMMAND...: a test point that passes when COMMAND fails.
check_fails() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "command unexpectedly succeeded: $*" \
			"$(echo "$out" | tail -n 15)"
	fi
	return 0
}

# check_jq NAME FILTER JSON: passes when JSON is not empty and jq -e
# FILTER holds on it.
check_jq() {
	if [ -z "$3" ]; then
		ktap_fail "$1" "no JSON to test '$2' on"
	elif jq -e "$2" >/dev/null 2>&1 <<<"$3"; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "'$2' does not hold on: $(echo "$3" | jq -c . 2>&1 | head -c 600)"
	fi
}

# trace_event_enable EVENT_DIR / trace_event_disable EVENT_DIR: turn one
# trace event (a folder under /sys/kernel/tracing/events) on or off,
# with ftrace's task-name and tgid recording off first.  With record-cmd
# on (ftrace's default), the first enabled event also hooks the scheduler's
# own tracepoints (sched_switch, sched_wakeup, sched_wakeup_new), which
# live-patches __schedule; under QEMU's TCG a vCPU can go on running a
# stale translation of that site, trap in an int3 loop and leave the
# patching CPU waiting on it for ever (CI, 6.1: an RCU stall with CPU 0
# in exc_int3 at __schedule and CPU 1 in text_poke_bp).  The tests read
# only the events' own fields, never the task names.  The caller checks
# that EVENT_DIR/enable is writable.
trace_event_enable() {
	local t=/sys/kernel/tracing
	echo 0 > "$t/options/record-cmd"
	echo 0 > "$t/options/record-tgid"
	echo > "$t/trace"
	echo 1 > "$1/enable"
}
trace_event_disable() {
	echo 0 > "$1/enable"
}

# The qdisc:qdisc_drop tracepoint, which kernels after 6.18 have (7.3
# does): each packet a qdisc dropped, with its enum qdisc_drop_reason and
# the kind of the root qdisc that freed it (not of the child that dropped
# it).  drop_trace_start empties the trace and enables it, or fails where
# the kernel has no such event; drop_trace_reasons ROOT_KIND disables it
# and prints the reasons traced under such a root, "REASON COUNT" a line.
qdisc_drop_event=/sys/kernel/tracing/events/qdisc/qdisc_drop
drop_trace_start() {
	[ -w "$qdisc_drop_event/enable" ] || return 1
	trace_event_enable "$qdisc_drop_event"
}
drop_trace_reasons() {
	trace_event_disable "$qdisc_drop_event"
	sed -n "s/.* kind=$1 .* reason=\([^ ]*\).*/\1/p" /sys/kernel/tracing/trace |
		sort | uniq -c | awk '{ print $2, $1 }'
}

# json_uint KEY JSON: the unsigned number of the first "KEY": in JSON,
# read without starting a process (a process start costs about a second
# on the debug kernel under TCG); prints nothing when KEY is absent.
json_uint() {
	[[ $2 =~ \"$1\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}

# sleep_past_period_start SECONDS: sleep until just after the next
# multiple of SECONDS of CLOCK_MONOTONIC (which /proc/uptime follows in
# the VM, never suspended), so that the commands after it run early in a
# T_win period of that length.  One process, not a polling loop: a
# process start takes up to a second on the debug kernel under TCG.
sleep_past_period_start() {
	sleep "$(awk -v p="$1" '{ print p - $1 % p + 0.1 }' /proc/uptime)"
}

# sleep_unless_period_left SECONDS MARGIN: when less than MARGIN seconds
# are left of the current T_win period of SECONDS (CLOCK_MONOTONIC, as
# above), sleep past its end; otherwise return at once.  For a burst
# whose marks a test counts exactly: a period's end inside the burst
# rolls the job's window, and the outpacing packet after the roll sees
# psn_rec reset (warm-up) and goes unmarked, as Algorithm 1 says.
sleep_unless_period_left() {
	sleep "$(awk -v p="$1" -v m="$2" \
		'{ r = p - $1 % p; print (r < m) ? r + 0.1 : 0 }' /proc/uptime)"
}

# check_timing_jq NAME FILTER JSON: check_jq for a timing bound on a
# testbed run whose result carries a guard (tc-scripts/guard.jq).  When
# FILTER fails on a run the guard found untrustworthy (the machine did
# not keep up with its senders), the point is skipped with the guard's
# reasons; a trustworthy run is judged as check_jq judges it.
check_timing_jq() {
	local verdict

	if [ -n "$3" ] && jq -e "$2" >/dev/null 2>&1 <<<"$3"; then
		ktap_pass "$1"
		return
	fi
	verdict=$(jq -r '.guard.verdict // "none"' 2>/dev/null <<<"$3")
	if [ "$verdict" = untrustworthy ]; then
		ktap_skip "$1" "the machine did not keep up: $(jq -r '.guard.reasons | join("; ")' <<<"$3")"
	else
		check_jq "$@"
	fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "expected '$2', got '$3'"
	fi
}

ktap_finished() {
	if [ "$ktap_count" -ne "$ktap_planned" ]; then
		echo "# planned $ktap_planned test points, ran $ktap_count"
		exit $KSFT_FAIL
	fi
	echo "# totals: pass:$((ktap_count - ktap_failed - ktap_skipped)) fail:$ktap_failed skip:$ktap_skipped"
	[ "$ktap_failed" -eq 0 ] || exit $KSFT_FAIL
	[ "$ktap_count" -eq 0 ] || [ "$ktap_skipped" -lt "$ktap_count" ] ||
		exit $KSFT_SKIP
	exit $KSFT_PASS
}

require_root() {
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			ktap_skip_all "command '$c' not installed (scripts/install-deps.sh)"
	done
}

# require_hook_bpftool: a bpftool whose "net show" lists what runs on a
# tc hook here: tcx links (bpftool 7.3 and later) on a kernel with tcx
# (Linux 6.6 and later), clsact filters on any
require_hook_bpftool() {
	local kver bver

	kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	bver=$("$BPFTOOL" version 2>/dev/null |
		sed -n '1s/^bpftool v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p' |
		awk '{ print $1 * 1000 + $2 }')
	[ "$kver" -lt 6006 ] || [ "${bver:-0}" -ge 7003 ] ||
		ktap_skip_all "$BPFTOOL ($("$BPFTOOL" version 2>/dev/null | head -n 1)) lists no tcx link: make bpftool"
}

# prog_hook NETNS DEV ingress|egress NAME: how program NAME runs on the
# hook of DEV in NETNS, as bpftool net lists it: "tcx LINK_ID", "clsact",
# or nothing when it does not run there
prog_hook() {
	nsenter --net="/run/netns/$1" "$BPFTOOL" net show dev "$2" -j 2>/dev/null |
		jq -r --arg dir "$3" --arg name "$4" '
			.[0].tc[]? |
			select((.kind | endswith("/" + $dir)) and
			       (.name | sub(":\\[.*$"; "")) == $name) |
			if .link_id then "tcx \(.link_id)" else "clsact" end'
}

require_built() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || { echo "# $f is not built: run 'make'"; exit $KSFT_FAIL; }
	done
}

# run_unit_test BIN: run a userspace unit-test binary built by 'make -C
# selftests all', whose TAP output is the test's, and exit with its verdict.
run_unit_test() {
	local bin=$1 rc
	require_built "$bin"
	"$bin" && rc=0 || rc=$?
	case "$rc" in
	0) exit $KSFT_PASS ;;
	1) exit $KSFT_FAIL ;;
	*) echo "# $bin exited with status $rc"; exit $KSFT_FAIL ;;
	esac
}

# require_tools NAME...: the project's tools build/NAME must be built;
# each one's path goes into the variable $NAME.
require_tools() {
	local t
	require_built "${@/#/$BUILD_DIR/}"
	for t in "$@"; do
		printf -v "$t" '%s' "$BUILD_DIR/$t"
	done
}

in_vm() { [ -n "${SYMOFAN_IN_VM:-}" ]; }

# vm_modprobe ARGS...: modprobe on the VM kernel's modules, which lie in
# the unpacked image named by the kernel command line (symofan.modules=,
# scripts/vm-run.sh), not under the host root's /lib/modules.  For a
# module that nothing loads on demand.
vm_modprobe() {
	local root

	root=$(sed -n 's/.*symofan\.modules=\([^ ]*\).*/\1/p' /proc/cmdline)
	modprobe ${root:+-d "$root"} "$@"
}

# The sch_symphony.ko built for the kernel the VM runs (scripts/lib.sh
# module_tree): the tree's own for 6.1, build/kmod/NAME's for the others.
symphony_ko() {
	case "${SYMOFAN_VM_KERNEL:-6.1}" in
	6.1|stock) echo "$TOP_DIR/kernel/sch_symphony.ko" ;;
	*) echo "$TOP_DIR/build/kmod/$SYMOFAN_VM_KERNEL/kernel/sch_symphony.ko" ;;
	esac
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# wait_until TIMEOUT_MS CMD...: run CMD every 50 ms until it succeeds, at
# most TIMEOUT_MS; fails when it never did, leaving the check that follows
# to show what was there instead.  For counters that settle after packets
# are sent (a softirq away), in place of a fixed sleep.
wait_until() {
	local deadline=$(( $(now_ms) + $1 ))

	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# react NAME EXPECTED PROBE CHANGE...: make CHANGE, then run PROBE every
# 10 ms until it prints EXPECTED (for at most 2 s); one test point, passing
# when that took at most $react_limit_ms ms (default 100) after CHANGE
# returned.  The time is counted from the command's return, because some
# kernel changes (nexthop objects in use) wait for an RCU grace period
# before returning; both times are printed.
react() {
	local name=$1 want=$2 probe=$3 limit=${react_limit_ms:-100}
	local t0 t1 t got=""
	shift 3
	t0=$(now_ms)
	"$@"
	t1=$(now_ms)
	while :; do
		got=$($probe)
		t=$(( $(now_ms) - t1 ))
		[ "$got" = "$want" ] && break
		[ "$t" -gt 2000 ] && break
		sleep 0.01
	done
	ktap_print "$name: $t ms after the command, $((t + t1 - t0)) ms in all"
	if [ "$got" = "$want" ] && [ "$t" -le "$limit" ]; then
		ktap_pass "$name within $limit ms"
	else
		ktap_fail "$name within $limit ms" \
			"expected '$want', got '$got' after $t ms"
	fi
}

# ofan_lookup [-j] PINS MAP INDEX: entry INDEX of Ofan map MAP pinned in
# PINS, in the set in use (ofan_active; include/ofan/ofan_maps.h), as
# bpftool prints it: MAP is ofan_config (INDEX 0), ofan_ports (an uplink)
# or ofan_dests (a key).
ofan_lookup() {
	local json="" set per idx
	[ "$1" = -j ] && { json=-j; shift; }
	set=$(bpftool map lookup pinned "$1/ofan_active" key 0 0 0 0 |
		sed -n 's/.*"set": \([0-9]*\).*/\1/p')
	case "$2" in
	ofan_config) per=1 ;;
	ofan_ports) per=64 ;;
	ofan_dests) per=4096 ;;
	*) echo "ofan_lookup: no map '$2'" >&2; return 2 ;;
	esac
	idx=$(( ${set:-0} * per + $3 ))
	bpftool $json map lookup pinned "$1/$2" key $((idx & 255)) \
		$((idx >> 8 & 255)) $((idx >> 16 & 255)) $((idx >> 24 & 255))
}

require_bpffs() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
		ktap_skip_all "cannot mount bpffs on /sys/fs/bpf"
}

# symphony_vm_test [--bpffs] [--tool NAME]... [CMD...]: the start of a VM
# test of the qdisc: skip outside the VM; need root, tc and each CMD, the
# tc plugin (TC_LIB_DIR exported) and each of the project's tools NAME,
# whose path build/NAME it puts in the variable $NAME; with --bpffs, a
# mounted bpffs.
symphony_vm_test() {
	local bpffs=0 tools=()
	while [ $# -gt 0 ]; do
		case $1 in
		--bpffs) bpffs=1; shift ;;
		--tool) tools+=("$2"); shift 2 ;;
		*) break ;;
		esac
	done
	in_vm || ktap_skip_all "runs in the VM (scripts/vm-run.sh)"
	require_root
	require_cmd tc "$@"
	require_built "$BUILD_DIR/tc/q_symphony.so"
	[ ${#tools[@]} -eq 0 ] || require_tools "${tools[@]}"
	[ "$bpffs" -eq 0 ] || require_bpffs
	export TC_LIB_DIR=$BUILD_DIR/tc
}

# bpffs_pin_dir NAME: a folder of this test's own on bpffs for its pins,
# in $pins, removed at exit.
bpffs_pin_dir() {
	pins=/sys/fs/bpf/symofan-$1-$$
	mkdir -p "$pins"
	on_exit rm -rf "$pins"
}

# Run a command at exit, last registered first.
# dkms_builds SOURCETREE VERSION KVER DIR: DKMS (add, build) builds
# sch_symphony from SOURCETREE/sch-symphony-VERSION for kernel KVER in a
# DKMS tree of its own under DIR (log: DIR/dkms.log); 0 when it built.
dkms_builds() {
	local args=(-m sch-symphony -v "$2" -k "$3" --sourcetree "$1"
		    --dkmstree "$4/dkms-tree")
	mkdir -p "$4/dkms-tree"
	dkms add "${args[@]}" >/dev/null 2>&1
	dkms build "${args[@]}" >"$4/dkms.log" 2>&1
	test -f "$4/dkms-tree/sch-symphony/$2/$3/x86_64/module/sch_symphony.ko"
}

on_exit() { ktap_cleanups=("$*" "${ktap_cleanups[@]}"); }

ktap_cleanup() {
	local c ns
	for c in "${ktap_cleanups[@]}"; do
		eval "$c" >/dev/null 2>&1 || true
	done
	for ns in "${ktap_netns[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}
trap ktap_cleanup EXIT

# netns_create NAME...: namespaces unique to this test run, deleted at
# exit; each name is set as a variable holding the real namespace name.
netns_create() {
	local name real
	for name in "$@"; do
		real="symofan-$name-$$"
		ip netns add "$real" || return 1
		ip -n "$real" link set lo up
		ktap_netns+=("$real")
		printf -v "$name" '%s' "$real"
	done
}

# Run a command in a namespace without hiding /sys/fs/bpf, as 'ip netns
# exec' (which remounts /sys) would.
in_ns() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# veth_pair NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: a veth between two
# namespaces, IPv4 addresses with prefix, up, IPv6 off and static
# neighbour entries, so that only the test's own packets cross it.
veth_pair() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" || return 1
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip netns exec "$4" sysctl -qw "net.ipv6.conf.$5.disable_ipv6=1"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
	ip -n "$1" neigh replace "${6%/*}" dev "$2" lladdr \
		"$(ip -n "$4" -br link show "$5" | awk '{ print $3 }')"
	ip -n "$4" neigh replace "${3%/*}" dev "$5" lladdr \
		"$(ip -n "$1" -br link show "$2" | awk '{ print $3 }')"
}
