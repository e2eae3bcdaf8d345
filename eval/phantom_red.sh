#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# phantom_red.sh - how closely Symphony-as-BPF's RED on its phantom queue
# tracks sch_red's on the real queue, on the same packets at once.  In
# the VM (the host kernel has no sch_red): a sender's port shaped by HTB
# at --rate with sch_red (ECN, the same kmin/kmax/pmax) as its leaf, and
# the program on the same port's egress with "marking red" and a phantom
# queue draining at --rate.  Both decide on every packet (the program
# first: sch_red counts a packet it would mark whether or not the program
# already set CE), so their counters compare decision for decision.
# rocegen sends ECT(0) RoCEv2 frames in phases below and above the rate;
# a sampler reads both mark counters and both backlogs every --sample-ms.
# Writes JSON (the samples, per phase and in all: marks of each, their
# ratio, the correlation of marks per interval, the first mark's delay
# after a phase starts) and a gnuplot PNG of marks per second over time.
#
# Usage: eval/phantom_red.sh [options]          (as root, after "make")
#   --rate RATE       the port (default 20mbit)
#   --drain RATE      the phantom queue's drain rate (default --rate; a
#                     little below it, as HULL's phantom queues run, keeps
#                     it as deep as a queue that sends slower than its rate)
#   --kmin BYTES      (default 20000)   --kmax BYTES (default 40000)
#   --pmax P          (default 0.2)
#   --phases "X ..."  offered load per 3 s phase, times the rate
#                     (default "0.8 1.2 0.9 1.5 0.7")
#   --sample-ms MS    (default 200)
#   --kernel NAME     the VM's kernel (default 6.1)
#   --engine vm|host  vm (default): as above; host: on this kernel, which
#                     has no sch_red, with a bfifo of the same limit as
#                     the leaf: the real and the phantom backlog compare
#                     sample by sample (HTB keeps its rate here), marks
#                     only the phantom queue's
#   --out FILE        (default build/results/phantom_red.json); the plot
#                     next to it (-marks.png)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=phantom_red.sh
rate=20mbit
kmin=20000
kmax=40000
pmax=0.2
phases="0.8 1.2 0.9 1.5 0.7"
sample_ms=200
kernel=6.1
engine=vm
out=$top/build/results/phantom_red.json
inside=0
orig_args=("$@")

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '17,30s/^# \{0,1\}//p' "$0" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--rate|--drain|--kmin|--kmax|--pmax|--phases|--sample-ms|--kernel|--engine|--out)
		[ $# -ge 2 ] || usage ;;&
	--rate) rate=$2 ;;
	--drain) drain=$2 ;;
	--kmin) kmin=$2 ;;
	--kmax) kmax=$2 ;;
	--pmax) pmax=$2 ;;
	--phases) phases=$2 ;;
	--sample-ms) sample_ms=$2 ;;
	--kernel) kernel=$2 ;;
	--engine) engine=$2 ;;
	--out) out=$2 ;;
	--inside-vm) inside=1; shift; continue ;;
	-h|--help) usage ;;
	*) echo "$prog: unknown argument '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $rate =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || die "--rate '$rate': a rate in kbit, mbit or gbit"
case ${BASH_REMATCH[2]} in
kbit) rate_bps=$((BASH_REMATCH[1] * 1000)) ;;
mbit) rate_bps=$((BASH_REMATCH[1] * 1000000)) ;;
gbit) rate_bps=$((BASH_REMATCH[1] * 1000000000)) ;;
esac
drain=${drain:-$rate}
[[ $engine =~ ^(vm|host)$ ]] || die "--engine '$engine': vm or host"
[[ $drain =~ ^[0-9]+(kbit|mbit|gbit)$ ]] || die "--drain '$drain': a rate in kbit, mbit or gbit"
[[ $kmin =~ ^[0-9]+$ && $kmax =~ ^[0-9]+$ && $kmin -lt $kmax ]] ||
	die "--kmin and --kmax: bytes, kmin below kmax"
[[ $sample_ms =~ ^[0-9]+$ && $sample_ms -ge 50 ]] || die "--sample-ms: 50 or more"
for x in $phases; do
	[[ $x =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--phases: '$x' is not a load"
done
[ "$(id -u)" -eq 0 ] || die "must run as root"
[ -x "$top/build/symofan" ] && [ -x "$top/build/rocegen" ] || die "run 'make' first"

if [ "$inside" -eq 0 ] && [ "$engine" = vm ]; then
	# the guest has no module tree of its own: sch_red from the VM
	# kernel's image, loaded by the runner
	# shellcheck source=scripts/lib.sh
	. "$top/scripts/lib.sh"
	vm_kernel "$kernel" || die "--kernel '$kernel': not one of the VM's kernels, or not installed"
	red_ko=$(find "$VMK_IMAGE/lib/modules/$VMK_KVER/kernel/net/sched" -name 'sch_red.ko' | head -1)
	[ -n "$red_ko" ] || die "no uncompressed sch_red.ko in $VMK_IMAGE"
	mkdir -p "$(dirname "$out")"
	"$top/scripts/vm-run.sh" --kernel "$kernel" --module "$red_ko" --timeout 600 \
		--rw "$(dirname "$out")" -- "$0" --inside-vm "${orig_args[@]}"
	exit $?
fi

# --- inside the VM (or on this kernel: --engine host) -----------------
ns_s=phantom-s-$$
ns_r=phantom-r-$$
reg=/sys/fs/bpf/phantom-reg-$$
pins=/sys/fs/bpf/phantom-pins-$$
work=$(mktemp -d /tmp/phantom_red.XXXXXX)
cleanup() {
	ip netns del "$ns_s" 2>/dev/null || true
	ip netns del "$ns_r" 2>/dev/null || true
	rm -rf "$reg" "$pins" "$work"
}
trap cleanup EXIT
in_s() { nsenter --net="/run/netns/$ns_s" "$@"; }

ip netns add "$ns_s"
ip netns add "$ns_r"
ip link add eth0 netns "$ns_s" type veth peer name eth0 netns "$ns_r"
ip -n "$ns_s" addr add 10.72.0.1/24 dev eth0
ip -n "$ns_r" addr add 10.72.0.2/24 dev eth0
ip -n "$ns_s" link set eth0 up
ip -n "$ns_r" link set eth0 up
ip -n "$ns_s" neigh replace 10.72.0.2 dev eth0 \
	lladdr "$(ip -n "$ns_r" -br link show eth0 | awk '{ print $3 }')"
tc -n "$ns_s" qdisc add dev eth0 root handle 1: htb default 1 r2q 100
tc -n "$ns_s" class add dev eth0 parent 1: classid 1:1 htb rate "$rate"
# tc's RED wants burst >= (2 min + max) / (3 avpkt): the smallest, for
# the fastest average (RED averages; the phantom queue does not)
avpkt=1000
burst=$(( (2 * kmin + kmax + 3 * avpkt - 1) / (3 * avpkt) ))
if [ "$engine" = vm ]; then
	tc -n "$ns_s" qdisc add dev eth0 parent 1:1 handle 10: red limit $((4 * kmax)) \
		min "$kmin" max "$kmax" avpkt "$avpkt" burst "$burst" probability "$pmax" \
		bandwidth "$rate" ecn
else
	tc -n "$ns_s" qdisc add dev eth0 parent 1:1 handle 10: bfifo limit $((4 * kmax))
fi
"$top/build/symofan" job init --jobs 64 --pin-dir "$reg" >/dev/null
in_s "$top/build/symofan" symphony attach eth0 rate "$drain" limit_bytes $((4 * kmax)) \
	kmin "$kmin" kmax "$kmax" \
	pmax "$pmax" marking red nonect pass --registry "$reg" --pin-dir "$pins" >/dev/null

# a sample: ms since start, sch_red's marks and backlog, the program's,
# and the bytes the HTB class has sent (its real drain rate)
sample() {
	local t red sym sent
	t=$(( ($(date +%s%N) - start_ns) / 1000000 ))
	red=$(tc -n "$ns_s" -s -j qdisc show dev eth0 parent 1:1 |
	      jq -c '.[0] | [.marked // .xstats.marked // 0, .backlog]')
	sym=$(in_s "$top/build/symofan" symphony status eth0 --pin-dir "$pins" --json |
	      jq -c '.[0] | [.stats.red_marks, .phantom_backlog_bytes]')
	sent=$(tc -n "$ns_s" -s class show dev eth0 |
	       awk '/^class htb 1:1 / { f = 1 } f && /Sent/ { print $2; exit }')
	echo "{\"t_ms\":$t,\"red\":$red,\"phantom\":$sym,\"sent\":$sent}"
}

frame=1082			# rocegen's 1024-byte payload on the wire
start_ns=$(date +%s%N)
(
	while :; do
		sample
		sleep "$(awk -v ms="$sample_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	done
) >"$work/samples.jsonl" &
sampler=$!
phase_starts=()
for x in $phases; do
	phase_starts+=($(( ($(date +%s%N) - start_ns) / 1000000 )))
	pps=$(awk -v r="$rate_bps" -v x="$x" -v f="$frame" 'BEGIN { printf "%d", r * x / (8 * f) }')
	count=$((pps * 3))
	ip netns exec "$ns_s" "$top/build/rocegen" --payload 1024 --pps "$pps" \
		10.72.0.2 "job=1,step=1,count=$count" >/dev/null
done
sleep 1
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sample >>"$work/samples.jsonl"

jq -s --arg rate "$rate" --arg drain "$drain" --arg engine "$engine" --argjson kmin "$kmin" --argjson kmax "$kmax" --arg pmax "$pmax" \
	--arg phases "$phases" --argjson starts "$(printf '%s\n' "${phase_starts[@]}" | jq -s .)" \
	--arg kernel "$(uname -r)" --argjson sample_ms "$sample_ms" '
  def pearson($xs; $ys):
    ($xs | add / length) as $mx | ($ys | add / length) as $my
    | ([range(0; $xs | length) | ($xs[.] - $mx) * ($ys[.] - $my)] | add) as $c
    | ([$xs[] | (. - $mx) * (. - $mx)] | add) as $vx
    | ([$ys[] | (. - $my) * (. - $my)] | add) as $vy
    | if $vx > 0 and $vy > 0 then $c / ($vx * $vy | sqrt) else null end;
  . as $s
  | [range(1; $s | length) | {t_ms: $s[.].t_ms,
	red: ($s[.].red[0] - $s[. - 1].red[0]), phantom: ($s[.].phantom[0] - $s[. - 1].phantom[0]),
	sent_bps: (($s[.].sent - $s[. - 1].sent) * 8000 / ([$s[.].t_ms - $s[. - 1].t_ms, 1] | max) | floor),
	red_backlog_bytes: $s[.].red[1], phantom_backlog_bytes: $s[.].phantom[1]}] as $iv
  | ($phases | split(" ") | map(tonumber)) as $loads
  | {
      benchmark: "phantom_red",
      date: (now | todate),
      kernel: $kernel,
      engine: $engine,
      method: "\(if $engine == "vm" then "VM: one port, HTB at \($rate) with sch_red (ecn, min \($kmin) max \($kmax) probability \($pmax), averaged queue, limit \(4 * $kmax) bytes)" else "host kernel: one port, HTB at \($rate) with a bfifo of \(4 * $kmax) bytes (no sch_red here)" end) as its leaf, and Symphony-as-BPF on its egress with marking red on a phantom queue draining at \($drain) (instantaneous); rocegen ECT(0) frames of 1082 bytes in 3 s phases at \($phases) times the rate; both mark counters sampled every \($sample_ms) ms",
      rate: $rate, phantom_drain_rate: $drain,
      totals: {red_marks: ($s[-1].red[0] - $s[0].red[0]), phantom_marks: ($s[-1].phantom[0] - $s[0].phantom[0])},
      phases: [range(0; $loads | length) as $i
	| ($starts[$i]) as $a | ($starts[$i + 1] // 1e18) as $b
	| [$iv[] | select(.t_ms > $a and .t_ms <= $b)] as $p
	| {load: $loads[$i], start_ms: $a,
	   red_marks: ([$p[].red] | add // 0), phantom_marks: ([$p[].phantom] | add // 0),
	   htb_sent_bps_median: ([$p[].sent_bps] | sort | .[length / 2 | floor]),
	   first_red_mark_ms: ([$p[] | select(.red > 0) | .t_ms - $a] | min),
	   first_phantom_mark_ms: ([$p[] | select(.phantom > 0) | .t_ms - $a] | min)}],
      correlation_per_interval: pearson([$iv[].red]; [$iv[].phantom]),
      backlog_correlation: pearson([$iv[].red_backlog_bytes]; [$iv[].phantom_backlog_bytes]),
      backlog_bytes_median: {real: ([$iv[].red_backlog_bytes] | sort | .[length / 2 | floor]),
			     phantom: ([$iv[].phantom_backlog_bytes] | sort | .[length / 2 | floor])},
      backlog_bytes_mean: {real: ([$iv[].red_backlog_bytes] | add / length),
			   phantom: ([$iv[].phantom_backlog_bytes] | add / length)},
      intervals: $iv
    }
  | .totals.ratio_phantom_to_red = (if .totals.red_marks > 0 then .totals.phantom_marks / .totals.red_marks else null end)
' "$work/samples.jsonl" >"$out"

base=${out%.json}
jq -r '.intervals[] | "\(.t_ms / 1000) \(.red) \(.phantom) \(.red_backlog_bytes) \(.phantom_backlog_bytes)"' \
	"$out" >"$work/marks.dat"
if command -v gnuplot >/dev/null; then
	real=real
	series="\"$work/marks.dat\" using 1:3 with steps lw 2 title \"phantom-queue RED marks\""
	if [ "$engine" = vm ]; then
		real=sch_red
		series+=", \"\" using 1:2 with steps lw 2 title \"sch_red marks (real queue)\""
	fi
	series+=", \"\" using 1:4 axes x1y2 with lines dt 2 title \"$real backlog\""
	series+=", \"\" using 1:5 axes x1y2 with lines dt 3 title \"phantom backlog\""
	gnuplot <<EOF || true
set terminal pngcairo size 900,500 noenhanced
set output "$base-marks.png"
set xlabel "time, s"
set ylabel "marks per ${sample_ms} ms"
set y2label "backlog, bytes"
set y2tics
set key top left
plot $series
EOF
fi
jq -M -c '{totals, correlation_per_interval, backlog_correlation, backlog_bytes_mean, phases: [.phases[] | {load, red_marks, phantom_marks, htb_sent_bps_median, first_red_mark_ms, first_phantom_mark_ms}]}' "$out"
echo "$prog: $out${base:+, $base-marks.png}"
