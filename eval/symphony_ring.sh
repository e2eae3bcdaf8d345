#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# symphony_ring.sh - the Symphony paper's comparison on this datapath: a
# leaf-spine of network namespaces inside the VM (sch_symphony is a
# module; this kernel has none), ECMP over the spines with the step in
# the UDP source port (so every step of a flow is hashed anew), a slower
# hop (load imbalance), light background traffic entering at the ToRs,
# and ring AllReduces of DCQCN senders (ringcoll) across it.  Every seed
# runs twice on the same testbed and hashes: with the switch ports'
# qdisc marking RED only (the RED+DCQCN baseline) and marking Symphony
# OR RED.  Scenarios: "rings", one job of several 1D rings (the paper's
# multiple 1D Ring AllReduce), "ring1", one ring of every host (more
# steps: 2(N-1) = 30 with 16 hosts), and "jobs2", two co-located jobs of one
# ring each; in the simulator also "twojobs", the rings of "rings" in two
# jobs of half of them each, the second starting --job-offset later (the
# paper's Fig. 7), and "grid" and "gridx", every host in one
# 2D ring (the paper's Table 1 default logical topology; ringcoll's
# --grid): "grid" runs its row rings inside the ToRs and its column rings
# across them, "gridx" the other way round, "gridrings" is grid with a job
# ID per row and column ring on the wire (symofan-sim --ring-jobs).  Writes JSON (every run with
# its step-overlap timeline and the switches' marking counters; medians
# and spreads per scenario and marking) and gnuplot PNGs: CDF of CCT,
# step overlap over time.
#
# Usage: eval/symphony_ring.sh [options]        (as root, after "make")
#   --seeds N            seeded runs per scenario and marking (default 10)
#   --scenarios "S ..."  rings, jobs2, ring1; with --engine sim also twojobs,
#                        grid, gridx, gridrings, rails (Table 1's rail rings:
#                        host i of every ToR in ring i, one job),
#                        railjobs (the same rails, each its own job ID:
#                        ring identity on the wire, as a queue pair or
#                        address pair would give it),
#                        railtwojobs (the rails of hosts 0..H/2-1 job 1,
#                        the others job 2, --job-offset later)
#                        (default "rings jobs2")
#   --hosts-per-tor H    hosts behind each of the 4 ToRs, 2..8 (default 4)
#   --rate RATE          host link rate (default 2500kbit)
#   --uplink-rate RATE   ToR-spine link rate (default twice --rate: no
#                        over-subscription with 4 hosts per ToR)
#   --burst BYTES|auto   every link's HTB burst and cburst (default auto:
#                        5 ms at the link's rate, at least 1600 bytes,
#                        leafspine.sh's rule: 1600 bytes at 2.5 Mbit/s,
#                        3125 at 5 Mbit/s)
#   --size BYTES         AllReduce data per rank (default 1m)
#   --imbalance R        ToR 0 - spine 0 runs at rate / R (default 1.13;
#                        1 for none)
#   --background PCT     each ToR sends UDP (UEC framing, its own job) to
#                        the next ToR at PCT% of --rate (default 10; 0 off)
#   --routing MODE       ecmp (default): the ToRs hash each flow over the
#                        spines; static: balanced destination routes, so
#                        no flows collide (the paper's Fig. 2 controls)
#   --red "ARGS"         the qdisc's queue and RED options
#                        (default "limit 1000 kmin 16kb kmax 64kb pmax 0.2")
#   --symphony "ARGS"    its Symphony options (default "k 0.01 tau 0.25
#                        twin 100ms warmup 4 samples 4")
#   --state port|switch  where Symphony keeps a job's state: each port's
#                        own table (default), or one jobs map per switch,
#                        shared by its ports, as the paper's switch keeps
#                        it (--engine host: switch, the only one it has)
#   --step-qps S         queue pairs per rank and ring: 1 (default) sends
#                        a rank's steps in turn, as NCCL's one connection
#                        per channel does; S > 1 lets up to S steps send at
#                        once and share the rank's NIC, as each step's
#                        transfer is its own flow in the paper's simulator
#   --step-flows on|off  on: each step's transfer starts as a new flow, at
#                        the line rate with fresh DCQCN state (ringcoll
#                        --step-flows), as in the paper's simulator; off
#                        (default): at its queue pair's current rate
#   --ringcoll "ARGS"    extra ringcoll options (default: the RTT-scaled
#                        legacy DCQCN of EVALUATION.md section 1, --cc legacy)
#   --markings "red symphony pq"  sim: also the priority-queue baseline
#                        (symofan-sim --marking pq: each job's slowest
#                        step served first, RED marking; default "red
#                        symphony")
#   --symphony-at all|tor|tor-up  the switch ports where Symphony marks,
#                        the others RED only (default all; symofan-sim's
#                        and leafspine.sh's --symphony-at)
#   --engine vm|host|sim vm (default): the testbed in the QEMU VM, sch_symphony
#                        on every switch port; host: the same testbed on
#                        this kernel, Symphony as tc-BPF with its
#                        phantom-queue RED on every switch port
#                        (leafspine.sh --datapath bpf; job state per
#                        switch, so --state switch), at rates the VM
#                        cannot carry; sim: the
#                        same scenario in the ns-3 simulator (build/symofan-sim,
#                        make sim) with the testbed's links (HTB-shaped,
#                        --burst as given), whose ranks merge as the
#                        testbed's; the guard is "simulated"
#   --tors N --spines N  sim: the leaf-spine's size (default 4 and 2, the
#                        testbed's; --hosts-per-tor up to 64)
#   --links htb|p2p      sim: the testbed's HTB-shaped links (default), or
#                        links that serialise every packet at every hop
#   --delay-us US        sim: every link's propagation delay (default 1)
#   --pods N --cores N   sim: a multi-pod fabric of N pods, each --tors/N
#                        ToRs and --spines spines, under --cores cores
#                        (default 1 pod: the leaf-spine)
#   --jobs N             sim: runs at once (default: the cores)
#   --pfc BYTES          sim, p2p links: lossless, PFC pausing a sender
#                        past BYTES held from its port (default: off)
#   --job-offset MS      sim, twojobs: the second job starts MS
#                        milliseconds after the first (default 0)
#   --out FILE           JSON (default build/results/symphony_ring.json); plots
#                        next to it (FILE without .json, -cct-cdf.png,
#                        -overlap.png)
#   --replot             no runs: summarise and plot the runs in --out
#   --resume FILE        sim: keep the runs of FILE, an earlier JSON of this
#                        script made with the same testbed, workload and
#                        qdisc settings, and run only the (seed, scenario,
#                        marking) it lacks or did not complete (more seeds,
#                        or a run cut short); the simulator's build is the
#                        caller's to keep the same
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
# shellcheck source=scripts/resume.sh
. "$top/scripts/resume.sh"
resume=
prog=symphony_ring.sh
# netns_list, netns_run (its die is replaced by this script's below)
# shellcheck source=tc-scripts/lib.sh
. "$top/tc-scripts/lib.sh"
seeds=10
scenarios="rings jobs2"
hpt=4
rate=2500kbit
uplink_rate=
burst=auto
size=1m
imbalance=1.13
background=10
routing=ecmp
red_args="limit 1000 kmin 16kb kmax 64kb pmax 0.2"
symphony_args="k 0.01 tau 0.25 twin 100ms warmup 4 samples 4"
state=
step_qps=1
step_flows=off
engine=vm
tors=4
spines=2
links=htb
delay_us=1
sim_jobs=$(nproc)
pfc=
job_offset=0
symphony_at=all
markings="red symphony"
pods=1
cores=0
# DCQCN with its time constants scaled to this testbed's round trip
# (tens of ms at a few Mbit/s, not the 10 us of a 40 Gbit/s fabric):
# one CNP, one alpha update and one rate-increase period per 50 ms, a
# byte counter of 16 packets, and increase steps of 1/100 and 1/10 of
# the line rate, so that a throttled sender regains its rate within a
# step (0.4 s) as it does within a few steps at 400 Gbit/s
ringcoll_args=	# set from --rate below
out=$top/build/results/symphony_ring.json
replot=0
inside=0
prefix=syev

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage:/,/^[^#]/s/^# \{0,1\}//p' "$0" >&2; exit 2; }
orig_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--replot) replot=1; shift; continue ;;
	--inside-vm) inside=1; shift; continue ;;
	-h|--help) usage ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds=$2 ;;
	--scenarios) scenarios=$2 ;;
	--hosts-per-tor) hpt=$2 ;;
	--rate) rate=$2 ;;
	--uplink-rate) uplink_rate=$2 ;;
	--burst) burst=$2 ;;
	--size) size=$2 ;;
	--imbalance) imbalance=$2 ;;
	--background) background=$2 ;;
	--routing) routing=$2 ;;
	--red) red_args=$2 ;;
	--symphony) symphony_args=$2 ;;
	--state) state=$2 ;;
	--step-qps) step_qps=$2 ;;
	--step-flows) step_flows=$2 ;;
	--ringcoll) ringcoll_args=$2 ;;
	--out) out=$2 ;;
	--engine) engine=$2 ;;
	--tors) tors=$2 ;;
	--spines) spines=$2 ;;
	--links) links=$2 ;;
	--delay-us) delay_us=$2 ;;
	--jobs) sim_jobs=$2 ;;
	--pfc) pfc=$2 ;;
	--job-offset) job_offset=$2 ;;
	--symphony-at) symphony_at=$2 ;;
	--markings) markings=$2 ;;
	--resume) resume=$2 ;;
	--pods) pods=$2 ;;
	--cores) cores=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[[ $engine =~ ^(vm|host|sim)$ ]] || die "--engine '$engine': vm, host or sim"
if [ "$engine" = host ]; then
	[ "${state:-switch}" = switch ] ||
		die "--state '$state': the tc-BPF datapath (--engine host) keeps a job's state per switch, in its registry"
	state=switch
fi
state=${state:-port}
if [ "$engine" != sim ]; then
	[[ $hpt =~ ^[2-8]$ ]] || die "--hosts-per-tor '$hpt': wants 2..8"
	[ "$tors.$spines.$links.$delay_us" = 4.2.htb.1 ] ||
		die "--tors, --spines, --links and --delay-us are the simulator's (--engine sim)"
	[ -z "$pfc" ] || die "--pfc is the simulator's (--engine sim)"
	[ "$job_offset" = 0 ] || die "--job-offset is the simulator's (--engine sim)"
	[ "$pods" = 1 ] || die "--pods is the simulator's (--engine sim)"
	[ "$markings" = "red symphony" ] || die "--markings is the simulator's (--engine sim)"
	[ -z "$resume" ] || die "--resume is the simulator's (--engine sim)"
else
	[[ $job_offset =~ ^[0-9]+$ ]] || die "--job-offset '$job_offset': wants milliseconds"
	[[ $pods =~ ^[1-9][0-9]*$ ]] && [ $((tors % pods)) -eq 0 ] ||
		die "--pods '$pods': wants a count that divides --tors $tors"
	[ "$pods" = 1 ] || [[ $cores =~ ^[1-9][0-9]*$ ]] ||
		die "--cores '$cores': a multi-pod fabric wants its cores"
	[ "$pods" = 1 ] || [ "$imbalance" = 1 ] ||
		die "--imbalance is for the leaf-spine (--pods 1)"
	[[ " $scenarios " != *" twojobs "* ]] || [ "$hpt" -ge 4 ] ||
		die "--scenarios twojobs: wants 4 or more hosts per ToR (2 rings or more)"
	[[ $hpt =~ ^[1-9][0-9]?$ ]] && [ "$hpt" -ge 2 ] && [ "$hpt" -le 64 ] ||
		die "--hosts-per-tor '$hpt': wants 2..64"
	[[ $tors =~ ^[1-9][0-9]?$ ]] && [ "$tors" -ge 2 ] || die "--tors '$tors': wants 2..99"
	[[ $spines =~ ^[1-9][0-9]?$ ]] || die "--spines '$spines': wants 1..64"
	[[ $links =~ ^(htb|p2p)$ ]] || die "--links '$links': htb or p2p"
	[[ $delay_us =~ ^[0-9]+$ ]] || die "--delay-us '$delay_us': wants microseconds"
	[[ $sim_jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$sim_jobs': wants a count"
	[ -z "$pfc" ] || [ "$links" = p2p ] || die "--pfc: with --links p2p only"
fi
[[ $imbalance =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--imbalance '$imbalance': wants a ratio such as 1.13"
[[ $background =~ ^[0-9]+$ ]] && [ "$background" -le 50 ] ||
	die "--background '$background': wants a percentage, 0..50"
[[ $routing =~ ^(ecmp|static)$ ]] || die "--routing '$routing': ecmp or static"
[ "$burst" = auto ] || [[ $burst =~ ^[1-9][0-9]{2,7}$ ]] ||
	die "--burst '$burst': auto or bytes, 100..99999999"
[[ $state =~ ^(port|switch)$ ]] || die "--state '$state': port or switch"
[[ $symphony_at =~ ^(all|tor|tor-up)$ ]] || die "--symphony-at '$symphony_at': all, tor or tor-up"
[[ $markings =~ ^red(\ symphony)?(\ pq)?$ ]] ||
	die "--markings '$markings': \"red\", \"red symphony\", \"red pq\" or \"red symphony pq\""
[[ $step_qps =~ ^([1-9]|1[0-6])$ ]] || die "--step-qps '$step_qps': wants 1..16"
[[ $step_flows =~ ^(on|off)$ ]] || die "--step-flows '$step_flows': on or off"
for s in $scenarios; do
	[[ $s =~ ^(rings|jobs2|ring1|twojobs|grid|gridx|gridrings|rails|railjobs|railtwojobs|torrings)$ ]] ||
		die "--scenarios: unknown scenario '$s' (rings, jobs2, ring1, twojobs, grid, gridx, gridrings, rails, railjobs, railtwojobs, torrings)"
	[[ ! $s =~ ^(twojobs|grid|gridx|gridrings|rails|railjobs|railtwojobs|torrings)$ ]] || [ "$engine" = sim ] ||
		die "--scenarios: '$s' runs in the simulator only (--engine sim)"
done
rate_kbit() {	# rate_kbit RATE: the rate in kbit/s
	[[ $1 =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] || die "rate '$1': a number with bit, kbit, mbit or gbit"
	case ${BASH_REMATCH[2]} in
	bit) echo $((BASH_REMATCH[1] / 1000)) ;;
	kbit) echo "${BASH_REMATCH[1]}" ;;
	mbit) echo $((BASH_REMATCH[1] * 1000)) ;;
	gbit) echo $((BASH_REMATCH[1] * 1000000)) ;;
	esac
}
[ -n "$uplink_rate" ] || uplink_rate=$(( $(rate_kbit "$rate") * 2 ))kbit
[ -n "$ringcoll_args" ] ||
	ringcoll_args="--cc legacy --mtu 4096 --rto 500 --dcqcn-alpha-us 50000 --dcqcn-timer-us 50000 --cnp-interval 50000 --dcqcn-bytes 64k --dcqcn-rai $(( $(rate_kbit "$rate") / 100 ))kbit --dcqcn-rhai $(( $(rate_kbit "$rate") / 10 ))kbit"
rate_kbit "$uplink_rate" >/dev/null
[ "$engine" = sim ] || [ "$(id -u)" -eq 0 ] || die "must run as root"
base=${out%.json}
runs=$base.runs.jsonl

# ---- inside the VM: the runs -------------------------------------------

ls_sh=$top/tc-scripts/leafspine.sh
symofan=$top/build/symofan

host() {	# host I: the ringrun member of host I (NS:ADDR)
	echo "$prefix-h$1:10.1.$(($1 / hpt)).$((2 + $1 % hpt))"
}

# ring R of hpt/2 rings of 2*tors hosts each: two hosts of every ToR,
# visited ToR by ToR, so that every hop of every ring crosses a spine
ring() {
	local r=$1 t i members=
	for i in 0 1; do
		for ((t = 0; t < tors; t++)); do
			members+=${members:+,}$(host $((t * hpt + 2 * r + i)))
		done
	done
	echo "$members"
}

# one ring of every host, visiting the ToRs in turn (h0, h<hpt>, ...)
ring_all() {
	local t i members=
	for ((i = 0; i < hpt; i++)); do
		for ((t = 0; t < tors; t++)); do
			members+=${members:+,}$(host $((t * hpt + i)))
		done
	done
	echo "$members"
}

# switches: the switch namespaces of the testbed
switches() {
	netns_list "$prefix" '[ts][0-9]+'
}

switch_ports() {	# switch_ports: "NS DEV" of every switch egress port
	local n dev
	for n in $(switches); do
		for dev in $(ip -n "$n" -br link show | awk '$1 ~ /^[ud][0-9]/ { sub(/@.*/, "", $1); print $1 }'); do
			echo "$n $dev"
		done
	done
}

# jobs_map NS: the pinned jobs map of switch NS (--state switch)
jobs_map() {
	echo "/sys/fs/bpf/$1-symphony/jobs"
}

# the pins of switch NS's registry and program (leafspine.sh's)
bpf_pins() {
	echo "/sys/fs/bpf/symofan-$1"
}

# set_marking_bpf red|symphony: Symphony as tc-BPF anew on every switch
# port (no job state, zero counters, an empty phantom queue): a switch's
# ports come off, its registry is made anew, and each port is attached
# again at the rate it had, marking red or symphony
# marking_at NS DEV MARKING: MARKING where --symphony-at puts Symphony on
# switch NS's port DEV (ToRs are PREFIX-tN, their uplinks uN), else red
marking_at() {
	case $symphony_at in
	tor) [[ $1 =~ -t[0-9]+$ ]] || { echo red; return; } ;;
	tor-up) [[ $1 =~ -t[0-9]+$ && $2 == u* ]] || { echo red; return; } ;;
	esac
	echo "$3"
}

set_marking_bpf() {
	local ns dev bps pins rates
	for ns in $(switches); do
		pins=$(bpf_pins "$ns")
		rates=$(netns_run "$ns" "$symofan" symphony status --pin-dir "$pins-bpf" --json |
			jq -r '.[] | "\(.dev) \(.rate_bps)"')
		[ -n "$rates" ] || die "switch $ns: Symphony is attached to none of its ports"
		while read -r dev bps; do
			netns_run "$ns" "$symofan" symphony detach "$dev" --pin-dir "$pins-bpf" >/dev/null
		done <<<"$rates"
		rm -rf "$pins-jobs" "$pins-bpf"
		"$symofan" job init --pin-dir "$pins-jobs" >/dev/null
		while read -r dev bps; do
			# shellcheck disable=SC2086 # the qdisc's words
			netns_run "$ns" "$symofan" symphony attach "$dev" rate "${bps}bit" \
				$red_args $symphony_args marking "$(marking_at "$ns" "$dev" "$1")" \
				--registry "$pins-jobs" --pin-dir "$pins-bpf" >/dev/null
		done <<<"$rates"
	done
}

# port_counters_bpf: port_counters of the tc-BPF datapath, from each
# switch's "symofan symphony status" and its ports' pfifo leaves (the
# real queues' drops)
port_counters_bpf() {
	local ns dev
	{
		for ns in $(switches); do
			netns_run "$ns" "$symofan" symphony status \
				--pin-dir "$(bpf_pins "$ns")-bpf" --json |
				jq -c --arg ns "$ns" '{switch: $ns, ports: .}'
		done
		while read -r ns dev; do
			tc -n "$ns" -s -j qdisc show dev "$dev" |
				jq -c '{leaves: [.[] | select(.kind == "pfifo")]}'
		done <<<"$ports"
	} | jq -s -c '([.[].ports // empty | .[].stats]) as $s
	  | ([.[].leaves // empty | .[]]) as $l
	  | {red_marks: ($s | map(.red_marks) | add), symphony_marks: ($s | map(.symphony_marks) | add),
	     outpacing_packets: ($s | map(.outpacing_packets) | add),
	     drops: (($l | map(.drops) | add) + ($s | map(.red_drops) | add)),
	     collective_packets: ($s | map(.collective_packets) | add),
	     jobs_maps: ([.[].switch // empty] | length),
	     phantom_max_backlog_bytes: ($s | map(.max_backlog_bytes) | max)}'
}

# set_marking red|symphony: a fresh symphony qdisc (no job state, zero
# counters) under every switch port's HTB; with --state switch, the ports
# of a switch share a fresh jobs map
set_marking() {
	local ns dev map prev='' state_args=()
	[ "$engine" != host ] || { set_marking_bpf "$1"; return; }
	while read -r ns dev; do
		tc -n "$ns" qdisc del dev "$dev" parent 1:1 handle 10: 2>/dev/null || true
		if [ "$state" = switch ]; then
			map=$(jobs_map "$ns")
			if [ "$ns" != "$prev" ]; then
				rm -rf "${map%/jobs}"
				"$top/build/symofan" job init --pin-dir "${map%/jobs}" \
					--jobs 256 >/dev/null
				prev=$ns
			fi
			state_args=(jobs_map "$map")
		fi
		# nsenter, not "tc -n": that remounts /sys and hides the pin
		# shellcheck disable=SC2086
		nsenter --net="/run/netns/$ns" tc qdisc add dev "$dev" \
			parent 1:1 handle 10: symphony $red_args $symphony_args \
			marking "$(marking_at "$ns" "$dev" "$1")" "${state_args[@]}"
	done <<<"$ports"
}

# port_counters: the switch ports' marking counters, summed, and how many
# jobs maps they use, as JSON
port_counters() {
	local ns dev
	[ "$engine" != host ] || { port_counters_bpf; return; }
	while read -r ns dev; do
		tc -n "$ns" -s -j qdisc show dev "$dev"
	done <<<"$ports" | jq -s -c '[.[][] | select(.kind == "symphony")] |
	  {red_marks: (map(.red_marks) | add), symphony_marks: (map(.symphony_marks) | add),
	   outpacing_packets: (map(.outpacing_packets) | add), drops: (map(.drops) | add),
	   collective_packets: (map(.collective_packets) | add),
	   jobs_maps: (map(.options.jobs_map_id // empty) | unique | length)}'
}

# background SECONDS: every ToR sends paced UEC packets of its own job to
# a host behind the next ToR for SECONDS
background_pids=()
start_background() {
	local t dst pps
	[ "$background" -gt 0 ] || return 0
	# 4096-byte payloads: pps = PCT% of the rate / frame bits
	pps=$(( $(rate_kbit "$rate") * 1000 * background / 100 / ((4096 + 100) * 8) ))
	[ "$pps" -ge 1 ] || pps=1
	for ((t = 0; t < tors; t++)); do
		dst=10.1.$(((t + 1) % tors)).$((2 + hpt - 1))
		ip netns exec "$prefix-t$t" "$top/build/rocegen" --proto uec \
			--payload 4096 --pps "$pps" "$dst" \
			"job=$((100 + t)),step=1,count=$((pps * $1))" >/dev/null 2>&1 &
		background_pids+=($!)
	done
}
stop_background() {
	[ ${#background_pids[@]} -gt 0 ] || return 0
	kill "${background_pids[@]}" 2>/dev/null || true
	wait "${background_pids[@]}" 2>/dev/null || true
	background_pids=()
}

# run_line SCENARIO MARKING SEED PORTS RESULT: a run's line of the JSON,
# from ringrun's (or the simulator's) merged RESULT and the switch ports'
# counters PORTS
run_line() {
	jq -c --arg scenario "$1" --arg marking "$2" --argjson seed "$3" \
		--argjson ports "$4" '
	  .run.step_qps as $step_qps | .run.step_flows as $step_flows
	  | .guard as $guard
	  # packets of the whole run (every job)
	  | (.counters | {sent: .packets_sent,
	     retransmitted: .retransmitted_packets,
	     duplicate: .duplicate_packets,
	     cnps: .cnps_received, naks: .naks_received}) as $packets
	  # each job over its iterations back to back (with one, that iteration)
	  | .jobs[] | .job as $job | .iterations[0].start_skew_ms as $start_skew_ms
	  | .whole
	  | {scenario: $scenario, marking: $marking, seed: $seed,
	     job: $job, step_qps: $step_qps, step_flows: $step_flows,
	     complete, cct_ms,
	     start_skew_ms: $start_skew_ms, max_step_overlap,
	     final_step_span_ms, switch_ports: $ports,
	     run_packets: $packets,
	     guard: $guard, step_overlap}' "$5"
}

# the jobs of SCENARIO in the simulator's words: --ring JOB=H,H,...
# (and --grid ROWSxCOLS); ring1 visits the ToRs in turn, and that order,
# row-major, is gridx's grid of rows across the ToRs; grid's rows are the
# ToRs' hosts in order
sim_rings() {
	local r t i members
	case $1 in
	ring1|gridx)
		members=
		for ((i = 0; i < hpt; i++)); do
			for ((t = 0; t < tors; t++)); do
				members+=${members:+,}$((t * hpt + i))
			done
		done
		[ "$1" = ring1 ] || echo "--grid ${hpt}x$tors"
		echo "--ring 1=$members"
		return ;;
	grid|gridrings)
		echo "--grid ${tors}x$hpt --ring 1=$(seq -s, 0 $((tors * hpt - 1)))"
		[ "$1" = grid ] || echo "--ring-jobs"
		return ;;
	torrings)
		# a ring of each ToR's hosts: the grid's row rings alone, no
		# packet crossing a spine
		for ((t = 0; t < tors; t++)); do
			echo "--ring 1=$(seq -s, $((t * hpt)) $((t * hpt + hpt - 1)))"
		done
		return ;;
	rails|railjobs|railtwojobs)
		for ((i = 0; i < hpt; i++)); do
			members=
			for ((t = 0; t < tors; t++)); do
				members+=${members:+,}$((t * hpt + i))
			done
			if [ "$1" = rails ]; then
				echo "--ring 1=$members"
			elif [ "$1" = railjobs ]; then
				echo "--ring $((i + 1))=$members"
			else
				echo "--ring $((i < hpt / 2 ? 1 : 2))=$members"
			fi
		done
		[ "$1" != railtwojobs ] || echo "--job-start 2=$((job_offset * 1000))"
		return ;;
	esac
	for ((r = 0; r < hpt / 2; r++)); do
		members=
		for i in 0 1; do
			for ((t = 0; t < tors; t++)); do
				members+=${members:+,}$((t * hpt + 2 * r + i))
			done
		done
		case $1 in
		rings) echo "--ring 1=$members" ;;
		jobs2) echo "--ring $((r + 1))=$members" ;;
		twojobs) echo "--ring $((r < hpt / 4 ? 1 : 2))=$members" ;;
		esac
	done
	[ "$1" != twojobs ] || echo "--job-start 2=$((job_offset * 1000))"
}

# sim_one N SEED SCENARIO MARKING: one simulated run, its JSON line in
# $work/N.line
sim_one() {
	local n=$1 seed=$2 scenario=$3 marking=$4 counters
	# shellcheck disable=SC2046,SC2086
	"$sim" ring --hosts-per-leaf "$hpt" "${fabric[@]}" \
		--rate "$rate" --uplink-rate "$uplink_rate" "${imb[@]}" \
		--links "$links" --delay-us "$delay_us" "${burst_arg[@]}" --background "$background" --lb "$routing" \
		--qdisc "$red_args $symphony_args" --marking "$marking" \
		--state "$state" --symphony-at "$symphony_at" --seed "$seed" $(sim_rings "$scenario") \
		--size "$size" --step-base $((49152 + seed * 97)) \
		$([ "$step_qps" = 1 ] || echo --step-qps "$step_qps") \
		$([ "$step_flows" = off ] || echo --step-flows) \
		${pfc:+--pfc "$pfc"} $ringcoll_args --out "$work/$n.sim.json" ||
		echo "$prog: seed $seed $scenario $marking: the simulation did not complete" >&2
	jq -L "$top/tc-scripts" 'include "ringmerge";
	  .ranks | ring_merge({verdict: "simulated"})' \
		"$work/$n.sim.json" >"$work/$n.result.json"
	counters=$(jq -c --arg state "$state" --argjson switches $((tors + spines * pods + cores)) '
	  . as $d | .ports |
	  {red_marks: (map(.red_marks) | add), symphony_marks: (map(.symphony_marks) | add),
	   outpacing_packets: (map(.outpacing_packets) | add),
	   drops: (map(.limit_drops + .red_drops) | add),
	   collective_packets: (map(.collective_packets) | add),
	   jobs_maps: (if $state == "switch" then $switches else 0 end),
	   simulator: {events: $d.sim.events, wall_s: $d.sim.wall_s}}' "$work/$n.sim.json")
	run_line "$scenario" "$marking" "$seed" "$counters" \
		"$work/$n.result.json" >"$work/$n.line" ||
		echo "$prog: run $n wrote no result" >&2
	rm -f "$work/$n.sim.json" "$work/$n.result.json"
}

# The settings a JSON records (testbed without its link classes, workload,
# qdisc): what --resume compares, and what the JSON writes
settings_json() {
	jq -nc --arg rate "$rate" --arg uplink "$uplink_rate" --arg size "$size" \
		--arg imbalance "$imbalance" --argjson background "$background" --arg routing "$routing" \
		--arg red "$red_args" --arg symphony "$symphony_args" --arg rc "$ringcoll_args" \
		--argjson step_qps "$step_qps" \
		--argjson step_flows "$([ "$step_flows" = on ] && echo true || echo false)" \
		--arg state "$state" --arg symphony_at "$symphony_at" --argjson hpt "$hpt" \
		--arg burst "$burst" --argjson tors "$tors" --argjson spines "$spines" --arg links "$links" \
		--argjson delay_us "$delay_us" --arg pfc "$pfc" --argjson job_offset "$job_offset" \
		--argjson pods "$pods" --argjson cores "$cores" '
	  {testbed: {tors: $tors, spines: $spines, hosts_per_tor: $hpt, rate: $rate, uplink_rate: $uplink,
		     links: $links, delay_us: $delay_us, pfc: (if $pfc == "" then null else $pfc end),
		     job_offset_ms: $job_offset, pods: $pods, cores: $cores,
		     imbalance: $imbalance, background_pct: $background, routing: $routing,
		     burst: $burst, mtu_bytes: 9000, roce_payload_bytes: 4096},
	   workload: {collective: "allreduce", size_per_rank: $size, step_qps: $step_qps,
		      step_flows: $step_flows, ringcoll: $rc},
	   qdisc: {red: $red, symphony: $symphony, state: $state, symphony_at: $symphony_at}}'
}

# The same runs in the ns-3 simulator: the leaf-spine, its imbalance and
# background, the qdisc's options, the seeds' step bases; ringcoll's
# options pass through (the simulator takes them).  The guard has no
# machine to judge: "simulated".  --jobs runs at once; the JSON keeps
# the runs' order.
run_sim() {
	local seed scenario marking n=0 i total imb=() burst_arg=() fabric=() reused=0
	local sim=$top/build/symofan-sim
	[ -x "$sim" ] || die "no $sim: run 'make sim'"
	work=$(mktemp -d /tmp/symphony_ring_sim.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	[ "$imbalance" = 1 ] || imb=(--imbalance "0:0:$imbalance")
	[ "$burst" = auto ] || [ "$links" = p2p ] || burst_arg=(--burst "$burst")
	if [ "$pods" = 1 ]; then
		fabric=(--leaves "$tors" --spines "$spines")
	else
		fabric=(--topology multipod --pods "$pods" --leaves $((tors / pods)) --spines "$spines"
			--cores "$cores")
	fi
	total=$((seeds * $(wc -w <<<"$scenarios") * $(wc -w <<<"$markings")))
	# shellcheck disable=SC2016 # a jq expression
	resume_load "$prog" "$resume" "$work" "the same testbed, workload and qdisc settings" '
	  {testbed: (.testbed | del(.link_classes)), workload, qdisc} == $settings' \
		--argjson settings "$(settings_json)"
	progress_start "$prog"
	for ((seed = 1; seed <= seeds; seed++)); do
		for scenario in $scenarios; do
			for marking in $markings; do
				n=$((n + 1))
				# every job's line of a complete earlier run
				resume_find_all "$work" "$(jq -nc --argjson seed "$seed" --arg s "$scenario" \
					--arg m "$marking" '{seed: $seed, scenario: $s, marking: $m}')" >"$work/$n.line"
				if [ -s "$work/$n.line" ] && ! jq -e 'select(.complete != true)' \
					"$work/$n.line" >/dev/null; then
					reused=$((reused + 1))
					continue
				fi
				while [ "$(jobs -rp | wc -l)" -ge "$sim_jobs" ]; do
					wait -n || true
				done
				progress "$n" "$total" "seed $seed, $scenario, $marking (ns-3)"
				sim_one "$n" "$seed" "$scenario" "$marking" &
			done
		done
	done
	wait
	progress_done
	[ "$reused" = 0 ] || echo "$prog: $reused of the $total runs from $resume" >&2
	: >"$runs"
	for ((i = 1; i <= n; i++)); do
		[ ! -f "$work/$i.line" ] || cat "$work/$i.line" >>"$runs"
	done
	rm -rf "$work"
	trap - EXIT
}

run_inside() {
	local seed scenario marking r jobs n=0 total work counters delay_ms
	export TC_LIB_DIR=$top/build/tc
	work=$(mktemp -d /tmp/symphony_ring.XXXXXX)
	inside_cleanup() {
		stop_background
		"$ls_sh" down --prefix "$prefix" >/dev/null 2>&1 || true
		# every switch's jobs folder (symofan job init)
		rm -rf "/sys/fs/bpf/$prefix-"*-symphony
		rm -rf "$work"
	}
	trap inside_cleanup EXIT
	local imb=() step_flows_arg= datapath=()
	[ "$imbalance" = 1 ] || imb=(--imbalance "0:0:$imbalance")
	[ "$step_flows" = off ] || step_flows_arg=--step-flows
	[ "$engine" != host ] || datapath=(--datapath bpf)
	# shellcheck disable=SC2086
	"$ls_sh" up --prefix "$prefix" --tors "$tors" --spines "$spines" \
		--hosts-per-tor "$hpt" --rate "$rate" --uplink-rate "$uplink_rate" \
		--burst "$burst" --mtu 9000 --qdisc symphony --qdisc-args "$red_args marking red" \
		"${datapath[@]}" "${imb[@]}" --routing "$routing" --force >&2
	ports=$(switch_ports)	# "NS DEV" lines, for set_marking and port_counters
	# Under TCG launching a rank takes about 0.1 s: give every rank time
	# to be up before the common start, or the late ones skew the steps
	# from the start (each run records its start skew).
	delay_ms=$((1000 + 200 * tors * hpt))
	: >"$runs"
	total=$((seeds * $(wc -w <<<"$scenarios") * 2))
	progress_start "$prog"
	for ((seed = 1; seed <= seeds; seed++)); do
		for scenario in $scenarios; do
			jobs=()
			for ((r = 0; r < hpt / 2; r++)); do
				case $scenario in
				rings) jobs+=(--job "1=$(ring "$r")") ;;
				jobs2) jobs+=(--job "$((r + 1))=$(ring "$r")") ;;
				esac
			done
			[ "$scenario" != ring1 ] || jobs=(--job "1=$(ring_all)")
			for marking in red symphony; do
				n=$((n + 1))
				progress "$n" "$total" "seed $seed, $scenario, $marking"
				set_marking "$marking"
				start_background 120
				# the seed moves every step's UDP source port, so
				# ECMP hashes each step of each flow anew (static
				# routing ignores it)
				# shellcheck disable=SC2086
				"$top/tc-scripts/ringrun.sh" --out "$work/run" --delay "$delay_ms" \
					"${jobs[@]}" -- --size "$size" --rate "$rate" \
					--timeout 60 --step-base $((49152 + seed * 97)) \
					$([ "$step_qps" = 1 ] || echo --step-qps "$step_qps") \
					$step_flows_arg $ringcoll_args >&2 || true
				stop_background
				counters=$(port_counters)
				run_line "$scenario" "$marking" "$seed" "$counters" \
					"$work/run/result.json" >>"$runs" ||
					echo "$prog: run $n wrote no result" >&2
			done
		done
	done
	progress_done
	inside_cleanup
	trap - EXIT
}

if [ "$inside" -eq 1 ]; then
	run_inside
	exit 0
fi

# ---- the runs: in the VM (booted here unless already in it), then ------
# ---- the summary and the plots -----------------------------------------

if [ "$replot" -eq 1 ]; then
	[ -s "$out" ] || die "--replot: no $out"
	jq -c '.runs[]' "$out" >"$runs"
	link_classes=$(jq -c '.testbed.link_classes // null' "$out")
	markings=$(jq -r '[.runs[].marking] | unique | [("red", "symphony", "pq") as $m | select(index($m)) | $m] | join(" ")' "$out")
	# the settings the runs had
	eval "$(jq -r '@sh "rate=\(.testbed.rate) uplink_rate=\(.testbed.uplink_rate)
	  hpt=\(.testbed.hosts_per_tor) burst=\(.testbed.burst // "auto") state=\(.qdisc.state // "port") symphony_at=\(.qdisc.symphony_at // "all") imbalance=\(.testbed.imbalance) routing=\(.testbed.routing // "ecmp")
	  background=\(.testbed.background_pct) size=\(.workload.size_per_rank) step_qps=\(.workload.step_qps // 1)
	  step_flows=\(if .workload.step_flows then "on" else "off" end)
	  ringcoll_args=\(.workload.ringcoll) red_args=\(.qdisc.red) engine=\(.engine // "vm")
	  tors=\(.testbed.tors) spines=\(.testbed.spines) links=\(.testbed.links // "htb")
	  delay_us=\(.testbed.delay_us // 1) pfc=\(.testbed.pfc // "") job_offset=\(.testbed.job_offset_ms // 0)
	  pods=\(.testbed.pods // 1) cores=\(.testbed.cores // 0)
	  symphony_args=\(.qdisc.symphony)
	  scenarios=\([.runs[].scenario] | unique | join(" "))"' "$out")"
elif [ "$engine" = sim ]; then
	mkdir -p "$(dirname "$out")"
	run_sim
elif [ "$engine" = host ]; then
	[ -x "$top/build/ringcoll" ] && [ -x "$symofan" ] || die "run 'make' first"
	mkdir -p "$(dirname "$out")"
	run_inside
else
	[ -x "$top/build/ringcoll" ] && [ -f "$top/kernel/sch_symphony.ko" ] ||
		die "run 'make' first"
	mkdir -p "$(dirname "$out")"
	if [ -n "${SYMOFAN_IN_VM:-}" ]; then
		run_inside
	else
		# about 25 s a run under TCG, and the testbed
		"$top/scripts/vm-run.sh" --timeout $((300 + seeds * 2 * 2 * 50)) \
			--rw "$(dirname "$out")" -- "$0" --inside-vm "${orig_args[@]}"
	fi
fi
trap 'rm -f "$runs" "$base".*.dat' EXIT
[ -s "$runs" ] || die "no runs"
# the HTB class of every link, as tc -d class showed it in the first run
# that recorded it (its guard's; earlier JSON: none)
[ "$replot" -eq 1 ] ||
	link_classes=$(jq -sc 'map(.guard.link_classes // empty) | first' "$runs")

jq -s --argjson settings "$(settings_json)" --argjson link_classes "$link_classes" \
	--arg date "$(date -u +%FT%TZ)" --arg engine "$engine" '
  # the median: the mean of the two middle values of an even count
  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def q(p): sort | .[((length - 1) * p | round)];
  def stats(f): [.[] | f] as $v
    | {median: ($v | med), p25: ($v | q(0.25)), p75: ($v | q(0.75)),
       min: ($v | min), max: ($v | max)};
  {
    benchmark: "symphony_ring",
    date: $date,
    engine: $engine,
    method: ((if $engine == "sim" then "the same leaf-spine, workload and qdisc options in the ns-3 simulator (sim/: point-to-point links, sch_symphony as a queue disc, ringcoll as RoCE hosts, the C cores unchanged); " else "" end)
	     + (if $engine == "host" then "leaf-spine of netns on the host kernel (4 ToRs, 2 spines, HTB links), Symphony as tc-BPF on every switch port with RED on a phantom queue draining at the port'"'"'s HTB rate and a pfifo of the qdisc'"'"'s limit under the HTB, "
		else "leaf-spine of netns in the QEMU VM (4 ToRs, 2 spines, HTB links), " end) + "ECMP over the spines on the 5-tuple with the step in the UDP source port (or static balanced routes); ring AllReduces of ringcoll DCQCN senders; the same seeds and testbed with the switch ports marking RED only (baseline) and Symphony OR RED"),
    testbed: ($settings.testbed + {link_classes: $link_classes}),
    workload: $settings.workload,
    qdisc: $settings.qdisc,
    guard: {
      runs: length,
      untrustworthy_runs: (map(select((.guard.verdict // "none") | . != "trustworthy" and . != "simulated")) | length),
      worst_sender_lag_frames_max: (map(.guard.worst_sender_lag_frames // null) | max),
      cpu_busy_max_window_pct_max: (map(.guard.cpu_busy_max_window_pct // null) | max),
      timer_irqs_per_s_max: (map(.guard.timer_irqs_per_s // null) | max),
      verdict: (if any(.[]; .guard == null) then "unguarded"
		elif all(.[]; .guard.verdict == "simulated") then "simulated"
		elif all(.[]; .guard.verdict == "trustworthy") then "trustworthy"
		else "untrustworthy" end)
    },
    summary: (group_by([.scenario, .marking]) | map({
      scenario: .[0].scenario, marking: .[0].marking, runs: length,
      complete: ([.[].complete] | all),
      cct_ms: stats(.cct_ms),
      max_step_overlap: stats(.max_step_overlap),
      final_step_span_ms: stats(.final_step_span_ms),
      max_start_skew_ms: ([.[].start_skew_ms // 0] | max),
      symphony_marks: ([.[].switch_ports.symphony_marks] | med),
      red_marks: ([.[].switch_ports.red_marks] | med),
      # go-back-N resends per packet sent, whole runs (earlier JSON: none)
      retransmitted_share: ([.[].run_packets // empty
			     | select(.sent > 0) | .retransmitted / .sent]
			    | if length > 0 then med else null end),
      untrustworthy_runs: (map(select((.guard.verdict // "none") | . != "trustworthy" and . != "simulated")) | length)
    })),
    runs: map(.guard |= (if . then del(.link_classes) else . end))
  }
  | .runs as $runs
  # marking $m against RED, per scenario: the same seed and job under both
  | def compare($m): [.summary | group_by(.scenario)[]
      | (map(select(.marking == "red"))[0]) as $b
      | (map(select(.marking == $m))[0]) as $s
      | select($b and $s)
      | [$runs[] | select(.scenario == $b.scenario and (.marking == "red" or .marking == $m))]
      | group_by([.seed, .job])
      | map(select(length == 2) | (map(select(.marking == $m))[0].cct_ms /
			       map(select(.marking == "red"))[0].cct_ms)) as $paired
      | {scenario: $b.scenario,
	 median_cct_reduction: (1 - $s.cct_ms.median / $b.cct_ms.median),
	 paired_cct_ratio: ($paired | {median: med, min: min, max: max}),
	 paired_symphony_faster: ([$paired[] | select(. < 1)] | length),
	 pairs: ($paired | length),
	 final_step_span_reduction: (1 - $s.final_step_span_ms.median / $b.final_step_span_ms.median),
	 max_step_overlap_baseline: $b.max_step_overlap.max,
	 max_step_overlap_symphony: $s.max_step_overlap.max}];
    .comparison = compare("symphony")
  # the priority-queue baseline (--markings ... pq), in the same terms
  | if any(.summary[]; .marking == "pq") then .pq_comparison = compare("pq") else . end' \
	"$runs" >"$out.tmp" && mv "$out.tmp" "$out"

if command -v gnuplot >/dev/null; then
	for s in $scenarios; do
		for m in $markings; do
			# CDF points: CCT, fraction of runs at or below it
			jq -r --arg s "$s" --arg m "$m" '[.runs[] | select(.scenario == $s and .marking == $m) | .cct_ms] | sort
			  | length as $n | to_entries[] | "\(.value / 1000) \((.key + 1) / $n)"' "$out" >"$base.$s-$m.cdf.dat"
			# the step overlap over time of the run with the median CCT
			jq -r --arg s "$s" --arg m "$m" '[.runs[] | select(.scenario == $s and .marking == $m)]
			  | sort_by(.cct_ms) | .[(length / 2 | floor)].step_overlap[]
			  | "\(.[0] / 1000) \(.[1])"' "$out" >"$base.$s-$m.overlap.dat"
		done
	done
	label() {
		case $1 in
		red) echo "RED+DCQCN (baseline)" ;;
		pq) echo "RED+DCQCN, lagging step first (priority queue)" ;;
		*) echo "Symphony+DCQCN" ;;
		esac
	}
	{
		echo "set terminal pngcairo size 800,500 noenhanced"
		echo "set output '$base-cct-cdf.png'"
		echo "set xlabel 'collective completion time (s)'"
		echo "set ylabel 'fraction of runs'"
		echo "set key bottom right"
		echo "set yrange [0:1]"
		echo "set title 'CDF of CCT: ring AllReduce on a leaf-spine, $routing routing, imbalance $imbalance, background $background%'"
		printf "plot "
		sep=
		for s in $scenarios; do
			for m in $markings; do
				printf "%s'%s' using 1:2 with steps lw 2 title '%s, %s'" "$sep" \
					"$base.$s-$m.cdf.dat" "$s" "$(label "$m")"
				sep=", "
			done
		done
		echo
		nr=$(wc -w <<<"$scenarios")
		echo "set terminal pngcairo size 800,$((300 * nr)) noenhanced"
		echo "set output '$base-overlap.png'"
		echo "set multiplot layout $nr,1"
		echo "set xlabel 'time since the collective started (s)'"
		echo "set ylabel 'steps in flight'"
		echo "set yrange [0:*]"
		echo "set key bottom center horizontal"
		for s in $scenarios; do
			echo "set title 'Step overlap over time, $s (the run of median CCT)'"
			printf "plot "
			sep=
			for m in $markings; do
				printf "%s'%s' using 1:2 with steps lw 2 title '%s'" "$sep" \
					"$base.$s-$m.overlap.dat" "$(label "$m")"
				sep=", "
			done
			echo
		done
		echo "unset multiplot"
	} | gnuplot
fi
# "cuts X by 12.5%" or "raises X by 79.2%": a reduction's sign in words
jq -r 'def change(r; what): if r >= 0 then "cuts \(what) by \(r * 1000 | round / 10)%"
			  else "raises \(what) by \(-r * 1000 | round / 10)%" end;
       "scenario marking   runs  CCT ms median (p25..p75, min..max)        max step overlap median (max)  final step span ms  retransmitted",
       (.summary[] | "\(.scenario)\t\(.marking)\t\(.runs)\t\(.cct_ms.median | round) (\(.cct_ms.p25 | round)..\(.cct_ms.p75 | round), \(.cct_ms.min | round)..\(.cct_ms.max | round))\t\(.max_step_overlap.median) (\(.max_step_overlap.max))\t\(.final_step_span_ms.median | round)\t\(if .retransmitted_share then "\(.retransmitted_share * 1000 | round / 10)%" else "-" end)"),
       (.comparison[] | "\(.scenario): Symphony \(change(.median_cct_reduction; "the median CCT")) (paired by seed: median ratio \(.paired_cct_ratio.median * 1000 | round / 1000), faster in \(.paired_symphony_faster) of \(.pairs)); it \(change(.final_step_span_reduction; "the final step span")); max step overlap \(.max_step_overlap_baseline) (baseline) vs \(.max_step_overlap_symphony)"),
       (.pq_comparison // [] | .[] | "\(.scenario): the priority queue \(change(.median_cct_reduction; "the median CCT")) (paired by seed: median ratio \(.paired_cct_ratio.median * 1000 | round / 1000), faster in \(.paired_symphony_faster) of \(.pairs)); max step overlap \(.max_step_overlap_baseline) (baseline) vs \(.max_step_overlap_symphony)"),
       (.guard | if .verdict == "simulated" then "guard: simulated runs: the testbed guard (sender lag, CPU load) does not apply"
		 else "guard: \(.verdict): \(.untrustworthy_runs) of \(.runs) runs untrustworthy; worst sender lag \(.worst_sender_lag_frames_max) frames, CPU busiest window \(.cpu_busy_max_window_pct_max)%, up to \(.timer_irqs_per_s_max) timer interrupts/s" end)' "$out"
echo "$prog: $out, $base-cct-cdf.png, $base-overlap.png"
