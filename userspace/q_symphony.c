// SPDX-License-Identifier: GPL-2.0
/*
 * q_symphony.c - iproute2 tc plugin for the symphony qdisc.  Its options,
 * their ranges, help and printing come from the parameter table
 * (include/symphony/symphony_params.h).  Built as q_symphony.so; tc loads
 * it from its library folder (or $TC_LIB_DIR) and looks up
 * symphony_qdisc_util.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>

#include "tc_iproute2.h"
#include "bpffs.h"
#include "symphony_param.h"
#include "symphony/symphony_map.h"
#include "symphony/symphony_names.h"

/* for the messages of userspace/lib */
const char *tool_name = "symphony";

/* What a value of @p may be, in the user's words. */
static void symphony_want(const struct symphony_param *p, char *buf,
			  size_t len)
{
	char range[160];

	symphony_param_range_text(p, 0, range, sizeof(range));
	snprintf(buf, len, "%s%s",
		 p->kind == SYMPHONY_KIND_BYTES ? "a size such as 50kb, " :
		 p->kind == SYMPHONY_KIND_US ? "a time such as 100us or 1ms, " :
		 "", range);
}

static void symphony_explain(FILE *f)
{
	char range[160], dflt[32], synopsis[40];
	int i;

	fprintf(f, "Usage: ... symphony [ PARAMETER VALUE ]... [ jobs_map PATH|none ]\n");
	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *p = &symphony_params[i];

		symphony_param_range_text(p, 0, range, sizeof(range));
		symphony_param_value_text(p, p->dflt, dflt, sizeof(dflt));
		snprintf(synopsis, sizeof(synopsis), "%s %s", p->keyword,
			 symphony_param_metavar(p->kind));
		fprintf(f, "  %-20s %s\n  %-20s %s (default %s)\n", synopsis,
			p->help, "", range, dflt);
	}
	fprintf(f,
		"  jobs_map PATH        keep job state in this pinned BPF array map\n"
		"                       (symofan job init); none: back to the own table\n"
		"BYTES are tc sizes (50kb), TIME tc times (100us, 1ms), DECIMAL a\n"
		"decimal fraction (0.25), NAME one of the names listed.\n");
}

static int symphony_bad(const char *what, const char *value, const char *want)
{
	fprintf(stderr, "symphony: illegal %s \"%s\": want %s\n", what, value,
		want);
	return -1;
}

/* Read @val as a value of @p into @out: tc's own size and time readers
 * for those kinds, the parameter table's for the others.
 */
static int symphony_get_value(const struct symphony_param *p, const char *val,
			      __u32 *out)
{
	switch (p->kind) {
	case SYMPHONY_KIND_BYTES:
		return get_size(out, val) || symphony_param_in_range(p, *out);
	case SYMPHONY_KIND_US:
		return get_time(out, val) || symphony_param_in_range(p, *out);
	default:
		return symphony_param_parse(p, val, 0, out);
	}
}

/*
 * A jobs map in a job registry's folder (symofan job init) serves one
 * datapath (symphony_map.h): refuse one Symphony's tc-BPF program uses,
 * whose job locks are not the module's, and record the qdiscs as its
 * owner otherwise.  0, or -1 after saying why.  A map outside a registry
 * (made by another tool) is the user's to share.
 */
static int symphony_claim_jobs(const char *path, int jobs_fd)
{
	struct symphony_jobs_meta meta;
	char dir[256], meta_path[300], *slash;
	int meta_fd, dir_fd, ret = 0;
	__u32 zero = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	snprintf(meta_path, sizeof(meta_path), "%s/job_meta", dir);
	meta_fd = bpf_obj_get(meta_path);
	if (meta_fd < 0)
		return 0;
	/* the registry's lock, as symofan takes it */
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0)
		flock(dir_fd, LOCK_EX);
	if (bpf_map_lookup_elem(meta_fd, &zero, &meta) ||
	    meta.magic != SYMPHONY_JOBS_META_MAGIC)
		goto out;
	if (meta.owner == SYMPHONY_JOBS_OWNER_BPF && map_used_by_prog(jobs_fd)) {
		fprintf(stderr,
			"symphony: jobs map \"%s\" serves Symphony's tc-BPF program (symofan symphony attach): the program locks a job's updates on %s/job_locks, the qdisc in the module, so one job would be updated under two locks and lose updates; give the qdisc a registry of its own (symofan job init --pin-dir DIR)\n",
			path, dir);
		ret = -1;
		goto out;
	}
	if (meta.owner != SYMPHONY_JOBS_OWNER_QDISC) {
		meta.owner = SYMPHONY_JOBS_OWNER_QDISC;
		if (bpf_map_update_elem(meta_fd, &zero, &meta, BPF_EXIST)) {
			fprintf(stderr, "symphony: cannot record the qdisc as the owner of %s: %s\n",
				meta_path, strerror(errno));
			ret = -1;
		}
	}
out:
	if (dir_fd >= 0)
		close(dir_fd);
	close(meta_fd);
	return ret;
}

/* The jobs map's fd for jobs_map PATH, or -1 for none; -2 on error. */
static int symphony_get_jobs_fd(const char *val)
{
	int fd;

	if (strcmp(val, "none") == 0)
		return -1;
	/* tc sends the request before it exits: the fd lives until the
	 * kernel has taken its own reference.
	 */
	fd = bpf_obj_get(val);
	if (fd < 0) {
		fprintf(stderr, "symphony: cannot open jobs map \"%s\": %s\n",
			val, strerror(errno));
		return -2;
	}
	if (symphony_claim_jobs(val, fd)) {
		close(fd);
		return -2;
	}
	return fd;
}

struct symphony_opt {
	__u32	value;
	int	len;		/* 0 (not given), 1 (u8) or 4 (u32/s32) */
};

static int symphony_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	struct symphony_opt opts[TCA_SYMPHONY_MAX + 1] = {};
	struct rtattr *tail;
	char want[192];
	int i;

	for (; argc > 0; argc--, argv++) {
		const struct symphony_param *p;
		const char *key = *argv, *val;
		struct symphony_opt *o;
		int type;

		if (strcmp(key, "help") == 0) {
			symphony_explain(stderr);
			return -1;
		}
		p = symphony_param_by_keyword(key);
		if (p)
			type = p->attr;
		else if (strcmp(key, "jobs_map") == 0)
			type = TCA_SYMPHONY_JOBS_FD;
		else {
			fprintf(stderr, "symphony: unknown option \"%s\"\n", key);
			symphony_explain(stderr);
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "symphony: \"%s\" needs a value\n", key);
			return -1;
		}
		argc--, argv++;
		val = *argv;

		o = &opts[type];
		if (o->len) {
			fprintf(stderr, "symphony: \"%s\" given twice\n", key);
			return -1;
		}
		if (!p) {
			int fd = symphony_get_jobs_fd(val);

			if (fd == -2)
				return -1;
			o->value = fd;
			o->len = sizeof(__u32);
			continue;
		}
		if (symphony_get_value(p, val, &o->value)) {
			symphony_want(p, want, sizeof(want));
			return symphony_bad(key, val, want);
		}
		o->len = p->kind == SYMPHONY_KIND_ENUM ? 1 : sizeof(__u32);
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

static __u32 symphony_attr_value(struct rtattr *attr, int len)
{
	if (!attr || RTA_PAYLOAD(attr) < (unsigned int)len)
		return 0;
	return len == 1 ? *(__u8 *)RTA_DATA(attr) : rta_getattr_u32(attr);
}

/* One parameter as tc shows it: "kmin 50000b", "pmax 0.200000". */
static void symphony_print_param(const struct symphony_param *p, __u32 value)
{
	static const char *const suffix[] = {
		[SYMPHONY_KIND_PACKETS]	= "p",
		[SYMPHONY_KIND_BYTES]	= "b",
		[SYMPHONY_KIND_US]	= "us",
	};
	char text[96];

	switch (p->kind) {
	case SYMPHONY_KIND_ENUM:
		snprintf(text, sizeof(text), "%s %%s ", p->keyword);
		print_string(PRINT_ANY, p->json_key, text,
			     symphony_name_of(p->names, p->nr_names, value));
		break;
	case SYMPHONY_KIND_PPM:
		snprintf(text, sizeof(text), "%s %u.%06u ", p->keyword,
			 value / SYMPHONY_PPM, value % SYMPHONY_PPM);
		print_string(PRINT_FP, NULL, "%s", text);
		print_uint(PRINT_JSON, p->json_key, NULL, value);
		break;
	default:
		snprintf(text, sizeof(text), "%s %%u%s ", p->keyword,
			 suffix[p->kind] ?: "");
		print_uint(PRINT_ANY, p->json_key, text, value);
		break;
	}
}

static int symphony_print_opt(struct qdisc_util *qu, FILE *f,
			      struct rtattr *opt)
{
	struct rtattr *tb[TCA_SYMPHONY_MAX + 1];
	int i;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_SYMPHONY_MAX, opt);

	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *p = &symphony_params[i];
		__u32 value = symphony_attr_value(tb[p->attr],
			p->kind == SYMPHONY_KIND_ENUM ? 1 : sizeof(__u32));

		if (!value && (p->flags & SYMPHONY_PARAM_HIDE_ZERO))
			continue;
		symphony_print_param(p, value);
	}
	if (tb[TCA_SYMPHONY_JOBS_MAP_ID])
		print_uint(PRINT_ANY, "jobs_map_id", "jobs_map_id %u ",
			   symphony_attr_value(tb[TCA_SYMPHONY_JOBS_MAP_ID],
					       sizeof(__u32)));
	return 0;
}

static int symphony_print_xstats(struct qdisc_util *qu, FILE *f,
				 struct rtattr *xstats)
{
	struct tc_symphony_xstats st = {};
	int i;

	if (!xstats)
		return 0;

	/* Older modules may send a shorter struct: take what is there. */
	memcpy(&st, RTA_DATA(xstats),
	       RTA_PAYLOAD(xstats) < sizeof(st) ? RTA_PAYLOAD(xstats) :
						   sizeof(st));

	for (i = 0; i < symphony_xstats_nr; i++) {
		const struct symphony_xstat *x = &symphony_xstats[i];

		if (x->new_line)
			print_nl();
		print_u64(PRINT_ANY, x->json_key, x->format,
			  symphony_xstat_value(x, &st));
	}
	return 0;
}

struct qdisc_util symphony_qdisc_util = {
	.id		= "symphony",
	.parse_qopt	= symphony_parse_opt,
	.print_qopt	= symphony_print_opt,
	.print_xstats	= symphony_print_xstats,
};
