#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_sim_mpi.sh - the simulator over ns-3's distributed engine
# (build/symofan-sim-mpi: scripts/build-ns3-mpi.sh, then make sim-mpi),
# as two MPI processes on this machine: a ring AllReduce on a leaf-spine
# and a permutation on a fat tree, each split over the two processes
# (leaves or pods and their hosts to one, spines or cores shared out),
# give the one-process simulator's result on the same seed: the ring's
# every rank's step times and counters and every port's counters, to the
# byte; the permutation's every port's packet count and loss, and its
# completion and each host's within 1% (its Ofan pointers see
# packets that arrive at one switch in the same nanosecond: the one
# process orders them by when they were scheduled, the distributed
# engine schedules another process's packets when their window is
# exchanged, so ties break otherwise); and a server ring's phases, each
# phase's CCT within 1% and each next phase starting within the
# processes' barrier check (100 ns) of the last ACK; and
# eval/sim_ofan_cca.sh --procs 2 runs every run of its plan (mpirun
# forwards its stdin, and once ate the plan's next lines).  Skips when
# the MPI build is absent.
. "$(dirname "$0")/../lib.sh"

require_cmd jq
sim=$TOP_DIR/build/symofan-sim
mpi_sim=$TOP_DIR/build/symofan-sim-mpi
require_built "$sim"
[ -x "$mpi_sim" ] ||
	ktap_skip_all "no $mpi_sim (scripts/build-ns3-mpi.sh, then make sim-mpi)"
require_cmd mpirun

tmp=$(mktemp -d /tmp/test_sim_mpi.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 6

# Open MPI refuses root unless told; a machine of 2 cores runs 2 ranks
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() { mpirun --oversubscribe -np 2 "$mpi_sim" "$@"; }
# what must match: everything but wall time, event rate and process count
# (the distributed run ends when its events run out, the sequential one
# at the next millisecond after the last rank: simulated_ns differs)
same() { jq -S 'del(.sim)' "$1"; }

# 1-2: two 8-rank rings of one job on 4 leaves and 2 spines, ECMP,
# Symphony, at 10 Gbit/s
ring=(ring --leaves 4 --spines 2 --hosts-per-leaf 4 --rate 10gbit --uplink-rate 10gbit
      --ring "1=0,4,8,12,1,5,9,13" --ring "1=2,6,10,14,3,7,11,15" --size 2m --rto 4 --seed 5)
"$sim" "${ring[@]}" --out "$tmp/seq.json"
mpi "${ring[@]}" --out "$tmp/mpi.json" >"$tmp/mpi.log" 2>&1 || true
check_jq "two MPI processes run the ring to completion" \
	'.sim.complete and .sim.processes == 2 and (.ranks | length) == 16' \
	"$(jq -c '{sim, ranks: [.ranks[] | .host]}' "$tmp/mpi.json" 2>/dev/null)"
check "the ring's ranks and ports equal the one-process run's" \
	cmp -s <(same "$tmp/seq.json") <(same "$tmp/mpi.json")

ktap_print "events: one process $(jq '.sim.events' "$tmp/seq.json"), two $(jq '.sim.events' "$tmp/mpi.json" 2>/dev/null)"

# 3-4: a permutation on a k=4 fat tree with Ofan, pods split over the
# processes
perm=(perm --k 4 --packets 128 --lb ofan --seed 2)
"$sim" "${perm[@]}" --out "$tmp/pseq.json"
mpi "${perm[@]}" --out "$tmp/pmpi.json" >"$tmp/pmpi.log" 2>&1 || true
check_jq "two MPI processes run the permutation to completion" \
	'.sim.complete and .sim.processes == 2 and (.hosts | length) == 16' \
	"$(jq -c '{sim, hosts: [.hosts[] | .index]}' "$tmp/pmpi.json" 2>/dev/null)"
perm_view() { jq -c '{cct_ns: ([.hosts[].cct_ns] | max), lost: ([.hosts[].lost] | add),
	ports: [.ports[] | [.port, .packets, .limit_drops]], hosts: [.hosts[].cct_ns]}' "$1"; }
check_jq "the permutation's port packets and losses equal the one-process run's; its CCT and each host's within 1%" \
	'(.a.cct_ns - .b.cct_ns | fabs) <= .a.cct_ns / 100 and .a.lost == .b.lost and .a.ports == .b.ports and
	 ([.a.hosts, .b.hosts] | transpose | all((.[0] - .[1] | fabs) <= .[0] / 100))' \
	"$(jq -nc --argjson a "$(perm_view "$tmp/pseq.json")" --argjson b "$(perm_view "$tmp/pmpi.json" 2>/dev/null || echo null)" \
		'{a: $a, b: $b}')"

# 5: phases over the processes (Fig. 14's layers): a server ring of 4
# servers of 4 hosts, 3 phases; each phase's CCT within 1% of the
# one-process run's, and each next phase starting within the barrier's
# check period (100 ns) of the last ACK of the one before, on every process
ring_phases=(perm --k 4 --pattern server-ring --server-hosts 4 --phases 3 --packets 64 --lb ofan
	     --seed 3)
"$sim" "${ring_phases[@]}" --out "$tmp/fseq.json"
mpi "${ring_phases[@]}" --out "$tmp/fmpi.json" >"$tmp/fmpi.log" 2>&1 || true
check_jq "three phases over two processes: each CCT within 1% of one process's, each start within 100 ns of the last ACK" \
	'(.b.sim.complete and .b.sim.processes == 2 and (.b.hosts | all(.lost == 0))) and
	 ([.a.perm.phase_times, .b.perm.phase_times] | transpose | length == 3 and
	  all((.[0].cct_ns - .[1].cct_ns | fabs) <= .[0].cct_ns / 100)) and
	 (.b.perm.phase_times as $t | [range(1; 3) | $t[.].start_ns - $t[. - 1].end_ns] |
	  all(. >= 0 and . <= 100))' \
	"$(jq -nc --slurpfile a "$tmp/fseq.json" --slurpfile b "$tmp/fmpi.json" '{a: $a[0], b: $b[0]}' 2>/dev/null)"

"$TOP_DIR/eval/sim_ofan_cca.sh" --k 4 --packets 32 --ccas nscc --modes "ofan ar reps" --seeds 1 \
	--procs 2 --out "$tmp/cca.json" >/dev/null 2>&1
check_jq "sim_ofan_cca.sh --procs 2: all three runs of its plan, each on two processes" \
	'[.runs[] | "\(.mode):\(.processes):\(.complete)"] | sort ==
	 ["ar:2:true", "ofan:2:true", "reps:2:true"]' "$(cat "$tmp/cca.json")"

ktap_finished
