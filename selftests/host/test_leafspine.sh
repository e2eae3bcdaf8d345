#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_leafspine.sh - the leaf-spine testbed builder (tc-scripts/
# leafspine.sh) on the host kernel: 4 ToRs, 2 spines, 8 hosts with HTB
# links up in under 10 s; a ring AllReduce across the ToRs completes; the
# --imbalance hop runs at rate / ratio; a failed ToR-spine link is routed
# around and the collective still completes, and so after the repair;
# with --routing static host i of every ToR is reached through spine
# i mod 2, a failed link moves those routes to the other spine and its
# repair moves them back; every link's HTB burst is explicit (5 ms at its
# rate, at least 1600 bytes, or --burst), and a run's guard records every
# link's class; bad options exit 2; down leaves no namespace behind, even after a
# failed build.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter
require_built "$BUILD_DIR/ringcoll"

ls=$TOP_DIR/tc-scripts/leafspine.sh
ringrun=$TOP_DIR/tc-scripts/ringrun.sh
prefix=lst$$
tmp=$(mktemp -d /tmp/test_leafspine.XXXXXX)
on_exit rm -rf "$tmp"
on_exit "$ls" down --prefix "$prefix"

ktap_plan 22

t0=$(date +%s%N)
check "4 ToRs, 2 spines, 8 hosts at 100 Mbit/s, one hop 1.13x slower" \
	"$ls" up --prefix "$prefix" --tors 4 --spines 2 --hosts-per-tor 2 \
	--rate 100mbit --imbalance 1:0:1.13
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "... built in under 10 s ($ms ms)" test "$ms" -lt 10000
rate=$(tc -n "$prefix-t1" class show dev u0 | sed -n 's/.* rate \([^ ]*\) .*/\1/p')
check_eq "the imbalanced hop (ToR 1 to spine 0) runs at 100 Mbit/s / 1.13" "88495Kbit" "$rate"
# burst and cburst of a class as tc prints them (a size within 16 bytes
# of a multiple of 1 KiB in Kb)
burst_of() {
	tc -n "$prefix-$1" -d class show dev "$2" |
		sed -n 's/.* burst \([0-9]*K\{0,1\}b\).* cburst \([0-9]*K\{0,1\}b\).*/\1 \2/p'
}
check_eq "every link's HTB burst and cburst is 5 ms at its rate: a host link" \
	"62500b 62500b" "$(burst_of h0 eth0)"
check_eq "... the imbalanced hop at its own rate (55309 bytes)" "54Kb 54Kb" \
	"$(burst_of t1 u0)"

ring="1=$prefix-h0:10.1.0.2,$prefix-h3:10.1.1.3,$prefix-h4:10.1.2.2,$prefix-h7:10.1.3.3"
run() { "$ringrun" --out "$tmp/$1" --job "$ring" -- --size 1m >"$tmp/$1.log" 2>&1; }
check "a ring AllReduce across the four ToRs completes" run base
# tc prints 55309 bytes as 54Kb: the guard reads it as 55296
check_jq "its guard records the classes of all 32 link ends, the slow hop's 54Kb burst in bytes" \
	'.guard.link_classes | ([.[].links] | add) == 32 and
	 ([.[].burst_bytes] | sort) == [55296, 62500]' "$(cat "$tmp/base/result.json")"
check "a failed ToR 1 - spine 0 link is routed around" "$ls" link --prefix "$prefix" 1 0 down
check "the AllReduce completes without it" run failed
check "the repaired link" "$ls" link --prefix "$prefix" 1 0 up
check "... and with it again" run repaired

# the uplink each host of ToRs 1 and 3 is reached by from ToR 0
uplinks() {
	local d
	for d in 10.1.1.2 10.1.1.3 10.1.3.2 10.1.3.3; do
		ip -n "$prefix-t0" -j route get "$d" | jq -r '.[0].dev'
	done | paste -sd' '
}
check "the same with static balanced routing" \
	"$ls" up --prefix "$prefix" --tors 4 --spines 2 --hosts-per-tor 2 \
	--rate 100mbit --routing static --force
check_eq "host i of every ToR is reached through spine i mod 2" \
	"u0 u1 u0 u1" "$(uplinks)"
"$ls" link --prefix "$prefix" 0 0 down
check_eq "a failed ToR 0 - spine 0 link moves them to spine 1" \
	"u1 u1 u1 u1" "$(uplinks)"
check "the AllReduce completes without it" run static_failed
"$ls" link --prefix "$prefix" 0 0 up
check_eq "the repair moves them back" "u0 u1 u0 u1" "$(uplinks)"
check "at 2.5 Mbit/s with --burst 3000" "$ls" up --prefix "$prefix" --tors 2 \
	--spines 1 --hosts-per-tor 1 --rate 2500kbit --burst 3000 --force
check_eq "... every link's burst and cburst are 3000 bytes" "3000b 3000b 3000b 3000b" \
	"$(burst_of h0 eth0) $(burst_of s0 d1)"
r=$("$ls" up --prefix "$prefix" --burst 10 2>&1) && rc=0 || rc=$?
check_eq "a bad --burst exits 2, naming it" \
	"2 leafspine.sh: --burst '10': auto or bytes, 100..99999999" "$rc $(head -1 <<<"$r")"
r=$("$ls" up --prefix "$prefix" --routing random 2>&1) && rc=0 || rc=$?
check_eq "a bad --routing exits 2, naming it" \
	"2 leafspine.sh: --routing 'random': ecmp or static" "$rc $(head -1 <<<"$r")"

r=$("$ls" up --prefix "$prefix" --tors 99 2>&1) && rc=0 || rc=$?
check_eq "a bad option exits 2, naming it" "2 leafspine.sh: --tors '99': wants 1..16" \
	"$rc $(head -1 <<<"$r")"
"$ls" down --prefix "$prefix"
check_eq "down leaves no namespace of the testbed" 0 \
	"$(ip netns list | grep -c "^$prefix-" || true)"

ktap_finished
