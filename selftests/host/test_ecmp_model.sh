#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ecmp_model.sh - the fluid model of ECMP hash collisions in the
# Symphony evaluation's rings (eval/ecmp_collision_model.py): static
# balanced routing and uplinks wide enough for every flow cost nothing;
# two flows forced onto one uplink as wide as a host link take exactly
# twice as long; ECMP on the evaluation's leaf-spine (4 ToRs, 2 spines,
# 4 hosts per ToR, uplinks twice the host rate) costs 1.6-1.8x, the same
# draws give the same answer, --out writes the JSON printed, and bad
# options exit 2, naming the value.
. "$(dirname "$0")/../lib.sh"

require_cmd python3 jq

model=$TOP_DIR/eval/ecmp_collision_model.py
tmp=$(mktemp -d /tmp/test_ecmp_model.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 7

factor() { "$model" "$@" | jq -c '.cct_over_bound.median'; }

check_eq "static balanced routing: no collision, factor 1" \
	1 "$(factor --routing static --draws 20)"
check_eq "ECMP with uplinks as wide as 4 host links: factor 1" \
	1 "$(factor --uplink-ratio 4 --draws 20)"
check_eq "2 hosts per ToR, 1 spine, uplinks of one host rate: factor 2" \
	2 "$(factor --hosts-per-tor 2 --spines 1 --uplink-ratio 1 --draws 5)"
f=$(factor --draws 100)
ktap_print "ECMP on the evaluation's leaf-spine: $f x the lower bound"
check "ECMP on the evaluation's leaf-spine costs 1.6-1.8x" \
	awk -v f="$f" 'BEGIN { exit !(f >= 1.6 && f <= 1.8) }'
check_eq "the same seed draws the same collisions" "$f" "$(factor --draws 100)"
"$model" --draws 10 --out "$tmp/m.json" >"$tmp/printed.json"
check "--out writes the JSON printed" cmp "$tmp/m.json" "$tmp/printed.json"
r=$("$model" --spines 0 2>&1) && rc=0 || rc=$?
check_eq "a bad option exits 2, naming it" \
	"2 ecmp_collision_model.py: error: --spines 0: wants 1 or more" \
	"$rc $(tail -1 <<<"$r")"

ktap_finished
