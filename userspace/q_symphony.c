// SPDX-License-Identifier: GPL-2.0
/*
 * q_symphony.c - iproute2 tc plugin for the symphony qdisc:
 *
 *	tc qdisc add dev DEV root symphony [ limit PACKETS ]
 *
 * Built as q_symphony.so; tc loads it from its library folder (or from
 * $TC_LIB_DIR) and looks up symphony_qdisc_util.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "tc_iproute2.h"
#include "../include/uapi/linux/pkt_sched_symphony.h"

static void symphony_explain(FILE *f)
{
	fprintf(f,
		"Usage: ... symphony [ limit PACKETS ]\n"
		"  limit PACKETS   queue limit in packets, %u..%u (default %u)\n",
		SYMPHONY_LIMIT_MIN_PACKETS, SYMPHONY_LIMIT_MAX_PACKETS,
		SYMPHONY_LIMIT_DEFAULT_PACKETS);
}

static int symphony_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	bool have_limit = false;
	__u32 limit = 0;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(*argv, "limit") == 0) {
			if (argc < 2) {
				fprintf(stderr, "symphony: \"limit\" needs a number of packets\n");
				return -1;
			}
			argc--, argv++;
			if (get_u32(&limit, *argv, 0) ||
			    limit < SYMPHONY_LIMIT_MIN_PACKETS ||
			    limit > SYMPHONY_LIMIT_MAX_PACKETS) {
				fprintf(stderr,
					"symphony: illegal limit \"%s\": want %u..%u packets\n",
					*argv, SYMPHONY_LIMIT_MIN_PACKETS,
					SYMPHONY_LIMIT_MAX_PACKETS);
				return -1;
			}
			have_limit = true;
		} else if (strcmp(*argv, "help") == 0) {
			symphony_explain(stderr);
			return -1;
		} else {
			fprintf(stderr, "symphony: unknown option \"%s\"\n",
				*argv);
			symphony_explain(stderr);
			return -1;
		}
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (have_limit)
		addattr_l(n, TCA_BUF_MAX, TCA_SYMPHONY_LIMIT, &limit,
			  sizeof(limit));
	addattr_nest_end(n, tail);
	return 0;
}

static int symphony_print_opt(struct qdisc_util *qu, FILE *f,
			      struct rtattr *opt)
{
	struct rtattr *tb[TCA_SYMPHONY_MAX + 1];

	if (!opt)
		return 0;

	parse_rtattr_nested(tb, TCA_SYMPHONY_MAX, opt);

	if (tb[TCA_SYMPHONY_LIMIT] &&
	    RTA_PAYLOAD(tb[TCA_SYMPHONY_LIMIT]) >= sizeof(__u32))
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_SYMPHONY_LIMIT]));
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

	print_uint(PRINT_ANY, "limit_drops", "  limit_drops %u",
		   st.limit_drops);
	print_uint(PRINT_ANY, "max_backlog_packets",
		   " max_backlog %up", st.max_backlog_packets);
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
