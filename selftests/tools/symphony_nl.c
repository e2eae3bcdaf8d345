// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_nl.c - selftest helper: configure a symphony qdisc with raw
 * netlink (libmnl), bypassing the tc plugin's own checks, so that the
 * kernel's validation can be tested.  Prints the kernel's extack message
 * and, when the kernel reports it, the policy of the refused attribute.
 *
 *	symphony_nl [-n NETNS] [--fail-nth N] DEV add|change [--no-nested-flag]
 *		    ATTR=VALUE...
 *	ATTR := limit | limit_bytes | kmin | kmax | pmax | nonect | marking |
 *		k | tau | twin | warmup | samples | alpha_max | job_field |
 *		step_field | jobs | jobs_fd | jobs_map_id | qmin | TYPE:u8 |
 *		TYPE:u32 | jobs_map=PATH[:ro|:wo]
 *	jobs_map opens the pinned map at PATH (read-only or write-only with
 *	:ro or :wo) and passes its fd as jobs_fd.
 *
 *	-n NETNS works in the named network namespace (/run/netns/NETNS), as
 *	ip -n and tc -n do: one process where ip netns exec would make two.
 *
 *	--fail-nth N makes the N-th fault-injectable allocation of the request
 *	fail (CONFIG_FAULT_INJECTION: /proc/thread-self/fail-nth, armed just
 *	before the request is sent) and prints "fail-nth: injected" or, when
 *	the request made fewer than N allocations, "fail-nth: not reached".
 *
 *	symphony_nl --mkmap-spinlock PATH
 *	creates and pins at PATH an array map whose value has the size of
 *	struct symphony_job but starts with a bpf_spin_lock (in its BTF).
 *
 * Exit: 0 accepted, 1 rejected by the kernel, 2 bad usage.
 */
#define _GNU_SOURCE		/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "symphony/symphony_map.h"
#include "symphony/symphony_params.h"

struct attr_name {
	const char	*name;
	int		type;
	int		width;		/* bytes: 1 or 4 */
};

/* The parameters' attributes by keyword, from the parameter table. */
#define ATTR_NAME(id, kw, json, kind, unit, min, max, dflt, flags,	\
		  names, help)						\
	{ kw, TCA_SYMPHONY_##id,					\
	  SYMPHONY_KIND_##kind == SYMPHONY_KIND_ENUM ? 1 : 4 },
static const struct attr_name attr_names[] = {
	SYMPHONY_PARAMS(ATTR_NAME)
	{ "jobs_fd",	 TCA_SYMPHONY_JOBS_FD,	   4 },
	{ "jobs_map_id", TCA_SYMPHONY_JOBS_MAP_ID, 4 },
};

static int usage(void)
{
	fprintf(stderr,
		"Usage: symphony_nl [-n NETNS] [--fail-nth N] DEV add|change [--no-nested-flag] ATTR=VALUE...\n"
		"       symphony_nl --mkmap-spinlock PATH\n");
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

/* jobs_map=PATH[:ro|:wo]: the pinned map's fd, opened as asked. */
static int open_jobs_map(const char *arg)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts);
	char path[4096];
	const char *colon = strrchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	int fd;

	if (len >= sizeof(path))
		return -1;
	memcpy(path, arg, len);
	path[len] = '\0';
	if (colon && !strcmp(colon, ":ro"))
		opts.file_flags = BPF_F_RDONLY;
	else if (colon && !strcmp(colon, ":wo"))
		opts.file_flags = BPF_F_WRONLY;
	else if (colon)
		return -1;
	fd = bpf_obj_get_opts(path, &opts);
	if (fd < 0)
		fprintf(stderr, "symphony_nl: cannot open map %s: %s\n", path,
			strerror(errno));
	return fd;
}

/*
 * An array map of struct symphony_job's size whose value, per its BTF,
 * starts with a bpf_spin_lock: the kernel manages that field.
 */
static int make_spinlock_map(const char *pin)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int int_id, lock_id, pad_id, val_id, btf_fd, fd;
	struct btf *btf = btf__new_empty();

	if (!btf)
		return 2;
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	lock_id = btf__add_struct(btf, "bpf_spin_lock", 4);
	btf__add_field(btf, "val", int_id, 0, 0);
	pad_id = btf__add_array(btf, int_id, int_id,
				(sizeof(struct symphony_job) - 4) / 4);
	val_id = btf__add_struct(btf, "symphony_job_locked",
				 sizeof(struct symphony_job));
	btf__add_field(btf, "lock", lock_id, 0, 0);
	btf__add_field(btf, "pad", pad_id, 32, 0);
	if (val_id < 0 || btf__load_into_kernel(btf)) {
		fprintf(stderr, "symphony_nl: cannot load the BTF\n");
		return 2;
	}
	btf_fd = btf__fd(btf);
	opts.btf_fd = btf_fd;
	opts.btf_key_type_id = int_id;
	opts.btf_value_type_id = val_id;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "locked_jobs", 4,
			    sizeof(struct symphony_job), 16, &opts);
	if (fd < 0 || bpf_obj_pin(fd, pin)) {
		fprintf(stderr, "symphony_nl: cannot create and pin %s: %s\n",
			pin, strerror(errno));
		return 2;
	}
	btf__free(btf);
	return 0;
}

/* Arm (@n > 0) or read back and disarm (@n == 0) this thread's fail-nth. */
static int fail_nth(unsigned int n, bool *injected)
{
	const char *path = "/proc/thread-self/fail-nth";
	char buf[16];
	ssize_t len;
	int fd;

	fd = open(path, n ? O_WRONLY : O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "symphony_nl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!n) {
		len = read(fd, buf, sizeof(buf) - 1);
		buf[len > 0 ? len : 0] = '\0';
		*injected = strtoul(buf, NULL, 10) == 0;
	}
	len = snprintf(buf, sizeof(buf), "%u", n);
	if (write(fd, buf, len) != len && n) {
		fprintf(stderr, "symphony_nl: %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

struct extack {
	const char	*msg;
	const struct nlattr *policy;
};

static int policy_attr_cb(const struct nlattr *attr, void *data)
{
	(void)data;
	switch (mnl_attr_get_type(attr)) {
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		printf(" min=%llu", (unsigned long long)mnl_attr_get_u64(attr));
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		printf(" max=%llu", (unsigned long long)mnl_attr_get_u64(attr));
		break;
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
		printf(" min=%lld", (long long)mnl_attr_get_u64(attr));
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
		printf(" max=%lld", (long long)mnl_attr_get_u64(attr));
		break;
	}
	return MNL_CB_OK;
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct extack *ext = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		ext->msg = mnl_attr_get_str(attr);
	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_POLICY)
		ext->policy = attr;
	return MNL_CB_OK;
}

/* Move this process into the network namespace pinned at /run/netns/NAME. */
static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	if (snprintf(path, sizeof(path), "/run/netns/%s", name) >=
	    (int)sizeof(path) || strchr(name, '/')) {
		fprintf(stderr, "symphony_nl: bad network namespace name '%s'\n",
			name);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "symphony_nl: %s: %s\n", path, strerror(errno));
		return -1;
	}
	err = setns(fd, CLONE_NEWNET);
	if (err)
		fprintf(stderr, "symphony_nl: cannot enter %s: %s\n", path,
			strerror(errno));
	close(fd);
	return err;
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
	struct extack ext = {};
	unsigned int nth = 0;
	bool injected = false;
	struct tcmsg *tcm;
	int one = 1, i, ret;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--mkmap-spinlock"))
		return make_spinlock_map(argv[2]);
	if (argc > 3 && !strcmp(argv[1], "-n")) {
		if (enter_netns(argv[2]))
			return 2;
		argv += 2;
		argc -= 2;
	}
	if (argc > 3 && !strcmp(argv[1], "--fail-nth")) {
		nth = strtoul(argv[2], NULL, 10);
		if (!nth)
			return usage();
		argv += 2;
		argc -= 2;
	}
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

		if (!strncmp(argv[i], "jobs_map=", 9)) {
			value = open_jobs_map(argv[i] + 9);
			if (value < 0)
				return 2;
			mnl_attr_put_u32(nlh, TCA_SYMPHONY_JOBS_FD, value);
			continue;
		}
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
	/* A kernel that fails to allocate the ack (fault injection) sends
	 * none: give up after 10 s rather than wait for ever.
	 */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO,
		   &(struct timeval){ .tv_sec = 10 }, sizeof(struct timeval));
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (nth && fail_nth(nth, NULL))
		return 2;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		if (nth && !fail_nth(0, &injected))
			printf("fail-nth: %s\n", injected ? "injected" : "not reached");
		perror("symphony_nl: send");
		return 2;
	}
	if (nth && !fail_nth(0, &injected))
		printf("fail-nth: %s\n", injected ? "injected" : "not reached");
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
		mnl_attr_parse(nlh, sizeof(*err), extack_attr_cb, &ext);
	ret = err->error ? 1 : 0;
	if (ret)
		printf("error %d (%s): %s\n", -err->error, strerror(-err->error),
		       ext.msg ? ext.msg : "(no message)");
	else
		printf("ok%s%s\n", ext.msg ? ": " : "", ext.msg ? ext.msg : "");
	if (ext.policy) {
		printf("policy:");
		mnl_attr_parse_nested(ext.policy, policy_attr_cb, NULL);
		printf("\n");
	}
	mnl_socket_close(nl);
	return ret;
}
