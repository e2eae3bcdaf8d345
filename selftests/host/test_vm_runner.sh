#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_vm_runner.sh - scripts/vm-run.sh passes the command's exit status
# and output through, shares a writable folder, boots fast enough, and
# fails loudly (exit 125 with the console lines) on a kernel WARN, an
# int3 trap, a panic and a timeout; on the debug kernel, a lock inversion
# (lockdep), an out-of-bounds access (KASAN) and a leak (kmemleak) raised
# by a test-only module each fail the run too; an unknown --kernel is
# refused.  Its classifier of the emulator's own fault (an int3 trap at
# kernel text memory no longer holds: exit 123, which run_tests.sh runs
# again) calls a CI run's console that, and not a real int3 or a WARN.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd qemu-system-x86_64
require_built "$TOP_DIR/kernel/sch_symphony.ko" "$SELFTESTS_DIR/kmod/symofan_splat.ko"

vm_run=$TOP_DIR/scripts/vm-run.sh
ktap_plan 15

# run_vm OUTFILE ARGS...: vm-run's exit status, its output in OUTFILE.
run_vm() {
	local out=$1
	shift
	"$vm_run" "$@" >"$out" 2>&1
}

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"
chmod 0755 "$tmp"

start=$(date +%s%N)
run_vm "$tmp/status.log" --rw "$tmp" -- sh -c \
	'echo guest-says-hello; lsmod | grep -q "^sch_symphony " && echo module-loaded;
	 uname -r > '"$tmp"'/uname; exit 7'
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check_eq "the command's exit status comes back" 7 "$rc"
check "its output is streamed and the module was loaded" \
	sh -c "grep -qx guest-says-hello $tmp/status.log &&
	       grep -qx module-loaded $tmp/status.log"
check_eq "a --rw folder is writable from the guest" \
	"$(ls "$(scripts_dir=$TOP_DIR/scripts; . "$scripts_dir/lib.sh"; vm_kernel_dir "$(headers_abi)")/lib/modules")" \
	"$(cat "$tmp/uname" 2>/dev/null)"
boot=$(sed -n 's/.*guest boot \([0-9.]*\) s.*/\1/p' "$tmp/status.log")
ktap_print "boot to command: guest ${boot:-?} s, whole run ${ms} ms wall"
if [ "$ms" -lt 20000 ]; then
	ktap_pass "a whole run takes under 20 s wall (${ms} ms)"
else
	ktap_fail "a whole run takes under 20 s wall (${ms} ms)"
fi

run_vm "$tmp/warn.log" --no-module -- \
	insmod "$SELFTESTS_DIR/kmod/symofan_splat.ko" kind=warn
rc=$?
check_eq "an injected WARN fails the run with its console lines" "125 yes" \
	"$rc $(grep -q 'WARNING: .*symofan_splat' "$tmp/warn.log" && echo yes)"

run_vm "$tmp/int3.log" --no-module -- \
	insmod "$SELFTESTS_DIR/kmod/symofan_splat.ko" kind=int3
rc=$?
check_eq "an int3 the kernel's text holds fails the run as the kernel's (125, not 123)" "125 yes" \
	"$rc $(grep -Eq 'int3: [0-9a-f]{4} \[#' "$tmp/int3.log" && echo yes)"

# the classifier on console logs: a CI run's, and the same with the int3
# in memory, and with a WARN before it
emulator_fault() {	# emulator_fault CONSOLE: vm-run's classifier
	bash -c '. "$1"; stale_int3_oops "$KERNEL_SPLAT_RE" "$2"' _ \
		"$TOP_DIR/scripts/lib.sh" "$1"
}
stale=$SELFTESTS_DIR/host/data/console-stale-int3.log
check "a CI run's int3 at a patched-back NOP is the emulator's" \
	emulator_fault "$stale"
sed 's/0f <1f> 44/cc <1f> 44/' "$stale" >"$tmp/int3-in-memory.log"
check_fails "the same trap with the int3 in memory is the kernel's" \
	emulator_fault "$tmp/int3-in-memory.log"
{ echo "[    1.000000] WARNING: CPU: 0 PID: 1 at kernel/foo.c:1"; cat "$stale"; } >"$tmp/warn-first.log"
check_fails "a WARN before it makes the run the kernel's" \
	emulator_fault "$tmp/warn-first.log"

run_vm "$tmp/panic.log" --no-module -- sh -c 'echo c > /proc/sysrq-trigger'
rc=$?
check_eq "a kernel panic fails the run" "125 yes" \
	"$rc $(grep -q 'Kernel panic' "$tmp/panic.log" && echo yes)"

run_vm "$tmp/timeout.log" --no-module --timeout 15 -- sleep 600
rc=$?
check_eq "a command that hangs times out" "125 yes" \
	"$rc $(grep -q 'timed out after 15 s' "$tmp/timeout.log" && echo yes)"

check_fails "an unknown --kernel is refused" "$vm_run" --kernel 5.10 -- true

# The debug kernel's detectors, proven live with the test-only module
# built for it (make modules-6.1-debug).
splat_ko=$TOP_DIR/build/kmod/6.1-debug/selftests/kmod/symofan_splat.ko
debug_image=$(. "$TOP_DIR/scripts/lib.sh"; debug_kernel_dir)
[ -f "$debug_image/.complete" ] || splat_ko=/nonexistent
for kind in "lockdep:possible circular locking" "kasan:BUG: KASAN: slab-out-of-bounds" \
	    "leak:unreferenced object"; do
	name="an injected ${kind%%:*} splat fails a debug-kernel run"
	if [ ! -f "$splat_ko" ]; then
		ktap_skip "$name" "the debug kernel or its modules are not built (make modules-6.1-debug)"
		continue
	fi
	run_vm "$tmp/${kind%%:*}.log" --kernel 6.1-debug --no-module --timeout 240 -- \
		insmod "$splat_ko" kind="${kind%%:*}"
	rc=$?
	seen=$(grep -qF "${kind#*:}" "$tmp/${kind%%:*}.log" && echo yes)
	check_eq "$name" "125 yes" "$rc $seen"
	# the runner's verdict, when the run failed for another reason
	[ "$rc $seen" = "125 yes" ] ||
		grep -E '^vm-run|BUG|WARNING|kmemleak' "$tmp/${kind%%:*}.log" |
		head -n 12 | sed 's/^/# /'
done

ktap_finished
