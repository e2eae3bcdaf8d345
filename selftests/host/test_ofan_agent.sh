#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_agent.sh - "symofan ofan" on a small switch made of network
# namespaces: load validates its config and attaches to the downlinks,
# status reports the config and the counters, ofan splits a flow evenly
# over the uplinks, pofan/rr/rps/ecmp deliver everything, port down/up,
# local and unknown destinations take the kernel path, bad configs exit 2
# with FILE:LINE and change nothing, a reload keeps the pointers, unload
# removes the filters and the pins.
#
#	hA --d0--\            /--u0-- upA
#	          switch (sw)
#	hB --d1--/            \--u1-- upB
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc nsenter jq stat
require_hook_bpftool
require_tools symofan rocegen
require_bpffs

pins=/sys/fs/bpf/ofan-test-$$
tmp=$(mktemp -d /tmp/test_ofan_agent.XXXXXX)
on_exit rm -rf "$tmp"

# bad configs below, each the good config plus one line: name, text of
# the error (reported at that last line), the line
bad_cases=(
	"unknown directive|unknown directive 'frobnicate'|frobnicate 1"
	"unknown interface|unknown interface 'nosuchdev0'|uplink 2 dev nosuchdev0 via 10.0.3.2"
	"bad CIDR|bad CIDR '10.9.300.0/24'|prefix 10.9.300.0/24 key 2"
	"CIDR with host bits|bad CIDR '10.9.0.1/24': host bits set|prefix 10.9.0.1/24 key 2"
	"duplicate uplink|duplicate uplink 1 (first on line 7)|uplink 1 dev lo via 10.0.3.2"
	"gap in uplink indexes|uplink 3 without uplink 2|uplink 3 dev lo via 10.0.3.2"
	"key out of range|key 4096 out of range|key 4096"
	"port out of range|key 9: port 2 out of range 0..1|key 9 ports 0,2"
	"undeclared key|prefix 10.77.0.0/16 refers to undeclared key 77|prefix 10.77.0.0/16 key 77"
	"duplicate prefix|duplicate prefix 10.9.0.0/24 (first on line 14)|prefix 10.9.0.0/24 key 3"
	"overlapping prefix|prefix 10.9.0.128/25 overlaps prefix 10.9.0.0/24 (line 14): keys need disjoint prefixes|prefix 10.9.0.128/25 key 3"
	"pipe out of range|pipe '16' out of range|downlink dev lo pipe 16"
	"missing tokens|missing tokens|uplink 2 dev"
	"extra tokens|extra tokens|role edge edge"
	"bad next hop|bad next-hop address '10.0.3'|uplink 2 dev lo via 10.0.3"
	"two next hops of one family|a second IPv4 next hop '10.0.3.3': one per family|uplink 2 dev lo via 10.0.3.2 via 10.0.3.3"
	"prefix against the fast path's key|prefix 10.7.3.0/24 has key 2, the fast path (line 17) gives its destinations key 3|prefix 10.7.3.0/24 key 2"
	"prefix across fast-path keys|prefix 10.7.0.0/20 spans several keys of the fast path (line 17)|prefix 10.7.0.0/20 key 3"
	"prefix around the fast path's net|prefix 10.0.0.0/8 contains the fast path's net (line 17)|prefix 10.0.0.0/8 key 2"
	"IPv6 prefix behind IPv4-only uplinks|prefix fd00:3::/64 of key 3: none of the key's uplinks has an IPv6 next hop|prefix fd00:3::/64 key 3"
	"bad rate|bad rate '10gbps' (bit/s: a number with bit, kbit, mbit or gbit)|uplink 2 dev lo via 10.0.3.2 rate 10gbps"
	"rate out of range|rate '5kbit' out of range 10kbit..1600gbit|uplink 2 dev lo rate 5kbit via 10.0.3.2"
	"two rates|a second rate '2gbit': one per uplink|uplink 2 dev lo via 10.0.3.2 rate 1gbit rate 2gbit"
	"unknown uplink word|unknown word 'speed'|uplink 2 dev lo via 10.0.3.2 speed 1gbit"
	"bad ar-buffer|bad buffer size '800KB!'|ar-buffer 800KB!"
	"ar-buffer too small|bad buffer size '999'|ar-buffer 999"
)
ktap_plan $((38 + ${#bad_cases[@]}))

netns_create sw hA hB upA upB
veth_pair "$hA" eth0 10.1.1.2/24 "$sw" d0 10.1.1.1/24
veth_pair "$hB" eth0 10.1.2.2/24 "$sw" d1 10.1.2.1/24
veth_pair "$sw" u0 10.0.1.1/24 "$upA" eth0 10.0.1.2/24
veth_pair "$sw" u1 10.0.2.1/24 "$upB" eth0 10.0.2.2/24
ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
ip -n "$hA" route add default via 10.1.1.1
ip -n "$hB" route add default via 10.1.2.1
for net in 10.9.0.0/16 10.7.0.0/16; do
	ip -n "$sw" route add "$net" nexthop via 10.0.1.2 dev u0 \
		nexthop via 10.0.2.2 dev u1
done
ip -n "$sw" route add 10.8.0.0/16 via 10.0.1.2 dev u0
# a local destination below the switch that hB receives but does not own
ip -n "$sw" neigh replace 10.1.2.9 dev d1 lladdr \
	"$(ip -n "$hB" -br link show eth0 | awk '{ print $3 }')"
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" --force

conf=$tmp/ofan.conf
cat > "$conf" <<EOF
# test switch: two uplinks, two downlinks
role edge
mode ofan
pin-dir $pins
seed 7
uplink 0 dev u0 via 10.0.1.2 via fd00:1::2
uplink 1 dev u1 via 10.0.2.2   # second uplink, IPv4 only
downlink dev d0
downlink dev d1 pipe 1
key 1 local
key 2 ports all
key 3 ports 1
prefix 10.1.0.0/16 key 1
prefix 10.9.0.0/24 key 2
prefix 10.9.1.0/24 key 3
prefix fd00:9::/64 key 2
fast 10.7.0.0/16 shift 8 mask 0xf
EOF

sym() { in_ns "$sw" "$symofan" ofan "$@"; }
status() { sym status --pin-dir "$pins" --json; }
rx() { ip -n "$1" -j -s link show dev "$2" | jq '.[0].stats64.rx.packets'; }
# send COUNT [ROCEGEN OPTIONS] DEST from hA
send() {
	local count=$1
	shift
	ip netns exec "$hA" "$rocegen" "$@" "job=1,step=1,count=$count" >/dev/null
}
# the per-port packets of a status, "P0 P1"
ports_of() { jq -r '"\(.ports[0].packets) \(.ports[1].packets)"' <<<"$1"; }
uppers() { echo "$(rx "$upA" eth0) $(rx "$upB" eth0)"; }
# wait until the upper namespaces received TOTAL packets since BEFORE
wait_uppers() {
	local before=$1 total=$2 i now
	for i in $(seq 50); do
		now=$(uppers)
		[ $(( ${now% *} + ${now#* } - ${before% *} - ${before#* } )) -ge "$total" ] &&
			return 0
		sleep 0.05
	done
}
# delta "A B" "C D" -> "C-A D-B"
delta() {
	local a=($1) b=($2)
	echo "$((b[0] - a[0])) $((b[1] - a[1]))"
}

check "load succeeds and prints a summary" sh -c \
	"nsenter --net=/run/netns/$sw $symofan ofan load $conf | grep -q 'loaded from'"
check_eq "pin folder 0700, pins 0600" "700 600 600 600" \
	"$(stat -c %a "$pins" "$pins/ofan_config" "$pins/ofan_ingress" "$pins/symofan_state" 2>&1 | xargs)"
check "ofan_ingress on the ingress of both downlinks" \
	test -n "$(prog_hook "$sw" d0 ingress ofan_ingress)" -a \
	     -n "$(prog_hook "$sw" d1 ingress ofan_ingress)"

st=$(status)
check_jq "status shows mode, w, keys, pipes and the fast path" \
	'.mode == "ofan" and .w == 2 and .nr_keys == 4 and .nr_pipes == 2 and
	 .role == "edge" and .ack_max_bytes == 128 and .fast.enabled and
	 .fast.net == "10.7.0.0/16" and .fast.shift == 8 and .fast.mask == 15' "$st"
check_jq "status shows the ports with next hops, up" \
	'[.ports[] | "\(.index) \(.ifname) \(.nexthops | join(",")) \(.up)"] ==
	 ["0 u0 10.0.1.2,fd00:1::2 true", "1 u1 10.0.2.2 true"]' "$st"
check_jq "status shows the keys: 1 local, 2 all ports, 3 port 1" \
	'[.keys[] | "\(.key) \(.local) \(.valid_ports) \(.level)"] ==
	 ["1 true [] 0", "2 false [0,1] 0", "3 false [1] 0"]' "$st"
check_jq "pointers start in [0, w), ACK = data + w/2, per pipe" \
	'[.keys[].pointers[] | select(.data < 2 and .ack == .data + 1)] | length == 6' "$st"
check_jq "status lists the downlinks with their pipes" \
	'[.downlinks[] | "\(.ifname) \(.pipe)"] == ["d0 0", "d1 1"]' "$st"

# ofan: 100 data packets and 100 ACK-class packets of one destination
before=$(uppers)
send 100 --payload 1000 10.9.0.5
send 100 10.9.0.5
wait_uppers "$before" 200
st2=$(status)
check_eq "ofan splits 200 packets 100/100 over the uplinks" "100 100" \
	"$(ports_of "$st2")"
check_eq "the upper namespaces received 100/100" "100 100" \
	"$(delta "$before" "$(uppers)")"
check_jq "key 2 counted 100 data and 100 ACK packets" \
	'(.keys[] | select(.key == 2) | .packets) == {"data":100,"ack":100}
	 and .packets.forwarded == 200' "$st2"

# key 3 may use port 1 only, by prefix and by the fast path (10.7.3.x)
before=$(uppers)
send 20 10.9.1.5
send 20 10.7.3.9
wait_uppers "$before" 40
check_eq "key 3 (ports 1) goes via uplink 1 only, LPM and fast path" \
	"0 40" "$(delta "$before" "$(uppers)")"

# send_in_mode MODE: set MODE, send 100 packets to 10.9.0.5; sets up_d
# (the uplinks' counts, "u0 u1") and sent ("UPLINKS PROGRAM MODE": what
# the uplinks and the program's port counters took, and the mode status
# reports)
send_in_mode() {
	local before p_before p_d

	before=$(uppers)
	p_before=$(ports_of "$(status)")
	sym set-mode "$1" --pin-dir "$pins" >/dev/null
	send 100 --payload 1000 10.9.0.5
	wait_uppers "$before" 100
	up_d=$(delta "$before" "$(uppers)")
	p_d=$(delta "$p_before" "$(ports_of "$(status)")")
	sent="$(( ${up_d% *} + ${up_d#* } )) $(( ${p_d% *} + ${p_d#* } )) $(status | jq -r .mode)"
}

for mode in pofan rr rps ecmp; do
	send_in_mode "$mode"
	check_eq "mode $mode delivers all 100 packets via the program" \
		"100 100 $mode" "$sent"
done

# ar and jsq drain each uplink's phantom backlog at its rate: refused
# without rates, at load and at set-mode; a reload gives them
sed 's/^mode ofan/mode ar/' "$conf" > "$tmp/norate.conf"
out=$(in_ns "$sw" "$symofan" ofan load "$tmp/norate.conf" 2>&1); rc=$?
check_eq "mode ar without uplink rates: exit 2 at the uplink's line" "2 yes" \
	"$rc $(grep -qF "$tmp/norate.conf:6: uplink 0 has no rate: mode ar (line 3) needs one on every uplink" <<<"$out" && echo yes)"
out=$(sym set-mode ar --pin-dir "$pins" 2>&1); rc=$?
check_eq "set-mode ar without uplink rates: exit 2, the mode unchanged" \
	"2 yes ecmp" "$rc $(grep -q 'uplink 0 has none' <<<"$out" && echo yes) $(status | jq -r .mode)"
sed -e 's/^\(uplink 0 .*\)$/\1 rate 100gbit/' -e 's/^uplink 1 dev u1 via 10.0.2.2 /uplink 1 dev u1 rate 10kbit via 10.0.2.2 /' \
	-e 's/^seed 7/seed 7\nar-buffer 64kb/' "$conf" > "$tmp/rate.conf"
in_ns "$sw" "$symofan" ofan load "$tmp/rate.conf" >/dev/null
st=$(status)
check_eq "rates and ar-buffer reach the maps and status" \
	"100000000000 10000 65536" \
	"$(jq -r '"\(.ports[0].rate_bps) \(.ports[1].rate_bps) \(.ar_buffer_bytes)"' <<<"$st")"
# uplink 0 at 100 Gbit/s drains a frame in 85 ns, faster than rocegen
# sends, uplink 1 at 10 kbit/s in 0.85 s: once a few frames (ar: class 0
# is below 5% of 64 KiB, 4 frames) sit in uplink 1's phantom backlog, the
# rest go via uplink 0
for mode in ar jsq; do
	send_in_mode "$mode"
	check_eq "mode $mode delivers all 100 packets via the program, at most 10 via the slow uplink" \
		"100 100 $mode yes" "$sent $([ "${up_d#* }" -le 10 ] && echo yes)"
	echo "# mode $mode: uplinks 0 and 1 took $up_d"
done
check "status shows uplink 1's phantom backlog" sh -c \
	"[ \$(nsenter --net=/run/netns/$sw $symofan ofan status --pin-dir $pins --json | jq '.ports[1].phantom_backlog_bytes') -gt 0 ]"
in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null
sym set-mode ofan --pin-dir "$pins" >/dev/null

sym port 1 down --pin-dir "$pins" >/dev/null
before=$(uppers)
send 100 --payload 1000 10.9.0.5
wait_uppers "$before" 100
check_eq "port 1 down: all 100 via uplink 0, status says down" "100 0 false" \
	"$(delta "$before" "$(uppers)") $(status | jq .ports[1].up)"
sym port 1 up --pin-dir "$pins" >/dev/null

before_local=$(status | jq .packets.local)
before_fwd=$(status | jq .packets.forwarded)
hb=$(rx "$hB" eth0)
send 20 10.1.2.9
for i in $(seq 50); do [ "$(rx "$hB" eth0)" -ge $((hb + 20)) ] && break; sleep 0.05; done
st=$(status)
check_eq "a local key stays on the kernel path (counter local)" "20 0 20" \
	"$(( $(jq .packets.local <<<"$st") - before_local )) $(( $(jq .packets.forwarded <<<"$st") - before_fwd )) $(( $(rx "$hB" eth0) - hb ))"

before=$(uppers)
p_before=$(ports_of "$st")
send 20 10.8.0.5
wait_uppers "$before" 20
st=$(status)
check_eq "an unknown destination is counted and routed by the kernel" \
	"20 20 0 0 0" \
	"$(jq .packets.unknown_dst <<<"$st") $(delta "$before" "$(uppers)") $(delta "$p_before" "$(ports_of "$st")")"

# bad configs: exit 2, FILE:LINE: reason, nothing changed
line=$(( $(wc -l < "$conf") + 1 ))
st_before=$(status)
for c in "${bad_cases[@]}"; do
	IFS='|' read -r name reason directive <<<"$c"
	bad=$tmp/bad.conf
	{ cat "$conf"; echo "$directive"; } > "$bad"
	out=$(in_ns "$sw" "$symofan" ofan load "$bad" 2>&1); rc=$?
	if [ "$rc" -eq 2 ] && grep -qF "$bad:$line: $reason" <<<"$out"; then
		ktap_pass "bad config ($name): exit 2, FILE:$line: reason"
	else
		ktap_fail "bad config ($name): exit 2, FILE:$line: reason" \
			"exit $rc, wanted '$bad:$line: $reason' in:" "$out"
	fi
done
{ cat "$conf"; printf 'key 9\0 prefix 10.9.9.0/24\n'; } > "$tmp/nul.conf"
out=$(in_ns "$sw" "$symofan" ofan load "$tmp/nul.conf" 2>&1); rc=$?
check_eq "a NUL byte in a line: exit 2, FILE:LINE names it" "2 yes" \
	"$rc $(grep -qF "nul.conf:$line: a NUL byte in the line" <<<"$out" && echo yes)"
check_eq "bad configs left status and pointers untouched" "$st_before" "$(status)"
{ cat "$conf"; echo "prefix 10.77.0.0/16 key 77"; echo "frobnicate"; } > "$tmp/two.conf"
out=$(in_ns "$sw" "$symofan" ofan load "$tmp/two.conf" 2>&1)
check_eq "errors come in line order, whole-file checks among the others" \
	"two.conf:$line: prefix 10.77.0.0/16 refers to undeclared key 77|two.conf:$((line + 1)): unknown directive 'frobnicate'" \
	"$(sed "s|^$tmp/||" <<<"$out" | paste -sd '|')"
printf 'role edge\npin-dir %s\n' "$pins" > "$tmp/empty.conf"
out=$(in_ns "$sw" "$symofan" ofan load "$tmp/empty.conf" 2>&1); rc=$?
check_eq "missing uplinks and downlinks: exit 2, at the last line" "2 yes" \
	"$rc $(grep -q "empty.conf:2: no 'uplink'" <<<"$out" &&
	      grep -q "empty.conf:2: no 'downlink'" <<<"$out" && echo yes)"

# reload with a new key: old pointers and counters kept, new ones random
ptrs() { jq -c "[.keys[] | select(.key != $1) | .pointers]" <<<"$2"; }
st_before=$(status)
{ cat "$conf"; echo "key 4"; echo "prefix 10.9.2.0/24 key 4"; } > "$tmp/more.conf"
check "reload with one more key succeeds" sh -c \
	"nsenter --net=/run/netns/$sw $symofan ofan load $tmp/more.conf | grep -q 'reloaded from.*4 new pointers'"
st=$(status)
check_eq "the reload kept the pointers of the existing keys" \
	"$(ptrs 4 "$st_before")" "$(ptrs 4 "$st")"
check_jq "the new key's pointers start in [0, w), ACK = data + 1; counters kept" \
	"([.keys[] | select(.key == 4) | .pointers[] | select(.data < 2 and .ack == .data + 1)]
	  | length == 2) and .packets.forwarded == $(jq .packets.forwarded <<<"$st_before")" "$st"

# a reload that replaces a nearly full prefix table: 16380 /32s by 16380
# others (with the config's own, 16383 of 16384 IPv4 entries)
many() {	# many SECOND_OCTET: 16380 host prefixes of key 2
	awk -v o="$1" 'BEGIN { for (i = 0; i < 16380; i++)
		printf "prefix 10.%d.%d.%d/32 key 2\n", o, int(i / 256), i % 256 }'
}
{ cat "$conf"; many 200; } > "$tmp/many_a.conf"
{ cat "$conf"; many 201; } > "$tmp/many_b.conf"
in_ns "$sw" "$symofan" ofan load "$tmp/many_a.conf" >/dev/null
out=$(in_ns "$sw" "$symofan" ofan load "$tmp/many_b.conf" 2>&1); rc=$?
lpm() {	# lpm A B C D: the key of 10.A.B.C/32... in ofan_dst4's set in use, or "none"
	local key set
	set=$(bpftool -j map lookup pinned "$pins/ofan_active" key 0 0 0 0 |
		jq '.formatted.value.set % 2')
	key=$(bpftool -j map lookup pinned "$pins/ofan_dst4" key 32 0 0 0 "$@" \
		2>/dev/null | jq -r ".formatted.value.key[$set] // empty" 2>/dev/null)
	[ "$key" = 4294967295 ] && key=
	echo "${key:-none}"
}
check_eq "16380 prefixes replaced by 16380 others: the reload succeeds, whole" \
	"0 2 none" "$rc $(lpm 10 201 63 251) $(lpm 10 200 63 251)"
[ "$rc" -eq 0 ] || echo "$out" | head -n 5 | sed 's/^/# /'
in_ns "$sw" "$symofan" ofan load "$conf" >/dev/null

grep -v 'downlink dev d1' "$conf" > "$tmp/one.conf"
in_ns "$sw" "$symofan" ofan load "$tmp/one.conf" >/dev/null
check "a reload without d1 detaches from d1 only" \
	test -n "$(prog_hook "$sw" d0 ingress ofan_ingress)" -a \
	     -z "$(prog_hook "$sw" d1 ingress ofan_ingress)"

out=$(sym set-mode fast --pin-dir "$pins" 2>&1); rc=$?
check_eq "an unknown mode exits 2" "2" "$rc"
out=$(sym port 2 up --pin-dir "$pins" 2>&1); rc=$?
check_eq "a port beyond w exits 2" "2 yes" \
	"$rc $(grep -q 'no uplink 2' <<<"$out" && echo yes)"

in_ns "$sw" "$symofan" ofan unload --pin-dir "$pins" >/dev/null; rc=$?
check_eq "unload detaches from both downlinks and removes the pins" "0 [] [] no" \
	"$rc [$(prog_hook "$sw" d0 ingress ofan_ingress)] [$(prog_hook "$sw" d1 ingress ofan_ingress)] $([ -e "$pins" ] && echo yes || echo no)"
out=$(sym status --pin-dir "$pins" 2>&1); rc=$?
check_eq "status after unload: exit 1, nothing loaded" "1 yes" \
	"$rc $(grep -q 'nothing loaded' <<<"$out" && echo yes)"

ktap_finished
