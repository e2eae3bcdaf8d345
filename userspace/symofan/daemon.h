/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daemon.h - what the two halves of "symofan daemon" share: its state,
 * with the view of the namespace's links and main-table routes that
 * daemon_netlink.c keeps over rtnetlink and daemon.c writes into the maps.
 */
#ifndef _SYMOFAN_DAEMON_H
#define _SYMOFAN_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "ofan_config.h"
#include "ofan/ofan_maps.h"
#include "state.h"

struct mnl_socket;

/* a link of the namespace: only what the daemon needs */
struct dlink {
	__u32	ifindex;
	__u32	flags;			/* IFF_* */
};

/* a route of the main table, reduced to the uplinks it leads over */
struct droute {
	__u8	family;
	__u8	dst_len;
	__u8	tos;
	__u8	type;			/* RTN_* */
	__u32	priority;
	__u8	dst[16];
	__u64	ports;			/* bit p: a nexthop is uplink p */
	__u32	nh_id;			/* its nexthop object, 0: none (the
					 * object's uplinks, looked up when
					 * used, replace ports)
					 */
};

/* a nexthop object (ip nexthop): one next hop, or a group of them */
struct dnexthop {
	__u32	id;
	__u32	nr_members;		/* a group: ids in members[] */
	__u32	*members;
	__u64	ports;			/* one next hop: bit p if it is uplink p */
};

struct daemon {
	const char		*dir;
	bool			once;
	bool			verbose;

	struct symofan_state	*st;
	struct ofan_conf	*conf;
	__u32			w;
	struct ofan_port	ports[OFAN_MAX_W];
	int			fd_cfg;
	int			fd_dests;
	int			fd_active;	/* ofan_active of the same load */
	__u32			cfg_map_id;	/* of fd_cfg: another after a new load */
	__u32			set;		/* the set in use, at setup */
	__u64			generation;	/* ofan_config's, at setup */

	struct mnl_socket	*ev;		/* multicast events */
	struct mnl_socket	*dump;		/* request/response */
	__u32			dump_portid;
	__u32			seq;

	struct dlink		*links;
	size_t			nr_links, cap_links;
	struct droute		*routes;
	size_t			nr_routes, cap_routes;
	struct dnexthop		*nexthops;
	size_t			nr_nexthops, cap_nexthops;

	/* set while handling messages: what to dump again */
	bool			redump_links;
	bool			redump_nexthops;
	bool			redump4;
	bool			redump6;
	bool			in_dump;
};

/* daemon.c */

/*
 * daemon_view - the valid ports the daemon would write for each declared
 * key of @conf now (@valid, OFAN_MAX_KEYS entries), from one dump of the
 * namespace's links and routes.  A load writes these, so that the maps
 * agree with the kernel's routes at once.  0, or -1 after an error
 * message.
 */
int daemon_view(const struct ofan_conf *conf, __u64 *valid);

/* daemon_netlink.c */

/* Link @ifindex of the view, or NULL. */
struct dlink *find_link(const struct daemon *d, __u32 ifindex);

/* The uplinks route @r leads over: its nexthop object's, or its own. */
__u64 route_ports(const struct daemon *d, const struct droute *r);

/* Forgets every nexthop object of the view. */
void forget_nexthops(struct daemon *d);

/*
 * The dump socket, and unless d->once the event socket subscribed to the
 * link and route groups; 0, or -1 after an error message.
 */
int open_sockets(struct daemon *d);

/* The dumps that the messages so far asked for; 0 or -1. */
int redump(struct daemon *d);

/*
 * Reads every queued event; returns 0, or -1 on a fatal error.  ENOBUFS
 * (events were lost) asks for a full dump.
 */
int read_events(struct daemon *d);

#endif /* _SYMOFAN_DAEMON_H */
