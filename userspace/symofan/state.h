/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - Ofan's pin folder as the agent keeps it: the pinned maps,
 * opened with their value sizes checked, and the agent's own map in it
 * (struct symofan_state): what a later load, unload, status or daemon
 * must know of the last load.
 */
#ifndef _SYMOFAN_STATE_H
#define _SYMOFAN_STATE_H

#include <stdbool.h>
#include <net/if.h>
#include <linux/types.h>

#include "ofan_config.h"
#include "ofan/ofan_maps.h"

#define SYMOFAN_STATE_PIN	"symofan_state"
#define SYMOFAN_STATE_MAGIC	0x4f46414e	/* "OFAN" */
#define SYMOFAN_STATE_VERSION	1
#define SYMOFAN_F_RR_INIT	0x1	/* ofan_rr initialised */

#define PTR_INIT_WORDS		(OFAN_MAX_PIPES * OFAN_MAX_KEYS / 64)

struct symofan_link {
	__u32	ifindex;
	__u32	pipe;			/* downlinks */
	char	ifname[IFNAMSIZ];
};

/*
 * The value of the agent's own map, SYMOFAN_STATE_PIN in the pin folder
 * (a one-entry array created by the agent, not by the BPF object).  bpffs
 * holds no regular files, so this is where the agent keeps what it must
 * remember.
 */
struct symofan_state {
	__u32			magic;
	__u32			version;
	__u64			netns_dev;	/* namespace of the interfaces */
	__u64			netns_ino;
	__u32			flags;		/* SYMOFAN_F_* */
	__u32			role;		/* enum ofan_role */
	__u32			nr_uplinks;
	__u32			nr_downlinks;
	char			config[256];	/* file of the last load */
	struct symofan_link	uplinks[OFAN_MAX_W];
	struct symofan_link	downlinks[OFAN_CONF_MAX_DOWNLINKS];
	/* bit pipe * OFAN_MAX_KEYS + key: that key's pointers of that pipe
	 * were given their random start and must be kept across reloads
	 */
	__u64			ptr_init[PTR_INIT_WORDS];
};

/*
 * Opens the map pinned as DIR/NAME and checks its value size; returns the
 * fd, or -1 after an error message (quietly when @optional and absent).
 */
int open_pinned(const char *dir, const char *name, __u32 value_size,
		bool optional);

/* Reads the agent's state of @dir into @st: its fd, -1 if absent, -2 bad. */
int read_state(const char *dir, struct symofan_state *st);

/*
 * The agent's state map of @dir, read into @st: the pinned one, or a new
 * one pinned now.  *@existed: it held a load's state.  The fd, or -1 after
 * an error message.
 */
int open_state(const char *dir, struct symofan_state *st, bool *existed);

/* Records in @st what @conf, loaded from file @config, declares. */
void record_state(struct symofan_state *st, const struct ofan_conf *conf,
		  const char *config);

/*
 * The set of ofan_config, ofan_ports and ofan_dests in use in @dir, into
 * *@set (ofan_maps.h); 0, or -1 after an error message.
 */
int read_active_set(const char *dir, __u32 *set);

/* The same from ofan_active's fd @fd (@dir for the message). */
int read_active_set_fd(int fd, const char *dir, __u32 *set);

/* Whether a link with IFF_* @flags can carry traffic: up and running. */
static inline bool link_flags_up(unsigned int flags)
{
	return (flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

/*
 * The uplinks among @ports[0..w-1] whose link is up now (IFF_UP and
 * IFF_RUNNING), in the caller's network namespace.
 */
__u64 uplinks_link_up(const struct ofan_port *ports, __u32 w);

#endif /* _SYMOFAN_STATE_H */
