// SPDX-License-Identifier: GPL-2.0
/*
 * q_symphony.c - iproute2 tc plugin for the symphony qdisc (see
 * symphony_explain() for its options).  Built as q_symphony.so; tc loads
 * it from its library folder (or $TC_LIB_DIR) and looks up
 * symphony_qdisc_util.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>

#include "tc_iproute2.h"
#include "symphony_ppm.h"
#include "../include/symphony/symphony_names.h"
#include "../include/uapi/linux/pkt_sched_symphony.h"

static void symphony_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... symphony [ limit PACKETS ] [ limit_bytes BYTES ]\n"
		"                    [ kmin BYTES ] [ kmax BYTES ] [ pmax PROBABILITY ]\n"
		"                    [ qmin BYTES ]\n"
		"                    [ nonect drop|pass ] [ marking red|symphony ]\n"
		"                    [ k GAIN ] [ tau FRACTION ] [ twin TIME ]\n"
		"                    [ warmup PSNS ] [ samples PACKETS ] [ alpha_max N ]\n"
		"                    [ job_field FIELD ] [ step_field FIELD ]\n"
		"                    [ jobs SLOTS ] [ jobs_map PATH|none ]\n"
		"  limit PACKETS      queue limit in packets, 1..1000000 (default 1000)\n"
		"  limit_bytes BYTES  queue limit in bytes, 0 for none (default 0)\n"
		"  kmin BYTES         backlog where RED starts marking (default 50000b)\n"
		"  kmax BYTES         backlog from which RED marks all (default 100000b)\n"
		"  pmax PROBABILITY   RED marking probability at kmax, 0..1 (default 0.2)\n"
		"  qmin BYTES         backlog from which Symphony marks; 0: any, as the\n"
		"                     paper (default 0b)\n"
		"  nonect drop|pass   what RED does to non-ECT packets it would mark (drop)\n"
		"  marking red|symphony\n"
		"                     RED only (baseline) or Symphony OR RED (default)\n"
		"  k GAIN             Symphony throttling gain, 0..100 (default 0.01)\n"
		"  tau FRACTION       outpacing share that raises alpha, 0..1 (default 0.25)\n"
		"  twin TIME          window T_win, e.g. 100us, 1ms (default 100us)\n"
		"  warmup PSNS        no Symphony marks until psn_rec exceeds it (default 16)\n"
		"  samples PACKETS    windows with fewer packets keep alpha (default 16)\n"
		"  alpha_max N        cap of alpha, 1..65536 (default 1024)\n"
		"  job_field, step_field FIELD\n"
		"                     RoCEv2 fields of job and step: udp_sport, bth_rsvd,\n"
		"                     bth_destqp (default job bth_rsvd, step udp_sport)\n"
		"  jobs SLOTS         job ids of the qdisc's own table (default 4096)\n"
		"  jobs_map PATH      keep job state in this pinned BPF array map;\n"
		"                     none: back to the own table\n");
}

static int symphony_bad(const char *what, const char *value, const char *want)
{
	fprintf(stderr, "symphony: illegal %s \"%s\": want %s\n", what, value,
		want);
	return -1;
}

static int symphony_get_name(__u8 *out, const char *str,
			     const char *const *names, int nr)
{
	int value = symphony_lookup_name(names, nr, str);

	if (value < 0)
		return -1;
	*out = value;
	return 0;
}

struct symphony_opt {
	__u32	value;
	int	type;		/* TCA_SYMPHONY_* */
	int	len;		/* 1 (u8) or 4 (u32/s32) */
};

static int symphony_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	struct symphony_opt opts[TCA_SYMPHONY_MAX + 1] = {};
	struct rtattr *tail;
	int i;

	for (; argc > 0; argc--, argv++) {
		const char *key = *argv, *val;
		struct symphony_opt *o;
		__u8 u8v;
		int type;

		if (strcmp(key, "help") == 0) {
			symphony_explain(stderr);
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "symphony: \"%s\" needs a value\n", key);
			return -1;
		}
		argc--, argv++;
		val = *argv;

		if (strcmp(key, "limit") == 0) {
			type = TCA_SYMPHONY_LIMIT;
		} else if (strcmp(key, "limit_bytes") == 0) {
			type = TCA_SYMPHONY_LIMIT_BYTES;
		} else if (strcmp(key, "kmin") == 0) {
			type = TCA_SYMPHONY_KMIN;
		} else if (strcmp(key, "kmax") == 0) {
			type = TCA_SYMPHONY_KMAX;
		} else if (strcmp(key, "qmin") == 0) {
			type = TCA_SYMPHONY_QMIN;
		} else if (strcmp(key, "pmax") == 0) {
			type = TCA_SYMPHONY_PMAX;
		} else if (strcmp(key, "nonect") == 0) {
			type = TCA_SYMPHONY_NONECT;
		} else if (strcmp(key, "marking") == 0) {
			type = TCA_SYMPHONY_MARKING;
		} else if (strcmp(key, "k") == 0) {
			type = TCA_SYMPHONY_K;
		} else if (strcmp(key, "tau") == 0) {
			type = TCA_SYMPHONY_TAU;
		} else if (strcmp(key, "twin") == 0) {
			type = TCA_SYMPHONY_TWIN;
		} else if (strcmp(key, "warmup") == 0) {
			type = TCA_SYMPHONY_WARMUP;
		} else if (strcmp(key, "samples") == 0) {
			type = TCA_SYMPHONY_SAMPLES;
		} else if (strcmp(key, "alpha_max") == 0) {
			type = TCA_SYMPHONY_ALPHA_MAX;
		} else if (strcmp(key, "job_field") == 0) {
			type = TCA_SYMPHONY_JOB_FIELD;
		} else if (strcmp(key, "step_field") == 0) {
			type = TCA_SYMPHONY_STEP_FIELD;
		} else if (strcmp(key, "jobs") == 0) {
			type = TCA_SYMPHONY_JOBS;
		} else if (strcmp(key, "jobs_map") == 0) {
			type = TCA_SYMPHONY_JOBS_FD;
		} else {
			fprintf(stderr, "symphony: unknown option \"%s\"\n", key);
			symphony_explain(stderr);
			return -1;
		}

		o = &opts[type];
		if (o->len) {
			fprintf(stderr, "symphony: \"%s\" given twice\n", key);
			return -1;
		}
		o->type = type;
		o->len = sizeof(__u32);

		switch (type) {
		case TCA_SYMPHONY_LIMIT:
			if (get_u32(&o->value, val, 0) ||
			    o->value < SYMPHONY_LIMIT_MIN_PACKETS ||
			    o->value > SYMPHONY_LIMIT_MAX_PACKETS)
				return symphony_bad("limit", val, "1..1000000 packets");
			break;
		case TCA_SYMPHONY_LIMIT_BYTES:
		case TCA_SYMPHONY_KMIN:
		case TCA_SYMPHONY_KMAX:
		case TCA_SYMPHONY_QMIN:
			if (get_size(&o->value, val))
				return symphony_bad(key, val, "a size in bytes, e.g. 50kb");
			break;
		case TCA_SYMPHONY_PMAX:
			if (symphony_get_ppm(&o->value, val, SYMPHONY_PPM))
				return symphony_bad("pmax", val, "a probability 0..1");
			break;
		case TCA_SYMPHONY_TAU:
			if (symphony_get_ppm(&o->value, val, SYMPHONY_PPM))
				return symphony_bad("tau", val, "a fraction 0..1");
			break;
		case TCA_SYMPHONY_K:
			if (symphony_get_ppm(&o->value, val, SYMPHONY_K_MAX_PPM))
				return symphony_bad("k", val, "a gain 0..100");
			break;
		case TCA_SYMPHONY_TWIN:
			if (get_time(&o->value, val) ||
			    o->value < SYMPHONY_TWIN_MIN_US ||
			    o->value > SYMPHONY_TWIN_MAX_US)
				return symphony_bad("twin", val, "a time 1us..10s");
			break;
		case TCA_SYMPHONY_WARMUP:
			if (get_u32(&o->value, val, 0) || o->value > (1U << 24))
				return symphony_bad("warmup", val, "0..16777216 PSNs");
			break;
		case TCA_SYMPHONY_SAMPLES:
			if (get_u32(&o->value, val, 0) || o->value == ~0U)
				return symphony_bad("samples", val, "a number of packets");
			break;
		case TCA_SYMPHONY_ALPHA_MAX:
			if (get_u32(&o->value, val, 0) || o->value < 1 ||
			    o->value > SYMPHONY_ALPHA_MAX_LIMIT)
				return symphony_bad("alpha_max", val, "1..65536");
			break;
		case TCA_SYMPHONY_JOBS:
			if (get_u32(&o->value, val, 0) ||
			    o->value < SYMPHONY_JOBS_MIN ||
			    o->value > SYMPHONY_JOBS_MAX)
				return symphony_bad("jobs", val, "1..16777216 slots");
			break;
		case TCA_SYMPHONY_NONECT:
			if (symphony_get_name(&u8v, val, symphony_nonect_names,
					      __SYMPHONY_NONECT_MAX))
				return symphony_bad("nonect", val, "drop or pass");
			o->value = u8v;
			o->len = 1;
			break;
		case TCA_SYMPHONY_MARKING:
			if (symphony_get_name(&u8v, val, symphony_marking_names,
					      __SYMPHONY_MARKING_MAX))
				return symphony_bad("marking", val, "red or symphony");
			o->value = u8v;
			o->len = 1;
			break;
		case TCA_SYMPHONY_JOB_FIELD:
		case TCA_SYMPHONY_STEP_FIELD:
			if (symphony_get_name(&u8v, val, symphony_field_names,
					      __SYMPHONY_FIELD_MAX))
				return symphony_bad(key, val,
						    "udp_sport, bth_rsvd or bth_destqp");
			o->value = u8v;
			o->len = 1;
			break;
		case TCA_SYMPHONY_JOBS_FD:
			if (strcmp(val, "none") == 0) {
				o->value = (__u32)-1;
				break;
			}
			/* tc sends the request before it exits: the fd lives
			 * until the kernel has taken its own reference.
			 */
			o->value = bpf_obj_get(val);
			if ((int)o->value < 0) {
				fprintf(stderr,
					"symphony: cannot open jobs map \"%s\": %s\n",
					val, strerror(errno));
				return -1;
			}
			break;
		}
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (i = 1; i <= TCA_SYMPHONY_MAX; i++) {
		__u8 u8v = opts[i].value;

		if (!opts[i].len)
			continue;
		if (opts[i].len == 1)
			addattr_l(n, TCA_BUF_MAX, i, &u8v, 1);
		else
			addattr_l(n, TCA_BUF_MAX, i, &opts[i].value, 4);
	}
	addattr_nest_end(n, tail);
	return 0;
}

static void symphony_print_ppm(const char *key, const char *json_key,
			       __u32 ppm)
{
	char text[32];

	snprintf(text, sizeof(text), "%s %u.%06u ", key, ppm / 1000000,
		 ppm % 1000000);
	print_string(PRINT_FP, NULL, "%s", text);
	print_uint(PRINT_JSON, json_key, NULL, ppm);
}

static __u32 symphony_attr_u32(struct rtattr *attr)
{
	return attr && RTA_PAYLOAD(attr) >= sizeof(__u32) ?
	       rta_getattr_u32(attr) : 0;
}

static __u8 symphony_attr_u8(struct rtattr *attr)
{
	return attr && RTA_PAYLOAD(attr) >= 1 ? *(__u8 *)RTA_DATA(attr) : 0;
}

static int symphony_print_opt(struct qdisc_util *qu, FILE *f,
			      struct rtattr *opt)
{
	struct rtattr *tb[TCA_SYMPHONY_MAX + 1];

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_SYMPHONY_MAX, opt);

	print_uint(PRINT_ANY, "limit_packets", "limit %up ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_LIMIT]));
	if (symphony_attr_u32(tb[TCA_SYMPHONY_LIMIT_BYTES]))
		print_uint(PRINT_ANY, "limit_bytes", "limit_bytes %ub ",
			   symphony_attr_u32(tb[TCA_SYMPHONY_LIMIT_BYTES]));
	print_uint(PRINT_ANY, "kmin_bytes", "kmin %ub ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_KMIN]));
	print_uint(PRINT_ANY, "kmax_bytes", "kmax %ub ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_KMAX]));
	symphony_print_ppm("pmax", "pmax_ppm",
			   symphony_attr_u32(tb[TCA_SYMPHONY_PMAX]));
	print_string(PRINT_ANY, "nonect", "nonect %s ",
		     symphony_name_of(symphony_nonect_names, __SYMPHONY_NONECT_MAX,
				   symphony_attr_u8(tb[TCA_SYMPHONY_NONECT])));
	print_string(PRINT_ANY, "marking", "marking %s ",
		     symphony_name_of(symphony_marking_names,
				   __SYMPHONY_MARKING_MAX,
				   symphony_attr_u8(tb[TCA_SYMPHONY_MARKING])));
	symphony_print_ppm("k", "k_ppm", symphony_attr_u32(tb[TCA_SYMPHONY_K]));
	symphony_print_ppm("tau", "tau_ppm",
			   symphony_attr_u32(tb[TCA_SYMPHONY_TAU]));
	print_uint(PRINT_ANY, "twin_us", "twin %uus ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_TWIN]));
	print_uint(PRINT_ANY, "warmup_psn", "warmup %u ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_WARMUP]));
	print_uint(PRINT_ANY, "samples_packets", "samples %u ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_SAMPLES]));
	print_uint(PRINT_ANY, "alpha_max", "alpha_max %u ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_ALPHA_MAX]));
	print_uint(PRINT_ANY, "qmin_bytes", "qmin %ub ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_QMIN]));
	print_string(PRINT_ANY, "job_field", "job_field %s ",
		     symphony_name_of(symphony_field_names, __SYMPHONY_FIELD_MAX,
				   symphony_attr_u8(tb[TCA_SYMPHONY_JOB_FIELD])));
	print_string(PRINT_ANY, "step_field", "step_field %s ",
		     symphony_name_of(symphony_field_names, __SYMPHONY_FIELD_MAX,
				   symphony_attr_u8(tb[TCA_SYMPHONY_STEP_FIELD])));
	print_uint(PRINT_ANY, "jobs", "jobs %u ",
		   symphony_attr_u32(tb[TCA_SYMPHONY_JOBS]));
	if (tb[TCA_SYMPHONY_JOBS_MAP_ID])
		print_uint(PRINT_ANY, "jobs_map_id", "jobs_map_id %u ",
			   symphony_attr_u32(tb[TCA_SYMPHONY_JOBS_MAP_ID]));
	return 0;
}

static int symphony_print_xstats(struct qdisc_util *qu, FILE *f,
				 struct rtattr *xstats)
{
	struct tc_symphony_xstats st = {};

	if (!xstats)
		return 0;

	/* Older modules may send a shorter struct: take what is there. */
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) :
						   sizeof(st));

	print_u64(PRINT_ANY, "dequeued_packets", "  dequeued %" PRIu64 "p",
		  st.packets);
	print_u64(PRINT_ANY, "dequeued_bytes", " %" PRIu64 "b", st.bytes);
	print_u64(PRINT_ANY, "collective_packets", " collective %" PRIu64 "p",
		  st.collective_packets);
	print_u64(PRINT_ANY, "outpacing_packets", " outpacing %" PRIu64 "p",
		  st.outpacing_packets);
	print_u64(PRINT_ANY, "unclassified_packets", " unclassified %" PRIu64 "p",
		  st.unclassified_packets);
	print_u64(PRINT_ANY, "malformed_packets", " malformed %" PRIu64 "p",
		  st.malformed_packets);
	print_nl();
	print_u64(PRINT_ANY, "red_marks", "  marks: red %" PRIu64 "p", st.red_marks);
	print_u64(PRINT_ANY, "symphony_marks", " symphony %" PRIu64 "p",
		  st.symphony_marks);
	print_uint(PRINT_ANY, "limit_drops", "  drops: limit %up",
		   st.limit_drops);
	print_uint(PRINT_ANY, "red_drops", " red %up", st.red_drops);
	print_uint(PRINT_ANY, "max_backlog_packets", "  max_backlog %up",
		   st.max_backlog_packets);
	print_uint(PRINT_ANY, "max_backlog_bytes", " %ub",
		   st.max_backlog_bytes);
	return 0;
}

struct qdisc_util symphony_qdisc_util = {
	.id		= "symphony",
	.parse_qopt	= symphony_parse_opt,
	.print_qopt	= symphony_print_opt,
	.print_xstats	= symphony_print_xstats,
};
