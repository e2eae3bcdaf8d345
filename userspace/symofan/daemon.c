// SPDX-License-Identifier: GPL-2.0
/*
 * daemon.c - "symofan daemon": keeps Ofan's valid-port state in step with
 * the kernel's links and routes, as daemon_netlink.c sees them.
 *
 * Uplink p is up in ofan_config.up_ports while its link is IFF_UP and
 * IFF_RUNNING.  The valid ports of a northbound key (ofan_dests) are the
 * uplinks whose next hop (gateway and output device) is a nexthop of the
 * main-table route of each of the key's prefixes: the route of exactly that
 * prefix, else the longest route covering it (a route more specific than
 * the prefix, which covers only part of the key's destinations, is not
 * the key's route; the datapath's key covers the whole prefix).  A route
 * through a nexthop object (RTA_NH_ID, as FRR installs them) leads over
 * the object's next hops, or its group members', as they are now.  The sets of its prefixes are
 * intersected (a port is valid only if it leads to all of the key's
 * destinations), then ANDed with the ports the config lists for the key.
 * A prefix without any route does not constrain the key, and a key none of
 * whose prefixes has a route keeps its configured ports.  Local keys and
 * keys the maps do not hold are left alone.
 *
 * An uplink the operator set down ("symofan ofan port P down":
 * ofan_config.admin_down_ports) stays down whatever its link does.
 *
 * After each batch of messages the changed entries are written under the
 * pin-folder lock, nothing else: pointers and counters stay, and a killed
 * daemon leaves the datapath as it was.  Before writing, the daemon checks
 * that the maps it holds are still those pinned, of the load it read: after
 * "ofan unload" and "ofan load" (new maps) or a reload (ofan_config's
 * generation moved on) it reads the pin folder and the config again, and
 * follows the new load; with nothing pinned any more it exits.  SIGHUP
 * makes it read them again too.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/signalfd.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "daemon.h"
#include "ofan.h"
#include "tool_util.h"

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
		valid[k] &= route_ports(d, r);
	}
}

static __u64 compute_up(const struct daemon *d)
{
	const struct dlink *l;
	__u64 up = 0;
	__u32 i;

	for (i = 0; i < d->w; i++) {
		l = find_link(d, d->ports[i].ifindex);
		if (l && link_flags_up(l->flags))
			up |= 1ULL << i;
	}
	return up;
}

static __u64 w_mask(__u32 w)
{
	return w >= 64 ? ~0ULL : (1ULL << w) - 1;
}

/* ---- writing the maps ----------------------------------------------- */

/* The id of the map pinned as @dir/ofan_config: 0 when nothing is. */
static __u32 pinned_config_id(const char *dir)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	int fd;

	pin_path(path, sizeof(path), dir, "ofan_config");
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

/*
 * Reads ofan_config into @cfg, checking that it is the load's the daemon
 * read: 0 if so, 1 if the folder was loaded again since (other maps, or
 * another generation), -1 if nothing is loaded there any more or on error.
 */
static int read_config(struct daemon *d, struct ofan_config *cfg)
{
	__u32 id = pinned_config_id(d->dir), set;

	if (!id) {
		error("%s was unloaded (no ofan_config pinned): exiting", d->dir);
		return -1;
	}
	if (id != d->cfg_map_id)
		return 1;
	/* a load writes the other set, then makes it the active one */
	if (read_active_set_fd(d->fd_active, d->dir, &set))
		return -1;
	if (set != d->set)
		return 1;
	if (bpf_map_lookup_elem(d->fd_cfg, &d->set, cfg)) {
		error("cannot read %s/ofan_config: %s", d->dir, why(errno));
		return -1;
	}
	if (cfg->generation != d->generation)
		return 1;
	if (cfg->layout_version != OFAN_LAYOUT_VERSION || cfg->w != d->w) {
		error("%s/ofan_config changed under the daemon (layout %u, w %u; was %u, %u): restart symofan daemon",
		      d->dir, cfg->layout_version, cfg->w, OFAN_LAYOUT_VERSION,
		      d->w);
		return -1;
	}
	return 0;
}

static int setup(struct daemon *d);
static void teardown(struct daemon *d);

/* The folder was loaded again: read it and the config anew, dump again. */
static int follow_reload(struct daemon *d)
{
	printf("%s was loaded again: reading it and %s anew\n", d->dir,
	       d->st->config);
	teardown(d);
	if (setup(d))
		return -1;
	d->redump_links = d->redump_nexthops = d->redump4 = d->redump6 = true;
	return redump(d);
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
	int lock_fd = -1, ret = -1, err;
	__u32 k, i, slot, changed = 0;
	bool locked = false;

again:
	err = read_config(d, &cfg);
	if (err > 0) {
		if (follow_reload(d))
			goto out;
		mask = w_mask(d->w);
		goto again;
	}
	if (err < 0)
		goto out;
	up = compute_up(d) & ~cfg.admin_down_ports;
	compute_keys(d, valid, routed);
	new_up = (cfg.up_ports & ~mask) | (up & mask);
	if (new_up != cfg.up_ports) {
		if (!locked)
			goto lock;
		diff = new_up ^ cfg.up_ports;
		cfg.up_ports = new_up;
		if (bpf_map_update_elem(d->fd_cfg, &d->set, &cfg, BPF_ANY)) {
			error("cannot write %s/ofan_config: %s", d->dir,
			      why(errno));
			goto out;
		}
		for (i = 0; i < d->w; i++)
			if ((diff >> i) & 1)
				printf("uplink %u (%s) %s%s\n", i,
				       d->conf->uplinks[i].ifname,
				       (new_up >> i) & 1 ? "up" : "down",
				       (cfg.admin_down_ports >> i) & 1 ?
				       " (administratively)" : "");
		changed++;
	}
	for (k = 0; k < OFAN_MAX_KEYS; k++) {
		const struct ofan_conf_key *ck = &d->conf->keys[k];

		if (!ck->line || ck->local)
			continue;
		slot = ofan_dest_index(d->set, k);
		if (bpf_map_lookup_elem(d->fd_dests, &slot, &dest)) {
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
		if (bpf_map_update_elem(d->fd_dests, &slot, &dest, BPF_ANY)) {
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
	__u32 len = sizeof(info), version;
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
	/* entry 0 tells the layout, whatever the layout */
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, buf)) {
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
	d->fd_active = open_pinned(d->dir, "ofan_active",
				   sizeof(struct ofan_active), false);
	if (d->fd_active < 0 || read_active_set_fd(d->fd_active, d->dir, &d->set))
		goto fail;
	if (bpf_map_lookup_elem(fd, &d->set, cfg)) {
		error("cannot read %s: %s", path, why(errno));
		goto fail;
	}
	free(buf);
	d->cfg_map_id = info.id;
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

		if (u->ifindex != p->ifindex || u->nh_flags != p->flags ||
		    memcmp(u->nh4, p->nh4, sizeof(p->nh4)) ||
		    memcmp(u->nh6, p->nh6, sizeof(p->nh6)))
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
	d->generation = cfg.generation;
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
		__u32 key = ofan_port_index(d->set, i);

		if (bpf_map_lookup_elem(fd_ports, &key, &d->ports[i])) {
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
	if (d->fd_active >= 0)
		close(d->fd_active);
	d->fd_cfg = d->fd_dests = d->fd_active = -1;
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
	d->redump_links = d->redump_nexthops = d->redump4 = d->redump6 = true;
	if (redump(d) || apply(d))
		return -1;
	printf("in sync: %zu links, %zu routes\n", d->nr_links, d->nr_routes);
	return 0;
}

int daemon_view(const struct ofan_conf *conf, __u64 *valid)
{
	/* compute_keys() only reads the config */
	struct daemon d = { .once = true, .conf = (struct ofan_conf *)conf,
			    .w = conf->w, .fd_cfg = -1, .fd_dests = -1,
			    .fd_active = -1 };
	static bool routed[OFAN_MAX_KEYS];
	int ret = -1;
	__u32 i;

	for (i = 0; i < d.w; i++)
		ofan_conf_port(conf, i, &d.ports[i]);
	d.redump_links = d.redump_nexthops = d.redump4 = d.redump6 = true;
	if (open_sockets(&d) || redump(&d))
		goto out;
	compute_keys(&d, valid, routed);
	ret = 0;
out:
	if (d.dump)
		mnl_socket_close(d.dump);
	forget_nexthops(&d);
	free(d.nexthops);
	free(d.links);
	free(d.routes);
	return ret;
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
			continue;
		}
		if (!(pfd[0].revents & (POLLIN | POLLERR)))
			continue;
		if (read_events(d) || redump(d) || apply(d))
			return -1;
	}
}

int cmd_daemon(const struct command *cmd, int argc, char **argv)
{
	struct daemon d = { .fd_cfg = -1, .fd_dests = -1, .fd_active = -1 };
	int ret, sig_fd = -1;
	struct opts o;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR | OPT_ONCE |
				   OPT_VERBOSE, 0, &o));
	if (ret >= 0)
		return ret;
	d.dir = o.pin_dir;
	d.once = o.once;
	d.verbose = o.verbose;
	ret = EXIT_ERROR;
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
	forget_nexthops(&d);
	free(d.nexthops);
	free(d.links);
	free(d.routes);
	return ret;
}
