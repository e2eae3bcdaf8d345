#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# resume.sh - the --resume FILE of the evaluation scripts, and the runs
# that failed: the runs of an earlier JSON of the same script, made the
# same way, are kept as they are and only the missing ones run, so more
# seeds (or a run cut short) cost only what they add; a run that fails is
# named at the end.  Each script's JSON holds its runs, one object a
# run, under "runs".  Sourced:
#
#   . scripts/resume.sh
#   resume_load PROG FILE DIR WHAT TEST [JQ_ARGS...]
#       the runs of FILE into DIR/prior.jsonl (none when FILE is empty),
#       or exit 1 naming FILE and WHAT (the settings, in words) when TEST,
#       a jq expression on FILE's top level (with JQ_ARGS, e.g. --arg
#       method "$method"), is not true
#   resume_find DIR KEY
#       the first run of DIR/prior.jsonl whose fields equal all of KEY's
#       (a JSON object, e.g. {"mode":"ofan","seed":3}), or nothing
#   resume_find_all DIR KEY
#       every such run (a run of several jobs is a line per job)
#
#   resume_failed_exit PROG FILE
#       when FILE names runs that did not complete (one a line), says
#       which and exits 1; the JSON of the others is written before
#
# A simulation is deterministic for its seed, so a rerun with the same
# simulator would give the same line; which simulator wrote a file is not
# recorded, so keeping to the same build is the caller's part.

resume_load() {
	local prog=$1 file=$2 dir=$3 what=$4 test=$5
	shift 5
	: >"$dir/prior.jsonl"
	[ -n "$file" ] || return 0
	[ -r "$file" ] || { echo "$prog: --resume '$file': cannot read it" >&2; exit 1; }
	if ! jq -e "$@" "($test) and (.runs | type) == \"array\"" "$file" >/dev/null 2>&1; then
		echo "$prog: --resume '$file': not a $prog JSON made with $what" >&2
		exit 1
	fi
	jq -c '.runs[]' "$file" >"$dir/prior.jsonl"
}

resume_find_all() {
	jq -c --argjson key "$2" '
	  select(. as $run | $key | to_entries | all(.value == $run[.key]))' "$1/prior.jsonl"
}

resume_find() {
	resume_find_all "$1" "$2" | head -n 1
}

resume_failed_exit() {
	[ -s "$2" ] || return 0
	echo "$1: $(wc -l <"$2") runs did not complete, left out: $(paste -sd, "$2")" >&2
	exit 1
}
