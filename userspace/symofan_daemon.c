// SPDX-License-Identifier: GPL-2.0
/*
 * symofan_daemon.c - "symofan daemon": keeps Ofan's valid-port state in
 * step with the kernel's links and routes, over rtnetlink (libmnl).
 *
 * Uplink p is up in ofan_config.up_ports while its link is IFF_UP and
 * IFF_RUNNING.  The valid ports of a northbound key (ofan_dests) are the
 * uplinks whose next hop (gateway and output device) is a nexthop of the
 * main-table route of each of the key's prefixes: the route of exactly that
 * prefix, else the longest route covering it.  The sets of its prefixes are
 * intersected (a port is valid only if it leads to all of the key's
 * destinations), then ANDed with the ports the config lists for the key.
 * A prefix without any route does not constrain the key, and a key none of
 * whose prefixes has a route keeps its configured ports.  Local keys and
 * keys the maps do not hold are left alone.
 *
 * The event socket subscribes to the link and route groups before the
 * initial dumps (made on a second socket), so no change is missed; IPv4
 * route events are applied one by one, IPv6 route events and changes of a
 * link's IFF_UP (which flush routes without notification) and ENOBUFS
 * cause a new dump.  After each batch of messages the changed entries are
 * written under the pin-folder lock, nothing else: pointers and counters
 * stay, and a killed daemon leaves the datapath as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "ofan_config.h"
#include "ofan/ofan_maps.h"
#include "tool_util.h"
#include "symofan.h"

#define DUMP_BUF_SIZE	32768
#define EVENT_RCVBUF	(4 << 20)
#define DUMP_RETRIES	5

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

	struct mnl_socket	*ev;		/* multicast events */
	struct mnl_socket	*dump;		/* request/response */
	__u32			dump_portid;
	__u32			seq;

	struct dlink		*links;
	size_t			nr_links, cap_links;
	struct droute		*routes;
	size_t			nr_routes, cap_routes;

	/* set while handling messages: what to dump again */
	bool			redump_links;
	bool			redump4;
	bool			redump6;
	bool			in_dump;
};

/* ---- the view of links and routes ----------------------------------- */

static struct dlink *find_link(const struct daemon *d, __u32 ifindex)
{
	size_t i;

	for (i = 0; i < d->nr_links; i++)
		if (d->links[i].ifindex == ifindex)
			return &d->links[i];
	return NULL;
}

static int set_link(struct daemon *d, __u32 ifindex, __u32 flags)
{
	struct dlink *l = find_link(d, ifindex);

	if (!l) {
		if (d->nr_links == d->cap_links) {
			size_t cap = d->cap_links ? 2 * d->cap_links : 64;
			void *p = realloc(d->links, cap * sizeof(*d->links));

			if (!p)
				return -ENOMEM;
			d->links = p;
			d->cap_links = cap;
		}
		l = &d->links[d->nr_links++];
		l->ifindex = ifindex;
		l->flags = 0;
	}
	/* IPv4 and IPv6 drop routes of a downed device without telling */
	if (!d->in_dump && ((l->flags ^ flags) & IFF_UP))
		d->redump4 = d->redump6 = true;
	l->flags = flags;
	return 0;
}

static void del_link(struct daemon *d, __u32 ifindex)
{
	struct dlink *l = find_link(d, ifindex);

	if (!l)
		return;
	*l = d->links[--d->nr_links];
	d->redump4 = d->redump6 = true;
}

static bool same_route(const struct droute *a, const struct droute *b)
{
	return a->family == b->family && a->dst_len == b->dst_len &&
	       a->tos == b->tos && a->priority == b->priority &&
	       !memcmp(a->dst, b->dst, 16);
}

static struct droute *find_route(struct daemon *d, const struct droute *r)
{
	size_t i;

	for (i = 0; i < d->nr_routes; i++)
		if (same_route(&d->routes[i], r))
			return &d->routes[i];
	return NULL;
}

static int set_route(struct daemon *d, const struct droute *r)
{
	struct droute *old = find_route(d, r);

	if (old) {
		*old = *r;
		return 0;
	}
	if (d->nr_routes == d->cap_routes) {
		size_t cap = d->cap_routes ? 2 * d->cap_routes : 256;
		void *p = realloc(d->routes, cap * sizeof(*d->routes));

		if (!p)
			return -ENOMEM;
		d->routes = p;
		d->cap_routes = cap;
	}
	d->routes[d->nr_routes++] = *r;
	return 0;
}

static void del_route(struct daemon *d, const struct droute *r)
{
	struct droute *old = find_route(d, r);

	if (old)
		*old = d->routes[--d->nr_routes];
}

static void forget_routes(struct daemon *d, __u8 family)
{
	size_t i = 0;

	while (i < d->nr_routes) {
		if (d->routes[i].family == family)
			d->routes[i] = d->routes[--d->nr_routes];
		else
			i++;
	}
}

/* ---- rtnetlink messages --------------------------------------------- */

static int attr_cb(const struct nlattr *attr, void *data, int max)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, max) < 0)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int link_attr_cb(const struct nlattr *attr, void *data)
{
	return attr_cb(attr, data, IFLA_MAX);
}

static int route_attr_cb(const struct nlattr *attr, void *data)
{
	return attr_cb(attr, data, RTA_MAX);
}

static int handle_link(struct daemon *d, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFLA_MAX + 1] = {};
	char name[IF_NAMESIZE] = "";

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return 0;
	if (d->verbose) {
		mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, tb);
		if (tb[IFLA_IFNAME] &&
		    !mnl_attr_validate(tb[IFLA_IFNAME], MNL_TYPE_STRING))
			snprintf(name, sizeof(name), "%s",
				 mnl_attr_get_str(tb[IFLA_IFNAME]));
	}
	if (nlh->nlmsg_type == RTM_DELLINK) {
		if (d->verbose && !d->in_dump)
			printf("link %d (%s) deleted\n", ifi->ifi_index, name);
		del_link(d, ifi->ifi_index);
		return 0;
	}
	if (d->verbose && !d->in_dump)
		printf("link %d (%s)%s%s\n", ifi->ifi_index, name,
		       ifi->ifi_flags & IFF_UP ? " UP" : "",
		       ifi->ifi_flags & IFF_RUNNING ? " RUNNING" : "");
	return set_link(d, ifi->ifi_index, ifi->ifi_flags);
}

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* The uplink of nexthop (@oif, gateway in @tb), as a bit, or 0. */
static __u64 nexthop_port(const struct daemon *d, int family, __u32 oif,
			  const struct nlattr **tb)
{
	const __u8 *gw = NULL;
	int gw_family = family;
	__u32 i;

	if (tb[RTA_GATEWAY] &&
	    mnl_attr_get_payload_len(tb[RTA_GATEWAY]) == addr_len(family)) {
		gw = mnl_attr_get_payload(tb[RTA_GATEWAY]);
	} else if (tb[RTA_VIA] && mnl_attr_get_payload_len(tb[RTA_VIA]) >=
				  sizeof(struct rtvia)) {
		const struct rtvia *via = mnl_attr_get_payload(tb[RTA_VIA]);
		size_t len = mnl_attr_get_payload_len(tb[RTA_VIA]);

		gw_family = via->rtvia_family;
		if ((gw_family != AF_INET && gw_family != AF_INET6) ||
		    len < sizeof(*via) + addr_len(gw_family))
			return 0;
		gw = via->rtvia_addr;
	}
	if (!gw)
		return 0;
	for (i = 0; i < d->w; i++) {
		const struct ofan_port *p = &d->ports[i];

		if (p->ifindex == oif && (int)p->nh_family == gw_family &&
		    !memcmp(p->nh_addr, gw, addr_len(gw_family)))
			return 1ULL << i;
	}
	return 0;
}

/* The uplinks among the nexthops of RTA_MULTIPATH @mp. */
static __u64 multipath_ports(const struct daemon *d, int family,
			     const struct nlattr *mp)
{
	const struct rtnexthop *nh = mnl_attr_get_payload(mp);
	int len = mnl_attr_get_payload_len(mp);
	__u64 ports = 0;

	while (RTNH_OK(nh, len)) {
		const struct nlattr *tb[RTA_MAX + 1] = {};

		if (nh->rtnh_len > sizeof(*nh))
			mnl_attr_parse_payload(RTNH_DATA(nh),
					       nh->rtnh_len - sizeof(*nh),
					       route_attr_cb, tb);
		ports |= nexthop_port(d, family, nh->rtnh_ifindex, tb);
		len -= RTNH_ALIGN(nh->rtnh_len);
		nh = RTNH_NEXT(nh);
	}
	return ports;
}

static const char *route_string(const struct droute *r, char *buf,
				size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->dst, a, sizeof(a));
	snprintf(buf, size, "%s/%u metric %u", a, r->dst_len, r->priority);
	return buf;
}

static int handle_route(struct daemon *d, const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = {};
	struct droute r = {};
	__u32 table;
	char buf[80];

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return 0;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return 0;
	if (rtm->rtm_family == AF_INET6 && !d->in_dump) {
		/* IPv6 tells of multipath routes a nexthop at a time */
		d->redump6 = true;
		return 0;
	}
	if (rtm->rtm_family == AF_INET && !d->in_dump &&
	    (nlh->nlmsg_flags & NLM_F_APPEND)) {
		/* a second route of the same key: see the kernel's order */
		d->redump4 = true;
		return 0;
	}
	if (rtm->rtm_flags & RTM_F_CLONED)
		return 0;
	switch (rtm->rtm_type) {
	case RTN_UNICAST:
	case RTN_UNREACHABLE:
	case RTN_BLACKHOLE:
	case RTN_PROHIBIT:
		break;
	default:
		return 0;
	}
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr_cb, tb);
	table = rtm->rtm_table;
	if (tb[RTA_TABLE] && !mnl_attr_validate(tb[RTA_TABLE], MNL_TYPE_U32))
		table = mnl_attr_get_u32(tb[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		return 0;

	r.family = rtm->rtm_family;
	r.dst_len = rtm->rtm_dst_len;
	r.tos = rtm->rtm_tos;
	r.type = rtm->rtm_type;
	if (r.dst_len > addr_len(r.family) * 8)
		return 0;
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) != addr_len(r.family))
			return 0;
		memcpy(r.dst, mnl_attr_get_payload(tb[RTA_DST]),
		       addr_len(r.family));
	}
	if (tb[RTA_PRIORITY] &&
	    !mnl_attr_validate(tb[RTA_PRIORITY], MNL_TYPE_U32))
		r.priority = mnl_attr_get_u32(tb[RTA_PRIORITY]);

	if (nlh->nlmsg_type == RTM_DELROUTE) {
		if (d->verbose)
			printf("route %s deleted\n",
			       route_string(&r, buf, sizeof(buf)));
		del_route(d, &r);
		return 0;
	}
	if (r.type == RTN_UNICAST) {
		if (tb[RTA_MULTIPATH]) {
			r.ports = multipath_ports(d, r.family, tb[RTA_MULTIPATH]);
		} else if (tb[RTA_OIF] &&
			   !mnl_attr_validate(tb[RTA_OIF], MNL_TYPE_U32)) {
			r.ports = nexthop_port(d, r.family,
					       mnl_attr_get_u32(tb[RTA_OIF]), tb);
		}
	}
	if (d->verbose && !d->in_dump)
		printf("route %s: uplinks 0x%llx\n",
		       route_string(&r, buf, sizeof(buf)),
		       (unsigned long long)r.ports);
	return set_route(d, &r);
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct daemon *d = data;
	int err = 0;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		err = handle_link(d, nlh);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		err = handle_route(d, nlh);
		break;
	}
	if (err) {
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* One dump of @type (RTM_GETLINK, RTM_GETROUTE) for @family. */
static int dump_once(struct daemon *d, int type, int family)
{
	static char buf[DUMP_BUF_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	__u32 seq = ++d->seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (type == RTM_GETLINK) {
		struct ifinfomsg *ifi;

		ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
		ifi->ifi_family = family;
	} else {
		struct rtmsg *rtm;

		rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = family;
		rtm->rtm_table = RT_TABLE_MAIN;
	}
	if (mnl_socket_sendto(d->dump, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(d->dump, buf, sizeof(buf));
		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, n, seq, d->dump_portid, msg_cb, d);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -1 : 0;
}

/* A full dump: links, or the main-table routes of @family. */
static int dump(struct daemon *d, int type, int family)
{
	int tries, err = 0;

	d->in_dump = true;
	for (tries = 0; tries < DUMP_RETRIES; tries++) {
		if (type == RTM_GETLINK)
			d->nr_links = 0;
		else
			forget_routes(d, family);
		if (!dump_once(d, type, family))
			break;
		err = errno;
		if (err != EINTR) {	/* EINTR: changed under the dump */
			break;
		}
	}
	d->in_dump = false;
	if (tries == DUMP_RETRIES || (err && err != EINTR)) {
		error("cannot read the %s over rtnetlink: %s",
		      type == RTM_GETLINK ? "links" :
		      family == AF_INET ? "IPv4 routes" : "IPv6 routes",
		      why(err ? err : EINTR));
		return -1;
	}
	if (d->verbose)
		printf("dumped %s: %zu links, %zu routes\n",
		       type == RTM_GETLINK ? "links" :
		       family == AF_INET ? "IPv4 routes" : "IPv6 routes",
		       d->nr_links, d->nr_routes);
	return 0;
}

/* The dumps that the messages so far asked for. */
static int redump(struct daemon *d)
{
	bool links = d->redump_links, r4 = d->redump4, r6 = d->redump6;

	d->redump_links = d->redump4 = d->redump6 = false;
	if (links && dump(d, RTM_GETLINK, AF_UNSPEC))
		return -1;
	if (r4 && dump(d, RTM_GETROUTE, AF_INET))
		return -1;
	if (r6 && dump(d, RTM_GETROUTE, AF_INET6))
		return -1;
	return 0;
}

static int open_sockets(struct daemon *d)
{
	static const unsigned int groups[] = {
		RTNLGRP_LINK, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
	};
	int size = EVENT_RCVBUF, fd;
	size_t i;

	d->dump = mnl_socket_open(NETLINK_ROUTE);
	if (!d->dump || mnl_socket_bind(d->dump, 0, MNL_SOCKET_AUTOPID)) {
		error("cannot open an rtnetlink socket: %s", why(errno));
		return -1;
	}
	d->dump_portid = mnl_socket_get_portid(d->dump);
	if (d->once)
		return 0;

	d->ev = mnl_socket_open(NETLINK_ROUTE);
	if (!d->ev || mnl_socket_bind(d->ev, 0, MNL_SOCKET_AUTOPID)) {
		error("cannot open an rtnetlink socket: %s", why(errno));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		if (mnl_socket_setsockopt(d->ev, NETLINK_ADD_MEMBERSHIP,
					  (void *)&groups[i], sizeof(int))) {
			error("cannot subscribe to rtnetlink group %u: %s",
			      groups[i], why(errno));
			return -1;
		}
	}
	fd = mnl_socket_get_fd(d->ev);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
		error("cannot make the event socket non-blocking: %s",
		      strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Reads every queued event; returns 0, or -1 on a fatal error.  ENOBUFS
 * (events were lost) asks for a full dump.
 */
static int read_events(struct daemon *d)
{
	static char buf[DUMP_BUF_SIZE];
	ssize_t n;

	for (;;) {
		n = mnl_socket_recvfrom(d->ev, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				printf("events lost (ENOBUFS): dumping again\n");
				d->redump_links = d->redump4 = d->redump6 = true;
				continue;
			}
			error("cannot read rtnetlink events: %s", why(errno));
			return -1;
		}
		if (mnl_cb_run(buf, n, 0, 0, msg_cb, d) < 0 &&
		    errno == ENOMEM) {
			error("out of memory");
			return -1;
		}
	}
}

/* ---- what the maps should hold -------------------------------------- */

static bool prefix_covers(const __u8 *net, __u32 len, const __u8 *addr)
{
	__u32 bytes = len / 8, bits = len % 8;

	if (memcmp(net, addr, bytes))
		return false;
	if (!bits)
		return true;
	return !((net[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/*
 * The kernel's route for configured prefix @p: the main-table route of
 * exactly that prefix, else the longest covering it; the lowest metric
 * among routes of the same prefix.  NULL if none.
 */
static const struct droute *route_of(const struct daemon *d,
				     const struct ofan_conf_prefix *p)
{
	const struct droute *best = NULL;
	size_t i;

	for (i = 0; i < d->nr_routes; i++) {
		const struct droute *r = &d->routes[i];

		if (r->family != p->family || r->dst_len > p->len ||
		    !prefix_covers(r->dst, r->dst_len, p->addr))
			continue;
		if (!best || r->dst_len > best->dst_len ||
		    (r->dst_len == best->dst_len &&
		     (r->priority < best->priority ||
		      (r->priority == best->priority && r->tos < best->tos))))
			best = r;
	}
	return best;
}

/* Desired valid ports of every key; *routed marks keys with a route. */
static void compute_keys(const struct daemon *d, __u64 *valid, bool *routed)
{
	const struct ofan_conf *conf = d->conf;
	__u32 i, k;

	for (k = 0; k < OFAN_MAX_KEYS; k++) {
		routed[k] = false;
		valid[k] = conf->keys[k].line ? ofan_conf_key_ports(conf, k) : 0;
	}
	for (i = 0; i < conf->nr_prefixes; i++) {
		const struct ofan_conf_prefix *p = &conf->prefixes[i];
		const struct droute *r;

		k = p->key;
		if (k >= OFAN_MAX_KEYS || conf->keys[k].local)
			continue;
		r = route_of(d, p);
		if (!r)
			continue;
		routed[k] = true;
		valid[k] &= r->ports;
	}
}

static __u64 compute_up(const struct daemon *d)
{
	const struct dlink *l;
	__u64 up = 0;
	__u32 i;

	for (i = 0; i < d->w; i++) {
		l = find_link(d, d->ports[i].ifindex);
		if (l && (l->flags & (IFF_UP | IFF_RUNNING)) ==
			 (IFF_UP | IFF_RUNNING))
			up |= 1ULL << i;
	}
	return up;
}

static __u64 w_mask(__u32 w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

/* ---- writing the maps ----------------------------------------------- */

static int read_config(struct daemon *d, struct ofan_config *cfg)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(d->fd_cfg, &zero, cfg)) {
		error("cannot read %s/ofan_config: %s", d->dir, why(errno));
		return -1;
	}
	if (cfg->layout_version != OFAN_LAYOUT_VERSION || cfg->w != d->w) {
		error("%s/ofan_config changed under the daemon (layout %u, w %u; was %u, %u): restart symofan daemon",
		      d->dir, cfg->layout_version, cfg->w, OFAN_LAYOUT_VERSION,
		      d->w);
		return -1;
	}
	return 0;
}

/*
 * Writes what differs between the maps and the view: up_ports and the
 * valid ports of the keys, under the pin-folder lock.  The first pass
 * only compares, so that a quiet batch takes no lock.
 */
static int apply(struct daemon *d)
{
	static __u64 valid[OFAN_MAX_KEYS];
	static bool routed[OFAN_MAX_KEYS];
	struct ofan_config cfg;
	struct ofan_dest dest;
	__u64 up, new_up, mask = w_mask(d->w), diff;
	int lock_fd = -1, ret = -1;
	__u32 k, i, changed = 0;
	bool locked = false;
	char path[256];

	pin_path(path, sizeof(path), d->dir, "ofan_config");
	if (access(path, F_OK)) {
		error("%s was unloaded (no %s): exiting", d->dir, path);
		return -1;
	}
	up = compute_up(d);
	compute_keys(d, valid, routed);
again:
	if (read_config(d, &cfg))
		goto out;
	new_up = (cfg.up_ports & ~mask) | up;
	if (new_up != cfg.up_ports) {
		if (!locked)
			goto lock;
		diff = new_up ^ cfg.up_ports;
		cfg.up_ports = new_up;
		if (bpf_map_update_elem(d->fd_cfg, &(__u32){ 0 }, &cfg,
					BPF_ANY)) {
			error("cannot write %s/ofan_config: %s", d->dir,
			      why(errno));
			goto out;
		}
		for (i = 0; i < d->w; i++)
			if ((diff >> i) & 1)
				printf("uplink %u (%s) %s\n", i,
				       d->conf->uplinks[i].ifname,
				       (new_up >> i) & 1 ? "up" : "down");
		changed++;
	}
	for (k = 0; k < OFAN_MAX_KEYS; k++) {
		const struct ofan_conf_key *ck = &d->conf->keys[k];

		if (!ck->line || ck->local)
			continue;
		if (bpf_map_lookup_elem(d->fd_dests, &k, &dest)) {
			error("cannot read key %u of %s/ofan_dests: %s", k,
			      d->dir, why(errno));
			goto out;
		}
		if (!(dest.flags & OFAN_DEST_F_VALID) ||
		    (dest.flags & OFAN_DEST_F_LOCAL) ||
		    dest.valid_ports == valid[k])
			continue;
		if (!locked)
			goto lock;
		printf("key %u: valid ports 0x%llx -> 0x%llx%s\n", k,
		       (unsigned long long)dest.valid_ports,
		       (unsigned long long)valid[k],
		       routed[k] ? "" : " (no route: configured ports)");
		dest.valid_ports = valid[k];
		if (bpf_map_update_elem(d->fd_dests, &k, &dest, BPF_ANY)) {
			error("cannot write key %u of %s/ofan_dests: %s", k,
			      d->dir, why(errno));
			goto out;
		}
		changed++;
	}
	if (d->verbose)
		printf("synced: up ports 0x%llx, %u entries written\n",
		       (unsigned long long)new_up, changed);
	ret = 0;
	goto out;
lock:
	lock_fd = lock_dir(d->dir);
	if (lock_fd < 0)
		goto out;
	locked = true;
	goto again;	/* read again under the lock */
out:
	if (lock_fd >= 0)
		close(lock_fd);
	fflush(stdout);
	return ret;
}

/* ---- setup ---------------------------------------------------------- */

/*
 * ofan_config of @dir, with a clear message when its layout is not this
 * symofan's (its value size may differ then, so read it raw).
 */
static int open_config_map(struct daemon *d, struct ofan_config *cfg)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), zero = 0, version;
	char path[256];
	void *buf;
	int fd;

	pin_path(path, sizeof(path), d->dir, "ofan_config");
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (errno == ENOENT)
			error("nothing loaded at %s (no %s): run 'symofan ofan load CONFIG'",
			      d->dir, path);
		else
			error("cannot open %s: %s", path, why(errno));
		return -1;
	}
	buf = NULL;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.value_size)
		buf = calloc(1, info.value_size);
	if (!buf) {
		error("cannot inspect %s: %s", path, why(errno));
		close(fd);
		return -1;
	}
	if (bpf_map_lookup_elem(fd, &zero, buf)) {
		error("cannot read %s: %s", path, why(errno));
		goto fail;
	}
	version = info.value_size >= sizeof(version) ? *(__u32 *)buf : 0;
	if (version != OFAN_LAYOUT_VERSION ||
	    info.value_size != sizeof(*cfg)) {
		if (!version)
			error("%s is not configured: run 'symofan ofan load CONFIG'",
			      path);
		else
			error("the maps in %s have layout version %u, this symofan uses %u: 'symofan ofan unload' then 'symofan ofan load CONFIG' migrates them",
			      d->dir, version, OFAN_LAYOUT_VERSION);
		goto fail;
	}
	memcpy(cfg, buf, sizeof(*cfg));
	free(buf);
	if (!cfg->w || cfg->w > OFAN_MAX_W) {
		error("%s is not configured: run 'symofan ofan load CONFIG'",
		      path);
		close(fd);
		return -1;
	}
	return fd;
fail:
	free(buf);
	close(fd);
	return -1;
}

static bool ports_match(const struct daemon *d)
{
	const struct ofan_conf *conf = d->conf;
	__u32 i;

	if (conf->w != d->w)
		return false;
	for (i = 0; i < d->w; i++) {
		const struct ofan_conf_uplink *u = &conf->uplinks[i];
		const struct ofan_port *p = &d->ports[i];

		if (u->ifindex != p->ifindex || u->family != p->nh_family ||
		    memcmp(u->nh_addr, p->nh_addr, 16))
			return false;
	}
	return true;
}

/* Reads the state, the config of the load and the uplinks of the maps. */
static int setup(struct daemon *d)
{
	struct ofan_config cfg;
	__u64 ns_dev, ns_ino;
	__u32 i;
	int fd, fd_ports;

	if (check_bpffs(d->dir))
		return -1;
	if (access(d->dir, F_OK)) {
		error("nothing loaded at %s (%s): run 'symofan ofan load CONFIG'",
		      d->dir, strerror(errno));
		return -1;
	}
	fd = read_state(d->dir, d->st);
	if (fd == -2)
		return -1;
	if (fd < 0 || d->st->magic != SYMOFAN_STATE_MAGIC) {
		error("nothing loaded at %s (no agent state %s): run 'symofan ofan load CONFIG'",
		      d->dir, SYMOFAN_STATE_PIN);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (netns_id(&ns_dev, &ns_ino))
		return -1;
	if (d->st->netns_dev != ns_dev || d->st->netns_ino != ns_ino) {
		error("%s was loaded in network namespace net:[%llu], this is net:[%llu]: run the daemon there (nsenter --net=...)",
		      d->dir, (unsigned long long)d->st->netns_ino,
		      (unsigned long long)ns_ino);
		return -1;
	}

	d->fd_cfg = open_config_map(d, &cfg);
	if (d->fd_cfg < 0)
		return -1;
	d->w = cfg.w;
	d->fd_dests = open_pinned(d->dir, "ofan_dests", sizeof(struct ofan_dest),
				  false);
	fd_ports = open_pinned(d->dir, "ofan_ports", sizeof(struct ofan_port),
			       false);
	if (d->fd_dests < 0 || fd_ports < 0) {
		if (fd_ports >= 0)
			close(fd_ports);
		return -1;
	}
	for (i = 0; i < d->w; i++) {
		if (bpf_map_lookup_elem(fd_ports, &i, &d->ports[i])) {
			error("cannot read %s/ofan_ports: %s", d->dir,
			      why(errno));
			close(fd_ports);
			return -1;
		}
	}
	close(fd_ports);

	if (ofan_conf_load(d->conf, d->st->config, stderr)) {
		error("cannot read %s, the config %s was loaded from",
		      d->st->config, d->dir);
		return -1;
	}
	if (!ports_match(d)) {
		error("the uplinks of %s differ from those loaded in %s: load it again ('symofan ofan load %s')",
		      d->st->config, d->dir, d->st->config);
		return -1;
	}
	return 0;
}

static void teardown(struct daemon *d)
{
	if (d->fd_cfg >= 0)
		close(d->fd_cfg);
	if (d->fd_dests >= 0)
		close(d->fd_dests);
	d->fd_cfg = d->fd_dests = -1;
	if (d->conf) {
		ofan_conf_free(d->conf);
		memset(d->conf, 0, sizeof(*d->conf));
	}
}

static void print_start(const struct daemon *d)
{
	__u32 k, keys = 0;

	for (k = 0; k < OFAN_MAX_KEYS; k++)
		keys += d->conf->keys[k].line && !d->conf->keys[k].local;
	printf("following %u uplinks and %u keys of %s (config %s)\n", d->w,
	       keys, d->dir, d->st->config);
}

/* Dumps everything, writes what differs, says so. */
static int full_sync(struct daemon *d)
{
	print_start(d);
	d->redump_links = d->redump4 = d->redump6 = true;
	if (redump(d) || apply(d))
		return -1;
	printf("in sync: %zu links, %zu routes\n", d->nr_links, d->nr_routes);
	return 0;
}

/* ---- the loop ------------------------------------------------------- */

static int open_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		error("cannot open a signalfd: %s", strerror(errno));
	return fd;
}

static int run_loop(struct daemon *d, int sig_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = mnl_socket_get_fd(d->ev), .events = POLLIN },
		{ .fd = sig_fd, .events = POLLIN },
	};
	struct signalfd_siginfo si;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			error("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents & POLLIN &&
		    read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGHUP) {
				printf("exiting on %s\n", strsignal(si.ssi_signo));
				return 0;
			}
			printf("SIGHUP: reading %s again\n", d->st->config);
			teardown(d);
			if (setup(d) || full_sync(d))
				return -1;
		}
		if (!(pfd[0].revents & (POLLIN | POLLERR)))
			continue;
		if (read_events(d) || redump(d) || apply(d))
			return -1;
	}
}

static void usage_daemon_error(const struct command *cmd, const char *fmt,
			       const char *arg)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, arg);
	error("%s: %s", cmd->name, msg);
	usage_cmd(stderr, cmd);
}

int cmd_daemon(const struct command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pin-dir",	required_argument,	NULL, 'p' },
		{ "once",	no_argument,		NULL, 'o' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	struct daemon d = {
		.dir = OFAN_CONF_PIN_DIR, .fd_cfg = -1, .fd_dests = -1,
	};
	int c, ret = EXIT_ERROR, sig_fd = -1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			d.dir = optarg;
			break;
		case 'o':
			d.once = true;
			break;
		case 'v':
			d.verbose = true;
			break;
		case 'h':
			usage_cmd(stdout, cmd);
			return EXIT_OK;
		default:
			usage_daemon_error(cmd, optopt == 'p' ?
					   "'%s' wants a directory" :
					   "unknown option '%s'",
					   argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage_daemon_error(cmd, "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (d.dir[0] != '/' || strlen(d.dir) > OFAN_CONF_PIN_DIR_MAX) {
		error("--pin-dir wants an absolute path of at most %d characters",
		      OFAN_CONF_PIN_DIR_MAX);
		usage_cmd(stderr, cmd);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	d.st = calloc(1, sizeof(*d.st));
	d.conf = calloc(1, sizeof(*d.conf));
	if (!d.st || !d.conf) {
		error("out of memory");
		goto out;
	}
	if (setup(&d))
		goto out;
	if (!d.once) {
		sig_fd = open_signals();
		if (sig_fd < 0)
			goto out;
	}
	/* subscribe first, then dump: no change falls in between */
	if (open_sockets(&d) || full_sync(&d))
		goto out;
	if (d.once || !run_loop(&d, sig_fd))
		ret = EXIT_OK;
out:
	if (sig_fd >= 0)
		close(sig_fd);
	if (d.ev)
		mnl_socket_close(d.ev);
	if (d.dump)
		mnl_socket_close(d.dump);
	teardown(&d);
	free(d.conf);
	free(d.st);
	free(d.links);
	free(d.routes);
	return ret;
}
