#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_ofan_cca.sh - the Ofan paper's Fig. 12 and its headline in the ns-3
# simulator: a 4 MB permutation (1,024 packets of 4 KiB a host) under
# congestion control (symofan-sim's --cca: DCTCP, UEC's NSCC, multipath
# Swift, each host one window over its sprayed packets, losses found by
# 3 + paths duplicate ACKs) at the paper's settings (--paper-ofan: a k=12
# fat tree of 432 hosts, 800 Gbit/s, 0.5 us links, 800 KB port buffers,
# ECN at 80 KB), for Ofan, 4Ofan, switch adaptive routing (ar), host
# REPS over ECMP (reps) and ECMP; per algorithm and mode over the seeds
# (mean and standard error of the mean, as the paper plots): the CCT
# increase over the Appendix-A bound (the collective's: its slowest host
# against the longest path's bound), the hosts' link utilization over the
# collective, the largest queue of any switch port in data frames, and
# losses.  Then the headline: per algorithm, AR's and REPS's CCT increase
# over Ofan's, against the paper's "at least 16x with NSCC and 39x with
# MSwift" (which the paper measures on its Fig. 14's FSDP2 workload).
# --workload llama3-8b|70b|405b runs Fig. 14 itself: the backward pass of
# FSDP2 on 1,024 GPUs (k=16), 8 scale-out rings over servers of 8 placed
# at random (symofan-sim --pattern server-ring), each layer a phase of
# 119, 418 or 1,533 packets a flow (one 1/1,024 shard of the layer's
# gradients and one of its weights, FP8, 4 KB payloads), the next layer's
# phase after the last ACK of this one; a run's CCT increase is the mean
# over its phases of each phase's CCT over its bound, and its utilization
# and queue are the phases'.  Writes JSON and a gnuplot PNG of the CCT
# increase.
#
# Usage: eval/sim_ofan_cca.sh [options]       (after "make sim")
#   --ccas "A ..."     congestion control (default "dctcp nscc mswift")
#   --modes "L ..."    load balancing (default "ofan 4ofan ar reps ecmp")
#   --workload W       permutation (Fig. 12; default), llama3-8b, llama3-70b
#                      or llama3-405b (Fig. 14: 119, 418 or 1,533 packets a
#                      flow and layer, 32, 80 or 126 layers)
#   --phases N         llama3-*: layers simulated (default all; fewer for a
#                      cheaper run: every layer's phase is the same traffic)
#   --packets M        packets per host (default 1024: 4 MB; llama3-*: the
#                      model's)
#   --seeds N          seeds per point (default 10, the paper's)
#   --k K              fat-tree arity (default 12, the paper's; llama3-*:
#                      16, the paper's 1,024 GPUs; smaller
#                      runs keep the paper's other settings)
#   --dupack-threshold N  a loss after N duplicate ACKs (default: the
#                      simulator's, 3 + (k/2)^2; a large N leaves losses
#                      to the timeout: the control for spurious resends)
#   --cwnd-init-pct P --cwnd-max-pct P  the windows' start and ceiling, % of
#                      the path's bandwidth-delay product (default: the
#                      simulator's, 100 and 150)
#   --jobs N           runs at once (default: the cores)
#   --procs N          processes a run, over MPI (build/symofan-sim-mpi:
#                      scripts/build-ns3-mpi.sh, then make sim-mpi;
#                      default 1: build/symofan-sim); with N > 1, --jobs
#                      defaults to 1
#   --resume FILE      reuse the runs of FILE, an earlier JSON of this script
#                      on the same fabric, packets and workload, with the
#                      same windows and duplicate-ACK threshold (and the
#                      same simulator: the runs are not checked again; one
#                      made over MPI or not is the same run to within its
#                      tie order), and run only those it lacks
#   --out FILE         JSON (default build/results/sim_ofan_cca.json); the
#                      plot next to it (FILE without .json, .png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
# shellcheck source=scripts/resume.sh
. "$top/scripts/resume.sh"
prog=sim_ofan_cca.sh
ccas="dctcp nscc mswift"
modes="ofan 4ofan ar reps ecmp"
packets=
seeds=10
k=
workload=permutation
phases=
jobs=
procs=1
resume=
out=$top/build/results/sim_ofan_cca.json
sim_args=()
dupack=
cwnd_init=100
cwnd_max=150

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in -h|--help) usage ;; esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--ccas) ccas=$2 ;;
	--modes) modes=$2 ;;
	--packets) packets=$2 ;;
	--workload) workload=$2 ;;
	--phases) phases=$2 ;;
	--seeds) seeds=$2 ;;
	--k) k=$2 ;;
	--dupack-threshold|--cwnd-init-pct|--cwnd-max-pct)
		[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 '$2': wants a positive number"
		case $1 in
		--dupack-threshold) dupack=$2 ;;
		--cwnd-init-pct) cwnd_init=$2 ;;
		--cwnd-max-pct) cwnd_max=$2 ;;
		esac
		sim_args+=("$1" "$2") ;;
	--jobs) jobs=$2 ;;
	--procs) procs=$2 ;;
	--resume) resume=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $procs =~ ^[1-9][0-9]*$ ]] || die "--procs '$procs': wants a count"
if [ "$procs" -gt 1 ]; then
	sim=$top/build/symofan-sim-mpi
	[ -x "$sim" ] || die "no $sim: run scripts/build-ns3-mpi.sh, then 'make sim-mpi'"
	command -v mpirun >/dev/null || die "no mpirun (scripts/build-ns3-mpi.sh installs Open MPI)"
	# Open MPI refuses root unless told
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	sim_cmd=(mpirun --oversubscribe -np "$procs" "$sim")
	jobs=${jobs:-1}
else
	sim=$top/build/symofan-sim
	[ -x "$sim" ] || die "no $sim: run 'make sim'"
	sim_cmd=("$sim")
	jobs=${jobs:-$(nproc)}
fi
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
# the Fig. 14 models: packets a flow and layer, layers (the paper's 6.7)
case $workload in
permutation) wl_packets=1024 wl_layers='' wl_k=12 ;;
llama3-8b) wl_packets=119 wl_layers=32 wl_k=16 ;;
llama3-70b) wl_packets=418 wl_layers=80 wl_k=16 ;;
llama3-405b) wl_packets=1533 wl_layers=126 wl_k=16 ;;
*) die "--workload '$workload': permutation, llama3-8b, llama3-70b or llama3-405b" ;;
esac
packets=${packets:-$wl_packets} k=${k:-$wl_k}
if [ -n "$wl_layers" ]; then
	phases=${phases:-$wl_layers}
	[[ $phases =~ ^[1-9][0-9]*$ ]] && [ "$phases" -le "$wl_layers" ] ||
		die "--phases '$phases': wants 1..$wl_layers (the model's layers)"
	sim_args+=(--pattern server-ring --server-hosts 8 --phases "$phases")
else
	[ -z "$phases" ] || die "--phases is for --workload llama3-*"
fi
[[ $packets =~ ^[1-9][0-9]*$ ]] || die "--packets '$packets': wants a packet count"
[[ $k =~ ^([4-9]|[1-9][0-9]+)$ ]] && [ $((k % 2)) -eq 0 ] || die "--k '$k': an even arity, 4 or more"
for c in $ccas; do
	case $c in dctcp|nscc|mswift) ;; *) die "--ccas: '$c' is not dctcp, nscc or mswift" ;; esac
done

work=$(mktemp -d /tmp/sim_ofan_cca.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"

for c in $ccas; do
	for mode in $modes; do
		for ((seed = 1; seed <= seeds; seed++)); do
			echo "$c $mode $seed"
		done
	done
done >"$work/plan"
total=$(wc -l <"$work/plan")

# --resume: the earlier runs on the same fabric, packets and workload; a
# run's windows and duplicate-ACK threshold are in its line (the
# simulator's threshold, 3 + (k/2)^2, unless --dupack-threshold)
dupack=${dupack:-$((3 + (k / 2) * (k / 2)))}
# shellcheck disable=SC2016 # a jq expression
resume_load "$prog" "$resume" "$work" "this k, packets, workload and phases" '
  .benchmark == "sim_ofan_cca" and .fabric.k == $k and .fabric.packets == $packets and
  .workload.name == $workload and .workload.phases == $phases' \
	--argjson k "$k" --argjson packets "$packets" --arg workload "$workload" \
	--argjson phases "${phases:-1}"

run_one() {	# run_one CCA MODE SEED: the run's summary line on stdout
	local f=$work/$1-$2-$3.json
	# stdin from /dev/null: mpirun forwards its stdin to rank 0, and
	# would read the plan the loop below takes its runs from
	# a run that fails is left out and named at the end, the others kept
	if ! "${sim_cmd[@]}" perm --paper-ofan --k "$k" --packets "$packets" --cca "$1" --lb "$2" \
		--seed "$3" "${sim_args[@]}" --out "$f" </dev/null >"$f.log" 2>&1; then
		head -n 2 "$f.log" >&2
		echo "$1 $2 seed $3" >>"$work/failed"
		rm -f "$f" "$f.log"
		return 0
	fi
	jq -c --arg cca "$1" --arg mode "$2" --argjson seed "$3" '
	  .cca as $cc
	  | .cca.dupack_threshold as $dup
	  | .paper_ofan.frame_bytes as $frame
	  | ($frame + .paper_ofan.ifg_bytes) as $wire
	  | .perm.phase_times as $ph
	  # phases (Fig. 14): each phase against its bound, their mean
	  | (if .perm.phases > 1 then ($ph | map(.cct_ns) | add / length)
	     else ([.hosts[].cct_ns] | max) end) as $cct
	  | (if .perm.phases > 1 then $ph[0].lower_bound_ns
	     else ([.hosts[].lower_bound_full_rate_ns] | max) end) as $lb
	  | {cca: $cca, mode: $mode, seed: $seed, complete: .sim.complete, dupack_threshold: $dup,
	     cwnd_init_pct: $cc.cwnd_init_pct, cwnd_max_pct: $cc.cwnd_max_pct,
	     phases: .perm.phases,
	     cct_ns: $cct, lower_bound_ns: $lb,
	     cct_increase: (if .perm.phases > 1 then ($ph | map(.cct_over_bound - 1) | add / length)
			    else $cct / $lb - 1 end),
	     phase_cct_increase_max: (if .perm.phases > 1 then ($ph | map(.cct_over_bound - 1) | max)
				      else null end),
	     # a host link busy with the data for its line-rate time, over
	     # the collective (or a phase)
	     utilization: ((.hosts[0].expected / .perm.phases * $wire * 8 / .topology.rate_bps * 1e9) / $cct),
	     max_queue_frames: ([.ports[].max_backlog_bytes] | max / $frame),
	     drops: ([.ports[].limit_drops] | add), marks: ([.ports[].red_marks] | add),
	     lost_dupack: ([.hosts[].cc.lost_dupack] | add),
	     lost_timeout: ([.hosts[].cc.lost_timeout] | add),
	     resent: ([.hosts[].cc.retransmitted] | add),
	     processes: .sim.processes, events: .sim.events, wall_s: .sim.wall_s}' "$f"
	rm -f "$f" "$f.log"
}
progress_start "$prog"
n=0 reused=0
: >"$work/runs.jsonl"
while read -r c mode seed; do
	line=$(resume_find "$work" "$(jq -nc --arg cca "$c" --arg mode "$mode" --argjson seed "$seed" \
		--argjson dup "$dupack" --argjson init "$cwnd_init" --argjson max "$cwnd_max" \
		'{cca: $cca, mode: $mode, seed: $seed, dupack_threshold: $dup,
		  cwnd_init_pct: $init, cwnd_max_pct: $max}')")
	if [ -n "$line" ]; then
		echo "$line" >>"$work/runs.jsonl"
		reused=$((reused + 1)) n=$((n + 1))
		continue
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
		n=$((n + 1))
		progress "$n" "$total" "k=$k, $packets packets"
	done
	run_one "$c" "$mode" "$seed" >>"$work/runs.jsonl" &
done <"$work/plan"
wait
progress_done
[ "$reused" = 0 ] || echo "$prog: $reused of the $total runs from $resume" >&2

jq -s --argjson k "$k" --argjson packets "$packets" --arg date "$(date -u +%FT%TZ)" \
	--arg workload "$workload" --argjson phases "${phases:-1}" --argjson layers "${wl_layers:-null}" '
  def mean: add / length;
  def sem: if length < 2 then null
	   else (mean as $m | (map((. - $m) * (. - $m)) | add / (length - 1)) | sqrt) / (length | sqrt) end;
  def stat(f): [.[] | f] | {mean: mean, sem: sem};
  (group_by([.cca, .mode]) | map({
      cca: .[0].cca, mode: .[0].mode, runs: length, complete: ([.[].complete] | all),
      dupack_threshold: .[0].dupack_threshold, cwnd_init_pct: .[0].cwnd_init_pct,
      cwnd_max_pct: .[0].cwnd_max_pct,
      cct_increase: stat(.cct_increase), utilization: stat(.utilization),
      max_queue_frames: stat(.max_queue_frames), drops: stat(.drops),
      resent: stat(.resent), lost_timeout: stat(.lost_timeout),
      events_per_s: ([.[] | .events / .wall_s] | mean | round), wall_s: stat(.wall_s)})) as $summary
  | {
    benchmark: "sim_ofan_cca",
    date: $date,
    engine: "sim",
    method: "symofan-sim perm --paper-ofan --cca: every host sends its partner in the seed derangement the packets, one window per host (window_cc.h), each packet ACKed with its CE echo, losses by 3 + paths duplicate ACKs or a timeout and resent; 800 KB ports marking at 80 KB; CCT increase = the slowest host over the longest path bound - 1; utilization = a host link busy with the data over the collective; largest queue in 4,158-byte frames; mean and standard error over seeds",
    fabric: {k: $k, hosts: ($k * $k * $k / 4), rate: "800gbit", preset: "paper-ofan", packets: $packets},
    workload: {name: $workload, phases: $phases, model_layers: $layers,
	       pattern: (if $workload == "permutation" then "permutation" else "server-ring of 8-host servers" end)},
    summary: $summary,
    # the paper (abstract, section 6.7): Ofan cuts the CCT increase by at
    # least 16x with NSCC and 39x with MSwift against AR and REPS,
    # measured on its Fig. 14 (FSDP2 backward pass of Llama-3 405B), here
    # taken on the permutation of Fig. 12
    headline: ($summary | group_by(.cca) | map(
      (map({key: .mode, value: .cct_increase.mean}) | from_entries) as $inc
      | {cca: .[0].cca, ofan: $inc.ofan, ar: $inc.ar, reps: $inc.reps,
	 ar_over_ofan: (if $inc.ofan and $inc.ofan > 0 and $inc.ar then $inc.ar / $inc.ofan else null end),
	 reps_over_ofan: (if $inc.ofan and $inc.ofan > 0 and $inc.reps then $inc.reps / $inc.ofan else null end),
	 paper_claim: (if $workload == "llama3-405b" or $workload == "permutation"
		       then {nscc: 16, mswift: 39}[.[0].cca] else null end)}
      | . + {reproduces: (if .paper_claim == null or .ar_over_ofan == null or .reps_over_ofan == null then null
			   else ([.ar_over_ofan, .reps_over_ofan] | min) >= .paper_claim end)})),
    runs: .
  }' "$work/runs.jsonl" >"$out.tmp" && mv "$out.tmp" "$out"

base=${out%.json}
if command -v gnuplot >/dev/null && [ "$(jq '.summary | length' "$out")" -gt 0 ]; then
	jq -r --arg modes "$modes" '
	  ($modes | split(" ")) as $ms
	  | (.summary | group_by(.cca))[]
	  | (map({key: .mode, value: .}) | from_entries) as $by
	  | "\(.[0].cca) " + ([$ms[] | ($by[.].cct_increase.mean // 0) * 100 | tostring] | join(" "))' \
		"$out" >"$base.dat"
	{
		echo "set terminal pngcairo size 900,500 noenhanced"
		echo "set output '$base.png'"
		if [ "$workload" = permutation ]; then
			echo "set title '4 MB permutation, k=$k fat tree at 800 Gbit/s: CCT increase over the bound (mean of the seeds)'"
		else
			echo "set title '$workload FSDP2 backward pass ($phases of ${wl_layers} layers), k=$k at 800 Gbit/s: CCT increase a phase over its bound'"
		fi
		echo "set ylabel 'CCT over the bound - 1 (%)'"
		echo "set style data histograms"
		echo "set style histogram clustered gap 1"
		echo "set style fill solid 0.8 border -1"
		echo "set logscale y"
		echo "set key top left"
		printf "plot "
		i=2
		sep=
		for mode in $modes; do
			printf "%s'%s' using %d:xtic(1) title '%s'" "$sep" "$base.dat" "$i" "$mode"
			sep=", "
			i=$((i + 1))
		done
		echo
	} | gnuplot
	rm -f "$base.dat"
fi
jq -r '"cca     mode    runs  CCT increase % (mean +- sem)   utilization %   largest queue, frames   drops   resent",
  (.summary[] | "\(.cca)\t\(.mode)\t\(.runs)\t\(.cct_increase.mean * 1000 | round / 10) +- \((.cct_increase.sem // 0) * 1000 | round / 10)\t\(.utilization.mean * 1000 | round / 10)\t\(.max_queue_frames.mean * 10 | round / 10)\t\(.drops.mean | round)\t\(.resent.mean | round)"),
  "headline: CCT increase of AR and REPS over Ofan'"'"'s (the paper: at least 16x with NSCC, 39x with MSwift)",
  (.headline[] | "\(.cca)\tAR/Ofan \(.ar_over_ofan // "n/a" | if type == "number" then . * 10 | round / 10 else . end)x\tREPS/Ofan \(.reps_over_ofan // "n/a" | if type == "number" then . * 10 | round / 10 else . end)x\treproduces: \(.reproduces)")' "$out"
echo "$prog: $out, $base.png"
resume_failed_exit "$prog" "$work/failed"
