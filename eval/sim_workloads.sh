#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_workloads.sh - the Symphony paper's end-to-end training results in
# the ns-3 simulator (symofan-sim workload, sim/workload_gen.py): Table 2
# (data-parallel VGG16 and ResNet-50 on 128 and 512 nodes, the
# Transformer in hybrid data and model parallelism) and Fig. 6 (the
# Transformer's JCT as its computation shrinks 1x to 64x).  Every
# workload runs with RED marking only (the DCQCN baseline) and with
# Symphony OR RED, seed for seed, on the fabrics and transport of
# sim_symphony.sh (10 Gbit/s links, RED 50/100 KB at 0.2, Symphony's k
# 0.01, tau 0.25, T_win 100 us; the paper's stack: HPCC's DCQCN, a flow
# per step as Astra-Sim makes them, Symphony at the ToRs with a job
# state per switch).  Writes JSON (each run's JCT, and per point the
# mean JCTs, Symphony's JCT over the baseline's seed for seed and the
# paper's number) and a gnuplot PNG.
#
# Usage: eval/sim_workloads.sh --figure table2|fig6 [options]  (after "make sim")
#   --models "M ..."   table2: vgg16, resnet50, transformer (default all);
#                      resnet50-astra and transformer-astra: the paper's own
#                      inputs, Astra-Sim's Resnet50_DataParallel.txt and
#                      Transformer_HybridParallel.txt (--astra-dir)
#   --astra-dir DIR    the -astra models' workloads: a copy of Astra-Sim's
#                      examples/text_converter/text_workloads/ (not shipped
#                      here; each file's sha256 goes in the JSON), read by
#                      workload_gen.py astra1 at --gen's --cycle-ns
#   --nodes "N ..."    table2: 128 and/or 512 (default "128 512"; the
#                      Transformer runs at the first); fig6: one (default 128)
#   --compute-scales "X ..."  fig6: computation divided by X (default
#                      "1 2 4 8 16 32 64")
#   --seeds N          (default 5)
#   --scale S          bytes and compute divided by S alike, the same
#                      compute-to-network ratio in a smaller job (default
#                      16; 1: the models' own sizes, hours a run at 512)
#   --iterations N     training iterations a run (default 1)
#   --stack paper|nccl|legacy  as sim_symphony.sh's (default paper)
#   --oversub N        512 nodes: a spine's ToRs over its uplinks to the
#                      cores, 1, 2, 4 or 8 (default 2)
#   --gen "ARGS"       more workload_gen.py options (e.g. "--tflops 30")
#   --jobs N           simulations at once (default: the cores)
#   --resume FILE      reuse the runs of FILE, an earlier JSON of this script
#                      made the same way (stack, scale, iterations, oversub
#                      and --gen alike, and the same simulator: the runs are
#                      not checked again), and run only those it lacks, e.g.
#                      seeds 3-5 after --seeds 2
#   --out FILE         (default build/results/sim_workloads_FIGURE.json);
#                      the plot next to it (.png), and seed 1's timeline of
#                      each point and marking (-timeline-MODEL-NODES-xX-
#                      MARKING.png, eval/workload_timeline.sh); each run's
#                      sync_ns is its first iteration's gradient
#                      synchronisation, the first collective's start to
#                      the last one's end
#   --summary          no runs: the summary and plot of the runs in FILE
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/resume.sh
. "$top/scripts/resume.sh"
prog=sim_workloads.sh
figure=
models="vgg16 resnet50 transformer"
astra_dir=
nodes_list=
cscales="1 2 4 8 16 32 64"
seeds=5
scale=16
iterations=1
stack=paper
oversub=2
gen_args=
jobs=$(nproc)
out=
resume=
summary_only=0

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	--summary) summary_only=1; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--figure) figure=$2 ;;
	--models) models=$2 ;;
	--astra-dir) astra_dir=$2 ;;
	--nodes) nodes_list=$2 ;;
	--compute-scales) cscales=$2 ;;
	--seeds) seeds=$2 ;;
	--scale) scale=$2 ;;
	--iterations) iterations=$2 ;;
	--stack) stack=$2 ;;
	--oversub) oversub=$2 ;;
	--gen) gen_args=$2 ;;
	--jobs) jobs=$2 ;;
	--resume) resume=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
case $figure in
table2) nodes_list=${nodes_list:-128 512} ;;
fig6) nodes_list=${nodes_list:-128} ;;
"") die "no --figure (table2 or fig6)" ;;
*) die "--figure '$figure': table2 or fig6" ;;
esac
for m in $models; do
	[[ $m =~ ^(vgg16|resnet50|transformer|resnet50-astra|transformer-astra)$ ]] ||
		die "--models: '$m' is not vgg16, resnet50, transformer, resnet50-astra or transformer-astra"
done
# astra_file MODEL: the Astra-Sim text workload an -astra model reads
astra_file() {
	case $1 in
	resnet50-astra) echo Resnet50_DataParallel.txt ;;
	transformer-astra) echo Transformer_HybridParallel.txt ;;
	esac
}
astra_sha={}
for m in $models; do
	f=$(astra_file "$m")
	[ -n "$f" ] || continue
	[ -n "$astra_dir" ] || die "--models $m: no --astra-dir"
	[ -r "$astra_dir/$f" ] || die "--astra-dir '$astra_dir': no readable $f for $m"
	astra_sha=$(jq -c --arg m "$m" --arg sha "$(sha256sum "$astra_dir/$f" | cut -d' ' -f1)" \
		'. + {($m): $sha}' <<<"$astra_sha")
done
[ "$astra_sha" != {} ] || [ -z "$astra_dir" ] ||
	die "--astra-dir is for --models resnet50-astra and transformer-astra"
for n in $nodes_list; do
	[[ $n =~ ^(128|512)$ ]] || die "--nodes: '$n' is not 128 or 512"
done
[ "$figure" = table2 ] || [ "$(wc -w <<<"$nodes_list")" = 1 ] || die "--nodes: fig6 runs at one size"
for x in $cscales; do
	[[ $x =~ ^[1-9][0-9]*$ ]] || die "--compute-scales: '$x' is not a whole number from 1"
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $scale =~ ^[1-9][0-9]*$ ]] || die "--scale '$scale': wants a whole number from 1"
[[ $iterations =~ ^[1-9][0-9]*$ ]] || die "--iterations '$iterations': wants a count"
[[ $oversub =~ ^(1|2|4|8)$ ]] || die "--oversub '$oversub': 1, 2, 4 or 8"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
case $stack in
paper) cc=hpcc flows=astra symphony_at=tor state=switch ;;
nccl) cc=hpcc flows=nccl symphony_at=tor state=switch ;;
legacy) cc=legacy flows=legacy symphony_at=all state=port ;;
*) die "--stack '$stack': paper, nccl or legacy" ;;
esac
[ -n "$out" ] || out=$top/build/results/sim_workloads_$figure.json
sim=$top/build/symofan-sim
gen=$top/sim/workload_gen.py
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[ -z "$resume" ] || [ "$summary_only" = 0 ] || die "--resume and --summary: one or the other"
mkdir -p "$(dirname "$out")"
runs=${out%.json}.runs.jsonl

# fabric NODES: sim_symphony.sh's, and the hosts of a ToR
fabric() {
	case $1 in
	128) echo "16 --leaves 8 --spines 16 --hosts-per-leaf 16" ;;
	512) echo "8 --topology multipod --pods 8 --leaves 8 --spines 8 --hosts-per-leaf 8 --cores $((64 / oversub))" ;;
	esac
}

# The paper's numbers: Table 2's JCT cut (MODEL:NODES:1), and Fig. 6's
# for the Transformer as its computation shrinks, read off its plot at
# 1x and 64x (a normalized JCT of about 1.0 and 0.7: "nearly 30%"; the
# points between are not printed).
paper_cut() {
	case $1 in
	vgg16:128:1) echo 50.2 ;; vgg16:512:1) echo 54.4 ;;
	resnet50:128:1 | resnet50-astra:128:1) echo 24.3 ;;
	resnet50:512:1 | resnet50-astra:512:1) echo 20.8 ;;
	transformer:*:1 | transformer-astra:*:1) echo 0.068 ;;
	transformer:*:64) echo 30 ;;
	*) echo null ;;
	esac
}

# the points: MODEL NODES COMPUTE_SCALE
points() {
	local m n x first
	if [ "$figure" = table2 ]; then
		first=${nodes_list%% *}
		for m in $models; do
			for n in $nodes_list; do
				[ "$m" != transformer ] || [ "$n" = "$first" ] || continue
				echo "$m $n 1"
			done
		done
	else
		for x in $cscales; do echo "transformer ${nodes_list%% *} $x"; done
	fi
}

# run_one MODEL NODES XSCALE SEED MARKING WORKFILE: one run's line
run_one() {
	local m=$1 n=$2 x=$3 seed=$4 marking=$5 wl=$6 hpt fab res
	read -r hpt fab <<<"$(fabric "$n")"
	res=$(mktemp /tmp/sim_workloads.XXXXXX)
	# shellcheck disable=SC2086
	if ! "$sim" workload --workload "$wl" $fab --rate 10gbit --uplink-rate 10gbit \
		--links p2p --delay-us 1 --lb ecmp \
		--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k 0.01 tau 0.25 twin 100us warmup 16 samples 16" \
		--marking "$marking" --state "$state" --symphony-at "$symphony_at" --seed "$seed" \
		--step-base $((49152 + seed * 97)) --mtu 4096 --rto 4 --cc "$cc" --flows "$flows" \
		--out "$res"; then
		echo "$prog: $m $n x$x seed $seed $marking: the simulation did not complete" >&2
	fi
	jq -c --arg model "$m" --argjson nodes "$n" --argjson xscale "$x" --arg marking "$marking" '
	  {model: $model, nodes: $nodes, compute_scale: $xscale, seed: .seed, marking: $marking,
	   complete: .sim.complete, jct_ns: .workload.jobs[0].jct_ns,
	   compute_ns: .workload.jobs[0].compute_ns_per_iteration,
	   iteration_ns: .workload.jobs[0].iteration_ns,
	   collectives_mean_ns: ([.workload.jobs[0].op_times[] | select(.kind != "compute") |
	     .iterations[0].mean_rank_ns] | add),
	   sync_ns: ([.workload.jobs[0].op_times[] | select(.kind != "compute") | .iterations[0]] |
	     if length == 0 then null else (map(.end_ns) | max) - (map(.start_ns) | min) end),
	   red_marks: ([.ports[].red_marks] | add), symphony_marks: ([.ports[].symphony_marks] | add),
	   drops: ([.ports[] | .limit_drops + .red_drops] | add),
	   max_backlog_bytes: ([.ports[].max_backlog_bytes] | max),
	   sim: {events: .sim.events, wall_s: .sim.wall_s, events_per_s: .sim.events_per_s}}' "$res"
	if [ "$seed" = 1 ] && command -v gnuplot >/dev/null; then
		"$top/eval/workload_timeline.sh" "$res" \
			"${out%.json}-timeline-$m-$n-x$x-$marking.png" 2>/dev/null || true
	fi
	rm -f "$res"
}

if [ "$summary_only" = 0 ]; then
	work=$(mktemp -d /tmp/sim_workloads.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	# --resume: the earlier runs, made the same way (files written
	# before oversub and gen were recorded: their defaults)
	# shellcheck disable=SC2016 # a jq expression
	resume_load "$prog" "$resume" "$work" "this stack, scale, iterations, oversub, --gen and Astra-Sim files" '
	  (.astra_sha256 // (if .astra_file_sha256 then {"resnet50-astra": .astra_file_sha256}
	                     else {} end)) as $was |
	  .stack == $stack and .scale == $scale and .iterations == $iterations and
	  (.oversub // 2) == $oversub and (.gen // "") == $gen and
	  all($astra_sha | to_entries[]; ($was[.key] // .value) == .value)' \
		--arg stack "$stack" --argjson scale "$scale" --argjson iterations "$iterations" \
		--argjson oversub "$oversub" --arg gen "$gen_args" --argjson astra_sha "$astra_sha"
	: >"$runs"
	tasks=$work/tasks
	: >"$tasks"
	while read -r m n x; do
		hpt=$(fabric "$n" | cut -d' ' -f1)
		wl=$work/$m-$n-x$x.json
		f=$(astra_file "$m")
		model_args=("$m")
		[ -z "$f" ] || model_args=(astra1 --file "$astra_dir/$f")
		# shellcheck disable=SC2086 # --gen's options, split
		"$gen" "${model_args[@]}" --nodes "$n" --hosts-per-tor "$hpt" --iterations "$iterations" \
			--scale "$scale" --compute-scale "$x" $gen_args --out "$wl"
		for seed in $(seq 1 "$seeds"); do
			for marking in red symphony; do
				echo "$m $n $x $seed $marking $wl" >>"$tasks"
			done
		done
	done < <(points)
	total=$(wc -l <"$tasks")
	echo "$prog: $total runs, $jobs at once" >&2
	export -f run_one fabric
	export sim prog state symphony_at cc flows oversub top out
	i=0 reused=0
	while read -r line; do
		i=$((i + 1))
		read -r m n x seed marking _ <<<"$line"
		resume_find "$work" "$(jq -nc --arg m "$m" --argjson n "$n" --argjson x "$x" \
			--argjson seed "$seed" --arg marking "$marking" \
			'{model: $m, nodes: $n, compute_scale: $x, seed: $seed, marking: $marking}')" \
			>"$work/run.$i"
		if [ -s "$work/run.$i" ]; then
			reused=$((reused + 1))
			continue
		fi
		# shellcheck disable=SC2086
		run_one $line >"$work/run.$i" &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	done <"$tasks"
	wait
	[ "$reused" = 0 ] || echo "$prog: $reused of the $total runs from $resume" >&2
	for ((j = 1; j <= i; j++)); do cat "$work/run.$j"; done >"$runs"
fi
[ -s "$runs" ] || die "no runs in $runs"

# The summary: per point, each marking's mean JCT (and its standard
# error), Symphony's JCT over the baseline's seed for seed, the cut.
paper_json=$(jq -r '[.model, .nodes, .compute_scale] | map(tostring) | join(":")' "$runs" |
	sort -u | while read -r p; do echo "{\"key\":\"$p\",\"cut_pct\":$(paper_cut "$p")}"; done |
	jq -s 'map({(.key): .cut_pct}) | add')
jq -s --arg figure "$figure" --arg stack "$stack" --argjson scale "$scale" \
	--argjson iterations "$iterations" --argjson oversub "$oversub" --arg gen "$gen_args" \
	--argjson paper "$paper_json" --argjson astra_sha "$astra_sha" '
  def mean: if length == 0 then null else add / length end;
  def sem: if length < 2 then null else
    (mean as $m | (map((. - $m) * (. - $m)) | add) / (length - 1) | sqrt) / (length | sqrt) end;
  {figure: $figure, stack: $stack, scale: $scale, iterations: $iterations, oversub: $oversub, gen: $gen,
   astra_sha256: $astra_sha,
   incomplete_runs: map(select(.complete != true)) | length,
   points: (group_by([.model, .nodes, .compute_scale]) | map(
     . as $runs |
     ($runs | map(select(.marking == "red" and .complete)) | map({(.seed | tostring): .jct_ns}) | add // {}) as $red |
     ($runs | map(select(.marking == "symphony" and .complete)) | map({(.seed | tostring): .jct_ns}) | add // {}) as $sym |
     ([$red | keys[] | select($sym[.] != null) | $sym[.] / $red[.]]) as $ratio |
     {model: .[0].model, nodes: .[0].nodes, compute_scale: .[0].compute_scale,
      seeds: ($ratio | length),
      compute_ms: (.[0].compute_ns / 1e6),
      baseline_jct_ms: {mean: ([$red[]] | mean / 1e6), sem: ([$red[]] | sem | if . then . / 1e6 else null end)},
      symphony_jct_ms: {mean: ([$sym[]] | mean / 1e6), sem: ([$sym[]] | sem | if . then . / 1e6 else null end)},
      normalized_jct: {mean: ($ratio | mean), sem: ($ratio | sem)},
      baseline_sync_ms: (map(select(.marking == "red" and .complete) | .sync_ns // empty) | mean | if . then . / 1e6 else null end),
      symphony_sync_ms: (map(select(.marking == "symphony" and .complete) | .sync_ns // empty) | mean | if . then . / 1e6 else null end),
      jct_cut_pct: (if ($ratio | length) > 0 then (1 - ($ratio | mean)) * 100 else null end),
      paper_cut_pct: $paper["\(.[0].model):\(.[0].nodes):\(.[0].compute_scale)"],
      wall_s: (map(.sim.wall_s) | add)})),
   runs: .}' "$runs" >"$out"
jq -r '.points[] | "\(.model) \(.nodes) nodes, compute / \(.compute_scale): baseline \(.baseline_jct_ms.mean) ms, Symphony \(.symphony_jct_ms.mean) ms: normalized \(.normalized_jct.mean) (\(.seeds) seeds; paper cut \(.paper_cut_pct)%)"' "$out" >&2

if command -v gnuplot >/dev/null; then
	png=${out%.json}.png
	dat=$(mktemp /tmp/sim_workloads.XXXXXX)
	if [ "$figure" = table2 ]; then
		jq -r '.points[] | "\(.model)-\(.nodes) \(.normalized_jct.mean) \(.normalized_jct.sem // 0) \(if .paper_cut_pct then 1 - .paper_cut_pct / 100 else "NaN" end)"' "$out" >"$dat"
		gnuplot <<-EOF
		set terminal png size 800,480
		set output "$png"
		set title "Table 2: Symphony's JCT over the DCQCN baseline's (scale 1/$scale)"
		set ylabel "normalized JCT"
		set yrange [0:1.2]
		set style data histogram
		set style histogram errorbars gap 1 lw 1
		set style fill solid 0.6 border -1
		set key top right
		plot "$dat" using 2:3:xtic(1) title "simulated", "" using 4:(0) title "paper"
		EOF
	else
		jq -r '.points[] | "\(.compute_scale) \(.normalized_jct.mean) \(.normalized_jct.sem // 0)"' "$out" >"$dat"
		gnuplot <<-EOF
		set terminal png size 800,480
		set output "$png"
		set title "Fig. 6: the Transformer's normalized JCT as its computation shrinks (scale 1/$scale)"
		set xlabel "computation reduction (x)"
		set ylabel "normalized JCT (Symphony / baseline)"
		set logscale x 2
		set yrange [0:1.2]
		plot "$dat" using 1:2:3 with yerrorlines title "simulated", \
		     "-" using 1:2 with linespoints title "paper (read off its plot)"
		1 1.0
		64 0.7
		e
		EOF
	fi
	rm -f "$dat"
fi
echo "$prog: $out" >&2
