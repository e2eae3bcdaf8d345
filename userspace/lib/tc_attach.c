// SPDX-License-Identifier: GPL-2.0
/*
 * tc_attach.c - the agent's tc-BPF programs on a device's ingress or
 * egress: a pinned tcx link where the kernel has tcx (6.6 and later), a
 * clsact filter where it does not (tc_attach.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "tc_attach.h"

/* The programs a tcx hook runs: more than any port carries. */
#define TCX_QUERY_MAX	64

/*
 * struct bpf_link_info up to its tcx member, as Linux 6.6 lays it out
 * (the union after prog_id is 8-byte aligned); 6.1's uapi has no tcx.
 */
struct tcx_link_info {
	__u32	type;
	__u32	id;
	__u32	prog_id;
	__u32	pad;
	__u32	ifindex;
	__u32	attach_type;
};

const char *tc_hook_name(enum tc_hook_kind kind)
{
	switch (kind) {
	case TC_HOOK_CLSACT:
		return "clsact";
	case TC_HOOK_TCX:
		return "tcx";
	default:
		return "none";
	}
}

const char *tc_foreign_text(const struct tc_attach_info *info,
			    const char *dev, bool egress, char *buf,
			    size_t size)
{
	if (info->foreign_link_id)
		snprintf(buf, size,
			 "prog id %u, by tcx link id %u: 'bpftool -f link show id %u' names its pin",
			 info->foreign_prog_id, info->foreign_link_id,
			 info->foreign_link_id);
	else
		snprintf(buf, size,
			 "prog id %u, by a clsact filter: 'tc filter show dev %s %s' shows it",
			 info->foreign_prog_id, dev,
			 egress ? "egress" : "ingress");
	return buf;
}

static int libbpf_silent(enum libbpf_print_level level, const char *fmt,
			 va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static __u32 tcx_type(const struct tc_attach *t)
{
	return t->egress ? TCX_ATTACH_EGRESS : TCX_ATTACH_INGRESS;
}

/* The program's id and name (@name of BPF_OBJ_NAME_LEN bytes, or NULL). */
static int prog_id_name(int prog_fd, __u32 *id, char *name)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	*id = info.id;
	if (name)
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	return 0;
}

static bool prog_id_named(__u32 id, const char *name)
{
	char got[BPF_OBJ_NAME_LEN];
	__u32 got_id;
	int fd = bpf_prog_get_fd_by_id(id);
	bool same;

	if (fd < 0)
		return false;
	same = !prog_id_name(fd, &got_id, got) &&
	       !strncmp(got, name, BPF_OBJ_NAME_LEN);
	close(fd);
	return same;
}

static int link_info(int link_fd, struct tcx_link_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(link_fd, info, &len) ? -errno : 0;
}

/*
 * The link pinned at @t->link_pin if it is a tcx link on @t's hook: its
 * fd (and @info), -ENOENT without a pin, -ESTALE for a pin of a link
 * that serves no longer (its device was deleted) or another hook.
 */
static int open_link(const struct tc_attach *t, struct tcx_link_info *info)
{
	int fd;

	if (!t->link_pin)
		return -ENOENT;
	fd = bpf_obj_get(t->link_pin);
	if (fd < 0)
		return -errno;
	if (link_info(fd, info) || info->type != TCX_LINK_TYPE ||
	    info->ifindex != t->ifindex || info->attach_type != tcx_type(t)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

bool tcx_supported(__u32 ifindex, bool egress)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);

	/* Linux before 6.6 knows no such attach type: -EINVAL */
	return !bpf_prog_query_opts((int)ifindex,
				    egress ? TCX_ATTACH_EGRESS :
					     TCX_ATTACH_INGRESS, &q) ||
	       errno != EINVAL;
}

/* The tcx link that runs @prog_id on @t's hook, found among all links. */
static __u32 find_tcx_link(const struct tc_attach *t, __u32 prog_id)
{
	struct tcx_link_info info;
	__u32 id = 0;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		if (!link_info(fd, &info) && info.type == TCX_LINK_TYPE &&
		    info.ifindex == t->ifindex &&
		    info.attach_type == tcx_type(t) && info.prog_id == prog_id) {
			close(fd);
			return id;
		}
		close(fd);
	}
	return 0;
}

enum clsact_op { CLSACT_QUERY, CLSACT_DETACH, CLSACT_ATTACH };

/*
 * One libbpf call on our clsact filter (the hook's qdisc made first for
 * CLSACT_ATTACH); libbpf's messages kept only for the attach, whose
 * kernel message says why it failed.  0 or -errno; @prog_id for a query.
 */
static int clsact_call(const struct tc_attach *t, enum clsact_op op,
		       int prog_fd, __u32 *prog_id)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
			    .attach_point = t->egress ? BPF_TC_EGRESS :
							BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = t->handle,
			    .priority = t->priority);
	libbpf_print_fn_t old = libbpf_set_print(libbpf_silent);
	int err;

	switch (op) {
	case CLSACT_QUERY:
		err = bpf_tc_query(&hook, &opts);
		*prog_id = err ? 0 : opts.prog_id;
		break;
	case CLSACT_DETACH:
		err = bpf_tc_detach(&hook, &opts);
		break;
	default:
		err = bpf_tc_hook_create(&hook);
		if (err && err != -EEXIST)
			break;
		libbpf_set_print(old);
		opts.prog_fd = prog_fd;
		opts.flags = BPF_TC_F_REPLACE;
		return bpf_tc_attach(&hook, &opts);
	}
	libbpf_set_print(old);
	return err;
}

/* The program of our clsact filter: its id, or 0 if there is none. */
static __u32 clsact_prog(const struct tc_attach *t)
{
	__u32 id;

	clsact_call(t, CLSACT_QUERY, -1, &id);
	return id;
}

static int clsact_detach(const struct tc_attach *t)
{
	int err = clsact_call(t, CLSACT_DETACH, -1, NULL);

	/* no clsact qdisc, no filter, no device: nothing of ours there */
	if (err == -EINVAL || err == -ENODEV)
		err = -ENOENT;
	return err;
}

/* Another agent's program of @t->prog_name on the hook: its id, or 0. */
static __u32 foreign_prog(const struct tc_attach *t, __u32 new_id,
			  __u32 link_prog_id, bool tcx, __u32 *foreign_link)
{
	LIBBPF_OPTS(bpf_prog_query_opts, q);
	__u32 ids[TCX_QUERY_MAX], i, id;

	*foreign_link = 0;
	id = clsact_prog(t);
	if (id && id != new_id && id != t->own_prog_id &&
	    prog_id_named(id, t->prog_name))
		return id;
	if (!tcx)
		return 0;
	q.prog_ids = ids;
	q.prog_cnt = TCX_QUERY_MAX;
	if (bpf_prog_query_opts((int)t->ifindex, tcx_type(t), &q))
		return 0;
	for (i = 0; i < q.prog_cnt && i < TCX_QUERY_MAX; i++) {
		if (ids[i] == link_prog_id || ids[i] == new_id ||
		    !prog_id_named(ids[i], t->prog_name))
			continue;
		*foreign_link = find_tcx_link(t, ids[i]);
		return ids[i];
	}
	return 0;
}

/*
 * Pin @link_fd at @path, over a stale pin there: straight at its name, so
 * that until the one call that pins it the link dies with this process.
 */
static int pin_link(int link_fd, const char *path)
{
	unlink(path);
	return bpf_obj_pin(link_fd, path) ? -errno : 0;
}

/*
 * Attach by tcx: update @link_fd, the link of @t's pin that open_link()
 * opened (and closes here), or without one (-errno) make a new link.
 */
static int tcx_attach(const struct tc_attach *t, int prog_fd, __u32 new_id,
		      int link_fd, struct tcx_link_info li,
		      struct tc_attach_info *info)
{
	int err;

	if (link_fd >= 0) {
		if (li.prog_id != new_id &&
		    bpf_link_update(link_fd, prog_fd, NULL)) {
			err = -errno;
			close(link_fd);
			return err;
		}
	} else {
		link_fd = bpf_link_create(prog_fd, (int)t->ifindex,
					  tcx_type(t), NULL);
		if (link_fd < 0)
			return -errno;
		/* until pinned, the link dies with this process */
		err = t->defer_pin ? 0 : pin_link(link_fd, t->link_pin);
		if (err || link_info(link_fd, &li)) {
			close(link_fd);
			return err ? err : -errno;
		}
		if (t->defer_pin) {
			info->link_fd = link_fd;
			link_fd = -1;
		}
	}
	info->kind = TC_HOOK_TCX;
	info->link_id = li.id;
	info->prog_id = new_id;
	if (link_fd >= 0)
		close(link_fd);
	/* a filter of ours from before tcx would run the program twice
	 * (a deferred link takes over from it when pinned)
	 */
	if (info->link_fd < 0)
		clsact_detach(t);
	return 0;
}

int tc_attach_prog(const struct tc_attach *t, int prog_fd,
		   struct tc_attach_info *info)
{
	struct tcx_link_info li;
	__u32 new_id, link_prog = 0;
	bool tcx = tcx_supported(t->ifindex, t->egress);
	int err, fd;

	memset(info, 0, sizeof(*info));
	info->link_fd = -1;
	err = prog_id_name(prog_fd, &new_id, NULL);
	if (err)
		return err;
	fd = open_link(t, &li);
	if (fd >= 0)
		link_prog = li.prog_id;
	info->foreign_prog_id = foreign_prog(t, new_id, link_prog, tcx,
					     &info->foreign_link_id);
	if (!info->foreign_prog_id && tcx && !t->force_clsact)
		return tcx_attach(t, prog_fd, new_id, fd, li, info);
	err = info->foreign_prog_id ? -EBUSY :
	      clsact_call(t, CLSACT_ATTACH, prog_fd, NULL);
	if (fd >= 0)
		close(fd);
	if (err)
		return err;
	info->kind = TC_HOOK_CLSACT;
	info->prog_id = new_id;
	/* the other way: a link of ours would run the program twice */
	if (fd >= 0 || fd == -ESTALE)
		tc_detach_link(t);
	return 0;
}

int tc_attach_commit(const struct tc_attach *t, struct tc_attach_info *info)
{
	int err;

	if (info->link_fd < 0)
		return 0;
	err = pin_link(info->link_fd, t->link_pin);
	tc_attach_abort(info);
	if (!err)
		clsact_detach(t);
	return err;
}

void tc_attach_abort(struct tc_attach_info *info)
{
	if (info->link_fd >= 0)
		close(info->link_fd);
	info->link_fd = -1;
}

/* Detach and unpin the link pinned at @path: 0, or -ENOENT. */
static int unpin_link(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		return -ENOENT;
	/* even if another process holds the link (a bpftool at work) */
	bpf_link_detach(fd);
	close(fd);
	return unlink(path) ? -errno : 0;
}

int tc_detach_link(const struct tc_attach *t)
{
	return t->link_pin ? unpin_link(t->link_pin) : -ENOENT;
}

int tc_unpin_links(const char *dir, const char *prefix)
{
	const size_t len = strlen(prefix);
	char path[BPFFS_DIR_MAX + 64];
	struct dirent *de;
	int removed = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, len))
			continue;
		pin_path(path, sizeof(path), dir, de->d_name);
		removed += !unpin_link(path);
	}
	if (d)
		closedir(d);
	return removed;
}

__u32 tc_pinned_prog_id(const char *path)
{
	int fd = bpf_obj_get(path);
	__u32 id = 0;

	if (fd < 0)
		return 0;
	prog_id_name(fd, &id, NULL);
	close(fd);
	return id;
}

int tc_detach_prog(const struct tc_attach *t)
{
	int link = tc_detach_link(t);
	int filter = clsact_detach(t);

	if (!link || !filter)
		return 0;
	return link != -ENOENT ? link : filter;
}

void tc_attach_query(const struct tc_attach *t, struct tc_attach_info *info)
{
	struct tcx_link_info li;
	int fd = open_link(t, &li);

	memset(info, 0, sizeof(*info));
	info->link_fd = -1;
	if (fd >= 0) {
		close(fd);
		info->kind = TC_HOOK_TCX;
		info->link_id = li.id;
		info->prog_id = li.prog_id;
		return;
	}
	info->prog_id = clsact_prog(t);
	if (info->prog_id)
		info->kind = TC_HOOK_CLSACT;
}
