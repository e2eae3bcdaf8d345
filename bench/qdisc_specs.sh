# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# qdisc_specs.sh - what the qdisc benchmarks (qdisc_pps.sh, tcg_insns.sh)
# measure, defined once: the tc line of each qdisc under test and the
# RoCEv2 stream bench/roceblast sends.  Sourced, not run.

# shellcheck disable=SC2034	# used by the scripts that source this
declare -A qdisc_spec=(
	[pfifo]="pfifo limit 1000"
	[red]="red limit 1000000 min 50000 max 100000 avpkt 1000 burst 67 probability 0.2 bandwidth 10gbit ecn"
	[fq_codel]="fq_codel"
	[symphony]="symphony kmin 50000 kmax 100000 twin 1ms"
	[symphony_red]="symphony marking red kmin 50000 kmax 100000 twin 1ms"
	[symphony_kmin500]="symphony kmin 500 kmax 100000 twin 1ms"
)

# The stream's roceblast options, without duration and device: 4 jobs,
# 3 WRITE MIDDLE packets per step between LASTs, 1000-byte frames, the
# generator pinned to CPU 0.
pkt_size=1000
roceblast_jobs=4
roceblast_middle=3
roceblast_opts=(--cpu 0 --jobs "$roceblast_jobs" --middle "$roceblast_middle"
	--size "$pkt_size")
