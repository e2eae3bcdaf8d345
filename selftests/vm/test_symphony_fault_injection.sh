#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_fault_injection.sh - on a kernel with fault injection (the
# debug kernel), the n-th slab allocation of a netlink request fails, for
# n = 1, 2, ... until the request makes fewer than n (fail-nth, armed by
# symphony_nl just before it sends): a change the kernel refuses leaves the
# old configuration, an acked one the new one, one whose ack was lost
# either of them whole; an add likewise no qdisc or a whole one; and no
# splat or leak follows.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test
nl=$BUILD_DIR/selftests/symphony_nl
require_built "$nl"
dbg=/sys/kernel/debug/failslab
[ -w /proc/self/fail-nth ] && [ -d "$dbg" ] ||
	ktap_skip_all "no fault injection (failslab, fail-nth) in this kernel"

ktap_plan 3

# Sleeping allocations fail too; no stack dump for each failure.
echo N > "$dbg/ignore-gfp-wait"
echo 0 > "$dbg/verbose"
on_exit "echo Y > $dbg/ignore-gfp-wait"

netns_create a
ip -n "$a" link add d0 type dummy
ip -n "$a" link set d0 up
# Few processes per step: each takes about 1.5 s to start on the debug
# kernel under TCG, so the parsing below is the shell's own.
nl_run() { "$nl" -n "$a" "$@" 2>&1; }
# symphony_nl's reply line, after its "fail-nth:" line
acked_re=$'(^|\n)ok'
refused_re=$'(^|\n)error'
# "jobs N k X" of the qdisc on d0, or "none"
qdisc_re='^qdisc symphony .* k ([0-9.]+) .* jobs ([0-9]+)'
state() {
	local line

	while read -r line; do
		if [[ $line =~ $qdisc_re ]]; then
			echo "jobs ${BASH_REMATCH[2]} k ${BASH_REMATCH[1]}"
			return
		fi
	done < <(tc -n "$a" qdisc show dev d0)
	echo none
}

nl_run d0 add jobs=64 k=1000 >/dev/null
old=$(state)
bad=""
injected=0
for n in $(seq 1 80); do
	out=$(nl_run --fail-nth "$n" d0 change jobs=$((100 + n)) k=$((1000 + n)))
	case "$out" in *"fail-nth: not reached"*) break ;; esac
	injected=$((injected + 1))
	new=$(state)
	# k in ppm as tc prints it, a fraction with six decimals
	printf -v want 'jobs %d k 0.%06d' $((100 + n)) $((1000 + n))
	if [[ $out =~ $acked_re ]]; then
		[ "$new" = "$want" ] || bad+=" change#$n:$new"
	elif [[ $out =~ $refused_re ]]; then
		[ "$new" = "$old" ] || bad+=" change#$n:$old->$new"
	else
		# no ack (its allocation failed): applied or not, but whole
		[ "$new" = "$old" ] || [ "$new" = "$want" ] || bad+=" change#$n:$old->$new"
	fi
	old=$new
done
ktap_print "a change's slab allocations: $injected failed one by one"
check_eq "every failed allocation of a change leaves a whole configuration" "" "$bad"

tc -n "$a" qdisc del dev d0 root
bad=""
for n in $(seq 1 80); do
	out=$(nl_run --fail-nth "$n" d0 add jobs=100 k=2000)
	case "$out" in *"fail-nth: not reached"*) break ;; esac
	new=$(state)
	if [[ $out =~ $acked_re ]]; then
		[ "$new" = "jobs 100 k 0.002000" ] || bad+=" add#$n:$new"
	elif [[ $out =~ $refused_re ]]; then
		[ "$new" = none ] || bad+=" add#$n:left $new"
	else
		# no ack (its allocation failed): added or not, but whole
		[ "$new" = none ] || [ "$new" = "jobs 100 k 0.002000" ] || bad+=" add#$n:$new"
	fi
	[ "$new" = none ] || tc -n "$a" qdisc del dev d0 root
done
ktap_print "an add's slab allocations: $((n - 1)) failed one by one"
check_eq "every failed allocation of an add leaves no qdisc or a whole one" "" "$bad"
check "fault injection reached the qdisc's own allocations" test "$injected" -gt 2

ktap_finished
