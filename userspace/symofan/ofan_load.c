// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_load.c - "symofan ofan load CONFIG" and "symofan ofan unload": load
 * the Ofan tc-BPF load balancer (bpf/ofan.bpf.c) from a switch description
 * (userspace/ofan.conf.5.md), fill and pin its maps, attach it to the
 * ingress of the downlinks; and take all of it back.  Where the kernel has
 * tcx (6.6 and later) a downlink runs the program by a tcx link pinned in
 * the folder as tcx_ingress_IFINDEX, pinned only once the whole load has
 * succeeded (a load that fails or is killed before leaves the new
 * downlinks as they were); elsewhere by a filter on its clsact ingress.
 *
 * Everything lives under the pin folder (default /sys/fs/bpf/ofan, mode
 * 0700): the program's maps and the program under their own names (0600),
 * and the agent's map "symofan_state" (state.h) with what a later load or
 * unload needs: the network namespace and downlinks the program is
 * attached to, and which pointers were initialised.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "daemon.h"
#include "ofan.h"
#include "ofan.skel.h"
#include "ofan/ofan_perm.h"
#include "state.h"
#include "tc_attach.h"
#include "tool_util.h"

/* tc filter handle and priority of the attachment, "fa" for Ofan */
#define OFAN_TC_HANDLE		0xfa
#define OFAN_TC_PRIORITY	0xfa

#define OFAN_PROG_PIN		"ofan_ingress"
/* a downlink's tcx link: OFAN_LINK_PIN_PREFIX and its ifindex */
#define OFAN_LINK_PIN_PREFIX	"tcx_ingress_"

#define __maybe_unused		__attribute__((__unused__))

/* ---- random starts of the pointers ---------------------------------- */

static __u64 rng_state;

static void rng_seed(const struct ofan_conf *conf)
{
	if (conf->has_seed) {
		rng_state = ofan_perm_mix(conf->seed);
	} else if (getrandom(&rng_state, sizeof(rng_state), 0) !=
		   sizeof(rng_state)) {
		rng_state = ofan_perm_mix((__u64)time(NULL) ^ getpid());
	}
	if (!rng_state)
		rng_state = 1;
}

/* uniform enough in [0, n) for n <= 64 */
static __u32 rng_below(__u32 n)
{
	return (__u32)(ofan_perm_rand(&rng_state) >> 32) % n;
}

/* ---- load ----------------------------------------------------------- */

/* How a downlink runs the program. */
struct downlink_hook {
	struct tc_attach	t;
	struct tc_attach_info	info;
	char			pin[BPFFS_DIR_MAX + 64];
};

/* The ingress hook of @ifindex, its link pinned in @dir. */
static void downlink_hook(struct downlink_hook *h, const char *dir,
			  __u32 ifindex, __u32 own_prog_id)
{
	char name[32];

	snprintf(name, sizeof(name), OFAN_LINK_PIN_PREFIX "%u", ifindex);
	pin_path(h->pin, sizeof(h->pin), dir, name);
	h->t = (struct tc_attach){ .ifindex = ifindex, .egress = false,
				   .handle = OFAN_TC_HANDLE,
				   .priority = OFAN_TC_PRIORITY,
				   .link_pin = h->pin,
				   .prog_name = OFAN_PROG_PIN,
				   .own_prog_id = own_prog_id,
				   .defer_pin = true };
	h->info.link_fd = -1;
}

struct loader {
	struct ofan_conf	*conf;
	struct ofan_bpf		*skel;
	struct symofan_state	*state;
	bool			had_state;
	__u64			up_ports;	/* link up, not admin down */
	__u64			admin_down;	/* kept from the last load */
	__u64			generation;	/* the last load's */
	__u64			valid[OFAN_MAX_KEYS];	/* per key, as routed */
	__u32			set;		/* the set this load writes */
	bool			had_config;	/* the other set was in use */
	__u32			inited;		/* pointers started now */
	__u32			stale_prefixes;
	__u32			detached;
	struct downlink_hook	*hooks;		/* conf's downlinks' */
};

static int map_fd(struct bpf_map *map)
{
	return bpf_map__fd(map);
}

static int load_ports(struct loader *l)
{
	int fd = map_fd(l->skel->maps.ofan_ports);
	struct ofan_port port;
	__u32 i;

	for (i = 0; i < OFAN_MAX_W; i++) {
		__u32 slot = ofan_port_index(l->set, i);

		memset(&port, 0, sizeof(port));
		if (i < l->conf->w)
			ofan_conf_port(l->conf, i, &port);
		if (bpf_map_update_elem(fd, &slot, &port, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * The data pointer of each declared key and pipe starts at a random
 * position, its ACK pointer half a round later; slots initialised by an
 * earlier load keep their counters, slots of keys no longer declared are
 * forgotten (a key declared again starts afresh).
 */
static int load_pointers(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int fd = map_fd(l->skel->maps.ofan_pointers);
	int rr_fd = map_fd(l->skel->maps.ofan_rr);
	struct ofan_pointer ptr;
	__u32 pipe, key, bit, slot, zero = 0;
	__u64 *words = l->state->ptr_init;

	for (pipe = 0; pipe < OFAN_MAX_PIPES; pipe++) {
		for (key = 0; key < OFAN_MAX_KEYS; key++) {
			bit = pipe * OFAN_MAX_KEYS + key;
			if (pipe >= conf->nr_pipes || !conf->keys[key].line) {
				words[bit / 64] &= ~(1ULL << (bit % 64));
				continue;
			}
			if ((words[bit / 64] >> (bit % 64)) & 1)
				continue;
			slot = (pipe * OFAN_MAX_KEYS + key) * OFAN_NR_CLASSES;
			ptr.counter = rng_below(conf->w);
			if (bpf_map_update_elem(fd, &slot, &ptr, BPF_ANY))
				return -errno;
			slot += OFAN_CLASS_ACK;
			ptr.counter += conf->w / 2;
			if (bpf_map_update_elem(fd, &slot, &ptr, BPF_ANY))
				return -errno;
			words[bit / 64] |= 1ULL << (bit % 64);
			l->inited += OFAN_NR_CLASSES;
		}
	}
	if (!(l->state->flags & SYMOFAN_F_RR_INIT)) {
		ptr.counter = rng_below(conf->w);
		if (bpf_map_update_elem(rr_fd, &zero, &ptr, BPF_ANY))
			return -errno;
		l->state->flags |= SYMOFAN_F_RR_INIT;
	}
	return 0;
}

/* Each declared key: its valid ports and its pointers' port orders. */
static int load_dests(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int fd = map_fd(l->skel->maps.ofan_dests);
	__u8 perm[OFAN_MAX_W] = {};
	struct ofan_dest dest;
	__u32 key, slot;

	if (ofan_base_perm(conf->w, perm) < 0)
		return -EINVAL;
	for (key = 0; key < OFAN_MAX_KEYS; key++) {
		memset(&dest, 0, sizeof(dest));
		if (conf->keys[key].line) {
			dest.valid_ports = l->valid[key];
			dest.flags = OFAN_DEST_F_VALID;
			if (conf->keys[key].local)
				dest.flags |= OFAN_DEST_F_LOCAL;
			dest.level = conf->role == OFAN_ROLE_AGGREGATION;
			ofan_dest_fill_orders(&dest, perm, conf->w, key,
					      conf->nr_keys);
		}
		slot = ofan_dest_index(l->set, key);
		if (bpf_map_update_elem(fd, &slot, &dest, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int cmp_conf_prefix(const void *a, const void *b)
{
	const struct ofan_conf_prefix *x = a, *y = b;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->addr, y->addr, 16);
}

/*
 * The entries of LPM map @fd (of @family) that the config does not hold:
 * *@stale, a calloc()ed array of *@nr_stale keys (an IPv4 key fits in an
 * IPv6 one); *@nr_present, how many entries the map holds.
 */
static int lpm_scan(const struct ofan_conf *conf, int fd, __u32 family,
		    struct ofan_lpm6_key **stale, __u32 *nr_stale,
		    __u32 *nr_present)
{
	struct ofan_conf_prefix probe = { .family = family };
	size_t addr_len = family == AF_INET ? 4 : 16;
	struct ofan_lpm6_key key, next;
	void *cur = NULL;

	*nr_stale = *nr_present = 0;
	*stale = calloc(OFAN_MAX_PREFIXES, sizeof(**stale));
	if (!*stale)
		return -ENOMEM;
	memset(&next, 0, sizeof(next));
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		(*nr_present)++;
		memset(probe.addr, 0, 16);
		probe.len = next.prefix_len;
		memcpy(probe.addr, next.addr, addr_len);
		if (!bsearch(&probe, conf->prefixes, conf->nr_prefixes,
			     sizeof(*conf->prefixes), cmp_conf_prefix) &&
		    *nr_stale < OFAN_MAX_PREFIXES)
			(*stale)[(*nr_stale)++] = next;
		key = next;
		cur = &key;
	}
	return 0;
}

static int lpm_delete(int fd, const struct ofan_lpm6_key *keys, __u32 nr)
{
	__u32 i;

	for (i = 0; i < nr; i++)
		if (bpf_map_delete_elem(fd, &keys[i]) && errno != ENOENT)
			return -errno;
	return 0;
}

/*
 * The config's prefixes of @family into LPM map @fd, as their keys of set
 * @set; the other set's key of a prefix already there stays (packets of
 * the set in use read it until the flip), a new prefix has none there.
 */
static int lpm_insert(const struct ofan_conf *conf, int fd, __u32 family,
		      __u32 set)
{
	__u32 i;

	for (i = 0; i < conf->nr_prefixes; i++) {
		const struct ofan_conf_prefix *pfx = &conf->prefixes[i];
		struct ofan_lpm6_key k = { .prefix_len = pfx->len };
		struct ofan_dst_keys v;

		if (pfx->family != family)
			continue;
		memcpy(k.addr, pfx->addr, family == AF_INET ? 4 : 16);
		if (bpf_map_lookup_elem(fd, &k, &v))
			v.key[0] = v.key[1] = OFAN_SET_NONE;
		v.key[set & 1] = pfx->key;
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Prefixes leaving with this load: no key in set @set, the one being
 * written; they go once it is in use (lpm_retire()).
 */
static int lpm_unset(int fd, const struct ofan_lpm6_key *keys, __u32 nr,
		     __u32 set)
{
	struct ofan_dst_keys v;
	__u32 i;

	for (i = 0; i < nr; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &v))
			continue;
		v.key[set & 1] = OFAN_SET_NONE;
		if (bpf_map_update_elem(fd, &keys[i], &v, BPF_EXIST) &&
		    errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* After the flip to set @set: the prefixes without a key there go. */
static int lpm_retire(int fd, __u32 set)
{
	struct ofan_lpm6_key key, next, *gone;
	struct ofan_dst_keys v;
	__u32 nr = 0;
	void *cur = NULL;
	int err;

	gone = calloc(OFAN_MAX_PREFIXES, sizeof(*gone));
	if (!gone)
		return -ENOMEM;
	memset(&next, 0, sizeof(next));
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, &v) &&
		    v.key[set & 1] == OFAN_SET_NONE && nr < OFAN_MAX_PREFIXES)
			gone[nr++] = next;
		key = next;
		cur = &key;
	}
	err = lpm_delete(fd, gone, nr);
	free(gone);
	return err;
}

/*
 * The config's prefixes of @family replace those in LPM map @fd, in the
 * set this load writes: the set in use keeps its keys until the flip, and
 * leaving prefixes lose only the new set's key, to go after the flip.
 * When the map cannot hold both at once (OFAN_MAX_PREFIXES), the leaving
 * ones go first (their destinations take the kernel path a moment early,
 * never another load's key), so that an insert never fails half-way on a
 * full map.
 */
static int load_family_prefixes(struct loader *l, int fd, __u32 family)
{
	const struct ofan_conf *conf = l->conf;
	__u32 nr_stale, nr_present, nr_conf = 0, adds, i;
	struct ofan_lpm6_key *stale;
	int err;

	for (i = 0; i < conf->nr_prefixes; i++)
		nr_conf += conf->prefixes[i].family == family;
	err = lpm_scan(conf, fd, family, &stale, &nr_stale, &nr_present);
	if (err)
		return err;
	adds = nr_conf - (nr_present - nr_stale);
	if (nr_present + adds > OFAN_MAX_PREFIXES) {
		err = lpm_delete(fd, stale, nr_stale);
		if (!err)
			err = lpm_insert(conf, fd, family, l->set);
	} else {
		err = lpm_insert(conf, fd, family, l->set);
		if (!err)
			err = lpm_unset(fd, stale, nr_stale, l->set);
	}
	if (!err)
		l->stale_prefixes += nr_stale;
	free(stale);
	return err;
}

static int load_prefixes(struct loader *l)
{
	int err;

	err = load_family_prefixes(l, map_fd(l->skel->maps.ofan_dst4), AF_INET);
	return err ? err : load_family_prefixes(l, map_fd(l->skel->maps.ofan_dst6),
						AF_INET6);
}

static bool conf_has_downlink(const struct ofan_conf *conf, __u32 ifindex)
{
	__u32 i;

	for (i = 0; i < conf->nr_downlinks; i++)
		if (conf->downlinks[i].ifindex == ifindex)
			return true;
	return false;
}

/*
 * The downlinks' pipes, in the set this load writes; a downlink that
 * leaves keeps its pipe in the set in use until the flip (load_retire()).
 */
static int load_pipes(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int fd = map_fd(l->skel->maps.ofan_pipes);
	__u32 i, key, next, *cur = NULL, set = l->set & 1;
	struct ofan_pipe_sets v;

	for (i = 0; i < conf->nr_downlinks; i++) {
		if (bpf_map_lookup_elem(fd, &conf->downlinks[i].ifindex, &v))
			v.pipe[0] = v.pipe[1] = OFAN_SET_NONE;
		v.pipe[set] = conf->downlinks[i].pipe;
		if (bpf_map_update_elem(fd, &conf->downlinks[i].ifindex, &v,
					BPF_ANY))
			return -errno;
	}
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (conf_has_downlink(conf, key) ||
		    bpf_map_lookup_elem(fd, &key, &v))
			continue;
		v.pipe[set] = OFAN_SET_NONE;
		bpf_map_update_elem(fd, &key, &v, BPF_EXIST);
	}
	return 0;
}

static int load_config(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	struct ofan_config cfg = {
		.layout_version	= OFAN_LAYOUT_VERSION,
		.mode		= conf->mode,
		.w		= conf->w,
		.nr_keys	= conf->nr_keys,
		.ack_max_bytes	= conf->ack_max_bytes,
		.nr_pipes	= conf->nr_pipes,
		.up_ports	= l->up_ports,
		.admin_down_ports = l->admin_down,
		.generation	= l->generation + 1,
		.nh4_ports	= ofan_conf_family_ports(conf, AF_INET),
		.nh6_ports	= ofan_conf_family_ports(conf, AF_INET6),
		.ar_buffer_bytes = conf->ar_buffer_bytes,
	};
	__u32 key;

	if (conf->fast_enabled)
		ofan_config_set_fast(&cfg, conf->fast_net, conf->fast_prefix_len,
				     conf->fast_shift, conf->fast_mask);

	for (key = 0; key < OFAN_MAX_KEYS; key++) {
		if (conf->keys[key].line && conf->keys[key].local) {
			cfg.fast_local_key = key;
			break;
		}
	}
	if (ofan_base_perm(conf->w, cfg.perm) < 0)
		return -EINVAL;
	if (bpf_map_update_elem(map_fd(l->skel->maps.ofan_config), &l->set,
				&cfg, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * Makes the set this load wrote the one in use: one aligned 32-bit store
 * (array map values are copied in place), read once per packet.
 */
static int load_publish(struct loader *l)
{
	struct ofan_active active = { .set = l->set };
	__u32 zero = 0;

	if (bpf_map_update_elem(map_fd(l->skel->maps.ofan_active), &zero,
				&active, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * After the flip: the phantom backlog (ar, jsq) of an uplink whose
 * interface or rate this load changes starts empty, as a new port's
 * queue would; the others keep theirs, which drains on.  A packet that
 * read the old set just before the flip may still add its bytes at the
 * old rate: the datapath bounds a backlog by its port's buffer_ns, so
 * that costs one decision's precision, nothing else.
 */
static int load_ar_queues(struct loader *l)
{
	int fd = map_fd(l->skel->maps.ofan_ar_queues);
	int ports_fd = map_fd(l->skel->maps.ofan_ports);
	struct ofan_port old, cur;
	struct ofan_ar_queue q;
	__u32 i, slot;

	for (i = 0; i < l->conf->w; i++) {
		slot = ofan_port_index(l->set, i);
		if (bpf_map_lookup_elem(ports_fd, &slot, &cur))
			return -errno;
		memset(&old, 0, sizeof(old));
		slot = ofan_port_index(l->set ^ 1, i);
		if (l->had_config &&
		    bpf_map_lookup_elem(ports_fd, &slot, &old))
			return -errno;
		if (l->had_config && old.ifindex == cur.ifindex &&
		    old.rate_bps == cur.rate_bps)
			continue;
		memset(&q, 0, sizeof(q));
		/* under the entry's lock, as the datapath updates it */
		if (bpf_map_update_elem(fd, &i, &q, BPF_F_LOCK))
			return -errno;
	}
	return 0;
}

/*
 * After the flip: the prefixes and downlinks the set now in use has no
 * key or pipe for go.  A packet that read the old set just before the
 * flip and looks one up now finds none: the kernel path, never a mix.
 */
static int load_retire(struct loader *l)
{
	int fd = map_fd(l->skel->maps.ofan_pipes), err;
	__u32 key, next, *cur = NULL, gone[OFAN_MAX_PIPE_PORTS], nr = 0, i;
	struct ofan_pipe_sets v;

	err = lpm_retire(map_fd(l->skel->maps.ofan_dst4), l->set);
	if (!err)
		err = lpm_retire(map_fd(l->skel->maps.ofan_dst6), l->set);
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		key = next;
		cur = &key;
		if (!bpf_map_lookup_elem(fd, &key, &v) &&
		    v.pipe[l->set & 1] == OFAN_SET_NONE &&
		    nr < OFAN_MAX_PIPE_PORTS)
			gone[nr++] = key;
	}
	for (i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &gone[i]);
	return err;
}


/*
 * The ifindex of recorded link @ln if it still names the same interface
 * in this namespace, else that of its name, else 0.
 */
static __u32 link_ifindex(const struct symofan_link *ln)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ln->ifindex, name) && !strcmp(name, ln->ifname))
		return ln->ifindex;
	return if_nametoindex(ln->ifname);
}

/*
 * Detaches the program pinned in @dir from @ifindex (its link and its
 * clsact filter); 0 also when it was not there.
 */
static int detach_link(const char *dir, __u32 ifindex)
{
	struct downlink_hook h;
	int err;

	if (!ifindex)
		return 0;
	downlink_hook(&h, dir, ifindex, 0);
	err = tc_detach_prog(&h.t);
	return err == -ENOENT ? 0 : err;
}

/* New links of this load not pinned yet: dropped, detaching them. */
static void load_abort_links(struct loader *l)
{
	__u32 i;

	for (i = 0; l->hooks && i < l->conf->nr_downlinks; i++)
		tc_attach_abort(&l->hooks[i].info);
}

/* Once the load has succeeded: its new links pinned. */
static int load_commit_links(struct loader *l)
{
	__u32 i;
	int err;

	for (i = 0; i < l->conf->nr_downlinks; i++) {
		err = tc_attach_commit(&l->hooks[i].t, &l->hooks[i].info);
		if (err) {
			error("cannot pin the link of %s at %s: %s",
			      l->conf->downlinks[i].ifname, l->hooks[i].pin,
			      why(-err));
			load_abort_links(l);
			return err;
		}
	}
	return 0;
}

static int load_attach(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int prog_fd = bpf_program__fd(l->skel->progs.ofan_ingress);
	__u32 i, ifindex, own;
	struct downlink_hook *h;
	char foreign[160], path[256];
	int err;

	pin_path(path, sizeof(path), conf->pin_dir, OFAN_PROG_PIN);
	own = tc_pinned_prog_id(path);

	l->hooks = calloc(conf->nr_downlinks ? conf->nr_downlinks : 1,
			  sizeof(*l->hooks));
	if (!l->hooks) {
		error("out of memory");
		return -ENOMEM;
	}
	/* a load that fails at one downlink drops the links of all */
	for (i = 0; i < conf->nr_downlinks; i++)
		l->hooks[i].info.link_fd = -1;
	for (i = 0; i < conf->nr_downlinks; i++) {
		const struct ofan_conf_downlink *d = &conf->downlinks[i];

		h = &l->hooks[i];
		downlink_hook(h, conf->pin_dir, d->ifindex, own);
		err = tc_attach_prog(&h->t, prog_fd, &h->info);
		if (err == -EBUSY) {
			error("the ingress of %s runs another pin folder's Ofan program (%s); unload it there first",
			      d->ifname,
			      tc_foreign_text(&h->info, d->ifname, false,
					      foreign, sizeof(foreign)));
			return err;
		}
		if (err) {
			error("cannot attach to the ingress of %s: %s",
			      d->ifname, why(-err));
			return err;
		}
	}
	/* downlinks of the previous load that this config drops */
	for (i = 0; l->had_state && i < l->state->nr_downlinks; i++) {
		ifindex = link_ifindex(&l->state->downlinks[i]);
		if (!ifindex || conf_has_downlink(conf, ifindex))
			continue;
		err = detach_link(conf->pin_dir, ifindex);
		if (err)
			error("warning: cannot detach from %s: %s",
			      l->state->downlinks[i].ifname, why(-err));
		else
			l->detached++;
	}
	return 0;
}

/* Pins the program atomically over the previous one. */
static int load_pin_prog(struct loader *l, const char *dir)
{
	char path[256], tmp[256];
	int err;

	pin_path(path, sizeof(path), dir, OFAN_PROG_PIN);
	pin_path(tmp, sizeof(tmp), dir, OFAN_PROG_PIN "_new");
	unlink(tmp);
	err = bpf_program__pin(l->skel->progs.ofan_ingress, tmp);
	if (err) {
		error("cannot pin the program at %s: %s", tmp, why(-err));
		return err;
	}
	if (rename(tmp, path)) {
		err = -errno;
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		return err;
	}
	return 0;
}


/*
 * The maps pinned by an earlier load must have this layout (entry 0 of
 * ofan_config tells); from the config in use, the operator's down uplinks
 * (those still below w) and the generation carry over, and this load
 * writes the other set.
 */
/*
 * The uplinks set down by "ofan port N down" under the last load, as
 * indexes of this load: an administrative state belongs to an interface,
 * so it follows the interface's name to its new index (or goes with an
 * interface the new configuration drops).  Without the last load's
 * names (no state recorded), by index as before.
 */
static __u64 admin_down_by_name(const struct loader *l, __u64 old_down)
{
	const struct symofan_state *st = l->state;
	const struct ofan_conf *conf = l->conf;
	__u64 down = 0;
	__u32 i, j;

	if (!l->had_state || !st->nr_uplinks)
		return old_down & (conf->w >= OFAN_MAX_W ? ~0ULL :
				   (1ULL << conf->w) - 1);
	for (i = 0; i < st->nr_uplinks && i < OFAN_MAX_W; i++) {
		if (!((old_down >> i) & 1))
			continue;
		for (j = 0; j < conf->w; j++)
			if (!strncmp(st->uplinks[i].ifname,
				     conf->uplinks[j].ifname, IFNAMSIZ))
				down |= 1ULL << j;
	}
	return down;
}

static int check_layout(struct loader *l, const char *dir)
{
	struct ofan_active active = {};
	struct ofan_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(map_fd(l->skel->maps.ofan_config), &zero,
				&cfg)) {
		error("cannot read %s/ofan_config: %s", dir, why(errno));
		return -1;
	}
	if (cfg.layout_version && cfg.layout_version != OFAN_LAYOUT_VERSION) {
		error("the maps pinned in %s have layout %u, this symofan %u: unload first",
		      dir, cfg.layout_version, OFAN_LAYOUT_VERSION);
		return -1;
	}
	l->set = 0;
	if (!cfg.layout_version)
		return 0;	/* new maps: set 0, active already */
	if (bpf_map_lookup_elem(map_fd(l->skel->maps.ofan_active), &zero,
				&active)) {
		error("cannot read %s/ofan_active: %s", dir, why(errno));
		return -1;
	}
	active.set = ofan_config_index(active.set);
	if (bpf_map_lookup_elem(map_fd(l->skel->maps.ofan_config), &active.set,
				&cfg)) {
		error("cannot read %s/ofan_config: %s", dir, why(errno));
		return -1;
	}
	l->set = active.set ^ 1;
	l->had_config = true;
	l->admin_down = admin_down_by_name(l, cfg.admin_down_ports);
	l->generation = cfg.generation;
	return 0;
}

/* 0600 also for pins made under another umask by an earlier load */
static void chmod_pins(struct ofan_bpf *skel, const char *dir)
{
	struct bpf_map *map;
	char path[256];

	bpf_object__for_each_map(map, skel->obj) {
		pin_path(path, sizeof(path), dir, bpf_map__name(map));
		chmod(path, 0600);
	}
	pin_path(path, sizeof(path), dir, OFAN_PROG_PIN);
	chmod(path, 0600);
	pin_path(path, sizeof(path), dir, SYMOFAN_STATE_PIN);
	chmod(path, 0600);
}

static int do_load(struct ofan_conf *conf, const char *config)
{
	struct ofan_port ports[OFAN_MAX_W];
	struct loader l = { .conf = conf };
	const char *dir = conf->pin_dir;
	__u64 ns_dev, ns_ino;
	struct bpf_map *map;
	char path[256];
	int lock_fd = -1, state_fd = -1, err, ret = EXIT_ERROR;
	__u32 zero = 0, i, up = 0;

	if (netns_id(&ns_dev, &ns_ino) || check_bpffs(dir))
		return EXIT_ERROR;
	umask(0077);
	/* new folders 0700; one that exists must be this user's alone */
	if (make_pin_dir(dir))
		return EXIT_ERROR;
	lock_fd = lock_dir(dir);
	if (lock_fd < 0)
		return EXIT_ERROR;

	l.state = calloc(1, sizeof(*l.state));
	if (!l.state) {
		error("out of memory");
		goto out;
	}
	state_fd = open_state(dir, l.state, &l.had_state);
	if (state_fd < 0)
		goto out;
	if (l.had_state && l.state->nr_downlinks &&
	    (l.state->netns_dev != ns_dev || l.state->netns_ino != ns_ino)) {
		error("%s is loaded from another network namespace (net:[%llu]): unload it there first (or unload --force if it is gone)",
		      dir, (unsigned long long)l.state->netns_ino);
		goto out;
	}

	l.skel = ofan_bpf__open();
	if (!l.skel) {
		error("cannot open the BPF object: %s", strerror(errno));
		goto out;
	}
	bpf_object__for_each_map(map, l.skel->obj) {
		if (bpf_map__is_internal(map))
			continue;
		pin_path(path, sizeof(path), dir, bpf_map__name(map));
		err = bpf_map__set_pin_path(map, path);
		if (err) {
			error("cannot set the pin path %s: %s", path,
			      strerror(-err));
			goto out;
		}
	}
	err = ofan_bpf__load(l.skel);
	if (err) {
		error("cannot load the BPF program (pins of another layout in %s? unload first): %s",
		      dir, why(-err));
		goto out;
	}
	if (check_layout(&l, dir))
		goto out;
	/* routes as the daemon sees them, so that the maps agree with the
	 * kernel at once, daemon or not
	 */
	if (daemon_view(conf, l.valid))
		goto out;
	for (i = 0; i < conf->w; i++)
		ofan_conf_port(conf, i, &ports[i]);
	l.up_ports = uplinks_link_up(ports, conf->w) & ~l.admin_down;

	rng_seed(conf);
	err = load_ports(&l);
	if (!err)
		err = load_pointers(&l);
	if (!err)
		err = load_dests(&l);
	if (!err)
		err = load_prefixes(&l);
	if (!err)
		err = load_pipes(&l);
	if (!err)
		err = load_config(&l);
	if (!err)
		err = load_publish(&l);
	if (!err)
		err = load_ar_queues(&l);
	if (!err)
		err = load_retire(&l);
	if (err) {
		error("cannot fill the maps in %s: %s", dir, why(-err));
		goto out;
	}
	if (load_attach(&l) || load_pin_prog(&l, dir))
		goto out;

	l.state->netns_dev = ns_dev;
	l.state->netns_ino = ns_ino;
	record_state(l.state, conf, config);
	if (bpf_map_update_elem(state_fd, &zero, l.state, BPF_ANY)) {
		error("cannot record the agent's state: %s", why(errno));
		goto out;
	}
	if (load_commit_links(&l))
		goto out;
	chmod_pins(l.skel, dir);

	for (i = 0; i < conf->w; i++)
		up += (l.up_ports >> i) & 1;
	printf("symofan: ofan %s from %s: %s switch, mode %s, w %u (%u up), %u keys (%u local), %u prefixes, %u downlinks, %u new pointers, pins in %s\n",
	       l.had_state ? "reloaded" : "loaded", config,
	       conf->role == OFAN_ROLE_EDGE ? "edge" : "aggregation",
	       ofan_mode_names[conf->mode], conf->w, up, conf->nr_declared,
	       conf->nr_local, conf->nr_prefixes, conf->nr_downlinks,
	       l.inited, dir);
	ret = EXIT_OK;
out:
	load_abort_links(&l);
	free(l.hooks);
	ofan_bpf__destroy(l.skel);
	if (state_fd >= 0)
		close(state_fd);
	free(l.state);
	close(lock_fd);
	return ret;
}

int cmd_ofan_load(const struct command *cmd, int argc, char **argv)
{
	struct ofan_conf *conf;
	struct opts o;
	int ret;

	ret = opts_exit(parse_opts(cmd, argc, argv, 0, 1, &o));
	if (ret >= 0)
		return ret;
	conf = calloc(1, sizeof(*conf));
	if (!conf) {
		error("out of memory");
		return EXIT_ERROR;
	}
	if (ofan_conf_load(conf, o.args[0], stderr))
		ret = EXIT_USAGE;
	else
		ret = do_load(conf, o.args[0]);
	ofan_conf_free(conf);
	free(conf);
	return ret;
}

/* ---- unload --------------------------------------------------------- */

int cmd_ofan_unload(const struct command *cmd, int argc, char **argv)
{
	struct symofan_state *st;
	struct ofan_bpf *skel;
	struct bpf_map *map;
	__u64 ns_dev, ns_ino;
	const char *dir;
	char path[256];
	int ret, lock_fd, state_fd, err;
	__u32 i, detached = 0, removed = 0;
	struct opts o;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR | OPT_FORCE, 0,
				   &o));
	if (ret >= 0)
		return ret;
	dir = o.pin_dir;
	if (access(dir, F_OK)) {
		error("nothing loaded at %s: %s", dir, strerror(errno));
		return EXIT_ERROR;
	}
	if (check_bpffs(dir) || netns_id(&ns_dev, &ns_ino))
		return EXIT_ERROR;
	lock_fd = lock_dir(dir);
	if (lock_fd < 0)
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	st = calloc(1, sizeof(*st));
	if (!st) {
		error("out of memory");
		goto out;
	}
	state_fd = read_state(dir, st);
	if (state_fd == -2 && !o.force)
		goto out;
	if (state_fd >= 0)
		close(state_fd);
	if (st->nr_downlinks &&
	    (st->netns_dev != ns_dev || st->netns_ino != ns_ino)) {
		if (!o.force) {
			error("%s was loaded from another network namespace (net:[%llu]): run unload there, or --force to remove the pins only",
			      dir, (unsigned long long)st->netns_ino);
			goto out;
		}
		st->nr_downlinks = 0;
	}
	for (i = 0; i < st->nr_downlinks && i < OFAN_CONF_MAX_DOWNLINKS; i++) {
		err = detach_link(dir, link_ifindex(&st->downlinks[i]));
		if (err) {
			error("cannot detach from %s: %s", st->downlinks[i].ifname,
			      why(-err));
			if (!o.force)
				goto out;
		} else {
			detached++;
		}
	}

	skel = ofan_bpf__open();
	if (skel) {
		bpf_object__for_each_map(map, skel->obj) {
			pin_path(path, sizeof(path), dir, bpf_map__name(map));
			removed += !unlink(path);
		}
		ofan_bpf__destroy(skel);
	}
	pin_path(path, sizeof(path), dir, OFAN_PROG_PIN);
	removed += !unlink(path);
	pin_path(path, sizeof(path), dir, OFAN_PROG_PIN "_new");
	unlink(path);
	pin_path(path, sizeof(path), dir, SYMOFAN_STATE_PIN);
	removed += !unlink(path);
	/* links the state lost track of (a downlink renamed since) */
	removed += tc_unpin_links(dir, OFAN_LINK_PIN_PREFIX);
	if (rmdir(dir))
		error("warning: %s not removed: %s", dir, strerror(errno));
	printf("symofan: ofan unloaded: detached from %u downlinks, removed %u pins in %s\n",
	       detached, removed, dir);
	ret = EXIT_OK;
out:
	free(st);
	close(lock_fd);
	return ret;
}
