#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tcg_insns.sh - guest instructions per packet of each qdisc, counted by
# a QEMU TCG plugin (bench/tcg_insns.c): a noise-free complement to
# qdisc_pps.sh's packets per second.  For each qdisc the VM boots with
# the plugin, bench/roceblast sends its RoCEv2 stream through a dummy
# device for --duration seconds, and the plugin counts the instructions
# each guest function executed.  The report gives, per qdisc, the
# instructions per packet of the qdisc's own functions, of the clock
# functions, and of the whole guest (boot included, so only differences
# between qdiscs mean much), and the instructions per packet beyond pfifo.
#
# Usage: bench/tcg_insns.sh [options]        (as root, after "make")
#   --qdiscs LIST     comma-separated subset of pfifo,symphony,symphony_red
#                     (default all three; pfifo always runs)
#   --duration SEC    traffic per qdisc (default 3)
#   --out FILE        JSON results (default build/results/tcg_insns.json)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
# shellcheck source=bench/qdisc_specs.sh
. "$here/qdisc_specs.sh"
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"

usage() { sed -n '13,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

out=$top/build/results/tcg_insns.json
duration=3
want=pfifo,symphony,symphony_red
inside=
while [ $# -gt 0 ]; do
	case "$1" in
	--qdiscs) want=pfifo,${2:?}; shift 2 ;;
	--duration) duration=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--inside-vm) inside=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "tcg_insns.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$duration" in ''|*[!0-9]*|0) die "--duration wants whole seconds, got '$duration'" ;; esac

dev=bench0
# the qdiscs whose own functions the report can name (tc lines:
# qdisc_specs.sh)
insns_qdiscs=(pfifo symphony symphony_red)

# --- inside the VM: one qdisc, then the symbols for the plugin ----------
if [ -n "$inside" ]; then
	[ "${SYMOFAN_IN_VM:-}" = 1 ] || die "--inside-vm is for the VM runner"
	work=${inside%%:*}
	q=${inside#*:}
	export TC_LIB_DIR=$top/build/tc
	read -ra spec <<< "${qdisc_spec[$q]}"
	ip link add "$dev" type dummy
	ip link set "$dev" txqueuelen 1000 up
	tc qdisc add dev "$dev" root handle 1: "${spec[@]}"
	"$top/build/roceblast" "${roceblast_opts[@]}" --duration "$duration" \
		"$dev" > "$work/$q.roceblast"
	tc -s -j qdisc show dev "$dev" > "$work/$q.tc.json"
	echo 0 > /proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms > "$work/$q.kallsyms"
	exit 0
fi

# --- on the host ---------------------------------------------------------
[ "$(id -u)" -eq 0 ] || die "must run as root"
for f in kernel/sch_symphony.ko build/tc/q_symphony.so build/roceblast build/tcg_insns.so; do
	[ -f "$top/$f" ] || die "$top/$f is not built: run 'make' first"
done
command -v jq >/dev/null || die "jq not found: run scripts/install-deps.sh"

qdiscs=()
IFS=, read -ra picked <<< "$want"
for p in "${picked[@]}"; do
	[[ " ${insns_qdiscs[*]} " == *" $p "* ]] ||
		die "unknown qdisc '$p' (one of: ${insns_qdiscs[*]})"
done
for q in "${insns_qdiscs[@]}"; do
	for p in "${picked[@]}"; do
		[ "$p" = "$q" ] && { qdiscs+=("$q"); break; }
	done
done

work=$(mktemp -d /tmp/tcg_insns.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=$(realpath -m "$out")
mkdir -p "$(dirname "$out")"

progress_start tcg_insns.sh
run=0
for q in "${qdiscs[@]}"; do
	run=$((run + 1))
	progress "$run" "${#qdiscs[@]}" "$q: a VM boot and ${duration}s of roceblast"
	log "$q: ${duration}s of roceblast with the instruction-counting plugin"
	"$top/scripts/vm-run.sh" --timeout $((120 + duration)) --rw "$work" \
		--plugin "$top/build/tcg_insns.so,out=$work/$q.counts,syms=$work/$q.kallsyms" \
		-- "$here/tcg_insns.sh" --duration "$duration" --inside-vm "$work:$q" \
		> "$work/$q.vm.log" 2>&1 || die "the VM run of $q failed: $(tail -5 "$work/$q.vm.log")"
	[ -s "$work/$q.counts" ] || die "the plugin wrote no counts for $q"
done
progress_done

# One JSON record per qdisc: packets, instructions per packet by group.
for q in "${qdiscs[@]}"; do
	packets=$(sed -n 's/.*sent \([0-9]*\) packets.*/\1/p' "$work/$q.roceblast")
	if [ -z "$packets" ] || [ "$packets" -eq 0 ]; then
		die "no packets sent under $q"
	fi
	awk -F'\t' -v q="$q" -v pk="$packets" '
		{ total += $2 }
		$1 ~ /^(symphony_|pfifo|qdisc_dequeue_head|bfifo|fifo_)/ { own += $2; funcs[$1] = $2 }
		$1 ~ /^(sched_clock|native_sched_clock|local_clock|ktime_get|read_tsc)/ { clk += $2 }
		$1 ~ /^(__qdisc_run|dev_qdisc_enqueue|__dev_queue_xmit|sch_direct_xmit)$/ { core += $2 }
		END {
			printf "{\"qdisc\":\"%s\",\"packets\":%d,\"insns_per_packet\":{\"qdisc\":%.1f,\"clock\":%.1f,\"qdisc_core\":%.1f,\"guest_total\":%.1f},\"qdisc_functions\":{", q, pk, own / pk, clk / pk, core / pk, total / pk
			sep = ""
			for (f in funcs) { printf "%s\"%s\":%.1f", sep, f, funcs[f] / pk; sep = "," }
			print "}}"
		}' "$work/$q.counts" > "$work/$q.json"
done

records=()
for q in "${qdiscs[@]}"; do records+=("$work/$q.json"); done
jq -s --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson duration "$duration" '
	(map(select(.qdisc == "pfifo"))[0]) as $p
	| def own: .insns_per_packet.qdisc + .insns_per_packet.clock + .insns_per_packet.qdisc_core;
	{
		benchmark: "tcg_insns",
		date: $date,
		method: "QEMU TCG plugin (bench/tcg_insns.c) counting executed guest instructions per guest function while bench/roceblast sends its RoCEv2 stream (4 jobs, 1000-byte frames) through a dummy device; per packet = count / packets sent. qdisc: the qdisc own functions; clock: sched_clock, ktime_get and the like; qdisc_core: __qdisc_run, dev_qdisc_enqueue, __dev_queue_xmit, sch_direct_xmit; guest_total includes the boot, so compare it only between qdiscs; beyond_pfifo = (qdisc + clock + qdisc_core) - the same of pfifo",
		duration_s: $duration,
		qdiscs: (map({key: .qdisc, value: (. + {beyond_pfifo_per_packet: ((own - ($p | own)) * 10 | round / 10)})}) | from_entries)
	}' "${records[@]}" > "$out"

printf '%-14s %10s %8s %8s %10s %12s\n' qdisc packets qdisc clock qdisc_core "beyond pfifo"
jq -r '.qdiscs[] | [.qdisc, .packets, .insns_per_packet.qdisc, .insns_per_packet.clock, .insns_per_packet.qdisc_core, .beyond_pfifo_per_packet] | @tsv' "$out" |
	while IFS=$'\t' read -r q p a b c d; do
		printf '%-14s %10s %8s %8s %10s %12s\n' "$q" "$p" "$a" "$b" "$c" "$d"
	done
echo "(guest instructions per packet; results: $out)"
