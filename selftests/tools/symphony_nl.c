// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_nl.c - selftest helper: configure a symphony qdisc with raw
 * netlink (libmnl), bypassing the tc plugin's own checks, so that the
 * kernel's validation can be tested.  Prints the kernel's extack message.
 *
 *	symphony_nl DEV add|change [--no-nested-flag] ATTR=VALUE...
 *	ATTR := limit | limit_bytes | kmin | kmax | pmax | nonect | marking |
 *		k | tau | twin | warmup | samples | alpha_max | job_field |
 *		step_field | jobs | jobs_fd | jobs_map_id | qmin | TYPE:u8 |
 *		TYPE:u32
 *
 * Exit: 0 accepted, 1 rejected by the kernel, 2 bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "../../include/uapi/linux/pkt_sched_symphony.h"

struct attr_name {
	const char	*name;
	int		type;
	int		width;		/* bytes: 1 or 4 */
};

static const struct attr_name attr_names[] = {
	{ "limit",	 TCA_SYMPHONY_LIMIT,	   4 },
	{ "limit_bytes", TCA_SYMPHONY_LIMIT_BYTES, 4 },
	{ "kmin",	 TCA_SYMPHONY_KMIN,	   4 },
	{ "kmax",	 TCA_SYMPHONY_KMAX,	   4 },
	{ "pmax",	 TCA_SYMPHONY_PMAX,	   4 },
	{ "nonect",	 TCA_SYMPHONY_NONECT,	   1 },
	{ "marking",	 TCA_SYMPHONY_MARKING,	   1 },
	{ "k",		 TCA_SYMPHONY_K,	   4 },
	{ "tau",	 TCA_SYMPHONY_TAU,	   4 },
	{ "twin",	 TCA_SYMPHONY_TWIN,	   4 },
	{ "warmup",	 TCA_SYMPHONY_WARMUP,	   4 },
	{ "samples",	 TCA_SYMPHONY_SAMPLES,	   4 },
	{ "alpha_max",	 TCA_SYMPHONY_ALPHA_MAX,   4 },
	{ "job_field",	 TCA_SYMPHONY_JOB_FIELD,   1 },
	{ "step_field",	 TCA_SYMPHONY_STEP_FIELD,  1 },
	{ "jobs",	 TCA_SYMPHONY_JOBS,	   4 },
	{ "jobs_fd",	 TCA_SYMPHONY_JOBS_FD,	   4 },
	{ "jobs_map_id", TCA_SYMPHONY_JOBS_MAP_ID, 4 },
	{ "qmin",	 TCA_SYMPHONY_QMIN,	   4 },
};

static int usage(void)
{
	fprintf(stderr,
		"Usage: symphony_nl DEV add|change [--no-nested-flag] ATTR=VALUE...\n");
	return 2;
}

/* ATTR=VALUE or TYPE:u8=VALUE / TYPE:u32=VALUE */
static int parse_attr(const char *arg, int *type, int *width, long long *value)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	size_t i, len;

	if (!eq || (len = eq - arg) >= sizeof(name))
		return -1;
	memcpy(name, arg, len);
	name[len] = '\0';
	*value = strtoll(eq + 1, NULL, 0);

	for (i = 0; i < sizeof(attr_names) / sizeof(attr_names[0]); i++) {
		if (!strcmp(name, attr_names[i].name)) {
			*type = attr_names[i].type;
			*width = attr_names[i].width;
			return 0;
		}
	}
	if (sscanf(name, "%d:u%d", type, width) == 2 &&
	    (*width == 8 || *width == 32)) {
		*width /= 8;
		return 0;
	}
	return -1;
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		*msg = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	bool nested_flag = true, create;
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;
	struct nlattr *opts;
	unsigned int ifindex;
	const char *msg = NULL;
	struct tcmsg *tcm;
	int one = 1, i, ret;
	ssize_t n;

	if (argc < 3)
		return usage();
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex) {
		fprintf(stderr, "symphony_nl: no interface '%s'\n", argv[1]);
		return 2;
	}
	if (!strcmp(argv[2], "add"))
		create = true;
	else if (!strcmp(argv[2], "change"))
		create = false;
	else
		return usage();

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWQDISC;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (create)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
	nlh->nlmsg_seq = time(NULL);
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = ifindex;
	tcm->tcm_parent = TC_H_ROOT;
	mnl_attr_put_strz(nlh, TCA_KIND, "symphony");

	i = 3;
	if (i < argc && !strcmp(argv[i], "--no-nested-flag")) {
		nested_flag = false;
		i++;
	}
	opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	if (!nested_flag)
		opts->nla_type &= ~NLA_F_NESTED;
	for (; i < argc; i++) {
		long long value;
		int type, width;

		if (parse_attr(argv[i], &type, &width, &value)) {
			fprintf(stderr, "symphony_nl: bad attribute '%s'\n",
				argv[i]);
			return usage();
		}
		if (width == 1)
			mnl_attr_put_u8(nlh, type, value);
		else
			mnl_attr_put_u32(nlh, type, (unsigned int)value);
	}
	mnl_attr_nest_end(nlh, opts);

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("symphony_nl: netlink");
		return 2;
	}
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("symphony_nl: send");
		return 2;
	}
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < (ssize_t)sizeof(*nlh)) {
		perror("symphony_nl: receive");
		return 2;
	}
	nlh = (struct nlmsghdr *)buf;
	if (nlh->nlmsg_type != NLMSG_ERROR) {
		fprintf(stderr, "symphony_nl: unexpected reply type %u\n",
			nlh->nlmsg_type);
		return 2;
	}
	err = mnl_nlmsg_get_payload(nlh);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, sizeof(*err), extack_attr_cb, &msg);
	ret = err->error ? 1 : 0;
	if (ret)
		printf("error %d (%s): %s\n", -err->error, strerror(-err->error),
		       msg ? msg : "(no message)");
	else
		printf("ok%s%s\n", msg ? ": " : "", msg ? msg : "");
	mnl_socket_close(nl);
	return ret;
}
