#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_bench_smoke.sh - a short run of build/symphony_bpf_bench
# (the per-packet cost of Symphony as tc-BPF against an empty program, a
# minimal ECN marker and a minimal marker on a phantom queue), so that the
# benchmark cannot rot: it checks that its cases mark as they should (the
# slowest step not, a step ahead CE, other traffic not) and writes a time
# and a ratio for each.  No timing
# is judged here.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq
require_built "$BUILD_DIR/symphony_bpf_bench"

tmp=$(mktemp -d /tmp/test_symphony_bench.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 3

check "the benchmark's cases mark as they should, and run (2000 repeats)" \
	"$BUILD_DIR/symphony_bpf_bench" --repeat 2000 --runs 1 --out "$tmp/bench.json"
check_jq "its JSON has each program with a time per packet and a ratio to the ECN marker" \
	'(.results | keys | sort) == ["ecn_marker_peer", "empty", "phantom_marker", "symphony_lagging",
	  "symphony_marked", "symphony_other"] and
	 ([.results[] | .median_ns_per_packet > 0 and .ratio_to_peer > 0] | all) and
	 .results.ecn_marker_peer.ratio_to_peer == 1 and .peer == "ecn_marker_peer"' \
	"$(cat "$tmp/bench.json" 2>/dev/null)"
check_fails "a bad --runs is refused" "$BUILD_DIR/symphony_bpf_bench" --runs 0 \
	--out "$tmp/bad.json"

ktap_finished
