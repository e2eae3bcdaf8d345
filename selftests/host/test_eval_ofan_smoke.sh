#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_eval_ofan_smoke.sh - a small run of eval/ofan_permutation.sh (the
# Ofan evaluation: permutations on a k=4 fat tree for each load-balancing
# mode), so that the script cannot rot: it completes, writes its JSON with
# a summary per mode and size and every run, delivers every packet, and
# draws its two plots, and carries every run's guard and their summary;
# with two failed links (the script checks that the switches' valid ports
# left them) every packet is still delivered; and the paper's comparators
# run: ar (uplink rates from the tree) and reps (ECMP switches marking CE
# at 80 KB, permsend --reps), whose runs carry REPS's counters.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq gnuplot nsenter file
require_built "$BUILD_DIR/permsend" "$BUILD_DIR/symofan" "$BUILD_DIR/hostload"
require_bpffs

tmp=$(mktemp -d /tmp/test_eval_ofan.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 9

check "the Ofan evaluation runs (64 packets, ofan and rps, one seed)" \
	"$TOP_DIR/eval/ofan_permutation.sh" --sizes 64 --modes "ofan rps" --seeds 1 \
	--prefix oe$$ --out "$tmp/ofan.json"
res=$(cat "$tmp/ofan.json")
check_jq "its JSON has a summary per mode and size, and the runs" \
	'(.summary | length) == 2 and (.runs | length) == 2 and
	 ([.summary[].mode] | sort) == ["ofan", "rps"] and
	 ([.runs[] | has("cct_increase") and has("max_queue_packets")] | all)' "$res"
check_jq "every packet was delivered" '[.summary[].delivered_pct] == [100, 100]' "$res"
check_jq "every run carries its guard, summarised per point and for the whole" \
	'([.runs[].guard.verdict | select(. == "trustworthy" or . == "untrustworthy")] | length) == 2 and
	 ([.runs[].guard_retries | select(. >= 0 and . <= 2)] | length) == 2 and
	 ([.summary[].untrustworthy_runs | select(. >= 0)] | length) == 2 and
	 .guard.runs == 2 and (.guard.verdict | test("^(un)?trustworthy$")) and
	 .link_classes[0].burst_bytes == 16000' "$res"
check "both plots are PNG files" sh -c \
	"file '$tmp/ofan-queue.png' '$tmp/ofan-cct.png' | grep -c 'PNG image' | grep -qx 2"

check "with two failed links at 45% load (ofan and ecmp)" \
	"$TOP_DIR/eval/ofan_permutation.sh" --sizes 64 --modes "ofan ecmp" --seeds 1 \
	--fail 2 --load 45 --prefix of$$ --out "$tmp/fail.json"
check_jq "every packet was delivered around the failed links" \
	'.failed_uplinks == 2 and [.summary[].delivered_pct] == [100, 100]' \
	"$(cat "$tmp/fail.json")"

check "the comparators ar and reps run (64 packets, one seed, no retries)" \
	"$TOP_DIR/eval/ofan_permutation.sh" --sizes 64 --modes "ar reps" --seeds 1 \
	--guard-retries 0 --prefix oc$$ --out "$tmp/cmp.json"
check_jq "... delivering every packet, REPS's runs with its counters, ECN at 80 KB" \
	'([.summary[].mode] | sort) == ["ar", "reps"] and
	 [.summary[].delivered_pct] == [100, 100] and .ecn_bytes == 80000 and
	 ([.runs[] | select(.mode == "reps") | .reps.cached + .reps.retired] == [1024]) and
	 ([.runs[] | select(.mode == "ar") | .reps] == [null])' \
	"$(cat "$tmp/cmp.json")"

ktap_finished
