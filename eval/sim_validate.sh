#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# sim_validate.sh - the ns-3 simulator (sim/) against the QEMU testbed on
# the testbed's own scenario: the Symphony evaluation's 8 controls on the
# rings leaf-spine (4 ToRs, 2 spines, 4 hosts each, 2.5 Mbit/s hosts,
# 5 Mbit/s uplinks, HTB-shaped links, ECMP or static routes, the 1.13x hop
# and the background), 10 seeds each with RED only and with Symphony, run
# by eval/symphony_controls.sh --engine sim; then, per control, the
# simulator's CCTs and step overlaps next to the testbed's published ones
# (results/1-symphony-testbed/symphony_controls.json) and the guarded rings rerun's
# (results/1-symphony-testbed/symphony_rings_guarded_20261202.json: CCTs and resends), and
# whether the simulator's median lands within the testbed's spread.
#
# Usage: eval/sim_validate.sh [--seeds N] [--out FILE]
#   --seeds N   seeds per control (default 10)
#   --out FILE  the comparison (default build/results/sim_validation.json);
#               the simulator's runs in FILE without .json, /
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prog=sim_validate.sh
seeds=10
out=$top/build/results/sim_validation.json
testbed_controls=$top/results/1-symphony-testbed/symphony_controls.json
testbed_rings=$top/results/1-symphony-testbed/symphony_rings_guarded_20261202.json

die() { echo "$prog: $*" >&2; exit 1; }
usage() { sed -n '15,18s/^# \{0,1\}//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage ;;
	esac
	[ $# -ge 2 ] || usage
	case "$1" in
	--seeds) seeds=$2 ;;
	--out) out=$2 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage ;;
	esac
	shift 2
done
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds '$seeds': wants a count"
[ -x "$top/build/symofan-sim" ] || die "no build/symofan-sim: run 'make sim'"
for f in "$testbed_controls" "$testbed_rings"; do
	[ -s "$f" ] || die "no testbed results in $f"
done
dir=${out%.json}
mkdir -p "$dir"

"$top/eval/symphony_controls.sh" --engine sim --seeds "$seeds" \
	--dir "$dir/controls" --out "$dir/controls.json" >&2

jq -n --slurpfile tb "$testbed_controls" --slurpfile sim "$dir/controls.json" \
	--slurpfile rings "$testbed_rings" --slurpfile simrings "$dir/controls/ecmp.json" \
	--arg date "$(date -u +%FT%TZ)" '
  def spread: {median, p25, p75, min, max};
  def within($s): . >= $s.min and . <= $s.max;
  def share: [.runs[] | .run_packets // empty | select(.sent > 0)
	      | .retransmitted / .sent] | sort | if length > 0 then .[length / 2 | floor] else null end;
  {
    benchmark: "sim_validation",
    date: $date,
    method: "eval/symphony_controls.sh --engine sim: the testbed scenario in ns-3 with HTB-shaped links, same seeds count, qdisc options and ringcoll options; compared with the testbed controls of 2026-12-01 and the guarded rings rerun of 2026-12-02",
    controls: [$tb[0].controls[] as $t
      | ($sim[0].controls[] | select(.control == $t.control)) as $s
      | {control: $t.control,
	 testbed_baseline_cct_ms: ($t.baseline_cct_ms | spread),
	 sim_baseline_cct_ms: ($s.baseline_cct_ms | spread),
	 sim_over_testbed: ($s.baseline_cct_ms.median / $t.baseline_cct_ms.median),
	 sim_within_testbed_iqr: ($s.baseline_cct_ms.median | . >= $t.baseline_cct_ms.p25 and . <= $t.baseline_cct_ms.p75),
	 sim_within_testbed_range: ($s.baseline_cct_ms.median | within($t.baseline_cct_ms)),
	 testbed_symphony_cct_ms: ($t.symphony_cct_ms | spread),
	 sim_symphony_cct_ms: ($s.symphony_cct_ms | spread),
	 testbed_paired_ratio: $t.paired_cct_ratio.median,
	 sim_paired_ratio: $s.paired_cct_ratio.median,
	 testbed_symphony_faster: $t.paired_symphony_faster,
	 sim_symphony_faster: $s.paired_symphony_faster,
	 max_step_overlap: {testbed: [$t.max_step_overlap_baseline.max, $t.max_step_overlap_symphony.max],
			    sim: [$s.max_step_overlap_baseline.max, $s.max_step_overlap_symphony.max]}}],
    rings_guarded: {
      testbed: [$rings[0].summary[] | {marking, cct_ms: (.cct_ms | spread), max_step_overlap: .max_step_overlap.max, retransmitted_share}],
      sim: [$simrings[0].summary[] | {marking, cct_ms: (.cct_ms | spread), max_step_overlap: .max_step_overlap.max, retransmitted_share}],
      testbed_paired_ratio: ($rings[0].comparison[0].paired_cct_ratio.median),
      sim_paired_ratio: ($simrings[0].comparison[0].paired_cct_ratio.median)
    }
  }' >"$out.tmp" && mv "$out.tmp" "$out"

jq -r '"control               testbed RED CCT s (p25..p75)   sim RED CCT s (p25..p75)   sim/testbed  in IQR  in range  paired ratio testbed / sim   max overlap testbed / sim",
  (.controls[] | "\(.control)\t\(.testbed_baseline_cct_ms.median / 1000 * 100 | round / 100) (\(.testbed_baseline_cct_ms.p25 / 1000 * 100 | round / 100)..\(.testbed_baseline_cct_ms.p75 / 1000 * 100 | round / 100))\t\(.sim_baseline_cct_ms.median / 1000 * 100 | round / 100) (\(.sim_baseline_cct_ms.p25 / 1000 * 100 | round / 100)..\(.sim_baseline_cct_ms.p75 / 1000 * 100 | round / 100))\t\(.sim_over_testbed * 1000 | round / 1000)\t\(.sim_within_testbed_iqr)\t\(.sim_within_testbed_range)\t\(.testbed_paired_ratio * 1000 | round / 1000) / \(.sim_paired_ratio * 1000 | round / 1000)\t\(.max_step_overlap.testbed | join("/")) / \(.max_step_overlap.sim | join("/"))"),
  (.rings_guarded | "rings (guarded rerun): RED \(.testbed[0].cct_ms.median / 1000 * 100 | round / 100) s vs \(.sim[0].cct_ms.median / 1000 * 100 | round / 100) s; resends \(.testbed[0].retransmitted_share // "-") vs \(.sim[0].retransmitted_share)")' "$out"
echo "$prog: $out"
