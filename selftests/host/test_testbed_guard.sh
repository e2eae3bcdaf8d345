#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_testbed_guard.sh - every testbed run says whether the machine kept
# up (tc-scripts/permrun.sh's guard, tc-scripts/guard.jq, build/hostload),
# and the calibration (eval/calibrate.sh) finds a lower rate on a busier
# machine.  On a k=4 fat tree of 20 Mbit/s links with Ofan: a run carries
# its guard figures (machine load, senders' lag and bursts, kernel-stamped
# delays, the links' HTB classes); a quiet run is trustworthy; with a
# real-time CPU hog taking each CPU 20 ms of every 100 ms the senders fall
# behind, the guard says so, and --strict refuses the run (exit 3); the
# calibration then settles on the ladder's lower rate, where it found the
# higher one on the quiet machine.  A virtual machine whose hypervisor
# stalls it (a 1 ms sleep of the guard's own probe waking later than the
# lag limit) cannot keep any schedule, quiet or not: the points that
# need a steady machine are skipped then, naming the stall.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd jq nsenter chrt taskset python3
require_built "$BUILD_DIR/permsend" "$BUILD_DIR/symofan" "$BUILD_DIR/hostload"
require_bpffs

fattree=$TOP_DIR/tc-scripts/fattree.sh
ofan=$TOP_DIR/tc-scripts/ofan-fattree.sh
permrun=$TOP_DIR/tc-scripts/permrun.sh
calibrate=$TOP_DIR/eval/calibrate.sh
prefix=tg$$
tmp=$(mktemp -d /tmp/test_guard.XXXXXX)
on_exit rm -rf "$tmp"

ktap_plan 10

on_exit "$fattree" down --prefix "$prefix"
on_exit "$ofan" unload --prefix "$prefix"
"$fattree" up --prefix "$prefix" --rate 20mbit >/dev/null
"$ofan" load --prefix "$prefix" >/dev/null
hosts=$("$fattree" info --prefix "$prefix" --json | jq -r '[.hosts[] | "\(.netns):\(.addr)"] | join(",")')

# stalled GUARD: the machine itself stalled beyond GUARD's lag limit
# (the wake-up probe of build/hostload), with the figures
stalled() {
	jq -e -r '(.lag_limit_frames * .frame_ns) as $limit
	  | select(.wakeup_late_max_ns > $limit)
	  | "this machine itself stalled: a 1 ms sleep woke \(.wakeup_late_max_ns / 1e6) ms late, past the \($limit / 1e6) ms limit (steal \(.steal_pct)%)"' <<<"$1"
}

# check_steady NAME FILTER JSON GUARD: check_jq, or a skip when the machine
# itself stalled during the run GUARD describes
check_steady() {
	local why
	if ! jq -e "$2" >/dev/null 2>&1 <<<"$3" && why=$(stalled "$4"); then
		ktap_skip "$1" "$why"
	else
		check_jq "$1" "$2" "$3"
	fi
}

# run NAME [permrun options]: a 256-packet permutation at 50% load
run() {
	local name=$1
	shift
	"$permrun" --out "$tmp/$name" "$@" --hosts "$hosts" -- --packets 256 \
		--load 50 --seed 2 --rate 20mbit >"$tmp/$name.log" 2>&1
}

# a quiet run: up to 3 tries, for a machine that is itself busy a moment.
# Its busiest 500 ms window may be less busy than the whole run: a short
# run busy at both ends (launch, teardown) weighs each end fully, while
# every sliding window holds at most one of them.
for try in 1 2 3; do
	run quiet || true
	[ "$(jq -r .guard.verdict "$tmp/quiet/result.json" 2>/dev/null)" != trustworthy ] ||
		break
	ktap_print "quiet run $try: $(grep '^guard' "$tmp/quiet.log")"
done
ktap_print "$(grep '^guard' "$tmp/quiet.log")"
res=$(cat "$tmp/quiet/result.json")
check_jq "a run's result carries the machine's load and the senders' pacing" \
	'.guard | (.cpu_busy_pct | type == "number") and
	 (.cpu_busy_max_window_pct | . >= 0 and . <= 100) and
	 (.timer_irqs_per_s > 0) and .frame_ns == 434400 and
	 (.worst_sender_lag_ns | type == "number") and .max_burst_packets >= 1 and
	 (.schedule_slips | type == "number") and .lag_limit_frames == 4' "$res"
check_jq "... and every host's sender reports its worst lag, burst and slips" \
	'[.per_host[].pacing | select(.worst_lag_ns != null and .max_burst_packets >= 1 and
	  .max_catchup_packets == 4 and .schedule_slip_ns != null)] | length == 16' "$res"
check_jq "delays are stamped by the kernel, the receivers' wait reported apart" \
	'.guard.delay_clock == "kernel" and
	 ([.per_host[] | select(.receive_wait_ns.max >= 0)] | length == 16)' "$res"
check_jq "every link's HTB class is recorded: 96 link ends at 20 Mbit/s, 16000-byte burst" \
	'.guard.link_classes | length == 1 and .[0].links == 96 and
	 .[0].burst_bytes == 16000 and .[0].cburst_bytes == 16000 and
	 (.[0].class | test("rate 20Mbit"))' "$res"
check_steady "a quiet run is trustworthy" '.guard.verdict == "trustworthy" and .guard.reasons == []' \
	"$res" "$(jq -c .guard <<<"$res")"

# a hog on every CPU, 20 ms of every 100 ms, above every ordinary task
hog_pids=()
stop_hogs() { kill "${hog_pids[@]}" 2>/dev/null; wait "${hog_pids[@]}" 2>/dev/null; hog_pids=(); }
on_exit stop_hogs
for ((cpu = 0; cpu < $(nproc); cpu++)); do
	chrt -f 10 taskset -c "$cpu" "$SELFTESTS_DIR/tools/cpu_hog.py" 20 100 &
	hog_pids+=($!)
done
sleep 0.3
run hog --strict && rc=0 || rc=$?
ktap_print "$(grep '^guard' "$tmp/hog.log")"
res=$(cat "$tmp/hog/result.json")
check_eq "with the hog, --strict refuses the run (exit 3)" 3 "$rc"
check_jq "... whose guard names a sender more than 4 frame times late" \
	'.guard.verdict == "untrustworthy" and .guard.worst_sender_lag_frames > 4 and
	 (.guard.reasons[0] | test("lagged .* frame times behind its schedule"))' "$res"

# 256 packets a host: a run of about 0.5 s at 20 Mbit/s spans several of
# the hog's periods; at 64 (0.12 s) the senders slipped between its
# bursts in 3 of 5 tries on a 2-CPU machine, at 256 in none of 10
"$calibrate" --ladder "20mbit 1mbit" --packets 256 --seeds 1 \
	--prefix "c$prefix" --out "$tmp/cal_hog.json" >/dev/null 2>"$tmp/cal_hog.log" || true
stop_hogs
ktap_print "$(grep 'mbit seed' "$tmp/cal_hog.log" | tr '\n' ' ')"
check_jq "with the hog the calibration passes over 20 Mbit/s, naming why" \
	'.tries[0].rate == "20mbit" and .tries[0].verdict == "untrustworthy" and
	 .tries[0].guard.worst_sender_lag_frames > 4' "$(cat "$tmp/cal_hog.json")"
cal=$(cat "$tmp/cal_hog.json")
check_steady "... and settles on 1 Mbit/s" '.sustained_rate == "1mbit"' "$cal" \
	"$(jq -c '.tries[-1].guard' <<<"$cal")"

"$calibrate" --ladder "20mbit 1mbit" --packets 64 --seeds 1 \
	--prefix "c$prefix" --out "$tmp/cal.json" >/dev/null 2>"$tmp/cal.log" || true
ktap_print "$(grep 'mbit seed' "$tmp/cal.log" | tr '\n' ' ')"
cal=$(cat "$tmp/cal.json")
check_steady "without it, a calibration sustains 20 Mbit/s" \
	'.sustained_rate == "20mbit"' "$cal" "$(jq -c '.tries[0].guard' <<<"$cal")"

ktap_finished
