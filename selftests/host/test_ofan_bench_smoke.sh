#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_bench_smoke.sh - a short run of build/ofan_bpf_bench (the
# per-packet cost benchmark of the Ofan tc-BPF program), so that the
# benchmark cannot rot: every case runs its forwarding path (the benchmark
# checks each case's verdict: redirect for every forwarding case) and the
# JSON holds a time and a ratio for each.  No timing is judged here.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq
require_built "$BUILD_DIR/ofan_bpf_bench"
require_bpffs

tmp=$(mktemp -d /tmp/test_ofan_bench.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 3

check "the benchmark runs every case on its expected path (2000 repeats)" \
	"$BUILD_DIR/ofan_bpf_bench" --repeat 2000 --runs 1 --out "$tmp/bench.json"
res=$(cat "$tmp/bench.json")
check_jq "its JSON has each program with a time per packet and a ratio" \
	'(.results | keys | sort) == ["ar_fast", "ecmp_fib", "empty",
	  "hash_ecmp_peer", "jsq_fast", "ofan_fast", "ofan_lpm", "pofan_fast",
	  "rps_fast", "rr_fast"] and
	 ([.results[] | .median_ns_per_packet > 0 and .ratio_to_peer > 0] | all) and
	 .results.hash_ecmp_peer.ratio_to_peer == 1' "$res"
check_fails "a bad --runs is refused" "$BUILD_DIR/ofan_bpf_bench" --runs 0 \
	--out "$tmp/bad.json"

ktap_finished
