#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_eval_symphony_smoke.sh - a small run of eval/symphony_ring.sh (the
# Symphony evaluation: ring AllReduces on a leaf-spine, RED baseline
# against Symphony), so that the script cannot rot: one seed of the
# "rings" scenario on 8 hosts completes under both markings, the switch
# ports' qdiscs see the ring as collective traffic, the ports of each
# switch share one jobs map (with --state switch), two steps of a rank
# may send at once (--step-qps 2), each as a new flow (--step-flows on),
# over static balanced routes (--routing static), and the JSON (runs,
# summary, comparison) and both plots are written; eval/
# symphony_controls.sh summarises that run as a control, against the
# ring's lower bound, with its bar plot.
. "$(dirname "$0")/../lib.sh"

in_vm || ktap_skip_all "runs in the VM (scripts/vm-run.sh)"
require_root
require_cmd ip tc jq gnuplot file
require_built "$BUILD_DIR/ringcoll" "$BUILD_DIR/rocegen" "$BUILD_DIR/tc/q_symphony.so"

tmp=$(mktemp -d /tmp/test_eval_symphony.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 11

check "the Symphony evaluation runs (8 hosts, rings, one seed)" \
	"$TOP_DIR/eval/symphony_ring.sh" --seeds 1 --scenarios rings \
	--hosts-per-tor 2 --size 256k --state switch --step-qps 2 --step-flows on \
	--routing static \
	--out "$tmp/sym.json"
res=$(cat "$tmp/sym.json")
ktap_print "$(jq -c '.summary[] | {marking, cct_ms: .cct_ms.median, overlap: .max_step_overlap.max}' <<<"$res" | tr '\n' ' ')"
check_jq "its JSON has both markings of the scenario, complete, with step overlaps" \
	'([.summary[] | "\(.scenario)-\(.marking)"] | sort) == ["rings-red", "rings-symphony"] and
	 ([.runs[] | .complete and .cct_ms > 0 and .max_step_overlap >= 1 and
	   (.step_overlap | length) > 0] | all) and (.comparison | length) == 1' "$res"
check_jq "the switch ports (marking symphony) classified the rings' packets as collective" \
	'[.runs[] | select(.marking == "symphony") | .switch_ports.collective_packets > 0] == [true]' "$res"
# --hosts-per-tor 2 keeps the 4 ToRs and 2 spines: 6 switches
check_jq "the ports of each of the 6 switches share one jobs map" \
	'[.runs[].switch_ports.jobs_maps] == [6, 6]' "$res"
check_jq "the ranks ran with two queue pairs per ring, each step a new flow, as every run records" \
	'.workload.step_qps == 2 and [.runs[].step_qps] == [2, 2] and
	 .workload.step_flows and [.runs[].step_flows] == [true, true]' "$res"
check_jq "marking red never Symphony-marks" \
	'[.runs[] | select(.marking == "red") | .switch_ports.symphony_marks] == [0]' "$res"
check "both plots are PNG files" sh -c \
	"file '$tmp/sym-cct-cdf.png' '$tmp/sym-overlap.png' | grep -c 'PNG image' | grep -qx 2"
check_jq "the testbed routed statically" '.testbed.routing == "static"' "$res"

mkdir "$tmp/controls"
cp "$tmp/sym.json" "$tmp/controls/static_quiet.json"
check "symphony_controls.sh summarises it as a control" \
	"$TOP_DIR/eval/symphony_controls.sh" --summary --dir "$tmp/controls" \
	--out "$tmp/controls.json"
# 14 steps of 256 KiB / 8 at 2.5 Mbit/s: 1468.0064 ms
check_jq "... against the 8-rank ring's lower bound, with both markings' CCTs" \
	'[.controls[] | .control == "static_quiet" and .seeds == 1 and
	  (.lower_bound_ms * 10000 | round) == 14680064 and
	  .baseline_over_bound > 1 and .symphony_cct_ms.median > 0] == [true]' \
	"$(cat "$tmp/controls.json")"
check "... and its bar plot is a PNG file" sh -c \
	"file '$tmp/controls.png' | grep -q 'PNG image'"

ktap_finished
