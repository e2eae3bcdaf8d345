#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony.sh - the Symphony paper's Fig. 4 in the ns-3 simulator, at
# its own scale (Table 1): a two-tier leaf-spine of 10 Gbit/s links
# without over-subscription (a spine per host of a ToR), ECMP on the
# 5-tuple with the step in the UDP source port, DCQCN senders, RED
# 50/100 KB at 0.2, Symphony's k 0.01, tau 0.25, T_win 100 us, chunks
# (steps) of 8 MB; every seed once with RED marking only (the baseline)
# and once with Symphony OR RED.  The runs go through
# eval/symphony_ring.sh --engine sim, so the JSON, the CCT CDF and the
# step-overlap plot are section 1's.
#
# Usage: eval/sim_symphony.sh [options]       (after "make sim")
#   --nodes 32|128|256|512  32: 4 ToRs of 8 hosts (default); 128: 8 ToRs
#                      of 16; 256 and 512: the paper's multi-pod fabrics,
#                      4 or 8 pods of 8 ToRs of 8 hosts and 8 spines,
#                      under cores
#   --oversub N        256, 512: a spine's 8 ToRs over its uplinks to the
#                      cores, 1, 2, 4 or 8 (default 2: 4 uplinks a spine)
#   --spines N         spines (default: the hosts of a ToR, no
#                      over-subscription; Table 1's 4 over-subscribe 2:1
#                      at 32 nodes)
#   --scenarios S      rails: Table 1's placement, a rail ring per host
#                      index (host i of every ToR), one job; railjobs:
#                      the same rails, each its own job ID; railtwojobs:
#                      the same rails as two jobs of half of them, the
#                      second starting --job-offset later (Fig. 7);
#                      rings: hosts/2 rings of 2 hosts per ToR, one job
#                      (the paper's multiple 1D rings; default); jobs2:
#                      the same rings, each its own job ID; ring1: one
#                      ring of every host; grid: every host in one 2D
#                      ring (Table 1's logical topology, 8 x 4 at 32
#                      nodes), its row rings the ToRs' hosts and its
#                      column rings across the ToRs, AllReduce
#                      hierarchically (row, column, row); gridx: rows
#                      across the ToRs, columns inside them; gridrings:
#                      grid with a job ID per row and column ring on the
#                      wire, so Symphony compares steps of one ring only;
#                      torrings: a ring of each ToR's hosts (the grid's
#                      row rings alone, nothing crosses a spine);
#                      twojobs:
#                      the rings of "rings" as two jobs of half of them,
#                      the second starting --job-offset later (Fig. 7)
#   --iterations N     AllReduces back to back, each rank starting the
#                      next when it finishes one (default 1; the paper's
#                      Fig. 4a runs for about ten)
#   --chunk BYTES      Table 1's chunk, the collective's bytes per rank
#                      over the ranks of its ring (default 8m): a 1D
#                      ring's step, a grid's column step
#   --seeds N          (default 10)
#   --k K              Symphony's k (default 0.01)
#   --stack paper|nccl|legacy  the transport and Symphony's deployment
#                      (default paper):
#                      paper: the Symphony paper's (Astra-Sim over HPCC's
#                        RDMA model): --cc hpcc --flows astra --symphony-at
#                        tor --state switch
#                      nccl: the same with NCCL's flows (--flows nccl: a
#                        queue pair per channel, steps in order)
#                      legacy: this project's model until 2026-12, which
#                        EVALUATION's earlier tables used: --cc legacy
#                        --flows legacy --symphony-at all --state port
#   --state port|switch  Symphony's job state per port or per switch
#                      (default: the stack's)
#   --symphony-at all|tor|tor-up  the switch ports where Symphony marks
#                      (default: the stack's)
#   --dcqcn "ARGS"     symofan-sim's --dcqcn-* options over the profile's
#                      (e.g. "--dcqcn-clamp always")
#   --pq               also the priority-queue baseline of Fig. 5 (each
#                      job's slowest step first in strict priority, RED)
#   --markings "M ..." the markings run on every seed, of red, symphony
#                      and pq (default "red symphony"; "red" alone runs
#                      the baseline, as the search for Table 1's reading
#                      does)
#   --background PCT   Fig. 2's light background: each ToR sends a
#                      constant-rate UEC stream of its own job at PCT% of
#                      the line (default 0)
#   --flows legacy|astra|nccl  the senders' flows (default: the stack's;
#                      symofan-sim --flows)
#   --cc PROFILE       DCQCN's constants: mlx5, hpcc, legacy (default: the
#                      stack's); legacy-hpcc: the legacy core with HPCC's
#                      constants as earlier runs passed them (--cc hpcc
#                      before 2026-12: alpha every 1 us, 2/20 Mbit/s
#                      steps, 1 Gbit/s floor, no byte counter, a CNP at
#                      most every 4 us, the target rate clamped on every
#                      cut, one fewer fast-recovery step)
#   --imbalance R      one ToR-spine link at 1/R of the rate (default 1)
#   --pfc BYTES        lossless, as HPCC's configuration: PFC pauses a
#                      sender past BYTES held from its port (default: off,
#                      deep lossy queues)
#   --job-offset MS    twojobs: the second job's start, milliseconds after
#                      the first's (default 0)
#   --jobs N           runs at once (default: the cores)
#   --resume FILE      keep FILE's runs, an earlier JSON made with the same
#                      options, and run only the ones it lacks
#                      (symphony_ring.sh --resume)
#   --out FILE         (default build/results/sim_symphony_NODES.json)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_symphony.sh
nodes=32
resume=
spines=
scenarios=rings
iterations=1
chunk=8m
seeds=10
k=0.01
stack=paper
markings="red symphony"
dcqcn_args=
state=
symphony_at=
flows=
cc=
imbalance=1
pfc=
job_offset=0
oversub=2
background=0
jobs=$(nproc)
out=

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--pq) markings="red symphony pq"; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--nodes) nodes=$2 ;;
	--spines) spines=$2 ;;
	--scenarios) scenarios=$2 ;;
	--iterations) iterations=$2 ;;
	--chunk) chunk=$2 ;;
	--seeds) seeds=$2 ;;
	--k) k=$2 ;;
	--state) state=$2 ;;
	--stack) stack=$2 ;;
	--symphony-at) symphony_at=$2 ;;
	--flows) flows=$2 ;;
	--cc) cc=$2 ;;
	--dcqcn) dcqcn_args=$2 ;;
	--imbalance) imbalance=$2 ;;
	--jobs) jobs=$2 ;;
	--pfc) pfc=$2 ;;
	--job-offset) job_offset=$2 ;;
	--oversub) oversub=$2 ;;
	--markings) markings=$2 ;;
	--background) background=$2 ;;
	--resume) resume=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
pods=1 cores=0
case $nodes in
32) tors=4 hpt=8 ;;
128) tors=8 hpt=16 ;;
256|512) pods=$((nodes / 64)) tors=$((nodes / 8)) hpt=8 ;;
*) die "--nodes '$nodes': 32, 128, 256 or 512" ;;
esac
[[ $oversub =~ ^(1|2|4|8)$ ]] || die "--oversub '$oversub': 1, 2, 4 or 8"
if [ "$pods" -gt 1 ]; then
	[ -z "$spines" ] || die "--spines: a pod of the multi-pod fabric has 8"
	spines=8 cores=$((8 * 8 / oversub))
fi
[ -n "$spines" ] || spines=$hpt
[[ $spines =~ ^[1-9][0-9]?$ ]] || die "--spines '$spines': wants 1..64"
[ -z "$pfc" ] || [[ $pfc =~ ^[1-9][0-9]*[km]?$ ]] || die "--pfc '$pfc': bytes, with k or m"
[[ $iterations =~ ^[1-9][0-9]*$ ]] || die "--iterations '$iterations': wants a count"
[[ $background =~ ^[0-9]+$ ]] && [ "$background" -le 50 ] ||
	die "--background '$background': wants a percentage, 0..50"
for m in $markings; do
	[[ $m =~ ^(red|symphony|pq)$ ]] || die "--markings: '$m' is not red, symphony or pq"
done
[[ " $markings " == *" red "* ]] || die "--markings '$markings': wants red, the baseline every run is paired with"
case $stack in
paper) def=(hpcc astra tor switch) ;;
nccl) def=(hpcc nccl tor switch) ;;
legacy) def=(legacy legacy all port) ;;
*) die "--stack '$stack': paper, nccl or legacy" ;;
esac
cc=${cc:-${def[0]}} flows=${flows:-${def[1]}}
symphony_at=${symphony_at:-${def[2]}} state=${state:-${def[3]}}
case $cc in
legacy|mlx5|hpcc) cc_args="--cc $cc" ;;
dcqcn) cc_args="--cc legacy" ;;	# the name before 2026-12
# the earlier --cc hpcc: HPCC's run.py constants at 10 Gbit/s on the
# legacy core (its F 1 is the legacy stage rule's, here 0)
legacy-hpcc) cc_args="--cc legacy --dcqcn-g 256 --dcqcn-alpha-us 1 --dcqcn-timer-us 300 --dcqcn-f 0 --dcqcn-rai 2mbit --dcqcn-rhai 20mbit --dcqcn-min-rate 1gbit --dcqcn-bytes 1g --cnp-interval 4" ;;
*) die "--cc '$cc': mlx5, hpcc, legacy or legacy-hpcc" ;;
esac
[[ $flows =~ ^(legacy|astra|nccl)$ ]] || die "--flows '$flows': legacy, astra or nccl"
[[ $dcqcn_args =~ ^(\ *--(dcqcn-[a-z-]+|cnp-interval)\ +[^\ ]+)*\ *$ ]] ||
	die "--dcqcn '$dcqcn_args': wants --dcqcn-* and --cnp-interval options with their values"
[[ $chunk =~ ^([0-9]+)([km]?)$ ]] || die "--chunk '$chunk': bytes, with k or m"
case ${BASH_REMATCH[2]} in
k) mult=1024 ;;
m) mult=1048576 ;;
*) mult=1 ;;
esac
chunk_bytes=$((BASH_REMATCH[1] * mult))
[ -n "$out" ] || out=$top/build/results/sim_symphony_$nodes.json
for s in $scenarios; do
	[[ $s =~ ^(rails|railjobs|railtwojobs|rings|jobs2|twojobs|ring1|grid|gridx|gridrings|torrings)$ ]] ||
		die "--scenarios: '$s' is not rails, railjobs, railtwojobs, rings, jobs2, twojobs, ring1, grid, gridx, gridrings or torrings"
done
# the rank count sets the data per rank: size = chunk x ranks of a ring
# (of every host in ring1 and the grids, 2 per ToR in rings and jobs2,
# one per ToR in rails)
case " $scenarios " in
*" ring1 "*|*" grid"*)
	[[ " $scenarios " =~ \ (rings|jobs2|twojobs|rails|railjobs|railtwojobs)\  ]] &&
		die "--scenarios: ring1 and the grids do not mix with rails, rings, jobs2 and twojobs (their rings differ in size, the chunk does not)"
	ranks=$((tors * hpt)) ;;
*" rails "*|*" railjobs "*|*" railtwojobs "*)
	[[ " $scenarios " =~ \ (rings|jobs2|twojobs)\  ]] &&
		die "--scenarios: rails do not mix with rings, jobs2 and twojobs (their rings differ in size, the chunk does not)"
	ranks=$tors ;;
*" torrings "*)
	[ "$(wc -w <<<"$scenarios")" -eq 1 ] ||
		die "--scenarios: torrings runs alone (its rings are a ToR's hosts, the others' differ)"
	ranks=$hpt ;;
*) ranks=$((2 * tors)) ;;
esac

exec "$top/eval/symphony_ring.sh" --engine sim --links p2p --delay-us 1 \
	--tors "$tors" --spines "$spines" --hosts-per-tor "$hpt" --state "$state" --jobs "$jobs" \
	--symphony-at "$symphony_at" --markings "$markings" \
	${pfc:+--pfc "$pfc"} ${resume:+--resume "$resume"} --job-offset "$job_offset" --pods "$pods" --cores "$cores" \
	--rate 10gbit --uplink-rate 10gbit --imbalance "$imbalance" --background "$background" \
	--scenarios "$scenarios" --size $((chunk_bytes * ranks)) --seeds "$seeds" \
	--red "limit 100000 kmin 50kb kmax 100kb pmax 0.2" \
	--symphony "k $k tau 0.25 twin 100us warmup 16 samples 16" \
	--ringcoll "--mtu 4096 --rto 4 --iterations $iterations $cc_args${dcqcn_args:+ $dcqcn_args} --flows $flows" --out "$out"
