#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_eval_stats.sh - eval/stats.py, the module every Symphony verdict
# number comes from: the median of an even count is the mean of its two
# middle values (the jq scripts took the upper one), the sign test is the
# exact binomial one, the bootstrap interval is reproducible and holds the
# median, a verdict needs an interval that excludes the other side of 1,
# a baseline's bound follows from its fabric; on the tracked Fig. 5 runs
# the paired median is 1.002, not the 1.006 the old convention gave; the
# verdict table in EVALUATION.md is what the module computes from the
# tracked JSON, to the digit; bad input exits 2, naming it.
. "$(dirname "$0")/../lib.sh"

require_cmd jq
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null ||
	ktap_skip_all "python3-numpy and python3-scipy not installed (scripts/install-deps.sh)"

stats=$TOP_DIR/eval/stats.py
tmp=$(mktemp -d /tmp/test_eval_stats.XXXXXX)
on_exit rm -rf "$tmp"
py() { /usr/bin/python3 -c "import sys; sys.path.insert(0, '$TOP_DIR/eval'); import stats; $1"; }

ktap_plan 13

check_eq "the median of 1, 2, 3, 4 is 2.5 (numpy's, not the upper middle)" \
	2.5 "$(py 'print(stats.median([4, 1, 3, 2]))')"
check_eq "sign test: 15 faster of 20 gives the exact two-sided p 0.0414" \
	"15 5 0.0414" "$(py 'f, s, p = stats.sign_test([0.9] * 15 + [1.1] * 5 + [1.0]); print(f, s, "%.4f" % p)')"
check_eq "verdicts: below 1 reproduces, across 1 or p 0.05 and over is not distinguishable, above refutes" \
	"reproduces|not distinguishable|not distinguishable|refuted" \
	"$(py 'print("|".join(stats.verdict(*i) for i in ((0.8, 0.95, "lower", 0.01), (0.95, 1.05, "lower", 0.01), (0.8, 0.95, "lower", 0.2), (1.01, 1.2, "lower", 0.01))))')"
check_eq "the bootstrap interval is the same twice and holds the median" \
	"True True" \
	"$(py 'v = [0.9, 1.0, 1.05, 0.97, 0.88, 1.1, 0.93]; a = stats.bootstrap_interval(v); b = stats.bootstrap_interval(v); print(a == b, a[0] <= stats.median(v) <= a[1])')"
fig5=$TOP_DIR/results/4-simulator/paper-stack/sim_symphony_verdict_paper.fig5.json
check_eq "Table 1's rails: 6 steps of 8 MiB at half of 10 Gbit/s, 80.53 ms" \
	80.53 "$("$stats" baseline "$fig5" | jq '.bound_ms * 100 | round / 100')"
check_eq "bounds: one ring of 32 over 4 spines 832.1 ms, 8 spines 416.1, a ToR's own ring of 8 94.0, the 8 x 4 grid 456.3" \
	"832.1 416.1 94.0 456.3" \
	"$(py 'd = lambda n: {"testbed": {"tors": 4, "spines": n, "hosts_per_tor": 8, "rate": "10gbit", "uplink_rate": "10gbit"}, "workload": {"size_per_rank": 8 << 20 if n else 0}}
def doc(n, ranks): x = d(n); x["workload"]["size_per_rank"] = (8 << 20) * ranks; return x
print(" ".join("%.1f" % stats.scenario_bound_ms(doc(n, r), s) for n, r, s in ((4, 32, "ring1"), (8, 32, "ring1"), (4, 8, "torrings"), (4, 32, "grid"))))')"
check_eq "the tracked Fig. 5 runs: paired median 1.002 (the upper middle was 1.006), 10 of 20 faster, p 1" \
	"1.002 10 1" \
	"$("$stats" compare "$fig5" | jq -r '"\(.paired_ratio_median * 1000 | round / 1000) \(.faster) \(.sign_test_p)"')"

# the verdict table, recomputed from the tracked JSON, against the one in
# EVALUATION.md (between its begin and end markers)
rc=0
"$stats" table "$TOP_DIR/eval/symphony_verdict_rows.json" --root "$TOP_DIR" \
	>"$tmp/table.md" 2>"$tmp/table.err" || rc=$?
sed -n '/<!-- symphony-verdict-table: begin/,/<!-- symphony-verdict-table: end/p' \
	"$TOP_DIR/EVALUATION.md" | sed '1d;$d' >"$tmp/doc.md"
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$tmp/table.md")" -lt 3 ]; then
	ktap_fail "EVALUATION's verdict table is the module's, recomputed from results/" \
		"the table was not computed (exit $rc): $(cat "$tmp/table.err")"
else
	check "EVALUATION's verdict table is the module's, recomputed from results/" \
		diff -u "$tmp/doc.md" "$tmp/table.md"
fi

echo '{"runs": 3}' >"$tmp/bad.json"
r=$("$stats" compare "$tmp/bad.json" 2>&1) && rc=0 || rc=$?
check_eq "a file without runs exits 2, naming it" \
	"2 stats.py: $tmp/bad.json: not a symphony_ring document (no runs)" "$rc $r"
r=$("$stats" compare "$fig5" --scenario rings 2>&1) && rc=0 || rc=$?
check_eq "a scenario with no runs exits 2, naming it" \
	"2 stats.py: $fig5: no runs of marking 'red' in scenario 'rings'" "$rc $r"
r=$("$stats" compare "$fig5" --metric jct_ns 2>&1) && rc=0 || rc=$?
check_eq "a metric the runs lack (a workload's JCT of a ring's runs) exits 2, naming it" \
	"2 stats.py: $fig5: a run of seed 1 has no jct_ns" "$rc $r"

# A file of two points (a figure's compute scales, as sim_workloads.sh
# writes): one point's pairs with --where, and without it an exit 2, not
# one point's runs silently paired with the other's.
jq -n '{runs: [range(1; 3) as $seed | (1, 64) as $x |
	{compute_scale: $x, seed: $seed, marking: "red", jct_ns: 1000},
	{compute_scale: $x, seed: $seed, marking: "symphony", jct_ns: (if $x == 64 then 500 else 1000 end)}]}' \
	>"$tmp/points.json"
r=$("$stats" compare "$tmp/points.json" --metric jct_ns 2>&1) && rc=0 || rc=$?
check_jq "--where chooses one point of a file of several (0.5 at 64x, 2 pairs); without it exit 2, naming the seed" \
	'.w.pairs == 2 and .w.paired_ratio_median == 0.5 and
	 .bad == "2 stats.py: \(.f): seed 1 has more than one run of '"'red'"': choose one point with where"' \
	"$("$stats" compare "$tmp/points.json" --metric jct_ns --where compute_scale=64 |
		jq -c --arg bad "$rc $r" --arg f "$tmp/points.json" '{w: ., bad: $bad, f: $f}')"

# baseline_summary.py takes a reading's RED runs from whichever of its
# files there is (the -port one here: Symphony's state per port beside
# RED), the same numbers as stats.py's, and leaves no plot data behind.
mkdir "$tmp/bl"
cp "$TOP_DIR/results/4-simulator/paper-stack/sim_symphony_baseline/ring1-s4-bg0-port.json" \
	"$tmp/bl/ring1-s4-bg10-port.json"
/usr/bin/python3 "$TOP_DIR/eval/baseline_summary.py" --dir "$tmp/bl" --readings "rails ring1" \
	--backgrounds 10 >/dev/null 2>"$tmp/bl.err" || true
check_jq "baseline_summary.py: a reading's -port file stands for it, its CCT/bound stats.py's, a reading not run named; no overlap.dat left" \
	'(.s.readings | length) == 1 and .s.readings[0].file == "ring1-s4-bg10-port.json" and
	 .s.readings[0].cct_over_bound_median == .b.cct_over_bound_median and
	 (.err | test("rails-s4-bg10.json: not run")) and .left == ""' \
	"$(jq -c --slurpfile b <("$stats" baseline "$tmp/bl/ring1-s4-bg10-port.json" --scenario ring1) \
		--arg err "$(cat "$tmp/bl.err")" --arg left "$(ls "$tmp/bl" | grep dat || true)" \
		'{s: ., b: $b[0], err: $err, left: $left}' "$tmp/bl/summary.json" 2>/dev/null)"

ktap_finished
