#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_sim.sh - the ns-3 simulator's smoke test (sim/, make sim), seconds
# in all: a small ring AllReduce completes, and on the testbed's links a
# fixed-rate ring of two ranks takes its line-rate bound; the same seed
# gives the same run; Symphony marks only packets of outpacing steps, and
# none when marking RED only; a small permutation on a k=4 fat tree
# delivers and ACKs every packet, Ofan's queues stay a few frames where
# ECMP's grow; symphony_ring.sh --engine sim writes the evaluation's JSON;
# bad options exit 2, naming the value; a 20 ms minimum retransmission
# timeout under queues of hundreds of ms does not make go-back-N resend
# the run (vm/test_ringcoll_dcqcn.sh's step-flows case, include/workload/
# rto.h); the papers' scripts (eval/sim_ofan.sh, eval/sim_symphony.sh)
# run small and write their summaries; ringcoll's DCQCN options reach
# the senders; back-to-back iterations merge into one timeline; PFC
# bounds the queues by pausing senders, and loses nothing; 2D rings
# (--grid) run the hierarchical AllReduce, row steps inside a ToR and
# column steps across the spines, at their line-rate bound; the Fig. 8
# sweep runs sim_symphony.sh per value and normalises Symphony's CCT;
# Fig. 7's two jobs start their offset apart; with failed links a switch
# skips only the uplinks that cannot reach the packet's destination, and
# random failures (Ofan's Fig. 9) are drawn per seed, connected, with the
# hosts paced at what the live links carry; jobs of their own sizes and
# passes arrive at random (Symphony's Fig. 7c), each paired with itself; a
# lost last ACK costs one timeout of the sampled round trip, not 1 s; the
# flow models (legacy, astra, nccl) and their PSNs; Symphony at the ToRs
# only; the DCQCN profiles; two long flows keep one port busy; single
# flows of consecutive steps (the paper's Fig. 9) under RED, Symphony and
# the priority-queue baseline, and their transmission timelines; the verdict script's Fig. 2 and Fig. 5
# rows on the paper's stack; each step's first_rate_bps is the rate its
# first packet left at, and the run names its flow model; REPS (--lb
# reps) recycles its entropies on unloaded paths, retires marked ones,
# freezes its cache on timeouts, and queues like random spraying, but at
# large messages its freezes multiply its queues (the paper's section 6);
# --paper-ofan runs the paper's 432 hosts at 800 Gbit/s with 4,158-byte
# frames and a 20-byte gap at ps resolution, meeting the Appendix-A bound
# where nothing queues, and an option given with it overrides its setting.
. "$(dirname "$0")/../lib.sh"

require_cmd jq
sim=$TOP_DIR/build/symofan-sim
require_built "$sim"

tmp=$(mktemp -d /tmp/test_sim.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 69

merge() { jq -L "$TOP_DIR/tc-scripts" -c 'include "ringmerge"; .ranks | ring_merge(null)' "$1"; }

# 1: a small ring on a leaf-spine of 2 leaves, 2 spines, 2 hosts each
"$sim" ring --leaves 2 --spines 2 --hosts-per-leaf 2 --rate 10mbit --rto 500 \
	--ring 1=0,2,1,3 --size 256k --out "$tmp/small.json"
check_jq "a 4-rank ring AllReduce completes (6 steps, every rank)" \
	'.sim.complete and (.ranks | length) == 4 and .ranks[0].steps == 6' \
	"$(jq -c '{sim, ranks: [.ranks[] | {steps}]}' "$tmp/small.json")"

# 2: two ranks at a fixed rate over the testbed's links: 128 frames of
# 4096 bytes each way, 4158 bytes on the wire apiece, at 10 Mbit/s; the
# NIC's pace puts the last frame 127 frame times after the first, and
# the HTB-shaped links pass it on at once
"$sim" ring --leaves 2 --spines 1 --hosts-per-leaf 1 --rate 10mbit --links htb \
	--fixed-rate --rto 500 --ring 1=0,1 --size 512k --out "$tmp/pair.json"
bound_ms=$(awk 'BEGIN { printf "%.3f", 127 * 4158 * 8 / 10e6 * 1000 }')
cct=$(merge "$tmp/pair.json" | jq '.jobs[0].cct_ms.median')
ktap_print "two ranks at a fixed 10 Mbit/s: CCT $cct ms, bound $bound_ms ms"
check "a fixed-rate ring of two takes its line-rate bound (within 1%)" \
	awk -v c="$cct" -v b="$bound_ms" 'BEGIN { exit !(c >= b && c <= b * 1.01) }'

# 3-4: the rings scenario of the evaluation, seeded: the same seed, the
# same run; the ECMP hash seed moves the steps' paths
rings=(--ring 1=0,4,8,12,1,5,9,13 --ring 1=2,6,10,14,3,7,11,15 --size 256k --rto 500
       --imbalance 0:0:1.13 --background 10 --links htb --dcqcn-alpha-us 50000
       --dcqcn-timer-us 50000 --cnp-interval 50000 --dcqcn-bytes 64k)
"$sim" ring "${rings[@]}" --seed 3 --out "$tmp/a.json"
"$sim" ring "${rings[@]}" --seed 3 --out "$tmp/b.json"
"$sim" ring "${rings[@]}" --seed 4 --marking red --out "$tmp/red.json"
strip() { jq -S 'del(.sim.wall_s, .sim.events_per_s)' "$1"; }
check "the same seed gives the same run, event for event" \
	cmp -s <(strip "$tmp/a.json") <(strip "$tmp/b.json")
check_jq "another seed hashes the steps onto other paths" \
	'.a != .b' "$(jq -nc --slurpfile a "$tmp/a.json" --slurpfile b "$tmp/red.json" \
		'{a: [$a[0].ports[] | .packets], b: [$b[0].ports[] | .packets]}')"

# 5-6: Symphony marks packets of outpacing steps only; RED marking none
check_jq "Symphony marks, and only packets of outpacing steps (every port)" \
	'(map(.symphony_marks) | add) > 0 and all(.[]; .symphony_marks <= .outpacing_packets)' \
	"$(jq -c '.ports' "$tmp/a.json")"
check_jq "marking red: no Symphony marks, RED marks" \
	'(map(.symphony_marks) | add) == 0 and (map(.red_marks) | add) > 0' \
	"$(jq -c '.ports' "$tmp/red.json")"

# 7: steps in lockstep never outpace: two ranks, one step each way at once
"$sim" ring --leaves 2 --spines 1 --hosts-per-leaf 1 --rate 10mbit --ring 1=0,1 \
	--collective allgather --size 256k --out "$tmp/lockstep.json"
check_jq "a ring whose ranks run one step in lockstep has no outpacing packet, no Symphony mark" \
	'.sim.complete and (.ports | map(.outpacing_packets + .symphony_marks) | add) == 0' \
	"$(jq -c '{sim, ports}' "$tmp/lockstep.json")"

# 8-10: a permutation on a k=4 fat tree at 20 Mbit/s
perm() { "$sim" perm --packets 128 --seed 2 --lb "$1" --out "$tmp/perm-$1.json"; }
perm ofan && perm ecmp
check_jq "a permutation delivers and ACKs every packet of every host" \
	'.sim.complete and (.hosts | length) == 16 and
	 all(.hosts[]; .acked == 128 and .received == 128 and .lost == 0)' \
	"$(jq -c '{sim, hosts: [.hosts[] | {acked, received, lost}]}' "$tmp/perm-ofan.json")"
q() { jq '[.ports[].max_backlog_bytes] | max / 4142' "$tmp/perm-$1.json"; }
ktap_print "max queue, frames: ofan $(q ofan), ecmp $(q ecmp)"
check_jq "Ofan's queues stay within 4 frames, ECMP's grow past 10" \
	'.ofan <= 4 and .ecmp > 10' "$(jq -nc --argjson o "$(q ofan)" --argjson e "$(q ecmp)" \
		'{ofan: $o, ecmp: $e}')"

perm pofan
check_jq "pOfan's pointers per pipe of downlinks route otherwise than Ofan's (its queues differ)" \
	'.ofan != .pofan' "$(jq -nc --slurpfile o "$tmp/perm-ofan.json" --slurpfile p "$tmp/perm-pofan.json" \
		'{ofan: [$o[0].ports[].max_backlog_bytes], pofan: [$p[0].ports[].max_backlog_bytes]}')"

# 11: the evaluation's runs in the simulator
"$TOP_DIR/eval/symphony_ring.sh" --engine sim --seeds 1 --scenarios rings --size 256k \
	--out "$tmp/eval/rings.json" >"$tmp/eval.log" 2>&1
check_jq "symphony_ring.sh --engine sim: both markings, complete, guard 'simulated'" \
	'.engine == "sim" and (.runs | length) == 2 and all(.runs[]; .complete) and
	 .guard.verdict == "simulated" and (.summary | length) == 2' \
	"$(jq -c 'del(.runs[].step_overlap)' "$tmp/eval/rings.json" 2>/dev/null)"

# 11a: --resume keeps an earlier JSON's runs as they were and runs only
# the seeds it lacks; a file of other settings is refused, named
log=$("$TOP_DIR/eval/symphony_ring.sh" --engine sim --seeds 2 --scenarios rings --size 256k \
	--resume "$tmp/eval/rings.json" --out "$tmp/eval/rings2.json" 2>&1 >/dev/null)
r=$("$TOP_DIR/eval/symphony_ring.sh" --engine sim --seeds 2 --scenarios rings --size 256k \
	--background 5 --resume "$tmp/eval/rings.json" --out "$tmp/eval/rings3.json" 2>&1) && rc=0 || rc=$?
check_jq "symphony_ring.sh --resume: seed 1's two runs kept as they were, seed 2's run; other settings refused" \
	'.file as $f | (.log | test("2 of the 4 runs from")) and .kept == .before and .seed2 == 2 and
	 (.bad | startswith("1 symphony_ring.sh: --resume '"'"'" + $f + "'"'"': not a symphony_ring.sh JSON made with the same testbed"))' \
	"$(jq -nc --arg log "$log" --arg bad "$rc $(tail -1 <<<"$r")" --arg file "$tmp/eval/rings.json" \
		--argjson before "$(jq -c '[.runs[] | select(.seed == 1)]' "$tmp/eval/rings.json" 2>/dev/null || echo null)" \
		--argjson kept "$(jq -c '[.runs[] | select(.seed == 1)]' "$tmp/eval/rings2.json" 2>/dev/null || echo null)" \
		--argjson seed2 "$(jq '[.runs[] | select(.seed == 2 and .complete)] | length' "$tmp/eval/rings2.json" 2>/dev/null || echo null)" \
		'{log: $log, bad: $bad, file: $file, before: $before, kept: $kept, seed2: $seed2}')"

# 12-14: bad options
r=$("$sim" ring --ring 1=0,1 --lb foo 2>&1) && rc=0 || rc=$?
check_eq "an unknown mode exits 2, naming it" \
	"2 symofan-sim: --lb: unknown mode 'foo' (ecmp, ofan, pofan, Nofan (4ofan: 4 ports a pipe), rr, rps, static, jsq, ar, drb, reps)" \
	"$rc $(head -1 <<<"$r")"
r=$("$sim" ring --ring 1=0,1 --qdisc "pmax 1.5" 2>&1) && rc=0 || rc=$?
check_eq "a qdisc option out of range exits 2, naming it and its range" \
	"2 symofan-sim: --qdisc: pmax '1.5' is not in 0..1" "$rc $(head -1 <<<"$r")"
r=$("$sim" ring --ring 1=0,1 --fail 8 2>&1) && rc=0 || rc=$?
check_eq "a failed link the fabric does not have exits 2, naming it" \
	"2 symofan-sim: --fail: no switch link 8 (the fabric has 8, numbered from 0)" \
	"$rc $(head -1 <<<"$r")"

# 15: two opposite 4-rank rings through 10 Mbit/s uplinks from 20 Mbit/s
# hosts, steps as new flows on 2 queue pairs, ringcoll's default 20 ms
# timeout: the queues outlast it
"$sim" ring --leaves 4 --spines 1 --hosts-per-leaf 1 --rate 20mbit --uplink-rate 10mbit \
	--links htb --qdisc "limit 2000 kmin 6kb kmax 30kb pmax 0.2" --marking red \
	--ring 1=0,1,2,3 --ring 2=3,2,1,0 --size 256k --step-qps 2 --step-flows \
	--out "$tmp/gbn.json"
gbn=$(merge "$tmp/gbn.json" | jq -c '.counters | {packets_sent, retransmitted_packets}')
ktap_print "20 ms timeout under queues: $gbn"
check_jq "a 20 ms timeout under long queues resends under 5% of the packets" \
	'.retransmitted_packets < 0.05 * .packets_sent' "$gbn"

# 16-17: the papers' scripts, small
"$TOP_DIR/eval/sim_ofan.sh" --k 4 --sizes "32 128" --modes "ofan ecmp" --seeds 1 \
	--rate 20mbit --out "$tmp/ofan/ofan.json" >"$tmp/ofan.log" 2>&1
check_jq "sim_ofan.sh: every mode and size ran and completed, Ofan's queue below ECMP's" \
	'(.summary | length) == 4 and all(.summary[]; .complete and .lost == 0) and
	 ([.summary[] | select(.m == 128) | {(.mode): .max_queue_frames.median}] | add
	  | .ofan < .ecmp)' \
	"$(jq -c 'del(.runs)' "$tmp/ofan/ofan.json" 2>/dev/null)"
"$TOP_DIR/eval/sim_symphony.sh" --nodes 32 --chunk 64k --seeds 1 --spines 4 \
	--scenarios "rings jobs2" --iterations 2 --pfc 128k --jobs 2 \
	--out "$tmp/sym/sym.json" >"$tmp/sym.log" 2>&1
check_jq "sim_symphony.sh: 32 nodes, 4 spines, 4 rings as one job and as 4, the paper's stack (HPCC's DCQCN, Astra-Sim's flows, ToRs only, state per switch), PFC, 2 iterations, in order" \
	'.engine == "sim" and .testbed.tors == 4 and .testbed.spines == 4 and .testbed.pfc == "128k" and
	 .testbed.links == "p2p" and (.workload.ringcoll | test("--iterations 2 --cc hpcc --flows astra")) and
	 .qdisc.symphony_at == "tor" and .qdisc.state == "switch" and
	 ([.runs[] | [.scenario, .marking, .job]] ==
	  [["rings", "red", 1], ["rings", "symphony", 1]] +
	  [range(1; 5) as $j | ["jobs2", "red", $j]] + [range(1; 5) as $j | ["jobs2", "symphony", $j]]) and
	 all(.runs[]; .complete)' \
	"$(jq -c 'del(.runs[].step_overlap)' "$tmp/sym/sym.json" 2>/dev/null)"

# 18: ringcoll's DCQCN options, in the senders' parameters; out of range
"$sim" ring --ring 1=0,1 --size 64k --dcqcn-g 16 --dcqcn-f 0 --dcqcn-min-rate 1mbit \
	--dcqcn-alpha-us 1 --out "$tmp/dcqcn.json"
r=$("$sim" ring --ring 1=0,1 --dcqcn-f 101 2>&1) && rc=0 || rc=$?
check_jq "--dcqcn-g/-f/-min-rate/-alpha-us set g 1/16, F 0, a 1 Mbit/s floor, K 1 us; F 101 exits 2" \
	'.dcqcn == {g_q16: 4096, f: 0, min_rate_bps: 1000000, alpha_interval_ns: 1000} and
	 .rejected == "2 symofan-sim: --dcqcn-f: '"'101'"' is not a number in 0..100"' \
	"$(jq -c --arg r "$rc $(head -1 <<<"$r")" '{dcqcn: (.dcqcn | {g_q16, f, min_rate_bps, alpha_interval_ns}), rejected: $r}' "$tmp/dcqcn.json")"

# 19: two iterations back to back: the second starts as its rank ends the
# first, and the job's whole run counts both in one timeline (with one
# iteration, the whole run is that iteration)
"$sim" ring --leaves 2 --spines 2 --hosts-per-leaf 2 --rate 10mbit --rto 500 \
	--ring 1=0,2,1,3 --size 64k --iterations 2 --out "$tmp/iter2.json"
check_jq "two iterations overlap; the whole run spans both, its timeline every step of both" \
	'.iterations[1].start_ns < .iterations[0].end_ns and
	 .whole.cct_ms * 1000000 == .iterations[1].end_ns - .iterations[0].start_ns and
	 (.whole.step_overlap | length) == 2 * 2 * 6 and
	 .whole.max_step_overlap >= ([.iterations[].max_step_overlap] | max) and .whole.complete and
	 .one.whole == (.one.iterations[0] | {cct_ms, complete, max_step_overlap, final_step_span_ms, step_overlap})' \
	"$(merge "$tmp/iter2.json" | jq -c --argjson one "$(merge "$tmp/small.json" | jq -c '.jobs[0]')" \
	   '.jobs[0] | {whole, iterations: [.iterations[] | {start_ns, end_ns, max_step_overlap}], one: $one}')"

# 20-21: PFC: point 15's rings, lossless with XOFF 32 KiB: the senders
# are paused, the deepest queue stays within XOFF and the frames in
# flight (3 of 4,158 bytes at most here), where it reached 92,856 bytes
# without; nothing is lost or resent
"$sim" ring --leaves 4 --spines 1 --hosts-per-leaf 1 --rate 20mbit --uplink-rate 10mbit \
	--qdisc "limit 2000 kmin 6kb kmax 30kb pmax 0.2" --marking red \
	--ring 1=0,1,2,3 --ring 2=3,2,1,0 --size 256k --step-qps 2 --step-flows --rto 500 \
	--pfc 32k --out "$tmp/pfc.json"
check_jq "PFC pauses senders and holds every queue within XOFF + 3 frames, losing nothing" \
	'.complete and .pfc.pauses_sent > 0 and .pfc.host_paused_ns > 0 and
	 .max_backlog_bytes <= 32768 + 3 * 4158 and .drops == 0 and .resent == 0' \
	"$(jq -c '{complete: .sim.complete, pfc, max_backlog_bytes: ([.ports[].max_backlog_bytes] | max),
		   drops: ([.ports[] | .limit_drops + .red_drops] | add)}' "$tmp/pfc.json" |
	   jq -c --argjson c "$(merge "$tmp/pfc.json" | jq -c .counters)" '. + {resent: $c.retransmitted_packets}')"
r=$("$sim" ring --ring 1=0,1 --links htb --pfc 32k 2>&1) && rc=0 || rc=$?
r2=$("$sim" ring --ring 1=0,1 --pfc 8k 2>&1) && rc2=0 || rc2=$?
check_eq "--pfc on HTB links, or below 16k, exits 2, naming it" \
	"2 symofan-sim: --pfc applies to --links p2p only|2 symofan-sim: --pfc: '8192' bytes is not in 16k..1g" \
	"$rc $(head -1 <<<"$r")|$rc2 $(head -1 <<<"$r2")"

# 22: a 4x4 grid on 4 ToRs of 4 hosts, rows the ToRs, static routes at a
# fixed 10 Mbit/s over the testbed's links, 256 KiB per rank: 3 row steps
# of 64 KiB (16 frames), 6 column steps of 16 KiB (4 frames), 3 row
# steps; the column steps alone cross the spines (16 ranks x 6 x 4
# frames), and the NIC's pace puts the run at 119 frame times
"$sim" ring --ring 1=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 --grid 4x4 --lb static \
	--fixed-rate --rate 10mbit --links htb --size 256k --rto 500 --out "$tmp/grid.json"
bound_ms=$(awk 'BEGIN { printf "%.3f", 119 * 4158 * 8 / 10e6 * 1000 }')
check_jq "a 4x4 grid: row, column, row steps of size/4, size/16, size/4; only column steps cross the spines; CCT within 1% of $bound_ms ms" \
	'.complete and .grid == "4x4" and .step_bytes == 65536 and
	 .rings == ["row","row","row","column","column","column","column","column","column","row","row","row"] and
	 .spine_packets == 384 and .cct >= .bound and .cct <= .bound * 1.01' \
	"$(jq -c --argjson m "$(merge "$tmp/grid.json" | jq -c '.jobs[0].cct_ms.median')" \
	   --argjson b "$bound_ms" '{complete: .sim.complete, grid: .ranks[5].jobs[0].grid, step_bytes: .ranks[5].jobs[0].step_bytes,
	     rings: [.ranks[5].jobs[0].iterations[0].steps[].ring], cct: $m, bound: $b,
	     spine_packets: ([.ports[] | select(.port | test("^leaf[0-9]+->spine")) | .collective_packets] | add)}' \
	   "$tmp/grid.json")"

# 23: a grid that is not the ring's size, or with steps on 2 queue pairs
r=$("$sim" ring --ring 1=0,1,2,3,4,5 --grid 2x4 2>&1) && rc=0 || rc=$?
r2=$("$sim" ring --ring 1=0,1,2,3 --grid 2x2 --step-qps 2 2>&1) && rc2=0 || rc2=$?
check_eq "--grid that does not fit a ring, or with --step-qps 2, exits 2, naming it" \
	"2 symofan-sim: --grid 2x4: a ring of job 1 has 6 hosts, not 8|2 symofan-sim: --grid runs allreduce with --step-qps 1 (ringcoll's 2D rings)" \
	"$rc $(head -1 <<<"$r")|$rc2 $(head -1 <<<"$r2")"

# 24-25: Fig. 8c's sweep, small: 2 chunks on the 2D ring of 32 nodes (a
# 4x8 grid, rows the ToRs: 7 + 6 + 7 steps, 32 chunks per rank), each
# value's runs in a sim_symphony.sh JSON;
# the normalised CCT is Symphony's median over RED's; a grid mixed with
# the 1D rings is refused (their data per rank differs)
"$TOP_DIR/eval/sim_symphony_sweep.sh" --param chunk --values "32k 64k" --nodes 32 --seeds 1 \
	--jobs 2 --out "$tmp/sweep/chunk.json" >"$tmp/sweep.log" 2>&1
check_jq "sim_symphony_sweep.sh: a point per chunk, from its own runs on a 4x8 grid, normalised" \
	'[.points[] | [.value, .scenario, .seeds]] == [["32k", "grid", 1], ["64k", "grid", 1]] and
	 all(.points[]; (.normalised_cct - .symphony_cct_ms / .red_cct_ms | fabs) < 1e-9) and
	 .parts == [{size: 1048576, steps: 20}, {size: 2097152, steps: 20}]' \
	"$(jq -c --argjson parts "$(for v in 32k 64k; do
		jq -c '{size: (.workload.size_per_rank | tonumber), steps: (.runs[0].step_overlap | length / 2)}' \
			"$tmp/sweep/chunk.chunk-$v.json" 2>/dev/null; done | jq -sc .)" \
	   '{points, parts: $parts}' "$tmp/sweep/chunk.json" 2>/dev/null)"
r=$("$TOP_DIR/eval/sim_symphony.sh" --scenarios "rings grid" 2>&1) && rc=0 || rc=$?
check_eq "sim_symphony.sh refuses a grid mixed with 1D rings" \
	"1 sim_symphony.sh: --scenarios: ring1 and the grids do not mix with rails, rings, jobs2 and twojobs (their rings differ in size, the chunk does not)" \
	"$rc $r"

# 26: Fig. 7's two jobs: sim_symphony.sh twojobs splits the 4 rings of 32
# nodes into jobs 1 and 2, job 2 starting --job-offset later, each with
# its own CCT; in the simulator's ranks, job 2's first step starts 5 ms
# after job 1's
"$TOP_DIR/eval/sim_symphony.sh" --nodes 32 --chunk 64k --seeds 1 --scenarios twojobs \
	--job-offset 5 --jobs 2 --out "$tmp/two/two.json" >"$tmp/two.log" 2>&1
"$sim" ring --leaves 4 --spines 8 --hosts-per-leaf 8 --rate 10gbit --uplink-rate 10gbit \
	--ring 1=0,8,16,24,1,9,17,25 --ring 2=2,10,18,26,3,11,19,27 --job-start 2=5000 \
	--size 512k --out "$tmp/jobstart.json"
check_jq "twojobs: jobs 1 and 2 per marking, offset 5 ms; job 2 starts 5 ms after job 1" \
	'.runs == [["red", 1], ["red", 2], ["symphony", 1], ["symphony", 2]] and .offset == 5 and
	 .starts[1] - .starts[0] == 5000000' \
	"$(jq -c --argjson starts "$(merge "$tmp/jobstart.json" | jq -c '[.jobs[].iterations[0].start_ns]')" \
	   '{runs: [.runs[] | [.marking, .job]], offset: .testbed.job_offset_ms, starts: $starts}' \
	   "$tmp/two/two.json" 2>/dev/null)"

# 27: a k=6 fat tree with edge3-agg3 and edge4-agg4 down: every host still
# reaches every other (agg5 serves pod 1's three edges), but no uplink of
# agg0 (its cores lead to pod 1's agg3) reaches all of pod 1; a switch
# that required that (the agent's per-key intersection) dropped 321
# packets here; the paper's rule, skip a port with no path to the
# packet's destination, loses none
for lb in ofan ecmp; do
	"$sim" perm --k 6 --packets 64 --lb "$lb" --fail 9 --fail 13 --seed 1 --stop-ms 2000 \
		--out "$tmp/fail-$lb.json" || true
done
check_jq "two failed links that leave every host reachable: ofan and ecmp lose nothing" \
	'. == [{complete: true, lost: 0}, {complete: true, lost: 0}]' \
	"$(for lb in ofan ecmp; do jq -c '{complete: .sim.complete, lost: ([.hosts[].lost] | add)}' \
		"$tmp/fail-$lb.json" 2>/dev/null; done | jq -sc .)"

# 28: --fail-prob 0.1 on a k=4 fat tree: the same seed draws the same
# links, another seed others; --load max paces at the even-split feasible
# rate, below 1 with failures (1 without); sim_ofan.sh compares the CCT
# with the line-rate bound without failures, per failure probability
fp() { "$sim" perm --k 4 --packets 32 --lb ofan --fail-prob "$1" --load max --seed "$2" \
	--out "$tmp/fp-$1-$2.json"; jq -c '{f: .topology.failed_links, perm, c: .sim.complete,
	lost: ([.hosts[].lost] | add)}' "$tmp/fp-$1-$2.json"; }
"$TOP_DIR/eval/sim_ofan.sh" --k 4 --sizes 32 --modes "ofan ecmp" --seeds 2 --rate 20mbit \
	--fail-prob "0 0.1" --out "$tmp/fig9/f.json" >"$tmp/fig9.log" 2>&1
check_jq "--fail-prob: per seed, repeatable, connected, paced at the feasible rate; sim_ofan.sh's Fig. 9" \
	'.a == .b and .a != .c and (.a.f | length) > 0 and .a.c and .a.lost == 0 and
	 .a.perm.feasible_rate < 1 and (.a.perm.load_pct - .a.perm.feasible_rate * 100 | fabs) < 1e-3 and
	 (.none.perm | {load_pct, feasible_rate}) == {load_pct: 100, feasible_rate: 1} and .none.f == [] and
	 ([.fig9.summary[] | [.fail_prob, .mode]] == [[0, "ecmp"], [0, "ofan"], [0.1, "ecmp"], [0.1, "ofan"]]) and
	 all(.fig9.summary[]; .complete and .lost == 0 and .cct_over_full_rate_bound.mean >= 1) and
	 ([.fig9.summary[] | select(.fail_prob == 0.1) | .pace_pct < 100] | all) and .plot' \
	"$(jq -nc --argjson a "$(fp 0.1 3)" --argjson b "$(fp 0.1 3)" --argjson c "$(fp 0.1 4)" \
		--argjson none "$(fp 0 3)" --argjson fig9 "$(jq -c 'del(.runs)' "$tmp/fig9/f.json" 2>/dev/null || echo null)" \
		--argjson plot "$([ -s "$tmp/fig9/f-failures.png" ] || ! command -v gnuplot >/dev/null && echo true || echo false)" \
		'{a: $a, b: $b, c: $c, none: $none, fig9: $fig9, plot: $plot}')"

# 29: Fig. 7c, small: 4 jobs of 16 or 32 random hosts of 128, each with
# its own size and passes, arriving 2 ms apart on average; every job of
# the RED run paired with the same job under Symphony
"$TOP_DIR/eval/sim_symphony_arrivals.sh" --seeds 1 --jobs-per-run 4 --scales "16 32" \
	--sizes "64k 128k" --passes "1 2" --gap-ms 2 --jobs 2 --out "$tmp/arr/a.json" >"$tmp/arr.log" 2>&1
check_jq "sim_symphony_arrivals.sh: 4 jobs per marking, paired, each its drawn scale and passes, complete" \
	'.complete and (.runs | length) == 8 and (.pairs | length) == 4 and
	 ([.runs[] | [.marking, .job]] | sort) == ([["red", "symphony"][] as $m | range(1; 5) | [$m, .]] | sort) and
	 all(.runs[]; .scale == 16 or .scale == 32) and (.summary | map(.jobs) | add) == 4 and
	 ([.runs[] | .start_us] | unique | length) >= 3 and .peak_concurrent_jobs.max >= 1' \
	"$(jq -c 'del(.runs[].first_start_ns, .runs[].end_ns)' "$tmp/arr/a.json" 2>/dev/null)"

# 30: jobs of their own size and passes: a 4-rank job of 256 KiB once and
# an 8-rank job of 512 KiB three times, both steps of 64 KiB; ringmerge
# takes each job's own iterations and steps
"$sim" ring --ring 1=0,4,8,12 --ring 2=1,5,9,13,2,6,10,14 --job-size 2=512k \
	--job-iterations 2=3 --job-start 2=2000 --size 256k --rate 10mbit --out "$tmp/jobsize.json"
check_jq "--job-size and --job-iterations: each job its own steps and passes, merged per job" \
	'. == [{job: 1, step_bytes: 65536, iterations: 1, steps: 6, complete: true},
	       {job: 2, step_bytes: 65536, iterations: 3, steps: 14, complete: true}]' \
	"$(merge "$tmp/jobsize.json" | jq -c '[.jobs[] | {job, step_bytes, iterations: (.iterations | length),
		steps: (.iterations[0].steps | length), complete: .whole.complete}]')"

# 31: the 2D ring of 32 nodes (4x8, rows the ToRs) with Symphony at
# sim_symphony.sh's settings, 128 KiB chunks: as one job ID, a row ring's
# steps meet another column ring's at the hosts' downlinks and are marked
# as outpacing them; with a job ID per ring on the wire (--ring-jobs) a
# tenth of the marks at most (a ring's own step numbers jump over the
# other ring's phase), and the results stay those of job 1
grid32() { "$sim" ring --leaves 4 --spines 8 --hosts-per-leaf 8 --rate 10gbit --uplink-rate 10gbit \
	--lb ecmp --qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k 0.01 tau 0.25 twin 100us warmup 16 samples 16" \
	--marking symphony --seed 1 --grid 4x8 --ring "1=$(seq -s, 0 31)" --size 4m --mtu 4096 --rto 4 "$@"; }
grid32 --out "$tmp/g1.json"
grid32 --ring-jobs --out "$tmp/g2.json"
r=$("$sim" ring --ring 1=0,1 --ring-jobs 2>&1) && rc=0 || rc=$?
check_jq "a grid as one job: marks at the downlinks; --ring-jobs: a tenth, results still job 1; without --grid exits 2" \
	'.one.downlink_marks > 0 and .per_ring.marks * 10 <= .one.marks and
	 .per_ring.jobs == [1] and .per_ring.complete and
	 .bad == "2 symofan-sim: --ring-jobs is for --grid (1D rings take a job each with --ring)"' \
	"$(jq -nc --slurpfile a "$tmp/g1.json" --slurpfile b "$tmp/g2.json" --arg bad "$rc $(head -1 <<<"$r")" '
	   def down($d): [$d.ports[] | select(.port | test("^leaf[0-9]+->h")) | .symphony_marks] | add;
	   {one: {downlink_marks: down($a[0]), marks: ([$a[0].ports[].symphony_marks] | add)},
	    per_ring: {downlink_marks: down($b[0]), marks: ([$b[0].ports[].symphony_marks] | add),
		       jobs: ([$b[0].ranks[].jobs[0].job] | unique), complete: $b[0].sim.complete},
	    bad: $bad}')"

# 32: a multi-pod fabric (2 pods of 2 leaves of 2 hosts, 2 spines a pod,
# 2 cores: 1 uplink a spine, 2:1 over-subscribed): 8 + 4 switch links; a
# permutation completes with Ofan, only pod-crossing packets reach the
# cores; sim_symphony.sh --nodes 256 builds the paper's 4 pods of 8 ToRs
# under 32 cores (2:1)
"$sim" perm --topology multipod --pods 2 --leaves 2 --spines 2 --hosts-per-leaf 2 --cores 2 \
	--packets 32 --lb ofan --seed 3 --out "$tmp/mp.json"
r=$("$sim" perm --topology multipod --pods 2 --spines 2 --cores 3 2>&1) && rc=0 || rc=$?
"$TOP_DIR/eval/sim_symphony.sh" --nodes 256 --chunk 8k --seeds 1 --scenarios rings --jobs 2 \
	--out "$tmp/mp256/s.json" >"$tmp/mp256.log" 2>&1
check_jq "multipod: 2 pods, 4 cores-side links, all delivered; bad cores exit 2; a 256-node run over 4 pods, 32 cores" \
	'.mp.complete and .mp.lost == 0 and .mp.links == 12 and .mp.core_ports == 4 and
	 .bad == "2 symofan-sim: --cores: 3 is not a multiple of --spines 2 (a plane of cores per spine)" and
	 .s.testbed.pods == 4 and .s.testbed.cores == 32 and .s.testbed.tors == 32 and
	 ([.s.runs[] | .complete] | all) and (.s.runs | length) == 2' \
	"$(jq -nc --slurpfile m "$tmp/mp.json" --arg bad "$rc $(head -1 <<<"$r")" \
		--argjson s "$(jq -c 'del(.runs[].step_overlap)' "$tmp/mp256/s.json" 2>/dev/null || echo null)" '
	   {mp: {complete: $m[0].sim.complete, lost: ([$m[0].hosts[].lost] | add),
		 links: ([$m[0].ports[] | select(.port | test("^(leaf|spine|core)[0-9]+->(leaf|spine|core)"))] | length / 2),
		 core_ports: ([$m[0].ports[] | select(.port | test("^core"))] | length)},
	    bad: $bad, s: $s}')"


# 33: each receiver drops the first ACK of its second (last) message: the
# sender times out after the minimum 20 ms (its timeout sampled the first
# message's round trip) and resends 64 frames, 42 + 20 + 21 ms, not 1 s.
# (The timer had been armed at the first send with rto.h's initial 1 s,
# and a deadline the sample brought earlier waited for it.)
"$sim" ring --leaves 2 --spines 1 --hosts-per-leaf 1 --rate 100mbit --links htb \
	--fixed-rate --ring 1=0,1 --size 512k --lose-ack-of-message 2 --out "$tmp/lostack.json"
r=$(merge "$tmp/lostack.json" | jq -c '{cct_ms: .jobs[0].cct_ms.median, timeouts: .counters.retransmission_timeouts,
	resent: .counters.retransmitted_packets, unsampled: .counters.timeouts_before_rtt_sample}')
ktap_print "last ACK lost once: $r"
check_jq "a lost last ACK costs one sampled timeout (20 ms), not rto.h's initial 1 s" \
	'.cct_ms < 100 and .timeouts == 2 and .unsampled == 0 and .resent == 128' "$r"

# 34: the flow models on point 1's ring (6 steps of 64 KiB, 16 frames):
# legacy's one queue pair per ring hop numbers PSNs on across its
# messages (96 frames: 0..95); astra gives each step a queue pair of its
# own, a new flow each (6 per rank), and nccl keeps one; both number
# each message's PSNs from 0 (0..15)
for fl in legacy astra nccl; do
	"$sim" ring --leaves 2 --spines 2 --hosts-per-leaf 2 --rate 10mbit --rto 500 \
		--ring 1=0,2,1,3 --size 256k --flows "$fl" --out "$tmp/flows-$fl.json"
done
r=$("$sim" ring --ring 1=0,1 --flows astra --step-qps 2 2>&1) && rc=0 || rc=$?
check_jq "--flows: legacy PSNs run on (max 95); astra a queue pair and flow per step, nccl one; both PSNs from 0 per message (max 15); astra with --step-qps exits 2" \
	'.legacy == {psn: 95, qps: [1], starts: [0], complete: true} and
	 .astra == {psn: 15, qps: [6], starts: [6], complete: true} and
	 .nccl == {psn: 15, qps: [1], starts: [0], complete: true} and
	 (.bad | startswith("2 symofan-sim: --flows astra: --step-qps and --step-flows are for legacy flows"))' \
	"$(for fl in legacy astra nccl; do jq -c --arg f "$fl" '{($f): {psn: ([.ports[].max_psn] | max),
		qps: ([.ranks[].step_qps] | unique), starts: ([.ranks[].counters.flow_starts] | unique),
		complete: .sim.complete}}' "$tmp/flows-$fl.json"; done | jq -sc --arg bad "$rc $(head -1 <<<"$r")" 'add + {bad: $bad}')"

# 35: --symphony-at on two 8-rank rings of one job over 4 ToRs and 4
# spines at 10 Gbit/s: with every port Symphony marks on spine ports
# too; tor keeps it to the ToRs' 16 ports, marking none at the spines;
# tor-up to the ToRs' uplinks, marking none towards the hosts
at() { "$sim" ring --leaves 4 --spines 4 --hosts-per-leaf 4 --rate 10gbit --uplink-rate 10gbit \
	--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k 0.01 tau 0.25 twin 100us warmup 16 samples 16" \
	--marking symphony --ring 1=0,4,8,12,1,5,9,13 --ring 1=2,6,10,14,3,7,11,15 --size 2m --rto 4 \
	--seed 2 --symphony-at "$1" --out "$tmp/at-$1.json"; }
at all && at tor && at tor-up
check_jq "--symphony-at: all marks at spines; tor only at the ToRs (16 RED-only spine ports); tor-up only on the uplinks" \
	'.all.spine > 0 and .all.red_only == 0 and
	 .tor.spine == 0 and .tor.up + .tor.down > 0 and .tor.red_only == 16 and
	 .up.spine == 0 and .up.down == 0 and .up.up > 0 and .up.red_only == 32' \
	"$(for a in all tor tor-up; do jq -c --arg a "${a#tor-}" 'def m(re): [.ports[] | select(.port | test(re)) | .symphony_marks] | add;
		{($a): {spine: m("^spine"), up: m("^leaf[0-9]+->spine"), down: m("^leaf[0-9]+->h"),
			red_only: ([.ports[] | select(.symphony | not)] | length)}}' "$tmp/at-$a.json"; done | jq -sc add)"

# 36: --cc: the profiles' constants in the JSON (mlx5 the default), a
# field overridden, an unknown profile refused
"$sim" ring --ring 1=0,1 --size 64k --out "$tmp/cc-mlx5.json"
"$sim" ring --ring 1=0,1 --size 64k --cc legacy --out "$tmp/cc-legacy.json"
"$sim" ring --ring 1=0,1 --size 64k --cc hpcc --dcqcn-clamp never --dcqcn-decrease-us 8 \
	--out "$tmp/cc-hpcc.json"
r=$("$sim" ring --ring 1=0,1 --cc dcqcn 2>&1) && rc=0 || rc=$?
check_jq "--cc mlx5 (default), legacy, hpcc with --dcqcn-clamp never --dcqcn-decrease-us 8; --cc dcqcn exits 2" \
	'.mlx5 == {profile: "mlx5", f: 1, clamp: "timer", decrease_interval_ns: 4000, cnp_interval_ns: 4000, alpha_interval_ns: 1000} and
	 .legacy == {profile: "legacy", f: 4, clamp: "always", decrease_interval_ns: 0, cnp_interval_ns: 50000, alpha_interval_ns: 55000} and
	 .hpcc == {profile: "hpcc", f: 1, clamp: "never", decrease_interval_ns: 8000, cnp_interval_ns: 4000, alpha_interval_ns: 1000} and
	 .bad == "2 symofan-sim: --cc: '"'dcqcn'"' is not mlx5, hpcc or legacy"' \
	"$(for c in mlx5 legacy hpcc; do jq -c --arg c "$c" '{($c): (.dcqcn | {profile, f, clamp,
		decrease_interval_ns, cnp_interval_ns, alpha_interval_ns})}' "$tmp/cc-$c.json"; done |
	   jq -sc --arg bad "$rc $(head -1 <<<"$r")" 'add + {bad: $bad}')"

# 37: link efficiency: two flows of 100 MiB into one 10 Gbit/s port (h2's
# downlink; h2 sends back to each, sharing its NIC), the second starting
# when the first is half done.  A work-conserving link needs 51,200
# frames of 4,142 bytes, 169.65 ms; the NIC profiles keep the port at
# least 84% busy where legacy's target-rate clamp on every cut idles it
# to 75% (EVALUATION section 4 says why not 95%: after the first flow
# ends, the second regains the line by R_HAI per rate-timer period)
for c in legacy mlx5 hpcc; do
	"$sim" ring --leaves 2 --spines 1 --hosts-per-leaf 2 --rate 10gbit --ring 1=0,2 --ring 2=1,2 \
		--job-start 2=41943 --collective allgather --size 200m --rto 4 --cc "$c" \
		--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2" --marking red --out "$tmp/eff-$c.json"
done
r=$(for c in legacy mlx5 hpcc; do merge "$tmp/eff-$c.json" | jq -c --arg c "$c" \
	'{($c): (169.65 / (([.jobs[].iterations[0].end_ns] | max) / 1e6 - 1) * 1000 | round / 1000)}'; done | jq -sc add)
ktap_print "two flows into one port, link use: $r"
check_jq "two long flows on one port: mlx5 and hpcc keep it at least 84% busy, more than legacy (under 80%)" \
	'.mlx5 >= 0.84 and .hpcc >= 0.84 and .legacy < 0.8 and .mlx5 > .legacy and .hpcc > .legacy' "$r"

# 38-39: two 8 MiB flows of one job through one ToR port, step 1 (from
# h1) first, step 0 (from h0, the lagging step) 2 ms later: Symphony
# marks only the step ahead and the lagging flow finishes sooner than
# under RED; the priority queue (--marking pq) serves the lagging step
# first, marking nothing of Symphony's, and it finishes sooner too;
# sim_symphony_fig9.sh runs the shifts under both markings
fl() { "$sim" flows --leaves 1 --spines 1 --hosts-per-leaf 3 --rate 10gbit --uplink-rate 10gbit \
	--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k 0.01 tau 0.25 twin 100us warmup 16 samples 16" \
	--marking "$1" --rto 4 --flow 1:2:1:1:8m:0 --flow 0:2:1:0:8m:2000 --out "$tmp/fl-$1.json"; }
fl red && fl symphony && fl pq
r=$("$sim" flows --flow 0:0:1:0:1m:0 2>&1) && rc=0 || rc=$?
check_jq "two flows of consecutive steps: Symphony marks the step ahead only, the lagging flow ends sooner; a flow to itself exits 2" \
	'.symphony.marks > 0 and .symphony.marks <= .symphony.outpacing and .red.marks == 0 and
	 .symphony.a < .red.a and (.bad | startswith("2 symofan-sim: --flow: '"'0:0:1:0:1m:0'"'"))' \
	"$(for m in red symphony; do jq -c --arg m "$m" '{($m): {a: (.flows[] | select(.step == 0) | .end_ns - .start_ns),
		marks: ([.ports[].symphony_marks] | add), outpacing: ([.ports[].outpacing_packets] | add)}}' \
		"$tmp/fl-$m.json"; done | jq -sc --arg bad "$rc $(head -1 <<<"$r")" 'add + {bad: $bad}')"
"$TOP_DIR/eval/sim_symphony_fig9.sh" --bytes 4m --shifts "0 100" --out "$tmp/fig9/f.json" >"$tmp/fig9.log" 2>&1
# point 35's rings with Astra-Sim's flows, nothing dropped: a flow whose
# step turns lagging must not overtake its own queued packets (916 resent
# when the priority queue reordered them)
"$sim" ring --leaves 4 --spines 4 --hosts-per-leaf 4 --rate 10gbit --uplink-rate 10gbit \
	--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k 0.01 tau 0.25 twin 100us warmup 16 samples 16" \
	--marking pq --ring 1=0,4,8,12,1,5,9,13 --ring 1=2,6,10,14,3,7,11,15 --size 2m --rto 4 \
	--seed 2 --cc hpcc --flows astra --out "$tmp/pq-rings.json"
check_jq "the priority queue serves the lagging step first (no Symphony marks, ends sooner than RED's) and reorders no flow (nothing resent); fig9.sh: both markings per shift, Symphony's A sooner at full overlap" \
	'.pq.a < .red.a and .pq.marks == 0 and .rings == {resent: 0, drops: 0} and
	 ([.fig9.runs[] | [.shift_pct, .marking]] == [[0, "red"], [0, "symphony"], [100, "red"], [100, "symphony"]]) and
	 ([.fig9.runs[] | select(.shift_pct == 100) | .a.completion_ms] | .[1] < .[0])' \
	"$(for m in red pq; do jq -c --arg m "$m" '{($m): {a: (.flows[] | select(.step == 0) | .end_ns - .start_ns),
		marks: ([.ports[].symphony_marks] | add)}}' "$tmp/fl-$m.json"; done |
	   jq -sc --argjson f "$(cat "$tmp/fig9/f.json" 2>/dev/null || echo null)" \
		--argjson rings "$(merge "$tmp/pq-rings.json" | jq -c --argjson d "$(jq '[.ports[] | .limit_drops + .red_drops] | add' "$tmp/pq-rings.json")" \
			'{resent: .counters.retransmitted_packets, drops: $d}')" 'add + {fig9: $f, rings: $rings}')"

# 39a: the flows' transmission timelines (--flow-sample-us): every packet
# of each flow is counted once, in samples from the first start until all
# are ACKed; fig9.sh's paper overlap (the samples both send in) is short
# where A starts as B ends and is A's lifetime at full overlap, where
# Symphony gives B under half the port; the option is the flows command's
"$sim" flows --leaves 1 --spines 1 --hosts-per-leaf 3 --rate 10gbit --uplink-rate 10gbit \
	--marking red --rto 4 --flow 1:2:1:1:8m:0 --flow 0:2:1:0:8m:2000 --flow-sample-us 1000 \
	--out "$tmp/fl-sampled.json"
r=$("$sim" ring --ring 1=0,1 --size 64k --flow-sample-us 1000 2>&1) && rc=0 || rc=$?
check_jq "flow timelines: each flow's packets sent once per sample; fig9.sh overlaps the time both transmit; --flow-sample-us outside flows exits 2" \
	'(.sampled.flows | all(.sent_packets_per_sample | add == 2048) and
	  all(.sample_ns == 1000000 and (.sent_packets_per_sample | length) * 1e6 >= .end_ns - .samples_start_ns)) and
	 (.fig9.runs | all((.timeline_packets_per_ms.a | add) == 1024 and (.timeline_packets_per_ms.b | add) == 1024) and
	  all(.both_transmit_ms <= .lifetime_overlap_ms + 2)) and
	 ([.fig9.runs[] | select(.shift_pct == 0 and .marking == "red") | .both_transmit_ms] | .[0] <= 2) and
	 ([.fig9.runs[] | select(.shift_pct == 100 and .marking == "symphony") | .b_share_while_both_pct] | .[0] < 50) and
	 (.bad | startswith("2 symofan-sim: --flow-sample-us is for the flows command"))' \
	"$(jq -nc --slurpfile s "$tmp/fl-sampled.json" --argjson f "$(cat "$tmp/fig9/f.json" 2>/dev/null || echo null)" \
		--arg bad "$rc $(head -1 <<<"$r")" '{sampled: $s[0], fig9: $f, bad: $bad}')"

# 40: sim_symphony_verdict.sh's first rows on the paper's stack, one
# seed: Table 1's rails (6 steps of 8 MB, the ToR uplinks 2:1), the
# baseline over its 80.5 ms bound, Symphony and the priority queue
# paired with RED; the runs' options are the paper's stack
"$TOP_DIR/eval/sim_symphony_verdict.sh" --stack paper --rows fig5 --seeds 1 \
	--out "$tmp/verdict/v.json" >"$tmp/verdict.log" 2>&1
check_jq "sim_symphony_verdict.sh --rows fig5: Fig. 2's bound and ratio, Fig. 5's Symphony and priority queue, on the paper's stack" \
	'.v.stack == "paper" and .v.rows.fig2.bound_ms == 80.531 and .v.rows.fig2.baseline_over_bound > 1 and
	 .v.rows.fig5.symphony.pairs == 1 and .v.rows.fig5.pq.pairs == 1 and .v.rows.fig4 == null and
	 (.rc | test("--cc hpcc --flows astra")) and .at == "tor" and .state == "switch" and .table' \
	"$(jq -nc --slurpfile v "$tmp/verdict/v.json" --slurpfile f "$tmp/verdict/v.fig5.json" \
		--argjson table "$(grep -q '^| Fig. 5: ' "$tmp/verdict.log" && echo true || echo false)" \
		'{v: $v[0], rc: $f[0].workload.ringcoll, at: $f[0].qdisc.symphony_at, state: $f[0].qdisc.state,
		  table: $table}' 2>/dev/null)"

# 41: point 15's rings: with --step-flows every step is a new flow and
# leaves at the 20 Mbit/s line rate (reading the queue pair's rate when
# the step was posted, before the reset, gave 19.2 Mbit/s); without it a
# later step starts where DCQCN left the pair; the merged run names the
# flow model (legacy for --step-qps, astra for point 39's rings)
"$sim" ring --leaves 4 --spines 1 --hosts-per-leaf 1 --rate 20mbit --uplink-rate 10mbit \
	--links htb --qdisc "limit 2000 kmin 6kb kmax 30kb pmax 0.2" --marking red \
	--ring 1=0,1,2,3 --ring 2=3,2,1,0 --size 256k --step-qps 2 --out "$tmp/qp-rate.json"
first_rates() { jq -c '[.ranks[].jobs[].iterations[].steps[].first_rate_bps] | {n: length, min: min, max: max}' "$1"; }
r=$(jq -nc --argjson flows "$(first_rates "$tmp/gbn.json")" --argjson qp "$(first_rates "$tmp/qp-rate.json")" \
	--arg gbn "$(merge "$tmp/gbn.json" | jq -r .run.flows)" --arg rings "$(merge "$tmp/pq-rings.json" | jq -r .run.flows)" \
	--argjson fl "$(jq -c '[.flows[].first_rate_bps] | unique' "$tmp/fl-red.json")" \
	'{flows: $flows, qp: $qp, gbn: $gbn, rings: $rings, fl: $fl}')
ktap_print "steps' first rates: $r"
check_jq "first_rate_bps: --step-flows steps all leave at 20 Mbit/s, a kept queue pair's later step below it, single flows at 10 Gbit/s; the run names its flows" \
	'.flows == {n: 48, min: 20000000, max: 20000000} and .qp.n == 48 and .qp.min < 20000000 and
	 .fl == [10000000000] and .gbn == "legacy" and .rings == "astra"' "$r"

# 42-45: the Ofan paper's comparators on a k=4 permutation (seed 1): the
# uplink (edge->agg, agg->core) and downlink (core->agg, agg->edge,
# edge->host) ports' largest queues, in frames
updown() {
	"$sim" perm --seed 1 --out "$tmp/lb.json" "$@" >/dev/null &&
	jq -c '{up: ([.ports[] | select(.port | test("^edge[0-9]+->agg|^agg[0-9]+->core")) | .max_backlog_packets] | max),
		down: ([.ports[] | select(.port | test("^core[0-9]+->agg|^agg[0-9]+->edge|->h")) | .max_backlog_packets] | max),
		complete: .sim.complete, lb: .lb, lb_mode: .lb_mode, pipe_ports: .pipe_ports}' "$tmp/lb.json"
}
r=$(jq -nc --argjson j32 "$(updown --packets 32 --lb jsq)" --argjson j256 "$(updown --packets 256 --lb jsq)" \
	--argjson r256 "$(updown --packets 256 --lb rps)" '{j32: $j32, j256: $j256, r256: $r256}')
ktap_print "JSQ at 32 and 256 packets, RPS at 256: $r"
# Thm. 2: synchronised senders stick to one uplink each, so JSQ's uplinks
# hold a few frames while the downlinks grow with the message (linearly:
# 16 frames at 32 packets, 184 at 256), past random spraying's (sqrt m)
check_jq "JSQ (Thm. 2): uplink queues stay bounded, downlink queues grow with the message, past RPS's" \
	'.j32.complete and .j256.complete and .j256.up <= 10 and .j256.down >= 4 * .j32.down and
	 .j256.down > 2 * .r256.down' "$r"

r=$(jq -nc --argjson ar "$(updown --packets 256 --lb ar)" --argjson fine "$(updown --packets 256 --lb ar --ar-buffer 20k)" \
	--argjson jsq "$(updown --packets 256 --lb jsq)" '{ar: $ar, fine: $fine, jsq: $jsq}')
ktap_print "AR at the paper's 800 KB buffer, at 20 KB, JSQ: $r"
# AR sees a queue only once it passes 5% of the buffer (40 KB, 19 frames
# here): below that it sprays at random, its uplinks queue as RPS's; with
# quanta under a frame (a 20 KB buffer: 1 KB) it is JSQ on the uplinks
check_jq "AR: coarse quanta hide the uplink queues JSQ sees; quanta under a frame make it JSQ on the uplinks" \
	'.ar.complete and .fine.complete and .ar.up >= 2 * .jsq.up and .fine.up <= .jsq.up + 2' "$r"

# Ofan's pointers start at random, ACK pointers half a round later (the
# paper's section 4.1, as the agent starts them); --ofan-start zero gives
# this simulator's earlier runs bit for bit (seed 2: 388,430 bytes of
# largest queues over the ports, 228 ms, 73,132 events before random starts)
sum_q() { jq -c '{q: ([.ports[].max_backlog_bytes] | add), ns: .sim.simulated_ns, events: .sim.events, start: .ofan_start}' "$1"; }
"$sim" perm --packets 128 --seed 2 --lb ofan --ofan-start zero --out "$tmp/zero.json" >/dev/null
r=$(jq -nc --argjson zero "$(sum_q "$tmp/zero.json")" --argjson random "$(sum_q "$tmp/perm-ofan.json")" \
	'{zero: $zero, random: $random}')
ktap_print "Ofan's starts: $r"
check_jq "Ofan's pointers start at random by default; --ofan-start zero reproduces the earlier runs" \
	'.zero == {q: 388430, ns: 228000000, events: 73132, start: "zero"} and .random.start == "random" and
	 .random.q != .zero.q' "$r"

# 4ofan is pOfan with four ports a pipe, as the paper names it, and
# Nofan N ports a pipe (Fig. 6's 1Ofan, 2Ofan): the same run as --lb pofan
# --pipe-ports N
r=$(updown --packets 8 --k 8 --lb 4ofan)
bad=$("$sim" perm --packets 8 --lb 4ofan --pipe-ports 2 2>&1) && rc=0 || rc=$?
r=$(jq -c --arg bad "$rc $(head -1 <<<"$bad")" --argjson two "$(updown --packets 64 --k 8 --lb 2ofan)" \
	--argjson pipes2 "$(updown --packets 64 --k 8 --lb pofan --pipe-ports 2)" \
	'. + {bad: $bad, two: $two, pipes2: $pipes2}' <<<"$r")
check_jq "--lb 4ofan runs pOfan with 4 ports a pipe, --pipe-ports 2 with it exits 2; 2ofan is --pipe-ports 2" \
	'.lb == "4ofan" and .lb_mode == "pofan" and .pipe_ports == 4 and .complete and
	 .bad == "2 symofan-sim: --lb 4ofan has 4 ports a pipe, not --pipe-ports 2" and
	 .two.lb_mode == "pofan" and .two.pipe_ports == 2 and .two.complete and
	 (.two | del(.lb)) == (.pipes2 | del(.lb))' "$r"


# 46-50: REPS (--lb reps): ECMP switches, each host choosing its packets'
# UDP source ports from a cache of recycled entropies (Bonato et al.; the
# Ofan paper's [8]); per-host counters summed over the 16 hosts
reps_sum() {
	jq -c '[.hosts[].reps] | {explored: (map(.explored) | add), recycled: (map(.recycled) | add),
		retired: (map(.retired) | add), cached: (map(.cached) | add), ce: (map(.ce_received) | add),
		freezes: (map(.frozen_episodes) | add), frozen_reused: (map(.frozen_reused) | add),
		frozen_explored: (map(.frozen_explored) | add), timeouts: (map(.timeouts) | add),
		max_explored: (map(.explored) | max), min_recycled: (map(.recycled) | min),
		max_distinct: (map(.distinct_entropies) | max), min_distinct: (map(.distinct_entropies) | min)}' "$1"
}
nomark="limit 1000000 kmin 4000000000 kmax 4000000000 pmax 0"

# 46: recycling: at 10% of the line rate no queue builds and nothing is
# marked, so every ACK returns its entropy to the cache and the next
# packet takes it back: each host explores once and recycles the rest
"$sim" perm --seed 1 --packets 256 --load 10 --lb reps --out "$tmp/reps-idle.json" >/dev/null
r=$(jq -c --argjson s "$(reps_sum "$tmp/reps-idle.json")" \
	'{s: $s, complete: .sim.complete, marks: ([.ports[].red_marks] | add)}' "$tmp/reps-idle.json")
ktap_print "REPS unloaded (256 packets a host at 10%): $r"
check_jq "REPS recycles: unloaded, each host reuses at most 8 entropies, recycling at least 240 of its 256 packets' entropies" \
	'.complete and .marks == 0 and .s.retired == 0 and .s.freezes == 0 and .s.max_explored <= 8 and
	 .s.max_distinct <= 8 and .s.min_recycled >= 240' "$r"

# 47: retiring: the same full-rate permutation without marks and with
# every packet marked past 8 KB (2 frames): each CE mark comes back in its
# packet's ACK (BTH BECN) and retires that entropy, so the hosts explore
# new ones and the set in use turns over (freezing off, to see only this)
"$sim" perm --seed 1 --packets 256 --lb reps --reps-freeze-us 0 --qdisc "$nomark" \
	--out "$tmp/reps-nomark.json" >/dev/null
"$sim" perm --seed 1 --packets 256 --lb reps --reps-freeze-us 0 \
	--qdisc "limit 1000000 kmin 8kb kmax 8kb pmax 1" --out "$tmp/reps-mark.json" >/dev/null
r=$(jq -nc --argjson no "$(reps_sum "$tmp/reps-nomark.json")" --argjson ecn "$(reps_sum "$tmp/reps-mark.json")" \
	'{no: $no, ecn: $ecn}')
ktap_print "REPS without marks and with marks past 8 KB: $r"
check_jq "REPS retires marked entropies: one per echoed CE mark; the hosts explore 3x more and use other entropies" \
	'.no.retired == 0 and .no.ce == 0 and .ecn.retired > 0 and .ecn.retired == .ecn.ce and
	 .ecn.cached + .ecn.retired == 4096 and .ecn.explored > 3 * .no.explored and
	 .ecn.min_distinct > .no.max_distinct' "$r"

# 48: freezing: ports holding at most 16 packets drop, the lost packets'
# ACKs never come, and a packet unACKed past the timeout freezes the
# host's cache for 10 ms: while frozen it reuses the cached entropies and
# explores none; with --reps-freeze-us 0 the same timeouts freeze nothing
"$sim" perm --seed 1 --packets 256 --lb reps --qdisc "limit 16 kmin 4000000000 kmax 4000000000 pmax 0" \
	--stop-ms 3000 --out "$tmp/reps-loss.json" >/dev/null || true
"$sim" perm --seed 1 --packets 256 --lb reps --reps-freeze-us 0 \
	--qdisc "limit 16 kmin 4000000000 kmax 4000000000 pmax 0" --stop-ms 3000 \
	--out "$tmp/reps-loss0.json" >/dev/null || true
r=$(jq -nc --argjson frz "$(reps_sum "$tmp/reps-loss.json")" --argjson off "$(reps_sum "$tmp/reps-loss0.json")" \
	--argjson drops "$(jq '[.ports[].limit_drops] | add' "$tmp/reps-loss.json")" \
	'{frz: $frz, off: $off, drops: $drops}')
ktap_print "REPS with losses, freezing at 10 ms and off: $r"
check_jq "REPS freezes on timeouts: frozen, every packet reuses a cached entropy, none explored; off, no freeze" \
	'.drops > 0 and .frz.timeouts > 0 and .frz.freezes > 0 and .frz.freezes <= .frz.timeouts and
	 .frz.frozen_reused > 0 and .frz.frozen_explored == 0 and
	 .off.timeouts > 0 and .off.freezes == 0 and .off.frozen_reused == 0' "$r"

# 49: the permutation completes, and REPS's largest queues on it (k=4,
# seed 1, 256 packets: ECMP 319 frames up and 641 down, RPS 57 and 57,
# REPS 70 and 64) sit with random spraying's, not ECMP's: the Ofan
# paper's Fig. 4 puts REPS in RPS's sqrt(m) group
r=$(jq -nc --argjson reps "$(updown --packets 256 --lb reps)" --argjson rps "$(updown --packets 256 --lb rps)" \
	--argjson ecmp "$(updown --packets 256 --lb ecmp)" '{reps: $reps, rps: $rps, ecmp: $ecmp}')
ktap_print "largest queues, 256 packets: $r"
check_jq "REPS's permutation completes with queues within 2x of RPS's and under a quarter of ECMP's" \
	'.reps.complete and .reps.lb == "reps" and .reps.lb_mode == "ecmp" and
	 ([.reps.up, .reps.down] | max) <= 2 * ([.rps.up, .rps.down] | max) and
	 ([.reps.up, .reps.down] | max) * 4 < ([.ecmp.up, .ecmp.down] | max)' "$r"

# 50: the run names REPS's parameters (the defaults: 8 entropies, 10 ms
# freezes, ECN at a tenth of the 800 KB buffer); its options are strict
bad_rc() { "$sim" "$@" >/dev/null 2>"$tmp/bad.err" && echo "0 " || echo "$? $(head -1 "$tmp/bad.err")"; }
r=$(jq -c --arg b1 "$(bad_rc perm --lb reps --reps-entropies 0)" \
	--arg b2 "$(bad_rc perm --lb reps --reps-freeze-us 5ms)" \
	--arg b3 "$(bad_rc perm --reps-entropies 4)" \
	--arg b4 "$(bad_rc ring --ring 1=0,1 --lb reps)" \
	'{reps: .reps, qdisc: .qdisc, b1: $b1, b2: $b2, b3: $b3, b4: $b4}' "$tmp/reps-idle.json")
check_jq "--lb reps: its parameters in the JSON; bad values and misplaced options exit 2, naming them" \
	'.reps == {entropies: 8, freeze_us: 10000, explore_after_freeze: 16, ports: [49152, 65535],
		   timeout_min_ns: 2000, ecn_threshold_bytes: 80000} and
	 .qdisc == "limit 1000000 kmin 80000 kmax 80000 pmax 1" and
	 .b1 == "2 symofan-sim: --reps-entropies: '"'"'0'"'"' is not a number in 1..1024" and
	 .b2 == "2 symofan-sim: --reps-freeze-us: '"'"'5ms'"'"' is not a number in 0..10000000" and
	 (.b3 | startswith("2 symofan-sim: --reps-entropies, --reps-freeze-us and --reps-timeout-min-us are for --lb reps")) and
	 (.b4 | startswith("2 symofan-sim: --lb reps is for the perm command"))' "$r"


# 51: the Ofan paper's section 6 conjecture, that REPS gets worse at large
# messages as queues grow long enough for a timeout and freezing sets in:
# at 100 Gbit/s (round trips of microseconds, so a 10 ms freeze outlasts
# the run) and 1024 packets a host, queueing delay trips the timeouts and
# the frozen hosts keep sending on their cached entropies, marked or not
# (seed 1: 12 freezes, largest queue 415 frames against 91 without
# freezing, CCT 544 us against 387 us)
qc() { jq -c '{q: ([.ports[].max_backlog_bytes] | max / 4148 | floor), cct: ([.hosts[].cct_ns] | max),
	freezes: ([.hosts[].reps.frozen_episodes] | add), complete: .sim.complete}' "$1"; }
"$sim" perm --seed 1 --k 4 --rate 100gbit --packets 1024 --lb reps --out "$tmp/reps-big.json" >/dev/null
"$sim" perm --seed 1 --k 4 --rate 100gbit --packets 1024 --lb reps --reps-freeze-us 0 \
	--out "$tmp/reps-big0.json" >/dev/null
r=$(jq -nc --argjson frz "$(qc "$tmp/reps-big.json")" --argjson off "$(qc "$tmp/reps-big0.json")" '{frz: $frz, off: $off}')
ktap_print "REPS at 1024 packets, 100 Gbit/s, freezing and not: $r"
check_jq "REPS at large messages: timeouts freeze the caches and the largest queue grows past twice, the CCT past 1.2x, that without freezing" \
	'.frz.complete and .off.complete and .frz.freezes > 0 and .off.freezes == 0 and
	 .frz.q > 2 * .off.q and .frz.cct > 1.2 * .off.cct' "$r"

# 52: --paper-ofan, the Ofan paper's settings (section 6, Table 1): a k=12
# fat tree of 432 hosts at 800 Gbit/s, 0.5 us links, 4,158-byte data
# frames (4,096 of payload, 62 of headers), the RoCE ACK's 66, a 20-byte
# gap, the 800 KB buffer (ECN at 80 KB for reps), time in ps
"$sim" perm --paper-ofan --packets 4 --lb ofan --seed 1 --out "$tmp/paper.json" >/dev/null
r=$(jq -c '{preset, p: .paper_ofan, complete: .sim.complete, k: .topology.k, hosts: .topology.hosts,
	rate: .topology.rate_bps, up: .topology.uplink_rate_bps, delay: .topology.delay_ns,
	ar: .ar_buffer_bytes, n: (.hosts | length), acked: ([.hosts[].acked] | add)}' "$tmp/paper.json")
ktap_print "--paper-ofan, 4 packets: $r"
check_jq "--paper-ofan: 432 hosts at 800 Gbit/s, 500 ns links, 4,158-byte frames, 66-byte ACKs, a 20-byte gap; every packet ACKed" \
	'.preset == "paper-ofan" and .complete and .k == 12 and .hosts == 432 and .n == 432 and
	 .acked == 432 * 4 and .rate == 800000000000 and .up == 800000000000 and .delay == 500 and
	 .ar == 800000 and .p.time_resolution == "ps" and .p.payload_bytes == 4096 and
	 .p.header_bytes == 62 and .p.frame_bytes == 4158 and .p.ack_frame_bytes == 66 and
	 .p.paper_ack_bytes == 64 and .p.ifg_bytes == 20 and .p.device_interframe_gap_ps == 360 and
	 .p.frame_wire_ps == 41780 and .p.port_buffer_bytes == 800000 and
	 .p.ecn_threshold_bytes == 80000' "$r"

# 53: the links and the hosts' pace take a frame and its gap at 41.78 ns
# (ACK and gap 0.86 ns), exactly, as the perm driver's Appendix-A bound
# does: at 4 packets the bound is 2,210 ns at 2 hops, 4,295 at 4, 6,381 at
# 6 (1 and 3 us of propagation each way), no host beats it (at ns
# resolution frames of 41 ns would) and uncongested hosts meet it to
# the ns
r=$(jq -c '{bounds: ([.hosts[] | {h: .hops, b: .lower_bound_full_rate_ns}] | unique),
	below: ([.hosts[] | select(.cct_ns < .lower_bound_full_rate_ns)] | length),
	at: ([.hosts[] | select(.cct_ns == .lower_bound_full_rate_ns)] | length),
	worst: ([.hosts[] | .cct_ns / .lower_bound_full_rate_ns] | max)}' "$tmp/paper.json")
ktap_print "--paper-ofan's CCTs against the bound: $r"
check_jq "--paper-ofan: the bound at 41.78 ns a frame; no host under it, some at it, none past 1.2x" \
	'.bounds == [{h: 2, b: 2210}, {h: 4, b: 4295}, {h: 6, b: 6381}] and .below == 0 and
	 .at > 0 and .worst < 1.2' "$r"

# 54: an option given with --paper-ofan overrides its one setting (--k 8:
# 128 hosts, the rest the paper's); --paper-ofan is for perm on p2p links
r=$(jq -c --arg b1 "$(bad_rc ring --ring 1=0,1 --paper-ofan)" \
	--arg b2 "$(bad_rc perm --paper-ofan --links htb)" \
	'{hosts: .topology.hosts, k: .topology.k, rate: .topology.rate_bps, delay: .topology.delay_ns,
	  frame: .paper_ofan.frame_bytes, preset, complete: .sim.complete, b1: $b1, b2: $b2}' \
	<("$sim" perm --paper-ofan --k 8 --packets 4 --lb ofan --seed 1))
check_jq "--paper-ofan --k 8: 128 hosts, the paper's other settings; misplaced, exit 2" \
	'.preset == "paper-ofan" and .complete and .k == 8 and .hosts == 128 and
	 .rate == 800000000000 and .delay == 500 and .frame == 4158 and
	 (.b1 | startswith("2 symofan-sim: --paper-ofan is for the perm command")) and
	 (.b2 | startswith("2 symofan-sim: --paper-ofan runs a fat tree on point-to-point links"))' "$r"

# 55-60: --cca, a window per host for sprayed traffic (window_cc.h's
# DCTCP, NSCC and MSwift; every packet ACKed on its own, a lost one sent
# again once ACKs came back for 3 + paths packets sent after it or past
# its timeout), on a k=4 fat tree at 100 Gbit/s, 256 packets a host
ccs() { jq -c '{c: .cca.algorithm, thr: .cca.dupack_threshold, lim: .cca.port_limit_packets,
	ecn: .cca.ecn_threshold_bytes, complete: .sim.complete,
	q: ([.ports[].max_backlog_bytes] | max / 4142 | floor),
	drops: ([.ports[].limit_drops] | add), marks: ([.ports[].red_marks] | add),
	acked: ([.hosts[].acked] | add), lost: ([.hosts[].cc.lost_dupack // 0] | add),
	timeouts: ([.hosts[].cc.lost_timeout // 0] | add),
	dupr: ([.hosts[].cc.duplicates_received // 0] | add),
	resent: ([.hosts[].cc.retransmitted // 0] | add),
	dec: ([.hosts[].cc.decreases // 0] | add), cct: ([.hosts[].cct_ns] | max)}' "$1"; }
ccrun() { local out=$1; shift
	"$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 "$@" --out "$tmp/$out.json" >/dev/null
	ccs "$tmp/$out.json"; }

# 55: each algorithm carries Ofan's permutation: every packet ACKed once,
# nothing lost, nothing sent twice; the threshold 3 + (k/2)^2 = 7, ports
# of the default 800 KB buffer (193 frames), ECN at 80 KB
r=$(jq -nc --argjson d "$(ccrun cc-dctcp --lb ofan --cca dctcp)" \
	--argjson n "$(ccrun cc-nscc --lb ofan --cca nscc)" \
	--argjson m "$(ccrun cc-mswift --lb ofan --cca mswift)" '[$d, $n, $m]')
ktap_print "--cca on Ofan: $r"
check_jq "--cca dctcp, nscc, mswift: Ofan's permutation complete, 4,096 packets ACKed, none lost or resent" \
	'(map(.complete and .acked == 4096 and .lost == 0 and .timeouts == 0 and .resent == 0 and
	      .thr == 7 and .lim == 193 and .ecn == 80000) | all) and
	 map(.c) == ["dctcp", "nscc", "mswift"]' "$r"

# 56: loss recovery: ports of 40 KB (9 frames) under ECMP drop; every
# packet still arrives and is ACKed, the losses found by duplicate ACKs
# and by timeouts and sent again
r=$(ccrun cc-loss --lb ecmp --cca dctcp --ar-buffer 40k)
ktap_print "--cca dctcp, ECMP, 9-frame ports: $r"
check_jq "--cca: drops at 9-frame ports, every packet resent until ACKed; losses by duplicate ACKs and timeouts" \
	'.complete and .lim == 9 and .drops > 0 and .acked == 4096 and .lost > 0 and
	 .timeouts > 0 and .resent >= .drops' "$r"

# 57: reordering: random spraying (rps) reorders; a packet is lost once
# ACKs came back for 3 + paths packets sent after it (RFC 6675's count),
# which sends under a twentieth as many packets twice as a threshold of 1
# (nothing drops: every resend is spurious).  Declaring the loss on one
# ACK 3 + paths transmissions later instead (the first --cca) resent 125
# here, against 768 at 1
r=$(jq -nc --argjson d "$(ccrun cc-rps --lb rps --cca dctcp)" \
	--argjson one "$(ccrun cc-rps1 --lb rps --cca dctcp --dupack-threshold 1)" '{d: $d, one: $one}')
ktap_print "--cca dctcp, rps, thresholds 7 and 1: $r"
check_jq "--cca: 3 + paths ACKs past a packet tolerate spraying's reordering: under a twentieth of the spurious resends of a threshold of 1" \
	'.d.complete and .one.complete and .d.drops == 0 and .one.drops == 0 and
	 .one.resent > 100 and .d.resent * 20 < .one.resent' "$r"

# 58: DCTCP's law in the fabric: ECMP's collisions mark, each marked
# window cuts, and the largest queue is under a third of the open loop's
r=$(jq -nc --argjson none "$(ccrun cc-none --lb ecmp)" \
	--argjson d "$(ccrun cc-ecmp --lb ecmp --cca dctcp)" '{none: $none, d: $d}')
ktap_print "ECMP, no window and DCTCP: $r"
check_jq "--cca dctcp under ECMP: marks cut the windows; the largest queue under a third of the open loop's" \
	'.none.complete and .d.complete and .d.marks > 0 and .d.dec > 0 and .none.q > 3 * .d.q' "$r"

# 59: the signals: with marking off, DCTCP and NSCC (which cuts only on a
# mark with a queue) never cut, MSwift (delay alone) does, as often as
# with marks
nomark="limit 193 kmin 4000000000 kmax 4000000000 pmax 0"
r=$(jq -nc --argjson d "$(ccrun cc-d0 --lb ecmp --cca dctcp --qdisc "$nomark")" \
	--argjson n "$(ccrun cc-n0 --lb ecmp --cca nscc --qdisc "$nomark")" \
	--argjson m "$(ccrun cc-m0 --lb ecmp --cca mswift --qdisc "$nomark")" \
	--argjson mm "$(ccrun cc-mm --lb ecmp --cca mswift)" '{d: $d, n: $n, m: $m, mm: $mm}')
ktap_print "ECMP without marks: $r"
check_jq "--cca without marks: DCTCP and NSCC never cut, MSwift cuts on delay as with marks" \
	'.d.marks == 0 and .d.dec == 0 and .n.dec == 0 and .m.marks == 0 and .m.dec > 0 and
	 .m.dec == .mm.dec' "$r"

# 60: bad and misplaced --cca options exit 2, naming them
r=$(jq -nc --arg b1 "$(bad_rc perm --cca cubic)" \
	--arg b2 "$(bad_rc ring --ring 1=0,1 --cca dctcp)" \
	--arg b3 "$(bad_rc perm --dupack-threshold 5)" \
	--arg b4 "$(bad_rc perm --cca dctcp --mswift-subflows 4)" \
	--arg b5 "$(bad_rc perm --cca dctcp --dupack-threshold 0)" '{b1: $b1, b2: $b2, b3: $b3, b4: $b4, b5: $b5}')
check_jq "--cca: unknown algorithms, misplaced and out-of-range options exit 2, naming them" \
	'(.b1 | startswith("2 symofan-sim: --cca: unknown algorithm '"'"'cubic'"'"'")) and
	 (.b2 | startswith("2 symofan-sim: --cca is for the perm command")) and
	 (.b3 | startswith("2 symofan-sim: --dupack-threshold, --mswift-subflows, --loss-rto-min-us, --cwnd-init-pct and --cwnd-max-pct are for --cca")) and
	 (.b4 | startswith("2 symofan-sim: --mswift-subflows is for --cca mswift")) and
	 (.b5 | startswith("2 symofan-sim: --dupack-threshold: '"'"'0'"'"' is not a number in 1..100000"))' "$r"

# 61: eval/sim_ofan_cca.sh (Fig. 12) end to end at a toy size: every
# point, its mean and SEM over two seeds, the headline ratios
"$TOP_DIR/eval/sim_ofan_cca.sh" --k 4 --packets 256 --seeds 2 --ccas "dctcp mswift" \
	--modes "ofan ar ecmp" --jobs 2 --out "$tmp/fig12.json" >/dev/null 2>&1
r=$(jq -c '{points: [.summary[] | [.cca, .mode, .runs, .complete, (.cct_increase.sem != null)]],
	head: [.headline[] | {cca, claim: .paper_claim, ar: (.ar_over_ofan > 0), reps: .reps_over_ofan}]}' \
	"$tmp/fig12.json")
ktap_print "sim_ofan_cca.sh at k=4: $r"
check_jq "eval/sim_ofan_cca.sh: every CCA and mode over two seeds with its SEM, the headline per CCA" \
	'.points == [["dctcp","ar",2,true,true],["dctcp","ecmp",2,true,true],["dctcp","ofan",2,true,true],
		     ["mswift","ar",2,true,true],["mswift","ecmp",2,true,true],["mswift","ofan",2,true,true]] and
	 .head == [{cca: "dctcp", claim: null, ar: true, reps: null}, {cca: "mswift", claim: 39, ar: true, reps: null}]' "$r"

# 62: --lb drb, host destination rotation (the Ofan paper's section 3.4):
# each host rotates a pointer per destination and size class over the
# (k/2)^2 paths through the cores, the switches follow its path number;
# 256 packets a flow spread exactly evenly: every switch's uplinks carry
# the same count (ECMP's and rps's do not); a failed link is skipped
spread() { jq -c '[.ports[] | select(.port | test("^(edge|agg)[0-9]+->(agg|core)"))
	| {sw: (.port | split("->")[0]), n: .packets}] | group_by(.sw) | map([.[].n] | max - min)
	| {spread: max, switches: length}' "$1"; }
"$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 --lb drb --out "$tmp/drb.json" >/dev/null
"$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 --lb rps --out "$tmp/drb-rps.json" >/dev/null
"$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 --lb ecmp --out "$tmp/drb-ecmp.json" >/dev/null
"$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 --lb drb --fail 3 --out "$tmp/drb-fail.json" >/dev/null
r=$(jq -nc --argjson d "$(spread "$tmp/drb.json")" --argjson e "$(spread "$tmp/drb-ecmp.json")" \
	--argjson r "$(spread "$tmp/drb-rps.json")" \
	--argjson f "$(jq -c '{complete: .sim.complete, acked: ([.hosts[].acked] | add),
		failed: .topology.failed_links}' "$tmp/drb-fail.json")" \
	--argjson dd "$(jq -c '{complete: .sim.complete, acked: ([.hosts[].acked] | add)}' "$tmp/drb.json")" \
	--arg b "$(bad_rc ring --ring 1=0,1 --lb drb)" '{drb: $d, dd: $dd, ecmp: $e, rps: $r, fail: $f, b: $b}')
ktap_print "uplink packet spread per switch (max - min): $r"
check_jq "--lb drb: every switch's uplinks carry exactly as many packets (ECMP's and rps's do not); a failed link skipped; perm only" \
	'.drb.spread == 0 and .drb.switches == 16 and .dd.complete and .dd.acked == 4096 and
	 .ecmp.spread > 100 and .rps.spread > 10 and .fail.complete and .fail.acked == 4096 and
	 .fail.failed == ["edge1-agg1"] and (.b | startswith("2 symofan-sim: --lb drb is for the perm command"))' "$r"

# 63: --lb-mix (the Ofan paper's Fig. 11): half the balancing switches
# run AR, the others Ofan: every edge switch, every aggregation switch,
# those of half the pods, or half of them drawn from the seed; 8 of the
# 16 at k=4 each time, and each mix's largest queue lies above Ofan's
# alone and no higher than AR's alone
mixq() { "$sim" perm --k 4 --rate 100gbit --packets 256 --seed 2 "$@" --out "$tmp/mix.json" >/dev/null
	jq -c '{mix: .lb_mix, complete: .sim.complete, q: ([.ports[].max_backlog_bytes] | max / 4142)}' "$tmp/mix.json"; }
r=$(jq -nc --argjson o "$(mixq --lb ofan)" --argjson a "$(mixq --lb ar)" \
	--argjson e "$(mixq --lb ofan --lb-mix ar@edge)" --argjson g "$(mixq --lb ofan --lb-mix ar@agg)" \
	--argjson p "$(mixq --lb ofan --lb-mix ar@pods)" --argjson s "$(mixq --lb ofan --lb-mix ar@switches)" \
	--arg b "$(bad_rc perm --lb-mix ar@cores)" '{ofan: $o, ar: $a, mixes: [$e, $g, $p, $s], b: $b}')
ktap_print "--lb-mix: $r"
check_jq "--lb-mix ar@edge|agg|pods|switches: 8 of 16 switches AR, the largest queue between Ofan's and AR's" \
	'. as $r | .ofan.complete and .ar.complete and
	 ([.mixes[] | .complete and .mix.mode == "ar" and .mix.switches == 8] | all) and
	 [.mixes[].mix.where] == ["edge", "agg", "pods", "switches"] and
	 ([.mixes[] | .q > $r.ofan.q and .q <= $r.ar.q] | all) and
	 (.b | startswith("2 symofan-sim: --lb-mix: '"'"'ar@cores'"'"' is not MODE@WHERE"))' "$r"

# 64: sim_ofan.sh's Fig. 1, 10 and 11 forms: two loads, a mixed fabric
# as a mode, each point's utilization, the load plot; a two-level fat
# tree of 8-port switches (32 hosts)
"$TOP_DIR/eval/sim_ofan.sh" --k 4 --sizes 128 --modes "ofan ar 4ofan+ar@edge" --seeds 1 \
	--rate 100gbit --load "50 100" --out "$tmp/fig1/fig1.json" >/dev/null 2>&1
"$TOP_DIR/eval/sim_ofan.sh" --two-level --k 8 --sizes 64 --modes "ofan ecmp" --seeds 1 \
	--rate 100gbit --out "$tmp/fig10/fig10.json" >/dev/null 2>&1
r=$(jq -c '{points: [.summary[] | [.mode, .load, .complete]],
	util: ([.summary[] | select(.mode == "ofan") | {(.load | tostring): .utilization.mean}] | add),
	fabric: .fabric.load, two: $two}' --argjson two "$(jq -c '{fabric, q: ([.summary[] |
	{(.mode): .max_queue_frames.median}] | add)}' "$tmp/fig10/fig10.json")" "$tmp/fig1/fig1.json")
ktap_print "sim_ofan.sh --load \"50 100\": $r"
check_jq "sim_ofan.sh: several loads (Fig. 1), A+B@WHERE modes (Fig. 11), utilization per point, -load.png; --two-level (Fig. 10)" \
	'.points == [["4ofan+ar@edge",50,true],["ar",50,true],["ofan",50,true],
		     ["4ofan+ar@edge",100,true],["ar",100,true],["ofan",100,true]] and
	 .fabric == [50, 100] and .util["50"] > 0.3 and .util["50"] < 0.5 and
	 .util["100"] > .util["50"] * 1.5 and '"$([ -s "$tmp/fig1/fig1-load.png" ] && echo true || echo false)"' and
	 .two.fabric.tiers == 2 and .two.fabric.hosts == 32 and .two.q.ofan * 10 < .two.q.ecmp' "$r"

# 65: sim_ofan.sh's Fig. 5/6 and Fig. 8 forms: several fabrics in one run
# (Nofan modes; 2ofan at k=4, one pipe of both downlinks, is Ofan run for
# run), and a packet-size sweep of messages in KiB, each also at Thm. 6's
# optimum payload sqrt(82 D / 10), past 8,192 bytes too
"$TOP_DIR/eval/sim_ofan.sh" --k "4 8" --sizes 32 --modes "ofan 2ofan drb" --seeds 1 \
	--rate 100gbit --out "$tmp/fig6/fig6.json" >/dev/null 2>&1
"$TOP_DIR/eval/sim_ofan.sh" --paper-ofan --k 4 --sizes "64k 256k" --payloads "1024 16384" --modes ofan \
	--seeds 1 --out "$tmp/fig8/fig8.json" >/dev/null 2>&1
bad=$("$TOP_DIR/eval/sim_ofan.sh" --k 4 --sizes 32 --payloads "1024 2048" 2>&1) && rc=0 || rc=$?
r=$(jq -c --argjson fig8 "$(jq -c '{model: .packet_model,
	runs: [.runs[] | [.m, .payload, .packets, .frame_bytes - .payload, .complete, .cct_increase_best_bound >= 0]]}' \
	"$tmp/fig8/fig8.json")" --arg bad "$rc $(tail -1 <<<"$bad")" \
	--argjson png "$([ -s "$tmp/fig6/fig6-size.png" ] && [ -s "$tmp/fig8/fig8-packet.png" ] && echo true || echo false)" \
	'{fabric: .fabric, points: [.summary[] | [.k, .hosts, .mode, .complete]],
	  k4: ([.summary[] | select(.k == 4) | {(.mode): .cct_increase.mean}] | add), fig8: $fig8, bad: $bad,
	  png: $png}' "$tmp/fig6/fig6.json")
ktap_print "sim_ofan.sh --k \"4 8\", --payloads: $r"
check_jq "sim_ofan.sh: several fabrics (Figs. 5, 6, -size.png), Nofan modes; a packet-size sweep with Thm. 6's optimum (Fig. 8, -packet.png)" \
	'.fabric.k == [4, 8] and .fabric.hosts == [16, 128] and
	 .points == [[4,16,"2ofan",true],[4,16,"drb",true],[4,16,"ofan",true],
		     [8,128,"2ofan",true],[8,128,"drb",true],[8,128,"ofan",true]] and
	 .k4["2ofan"] == .k4.ofan and .k4.ofan > 0 and
	 ([.fig8.model[] | [.m, .header_bytes, .optimum_payload, .modelled_increase > 0]] ==
	  [["256k", 82, 1466, true], ["64k", 82, 733, true]]) and
	 (.fig8.runs | sort) == ([["256k", 1024, 256], ["256k", 1466, 179], ["256k", 16384, 16],
				  ["64k", 733, 90], ["64k", 1024, 64], ["64k", 16384, 4]]
				 | map(. + [62, true, true]) | sort) and
	 .bad == "1 sim_ofan.sh: --payloads: several want every --sizes in KiB (512k), not '"'"'32'"'"'" and .png' "$r"

# 66: --pattern all-to-all (the Ofan paper's Figs. 5(b, c), 7(b)): every
# host m packets to each of the 15 others at k=4, a queue pair each in the
# staggered order h+1, h+2, ..., all delivered; Ofan's queue below ECMP's
# (11 frames against 104 at m = 8); not with --cca; sim_ofan.sh's per-host
# sizes (64h: 64 / 15 -> 5 packets a destination)
ata() {
	"$sim" perm --k 4 --packets 8 --pattern all-to-all --seed 1 --out "$tmp/ata.json" "$@" >/dev/null &&
	jq -c '{complete: .sim.complete, sent: ([.hosts[].sent] | add), expected: ([.hosts[].expected] | unique),
		lost: ([.hosts[].lost] | add), dests5: .hosts[5].dests, pattern: .hosts[0].pattern,
		q: ([.ports[].max_backlog_packets] | max),
		over: (([.hosts[].cct_ns] | max) / ([.hosts[].lower_bound_ns] | max))}' "$tmp/ata.json"
}
bad=$("$sim" perm --pattern all-to-all --cca nscc 2>&1) && rc=0 || rc=$?
"$TOP_DIR/eval/sim_ofan.sh" --k 4 --pattern all-to-all --sizes "2 64h" --modes ofan --seeds 1 \
	--rate 100gbit --out "$tmp/ata5/ata.json" >/dev/null 2>&1
r=$(jq -nc --argjson ofan "$(ata --lb ofan)" --argjson ecmp "$(ata --lb ecmp)" --arg bad "$rc $(head -1 <<<"$bad")" \
	--argjson script "$(jq -c '{pattern, points: [.summary[] | [.m, .packets, .complete, .lost]]}' "$tmp/ata5/ata.json")" \
	'{ofan: $ofan, ecmp: $ecmp, bad: $bad, script: $script}')
ktap_print "all-to-all at k=4: $r"
check_jq "--pattern all-to-all: m to every other host, staggered, all delivered, Ofan's queue below ECMP's; not with --cca; sim_ofan.sh --pattern, per-host sizes" \
	'([.ofan, .ecmp] | all(.complete and .sent == 16 * 15 * 8 and .expected == [120] and .lost == 0 and
			      .dests5 == [6,7,8,9,10,11,12,13,14,15,0,1,2,3,4] and .pattern == "all-to-all" and
			      .over >= 1)) and
	 .ofan.q * 5 < .ecmp.q and .ofan.over < .ecmp.over and
	 .bad == "2 symofan-sim: --pattern all-to-all: not with --cca, --load max, --fail or --fail-prob" and
	 .script == {pattern: "all-to-all", points: [[2, 2, true, 0], ["64h", 5, true, 0]]}' "$r"


# 67: a queued packet holds its headers in memory, not its payload
# (roce-host.h's MakeDataFrame): 15 hosts of a k=4 fat tree send 200
# frames of 64 KiB each to host 0, tens of MB queue on the way, and the
# simulator's peak memory grows by under a quarter of the longest queue's
# bytes over the same incast of a frame a sender (payloads written out as
# bytes, it grew by three times them: 214 MB against 23 MB, 62 MB queued)
incast_rss_kb() {
	jq -n --argjson b "$1" '{format: "symofan-matrix", version: 1, hosts: 16,
		bytes: [range(16) as $s | [range(16) as $d | if $d == 0 and $s > 0 then $b else 0 end]]}' \
		>"$tmp/incast-matrix.json"
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
		"$sim" perm --k 4 --rate 10gbit --pattern matrix --matrix "$tmp/incast-matrix.json" \
		--mtu 65491 --out "$tmp/incast.json"
}
one_kb=$(incast_rss_kb 65491)
big_kb=$(incast_rss_kb $((200 * 65491)))
r=$(jq -c --argjson one "$one_kb" --argjson big "$big_kb" \
	'{complete: .sim.complete, queued_kb: ([.ports[].max_backlog_bytes] | max / 1024 | floor),
	  rss_one_kb: $one, rss_big_kb: $big}' "$tmp/incast.json")
ktap_print "an incast of 64 KiB frames: $r"
check_jq "a queued frame's payload is not held in memory: 62 MB queued add under a quarter of it to the peak" \
	'.complete and .queued_kb > 30000 and .rss_big_kb - .rss_one_kb < .queued_kb / 4' "$r"

ktap_finished
