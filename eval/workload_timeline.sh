#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# workload_timeline.sh - a gnuplot PNG of a symofan-sim workload run's
# timeline: a bar per op and iteration from its first rank's start to
# its last rank's end, compute and collectives in two colours, one row
# per op in the file's order.
#
# Usage: eval/workload_timeline.sh RUN.json OUT.png [JOB]
#   RUN.json   symofan-sim workload's JSON (--out)
#   OUT.png    the plot
#   JOB        the index of the job in the run (default 0)
set -euo pipefail

prog=workload_timeline.sh
die() { echo "$prog: $*" >&2; exit 1; }
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
run=$1 png=$2 job=${3:-0}
[[ $job =~ ^[0-9]+$ ]] || die "JOB '$job': wants an index"
command -v gnuplot >/dev/null || die "no gnuplot"
jq -e --argjson j "$job" '.workload.jobs[$j].op_times' "$run" >/dev/null 2>&1 ||
	die "$run: no workload job $job (a symofan-sim workload run's JSON?)"
dat=$(mktemp /tmp/workload_timeline.XXXXXX)
trap 'rm -f "$dat"' EXIT
# row, start ms, end ms, colour (grey compute, blue collectives)
jq -r --argjson j "$job" '.workload.jobs[$j] as $job | $job.start_ns as $t0 |
  $job.op_times | to_entries[] | .key as $row | .value as $op |
  $op.iterations[] | select(. != null) |
  "\($row) \((.start_ns - $t0) / 1e6) \((.end_ns - $t0) / 1e6) \(if $op.kind == "compute" then 8421504 else 2062260 end)"' \
	"$run" >"$dat"
ops=$(jq --argjson j "$job" '.workload.jobs[$j].op_times | length' "$run")
name=$(jq -r '.workload.name' "$run")
jct=$(jq -r --argjson j "$job" '.workload.jobs[$j].jct_ns / 1e6' "$run")
gnuplot <<EOF
set terminal pngcairo size 1000,$((200 + ops * 6 > 1600 ? 1600 : 200 + ops * 6)) noenhanced
set output "$png"
set title "$name, job $job: JCT $jct ms (compute grey, collectives blue)"
set xlabel "time since the job's start (ms)"
set ylabel "op (the file's order)"
set yrange [$ops:-1]
unset key
plot "$dat" using 2:1:(\$3 - \$2):(0):4 with vectors nohead lw 3 lc rgb variable
EOF
echo "$prog: $png" >&2
