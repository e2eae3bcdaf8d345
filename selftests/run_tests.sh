#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run_tests.sh - the project's selftest runner.  Runs the host tier
# (host/test_*: BPF, userspace, netns) directly and the VM tier
# (vm/test_*: the qdisc module) inside scripts/vm-run.sh, in one boot.
# Prints TAP; ends with the line "N passed, N failed".
#
# Usage: selftests/run_tests.sh [--tier host|vm|all] [-t PATTERN] [--list]
#   --tier T       run only that tier (default all)
#   -t PATTERN     run only tests whose name contains PATTERN
#   --list         print the tests that would run
# Internal: --in-vm N runs the VM tier inside the VM, numbering from N.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
splat='Kernel panic|Oops[:]|WARNING: |BUG[:]|kernel BUG at|general protection fault'
splat+='|KASAN|UBSAN|KFENCE|possible circular locking|possible recursive locking'
splat+='|inconsistent lock state|INFO: task .* blocked|soft lockup|hard LOCKUP|RCU stall'
splat+='|refcount_t: |list_add corruption|list_del corruption|Call Trace'

tier=all
pattern=""
list=0
in_vm_start=0
while [ $# -gt 0 ]; do
	case "$1" in
	--tier) tier=${2:?}; shift 2 ;;
	-t) pattern=${2:?}; shift 2 ;;
	--list) list=1; shift ;;
	--in-vm) in_vm_start=${2:?}; shift 2 ;;
	-h|--help) sed -n '7,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run_tests.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$tier" in host|vm|all) ;; *) echo "run_tests.sh: bad tier '$tier'" >&2; exit 2 ;; esac

timeout_s=$(sed -n 's/^timeout=//p' "$here/settings")

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

if [ "$list" -eq 1 ]; then
	printf '%s\n' "${host_tests[@]}" "${vm_tests[@]}" | sed '/^$/d'
	exit 0
fi

# run_one N NAME: run one test, indent its output, print its TAP line.
run_one() {
	local n=$1 name=$2 rc reason=""
	echo "# selftests: $name"
	timeout --foreground -k 10 "$timeout_s" "$here/$name" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	if [ -n "${SYMOFAN_IN_VM:-}" ]; then
		local lines
		lines=$(dmesg -c 2>/dev/null | grep -E -A 12 "$splat" | head -n 40)
		if [ -n "$lines" ]; then
			echo "$lines" | sed 's/^/# dmesg: /'
			reason="kernel splat"
			rc=1
		fi
	fi
	case "$rc" in
	0) echo "ok $n $name" ;;
	4) echo "ok $n $name # SKIP" ;;
	124|137) echo "not ok $n $name # TIMEOUT after $timeout_s s" ;;
	*) echo "not ok $n $name # exit=$rc${reason:+ ($reason)}" ;;
	esac
}

if [ "$in_vm_start" -gt 0 ]; then
	dmesg -c >/dev/null 2>&1
	n=$in_vm_start
	for t in "${vm_tests[@]}"; do
		run_one "$n" "$t"
		n=$((n + 1))
	done
	exit 0
fi

total=$((${#host_tests[@]} + ${#vm_tests[@]}))
log=$(mktemp /tmp/selftests.XXXXXX)
trap 'rm -f "$log"' EXIT

echo "TAP version 13"
echo "1..$total"
n=1
for t in "${host_tests[@]}"; do
	run_one "$n" "$t" | tee -a "$log"
	n=$((n + 1))
done

if [ "${#vm_tests[@]}" -gt 0 ]; then
	echo "# VM tier: ${#vm_tests[@]} tests in one boot of scripts/vm-run.sh"
	vm_log=$(mktemp /tmp/selftests-vm.XXXXXX)
	vm_timeout=$(( (timeout_s + 15) * ${#vm_tests[@]} + 60 ))
	"$top/scripts/vm-run.sh" --timeout "$vm_timeout" -- \
		"$here/run_tests.sh" --tier vm ${pattern:+-t "$pattern"} \
		--in-vm "$n" 2>&1 | tee "$vm_log"
	vm_rc=${PIPESTATUS[0]}
	grep -E '^(not )?ok [0-9]+ ' "$vm_log" >> "$log"
	for t in "${vm_tests[@]}"; do
		if ! grep -Eq "^(not )?ok $n $t( |$)" "$vm_log"; then
			echo "not ok $n $t # did not report: VM runner exited $vm_rc" |
				tee -a "$log"
		fi
		n=$((n + 1))
	done
	if [ "$vm_rc" -eq 125 ]; then
		echo "not ok $n vm-run # the VM failed (see the runner's message above)" |
			tee -a "$log"
		total=$((total + 1))
	fi
	rm -f "$vm_log"
fi

skipped=$(grep -Ec '^ok [0-9]+ .* # SKIP' "$log")
passed=$(( $(grep -Ec '^ok [0-9]+ ' "$log") - skipped ))
failed=$(grep -Ec '^not ok [0-9]+ ' "$log")
echo "# $skipped skipped of $total"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
