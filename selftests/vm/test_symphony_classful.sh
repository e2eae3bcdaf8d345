#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_classful.sh - symphony as the leaf of every classful parent
# that peeks or keeps classes active by their child's qlen (TBF, DRR, QFQ,
# HFSC, ETS, HTB).  Regression tests of two review findings:
#  - a change that trims the queue while a parent has peeked its head
#    (the packet waits in gso_skb, outside the list) must take that packet
#    too, not dereference an empty list;
#  - RED's drops of non-ECT packets must reach the parents: after a burst
#    the parent's and the leaf's qlen and backlog agree, and deleting the
#    class under traffic leaves no class active (no splat, no stall).
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool rocegen jq

parents="drr qfq hfsc ets htb"
ktap_plan $(( 3 + 4 * $(wc -w <<<"$parents") ))

netns_create a b
veth_pair "$a" va 10.249.0.1/24 "$b" vb 10.249.0.2/24
qdiscs() { tc -n "$a" -j -s qdisc show dev va; }

# 1. TBF peeks its child's head and keeps it while it waits for tokens:
# at 100 bit/s the second packet waits about 90 s, so that a loaded debug
# kernel cannot release it before the change (at 1kbit, 9 s once did).
# (Slower rates shrink the 1600-byte burst: tc's buffer is in ticks.)
tc -n "$a" qdisc add dev va root handle 1: tbf rate 100bit burst 1600 limit 100000
tc -n "$a" qdisc add dev va parent 1:1 handle 10: symphony
ip netns exec "$a" "$rocegen" --payload 1300 10.249.0.2 job=1,step=1,count=2 >/dev/null
q=$(qdiscs)
ktap_print "before the change: $(jq -c '[.[] | {kind, qlen, backlog}]' <<<"$q")"
check_jq "TBF holds one packet of the leaf, peeked while it waits for tokens" \
	'.[] | select(.kind == "symphony") | .qlen == 1' "$q"
check "limit_bytes below the peeked packet's size: the change trims it" \
	tc -n "$a" qdisc change dev va parent 1:1 handle 10: symphony limit_bytes 1000
q=$(qdiscs)
check_jq "leaf and TBF both empty, the packet counted as a limit drop" \
	'(.[] | select(.kind == "symphony") | .qlen == 0 and .backlog == 0 and .limit_drops == 1)
	 and (.[] | select(.kind == "tbf") | .qlen == 0)' "$q"
tc -n "$a" qdisc del dev va root

# 2. RED drops under each classful parent.
add_parent() {
	case "$1" in
	drr)
		tc -n "$a" qdisc add dev va root handle 1: drr
		tc -n "$a" class add dev va parent 1: classid 1:1 drr ;;
	qfq)
		tc -n "$a" qdisc add dev va root handle 1: qfq
		tc -n "$a" class add dev va parent 1: classid 1:1 qfq weight 1 maxpkt 2000 ;;
	hfsc)
		tc -n "$a" qdisc add dev va root handle 1: hfsc
		tc -n "$a" class add dev va parent 1: classid 1:1 hfsc sc rate 20mbit ul rate 20mbit ;;
	ets)
		tc -n "$a" qdisc add dev va root handle 1: ets bands 2 quanta 1500 1500 priomap 1
		return 0 ;;
	htb)
		tc -n "$a" qdisc add dev va root handle 1: htb
		tc -n "$a" class add dev va parent 1: classid 1:1 htb rate 20mbit burst 4k ;;
	esac
	tc -n "$a" filter add dev va parent 1: prio 1 matchall classid 1:1
}

# The leaf's class: ETS's bands are classes 1:1 and 1:2, priomap 1 sends
# everything to the second band.
leaf_class() { [ "$1" = ets ] && echo 1:2 || echo 1:1; }

for parent in $parents; do
	add_parent "$parent"
	cls=$(leaf_class "$parent")
	# RED on every packet (kmax 1 byte): non-ECT packets are dropped,
	# ECT ones marked; a mix of both, as fast as the senders go.
	tc -n "$a" qdisc add dev va parent "$cls" handle 10: symphony \
		kmin 0 kmax 1 pmax 1 nonect drop
	ip netns exec "$a" "$rocegen" --ecn 0 --payload 1000 10.249.0.2 \
		job=1,step=1,count=400 job=1,step=2,count=400 >/dev/null &
	ip netns exec "$a" "$rocegen" --payload 1000 10.249.0.2 \
		job=2,step=1,count=400 >/dev/null
	wait
	sleep 0.5
	q=$(qdiscs)
	leaf=$(jq -c '.[] | select(.kind == "symphony")' <<<"$q")
	root=$(jq -c '.[] | select(.handle == "1:")' <<<"$q")
	ktap_print "$parent: parent $(jq -c '{qlen, backlog, drops}' <<<"$root"), leaf $(jq -c '{qlen, backlog, drops, red_drops, red_marks}' <<<"$leaf")"
	check_jq "$parent: RED dropped non-ECT packets of the leaf" \
		'.red_drops > 0 and .red_marks > 0' "$leaf"
	check_eq "$parent: parent and leaf agree on qlen and backlog after the drops" \
		"$(jq -c '[.qlen, .backlog]' <<<"$leaf")" "$(jq -c '[.qlen, .backlog]' <<<"$root")"

	# The class deleted (ETS: the band count lowered) while traffic flows;
	# the sender stopped 0.3 s later, however far it got.
	ip netns exec "$a" "$rocegen" --ecn 0 --payload 1000 --pps 20000 10.249.0.2 \
		job=3,step=1,count=1000000 >/dev/null &
	sender=$!
	sleep 0.3
	if [ "$parent" = ets ]; then
		check "$parent: the leaf's band goes under traffic" \
			tc -n "$a" qdisc change dev va root handle 1: ets bands 1 quanta 1500 priomap 0
	else
		tc -n "$a" filter del dev va parent 1: prio 1
		check "$parent: the leaf's class is deleted under traffic" \
			tc -n "$a" class del dev va classid "$cls"
	fi
	sleep 0.3
	kill "$sender"
	wait "$sender" 2>/dev/null
	sleep 0.3
	check_jq "$parent: the parent is left with no packets" \
		'.[] | select(.handle == "1:") | .qlen == 0 and .backlog == 0' "$(qdiscs)"
	tc -n "$a" qdisc del dev va root
done

ktap_finished
