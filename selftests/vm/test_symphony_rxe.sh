#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_rxe.sh - RoCE traffic the project did not generate: Linux's
# own Soft-RoCE (rdma_rxe) driven by perftest's ib_write_bw through
# sch_symphony.  ib_write_bw sets no job bits: its packets are job 0,
# untagged, which the qdisc gives RED only.  Checked: the transfers
# complete on both ends; under the qdisc's defaults two ib_write_bw
# processes at once (two queue pairs, one per UDP source port, which the
# qdisc reads as the step) are counted unclassified, with no outpacing
# packets and no Symphony marks (before job 0 was untagged, the queue pair
# with the higher source port ran "ahead" and was throttled); behind an
# HTB bottleneck with low RED thresholds, ib_write_bw with two queue pairs
# gets RED marks and still no Symphony marks, while a tagged rocegen job
# sent alongside through the same queue has its outpacing step, and only
# that, Symphony-marked; and the kernel prints no splat.
#
# rxe opens its UDP socket and routes in the initial namespace only (an
# rxe device cannot move to another one), so both rxe devices live there,
# one on each end of a veth, and policy routing sends the traffic between
# their two local addresses over the veth rather than the loopback.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test --tool rocegen jq rdma ib_write_bw ss timeout

# Addresses, tables and names of this test's own; the VM is private.
addr0=10.233.33.1
addr1=10.233.33.2
addr_tagged=10.233.33.3	# no one's: rxv1 drops the tagged job's packets (no forwarding)
table0=3301
table1=3302
size=1048576		# 1 MiB messages, as issue 33's reproduction
splat=$(. "$TOP_DIR/scripts/lib.sh" && echo "$KERNEL_SPLAT_RE")
dmesg_from=$(dmesg | wc -l)

if [ ! -d /sys/module/rdma_rxe ]; then
	vm_modprobe rdma_rxe 2>/dev/null ||
		ktap_skip_all "the $(uname -r) kernel has no Soft-RoCE (rdma_rxe) module"
	on_exit vm_modprobe -r rdma_rxe
fi

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"

# Saved first, restored last: the VM's other tests share the initial
# namespace.
for key in net.ipv4.conf.all.rp_filter net.ipv4.conf.default.rp_filter \
	   net.ipv4.conf.all.accept_local; do
	on_exit sysctl -qw "$key=$(sysctl -n "$key")"
	sysctl -qw "$key=$([ "${key##*.}" = rp_filter ] && echo 0 || echo 1)"
done

ip link add rxv0 type veth peer name rxv1
on_exit ip link del rxv0
for dev in rxv0 rxv1; do
	sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" \
		"net.ipv4.conf.$dev.rp_filter=0" "net.ipv4.conf.$dev.accept_local=1"
done
ip addr add "$addr0/32" dev rxv0
ip addr add "$addr1/32" dev rxv1
ip link set rxv0 up
ip link set rxv1 up
mac0=$(cat /sys/class/net/rxv0/address)
mac1=$(cat /sys/class/net/rxv1/address)
ip neigh add "$addr1" dev rxv0 lladdr "$mac1" nud permanent
ip neigh add "$addr_tagged" dev rxv0 lladdr "$mac1" nud permanent
ip neigh add "$addr0" dev rxv1 lladdr "$mac0" nud permanent
# What this host sends to the other end's address leaves by the veth: the
# rules come before the local table's, moved from 0 to 1000.
ip route add "$addr1/32" dev rxv0 src "$addr0" table $table0
ip route add "$addr0/32" dev rxv1 src "$addr1" table $table1
ip route add "$addr_tagged/32" dev rxv0 src "$addr0"
on_exit ip rule del pref 100 iif lo to "$addr1" lookup $table0
ip rule add pref 100 iif lo to "$addr1" lookup $table0
on_exit ip rule del pref 100 iif lo to "$addr0" lookup $table1
ip rule add pref 100 iif lo to "$addr0" lookup $table1
on_exit ip rule del pref 1000 lookup local
ip rule add pref 1000 lookup local
on_exit ip rule add pref 0 lookup local
ip rule del pref 0 lookup local

on_exit rdma link del rxe0
rdma link add rxe0 type rxe netdev rxv0 ||
	ktap_skip_all "rdma link add rxe0 type rxe netdev rxv0 failed"
on_exit rdma link del rxe1
rdma link add rxe1 type rxe netdev rxv1 ||
	ktap_skip_all "rdma link add rxe1 type rxe netdev rxv1 failed"

# roce_v2_gid RXE ADDR: the index of RXE's RoCE v2 GID of IPv4 ADDR
# (::ffff:ADDR), as sysfs lists it: ib_write_bw's -x.
roce_v2_gid() {
	local port=/sys/class/infiniband/$1/ports/1 want f gid type a b c d

	IFS=. read -r a b c d <<<"$2"
	printf -v want '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$a" "$b" "$c" "$d"
	for f in "$port"/gids/*; do
		read -r gid < "$f" 2>/dev/null && [ "$gid" = "$want" ] || continue
		read -r type < "$port/gid_attrs/types/${f##*/}" 2>/dev/null || continue
		[ "$type" = "RoCE v2" ] || continue
		echo "${f##*/}"
		return 0
	done
	return 1
}
# The GID table fills from a work queue after the link is added.
wait_until 10000 roce_v2_gid rxe0 "$addr0" >/dev/null
wait_until 10000 roce_v2_gid rxe1 "$addr1" >/dev/null
gid0=$(roce_v2_gid rxe0 "$addr0") && gid1=$(roce_v2_gid rxe1 "$addr1") ||
	ktap_skip_all "rxe0 or rxe1 has no RoCE v2 GID of its IPv4 address"

ktap_plan 10
ktap_print "RoCE v2 GIDs of the IPv4 addresses: rxe0 $gid0, rxe1 $gid1"

# The symphony qdisc's counters (root, or the leaf under HTB).
stats() {
	tc -s -j qdisc show dev rxv0 | jq -c '.[] | select(.kind == "symphony")'
}

# bw_start NAME PORT ARGS...: an ib_write_bw server on rxe1 listening on
# TCP PORT, and its client on rxe0, in the background, both with ARGS
# (tclass 2: ECT(0)); output in $tmp/NAME.{server,client}.
declare -A bw_pid bw_args
listening() { [ -n "$(ss -Hltn "sport = :$1")" ]; }
bw_start() {
	local name=$1 port=$2
	shift 2

	bw_args[$name]="$*"
	timeout 150 ib_write_bw -d rxe1 -x "$gid1" -F --tclass=2 -p "$port" \
		"$@" > "$tmp/$name.server" 2>&1 &
	bw_pid[$name.server]=$!
	on_exit kill "${bw_pid[$name.server]}"
	wait_until 20000 listening "$port"
	timeout 150 ib_write_bw -d rxe0 -x "$gid0" -F --tclass=2 -p "$port" \
		"$@" "$addr1" > "$tmp/$name.client" 2>&1 &
	bw_pid[$name.client]=$!
	on_exit kill "${bw_pid[$name.client]}"
}

# bw_check POINT NAME...: one test point: both ends of each pair NAME
# exited 0 and printed their report line (#bytes #iterations BW peak BW
# average MsgRate), whose average bandwidth is shown.
bw_check() {
	local point=$1 name end rc line errors=()

	shift
	for name in "$@"; do
		for end in server client; do
			wait "${bw_pid[$name.$end]}" && rc=0 || rc=$?
			line=$(awk -v s=$size '$1 == s && NF >= 5 { print; exit }' \
				"$tmp/$name.$end")
			if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
				errors+=("ib_write_bw ${bw_args[$name]} ($name, $end) exited $rc:"
					 "$(grep -v '^-*$' "$tmp/$name.$end" | tail -n 6)")
			else
				ktap_print "ib_write_bw ${bw_args[$name]} ($name, $end):" \
					"$(awk '{ print $4 }' <<<"$line") MB/s average"
			fi
		done
	done
	if [ ${#errors[@]} -eq 0 ]; then
		ktap_pass "$point"
	else
		ktap_fail "$point" "${errors[@]}"
	fi
}

# 1. The qdisc's defaults, two processes at once, 30 x 1 MiB each.
tc qdisc add dev rxv0 root symphony
bw_start a 18515 -s $size -n 30
bw_start b 18516 -s $size -n 30
bw_check "two ib_write_bw processes through symphony's defaults complete" a b
s=$(stats)
ktap_print "defaults: $(jq -c '{packets, bytes, collective_packets, unclassified_packets,
	outpacing_packets, red_marks, symphony_marks}' <<<"$s")"
check_jq "the qdisc dequeued both transfers (60 MiB)" \
	".bytes >= $((2 * 30 * size))" "$s"
check_jq "untagged RoCE is unclassified: no collective, no outpacing packets" \
	'.collective_packets == 0 and .outpacing_packets == 0 and
	 .unclassified_packets == .packets' "$s"
check_jq "untagged RoCE gets no Symphony marks" '.symphony_marks == 0' "$s"
tc qdisc del dev rxv0 root

# 2. A 20 Mbit/s bottleneck (two rxe senders reach about 100 Mbit/s
# under TCG here) with RED from 20 KB to 200 KB of backlog, and k 100, so
# that every packet of an outpacing step past warm-up is Symphony-marked:
# two queue pairs of one process, 10 x 1 MiB each (8 s at the bottleneck's
# rate), and a tagged job alongside.  rxe keeps at most 64 packets of a
# queue pair in flight below it: the queue holds up to 140 KB.
# twin 10s: no window roll inside the tagged job's bursts (see below).
# nonect pass: ib_write_bw's TCP handshake is not ECN-capable, and a drop
# costs a retransmission timeout.  A 0.5 s queue pair timeout (-u 17)
# rather than 67 ms: the queue delays packets by up to 60 ms.
tc qdisc add dev rxv0 root handle 1: htb default 1
tc class add dev rxv0 parent 1: classid 1:1 htb rate 20mbit quantum 1514
tc qdisc add dev rxv0 parent 1:1 handle 10: symphony kmin 20kb kmax 200kb \
	k 100 twin 10s nonect pass
bw_start q2 18517 -s $size -n 10 -q 2 -u 17
rxe_started() { [ "$(json_uint packets "$(stats)")" -gt 1000 ]; }
wait_until 30000 rxe_started
# The tagged job (job 1): 200 packets of step 10, then step 10 and step
# 11 interleaved, 100 each: step 11's packets are outpacing.  Both bursts
# inside one 10 s T_win period: a roll between them would reset psn_rec
# and hold Symphony in warm-up (lib.sh sleep_unless_period_left).
sleep_unless_period_left 10 3
"$rocegen" "$addr_tagged" job=1,step=10,psn=1,count=200 >/dev/null
"$rocegen" "$addr_tagged" job=1,step=10,psn=201,count=100 \
	job=1,step=11,psn=10,count=100 >/dev/null
check "the tagged job went out while ib_write_bw was still sending" \
	kill -0 "${bw_pid[q2.client]}"
bw_check "ib_write_bw with two queue pairs behind the bottleneck completes" q2
s=$(stats)
ktap_print "bottleneck: $(jq -c '{packets, bytes, collective_packets, unclassified_packets,
	outpacing_packets, red_marks, symphony_marks, drops, max_backlog_bytes}' <<<"$s")"
check_jq "RED marks the queue that the rxe traffic builds" '.red_marks > 0' "$s"
check_jq "the tagged job's 400 packets are the only collective ones" \
	'.collective_packets == 400 and .drops == 0' "$s"
check_jq "the tagged job's outpacing step is Symphony-marked, and nothing else" \
	'.outpacing_packets == 100 and .symphony_marks == 100' "$s"

check_eq "the kernel printed no splat" "" \
	"$(dmesg | tail -n +$((dmesg_from + 1)) | grep -E -A 5 "$splat" | head -n 20)"

ktap_finished
