/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_attach.h - attach the agent's tc-BPF programs (Ofan on ingress,
 * Symphony on egress) to a device: by a tcx link (Linux 6.6 and later)
 * pinned beside the program's maps, or, on a kernel without tcx, by a
 * filter on the device's clsact qdisc.
 *
 * A tcx link lives as long as a file descriptor or a pin holds it: an
 * agent killed before it pinned the link leaves the port as it was, and
 * removing the pin detaches.  Debian 12's libbpf (1.1) predates tcx, so
 * the link is made with the raw bpf_link_create() and the attach types of
 * Linux 6.6's uapi, defined below under names of our own.
 */
#ifndef SYMOFAN_LIB_TC_ATTACH_H
#define SYMOFAN_LIB_TC_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* enum bpf_attach_type and enum bpf_link_type of Linux 6.6 */
#define TCX_ATTACH_INGRESS	46	/* BPF_TCX_INGRESS */
#define TCX_ATTACH_EGRESS	47	/* BPF_TCX_EGRESS */
#define TCX_LINK_TYPE		11	/* BPF_LINK_TYPE_TCX */

enum tc_hook_kind {
	TC_HOOK_NONE,
	TC_HOOK_CLSACT,		/* a filter on the clsact qdisc */
	TC_HOOK_TCX,		/* a tcx link */
};

/* Which hook, in bpftool's and the docs' words: "clsact", "tcx", "none". */
const char *tc_hook_name(enum tc_hook_kind kind);

/* Where a program goes, and how its owner recognises its own. */
struct tc_attach {
	__u32		ifindex;
	bool		egress;		/* else ingress */
	__u32		handle;		/* the clsact filter's handle ... */
	__u32		priority;	/* ... and priority */
	const char	*link_pin;	/* path of the tcx link's pin */
	/* A program of this name on the hook, reached by neither the pin
	 * nor the clsact filter of @own_prog_id, is another agent's.
	 */
	const char	*prog_name;
	__u32		own_prog_id;	/* the owner's program before this
					 * attach, 0 if none
					 */
	bool		force_clsact;	/* the clsact filter even with tcx */
	/* a new link is left unpinned in tc_attach_info's link_fd until
	 * tc_attach_commit(), so that several ports attach all or none
	 */
	bool		defer_pin;
};

/* What an attach did, or what runs on the hook. */
struct tc_attach_info {
	enum tc_hook_kind	kind;
	__u32			link_id;	/* tcx: the link's id */
	__u32			prog_id;	/* the program's id */
	__u32			foreign_prog_id; /* -EBUSY: the other's */
	__u32			foreign_link_id; /* ... and its link, if any */
	int			link_fd;	/* defer_pin: the new link, or -1 */
};

/*
 * The other agent's program of an -EBUSY, for an error message: where it
 * is and the command that names its pin folder.
 */
const char *tc_foreign_text(const struct tc_attach_info *info,
			    const char *dev, bool egress, char *buf,
			    size_t size);

/* Whether the kernel has tcx hooks (probed on @ifindex's hook). */
bool tcx_supported(__u32 ifindex, bool egress);

/*
 * Attach @prog_fd: with tcx, the link pinned at @t->link_pin is updated
 * to the program, or a new link is made and pinned there (a clsact filter
 * of ours on the same hook, left by a kernel or agent without tcx, is
 * then removed); without it, the clsact filter at @t->handle and
 * @t->priority is replaced.  0 and @info filled, -EBUSY with @info's
 * foreign ids when another agent's program of the same name is on the
 * hook (nothing changed), or another -errno (nothing changed).
 */
int tc_attach_prog(const struct tc_attach *t, int prog_fd,
		   struct tc_attach_info *info);

/*
 * Pin the link that tc_attach_prog() left in @info->link_fd (nothing to
 * do without one), then close it: 0 or -errno (the link is then gone).
 */
int tc_attach_commit(const struct tc_attach *t, struct tc_attach_info *info);

/* Drop a link left unpinned: the port is detached again. */
void tc_attach_abort(struct tc_attach_info *info);

/*
 * Detach what tc_attach_prog() attached: the link pinned at @t->link_pin
 * (detached even if some other process holds it, then unpinned) and the
 * clsact filter at @t->handle and @t->priority.  0 if either was there,
 * -ENOENT if neither, another -errno on failure.
 */
int tc_detach_prog(const struct tc_attach *t);

/* Only the link: 0 if one was pinned at @t->link_pin, else -ENOENT. */
int tc_detach_link(const struct tc_attach *t);

/* What of ours is on the hook: @info->kind TC_HOOK_NONE if nothing. */
void tc_attach_query(const struct tc_attach *t, struct tc_attach_info *info);

/*
 * Detach and unpin every link pinned in @dir under a name starting with
 * @prefix (links of ports that a state lost track of, or whose device
 * went): how many.
 */
int tc_unpin_links(const char *dir, const char *prefix);

/* The id of the program pinned at @path, or 0. */
__u32 tc_pinned_prog_id(const char *path);

#endif /* SYMOFAN_LIB_TC_ATTACH_H */
