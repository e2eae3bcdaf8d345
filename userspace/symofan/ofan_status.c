// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_status.c - "symofan ofan status [--json]": what the pinned maps of
 * Ofan hold (mode, uplinks with their state and counters, downlinks,
 * keys with their valid ports and pointers, the datapath's counters), as
 * text or as one JSON object.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json_doc.h"
#include "ofan.h"
#include "ofan/ofan_maps.h"
#include "state.h"
#include "tool_util.h"

struct status {
	const char		*dir;
	struct ofan_config	cfg;
	struct symofan_state	*st;
	bool			has_state;
	struct ofan_port	ports[OFAN_MAX_W];
	struct ofan_port_stats	port_stats[OFAN_MAX_W];
	__u64			backlog[OFAN_MAX_W];	/* phantom, bytes */
	__u64			overlimits[OFAN_MAX_W];
	struct ofan_dest	dests[OFAN_MAX_KEYS];
	struct ofan_key_stats	key_stats[OFAN_MAX_KEYS];
	struct ofan_stats	stats;
	__u64			rr;
	__u64			link_up;	/* uplinks whose link is up now */
	__u32			set;		/* the set in use (ofan_active) */
	int			ncpus;
	int			fd_ptrs;
};

/* Sums per-CPU entry @key of @fd, @size bytes of __u64 counters, into @out. */
static int read_percpu(int fd, __u32 key, void *out, size_t size, int ncpus)
{
	__u64 *buf, *sum = out;
	size_t n = size / sizeof(__u64), i;
	int cpu;

	buf = calloc(ncpus, size);
	if (!buf)
		return -1;
	if (bpf_map_lookup_elem(fd, &key, buf)) {
		free(buf);
		return -1;
	}
	memset(out, 0, size);
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < n; i++)
			sum[i] += buf[cpu * n + i];
	free(buf);
	return 0;
}

/*
 * ar and jsq: each uplink's phantom backlog now, in bytes at its rate,
 * and its overlimits.  Maps pinned before ar existed have none: zeros.
 */
static void read_phantom(struct status *s)
{
	struct ofan_ar_queue q;
	struct timespec ts;
	__u64 now, ns;
	__u32 i;
	int fd;

	fd = open_pinned(s->dir, "ofan_ar_queues", sizeof(q), true);
	if (fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	for (i = 0; i < s->cfg.w && i < OFAN_MAX_W; i++) {
		if (bpf_map_lookup_elem(fd, &i, &q))
			break;
		ns = q.empty_ns > now ? q.empty_ns - now : 0;
		if (ns > s->ports[i].buffer_ns)
			ns = s->ports[i].buffer_ns;
		s->backlog[i] = ns * s->ports[i].bytes_per_ns_q32 >> 32;
		s->overlimits[i] = q.overlimits;
	}
	close(fd);
}

static int read_status(struct status *s)
{
	int fd_cfg, fd_ports, fd_pstats, fd_dests, fd_kstats, fd_stats, fd_rr;
	int fd, ret = -1;
	__u32 i, key, zero = 0;

	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		error("cannot count the CPUs");
		return -1;
	}
	fd_cfg = open_pinned(s->dir, "ofan_config", sizeof(s->cfg), false);
	if (fd_cfg < 0)
		return -1;
	fd_ports = open_pinned(s->dir, "ofan_ports", sizeof(struct ofan_port), false);
	fd_pstats = open_pinned(s->dir, "ofan_port_stats",
				sizeof(struct ofan_port_stats), false);
	fd_dests = open_pinned(s->dir, "ofan_dests", sizeof(struct ofan_dest), false);
	fd_kstats = open_pinned(s->dir, "ofan_key_stats",
				sizeof(struct ofan_key_stats), false);
	fd_stats = open_pinned(s->dir, "ofan_stats", sizeof(struct ofan_stats), false);
	fd_rr = open_pinned(s->dir, "ofan_rr", sizeof(struct ofan_pointer), false);
	s->fd_ptrs = open_pinned(s->dir, "ofan_pointers",
				 sizeof(struct ofan_pointer), false);
	if (fd_ports < 0 || fd_pstats < 0 || fd_dests < 0 || fd_kstats < 0 ||
	    fd_stats < 0 || fd_rr < 0 || s->fd_ptrs < 0)
		goto out;

	/* the set in use; a load flipping it meanwhile is not locked out
	 * (status takes no lock), so this is a snapshot of one moment
	 */
	if (read_active_set(s->dir, &s->set))
		goto out;
	key = ofan_config_index(s->set);
	if (bpf_map_lookup_elem(fd_cfg, &key, &s->cfg))
		goto fail;
	for (i = 0; i < OFAN_MAX_W; i++) {
		key = ofan_port_index(s->set, i);
		if (bpf_map_lookup_elem(fd_ports, &key, &s->ports[i]) ||
		    read_percpu(fd_pstats, i, &s->port_stats[i],
				sizeof(s->port_stats[i]), s->ncpus))
			goto fail;
	}
	for (i = 0; i < OFAN_MAX_KEYS; i++) {
		key = ofan_dest_index(s->set, i);
		if (bpf_map_lookup_elem(fd_dests, &key, &s->dests[i]) ||
		    read_percpu(fd_kstats, i, &s->key_stats[i],
				sizeof(s->key_stats[i]), s->ncpus))
			goto fail;
	}
	if (read_percpu(fd_stats, 0, &s->stats, sizeof(s->stats), s->ncpus) ||
	    bpf_map_lookup_elem(fd_rr, &zero, &s->rr))
		goto fail;
	fd = read_state(s->dir, s->st);
	if (fd >= 0) {
		s->has_state = s->st->magic == SYMOFAN_STATE_MAGIC;
		close(fd);
	}
	s->link_up = uplinks_link_up(s->ports, s->cfg.w);
	read_phantom(s);
	ret = 0;
	goto out;
fail:
	error("cannot read the maps in %s: %s", s->dir, why(errno));
out:
	close(fd_cfg);
	if (fd_ports >= 0)
		close(fd_ports);
	if (fd_pstats >= 0)
		close(fd_pstats);
	if (fd_dests >= 0)
		close(fd_dests);
	if (fd_kstats >= 0)
		close(fd_kstats);
	if (fd_stats >= 0)
		close(fd_stats);
	if (fd_rr >= 0)
		close(fd_rr);
	return ret;
}

static __u64 read_pointer(const struct status *s, __u32 pipe, __u32 key,
			  __u32 cls)
{
	__u32 slot = (pipe * OFAN_MAX_KEYS + key) * OFAN_NR_CLASSES + cls;
	struct ofan_pointer p = {};

	bpf_map_lookup_elem(s->fd_ptrs, &slot, &p);
	return p.counter;
}

static const char *port_ifname(const struct status *s, __u32 i, char *buf)
{
	if (s->has_state && i < s->st->nr_uplinks &&
	    s->st->uplinks[i].ifindex == s->ports[i].ifindex)
		return s->st->uplinks[i].ifname;
	if (if_indextoname(s->ports[i].ifindex, buf))
		return buf;
	return "";
}

/* "IPV4", "IPV6" or "IPV4,IPV6": the next hops of uplink @p. */
#define NEXTHOPS_LEN	(2 * INET6_ADDRSTRLEN)

static void nexthop_string(const struct ofan_port *p, char *buf)
{
	char *pos = buf;

	*buf = '\0';
	if ((p->flags & OFAN_PORT_F_NH4) &&
	    inet_ntop(AF_INET, p->nh4, pos, INET6_ADDRSTRLEN))
		pos += strlen(pos);
	if (p->flags & OFAN_PORT_F_NH6) {
		if (pos != buf)
			*pos++ = ',';
		if (!inet_ntop(AF_INET6, p->nh6, pos, INET6_ADDRSTRLEN))
			*pos = '\0';
	}
	if (!*buf)
		strcpy(buf, "none");
}

/* The next hops of uplink @p as a JSON array of addresses. */
static struct json_object *nexthops_json(const struct ofan_port *p)
{
	struct json_object *a = json_object_new_array();
	char addr[INET6_ADDRSTRLEN];
	int err = 0;

	if ((p->flags & OFAN_PORT_F_NH4) &&
	    inet_ntop(AF_INET, p->nh4, addr, sizeof(addr)))
		err |= jdoc_append(a, json_object_new_string(addr));
	if ((p->flags & OFAN_PORT_F_NH6) &&
	    inet_ntop(AF_INET6, p->nh6, addr, sizeof(addr)))
		err |= jdoc_append(a, json_object_new_string(addr));
	return jdoc_finish(a, err);
}

static bool key_shown(const struct status *s, __u32 k)
{
	return (s->dests[k].flags & OFAN_DEST_F_VALID) ||
	       s->key_stats[k].packets[0] || s->key_stats[k].packets[1] ||
	       s->key_stats[k].no_valid_port;
}

/* the counters of struct ofan_stats, in order */
static const char *const stat_names[] = {
	"local", "unknown_dst", "no_valid_port", "ttl_expired", "malformed",
	"not_ip", "fib_miss", "unconfigured", "not_host", "too_big",
	"uplink_missing",
};

_Static_assert(ARRAY_SIZE(stat_names) ==
	       sizeof(struct ofan_stats) / sizeof(__u64),
	       "a name for every counter of struct ofan_stats");

/* Forwarded packets: the datapath counts them per uplink only. */
static __u64 forwarded(const struct status *s)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < OFAN_MAX_W; i++)
		sum += s->port_stats[i].packets;
	return sum;
}

static struct json_object *fast_json(const struct ofan_config *c)
{
	struct in_addr net = { .s_addr = c->fast_net };
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_bool(o, "enabled", c->fast_enabled);
	err |= jdoc_add_strf(o, "net", "%s/%u", inet_ntoa(net),
			     c->fast_prefix_len);
	err |= jdoc_add_u64(o, "shift", c->fast_shift);
	err |= jdoc_add_u64(o, "mask", c->fast_mask);
	err |= jdoc_add_u64(o, "local_key", c->fast_local_key);
	return jdoc_finish(o, err);
}

static struct json_object *port_json(const struct status *s, __u32 i)
{
	struct json_object *o = json_object_new_object();
	char name[IF_NAMESIZE];
	int err;

	err = jdoc_add_u64(o, "index", i);
	err |= jdoc_add_u64(o, "ifindex", s->ports[i].ifindex);
	err |= jdoc_add_str(o, "ifname", port_ifname(s, i, name));
	err |= jdoc_add(o, "nexthops", nexthops_json(&s->ports[i]));
	err |= jdoc_add_bool(o, "up", (s->cfg.up_ports >> i) & 1);
	err |= jdoc_add_bool(o, "admin_up",
			     !((s->cfg.admin_down_ports >> i) & 1));
	err |= jdoc_add_bool(o, "link_up", (s->link_up >> i) & 1);
	err |= jdoc_add_u64(o, "packets", s->port_stats[i].packets);
	err |= jdoc_add_u64(o, "bytes", s->port_stats[i].bytes);
	err |= jdoc_add_u64(o, "rate_bps", s->ports[i].rate_bps);
	err |= jdoc_add_u64(o, "phantom_backlog_bytes", s->backlog[i]);
	err |= jdoc_add_u64(o, "phantom_overlimits", s->overlimits[i]);
	return jdoc_finish(o, err);
}

static struct json_object *downlink_json(const struct status *s, __u32 i)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "ifindex", s->st->downlinks[i].ifindex);
	err |= jdoc_add_str(o, "ifname", s->st->downlinks[i].ifname);
	err |= jdoc_add_u64(o, "pipe", s->st->downlinks[i].pipe);
	return jdoc_finish(o, err);
}

/* Key @k: its destination, packets and, if configured, pointers. */
static struct json_object *key_json(const struct status *s, __u32 k)
{
	const struct ofan_dest *d = &s->dests[k];
	const struct ofan_key_stats *ks = &s->key_stats[k];
	bool configured = d->flags & OFAN_DEST_F_VALID;
	__u32 p, pipes = s->cfg.nr_pipes ? s->cfg.nr_pipes : 1;
	struct json_object *o = json_object_new_object();
	struct json_object *ports, *packets, *pointers;
	int err;

	err = jdoc_add_u64(o, "key", k);
	err |= jdoc_add_bool(o, "configured", configured);
	err |= jdoc_add_bool(o, "local", d->flags & OFAN_DEST_F_LOCAL);
	err |= jdoc_add_u64(o, "level", d->level);

	ports = json_object_new_array();
	for (p = 0; p < OFAN_MAX_W; p++)
		if ((d->valid_ports >> p) & 1)
			err |= jdoc_append(ports, json_object_new_uint64(p));
	err |= jdoc_add(o, "valid_ports", ports);

	packets = json_object_new_object();
	err |= jdoc_add_u64(packets, "data", ks->packets[OFAN_CLASS_DATA]);
	err |= jdoc_add_u64(packets, "ack", ks->packets[OFAN_CLASS_ACK]);
	err |= jdoc_add(o, "packets", packets);
	err |= jdoc_add_u64(o, "no_valid_port", ks->no_valid_port);

	pointers = json_object_new_array();
	for (p = 0; configured && p < pipes && p < OFAN_MAX_PIPES; p++) {
		struct json_object *ptr = json_object_new_object();
		int ptr_err;

		ptr_err = jdoc_add_u64(ptr, "pipe", p);
		ptr_err |= jdoc_add_u64(ptr, "data",
					read_pointer(s, p, k, OFAN_CLASS_DATA));
		ptr_err |= jdoc_add_u64(ptr, "ack",
					read_pointer(s, p, k, OFAN_CLASS_ACK));
		err |= jdoc_append(pointers, jdoc_finish(ptr, ptr_err));
	}
	err |= jdoc_add(o, "pointers", pointers);
	return jdoc_finish(o, err);
}

static struct json_object *packets_json(const struct status *s)
{
	const __u64 *stats = (const __u64 *)&s->stats;
	struct json_object *o = json_object_new_object();
	int err;
	__u32 i;

	err = jdoc_add_u64(o, "forwarded", forwarded(s));
	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		err |= jdoc_add_u64(o, stat_names[i], stats[i]);
	return jdoc_finish(o, err);
}

/* The status as one JSON object on a line; 0, or -1 after a message. */
static int print_json(const struct status *s)
{
	const struct ofan_config *c = &s->cfg;
	struct json_object *doc = json_object_new_object(), *arr;
	__u32 i, k;
	int err;

	err = jdoc_add_str(doc, "pin_dir", s->dir);
	err |= jdoc_add_str(doc, "config", s->has_state ? s->st->config : "");
	err |= jdoc_add_str(doc, "role", !s->has_state ? "" :
			    s->st->role == OFAN_ROLE_EDGE ? "edge" : "aggregation");
	err |= jdoc_add_u64(doc, "layout_version", c->layout_version);
	err |= jdoc_add_str(doc, "mode", ofan_mode_name(c->mode));
	err |= jdoc_add_u64(doc, "w", c->w);
	err |= jdoc_add_u64(doc, "generation", c->generation);
	err |= jdoc_add_u64(doc, "active_set", s->set);
	err |= jdoc_add_u64(doc, "nr_keys", c->nr_keys);
	err |= jdoc_add_u64(doc, "nr_pipes", c->nr_pipes);
	err |= jdoc_add_u64(doc, "ack_max_bytes", c->ack_max_bytes);
	err |= jdoc_add_u64(doc, "ar_buffer_bytes", c->ar_buffer_bytes);
	err |= jdoc_add_strf(doc, "up_ports_mask", "0x%llx",
			     (unsigned long long)c->up_ports);
	err |= jdoc_add(doc, "fast", fast_json(c));

	arr = json_object_new_array();
	for (i = 0; i < c->w && i < OFAN_MAX_W; i++)
		err |= jdoc_append(arr, port_json(s, i));
	err |= jdoc_add(doc, "ports", arr);

	arr = json_object_new_array();
	for (i = 0; s->has_state && i < s->st->nr_downlinks &&
	     i < OFAN_CONF_MAX_DOWNLINKS; i++)
		err |= jdoc_append(arr, downlink_json(s, i));
	err |= jdoc_add(doc, "downlinks", arr);

	arr = json_object_new_array();
	for (k = 0; k < OFAN_MAX_KEYS; k++)
		if (key_shown(s, k))
			err |= jdoc_append(arr, key_json(s, k));
	err |= jdoc_add(doc, "keys", arr);

	err |= jdoc_add_u64(doc, "rr_pointer", s->rr);
	err |= jdoc_add(doc, "packets", packets_json(s));
	return jdoc_print(stdout, jdoc_finish(doc, err), JSON_C_TO_STRING_PLAIN);
}

static void print_text(const struct status *s)
{
	const struct ofan_config *c = &s->cfg;
	const __u64 *stats = (const __u64 *)&s->stats;
	char name[IF_NAMESIZE], nh[NEXTHOPS_LEN];
	struct in_addr net = { .s_addr = c->fast_net };
	__u32 i, k, p, pipes = c->nr_pipes ? c->nr_pipes : 1;

	printf("ofan at %s", s->dir);
	if (s->has_state)
		printf(" (%s switch, from %s)",
		       s->st->role == OFAN_ROLE_EDGE ? "edge" : "aggregation",
		       s->st->config);
	printf("\n  mode %s, w %u, nr_keys %u, pipes %u, ack-max-bytes %u, ar-buffer %llu, rr pointer %llu\n",
	       ofan_mode_name(c->mode), c->w, c->nr_keys, c->nr_pipes,
	       c->ack_max_bytes, (unsigned long long)c->ar_buffer_bytes,
	       (unsigned long long)s->rr);
	if (c->fast_enabled)
		printf("  fast path %s/%u: key = (dst >> %u) & 0x%x\n",
		       inet_ntoa(net), c->fast_prefix_len, c->fast_shift,
		       c->fast_mask);
	printf("ports:\n");
	for (i = 0; i < c->w && i < OFAN_MAX_W; i++) {
		nexthop_string(&s->ports[i], nh);
		printf("  %2u %-15s via %-15s %-4s %llu packets %llu bytes%s%s\n",
		       i, port_ifname(s, i, name), nh,
		       (c->up_ports >> i) & 1 ? "up" : "down",
		       (unsigned long long)s->port_stats[i].packets,
		       (unsigned long long)s->port_stats[i].bytes,
		       (c->admin_down_ports >> i) & 1 ?
		       " (administratively down)" : "",
		       (s->link_up >> i) & 1 ? "" : " (link down)");
		if (s->ports[i].rate_bps)
			printf("     rate %llu bit/s, phantom backlog %llu bytes, %llu overlimits\n",
			       (unsigned long long)s->ports[i].rate_bps,
			       (unsigned long long)s->backlog[i],
			       (unsigned long long)s->overlimits[i]);
	}
	if (s->has_state) {
		printf("downlinks:");
		for (i = 0; i < s->st->nr_downlinks && i < OFAN_CONF_MAX_DOWNLINKS; i++)
			printf(" %s (pipe %u)%s", s->st->downlinks[i].ifname,
			       s->st->downlinks[i].pipe,
			       i + 1 < s->st->nr_downlinks ? "," : "");
		printf("\n");
	}
	printf("keys:\n");
	for (k = 0; k < OFAN_MAX_KEYS; k++) {
		const struct ofan_dest *d = &s->dests[k];

		if (!key_shown(s, k))
			continue;
		printf("  key %u", k);
		if (!(d->flags & OFAN_DEST_F_VALID))
			printf(" (not configured)");
		else if (d->flags & OFAN_DEST_F_LOCAL)
			printf(" local");
		else
			printf(" ports 0x%llx", (unsigned long long)d->valid_ports);
		printf(": data %llu, ack %llu packets, %llu with no valid port",
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_DATA],
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_ACK],
		       (unsigned long long)s->key_stats[k].no_valid_port);
		for (p = 0; (d->flags & OFAN_DEST_F_VALID) && p < pipes &&
		     p < OFAN_MAX_PIPES; p++)
			printf("; pipe %u pointers data %llu ack %llu", p,
			       (unsigned long long)read_pointer(s, p, k, OFAN_CLASS_DATA),
			       (unsigned long long)read_pointer(s, p, k, OFAN_CLASS_ACK));
		printf("\n");
	}
	printf("packets: forwarded %llu", (unsigned long long)forwarded(s));
	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		printf(" %s %llu", stat_names[i], (unsigned long long)stats[i]);
	printf("\n");
}

int cmd_ofan_status(const struct command *cmd, int argc, char **argv)
{
	struct status *s;
	struct opts o;
	int ret;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR | OPT_JSON, 0,
				   &o));
	if (ret >= 0)
		return ret;
	s = calloc(1, sizeof(*s));
	if (s)
		s->st = calloc(1, sizeof(*s->st));
	if (!s || !s->st) {
		error("out of memory");
		free(s);
		return EXIT_ERROR;
	}
	s->dir = o.pin_dir;
	s->fd_ptrs = -1;
	ret = EXIT_ERROR;
	if (!read_status(s)) {
		ret = EXIT_OK;
		if (!o.json)
			print_text(s);
		else if (print_json(s))
			ret = EXIT_ERROR;
	}
	if (s->fd_ptrs >= 0)
		close(s->fd_ptrs);
	free(s->st);
	free(s);
	return ret;
}
