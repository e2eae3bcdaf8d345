// SPDX-License-Identifier: GPL-2.0
/*
 * symofan.c - the project's userspace agent: one program, subcommands per
 * datapath.  "symofan ofan ..." loads the Ofan tc-BPF load balancer
 * (bpf/ofan.bpf.c) from a switch description (userspace/ofan.conf.5.md),
 * pins its maps, attaches it to the clsact ingress of the downlinks, and
 * reads or changes its state at run time.
 *
 *	symofan ofan load CONFIG
 *	symofan ofan unload   [--pin-dir DIR] [--force]
 *	symofan ofan status   [--pin-dir DIR] [--json]
 *	symofan ofan set-mode MODE [--pin-dir DIR]
 *	symofan ofan port INDEX up|down [--pin-dir DIR]
 *
 * Everything lives under the pin folder (default /sys/fs/bpf/ofan, mode
 * 0700): the program's maps and the program under their own names (0600),
 * and the agent's map "symofan_state" (struct symofan_state below) with
 * what a later load or unload needs: the network namespace and downlinks
 * the program is attached to, and which pointers were initialised.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ofan.skel.h"
#include "ofan_config.h"
#include "ofan/ofan_maps.h"
#include "ofan/ofan_perm.h"
#include "tool_util.h"
#include "symofan.h"

const char *tool_name = "symofan";

/* tc filter handle and priority of the attachment, "fa" for Ofan */
#define OFAN_TC_HANDLE		0xfa
#define OFAN_TC_PRIORITY	0xfa

#define OFAN_PROG_PIN		"ofan_ingress"

#define __maybe_unused		__attribute__((__unused__))

/* ---- command line --------------------------------------------------- */

static void usage_table(FILE *f, const char *path, const struct command *table)
{
	const struct command *c;

	fprintf(f, "Usage: %s COMMAND [ARGS]\n", path);
	for (c = table; c->name; c++)
		fprintf(f, "  %s %s %s\n      %s\n", path, c->name, c->synopsis,
			c->help);
	fprintf(f, "'%s COMMAND --help' describes a command.\n", path);
}

/* "symofan ofan": the words before the command being run */
const char *cmd_path = "symofan";

void usage_cmd(FILE *f, const struct command *cmd)
{
	fprintf(f, "Usage: %s %s %s\n  %s\n", cmd_path, cmd->name,
		cmd->synopsis, cmd->help);
	if (cmd->details)
		fputs(cmd->details, f);
	if (cmd->print_details)
		cmd->print_details(f);
}

/*
 * Parses argv[1..] (argv[0] is the command) into @o; returns 0 to go on,
 * 1 after printing the help, -1 after a usage error.
 */
int parse_opts(const struct command *cmd, int argc, char **argv,
		      unsigned int allowed, int nr_args, struct opts *o)
{
	bool dashdash = false;
	int i;

	memset(o, 0, sizeof(*o));
	o->pin_dir = OFAN_CONF_PIN_DIR;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!dashdash && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--")) {
				dashdash = true;
			} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				usage_cmd(stdout, cmd);
				return 1;
			} else if ((allowed & OPT_PIN_DIR) &&
				   !strcmp(a, "--pin-dir")) {
				if (++i == argc) {
					error("--pin-dir wants a directory");
					goto usage;
				}
				o->pin_dir = argv[i];
			} else if ((allowed & OPT_PIN_DIR) &&
				   !strncmp(a, "--pin-dir=", 10)) {
				o->pin_dir = a + 10;
			} else if ((allowed & OPT_JSON) && !strcmp(a, "--json")) {
				o->json = true;
			} else if ((allowed & OPT_FORCE) && !strcmp(a, "--force")) {
				o->force = true;
			} else {
				error("%s: unknown option '%s'", cmd->name, a);
				goto usage;
			}
			continue;
		}
		if (o->nr_args == nr_args) {
			error("%s: unexpected argument '%s'", cmd->name, a);
			goto usage;
		}
		o->args[o->nr_args++] = argv[i];
	}
	if (o->nr_args < nr_args) {
		error("%s: missing arguments", cmd->name);
		goto usage;
	}
	if (o->pin_dir[0] != '/' || strlen(o->pin_dir) > OFAN_CONF_PIN_DIR_MAX) {
		error("--pin-dir wants an absolute path of at most %d characters",
		      OFAN_CONF_PIN_DIR_MAX);
		goto usage;
	}
	return 0;
usage:
	usage_cmd(stderr, cmd);
	return -1;
}

/* parse_opts()'s return value as an exit code, or -1 to go on */
int opts_exit(int ret)
{
	if (!ret)
		return -1;
	return ret > 0 ? EXIT_OK : EXIT_USAGE;
}

/* ---- pin folder ----------------------------------------------------- */

void pin_path(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

bool on_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* The deepest existing ancestor of @dir (or itself) must be on bpffs. */
int check_bpffs(const char *dir)
{
	char buf[OFAN_CONF_PIN_DIR_MAX + 1], *slash;

	snprintf(buf, sizeof(buf), "%s", dir);
	while (access(buf, F_OK)) {
		slash = strrchr(buf, '/');
		if (!slash || slash == buf) {
			strcpy(buf, "/");
			break;
		}
		*slash = '\0';
	}
	if (!on_bpffs(buf)) {
		error("%s is not on a bpf filesystem (mount -t bpf bpf /sys/fs/bpf; 'ip netns exec' hides it, nsenter --net=... does not)",
		      buf);
		return -1;
	}
	return 0;
}

int mkdir_p(const char *path)
{
	char buf[OFAN_CONF_PIN_DIR_MAX + 1];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	return chmod(buf, 0700);
}

/* An exclusive lock on the pin folder against concurrent agents. */
int lock_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		error("cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX)) {
		error("cannot lock %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Opens the map pinned as DIR/NAME and checks its value size; returns the
 * fd, or -1 after an error message (quietly when @optional and absent).
 */
int open_pinned(const char *dir, const char *name, __u32 value_size,
		bool optional)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[256];
	int fd;

	pin_path(path, sizeof(path), dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (optional && errno == ENOENT)
			return -1;
		if (errno == ENOENT)
			error("nothing loaded at %s (no %s): run 'symofan ofan load CONFIG'",
			      dir, path);
		else
			error("cannot open %s: %s", path, why(errno));
		return -1;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.value_size != value_size) {
		error("%s is not the map this symofan expects (value size %u, not %u): unload and load again",
		      path, info.value_size, value_size);
		close(fd);
		return -1;
	}
	return fd;
}

int netns_id(__u64 *dev, __u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st)) {
		error("cannot identify the network namespace: %s",
		      strerror(errno));
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* Reads the agent's state of @dir into @st; its fd, or -1 if absent. */
int read_state(const char *dir, struct symofan_state *st)
{
	__u32 zero = 0;
	int fd;

	memset(st, 0, sizeof(*st));
	fd = open_pinned(dir, SYMOFAN_STATE_PIN, sizeof(*st), true);
	if (fd < 0)
		return -1;
	if (bpf_map_lookup_elem(fd, &zero, st) ||
	    (st->magic && (st->magic != SYMOFAN_STATE_MAGIC ||
			   st->version != SYMOFAN_STATE_VERSION))) {
		error("%s/%s: unknown agent state: unload and load again", dir,
		      SYMOFAN_STATE_PIN);
		close(fd);
		return -2;
	}
	return fd;
}

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

struct loader {
	struct ofan_conf	*conf;
	struct ofan_bpf		*skel;
	struct symofan_state	*state;
	bool			had_state;
	__u64			up_ports;
	__u32			inited;		/* pointers started now */
	__u32			stale_prefixes;
	__u32			detached;
};

static int map_fd(struct bpf_map *map)
{
	return bpf_map__fd(map);
}

static __u64 uplinks_link_state(const struct ofan_conf *conf)
{
	struct ifreq ifr;
	__u64 up = 0;
	__u32 i;
	int sock;

	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return 0;
	for (i = 0; i < conf->w; i++) {
		memset(&ifr, 0, sizeof(ifr));
		strncpy(ifr.ifr_name, conf->uplinks[i].ifname, IFNAMSIZ - 1);
		if (ioctl(sock, SIOCGIFFLAGS, &ifr))
			continue;
		if ((ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
		    (IFF_UP | IFF_RUNNING))
			up |= 1ULL << i;
	}
	close(sock);
	return up;
}

static int load_ports(struct loader *l)
{
	int fd = map_fd(l->skel->maps.ofan_ports);
	struct ofan_port port;
	__u32 i;

	for (i = 0; i < OFAN_MAX_W; i++) {
		memset(&port, 0, sizeof(port));
		if (i < l->conf->w) {
			const struct ofan_conf_uplink *u = &l->conf->uplinks[i];

			port.ifindex = u->ifindex;
			port.nh_family = u->family;
			memcpy(port.nh_addr, u->nh_addr, 16);
		}
		if (bpf_map_update_elem(fd, &i, &port, BPF_ANY))
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
	__u32 key;

	if (ofan_base_perm(conf->w, perm) < 0)
		return -EINVAL;
	for (key = 0; key < OFAN_MAX_KEYS; key++) {
		memset(&dest, 0, sizeof(dest));
		if (conf->keys[key].line) {
			dest.valid_ports = ofan_conf_key_ports(conf, key);
			dest.flags = OFAN_DEST_F_VALID;
			if (conf->keys[key].local)
				dest.flags |= OFAN_DEST_F_LOCAL;
			dest.level = conf->role == OFAN_ROLE_AGGREGATION;
			ofan_dest_fill_orders(&dest, perm, conf->w, key,
					      conf->nr_keys);
		}
		if (bpf_map_update_elem(fd, &key, &dest, BPF_ANY))
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

/* Deletes from LPM map @fd the prefixes that the config does not hold. */
static int prune_lpm(struct loader *l, int fd, __u32 family)
{
	const struct ofan_conf *conf = l->conf;
	struct ofan_conf_prefix probe = { .family = family };
	struct ofan_lpm6_key key, next;	/* ofan_lpm4_key fits in it */
	size_t addr_len = family == AF_INET ? 4 : 16;
	void *cur = NULL, *stale;
	__u32 nr = 0, i;
	int err = 0;

	stale = calloc(OFAN_MAX_PREFIXES, sizeof(key));
	if (!stale)
		return -ENOMEM;
	memset(&next, 0, sizeof(next));
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		memset(probe.addr, 0, 16);
		probe.len = next.prefix_len;
		memcpy(probe.addr, next.addr, addr_len);
		if (!bsearch(&probe, conf->prefixes, conf->nr_prefixes,
			     sizeof(*conf->prefixes), cmp_conf_prefix) &&
		    nr < OFAN_MAX_PREFIXES)
			memcpy((char *)stale + nr++ * sizeof(key), &next,
			       sizeof(key));
		key = next;
		cur = &key;
	}
	for (i = 0; i < nr; i++) {
		if (bpf_map_delete_elem(fd, (char *)stale + i * sizeof(key)) &&
		    errno != ENOENT) {
			err = -errno;
			break;
		}
	}
	l->stale_prefixes += nr;
	free(stale);
	return err;
}

static int load_prefixes(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int fd4 = map_fd(l->skel->maps.ofan_dst4);
	int fd6 = map_fd(l->skel->maps.ofan_dst6);
	__u32 i;
	int err;

	for (i = 0; i < conf->nr_prefixes; i++) {
		const struct ofan_conf_prefix *pfx = &conf->prefixes[i];

		if (pfx->family == AF_INET) {
			struct ofan_lpm4_key k = { .prefix_len = pfx->len };

			memcpy(&k.addr, pfx->addr, 4);
			err = bpf_map_update_elem(fd4, &k, &pfx->key, BPF_ANY);
		} else {
			struct ofan_lpm6_key k = { .prefix_len = pfx->len };

			memcpy(k.addr, pfx->addr, 16);
			err = bpf_map_update_elem(fd6, &k, &pfx->key, BPF_ANY);
		}
		if (err)
			return -errno;
	}
	err = prune_lpm(l, fd4, AF_INET);
	return err ? err : prune_lpm(l, fd6, AF_INET6);
}

static int load_pipes(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int fd = map_fd(l->skel->maps.ofan_pipes);
	__u32 i, key, next, *cur = NULL;
	__u32 stale[OFAN_MAX_PIPE_PORTS], nr = 0;

	for (i = 0; i < conf->nr_downlinks; i++)
		if (bpf_map_update_elem(fd, &conf->downlinks[i].ifindex,
					&conf->downlinks[i].pipe, BPF_ANY))
			return -errno;
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		for (i = 0; i < conf->nr_downlinks; i++)
			if (conf->downlinks[i].ifindex == next)
				break;
		if (i == conf->nr_downlinks && nr < OFAN_MAX_PIPE_PORTS)
			stale[nr++] = next;
		key = next;
		cur = &key;
	}
	for (i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &stale[i]);
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
	};
	__u32 zero = 0, key;

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
	if (bpf_map_update_elem(map_fd(l->skel->maps.ofan_config), &zero, &cfg,
				BPF_ANY))
		return -errno;
	return 0;
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

/* Detaches the program from @ifindex; 0 also when it was not there. */
static int detach_link(__u32 ifindex)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = OFAN_TC_HANDLE,
			    .priority = OFAN_TC_PRIORITY);
	int err;

	if (!ifindex)
		return 0;
	err = bpf_tc_detach(&hook, &opts);
	if (err == -ENOENT || err == -EINVAL || err == -ENODEV)
		return 0;
	return err;
}

static int libbpf_silent(enum libbpf_print_level level __maybe_unused,
			 const char *fmt __maybe_unused,
			 va_list args __maybe_unused)
{
	return 0;
}

/* bpf_tc_hook_create() without libbpf's message when clsact exists */
static int tc_hook_create(struct bpf_tc_hook *hook)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_silent);
	int err = bpf_tc_hook_create(hook);

	libbpf_set_print(old);
	return err;
}

static int load_attach(struct loader *l)
{
	const struct ofan_conf *conf = l->conf;
	int prog_fd = bpf_program__fd(l->skel->progs.ofan_ingress);
	__u32 i, ifindex;
	int err;

	for (i = 0; i < conf->nr_downlinks; i++) {
		const struct ofan_conf_downlink *d = &conf->downlinks[i];
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = d->ifindex,
				    .attach_point = BPF_TC_INGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = OFAN_TC_HANDLE,
				    .priority = OFAN_TC_PRIORITY,
				    .prog_fd = prog_fd,
				    .flags = BPF_TC_F_REPLACE);

		err = tc_hook_create(&hook);
		if (err && err != -EEXIST) {
			error("cannot create the clsact qdisc on %s: %s",
			      d->ifname, why(-err));
			return err;
		}
		err = bpf_tc_attach(&hook, &opts);
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
		err = detach_link(ifindex);
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

static void record_state(struct loader *l, const char *config)
{
	const struct ofan_conf *conf = l->conf;
	struct symofan_state *st = l->state;
	char *abs = realpath(config, NULL);
	__u32 i;

	st->magic = SYMOFAN_STATE_MAGIC;
	st->version = SYMOFAN_STATE_VERSION;
	st->role = conf->role;
	snprintf(st->config, sizeof(st->config), "%s", abs ? abs : config);
	free(abs);
	st->nr_uplinks = conf->w;
	memset(st->uplinks, 0, sizeof(st->uplinks));
	for (i = 0; i < conf->w; i++) {
		st->uplinks[i].ifindex = conf->uplinks[i].ifindex;
		memcpy(st->uplinks[i].ifname, conf->uplinks[i].ifname, IFNAMSIZ);
	}
	st->nr_downlinks = conf->nr_downlinks;
	memset(st->downlinks, 0, sizeof(st->downlinks));
	for (i = 0; i < conf->nr_downlinks; i++) {
		st->downlinks[i].ifindex = conf->downlinks[i].ifindex;
		st->downlinks[i].pipe = conf->downlinks[i].pipe;
		memcpy(st->downlinks[i].ifname, conf->downlinks[i].ifname,
		       IFNAMSIZ);
	}
}

/* The agent's state map: the pinned one, or a new one pinned now. */
static int open_state(const char *dir, struct symofan_state *st,
		      bool *existed)
{
	char path[256];
	int fd;

	fd = read_state(dir, st);
	if (fd == -2)
		return -1;
	*existed = fd >= 0 && st->magic;
	if (fd >= 0)
		return fd;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, SYMOFAN_STATE_PIN,
			    sizeof(__u32), sizeof(*st), 1, NULL);
	if (fd < 0) {
		error("cannot create the agent's state map: %s", why(errno));
		return -1;
	}
	pin_path(path, sizeof(path), dir, SYMOFAN_STATE_PIN);
	if (bpf_obj_pin(fd, path)) {
		error("cannot pin %s: %s", path, why(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int check_layout(struct ofan_bpf *skel, const char *dir)
{
	struct ofan_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(map_fd(skel->maps.ofan_config), &zero, &cfg)) {
		error("cannot read %s/ofan_config: %s", dir, why(errno));
		return -1;
	}
	if (cfg.layout_version && cfg.layout_version != OFAN_LAYOUT_VERSION) {
		error("the maps pinned in %s have layout %u, this symofan %u: unload first",
		      dir, cfg.layout_version, OFAN_LAYOUT_VERSION);
		return -1;
	}
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
	if (mkdir_p(dir)) {
		error("cannot create %s: %s", dir, strerror(errno));
		return EXIT_ERROR;
	}
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
	if (check_layout(l.skel, dir))
		goto out;

	rng_seed(conf);
	l.up_ports = uplinks_link_state(conf);
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
	if (err) {
		error("cannot fill the maps in %s: %s", dir, why(-err));
		goto out;
	}
	if (load_attach(&l) || load_pin_prog(&l, dir))
		goto out;

	l.state->netns_dev = ns_dev;
	l.state->netns_ino = ns_ino;
	record_state(&l, config);
	if (bpf_map_update_elem(state_fd, &zero, l.state, BPF_ANY)) {
		error("cannot record the agent's state: %s", why(errno));
		goto out;
	}
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
	ofan_bpf__destroy(l.skel);
	if (state_fd >= 0)
		close(state_fd);
	free(l.state);
	close(lock_fd);
	return ret;
}

static int cmd_load(const struct command *cmd, int argc, char **argv)
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

static int cmd_unload(const struct command *cmd, int argc, char **argv)
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
		err = detach_link(link_ifindex(&st->downlinks[i]));
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

/* ---- status --------------------------------------------------------- */

struct status {
	const char		*dir;
	struct ofan_config	cfg;
	struct symofan_state	*st;
	bool			has_state;
	struct ofan_port	ports[OFAN_MAX_W];
	struct ofan_port_stats	port_stats[OFAN_MAX_W];
	struct ofan_dest	dests[OFAN_MAX_KEYS];
	struct ofan_key_stats	key_stats[OFAN_MAX_KEYS];
	struct ofan_stats	stats;
	__u64			rr;
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

static int read_status(struct status *s)
{
	int fd_cfg, fd_ports, fd_pstats, fd_dests, fd_kstats, fd_stats, fd_rr;
	int fd, ret = -1;
	__u32 i, zero = 0;

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

	if (bpf_map_lookup_elem(fd_cfg, &zero, &s->cfg))
		goto fail;
	for (i = 0; i < OFAN_MAX_W; i++) {
		if (bpf_map_lookup_elem(fd_ports, &i, &s->ports[i]) ||
		    read_percpu(fd_pstats, i, &s->port_stats[i],
				sizeof(s->port_stats[i]), s->ncpus))
			goto fail;
	}
	for (i = 0; i < OFAN_MAX_KEYS; i++) {
		if (bpf_map_lookup_elem(fd_dests, &i, &s->dests[i]) ||
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

static const char *mode_name(__u32 mode)
{
	return mode < __OFAN_MODE_MAX ? ofan_mode_names[mode] : "unknown";
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

static void nexthop_string(const struct ofan_port *p, char *buf)
{
	if (!inet_ntop(p->nh_family == AF_INET6 ? AF_INET6 : AF_INET,
		       p->nh_addr, buf, INET6_ADDRSTRLEN))
		strcpy(buf, "?");
}

static bool key_shown(const struct status *s, __u32 k)
{
	return (s->dests[k].flags & OFAN_DEST_F_VALID) ||
	       s->key_stats[k].packets[0] || s->key_stats[k].packets[1];
}

/* the counters of struct ofan_stats, in order */
static const char *const stat_names[] = {
	"local", "unknown_dst", "no_valid_port", "ttl_expired", "malformed",
	"not_ip", "fib_miss", "unconfigured",
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

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json(const struct status *s)
{
	const struct ofan_config *c = &s->cfg;
	const __u64 *stats = (const __u64 *)&s->stats;
	char name[IF_NAMESIZE], nh[INET6_ADDRSTRLEN];
	struct in_addr net = { .s_addr = c->fast_net };
	__u32 i, k, p, pipes = c->nr_pipes ? c->nr_pipes : 1;
	bool first = true;

	printf("{\"pin_dir\":");
	json_string(s->dir);
	printf(",\"config\":");
	json_string(s->has_state ? s->st->config : "");
	printf(",\"role\":\"%s\"", !s->has_state ? "" :
	       s->st->role == OFAN_ROLE_EDGE ? "edge" : "aggregation");
	printf(",\"layout_version\":%u,\"mode\":\"%s\",\"w\":%u,\"nr_keys\":%u,"
	       "\"nr_pipes\":%u,\"ack_max_bytes\":%u,\"up_ports_mask\":\"0x%llx\"",
	       c->layout_version, mode_name(c->mode), c->w, c->nr_keys,
	       c->nr_pipes, c->ack_max_bytes, (unsigned long long)c->up_ports);
	printf(",\"fast\":{\"enabled\":%s,\"net\":\"%s/%u\",\"shift\":%u,"
	       "\"mask\":%u,\"local_key\":%u}",
	       c->fast_enabled ? "true" : "false", inet_ntoa(net),
	       c->fast_prefix_len, c->fast_shift, c->fast_mask,
	       c->fast_local_key);

	printf(",\"ports\":[");
	for (i = 0; i < c->w && i < OFAN_MAX_W; i++) {
		nexthop_string(&s->ports[i], nh);
		printf("%s{\"index\":%u,\"ifindex\":%u,\"ifname\":", i ? "," : "",
		       i, s->ports[i].ifindex);
		json_string(port_ifname(s, i, name));
		printf(",\"nexthop\":\"%s\",\"up\":%s,\"packets\":%llu,\"bytes\":%llu}",
		       nh, (c->up_ports >> i) & 1 ? "true" : "false",
		       (unsigned long long)s->port_stats[i].packets,
		       (unsigned long long)s->port_stats[i].bytes);
	}
	printf("],\"downlinks\":[");
	for (i = 0; s->has_state && i < s->st->nr_downlinks &&
	     i < OFAN_CONF_MAX_DOWNLINKS; i++) {
		printf("%s{\"ifindex\":%u,\"ifname\":", i ? "," : "",
		       s->st->downlinks[i].ifindex);
		json_string(s->st->downlinks[i].ifname);
		printf(",\"pipe\":%u}", s->st->downlinks[i].pipe);
	}
	printf("],\"keys\":[");
	for (k = 0; k < OFAN_MAX_KEYS; k++) {
		const struct ofan_dest *d = &s->dests[k];
		bool configured = d->flags & OFAN_DEST_F_VALID;
		bool first_port = true;

		if (!key_shown(s, k))
			continue;
		printf("%s{\"key\":%u,\"configured\":%s,\"local\":%s,\"level\":%u,"
		       "\"valid_ports\":[", first ? "" : ",", k,
		       configured ? "true" : "false",
		       d->flags & OFAN_DEST_F_LOCAL ? "true" : "false", d->level);
		first = false;
		for (p = 0; p < OFAN_MAX_W; p++) {
			if (!((d->valid_ports >> p) & 1))
				continue;
			printf("%s%u", first_port ? "" : ",", p);
			first_port = false;
		}
		printf("],\"packets\":{\"data\":%llu,\"ack\":%llu},\"pointers\":[",
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_DATA],
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_ACK]);
		for (p = 0; configured && p < pipes && p < OFAN_MAX_PIPES; p++)
			printf("%s{\"pipe\":%u,\"data\":%llu,\"ack\":%llu}",
			       p ? "," : "", p,
			       (unsigned long long)read_pointer(s, p, k, OFAN_CLASS_DATA),
			       (unsigned long long)read_pointer(s, p, k, OFAN_CLASS_ACK));
		printf("]}");
	}
	printf("],\"rr_pointer\":%llu,\"packets\":{\"forwarded\":%llu",
	       (unsigned long long)s->rr, (unsigned long long)forwarded(s));
	for (i = 0; i < ARRAY_SIZE(stat_names); i++)
		printf(",\"%s\":%llu", stat_names[i],
		       (unsigned long long)stats[i]);
	printf("}}\n");
}

static void print_text(const struct status *s)
{
	const struct ofan_config *c = &s->cfg;
	const __u64 *stats = (const __u64 *)&s->stats;
	char name[IF_NAMESIZE], nh[INET6_ADDRSTRLEN];
	struct in_addr net = { .s_addr = c->fast_net };
	__u32 i, k, p, pipes = c->nr_pipes ? c->nr_pipes : 1;

	printf("ofan at %s", s->dir);
	if (s->has_state)
		printf(" (%s switch, from %s)",
		       s->st->role == OFAN_ROLE_EDGE ? "edge" : "aggregation",
		       s->st->config);
	printf("\n  mode %s, w %u, nr_keys %u, pipes %u, ack-max-bytes %u, rr pointer %llu\n",
	       mode_name(c->mode), c->w, c->nr_keys, c->nr_pipes,
	       c->ack_max_bytes, (unsigned long long)s->rr);
	if (c->fast_enabled)
		printf("  fast path %s/%u: key = (dst >> %u) & 0x%x\n",
		       inet_ntoa(net), c->fast_prefix_len, c->fast_shift,
		       c->fast_mask);
	printf("ports:\n");
	for (i = 0; i < c->w && i < OFAN_MAX_W; i++) {
		nexthop_string(&s->ports[i], nh);
		printf("  %2u %-15s via %-15s %-4s %llu packets %llu bytes\n", i,
		       port_ifname(s, i, name), nh,
		       (c->up_ports >> i) & 1 ? "up" : "down",
		       (unsigned long long)s->port_stats[i].packets,
		       (unsigned long long)s->port_stats[i].bytes);
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
		printf(": data %llu, ack %llu packets",
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_DATA],
		       (unsigned long long)s->key_stats[k].packets[OFAN_CLASS_ACK]);
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

static int cmd_status(const struct command *cmd, int argc, char **argv)
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
		if (o.json)
			print_json(s);
		else
			print_text(s);
		ret = EXIT_OK;
	}
	if (s->fd_ptrs >= 0)
		close(s->fd_ptrs);
	free(s->st);
	free(s);
	return ret;
}

/* ---- set-mode and port ---------------------------------------------- */

/* Opens and locks ofan_config of @dir and reads it into @cfg. */
static int open_config(const char *dir, struct ofan_config *cfg, int *lock_fd)
{
	__u32 zero = 0;
	int fd;

	fd = open_pinned(dir, "ofan_config", sizeof(*cfg), false);
	if (fd < 0)
		return -1;
	*lock_fd = lock_dir(dir);
	if (*lock_fd < 0) {
		close(fd);
		return -1;
	}
	if (bpf_map_lookup_elem(fd, &zero, cfg)) {
		error("cannot read %s/ofan_config: %s", dir, why(errno));
		goto fail;
	}
	if (cfg->layout_version != OFAN_LAYOUT_VERSION || !cfg->w ||
	    cfg->w > OFAN_MAX_W) {
		error("%s/ofan_config is not configured: run 'symofan ofan load CONFIG'",
		      dir);
		goto fail;
	}
	return fd;
fail:
	close(*lock_fd);
	close(fd);
	return -1;
}

static int write_config(int fd, const char *dir, const struct ofan_config *cfg)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(fd, &zero, cfg, BPF_ANY)) {
		error("cannot write %s/ofan_config: %s", dir, why(errno));
		return -1;
	}
	return 0;
}

static int cmd_set_mode(const struct command *cmd, int argc, char **argv)
{
	struct ofan_config cfg;
	int ret, fd, lock_fd, mode;
	__u32 old;
	struct opts o;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 1, &o));
	if (ret >= 0)
		return ret;
	mode = ofan_mode_by_name(o.args[0]);
	if (mode < 0) {
		error("unknown mode '%s' (ofan, pofan, rr, rps or ecmp)",
		      o.args[0]);
		return EXIT_USAGE;
	}
	fd = open_config(o.pin_dir, &cfg, &lock_fd);
	if (fd < 0)
		return EXIT_ERROR;
	old = cfg.mode;
	cfg.mode = mode;
	ret = write_config(fd, o.pin_dir, &cfg) ? EXIT_ERROR : EXIT_OK;
	if (!ret)
		printf("symofan: ofan mode %s -> %s\n", mode_name(old),
		       ofan_mode_names[mode]);
	close(lock_fd);
	close(fd);
	return ret;
}

static int cmd_port(const struct command *cmd, int argc, char **argv)
{
	struct ofan_config cfg;
	unsigned long idx;
	int ret, fd, lock_fd;
	struct opts o;
	char *end;
	bool up;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 2, &o));
	if (ret >= 0)
		return ret;
	errno = 0;
	idx = strtoul(o.args[0], &end, 10);
	if (errno || end == o.args[0] || *end || idx >= OFAN_MAX_W) {
		error("port: bad uplink index '%s'", o.args[0]);
		return EXIT_USAGE;
	}
	if (strcmp(o.args[1], "up") && strcmp(o.args[1], "down")) {
		error("port: '%s' is neither 'up' nor 'down'", o.args[1]);
		return EXIT_USAGE;
	}
	up = !strcmp(o.args[1], "up");
	fd = open_config(o.pin_dir, &cfg, &lock_fd);
	if (fd < 0)
		return EXIT_ERROR;
	ret = EXIT_USAGE;
	if (idx >= cfg.w) {
		error("port: no uplink %lu (uplinks 0..%u)", idx, cfg.w - 1);
		goto out;
	}
	if (up)
		cfg.up_ports |= 1ULL << idx;
	else
		cfg.up_ports &= ~(1ULL << idx);
	ret = write_config(fd, o.pin_dir, &cfg) ? EXIT_ERROR : EXIT_OK;
	if (!ret)
		printf("symofan: ofan uplink %lu %s (up ports 0x%llx)\n", idx,
		       up ? "up" : "down", (unsigned long long)cfg.up_ports);
out:
	close(lock_fd);
	close(fd);
	return ret;
}

/* ---- command tables ------------------------------------------------- */

static const struct command ofan_commands[] = {
	{
		.name = "load", .synopsis = "CONFIG",
		.help = "validate CONFIG, fill and pin the maps, attach to the downlinks (reload: keep pointers)",
		.details =
		"  CONFIG is described in ofan.conf(5) (userspace/ofan.conf.5.md).  Any\n"
		"  error in it is reported as CONFIG:LINE: reason, exit status 2, and\n"
		"  nothing is changed.  A load over a loaded pin folder reuses its maps:\n"
		"  counters and the pointers of keys still declared are kept.\n",
		.run = cmd_load,
	},
	{
		.name = "unload", .synopsis = "[--pin-dir DIR] [--force]",
		.help = "detach from the downlinks recorded at load and remove the pins",
		.details =
		"  Run it in the network namespace of the load.  --force removes the\n"
		"  pins even when the program cannot be detached from there.\n",
		.run = cmd_unload,
	},
	{
		.name = "status", .synopsis = "[--pin-dir DIR] [--json]",
		.help = "print mode, ports, keys, pointers and counters",
		.run = cmd_status,
	},
	{
		.name = "set-mode", .synopsis = "ofan|pofan|rr|rps|ecmp [--pin-dir DIR]",
		.help = "change the load-balancing mode at run time",
		.run = cmd_set_mode,
	},
	{
		.name = "port", .synopsis = "INDEX up|down [--pin-dir DIR]",
		.help = "mark uplink INDEX up or down for the datapath",
		.run = cmd_port,
	},
	{ }
};

static const struct command top_commands[] = {
	{
		.name = "ofan", .synopsis = "COMMAND [ARGS]",
		.help = "Ofan load balancing of a fat-tree switch's northbound packets (tc-BPF)",
		.sub = ofan_commands,
	},
	{
		.name = "job", .synopsis = "COMMAND [ARGS]",
		.help = "Symphony job registry: the jobs map that symphony qdiscs share",
		.sub = job_commands,
	},
	{
		.name = "daemon", .synopsis = "[--pin-dir DIR] [--once] [--verbose]",
		.help = "follow links and routes over rtnetlink: uplink state and each key's valid ports",
		.details =
		"  Run it in the network namespace of the load.  An uplink is up while\n"
		"  its link is IFF_UP and IFF_RUNNING; a key's valid ports are the\n"
		"  uplinks whose next hop (gateway and device) the kernel's main-table\n"
		"  route of each of its prefixes holds (exact prefix, else the longest\n"
		"  covering route), intersected over its prefixes and with its listed\n"
		"  ports.  A key without any route keeps its configured ports; local\n"
		"  keys are not touched.  Only changed entries are written, pointers\n"
		"  and counters never.  --once syncs and exits; SIGHUP re-reads the\n"
		"  config; SIGTERM or SIGINT exits, leaving the maps as they are.\n",
		.run = cmd_daemon,
	},
	{ }
};

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "help");
}

static int dispatch(const struct command *table, const char *path, int argc,
		    char **argv)
{
	const struct command *c;
	char sub[64];

	if (argc < 1) {
		usage_table(stderr, path, table);
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		usage_table(stdout, path, table);
		return EXIT_OK;
	}
	for (c = table; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (c->sub) {
			snprintf(sub, sizeof(sub), "%s %s", path, c->name);
			return dispatch(c->sub, sub, argc - 1, argv + 1);
		}
		cmd_path = path;
		return c->run(c, argc, argv);
	}
	error("unknown command '%s'", argv[0]);
	usage_table(stderr, path, table);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	libbpf_set_print(libbpf_quiet);
	return dispatch(top_commands, "symofan", argc - 1, argv + 1);
}
