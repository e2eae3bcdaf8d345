#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_tcg_insns_smoke.sh - a short run of bench/tcg_insns.sh (guest
# instructions per packet, counted by the project's QEMU TCG plugin), so
# that the tool cannot rot: the plugin loads, counts the qdisc's own
# functions, and the JSON holds per-packet figures for pfifo and symphony.
# The counts are judged only for plausibility.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq qemu-system-x86_64
require_built "$BUILD_DIR/tcg_insns.so" "$BUILD_DIR/roceblast" \
	"$TOP_DIR/kernel/sch_symphony.ko"

tmp=$(mktemp -d /tmp/test_tcg_insns.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 4

check "tcg_insns.sh counts pfifo and symphony (1 s each)" \
	"$TOP_DIR/bench/tcg_insns.sh" --qdiscs symphony --duration 1 \
	--out "$tmp/insns.json"
res=$(cat "$tmp/insns.json")
check_jq "both ran and sent packets" \
	'(.qdiscs | keys) == ["pfifo", "symphony"] and
	 ([.qdiscs[] | .packets > 0] | all)' "$res"
check_jq "symphony's own functions are counted, its marking path among them" \
	'.qdiscs.symphony.insns_per_packet.qdisc > 100 and
	 .qdiscs.symphony.qdisc_functions.symphony_dequeue_mark > 0 and
	 .qdiscs.pfifo.insns_per_packet.qdisc < 50' "$res"
check_fails "an unknown qdisc is refused" "$TOP_DIR/bench/tcg_insns.sh" \
	--qdiscs fq --out "$tmp/bad.json"

ktap_finished
