#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run_tests.sh - the project's selftest runner.  Runs the host tier
# (host/test_*: BPF, userspace, netns) directly and the VM tier
# (vm/test_*: the qdisc module) inside scripts/vm-run.sh, one boot per
# kernel.  On a kernel with kmemleak (the debug kernel) each VM test is
# followed by a scan, and a leak fails it (on NAME:quick only the VM
# runner's scan after the last test, which fails the boot).  Prints TAP;
# ends with the line "N passed, N failed".
#
# Usage: selftests/run_tests.sh [--tier host|vm|all] [--kernels LIST]
#                               [-t PATTERN] [--list]
#   --tier T        run only that tier (default all)
#   --kernels LIST  the VM tier's kernels, space-separated, from
#                   scripts/lib.sh VM_KERNELS (default "6.1", or
#                   $SYMOFAN_VM_KERNELS); NAME:quick leaves out on that
#                   kernel the long workload tests that settings' "slow"
#                   lists
#   -t PATTERN      run only tests whose name contains PATTERN
#   --list          print the tests that would run
# Internal: --in-vm N runs the VM tier inside the VM, numbering from N.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
splat=$KERNEL_SPLAT_RE

tier=all
kernels=${SYMOFAN_VM_KERNELS:-6.1}
# the VM runner; host/test_run_tests_vm_fault.sh puts a stand-in here
vm_run=${SYMOFAN_VM_RUNNER:-$top/scripts/vm-run.sh}
pattern=""
list=0
in_vm_start=0
while [ $# -gt 0 ]; do
	case "$1" in
	--tier) tier=${2:?}; shift 2 ;;
	--kernels) kernels=${2:?}; shift 2 ;;
	-t) pattern=${2:?}; shift 2 ;;
	--list) list=1; shift ;;
	--in-vm) in_vm_start=${2:?}; shift 2 ;;
	-h|--help) sed -n '9,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_tests.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$tier" in host|vm|all) ;; *) echo "run_tests.sh: bad tier '$tier'" >&2; exit 2 ;; esac

timeout_s=$(sed -n 's/^timeout=//p' "$here/settings")
# The debug kernel runs everything several times slower under TCG.
case "${SYMOFAN_VM_KERNEL:-}" in *debug) timeout_s=$((timeout_s * 4)) ;; esac
slow_tests=$(sed -n 's/^slow=//p' "$here/settings")
module_free_tests=$(sed -n 's/^module_free=//p' "$here/settings")

tests_of() {
	local f
	for f in "$here/$1"/test_*; do
		[ -x "$f" ] || continue
		case "${f##*/}" in *"$pattern"*) echo "$1/${f##*/}" ;; esac
	done
}

host_tests=()
vm_tests=()
[ "$tier" = vm ] || mapfile -t host_tests < <(tests_of host)
[ "$tier" = host ] || mapfile -t vm_tests < <(tests_of vm)

read -r -a kernel_list <<<"$kernels"

# vm_test_runs_on TEST KERNEL: whether TEST runs on KERNEL (NAME or
# NAME:quick, which leaves out the "slow" tests of settings, and on a
# debug kernel also its "module_free" ones).
vm_test_runs_on() {
	case "$2" in
	*:quick) case " $slow_tests " in *" ${1##*/} "*) return 1 ;; esac ;;
	esac
	case "$2" in
	*-debug:quick) case " $module_free_tests " in *" ${1##*/} "*) return 1 ;; esac ;;
	esac
	return 0
}
[ "${#kernel_list[@]}" -gt 0 ] || { echo "run_tests.sh: --kernels is empty" >&2; exit 2; }

if [ "$list" -eq 1 ]; then
	printf '%s\n' "${host_tests[@]}" | sed '/^$/d'
	for k in "${kernel_list[@]}"; do
		for t in "${vm_tests[@]}"; do
			vm_test_runs_on "$t" "$k" && echo "$t [${k%:quick}]"
		done
	done
	exit 0
fi

# kmemleak, where the kernel has it: scanned after each VM test.
kmemleak=/sys/kernel/debug/kmemleak

# kmemleak_report: the leaks a scan finds now, then forget them.  Objects
# younger than 5 s are not reported yet: the next scan reports them.
kmemleak_report() {
	[ -w "$kmemleak" ] || return 0
	echo scan > "$kmemleak" 2>/dev/null
	cat "$kmemleak" 2>/dev/null
	echo clear > "$kmemleak" 2>/dev/null
}

# run_one N NAME: run one test, indent its output, print its TAP line.
run_one() {
	local n=$1 name=$2 rc reason="" label=$2${3:+ [$3]} start=$SECONDS
	local limit_s
	# settings' "timeout.NAME=SECONDS" for a test that needs longer
	limit_s=$(sed -n "s/^timeout\.${name##*/}=//p" "$here/settings")
	: "${limit_s:=$timeout_s}"
	echo "# selftests: $label"
	timeout --foreground -k 10 "$limit_s" "$here/$name" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# $label took $((SECONDS - start)) s"
	if [ -n "${SYMOFAN_IN_VM:-}" ]; then
		local lines
		lines=$(dmesg -c 2>/dev/null | grep -E -A 12 "$splat" | head -n 40)
		if [ -n "$lines" ]; then
			echo "$lines" | sed 's/^/# dmesg: /'
			reason="kernel splat"
			rc=1
		fi
		# SYMOFAN_KMEMLEAK_SCAN=end (a :quick tier): only the runner's
		# scan after the last test, which fails the boot on a leak
		lines=
		[ "${SYMOFAN_KMEMLEAK_SCAN:-each}" = end ] ||
			lines=$(kmemleak_report | head -n 40)
		if [ -n "$lines" ]; then
			echo "$lines" | sed 's/^/# kmemleak: /'
			reason="${reason:+$reason, }kmemleak"
			rc=1
		fi
	fi
	case "$rc" in
	0) echo "ok $n $label" ;;
	4) echo "ok $n $label # SKIP" ;;
	124|137) echo "not ok $n $label # TIMEOUT after $limit_s s" ;;
	*) echo "not ok $n $label # exit=$rc${reason:+ ($reason)}" ;;
	esac
}

if [ "$in_vm_start" -gt 0 ]; then
	dmesg -c >/dev/null 2>&1
	kmemleak_report >/dev/null	# what booting left
	n=$in_vm_start
	# the tests the host chose (SYMOFAN_VM_TESTS), in its order
	[ -z "${SYMOFAN_VM_TESTS:-}" ] || read -r -a vm_tests <<<"$SYMOFAN_VM_TESTS"
	for t in "${vm_tests[@]}"; do
		run_one "$n" "$t" "${SYMOFAN_VM_KERNEL:-}"
		n=$((n + 1))
	done
	exit 0
fi

total=${#host_tests[@]}
for k in "${kernel_list[@]}"; do
	for t in "${vm_tests[@]}"; do
		! vm_test_runs_on "$t" "$k" || total=$((total + 1))
	done
done
log=$(mktemp /tmp/selftests.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "TAP version 13"
echo "1..$total"
n=1
for t in "${host_tests[@]}"; do
	run_one "$n" "$t" | tee -a "$log"
	n=$((n + 1))
done

# vm_boot KERNEL N TEST...: the tests in one boot of KERNEL, numbered
# from N; their output in $vm_log, the runner's status in $vm_rc
vm_boot() {
	local k=$1 first=$2 vm_timeout
	shift 2
	vm_timeout=$(( (timeout_s + 15) * $# + 120 ))
	case "$k" in *debug) vm_timeout=$((vm_timeout * 4)) ;; esac
	SYMOFAN_VM_TESTS="$*" SYMOFAN_KMEMLEAK_SCAN=$kmemleak_scan "$vm_run" --kernel "$k" \
		--timeout "$vm_timeout" -- \
		"$here/run_tests.sh" --tier vm --in-vm "$first" 2>&1 | tee -a "$vm_log"
	vm_rc=${PIPESTATUS[0]}
}

# run_vm_tier KERNEL: the VM tier in one boot of KERNEL (NAME or
# NAME:quick), numbering from $n.  When the emulator itself faults
# (vm-run.sh exits 123), the tests that did not report run again, once,
# in a new boot.
run_vm_tier() {
	local k=${1%:quick} vm_log vm_rc t i m tests=() rest=()
	# kmemleak (the debug kernel): a scan after each test names the test
	# that leaked, at 8 s a scan under TCG; a :quick tier has only the
	# runner's scan after the last (a leak still fails the boot)
	local kmemleak_scan=each
	case "$1" in *:quick) kmemleak_scan=end ;; esac
	for t in "${vm_tests[@]}"; do
		! vm_test_runs_on "$t" "$1" || tests+=("$t")
	done
	echo "# VM tier on $k: ${#tests[@]} tests in one boot of scripts/vm-run.sh${1#"$k"}"
	vm_log=$(mktemp /tmp/selftests-vm.XXXXXX)
	vm_boot "$k" "$n" "${tests[@]}"
	if [ "$vm_rc" -eq 123 ]; then
		# the tests run in order: those from the first silent one on
		m=$n
		for ((i = 0; i < ${#tests[@]}; i++, m++)); do
			grep -Eq "^(not )?ok $m ${tests[i]}( |$)" "$vm_log" || break
		done
		rest=("${tests[@]:i}")
		echo "# VM tier on $k: the emulator faulted (not the kernel): ${#rest[@]} tests that did not report run again in a new boot"
		[ ${#rest[@]} -eq 0 ] || vm_boot "$k" "$m" "${rest[@]}"
	fi
	grep -E '^(not )?ok [0-9]+ ' "$vm_log" >> "$log"
	for t in "${tests[@]}"; do
		if ! grep -Eq "^(not )?ok $n $t( |$)" "$vm_log"; then
			echo "not ok $n $t [$k] # did not report: VM runner exited $vm_rc" |
				tee -a "$log"
		fi
		n=$((n + 1))
	done
	if [ "$vm_rc" -eq 125 ] || [ "$vm_rc" -eq 123 ]; then
		echo "not ok $n vm-run [$k] # the VM failed (see the runner's message above)" |
			tee -a "$log"
		total=$((total + 1))
		n=$((n + 1))
	fi
	rm -f "$vm_log"
}

if [ "${#vm_tests[@]}" -gt 0 ]; then
	for k in "${kernel_list[@]}"; do
		run_vm_tier "$k"
	done
fi

skipped=$(grep -Ec '^ok [0-9]+ .* # SKIP' "$log")
passed=$(( $(grep -Ec '^ok [0-9]+ ' "$log") - skipped ))
failed=$(grep -Ec '^not ok [0-9]+ ' "$log")
echo "# $skipped skipped of $total"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
