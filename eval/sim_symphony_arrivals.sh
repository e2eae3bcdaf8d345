#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_symphony_arrivals.sh - the Symphony paper's Fig. 7c in the ns-3
# simulator: a stream of ring AllReduce jobs arriving at random on a
# 128-node leaf-spine (8 ToRs of 16 hosts, 16 spines, 10 Gbit/s,
# sim_symphony.sh's Table 1 qdisc and DCQCN), each job one ring over a
# random set of 16, 32 or 64 hosts with a random data size and number of
# passes (AllReduces back to back), arrivals exponential.  Every seed
# draws its jobs once and runs them with RED marking (the baseline) and
# with Symphony OR RED.  A job's JCT runs from its first step to its last
# arrival; the paper's normalised JCT is Symphony's over the baseline's,
# per job, grouped by job scale.  Writes JSON (every job of every run,
# per scale the normalised JCT's median and spread, the runs' peak job
# concurrency) and a gnuplot PNG of the normalised JCT's CDF per scale.
#
# Usage: eval/sim_symphony_arrivals.sh [options]     (after "make sim")
#   --seeds N          (default 10)
#   --jobs-per-run N   jobs each seed draws (default 8)
#   --scales "N ..."   ring sizes to draw from (default "16 32 64")
#   --sizes "B ..."    data per rank to draw from (default "1m 4m 8m": the
#                      paper's 4, 16 and 32 MB over 4, to keep a run
#                      within minutes)
#   --passes "N ..."   AllReduces back to back to draw from (default
#                      "1 2 3 4"; the paper's 16 to 128)
#   --gap-ms MS        mean time between arrivals (default 40: about 3
#                      jobs at once at the defaults)
#   --k K              Symphony's k (default 0.01)
#   --stack paper|nccl|legacy  the transport and Symphony's deployment, as
#                      sim_symphony.sh's (default paper: --cc hpcc --flows
#                      astra --symphony-at tor --state switch; legacy: the
#                      runs before 2026-12)
#   --jobs N           simulations at once (default: the cores)
#   --out FILE         JSON (default build/results/sim_symphony_arrivals.json);
#                      the plot next to it (-jct-cdf.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
prog=sim_symphony_arrivals.sh
seeds=10
per_run=8
scales="16 32 64"
sizes="1m 4m 8m"
passes="1 2 3 4"
gap_ms=40
k=0.01
jobs=$(nproc)
out=$top/build/results/sim_symphony_arrivals.json
tors=8 hpt=16 spines=16

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds=$2 ;;
	--jobs-per-run) per_run=$2 ;;
	--scales) scales=$2 ;;
	--sizes) sizes=$2 ;;
	--passes) passes=$2 ;;
	--gap-ms) gap_ms=$2 ;;
	--k) k=$2 ;;
	--stack) stack=$2 ;;
	--jobs) jobs=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
case ${stack:=paper} in
paper) stack_args=(--cc hpcc --flows astra --symphony-at tor --state switch) ;;
nccl) stack_args=(--cc hpcc --flows nccl --symphony-at tor --state switch) ;;
legacy) stack_args=(--cc legacy --flows legacy --symphony-at all --state port) ;;
*) die "--stack '$stack': paper, nccl or legacy" ;;
esac
sim=$top/build/symofan-sim
[ -x "$sim" ] || die "no $sim: run 'make sim'"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $per_run =~ ^[1-9][0-9]?$ ]] || die "--jobs-per-run '$per_run': wants 1..99"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs': wants a count"
[[ $gap_ms =~ ^[0-9]+$ ]] || die "--gap-ms '$gap_ms': wants milliseconds"
for n in $scales; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le $((tors * hpt)) ] ||
		die "--scales: '$n' is not a ring size in 2..$((tors * hpt))"
done
for b in $sizes; do [[ $b =~ ^[1-9][0-9]*[km]?$ ]] || die "--sizes: '$b' is not bytes, with k or m"; done
for p in $passes; do [[ $p =~ ^[1-9][0-9]?$ ]] || die "--passes: '$p' is not 1..99"; done

work=$(mktemp -d /tmp/sim_arrivals.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"

# draw SEED: the seed's jobs, one line each: job scale size passes
# start_us hosts (comma-separated), from awk's generator seeded with SEED
draw() {
	awk -v seed="$1" -v n="$per_run" -v scales="$scales" -v sizes="$sizes" \
	    -v passes="$passes" -v gap="$gap_ms" -v hosts=$((tors * hpt)) 'BEGIN {
		srand(seed * 7919 + 17)
		ns = split(scales, sc, " "); nz = split(sizes, sz, " "); np = split(passes, ps, " ")
		t = 0
		for (j = 1; j <= n; j++) {
			scale = sc[int(rand() * ns) + 1]
			# a random set of hosts in random order: a partial shuffle
			for (h = 0; h < hosts; h++) perm[h] = h
			list = ""
			for (i = 0; i < scale; i++) {
				r = i + int(rand() * (hosts - i))
				x = perm[i]; perm[i] = perm[r]; perm[r] = x
				list = list (i ? "," : "") perm[i]
			}
			printf "%d %d %s %d %d %s\n", j, scale, sz[int(rand() * nz) + 1],
			       ps[int(rand() * np) + 1], int(t * 1000), list
			t += -gap * log(1 - rand())	# exponential gaps, mean gap ms
		}
	}'
}

# one_run N SEED MARKING: the run's jobs as JSON lines in $work/N.lines
one_run() {
	local n=$1 seed=$2 marking=$3 args=() job size np start hosts
	while read -r job _ size np start hosts; do
		args+=(--ring "$job=$hosts" --job-size "$job=$size" --job-iterations "$job=$np"
		       --job-start "$job=$start")
	done <"$work/jobs-$seed"
	"$sim" ring --leaves "$tors" --spines "$spines" --hosts-per-leaf "$hpt" \
		--rate 10gbit --uplink-rate 10gbit --links p2p --delay-us 1 --lb ecmp \
		--qdisc "limit 100000 kmin 50kb kmax 100kb pmax 0.2 k $k tau 0.25 twin 100us warmup 16 samples 16" \
		--marking "$marking" --seed "$seed" --step-base $((49152 + seed * 97)) \
		--mtu 4096 --rto 4 "${stack_args[@]}" "${args[@]}" --out "$work/$n.json" ||
		echo "$prog: seed $seed $marking: the simulation did not complete" >&2
	jq -L "$top/tc-scripts" -c --argjson seed "$seed" --arg marking "$marking" \
		--slurpfile drawn <(awk '{ printf "{\"job\":%d,\"scale\":%d,\"size\":\"%s\",\"passes\":%d,\"start_us\":%d}\n", $1, $2, $3, $4, $5 }' "$work/jobs-$seed") '
	  include "ringmerge";
	  .sim as $sim | .ranks | ring_merge(null) | .jobs[] | .job as $id
	  | ($drawn[] | select(.job == $id)) as $d
	  | {seed: $seed, marking: $marking, job: $id, scale: $d.scale, size: $d.size,
	     passes: $d.passes, start_us: $d.start_us,
	     first_start_ns: .iterations[0].start_ns, end_ns: .iterations[-1].end_ns,
	     jct_ms: .whole.cct_ms, complete: .whole.complete,
	     max_step_overlap: .whole.max_step_overlap, wall_s: $sim.wall_s}' \
		"$work/$n.json" >"$work/$n.lines"
	rm -f "$work/$n.json"
}

n=0
total=$((seeds * 2))
progress_start "$prog"
for ((seed = 1; seed <= seeds; seed++)); do
	draw "$seed" >"$work/jobs-$seed"
	for marking in red symphony; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		n=$((n + 1))
		progress "$n" "$total" "seed $seed, $marking"
		one_run "$n" "$seed" "$marking" &
	done
done
wait
progress_done
cat "$work"/*.lines >"$work/all.jsonl"

jq -s --arg date "$(date -u +%FT%TZ)" --arg scales "$scales" --arg sizes "$sizes" \
	--arg passes "$passes" --argjson gap "$gap_ms" --argjson per_run "$per_run" --arg k "$k" '
  # the median: the mean of the two middle values of an even count
  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def q(p): sort | .[((length - 1) * p | round)];
  # peak number of jobs running at once in one run
  def peak: [.[] | [.first_start_ns, 1], [.end_ns, -1]] | sort
    | reduce .[] as $e ({n: 0, max: 0}; .n += $e[1] | .max = ([.max, .n] | max)) | .max;
  (map(select(.marking == "red"))) as $red
  | (map(select(.marking == "symphony"))) as $sym
  | [$red[] as $b | ($sym[] | select(.seed == $b.seed and .job == $b.job)) as $s
     | {seed: $b.seed, job: $b.job, scale: $b.scale, normalised_jct: ($s.jct_ms / $b.jct_ms),
	red_jct_ms: $b.jct_ms, symphony_jct_ms: $s.jct_ms}] as $pairs
  | {
      benchmark: "sim_symphony_arrivals",
      date: $date,
      engine: "sim",
      method: "symofan-sim ring: 128 nodes (8 ToRs x 16 hosts, 16 spines, 10 Gbit/s point-to-point), ECMP, RED 50/100 KB at 0.2, Symphony k \($k) tau 0.25 T_win 100 us; per seed \($per_run) jobs, each one ring over random hosts, scale from {\($scales)}, data per rank from {\($sizes)}, passes from {\($passes)}, exponential arrivals of mean \($gap) ms; the same jobs with RED marking and with Symphony OR RED; JCT from the job first step to its last arrival; normalised JCT = Symphony / RED per job",
      paper: "Fig. 7c: median JCT 1.53% lower for 16-node jobs, up to about 17% lower for 64-node jobs; never worse for small jobs",
      complete: (map(.complete) | all),
      peak_concurrent_jobs: ([group_by([.seed, .marking])[] | peak] | {median: med, max: max}),
      summary: ($pairs | group_by(.scale) | map({
	scale: .[0].scale, jobs: length,
	normalised_jct: ([.[].normalised_jct] | {median: med, p25: q(0.25), p75: q(0.75), min: min, max: max}),
	symphony_faster: (map(select(.normalised_jct < 1)) | length)})),
      pairs: $pairs,
      runs: .
    }' "$work/all.jsonl" >"$out.tmp" && mv "$out.tmp" "$out"

base=${out%.json}
if command -v gnuplot >/dev/null; then
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-jct-cdf.png'"
		echo "set title 'Jobs arriving at random, 128 nodes: Symphony JCT / baseline JCT per job'"
		echo "set xlabel 'normalised JCT (below 1: Symphony faster)'"
		echo "set ylabel 'fraction of jobs'"
		echo "set yrange [0:1]"
		echo "set key bottom right"
		printf "plot "
		sep=
		for s in $scales; do
			jq -r --argjson s "$s" '[.pairs[] | select(.scale == $s) | .normalised_jct] | sort
			  | length as $n | to_entries[] | "\(.value) \((.key + 1) / $n)"' "$out" >"$base.$s.dat"
			printf "%s'%s' using 1:2 with steps lw 2 title '%s nodes'" "$sep" "$base.$s.dat" "$s"
			sep=", "
		done
		echo
	} | gnuplot
	rm -f "$base".*.dat
fi
jq -r '"scale  jobs  normalised JCT median (p25..p75, min..max)  Symphony faster",
  (.summary[] | "\(.scale)\t\(.jobs)\t\(.normalised_jct.median * 1000 | round / 1000) (\(.normalised_jct.p25 * 1000 | round / 1000)..\(.normalised_jct.p75 * 1000 | round / 1000), \(.normalised_jct.min * 1000 | round / 1000)..\(.normalised_jct.max * 1000 | round / 1000))\t\(.symphony_faster) of \(.jobs)"),
  "peak jobs at once: median \(.peak_concurrent_jobs.median), max \(.peak_concurrent_jobs.max); all complete: \(.complete)"' "$out"
echo "$prog: $out, $base-jct-cdf.png"
