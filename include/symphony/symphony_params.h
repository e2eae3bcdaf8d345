/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_params.h - every tunable of the symphony qdisc, once: its tc
 * keyword, netlink attribute, unit, valid range, default and help text.
 *
 * The kernel's nla_policy ranges and range messages, the tc plugin's
 * parser, help and printer, the agent's per-job overrides (symofan job
 * --k/--tau/--warmup/--samples) and the qdisc's defaults are all generated
 * from SYMPHONY_PARAMS() below; change a range here and every one of them
 * follows.  Kernel-, BPF- and userspace-safe: macros and enums only.
 */
#ifndef _SYMPHONY_PARAMS_H
#define _SYMPHONY_PARAMS_H

#include <linux/pkt_sched_symphony.h>

/*
 * The names of each enum's values, with their numbers spelled out so that
 * the kernel can quote them in a static message (checked against the uapi
 * enum below): X(enumerator, number, name).  Lists of X() calls, as every
 * table below: checkpatch's "complex values" does not apply to them.
 */
#define SYMPHONY_NONECT_NAMES(X)					\
	X(SYMPHONY_NONECT_DROP, 0, "drop")				\
	X(SYMPHONY_NONECT_PASS, 1, "pass")

#define SYMPHONY_MARKING_NAMES(X)					\
	X(SYMPHONY_MARKING_RED, 0, "red")				\
	X(SYMPHONY_MARKING_SYMPHONY, 1, "symphony")

#define SYMPHONY_FIELD_NAMES(X)						\
	X(SYMPHONY_FIELD_UDP_SPORT, 0, "udp_sport")			\
	X(SYMPHONY_FIELD_BTH_RSVD, 1, "bth_rsvd")			\
	X(SYMPHONY_FIELD_BTH_DESTQP, 2, "bth_destqp")

#define SYMPHONY_NAME_NUMBER_OK(enumerator, number, name)		\
	(enumerator) == (number) &&
/* C11's keyword, and C++'s for the simulator (sim/) */
#ifdef __cplusplus
#define SYMPHONY_STATIC_ASSERT	static_assert
#else
#define SYMPHONY_STATIC_ASSERT	_Static_assert
#endif
SYMPHONY_STATIC_ASSERT(SYMPHONY_NONECT_NAMES(SYMPHONY_NAME_NUMBER_OK) 1,
	       "SYMPHONY_NONECT_NAMES numbers the uapi enum's values");
SYMPHONY_STATIC_ASSERT(SYMPHONY_MARKING_NAMES(SYMPHONY_NAME_NUMBER_OK) 1,
	       "SYMPHONY_MARKING_NAMES numbers the uapi enum's values");
SYMPHONY_STATIC_ASSERT(SYMPHONY_FIELD_NAMES(SYMPHONY_NAME_NUMBER_OK) 1,
	       "SYMPHONY_FIELD_NAMES numbers the uapi enum's values");

/* Kinds of value: how tc reads and prints one, what its attribute is. */
enum symphony_param_kind {
	SYMPHONY_KIND_PACKETS,	/* u32 count, printed "1000p" */
	SYMPHONY_KIND_COUNT,	/* u32 count, printed bare */
	SYMPHONY_KIND_BYTES,	/* u32, read as tc sizes ("50kb"), printed "b" */
	SYMPHONY_KIND_PPM,	/* u32 ppm, read and printed as a decimal "0.25" */
	SYMPHONY_KIND_US,	/* u32 us, read as tc times ("1ms"), printed "us" */
	SYMPHONY_KIND_ENUM,	/* u8, read and printed by name */
};

/* symphony_param.flags */
#define SYMPHONY_PARAM_PER_JOB		0x1	/* a job may override it */
#define SYMPHONY_PARAM_HIDE_ZERO	0x2	/* tc does not print it when 0 */

/*
 * X(ID, keyword, json_key, KIND, unit, min, max, default, flags, NAMES, help)
 *
 * ID names the attribute (TCA_SYMPHONY_<ID>) and the generated bounds
 * SYMPHONY_<ID>_MIN, _MAX and _DEFAULT; KIND is SYMPHONY_KIND_<KIND>; unit
 * is the attribute's unit with a leading space ("" when it has none); min
 * and max are inclusive and literal (the kernel quotes them); NAMES is
 * SYMPHONY_<NAMES>_NAMES for an enum, NONE otherwise.  The order is tc's
 * print order.  The RED defaults are the paper's Kmin = 50 KB,
 * Kmax = 100 KB, Pmax = 0.2 for 10 Gbit/s links: scale kmin and kmax with
 * the link rate.
 */
#define SYMPHONY_PARAMS(X)						\
	X(LIMIT, "limit", "limit_packets", PACKETS, " packets",		\
	  1, 1000000, 1000, 0, NONE,					\
	  "queue limit")						\
	X(LIMIT_BYTES, "limit_bytes", "limit_bytes", BYTES, " bytes",	\
	  0, 4294967295, 0, SYMPHONY_PARAM_HIDE_ZERO, NONE,		\
	  "queue limit in bytes, 0 for none")				\
	X(KMIN, "kmin", "kmin_bytes", BYTES, " bytes",			\
	  0, 4294967295, 50000, 0, NONE,				\
	  "backlog where RED starts marking")				\
	X(KMAX, "kmax", "kmax_bytes", BYTES, " bytes",			\
	  0, 4294967295, 100000, 0, NONE,				\
	  "backlog from which RED marks every packet")			\
	X(PMAX, "pmax", "pmax_ppm", PPM, " ppm",			\
	  0, 1000000, 200000, 0, NONE,					\
	  "RED marking probability at kmax")				\
	X(NONECT, "nonect", "nonect", ENUM, "",				\
	  0, 1, SYMPHONY_NONECT_DROP, 0, NONECT,			\
	  "what RED does to a non-ECT packet it would mark")		\
	X(MARKING, "marking", "marking", ENUM, "",			\
	  0, 1, SYMPHONY_MARKING_SYMPHONY, 0, MARKING,			\
	  "RED only (the baseline) or Symphony OR RED")			\
	X(K, "k", "k_ppm", PPM, " ppm",					\
	  0, 100000000, 10000, SYMPHONY_PARAM_PER_JOB, NONE,		\
	  "Symphony's throttling gain k")				\
	X(TAU, "tau", "tau_ppm", PPM, " ppm",				\
	  0, 1000000, 250000, SYMPHONY_PARAM_PER_JOB, NONE,		\
	  "outpacing share of a window that raises alpha (tau)")	\
	X(TWIN, "twin", "twin_us", US, " us",				\
	  1, 10000000, 100, 0, NONE,					\
	  "window T_win")						\
	X(WARMUP, "warmup", "warmup_psn", COUNT, " PSN units",		\
	  0, 16777216, 16, SYMPHONY_PARAM_PER_JOB, NONE,		\
	  "N_warmup: no Symphony marks until psn_rec exceeds it")	\
	X(SAMPLES, "samples", "samples_packets", COUNT, " packets",	\
	  0, 4294967294, 16, SYMPHONY_PARAM_PER_JOB, NONE,		\
	  "N_sample: windows with fewer packets keep alpha")		\
	X(ALPHA_MAX, "alpha_max", "alpha_max", COUNT, "",		\
	  1, 65536, 1024, 0, NONE,					\
	  "cap of alpha")						\
	X(QMIN, "qmin", "qmin_bytes", BYTES, " bytes",			\
	  0, 4294967295, 0, 0, NONE,					\
	  "backlog from which Symphony marks; 0: any, as the paper")	\
	X(JOB_FIELD, "job_field", "job_field", ENUM, "",		\
	  0, 2, SYMPHONY_FIELD_BTH_RSVD, 0, FIELD,			\
	  "RoCEv2 header field of the job id")				\
	X(STEP_FIELD, "step_field", "step_field", ENUM, "",		\
	  0, 2, SYMPHONY_FIELD_UDP_SPORT, 0, FIELD,			\
	  "RoCEv2 header field of the step")				\
	X(JOBS, "jobs", "jobs", COUNT, " slots",			\
	  1, 16777216, 4096, 0, NONE,					\
	  "job ids of the qdisc's own table (without jobs_map)")

/* SYMPHONY_<ID>_MIN, SYMPHONY_<ID>_MAX and SYMPHONY_<ID>_DEFAULT. */
#define SYMPHONY_PARAM_BOUNDS(id, kw, json, kind, unit, min, max, dflt,	\
			      flags, names, help)			\
	SYMPHONY_##id##_MIN = (min),					\
	SYMPHONY_##id##_MAX = (max),					\
	SYMPHONY_##id##_DEFAULT = (dflt),
enum symphony_param_bounds {
	SYMPHONY_PARAMS(SYMPHONY_PARAM_BOUNDS)
};

#define SYMPHONY_STRINGIFY(x)		#x

/*
 * The text the kernel returns when the policy refuses a value, e.g.
 * "limit must be 1..1000000 packets": a string literal per kind.
 */
#define SYMPHONY_CHOICE_TEXT(enumerator, number, name)			\
	" " name " (" SYMPHONY_STRINGIFY(number) ")"
#define SYMPHONY_RANGE_TEXT_RANGE(kw, unit, min, max, names)		\
	kw " must be " SYMPHONY_STRINGIFY(min) ".."			\
	SYMPHONY_STRINGIFY(max) unit
#define SYMPHONY_RANGE_TEXT_PACKETS	SYMPHONY_RANGE_TEXT_RANGE
#define SYMPHONY_RANGE_TEXT_COUNT	SYMPHONY_RANGE_TEXT_RANGE
#define SYMPHONY_RANGE_TEXT_BYTES	SYMPHONY_RANGE_TEXT_RANGE
#define SYMPHONY_RANGE_TEXT_PPM		SYMPHONY_RANGE_TEXT_RANGE
#define SYMPHONY_RANGE_TEXT_US		SYMPHONY_RANGE_TEXT_RANGE
#define SYMPHONY_RANGE_TEXT_ENUM(kw, unit, min, max, names)		\
	kw " must be one of:" SYMPHONY_##names##_NAMES(SYMPHONY_CHOICE_TEXT)
#define SYMPHONY_RANGE_TEXT(id, kw, json, kind, unit, min, max, dflt,	\
			    flags, names, help)				\
	SYMPHONY_RANGE_TEXT_##kind(kw, unit, min, max, names)

/* symphony_xstat.flags */
#define SYMPHONY_XSTAT_NEW_LINE		0x1	/* tc starts a line before it */

/*
 * X(field, json_key, label, suffix, flags, help): every field of struct
 * tc_symphony_xstats (pkt_sched_symphony.h), in tc -s's print order.
 * field is the struct's member; json_key is tc -s -j's key; tc prints
 * label, the value, then suffix ("p" packets, "b" bytes).  The tc plugin
 * prints from this table and tc-symphony(8) lists it, so the two agree.
 */
#define SYMPHONY_XSTATS(X)						\
	X(packets, "dequeued_packets", "  dequeued ", "p", 0,		\
	  "packets dequeued")						\
	X(bytes, "dequeued_bytes", " ", "b", 0,				\
	  "bytes dequeued")						\
	X(collective_packets, "collective_packets", " collective ", "p", 0, \
	  "packets that carried a job and a step (RoCEv2 or UEC)")	\
	X(outpacing_packets, "outpacing_packets", " outpacing ", "p", 0, \
	  "collective packets of a step above its job's step_min")	\
	X(unclassified_packets, "unclassified_packets", " unclassified ", \
	  "p", 0,							\
	  "packets with no job: not collective, malformed or of an unknown job") \
	X(malformed_packets, "malformed_packets", " malformed ", "p", 0, \
	  "of the unclassified: truncated or inconsistent headers")	\
	X(red_marks, "red_marks", "  marks: red ", "p",			\
	  SYMPHONY_XSTAT_NEW_LINE,					\
	  "packets RED marked CE (Symphony may have marked them too)")	\
	X(symphony_marks, "symphony_marks", " symphony ", "p", 0,	\
	  "packets Symphony marked CE (RED may have marked them too)")	\
	X(limit_drops, "limit_drops", "  drops: limit ", "p", 0,	\
	  "packets dropped at a full queue (limit, limit_bytes)")	\
	X(red_drops, "red_drops", " red ", "p", 0,			\
	  "non-ECT packets dropped where RED would have marked (nonect drop)") \
	X(max_backlog_packets, "max_backlog_packets", "  max_backlog ", "p", \
	  0, "high-water mark of the queue, packets")			\
	X(max_backlog_bytes, "max_backlog_bytes", " ", "b", 0,		\
	  "high-water mark of the queue, bytes")

#endif /* _SYMPHONY_PARAMS_H */
