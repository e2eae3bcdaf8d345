#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_eval_fig9_host.sh - a small run of eval/symphony_fig9.sh on the
# host kernel (--engine host: Symphony as tc-BPF), so that the testbed's
# Fig. 9 cannot rot: two 1 MiB flows of consecutive steps of one job
# through one ToR uplink at 100 Mbit/s, at once and one after the other,
# each with RED marking and with Symphony OR RED.  Every flow completes
# and none beats the line rate; B starts first and A (the lagging step)
# when the shift says; RED marking never Symphony-marks, and with both
# flows at once Symphony marks at ToR 0's uplink; the testbed and its
# pins are gone after; a bad shift exits 2 without building a testbed.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter
require_tools symofan ringcoll

tmp=$(mktemp -d /tmp/test_eval_fig9_host.XXXXXX)
on_exit rm -rf "$tmp"
fig9=$TOP_DIR/eval/symphony_fig9.sh

ktap_plan 7

# 84 ms a flow at the line rate: about 2 s a run with the testbed; k 0.1
# (ten times the paper's) so that a flow this short is marked tens of
# times, not a few
check "Fig. 9 natively: 1 MiB flows at 100 Mbit/s, overlap 100% and 0%" \
	"$fig9" --engine host --bytes 1m --shifts "100 0" --k 0.1 --out "$tmp/f9.json"
res=$(cat "$tmp/f9.json" 2>/dev/null || echo '{}')
ktap_print "$(jq -c '.runs[]? | {shift_pct, marking, a: .a.completion_ms, b: .b.completion_ms,
	symphony_marks, red_marks}' <<<"$res" | tr '\n' ' ')"
check_jq "four runs, engine host, each flow complete and no faster than the line rate" \
	'.flow_line_rate_ms as $f | .engine == "host" and
	 ([.runs[] | "\(.shift_pct) \(.marking)"] == ["100 red", "100 symphony", "0 red", "0 symphony"]) and
	 ([.runs[] | .a.completion_ms, .b.completion_ms, .reverse.a.completion_ms,
	   .reverse.b.completion_ms | . >= 0.98 * $f] | all)' "$res"
check_jq "at 100% both start together; at 0% A starts a line-rate flow time after B" \
	'(.flow_line_rate_ms) as $f | [.runs[] |
	 if .shift_pct == 100 then (.a.start_ms - .b.start_ms | fabs) < 20
	 else (.a.start_ms - .b.start_ms - $f | fabs) < 20 end] | all' "$res"
check_jq "RED marking never Symphony-marks; RED marks the shared uplink when both run at once" \
	'[.runs[] | select(.marking == "red") | .symphony_marks] == [0, 0] and
	 ([.runs[] | select(.marking == "red" and .shift_pct == 100) | .red_marks] | .[0] > 0)' "$res"
check_jq "with both flows at once Symphony marks at ToR 0's uplink (the step ahead's packets)" \
	'[.runs[] | select(.marking == "symphony" and .shift_pct == 100) |
	  .uplinks[] | select(.tor == "t0") | .symphony_marks > 0] == [true]' "$res"
check "the testbed and its pins are gone after" sh -c \
	"! ip netns list | grep -q '^f9-' && ! ls -d /sys/fs/bpf/symofan-f9-* 2>/dev/null"
"$fig9" --engine host --shifts "120" >"$tmp/bad.out" 2>&1 && rc=0 || rc=$?
check_eq "a shift past 100% is refused, naming it, and builds nothing" \
	"2 yes no" "$rc $(grep -q "'120'" "$tmp/bad.out" && echo yes) $(ip netns list | grep -q '^f9-' && echo yes || echo no)"

ktap_finished
