#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_run_tests_vm_fault.sh - selftests/run_tests.sh when the emulator
# faults under the VM tier: a stand-in VM runner (SYMOFAN_VM_RUNNER)
# reports the first test of a boot and then exits as vm-run.sh does.
# After an emulator fault (123) the tests that did not report run again
# in one new boot, keeping their numbers, and the closing line counts
# each test once; a second fault leaves them failed, with no third boot;
# a kernel splat (125) is never run again.  And what a boot is told of
# kmemleak: a scan after each test, or on a :quick tier one at the end.
. "$(dirname "$0")/../lib.sh"

runner=$SELFTESTS_DIR/run_tests.sh
tmp=$(mktemp -d)
on_exit rm -rf "$tmp"

cat >"$tmp/vm-run" <<'STANDIN'
#!/usr/bin/env bash
# vm-run.sh's stand-in: --kernel K --timeout S -- run_tests.sh ... --in-vm N
k=$2 n=${*: -1}
calls=$(( $(cat "$STATE/calls" 2>/dev/null || echo 0) + 1 ))
echo "$calls" >"$STATE/calls"
echo "$SYMOFAN_VM_TESTS" >>"$STATE/lists"
echo "$k ${SYMOFAN_KMEMLEAK_SCAN:-unset}" >>"$STATE/scans"
for t in $SYMOFAN_VM_TESTS; do
	echo "ok $n $t [$k]"
	n=$((n + 1))
	if [ "$calls" -le "$FAULTS" ]; then
		echo "vm-run: FAILED: stand-in fault $FAULT_RC" >&2
		exit "$FAULT_RC"
	fi
done
exit 0
STANDIN
chmod +x "$tmp/vm-run"

pattern=test_symphony_
mapfile -t tests < <("$runner" --tier vm --kernels 6.1 -t "$pattern" --list)
[ ${#tests[@]} -ge 3 ] || ktap_skip_all "fewer than 3 VM tests match '$pattern'"
nr=${#tests[@]}

ktap_plan 8

# run FAULTS RC [KERNELS]: run_tests with the stand-in, its output in
# $tmp/out
run() {
	rm -f "$tmp/calls" "$tmp/lists" "$tmp/scans"
	STATE=$tmp FAULTS=$1 FAULT_RC=$2 SYMOFAN_VM_RUNNER=$tmp/vm-run \
		"$runner" --tier vm --kernels "${3:-6.1}" -t "$pattern" >"$tmp/out" 2>&1
}

run 1 123
ktap_print "$(tail -n 1 "$tmp/out"); boots $(cat "$tmp/calls")"
check_eq "an emulator fault: one more boot, every test counted once" \
	"2 $nr passed, 0 failed" "$(cat "$tmp/calls") $(tail -n 1 "$tmp/out")"
check_eq "... that boot runs the tests that did not report, in order" \
	"${tests[*]:1}" "$(sed -n 2p "$tmp/lists" | sed 's/ /\n/g' | sed 's/$/ [6.1]/' | paste -sd ' ')"
check "... numbered as in the first: ok 2 is the second test" \
	grep -q "^ok 2 ${tests[1]% \[*} " "$tmp/out"
check "... and it says why it boots again" \
	grep -q "the emulator faulted (not the kernel): $((nr - 1)) tests" "$tmp/out"

run 2 123
check_eq "a second fault: no third boot, the rest fail" \
	"2 $((nr - 2)) yes" \
	"$(cat "$tmp/calls") $(grep -c '^not ok .* did not report' "$tmp/out") $(grep -q '^not ok .* vm-run \[6.1\]' "$tmp/out" && echo yes)"

run 1 125
check_eq "a kernel splat (125): no second boot" "1" "$(cat "$tmp/calls")"
check "... and the tests it cut short fail" \
	grep -q "^not ok 2 ${tests[1]% \[*} \[6.1\] # did not report: VM runner exited 125" "$tmp/out"

run 0 0 "6.1 6.1-debug:quick"
check_eq "a full tier's boot scans for leaks after each test, a :quick one after the last" \
	"6.1 each,6.1-debug end" "$(paste -sd , "$tmp/scans")"

ktap_finished
