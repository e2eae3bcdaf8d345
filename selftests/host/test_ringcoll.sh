#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ringcoll.sh - the ring-collective emulator
# (userspace/workload/ringcoll/) and its launcher (tc-scripts/ringrun.sh) on
# four hosts around a router, over veth with HTB-limited links: a 4-rank
# ring AllReduce completes in 2(N-1) steps with the right data volume and a
# CCT near the line rate's; AllGather and ReduceScatter take N-1 steps; two
# jobs on two channels for two iterations; steps on two queue pairs per
# channel (--step-qps), each starting as a new flow (--step-flows); 2D rings
# on a grid; UEC framing; loss from a congested port is recovered by
# go-back-N; a lost last ACK is resent while its receiver waits for
# the sender's close notice (or its time-wait); a dead rank makes the others fail with a timeout error; bad
# arguments exit 2, a busy port and missing privileges exit 1.  The DCQCN
# profiles (--cc mlx5, hpcc, legacy) and their overrides reach each rank's
# JSON; --flows astra (a queue pair per step) and nccl (one per channel)
# complete, on a grid and under loss too, and a capture of h0's packets at
# h1 (selftests/tools/roce_capture.py) shows their PSNs starting at 0 in
# each message (legacy's running on), and astra's queue pair per step.
#
#	h0 --\            /-- h2
#	      router (rt)
#	h1 --/            \-- h3		links 100 Mbit/s (HTB)
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq setpriv python3
require_tools ringcoll hostload

ringrun=$TOP_DIR/tc-scripts/ringrun.sh
tmp=$(mktemp -d /tmp/test_ringcoll.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 48

netns_create rt h0 h1 h2 h3
ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1
hosts=("$h0" "$h1" "$h2" "$h3")
shape() {	# shape NS DEV RATE: an HTB root with one class at RATE
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 1 r2q 100
	tc -n "$1" class add dev "$2" parent 1: classid 1:1 htb rate "$3"
}
for i in 0 1 2 3; do
	veth_pair "${hosts[i]}" eth0 "10.60.$i.2/24" "$rt" "p$i" "10.60.$i.1/24"
	ip -n "${hosts[i]}" route add default via "10.60.$i.1"
	# the hosts reach each other through rt: its neighbours must be known
	ip netns exec "$rt" ping -c 1 -W 1 "10.60.$i.2" >/dev/null
	shape "${hosts[i]}" eth0 100mbit
	shape "$rt" "p$i" 100mbit
done
ring=1=$h0:10.60.0.2,$h1:10.60.1.2,$h2:10.60.2.2,$h3:10.60.3.2
# ringrun_timed OUT FILTER [ringrun args...]: a run whose timing checks
# (FILTER on result.json) fail while its guard (tc-scripts/guard.jq) found
# it untrustworthy, a sender far behind its pace on this 2-core machine,
# gets up to two more runs; the checks below judge the last, and skip a
# timing bound the guard cannot vouch for (check_timing_jq).  A run the
# guard trusts is judged at once: a real fault fails it.  Each run's
# first lines are printed.
ringrun_timed() {
	local out=$1 filter=$2 rc try
	shift 2
	for try in 1 2 3; do
		"$ringrun" --out "$out" "$@" >"$out.log" 2>&1 && rc=0 || rc=$?
		if [ "$rc" -ne 0 ] ||
		   jq -e "$filter" "$out/result.json" >/dev/null 2>&1 ||
		   [ "$(jq -r .guard.verdict "$out/result.json")" = trustworthy ]; then
			return "$rc"
		fi
		[ "$try" -lt 3 ] || break
		ktap_print "off its timing, and the guard says untrustworthy (run $try), run again: $(head -2 "$out.log" | tr '\n' ' ')"
		rm -rf "$out"
	done
	return "$rc"
}
rev=2=$h3:10.60.3.2,$h2:10.60.2.2,$h1:10.60.1.2,$h0:10.60.0.2

# captured NAME RINGRUN_ARGS...: a ringrun.sh run into $tmp/NAME while h1
# records the BTH of every data packet h0 sends it ($tmp/NAME.cap, a JSON
# object a line); the run's exit status
captured() {
	local name=$1 cap i rc
	shift
	rm -f "$tmp/$name.ready"
	ip netns exec "$h1" python3 "$SELFTESTS_DIR/tools/roce_capture.py" eth0 \
		"$tmp/$name.cap" --src 10.60.0.2 --ready "$tmp/$name.ready" &
	cap=$!
	for i in $(seq 50); do
		[ -e "$tmp/$name.ready" ] && break
		sleep 0.1
	done
	"$ringrun" --out "$tmp/$name" "$@" >"$tmp/$name.log" 2>&1 && rc=0 || rc=$?
	kill -TERM "$cap" 2>/dev/null
	wait "$cap"
	return "$rc"
}
# cap_summary NAME: what the capture of run NAME shows: the PSNs of
# WRITE FIRST and WRITE LAST packets, the DestQPs, how many steps (UDP
# source ports) each carried, and whether a packet came after one of a
# later step (a resend gone back across a message boundary)
cap_summary() {
	jq -s -c '{packets: length,
		   first_psns: ([.[] | select(.op == 6) | .psn] | unique),
		   last_psns: ([.[] | select(.op == 8) | .psn] | unique),
		   qps: ([.[].qp] | unique),
		   steps_per_qp: ([group_by(.qp)[] | [.[].sport] | unique | length] | unique),
		   back: ([.[].sport] as $s | any(range(1; $s | length); $s[.] < $s[. - 1]))}' \
		"$tmp/$1.cap" 2>/dev/null
}

# AllReduce of 2 MiB: 6 steps of 512 KiB = 512 packets of 1024 bytes;
# 6 * 512 frames of 1086 bytes at 100 Mbit/s take 266.9 ms
on_time_ar='.jobs[0].cct_ms.median >= 266 and .jobs[0].cct_ms.median <= 400'
ringrun_timed "$tmp/ar" "$on_time_ar" \
	--job "$ring" -- --size 2m && rc=0 || rc=$?
ktap_print "$(head -1 "$tmp/ar.log")"
check_eq "a 4-rank ring AllReduce completes" 0 "$rc"
check_jq "2(N-1) = 6 steps, each rank sends 6 x 512 packets of 1036 UDP bytes (+ resends)" \
	'.run.steps == 6 and (.jobs[0].iterations[0].steps | length) == 6 and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 3072 and
	 .counters.bytes_sent == .counters.packets_sent * 1036 and
	 .jobs[0].iterations[0].complete' "$(cat "$tmp/ar/result.json")"
check_timing_jq "its CCT is no less than the 266.9 ms the line rate allows, and near it (< 1.5x)" \
	"$on_time_ar" \
	"$(cat "$tmp/ar/result.json")"
check_jq "step k+1 starts only after step k arrived: at most 2 steps overlap" \
	'.jobs[0].iterations[0] | .max_step_overlap == 2 and
	 ([.steps[1:][] | .start_ns] | min) >= ([.steps[0] | .start_ns] | min)' \
	"$(cat "$tmp/ar/result.json")"
check_jq "each rank reports the DCQCN profile, mlx5 by default, at 100 Mbit/s, and legacy flows" \
	'.flows == "legacy" and (.dcqcn | .profile == "mlx5" and .f == 1 and
	 .alpha_interval_ns == 1000 and .rate_interval_ns == 300000 and
	 .decrease_interval_ns == 4000 and .cnp_interval_ns == 4000 and
	 .clamp == "timer" and .byte_counter_bytes == 20970 and .rai_bps == 50000 and
	 .rhai_bps == 500000 and .min_rate_bps == 10000)' "$(cat "$tmp/ar/$h0.json")"
check_jq "every rank records each step's start and arrival" \
	'[.jobs[0].iterations[0].steps[] | select(.start_ns > 0 and .end_ns > .start_ns)] | length == 6' \
	"$(jq '.' "$tmp/ar/$h2.json")"

# the other profiles, and each --dcqcn-* option over one
"$ringrun" --out "$tmp/cclegacy" --job "$ring" -- --size 64k --cc legacy >/dev/null 2>&1
check_jq "--cc legacy: the project's old constants (F 4, a clamp on every cut, a CNP per 50 us)" \
	'.dcqcn == {profile: "legacy", g_q16: 256, alpha_interval_ns: 55000,
		    rate_interval_ns: 300000, byte_counter_bytes: 25000, f: 4,
		    rai_bps: 100000, rhai_bps: 1000000, min_rate_bps: 100000,
		    decrease_interval_ns: 0, cnp_interval_ns: 50000, clamp: "always",
		    hai_grows: true, alpha_decays_at_rest: false}' \
	"$(cat "$tmp/cclegacy/$h2.json" 2>/dev/null)"
"$ringrun" --out "$tmp/cchpcc" --job "$ring" -- --size 64k --cc hpcc --dcqcn-clamp never \
	--dcqcn-f 0 --dcqcn-decrease-us 0 --dcqcn-bytes 64k --cnp-interval 20 >/dev/null 2>&1 &&
	rc=0 || rc=$?
check_jq "--cc hpcc with --dcqcn-clamp never, -f 0, -decrease-us 0, -bytes 64k, --cnp-interval 20: each overrides its field" \
	"$rc == 0"' and (.dcqcn | .profile == "hpcc" and .clamp == "never" and
	 .f == 0 and .decrease_interval_ns == 0 and .byte_counter_bytes == 65536 and
	 .cnp_interval_ns == 20000 and .alpha_interval_ns == 1000)' \
	"$(cat "$tmp/cchpcc/$h3.json" 2>/dev/null)"

for coll in allgather reducescatter; do
	"$ringrun" --out "$tmp/$coll" --job "$ring" -- --size 1m --collective "$coll" >/dev/null 2>&1
	check_jq "$coll takes N-1 = 3 steps" \
		'.run.steps == 3 and .counters.packets_sent - .counters.retransmitted_packets == 4 * 3 * 256 and .jobs[0].iterations[0].complete' \
		"$(cat "$tmp/$coll/result.json")"
done

on_time_two='[.jobs[].iterations[].cct_ms | select(. >= 266 and . <= 400)] | length == 4'
ringrun_timed "$tmp/two" "$on_time_two" \
	--job "$ring" --job "$rev" -- --size 1m --channels 2 --iterations 2 && rc=0 || rc=$?
ktap_print "$(head -2 "$tmp/two.log" | tr '\n' ' ')"
check_jq "two jobs (opposite rings), two channels, two iterations complete" \
	'[.jobs[].iterations[].complete] == [true, true, true, true] and
	 .counters.packets_sent - .counters.retransmitted_packets == 2 * 2 * 6 * 2 * 128 * 4' "$(cat "$tmp/two/result.json")"
check_timing_jq "sharing each host's line, no iteration beats twice a lone job's 133.4 ms (< 1.5x)" \
	"$on_time_two" \
	"$(cat "$tmp/two/result.json")"

# --step-qps 2: steps 0, 2, 4 on one queue pair, 1, 3, 5 on the other, so
# a rank's step k+1 sends alongside the rest of its step k; the receiver
# must map each queue pair's messages back to their steps, or the ring
# stalls (step k+1 waits for step k)
on_time_sq='[.jobs[0].iterations[].cct_ms | select(. >= 266 and . <= 400)] | length == 2'
ringrun_timed "$tmp/sq" "$on_time_sq" \
	--job "$ring" -- --size 2m --step-qps 2 --iterations 2 && rc=0 || rc=$?
ktap_print "$(head -1 "$tmp/sq.log")"
check_jq "--step-qps 2: both iterations complete, every step recorded, each packet sent once (+ resends)" \
	'[.jobs[0].iterations[].complete] == [true, true] and
	 .counters.packets_sent - .counters.retransmitted_packets == 2 * 4 * 3072' \
	"$(cat "$tmp/sq/result.json")"
check_jq "... each rank records all 6 steps of both iterations, and reports step_qps 2" \
	'.step_qps == 2 and
	 ([.jobs[0].iterations[].steps[] | select(.start_ns > 0 and .end_ns > .start_ns)] | length == 12)' \
	"$(cat "$tmp/sq/$h1.json")"
check_timing_jq "... sharing each rank's line between two steps, the CCT stays within 1.5x of 266.9 ms" \
	"$on_time_sq" \
	"$(cat "$tmp/sq/result.json")"

# 2D rings on a 2x2 grid (h0 h1 / h2 h3): reduce-scatter along the row
# (1 step of 1 MiB), AllReduce along the column (2 of 512 KiB), all-gather
# along the row (1 of 1 MiB): 3 MiB = 3072 packets per rank
"$ringrun" --out "$tmp/grid" --job "$ring" -- --size 2m --grid 2x2 >/dev/null 2>&1
check_jq "2D rings: 4 steps on the row and column rings, 3072 packets per rank" \
	'.run.steps == 4 and .counters.packets_sent - .counters.retransmitted_packets == 4 * 3072 and .jobs[0].iterations[0].complete' \
	"$(cat "$tmp/grid/result.json")"
check_jq "... the steps alternate rings: row, column, column, row" \
	'[.jobs[0].iterations[0].steps[] | .ring] == ["row", "column", "column", "row"]' \
	"$(cat "$tmp/grid/$h1.json")"

"$ringrun" --out "$tmp/uec" --job "$ring" -- --size 512k --proto uec >/dev/null 2>&1 && rc=0 || rc=$?
check_eq "UEC framing (UDP 4793, PDS/SES) completes too" 0 "$rc"
"$ringrun" --out "$tmp/uec_astra" --job "$ring" -- --size 512k --proto uec --flows astra \
	>/dev/null 2>&1 && rc=0 || rc=$?
check_jq "... and with --flows astra, its PDS PSNs from 0 in each message" \
	"$rc == 0 and .jobs[0].iterations[0].complete and .run.step_qps == 6 and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 6 * 128" \
	"$(cat "$tmp/uec_astra/result.json" 2>/dev/null)"

# An 80 Mbit/s port towards h1 with a 20-packet queue: the 100 Mbit/s
# sender loses packets there; go-back-N recovers them.
tc -n "$rt" qdisc del dev p1 root
tc -n "$rt" qdisc add dev p1 root handle 1: htb default 1 r2q 100
tc -n "$rt" class add dev p1 parent 1: classid 1:1 htb rate 80mbit
tc -n "$rt" qdisc add dev p1 parent 1:1 pfifo limit 20
# (a sender the machine holds below 80 Mbit/s loses nothing: run again)
ringrun_timed "$tmp/loss" '.counters.retransmitted_packets > 0' \
	--job "$ring" -- --size 1m --fixed-rate && rc=0 || rc=$?
ktap_print "$(head -1 "$tmp/loss.log")"
drops=$(tc -n "$rt" -s -j qdisc show dev p1 | jq '[.[] | select(.kind == "pfifo") | .drops] | add')
check_jq "packets dropped at the congested port ($drops) are retransmitted, the AllReduce completes" \
	'.jobs[0].iterations[0].complete and .counters.retransmitted_packets > 0 and
	 .counters.naks_received > 0' "$(cat "$tmp/loss/result.json")"
# the same with --flows nccl: the receiver rebuilds each packet's place in
# the queue pair's sequence from its message (UDP source port) and PSN, so
# that go-back-N, resending from a NAK's or a timeout's sequence number
# back into an earlier message, still completes (a sender the machine
# holds below 80 Mbit/s, or one whose resends never went back a message,
# runs again)
for try in 1 2 3; do
	captured loss_nccl --job "$ring" -- --size 1m --fixed-rate --flows nccl && rc=0 || rc=$?
	if [ "$rc" -ne 0 ] || [ "$try" -eq 3 ] ||
	   { jq -e '.counters.retransmitted_packets > 0' "$tmp/loss_nccl/result.json" >/dev/null &&
	     [ "$(cap_summary loss_nccl | jq .back)" = true ]; }; then
		break
	fi
	ktap_print "nccl under loss: no resend across a message boundary (run $try), run again"
	rm -rf "$tmp/loss_nccl"
done
ktap_print "$(head -1 "$tmp/loss_nccl.log"); h0 to h1: $(cap_summary loss_nccl)"
check_jq "--flows nccl under loss: resends go back across message boundaries, and the AllReduce completes" \
	"$rc == 0 and .jobs[0].iterations[0].complete and .counters.retransmitted_packets > 0 and
	 .counters.naks_received > 0 and .cap.back and .cap.first_psns == [0] and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 1536" \
	"$(jq -c --argjson cap "$(cap_summary loss_nccl || echo null)" '. + {cap: $cap}' \
		"$tmp/loss_nccl/result.json" 2>/dev/null)"
shape_reset() { tc -n "$rt" qdisc del dev p1 root; shape "$rt" p1 100mbit; }
shape_reset

# The last ACK of each message rank 1 receives is lost four times: rank 0
# times out after 20, 40, 80 and 160 ms and resends.  Rank 1, done long
# before, must still be there to answer the fourth resend: it waits for
# rank 0's close notice.  (A rank that left after 100 ms of quiet left
# rank 0 without its ACK, failing after 10 s.)
"$ringrun" --out "$tmp/lastack" --job "$ring" -- --size 256k --lose-final-acks 1:4 \
	>"$tmp/lastack.log" 2>&1 && rc=0 || rc=$?
ktap_print "$(head -1 "$tmp/lastack.log")"
check_jq "the last ACK to rank 0 lost 4 times: it times out 4 times, resends, and the AllReduce completes" \
	'.jobs[0].iterations[0].complete and .counters.retransmission_timeouts >= 4 and
	 .counters.closes_received == 4' "$(cat "$tmp/lastack/result.json" 2>/dev/null || echo '{}')"
# the same with the close notices lost: the ranks wait out their time-wait
start_ns=$(date +%s%N)
"$ringrun" --out "$tmp/noclose" --job "$ring" -- --size 256k --lose-final-acks 1:4 \
	--lose-closes >"$tmp/noclose.log" 2>&1 && rc=0 || rc=$?
waited_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
ktap_print "without close notices: exit $rc after $waited_ms ms"
check_jq "... and with the close notices lost too, after a 2 s time-wait" \
	"$rc == 0 and $waited_ms >= 2000 and .jobs[0].iterations[0].complete and
	 .counters.closes_received == 0" "$(cat "$tmp/noclose/result.json" 2>/dev/null || echo '{}')"

# --step-flows: each step's first packet starts a new flow (DCQCN fresh,
# at the line rate); the VM's test_ringcoll_dcqcn.sh shows it behind a
# marking port
"$ringrun" --out "$tmp/flows" --job "$ring" -- --size 1m --step-qps 2 --step-flows \
	>"$tmp/flows.log" 2>&1 && rc=0 || rc=$?
check_jq "--step-flows: the AllReduce completes and each of 4 ranks starts 6 flows, one per step" \
	'.jobs[0].iterations[0].complete and .run.step_flows and
	 .counters.flow_starts == 4 * 6' "$(cat "$tmp/flows/result.json")"

# --flows: on the wire (h0's packets to h1), a 1 MiB AllReduce is 6
# messages of 256 packets per queue pair sequence
captured fl_legacy --job "$ring" -- --size 1m --flows legacy
ktap_print "legacy flows, h0 to h1: $(cap_summary fl_legacy)"
check_jq "--flows legacy: the PSN runs on over the queue pair's messages (WRITE FIRST at 0, 256, ..., 1280)" \
	'.flows == "legacy" and .cap.first_psns == [0, 256, 512, 768, 1024, 1280] and
	 .cap.last_psns == [255, 511, 767, 1023, 1279, 1535] and .cap.qps == [1]' \
	"$(jq -c --argjson cap "$(cap_summary fl_legacy || echo null)" '. + {cap: $cap}' \
		"$tmp/fl_legacy/$h0.json" 2>/dev/null)"
captured fl_astra --job "$ring" -- --size 1m --flows astra && rc=0 || rc=$?
ktap_print "astra flows, h0 to h1: $(cap_summary fl_astra)"
check_jq "--flows astra: the AllReduce completes, each packet sent once, on 6 queue pairs per rank, each step a new flow" \
	"$rc == 0 and .jobs[0].iterations[0].complete and .run.step_qps == 6 and .run.step_flows and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 1536 and
	 .counters.flow_starts == 4 * 6" "$(cat "$tmp/fl_astra/result.json" 2>/dev/null)"
check_jq "... every message's PSNs start at 0 (WRITE FIRST at 0, WRITE LAST at 255), and h0 says flows astra" \
	'.flows == "astra" and .cap.first_psns == [0] and .cap.last_psns == [255]' \
	"$(jq -c --argjson cap "$(cap_summary fl_astra || echo null)" '. + {cap: $cap}' \
		"$tmp/fl_astra/$h0.json" 2>/dev/null)"
check_jq "... h0's packets to h1 carry 6 DestQPs: a queue pair per step" \
	'.qps | length == 6' "$(cap_summary fl_astra)"
check_jq "... one step (UDP source port) per queue pair" \
	'.steps_per_qp == [1]' "$(cap_summary fl_astra)"
captured fl_nccl --job "$ring" -- --size 1m --flows nccl && rc=0 || rc=$?
ktap_print "nccl flows, h0 to h1: $(cap_summary fl_nccl)"
check_jq "--flows nccl: the AllReduce completes, each packet sent once, on one queue pair per channel, no flow restarts" \
	"$rc == 0 and .jobs[0].iterations[0].complete and .run.step_qps == 1 and
	 (.run.step_flows | not) and .counters.flow_starts == 0 and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 1536" \
	"$(cat "$tmp/fl_nccl/result.json" 2>/dev/null)"
check_jq "... its 6 steps on one DestQP, every message's PSNs from 0, and h0 says flows nccl" \
	'.flows == "nccl" and .cap.qps == [1] and .cap.steps_per_qp == [6] and
	 .cap.first_psns == [0] and .cap.last_psns == [255]' \
	"$(jq -c --argjson cap "$(cap_summary fl_nccl || echo null)" '. + {cap: $cap}' \
		"$tmp/fl_nccl/$h0.json" 2>/dev/null)"
# --flows astra on the 2x2 grid: the row and column rings' 2 steps each on
# queue pairs of their own
"$ringrun" --out "$tmp/fl_grid" --job "$ring" -- --size 2m --grid 2x2 --flows astra \
	>/dev/null 2>&1 && rc=0 || rc=$?
check_jq "--flows astra on a 2x2 grid: the 4 steps complete on 2 queue pairs per ring, each a new flow" \
	"$rc == 0 and .jobs[0].iterations[0].complete and .run.step_qps == 2 and
	 .counters.packets_sent - .counters.retransmitted_packets == 4 * 3072 and
	 .counters.flow_starts == 4 * 4" "$(cat "$tmp/fl_grid/result.json" 2>/dev/null)"

# A rank that dies: the others stop with a timeout error
"$ringrun" --out "$tmp/dead" --job "$ring" -- --size 64m --timeout 2 >"$tmp/dead.log" 2>&1 &
runner=$!
sleep 1
pkill -9 -f "ringcoll.*--out $tmp/dead/$h2.json"
wait "$runner" && rc=0 || rc=$?
check_eq "when a rank dies mid-run the launcher fails" 1 "$rc"
check "the others report the silent neighbour" \
	grep -q "no packet from .* a neighbour died or is unreachable" "$tmp/dead.log"

r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --local 10.60.0.2 --dcqcn-rai 1gbit 2>&1) && rc=0 || rc=$?
check_eq "a DCQCN step above the line rate exits 2" \
	"2 ringcoll: --dcqcn-rai '1gbit': a rate up to --rate (kbit, mbit, gbit)" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --step-flows --fixed-rate 2>&1) && rc=0 || rc=$?
check_eq "--step-flows with --fixed-rate exits 2" \
	"2 ringcoll: --step-flows resets DCQCN: not with --fixed-rate" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --channels 9 --step-qps 2 2>&1) && rc=0 || rc=$?
check_eq "more queue pairs than 16 (channels x step-qps) exit 2" \
	"2 ringcoll: --channels 9 x --step-qps 2: more than 16 queue pairs" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2,10.60.2.2,10.60.3.2 --grid 2x2 --step-qps 2 2>&1) && rc=0 || rc=$?
check_eq "--step-qps with --grid exits 2" \
	"2 ringcoll: --step-qps 2: 1D rings only, not with --grid" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --cc dctcp 2>&1) && rc=0 || rc=$?
check_eq "an unknown --cc profile exits 2, naming it" \
	"2 ringcoll: --cc 'dctcp': mlx5, hpcc or legacy" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --flows ns3 2>&1) && rc=0 || rc=$?
check_eq "an unknown --flows model exits 2, naming it" \
	"2 ringcoll: --flows 'ns3': legacy, astra or nccl" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --local 10.60.0.2 --dcqcn-clamp sometimes 2>&1) && rc=0 || rc=$?
check_eq "a bad --dcqcn-clamp exits 2, naming it" \
	"2 ringcoll: --dcqcn-clamp 'sometimes': always, timer or never" "$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --flows astra --step-qps 2 2>&1) && rc=0 || rc=$?
check_eq "--flows astra with --step-qps exits 2" \
	"2 ringcoll: --flows astra: --step-qps and --step-flows are for legacy flows (astra: a queue pair per step, a new flow each; nccl: one queue pair per channel)" \
	"$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2,10.60.2.2,10.60.3.2 --local 10.60.0.2 \
	--flows astra --channels 3 2>&1) && rc=0 || rc=$?
check_eq "--flows astra with more queue pairs than 16 (channels x steps) exits 2" \
	"2 ringcoll: --flows astra: --channels 3 x 6 steps: more than 16 queue pairs" \
	"$rc $(head -1 <<<"$r")"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2 --mtu 10 2>&1) && rc=0 || rc=$?
check "a bad argument exits 2, naming it" grep -q "^ringcoll: --mtu '10': wants 64..8192" <<<"$r"
r=$("$ringcoll" --job 1=10.60.0.2,10.60.1.2,10.60.2.2,10.60.3.2 --grid 3x3 2>&1) && rc=0 || rc=$?
check_eq "a grid that does not fit the ring exits 2" \
	"2 ringcoll: --grid 3x3: wants allreduce and a ring of 9 addresses" "$rc $(head -1 <<<"$r")"
r=$(ip netns exec "$h0" "$ringcoll" --job 1=10.9.9.1,10.9.9.2 2>&1) && rc=0 || rc=$?
check_eq "a ring without a local address exits 2" "2 ringcoll: job 1: none of its addresses is this host's" \
	"$rc $(head -1 <<<"$r")"
ip netns exec "$h0" "$ringcoll" --job "1=10.60.0.2,10.60.1.2" --timeout 3 >/dev/null 2>&1 &
first=$!
sleep 0.3
r=$(ip netns exec "$h0" "$ringcoll" --job "1=10.60.0.2,10.60.1.2" 2>&1) && rc=0 || rc=$?
kill "$first" 2>/dev/null; wait "$first" 2>/dev/null
check "a second ringcoll in a namespace exits 1: port 4791 in use" \
	grep -q "cannot bind UDP port 4791: Address already in use (another ringcoll" <<<"$r"
r=$(ip netns exec "$h0" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps=-all "$ringcoll" --job "1=10.60.0.2,10.60.1.2" 2>&1) && rc=0 || rc=$?
check_eq "without CAP_NET_RAW it exits 1, saying so" \
	"1 ringcoll: cannot open a raw socket: Operation not permitted (needs CAP_NET_RAW: run as root)" \
	"$rc $(head -1 <<<"$r")"

ktap_finished
