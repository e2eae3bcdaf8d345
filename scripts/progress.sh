#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# progress.sh - where a long run is, at a glance: run i of n, what it
# runs, the time so far and a rough time left.  Sourced by the evaluation
# and benchmark scripts:
#
#   . scripts/progress.sh
#   progress_start NAME            before the first run
#   progress I N TEXT              as run I of N starts
#   progress_done                  after the last
#
# On a terminal the line updates in place, with a bar; otherwise (CI, a
# log, a pipe, the test VM's console) each call prints a line of its own, "NAME: run I of N
# (TEXT), 2m10s so far, about 6m left", which scripts/demo.sh also reads
# back.  The estimate is the mean time of the runs done so far.

progress_start() {
	progress_name=$1
	progress_t0=$(date +%s)
	progress_tty=0
	# in the test VM, stderr is the guest's console, a terminal whose
	# lines the host reads: lines there
	if [ -t 2 ] && [ -z "${SYMOFAN_IN_VM:-}" ]; then
		progress_tty=1
	fi
}

# 125 s as "2m05s"
progress_time() {
	local s=$1
	if [ "$s" -ge 60 ]; then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

progress() {
	local i=$1 n=$2 text=$3 elapsed left='' bar='' done_w width=20
	elapsed=$(($(date +%s) - progress_t0))
	if [ "$i" -gt 1 ]; then
		left=", about $(progress_time $((elapsed * (n - i + 1) / (i - 1)))) left"
	fi
	if [ "$progress_tty" -eq 1 ]; then
		done_w=$((width * (i - 1) / n))
		bar=$(printf '%*s' "$done_w" '' | tr ' ' '#')$(printf '%*s' $((width - done_w)) '' | tr ' ' '.')
		printf '\r\033[K%s: [%s] run %d of %d (%s), %s so far%s' \
			"$progress_name" "$bar" "$i" "$n" "$text" \
			"$(progress_time "$elapsed")" "$left" >&2
	else
		printf '%s: run %d of %d (%s), %s so far%s\n' "$progress_name" \
			"$i" "$n" "$text" "$(progress_time "$elapsed")" "$left" >&2
	fi
}

progress_done() {
	local elapsed=$(($(date +%s) - progress_t0))
	[ "$progress_tty" -eq 0 ] || printf '\r\033[K' >&2
	printf '%s: done in %s\n' "$progress_name" "$(progress_time "$elapsed")" >&2
}
