#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# qdisc_pps.sh - per-packet cost of the symphony qdisc against in-kernel
# peers: packets per second through a dummy device (whose transmit is
# nearly free, so the qdisc dominates) under pfifo, red with ECN, fq_codel,
# symphony (Symphony marking), symphony with RED marking only, and symphony
# with kmin below a packet (RED's probability drawn for every packet).
# Three generators feed the same qdiscs: bench/roceblast (a RoCEv2 stream
# of collective jobs, so symphony parses, tracks steps and marks), once
# with only the headers in the skb's linear area (as drivers that pull
# exactly the headers leave it) and once with the first 256 bytes linear
# (as drivers that copy a fixed head leave it), and the kernel's pktgen
# (1000-byte UDP, not collective).  A benchmark, not a test: it fails only
# when it cannot measure, or when symphony did not see the RoCEv2 stream
# as collective.
#
# Usage: bench/qdisc_pps.sh [options]        (as root, after "make")
#   --out FILE        JSON results (default build/results/qdisc_pps.json)
#   --reps N          runs of each generator and qdisc (default 7)
#   --duration SEC    measured window of a run (default 2)
#   --warmup SEC      traffic before the window opens (default 0.5)
#   --generators LIST comma-separated subset of roceblast,roceblast_256,pktgen
#   --qdiscs LIST     comma-separated subset of pfifo,red,fq_codel,symphony,
#                     symphony_red,symphony_kmin500 (pfifo always runs:
#                     ratios are to it)
# Boots the VM once (scripts/vm-run.sh) and measures inside it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
# shellcheck source=bench/qdisc_specs.sh
. "$here/qdisc_specs.sh"

usage() { sed -n '17,26p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

out=$top/build/results/qdisc_pps.json
reps=7
duration=2
warmup=0.5
inside=0
want_generators=
want_qdiscs=
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--warmup) warmup=${2:?}; shift 2 ;;
	--generators) want_generators=${2:?}; shift 2 ;;
	--qdiscs) want_qdiscs=${2:?}; shift 2 ;;
	--inside-vm) inside=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "qdisc_pps.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$reps" in ''|*[!0-9]*|0) die "--reps wants a positive count, got '$reps'" ;; esac
for v in "$duration" "$warmup"; do
	[[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number of seconds: '$v'"
done

# Fixed for every run: device, addresses (packet size and qdiscs:
# qdisc_specs.sh).
dev=bench0
dst_mac=02:00:00:00:00:02
generators=(roceblast roceblast_256 pktgen)
qdiscs=(pfifo red fq_codel symphony symphony_red symphony_kmin500)

# pick_subset ARRAY WHAT LIST: keep in ARRAY only the names of the
# comma-separated LIST, in ARRAY's order; dies naming one it does not hold.
pick_subset() {
	local -n all=$1
	local what=$2 name a known kept=()

	IFS=, read -ra picked <<< "$3"
	[ "${#picked[@]}" -gt 0 ] || die "--${what}s: none given"
	for name in "${picked[@]}"; do
		known=0
		for a in "${all[@]}"; do [ "$a" = "$name" ] && known=1; done
		[ "$known" = 1 ] || die "unknown $what '$name' (one of: ${all[*]})"
	done
	for a in "${all[@]}"; do
		for name in "${picked[@]}"; do
			[ "$a" = "$name" ] && { kept+=("$a"); break; }
		done
	done
	all=("${kept[@]}")
}
[ -z "$want_generators" ] || pick_subset generators generator "$want_generators"
[ -z "$want_qdiscs" ] || pick_subset qdiscs qdisc "pfifo,$want_qdiscs"

# --- inside the VM -------------------------------------------------------

# sample: the device's transmitted packets and the time in microseconds,
# into s_pkts and s_us, without forking (so both are read together).
sample() {
	read -r s_pkts < "/sys/class/net/$dev/statistics/tx_packets"
	s_us=${EPOCHREALTIME/./}
}

# window: wait out the warm-up, then count the device's packets over the
# measured window; sets pps.
window() {
	local p0 t0

	sleep "$warmup"
	sample
	p0=$s_pkts t0=$s_us
	sleep "$duration"
	sample
	pps=$(((s_pkts - p0) * 1000000 / (s_us - t0)))
}

# run_roceblast [LINEAR]: LINEAR bytes of each frame in the skb's linear
# area (default: the headers).
run_roceblast() {
	local gpid secs linear=()

	[ $# -eq 0 ] || linear=(--linear "$1")
	secs=$(awk -v w="$warmup" -v d="$duration" 'BEGIN { print w + d + 10 }')
	"$top/build/roceblast" "${roceblast_opts[@]}" "${linear[@]}" \
		--duration "$secs" "$dev" > /tmp/roceblast.log &
	gpid=$!
	window
	kill -TERM "$gpid" 2>/dev/null || true
	wait "$gpid" || die "roceblast failed: $(cat /tmp/roceblast.log)"
}

run_roceblast_256() {
	run_roceblast 256
}

pg_set() {
	echo "$2" > "/proc/net/pktgen/$1"
	grep -q '^Result: OK' "/proc/net/pktgen/$1" ||
		die "pktgen $1: '$2': $(grep '^Result' "/proc/net/pktgen/$1")"
}

pktgen_setup() {
	local c

	pg_set kpktgend_0 rem_device_all
	pg_set kpktgend_0 "add_device $dev"
	for c in "count 0" "pkt_size $pkt_size" "delay 0" "dst 10.99.0.2" \
		 "dst_mac $dst_mac" "udp_src_min 9" "udp_src_max 9" \
		 "udp_dst_min 9" "udp_dst_max 9" "tos 02" \
		 "xmit_mode queue_xmit"; do
		pg_set "$dev" "$c"
	done
}

run_pktgen() {
	local gpid

	# The write of "start" returns once the thread stops.
	echo start > /proc/net/pktgen/pgctrl &
	gpid=$!
	window
	echo stop > /proc/net/pktgen/pgctrl
	wait "$gpid" || true
}

# measure GENERATOR QDISC REP: one run; appends a JSON record.
measure() {
	local gen=$1 q=$2 rep=$3 stats
	local -a spec

	read -ra spec <<< "${qdisc_spec[$q]}"
	tc qdisc add dev "$dev" root handle 1: "${spec[@]}"
	"run_$gen"
	stats=$(tc -s -j qdisc show dev "$dev")
	tc qdisc del dev "$dev" root
	printf '%-16s %-13s run %d: %8d pps\n' "$gen" "$q" "$rep" "$pps"
	# tc's JSON is a list of the device's qdiscs: the root alone here.
	printf '{"generator":"%s","qdisc":"%s","rep":%d,"pps":%d,"stats":%s}\n' \
		"$gen" "$q" "$rep" "$pps" "$stats" >> /tmp/qdisc_pps.records
}

inside_vm() {
	local moddir rep gen i n q

	export TC_LIB_DIR=$top/build/tc LC_ALL=C
	moddir=$(sed -n 's/.*symofan\.modules=\([^ ]*\).*/\1/p' /proc/cmdline)
	modprobe -d "$moddir" pktgen || die "cannot load pktgen"
	ip link add "$dev" type dummy
	ip link set "$dev" txqueuelen 1000 up
	ip addr add 10.99.0.1/24 dev "$dev"
	pktgen_setup
	: > /tmp/qdisc_pps.records

	echo "# $(nproc) CPUs, kernel $(uname -r); generators on CPU 0;" \
	     "${warmup}s warm-up, ${duration}s window, $reps runs"
	# One unrecorded run of each generator first: the first run after
	# boot pays for cold caches.
	for gen in "${generators[@]}"; do
		tc qdisc add dev "$dev" root handle 1: pfifo limit 1000
		"run_$gen"
		tc qdisc del dev "$dev" root
	done
	# The qdisc order turns from run to run, so that drift spreads evenly.
	n=${#qdiscs[@]}
	local run=0 runs=$((reps * ${#generators[@]} * n))
	progress_start qdisc_pps.sh
	for rep in $(seq 1 "$reps"); do
		for gen in "${generators[@]}"; do
			for i in $(seq 0 $((n - 1))); do
				q=${qdiscs[$(((i + rep - 1) % n))]}
				run=$((run + 1))
				progress "$run" "$runs" "repetition $rep, $gen, $q"
				measure "$gen" "$q" "$rep"
			done
		done
	done
	progress_done
	report > "$out.tmp"
	mv "$out.tmp" "$out"
}

# The JSON document, from the records.
report() {
	local specs

	specs=$(for q in "${qdiscs[@]}"; do
		jq -cn --arg q "$q" --arg s "${qdisc_spec[$q]}" '{($q): $s}'
	done | jq -cs add)
	jq -s \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg kernel "$(uname -r)" \
		--argjson cpus "$(nproc)" \
		--argjson reps "$reps" \
		--argjson warmup "$warmup" \
		--argjson duration "$duration" \
		--argjson size "$pkt_size" \
		--argjson jobs "$roceblast_jobs" \
		--argjson middle "$roceblast_middle" \
		--argjson specs "$specs" '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def counters: {collective_packets, outpacing_packets, symphony_marks,
		red_marks, unclassified_packets, malformed_packets, red_drops,
		limit_drops, dequeued_packets};
	def qdisc_result:
		{
			pps: map(.pps),
			median_pps: (map(.pps) | median),
			min_pps: (map(.pps) | min),
			max_pps: (map(.pps) | max),
			qdisc_drops: map(.stats.drops),
			bytes_per_packet: (map(.stats.bytes / ([.stats.packets, 1] | max)) | max | floor)
		} + (if .[0].qdisc | startswith("symphony")
		     then {counters: map(.stats | counters)} else {} end);
	def gen_result(recs):
		(recs | group_by(.qdisc) | map({key: .[0].qdisc, value: qdisc_result})
		 | from_entries) as $q
		| {qdiscs: ($q | with_entries(
			.value.ratio_vs_pfifo =
				((.value.median_pps / $q.pfifo.median_pps) * 1000 | round / 1000)
			| .value.extra_ns_per_packet_vs_pfifo =
				(1e9 / .value.median_pps - 1e9 / $q.pfifo.median_pps | round))),
		   ratios_vs_pfifo: ($q | with_entries(.value =
			((.value.median_pps / $q.pfifo.median_pps) * 1000 | round / 1000)))};
	map(.stats |= .[0]) as $all
	| {
		protocol: "RoCEv2 over IPv4, UDP dport 4791, ECT(0)",
		jobs: $jobs,
		job_field: "BTH reserved bits (byte 4 low 6 bits: job >> 7, byte 8 low 7 bits: job & 0x7f)",
		step_field: "UDP source port",
		pattern: "per job: lagging step s and outpacing step s+1 alternate WRITE MIDDLE (0x07), \($middle) each, then WRITE LAST (0x08) of s; jobs take turns; PSN +1 per packet of a job"
	} as $stream
	| {
		benchmark: "qdisc_pps",
		date: $date,
		kernel: $kernel,
		machine: {vm: "QEMU TCG (scripts/vm-run.sh)", cpus: $cpus, generator_cpu: 0},
		device: "dummy",
		packet_bytes: $size,
		repetitions: $reps,
		warmup_s: $warmup,
		duration_s: $duration,
		method: "fixed duration: the dummy device counts the packets sent over the window after the warm-up; median of the runs; ratios against pfifo of the same generator; extra_ns_per_packet_vs_pfifo = 1e9 / median - 1e9 / median of pfifo, the cost of the qdisc beyond that of pfifo, which does not depend on how fast the generator is",
		qdiscs: $specs,
		notes: [
			"symphony and symphony_red run with the thresholds of the red peer (kmin 50000, kmax 100000 bytes, the defaults): on the dummy device the backlog is one packet, so neither RED marks.  symphony_kmin500 sets kmin below a packet, so that symphony computes the RED probability and draws a random number for every packet (about 0.1% are marked); sch_red decides on its average queue, which stays near 0.",
			"The VM boots with tsc=reliable (scripts/vm-run.sh): QEMU TCG offers no invariant-TSC flag, so the guest would mark its TSC unstable and read time from the HPET and the unstable sched_clock path, which no host with an invariant TSC takes.  Every qdisc that reads a clock (red, symphony) gains from it.",
			"twin 1ms instead of the default 100us: under TCG a job sends about 20000 packets/s, so a 100us window holds too few packets (samples 16) for alpha to move and psn_rec is reset before outpacing packets arrive; 1 ms lets Algorithm 1 run and mark as it would at line rate.",
			"symphony_red (marking red) skips the parser and the job state: the difference to symphony is the cost of classification, Algorithm 1 and Symphony marking."
		],
		generators: {
			roceblast: ({
				generator: "bench/roceblast: AF_PACKET TX ring through the qdisc path (PACKET_QDISC_BYPASS off); the 54 bytes of Ethernet, IPv4, UDP and BTH headers linear in the skb, the payload in page fragments",
				stream: $stream
			} + gen_result($all | map(select(.generator == "roceblast")))),
			roceblast_256: ({
				generator: "bench/roceblast --linear 256: as roceblast, with the first 256 bytes of the frame linear in the skb (symphony parses up to 160 bytes past the Ethernet header in place instead of copying them out of the page fragments)",
				stream: $stream
			} + gen_result($all | map(select(.generator == "roceblast_256")))),
			pktgen: ({
				generator: "pktgen (kernel module), xmit_mode queue_xmit, UDP 9 -> 9, ToS 0x02 (ECT(0)): not collective, so symphony parses and runs RED only"
			} + gen_result($all | map(select(.generator == "pktgen"))))
		}
	}
	| .generators |= with_entries(select(.value.qdiscs | length > 0))
	| .headline = {
		symphony_vs_pfifo: (.generators | map_values(.ratios_vs_pfifo.symphony)),
		target: 0.9
	}' /tmp/qdisc_pps.records
}

if [ "$inside" -eq 1 ]; then
	[ "${SYMOFAN_IN_VM:-}" = 1 ] || die "--inside-vm is for the VM runner"
	inside_vm
	# Symphony must have seen the RoCEv2 stream as collective traffic.
	bad=$(jq '[.generators | to_entries[]
		   | select(.key | startswith("roceblast"))
		   | .value.qdiscs.symphony.counters // [] | .[]
		   | select(.collective_packets == 0)] | length' "$out")
	[ "$bad" -eq 0 ] ||
		die "symphony classified no packet of the RoCEv2 stream as collective in $bad run(s): see $out"
	exit 0
fi

# --- on the host ---------------------------------------------------------

[ "$(id -u)" -eq 0 ] || die "must run as root"
for f in kernel/sch_symphony.ko build/tc/q_symphony.so build/roceblast; do
	[ -f "$top/$f" ] || die "$top/$f is not built: run 'make' first"
done
command -v jq >/dev/null || die "jq not found: run scripts/install-deps.sh"

out=$(realpath -m "$out")
mkdir -p "$(dirname "$out")"
runs=$((reps * ${#generators[@]} * ${#qdiscs[@]}))
timeout_s=$(awk -v r="$runs" -v w="$warmup" -v d="$duration" \
	'BEGIN { printf "%d", 180 + r * (w + d + 6) }')
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$SECONDS
log "$runs runs of about $(awk -v w="$warmup" -v d="$duration" 'BEGIN { print w + d }') s in the VM"
"$top/scripts/vm-run.sh" --timeout "$timeout_s" --rw "$(dirname "$out")" -- \
	"$here/qdisc_pps.sh" --inside-vm --out "$out" --reps "$reps" \
	--duration "$duration" --warmup "$warmup" \
	--generators "$(IFS=,; echo "${generators[*]}")" \
	--qdiscs "$(IFS=,; echo "${qdiscs[*]}")"
wall=$((SECONDS - start))
jq --argjson wall "$wall" --arg host "$(uname -r)" --arg load "$load" \
	'.wall_seconds = $wall | .machine.host_kernel = $host |
	 .machine.host_loadavg_before = $load' "$out" > "$out.tmp"
mv "$out.tmp" "$out"

echo
printf '%-13s' ""
printf ' %24s' "${generators[@]}"
printf '\n%-13s' qdisc
for g in "${generators[@]}"; do printf ' %10s %6s %6s' "median pps" "x pfifo" "+ns"; done
echo
for q in "${qdiscs[@]}"; do
	printf '%-13s' "$q"
	for g in "${generators[@]}"; do
		jq -r --arg g "$g" --arg q "$q" '.generators[$g].qdiscs[$q] |
			"\(.median_pps) \(.ratio_vs_pfifo) \(.extra_ns_per_packet_vs_pfifo)"' "$out" |
		{ read -r pps ratio ns; printf ' %10.0f %6.3f %6d' "$pps" "$ratio" "$ns"; }
	done
	echo
done
echo "(x pfifo: median pps / median pps of pfifo; +ns: nanoseconds per packet beyond pfifo)"
jq -r '.generators.roceblast.qdiscs.symphony.counters[-1] |
	"symphony on the RoCEv2 stream (last run): \(.collective_packets) collective, \(.outpacing_packets) outpacing, \(.symphony_marks) Symphony marks, \(.red_marks) RED marks"' "$out"
echo "results: $out (wall ${wall} s)"
