#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_ofan_moe.sh - the Ofan paper's MoE workload (its Fig. 13) in the
# ns-3 simulator: an MoE layer's token dispatch over 128 GPUs on a k=8
# fat tree at the paper's settings (--paper-ofan: 800 Gbit/s, 0.5 us
# links), 64 KiB frames (65,474-byte payloads), without congestion
# control, sources sending at the line rate into buffers that do not
# drop (the paper's "infinite buffers and no losses"), or with NSCC, a
# window a queue pair, on ports of 800 KB that mark past 80 KB and drop
# past 800 KB (the simulator's --cca defaults); the dispatch is
# DeepEP's hierarchical all-to-all, only inter-server traffic on the
# fabric, as sim/workload_gen.py moe draws it from a Zipf popularity
# fitted to the paper's skew (the busiest GPU 1.48x the mean; with EPLB's
# two expert slots a GPU, less).  Per mode and EPLB setting over the
# seeds (each seed its own expert placement and tokens): the CCT over
# the matrix's bound (the busiest sender's or receiver's bytes at the
# line rate over the longest path) and the largest queue.  Writes JSON.
#
# Usage: eval/sim_ofan_moe.sh [options]       (after "make sim")
#   --modes "L ..."    load balancing (default "ofan ar reps ecmp"; at k=8
#                      Ofan and 4Ofan are the same, w = k/2 = 4)
#   --eplb "no yes"    without and/or with EPLB (default both)
#   --ccas "none nscc" without congestion control (Fig. 13a-b) and/or with
#                      NSCC (13c-d) (default both)
#   --seeds N          (default 3)
#   --jobs N           runs at once (default: the cores)
#   --resume FILE      reuse the runs of FILE, an earlier JSON of this script
#                      made the same way (the same method, and the same
#                      simulator: the runs are not checked again), and run
#                      only those it lacks, e.g. seeds 3-5 after --seeds 2
#   --out FILE         JSON (default build/results/sim_ofan_moe.json)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/resume.sh
. "$top/scripts/resume.sh"
prog=sim_ofan_moe.sh
modes="ofan ar reps ecmp"
eplbs="no yes"
ccas="none nscc"
seeds=3
jobs=$(nproc)
resume=
out=$top/build/results/sim_ofan_moe.json

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in -h|--help) usage ;; esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--modes) modes=$2 ;;
	--eplb) eplbs=$2 ;;
	--ccas) ccas=$2 ;;
	--seeds) seeds=$2 ;;
	--jobs) jobs=$2 ;;
	--resume) resume=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
sim=$top/build/symofan-sim
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
for e in $eplbs; do [[ $e =~ ^(no|yes)$ ]] || die "--eplb: '$e' is not no or yes"; done
for c in $ccas; do [[ $c =~ ^(none|nscc)$ ]] || die "--ccas: '$c' is not none or nscc"; done
for m in $modes; do
	[[ $m =~ ^(ofan|[1-9]ofan|ar|reps|ecmp|rps|drb)$ ]] || die "--modes: '$m' is not ofan, Nofan, ar, reps, ecmp, rps or drb"
done
method="symofan-sim perm --paper-ofan --k 8 --pattern matrix: each GPU sends its bytes of the MoE dispatch (sim/workload_gen.py moe) to each other, a queue pair each, 64 KiB frames; cca none: open loop at 800 Gbit/s into buffers that do not drop; cca nscc: a window a queue pair, ports of 800 KB marking past 80 KB and dropping past 800 KB, lost packets sent again; CCT = the last ACK; bound = the busiest sender or receiver at the line rate over the longest path"
work=$(mktemp -d /tmp/sim_ofan_moe.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"

# --resume: the earlier runs, made with the same method
# shellcheck disable=SC2016 # a jq expression
resume_load "$prog" "$resume" "$work" "the same method" \
	'.benchmark == "sim_ofan_moe" and .method == $method' --arg method "$method"

# run_key CCA EPLB MODE SEED: the fields that name a run in the JSON
run_key() {
	jq -nc --arg cca "$1" --arg eplb "$2" --arg mode "$3" --argjson seed "$4" \
		'{cca: $cca, eplb: ($eplb == "yes"), mode: $mode, seed: $seed}'
}

# needs_matrix EPLB SEED: whether a run of that matrix is not in --resume's
needs_matrix() {
	local c mode
	for c in $ccas; do
		for mode in $modes; do
			[ -n "$(resume_find "$work" "$(run_key "$c" "$1" "$mode" "$2")")" ] || return 0
		done
	done
	return 1
}

# the matrices, one per seed and EPLB setting that has a run to make
for e in $eplbs; do
	for ((seed = 1; seed <= seeds; seed++)); do
		needs_matrix "$e" "$seed" || continue
		eplb_arg=()
		[ "$e" = no ] || eplb_arg=(--eplb)
		"$top/sim/workload_gen.py" moe --nodes 128 --seed "$seed" "${eplb_arg[@]}" \
			--out "$work/moe-$e-$seed.json" &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	done
done
wait

run_one() {	# run_one CCA EPLB MODE SEED: the run's line
	local f=$work/$1-$2-$3-$4.out.json m=$work/moe-$2-$4.json cc_args
	# no CCA: buffers that never drop, a mark past 800 KB (none in
	# practice: no sender reacts); NSCC: the simulator's --cca ports
	if [ "$1" = none ]; then
		cc_args=(--qdisc "limit 1000000 kmin 800kb kmax 800kb pmax 0.01")
	else
		cc_args=(--cca "$1")
	fi
	# a run that fails (e.g. killed: ECMP without CCA queues up to GBs)
	# is left out and named at the end, the others kept
	if ! "$sim" perm --paper-ofan --k 8 --mtu 65474 --pattern matrix --matrix "$m" --lb "$3" \
		--seed "$4" "${cc_args[@]}" --out "$f"; then
		echo "$1 eplb $2 $3 seed $4" >>"$work/failed"
		rm -f "$f"
		return 0
	fi
	jq -c --arg cca "$1" --arg eplb "$2" --arg mode "$3" --argjson seed "$4" --slurpfile m "$m" '
	  ([.hosts[].cct_ns] | max) as $cct | .perm.matrix.bound_ns as $lb
	  | {cca: $cca, eplb: ($eplb == "yes"), mode: $mode, seed: $seed, complete: .sim.complete,
	     busiest_over_mean: $m[0].stats.busiest_over_mean, cct_ns: $cct, bound_ns: $lb,
	     cct_increase: ($cct / $lb - 1),
	     max_queue_mb: ([.ports[].max_backlog_bytes] | max / 1e6),
	     lost: ([.hosts[].lost] | add), drops: ([.ports[].limit_drops] | add),
	     retransmitted: ([.hosts[].cc.retransmitted // 0] | add),
	     events: .sim.events, wall_s: .sim.wall_s}' "$f"
	rm -f "$f"
}
: >"$work/runs.jsonl"
reused=0
for c in $ccas; do
	for e in $eplbs; do
		for mode in $modes; do
			for ((seed = 1; seed <= seeds; seed++)); do
				line=$(resume_find "$work" "$(run_key "$c" "$e" "$mode" "$seed")")
				if [ -n "$line" ]; then
					echo "$line" >>"$work/runs.jsonl"
					reused=$((reused + 1))
					continue
				fi
				run_one "$c" "$e" "$mode" "$seed" >>"$work/runs.jsonl" &
				while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
			done
		done
	done
done
wait
[ "$reused" = 0 ] || echo "$prog: $reused runs from $resume" >&2

jq -s --arg date "$(date -u +%FT%TZ)" --arg method "$method" '
  def mean: add / length;
  def sem: if length < 2 then null
	   else (mean as $m | (map((. - $m) * (. - $m)) | add / (length - 1)) | sqrt) / (length | sqrt) end;
  def stat(f): [.[] | f] | {mean: mean, sem: sem};
  {benchmark: "sim_ofan_moe", date: $date, engine: "sim",
   method: $method,
   summary: (group_by([.cca, .eplb, .mode]) | map({cca: .[0].cca, eplb: .[0].eplb, mode: .[0].mode, runs: length,
     complete: ([.[].complete] | all), busiest_over_mean: stat(.busiest_over_mean),
     cct_increase: stat(.cct_increase), max_queue_mb: stat(.max_queue_mb), lost: stat(.lost),
     retransmitted: stat(.retransmitted), events_per_s: ([.[] | .events / .wall_s] | mean | round), wall_s: stat(.wall_s)})),
   runs: .}' "$work/runs.jsonl" >"$out"
jq -r '"cca   eplb   mode   runs  busiest/mean  CCT increase % (mean +- sem)  largest queue MB",
  (.summary[] | "\(.cca)\t\(.eplb)\t\(.mode)\t\(.runs)\t\(.busiest_over_mean.mean * 100 | round / 100)\t\(.cct_increase.mean * 10000 | round / 100) +- \((.cct_increase.sem // 0) * 10000 | round / 100)\t\(.max_queue_mb.mean | round)")' "$out"
echo "$prog: $out"
resume_failed_exit "$prog" "$work/failed"
