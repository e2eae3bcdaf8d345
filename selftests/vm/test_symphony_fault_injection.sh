#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_fault_injection.sh - on a kernel with fault injection (the
# debug kernel), the n-th slab allocation of a netlink request fails, for
# n = 1, 2, ... until the request makes fewer than n (fail-nth, armed by
# symphony_nl just before it sends): a change the kernel refuses leaves the
# old configuration, an acked one the new one, one whose ack was lost
# either of them whole; an add likewise no qdisc or a whole one; and no
# splat or leak follows.  One process per step: the debug kernel under TCG
# takes about 1.5 s to start one.
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
nl_run() { ip netns exec "$a" "$nl" "$@" 2>&1; }
# "jobs N k X" of the qdisc on d0, or "none"
state() {
	tc -n "$a" qdisc show dev d0 |
		sed -n 's/^qdisc symphony .* k \([0-9.]*\) .* jobs \([0-9]*\).*/jobs \2 k \1/p;t;s/.*/none/p' |
		head -n 1
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
	want=$(printf 'jobs %d k %s' $((100 + n)) "$(awk "BEGIN { printf \"%f\", $((1000 + n)) / 1000000 }")")
	if grep -q '^ok' <<<"$out"; then
		[ "$new" = "$want" ] || bad+=" change#$n:$new"
	elif grep -q '^error' <<<"$out"; then
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
	if grep -q '^ok' <<<"$out"; then
		[ "$new" = "jobs 100 k 0.002000" ] || bad+=" add#$n:$new"
	elif grep -q '^error' <<<"$out"; then
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
