#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cost.sh - the datapath's per-packet cost next to its peers, from the two
# benchmarks (make bench): sch_symphony's packets per second against
# pfifo, red and fq_codel in the VM (bench/qdisc_pps.sh), and the Ofan
# tc-BPF program's ns per packet against an empty program and a minimal
# hash-ECMP program (build/ofan_bpf_bench).  Collects their ratios, each
# against a peer measured in the same run, into one JSON and prints them.
#
# Usage: eval/cost.sh [--run] [--out FILE]
#   --run        run both benchmarks first (about 10 minutes; as root)
#   --out FILE   default build/results/cost.json
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/results/cost.json
run=0
die() { echo "cost.sh: $*" >&2; exit 1; }
usage() { sed -n '10,12s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--run) run=1; shift ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	*) usage ;;
	esac
done
qdisc=$top/build/results/qdisc_pps.json
bpf=$top/build/results/ofan_bpf.json
if [ "$run" -eq 1 ]; then
	[ "$(id -u)" -eq 0 ] || die "--run must run as root"
	"$top/build/ofan_bpf_bench" --out "$bpf"
	"$top/bench/qdisc_pps.sh"
fi
mkdir -p "$(dirname "$out")"
for f in "$qdisc" "$bpf"; do
	[ -s "$f" ] || die "no $f: run 'make bench' (or $0 --run)"
done

jq -n --slurpfile q "$qdisc" --slurpfile b "$bpf" '
  ($q[0]) as $q | ($b[0]) as $b |
  {
    benchmark: "cost",
    sources: {qdisc_pps: {date: $q.date, kernel: $q.kernel},
	      ofan_bpf: {date: $b.date, kernel: $b.kernel, cpu: ($b.cpu // "not recorded")}},
    qdisc: {
      method: "packets per second through one qdisc on a dummy device in the QEMU TCG VM, median of the runs; ratio against pfifo of the same generator",
      target: "symphony >= 0.9x pfifo",
      streams: ($q.generators | with_entries(.value = {
	generator: .value.generator,
	median_pps: (.value.qdiscs | with_entries(.value = .value.median_pps)),
	ratio_vs_pfifo: (.value.qdiscs | with_entries(.value = .value.ratio_vs_pfifo))
      }))
    },
    ofan_bpf: {
      method: "BPF_PROG_TEST_RUN, ns per packet (median of the runs), on the host kernel; ratio against the hash-ECMP peer of the same run",
      target: "ofan <= 1.25x the peer",
      repeat: $b.repeat,
      median_ns_per_packet: ($b.results | with_entries(.value = .value.median_ns_per_packet)),
      ratio_to_peer: ($b.results | with_entries(.value = .value.ratio_to_peer))
    }
  }' >"$out"

jq -r '"sch_symphony, packets/s against pfifo (VM, TCG):",
  (.qdisc.streams | to_entries[] | "  \(.key):\t" +
    ([.value.ratio_vs_pfifo | to_entries[] | select(.key != "pfifo") | "\(.key) \(.value)x"] | join(", "))),
  "Ofan tc-BPF, ns/packet against the hash-ECMP peer (host kernel):",
  "  " + ([.ofan_bpf.ratio_to_peer | to_entries[] | select(.key != "hash_ecmp_peer") | "\(.key) \(.value)x"] | join(", "))' "$out"
echo "cost.sh: $out"
