// SPDX-License-Identifier: GPL-2.0
/*
 * daemon_netlink.c - the rtnetlink half of "symofan daemon" (libmnl): a
 * view of the namespace's links and main-table routes, each route reduced
 * to the uplinks among its nexthops, kept by dumps and by events; with
 * the nexthop objects (ip nexthop) that routes may point to instead.
 *
 * The event socket subscribes to the link and route groups before the
 * initial dumps (made on a second socket), so no change is missed; IPv4
 * route events are applied one by one, IPv6 route events and changes of a
 * link's IFF_UP (which flush routes without notification) and ENOBUFS
 * cause a new dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "daemon.h"
#include "tool_util.h"

#define DUMP_BUF_SIZE	32768
#define EVENT_RCVBUF	(4 << 20)
#define DUMP_RETRIES	5

/* ---- the view of links and routes ----------------------------------- */

struct dlink *find_link(const struct daemon *d, __u32 ifindex)
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

static struct dnexthop *find_nexthop(const struct daemon *d, __u32 id)
{
	size_t i;

	for (i = 0; i < d->nr_nexthops; i++)
		if (d->nexthops[i].id == id)
			return &d->nexthops[i];
	return NULL;
}

static void del_nexthop(struct daemon *d, __u32 id)
{
	struct dnexthop *nh = find_nexthop(d, id);

	if (!nh)
		return;
	free(nh->members);
	*nh = d->nexthops[--d->nr_nexthops];
}

void forget_nexthops(struct daemon *d)
{
	while (d->nr_nexthops)
		del_nexthop(d, d->nexthops[0].id);
}

/* Nexthop @nh (its members, copied) into the view, replacing its id's. */
static int set_nexthop(struct daemon *d, const struct dnexthop *nh)
{
	struct dnexthop *slot;

	del_nexthop(d, nh->id);
	if (d->nr_nexthops == d->cap_nexthops) {
		size_t cap = d->cap_nexthops ? 2 * d->cap_nexthops : 64;
		void *p = realloc(d->nexthops, cap * sizeof(*d->nexthops));

		if (!p)
			return -ENOMEM;
		d->nexthops = p;
		d->cap_nexthops = cap;
	}
	slot = &d->nexthops[d->nr_nexthops];
	*slot = *nh;
	slot->members = NULL;
	if (nh->nr_members) {
		slot->members = calloc(nh->nr_members, sizeof(*nh->members));
		if (!slot->members)
			return -ENOMEM;
		memcpy(slot->members, nh->members,
		       nh->nr_members * sizeof(*nh->members));
	}
	d->nr_nexthops++;
	return 0;
}

__u64 route_ports(const struct daemon *d, const struct droute *r)
{
	const struct dnexthop *nh, *member;
	__u64 ports = 0;
	__u32 i;

	if (!r->nh_id)
		return r->ports;
	nh = find_nexthop(d, r->nh_id);
	if (!nh)
		return 0;
	if (!nh->nr_members)
		return nh->ports;
	/* a group's members are single next hops (groups do not nest) */
	for (i = 0; i < nh->nr_members; i++) {
		member = find_nexthop(d, nh->members[i]);
		if (member)
			ports |= member->ports;
	}
	return ports;
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

/* The uplink of next hop @gw (@gw_family) over @oif, as a bit, or 0. */
static __u64 gateway_port(const struct daemon *d, int gw_family, __u32 oif,
			  const __u8 *gw)
{
	__u32 i;

	for (i = 0; i < d->w; i++) {
		const struct ofan_port *p = &d->ports[i];

		if (p->ifindex != oif)
			continue;
		if (gw_family == AF_INET ? (p->flags & OFAN_PORT_F_NH4) &&
					   !memcmp(p->nh4, gw, 4) :
					   (p->flags & OFAN_PORT_F_NH6) &&
					   !memcmp(p->nh6, gw, 16))
			return 1ULL << i;
	}
	return 0;
}

/* The uplink of nexthop (@oif, gateway in @tb), as a bit, or 0. */
static __u64 nexthop_port(const struct daemon *d, int family, __u32 oif,
			  const struct nlattr **tb)
{
	const __u8 *gw = NULL;
	int gw_family = family;

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
	return gw ? gateway_port(d, gw_family, oif, gw) : 0;
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
		/* a nexthop object's next hops may change without a route
		 * message (net.ipv4.nexthop_compat_mode 0): look them up
		 * when used
		 */
		if (tb[RTA_NH_ID] &&
		    !mnl_attr_validate(tb[RTA_NH_ID], MNL_TYPE_U32))
			r.nh_id = mnl_attr_get_u32(tb[RTA_NH_ID]);
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
		       (unsigned long long)route_ports(d, &r));
	return set_route(d, &r);
}

static int nexthop_attr_cb(const struct nlattr *attr, void *data)
{
	return attr_cb(attr, data, NHA_MAX);
}

static int handle_nexthop(struct daemon *d, const struct nlmsghdr *nlh)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NHA_MAX + 1] = {};
	struct dnexthop nh = {};
	__u32 members[256];

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nhm)))
		return 0;
	mnl_attr_parse(nlh, sizeof(*nhm), nexthop_attr_cb, tb);
	if (!tb[NHA_ID] || mnl_attr_validate(tb[NHA_ID], MNL_TYPE_U32))
		return 0;
	nh.id = mnl_attr_get_u32(tb[NHA_ID]);
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		del_nexthop(d, nh.id);
		/* the groups it was in shrank, maybe without a message */
		if (!d->in_dump)
			d->redump_nexthops = true;
		return 0;
	}
	if (tb[NHA_GROUP]) {
		const struct nexthop_grp *grp = mnl_attr_get_payload(tb[NHA_GROUP]);
		size_t n = mnl_attr_get_payload_len(tb[NHA_GROUP]) / sizeof(*grp);

		for (nh.nr_members = 0; nh.nr_members < n &&
		     nh.nr_members < ARRAY_SIZE(members); nh.nr_members++)
			members[nh.nr_members] = grp[nh.nr_members].id;
		nh.members = members;
	} else if (tb[NHA_OIF] && tb[NHA_GATEWAY] &&
		   !mnl_attr_validate(tb[NHA_OIF], MNL_TYPE_U32) &&
		   mnl_attr_get_payload_len(tb[NHA_GATEWAY]) ==
		   addr_len(nhm->nh_family)) {
		nh.ports = gateway_port(d, nhm->nh_family,
					mnl_attr_get_u32(tb[NHA_OIF]),
					mnl_attr_get_payload(tb[NHA_GATEWAY]));
	}
	if (d->verbose && !d->in_dump)
		printf("nexthop %u: %u members, uplinks 0x%llx\n", nh.id,
		       nh.nr_members, (unsigned long long)nh.ports);
	return set_nexthop(d, &nh);
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
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		err = handle_nexthop(d, nlh);
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
	} else if (type == RTM_GETNEXTHOP) {
		struct nhmsg *nhm;

		nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));
		nhm->nh_family = family;
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
		else if (type == RTM_GETNEXTHOP)
			forget_nexthops(d);
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
		      type == RTM_GETNEXTHOP ? "nexthop objects" :
		      family == AF_INET ? "IPv4 routes" : "IPv6 routes",
		      why(err ? err : EINTR));
		return -1;
	}
	if (d->verbose)
		printf("dumped %s: %zu links, %zu routes\n",
		       type == RTM_GETLINK ? "links" :
		       type == RTM_GETNEXTHOP ? "nexthop objects" :
		       family == AF_INET ? "IPv4 routes" : "IPv6 routes",
		       d->nr_links, d->nr_routes);
	return 0;
}

int redump(struct daemon *d)
{
	bool links = d->redump_links, r4 = d->redump4, r6 = d->redump6;
	bool nexthops = d->redump_nexthops;

	d->redump_links = d->redump_nexthops = d->redump4 = d->redump6 = false;
	if (links && dump(d, RTM_GETLINK, AF_UNSPEC))
		return -1;
	/* before the routes that point to them; a kernel without nexthop
	 * objects (before 5.3) answers EOPNOTSUPP: no objects then
	 */
	if (nexthops && dump(d, RTM_GETNEXTHOP, AF_UNSPEC) &&
	    errno != EOPNOTSUPP)
		return -1;
	if (r4 && dump(d, RTM_GETROUTE, AF_INET))
		return -1;
	if (r6 && dump(d, RTM_GETROUTE, AF_INET6))
		return -1;
	return 0;
}

int open_sockets(struct daemon *d)
{
	static const unsigned int groups[] = {
		RTNLGRP_LINK, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,
		RTNLGRP_NEXTHOP,
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

int read_events(struct daemon *d)
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
				d->redump_links = d->redump_nexthops = true;
				d->redump4 = d->redump6 = true;
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
