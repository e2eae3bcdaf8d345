// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_bpf.c - "symofan symphony ...": Symphony as a tc-BPF program
 * (bpf/symphony.bpf.c) on the egress of switch ports, for kernels that
 * cannot load sch_symphony.
 *
 *	symofan symphony attach DEV rate RATE [PARAMETER VALUE]...
 *	symofan symphony detach DEV
 *	symofan symphony status [DEV] [--json]
 *
 * The parameters are the qdisc's, in tc's words (kmin 50kb, k 0.01,
 * twin 100us, marking red, ...); rate is the port's, at which its phantom
 * queue drains (the HTB or TBF rate under the program).  The first attach
 * loads the program with the registry's jobs map (symofan job init) and
 * pins it and its port maps in --pin-dir; later attaches reuse them, so
 * that the ports of a switch share one program and the jobs' state.  The
 * last detach removes the pins.
 *
 * Where the kernel has tcx (6.6 and later), each port runs the program by
 * a tcx link pinned in --pin-dir as tcx_egress_IFINDEX (bpftool link and
 * bpftool net show it, and the pin folder it is in); elsewhere, or with
 * --hook clsact, by a filter on the port's clsact egress (tc_attach.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#include "symphony.skel.h"
#include "bpffs.h"
#include "command.h"
#include "job_registry.h"
#include "parse.h"
#include "symphony_bpf_cfg.h"
#include "symphony_cmd.h"
#include "symphony_param.h"
#include "tc_attach.h"
#include "tool_util.h"

#define SYMPHONY_BPF_PIN_DIR	"/sys/fs/bpf/symphony-bpf"
#define PROG_PIN		"symphony_egress"
#define PORTS_PIN		"ports"
#define STATS_PIN		"port_stats"
#define PROG_META_PIN		"meta"
/* a port's tcx link: LINK_PIN_PREFIX and its ifindex */
#define LINK_PIN_PREFIX		"tcx_egress_"

/* tc filter handle and priority of the attachment, "5c" for Symphony */
#define SYMPHONY_TC_HANDLE	0x5c
#define SYMPHONY_TC_PRIORITY	0x5c

struct sym_args {
	const char	*pin_dir;
	const char	*registry;
	const char	*dev;
	bool		json;
	bool		hook_clsact;	/* --hook clsact */
	bool		all;		/* --all (detach) */
	int		nr_words;
	char		**words;	/* PARAMETER VALUE pairs */
};

static void sym_usage(const struct command *cmd)
{
	usage_cmd(stderr, cmd);
}

/* DEV, then words; --pin-dir, --registry, --json anywhere. */
static int sym_parse(const struct command *cmd, int argc, char **argv,
		     bool want_dev, bool dev_optional, bool want_words,
		     struct sym_args *a)
{
	int i;

	*a = (struct sym_args){ .pin_dir = SYMPHONY_BPF_PIN_DIR,
				.registry = JOBS_PIN_DIR };
	a->words = calloc(argc, sizeof(*a->words));
	if (!a->words)
		return -1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_cmd(stdout, cmd);
			return 1;
		} else if (!strcmp(argv[i], "--pin-dir") ||
			   !strcmp(argv[i], "--registry")) {
			if (i + 1 == argc) {
				error("%s wants a folder", argv[i]);
				return -1;
			}
			if (!strcmp(argv[i], "--pin-dir"))
				a->pin_dir = argv[++i];
			else
				a->registry = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			a->json = true;
		} else if (!strcmp(argv[i], "--all") &&
			   !strcmp(cmd->name, "detach")) {
			a->all = true;
		} else if (!strcmp(argv[i], "--hook")) {
			if (i + 1 == argc || (strcmp(argv[i + 1], "tcx") &&
					      strcmp(argv[i + 1], "clsact"))) {
				error("--hook wants tcx or clsact, got '%s'",
				      i + 1 == argc ? "" : argv[i + 1]);
				return -1;
			}
			a->hook_clsact = !strcmp(argv[++i], "clsact");
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			error("unknown option '%s'", argv[i]);
			sym_usage(cmd);
			return -1;
		} else if (want_dev && !a->dev) {
			a->dev = argv[i];
		} else if (want_words) {
			a->words[a->nr_words++] = argv[i];
		} else {
			error("unexpected argument '%s'", argv[i]);
			sym_usage(cmd);
			return -1;
		}
	}
	if (want_dev && !dev_optional && !a->dev) {
		error("which device? (DEV)");
		sym_usage(cmd);
		return -1;
	}
	if (check_dir_arg("--pin-dir", a->pin_dir) ||
	    check_dir_arg("--registry", a->registry))
		return -1;
	return 0;
}

static __u32 dev_ifindex(const char *dev)
{
	__u32 ifindex = if_nametoindex(dev);

	if (!ifindex)
		error("no network device '%s' here", dev);
	return ifindex;
}

/* ioctl @req on @dev into @ifr: 0, or -1 with errno set. */
static int dev_ifreq(const char *dev, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return -1;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", dev);
	err = ioctl(fd, req, ifr);
	close(fd);
	return err ? -1 : 0;
}

/*
 * The program parses from a fixed Ethernet header: refuse a device whose
 * frames have none (tun, wireguard, ipip and other L3 devices), where
 * every packet would be misparsed.  0 if @dev is Ethernet.
 */
static int dev_require_ether(const char *dev)
{
	struct ifreq ifr = {};

	if (dev_ifreq(dev, SIOCGIFHWADDR, &ifr)) {
		error("cannot read the link type of %s: %s", dev, why(errno));
		return -1;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		error("%s is not an Ethernet device (link type %u): Symphony's program reads an Ethernet header before the IP one; put it on an Ethernet port, or use the sch_symphony qdisc",
		      dev, ifr.ifr_hwaddr.sa_family);
		return -1;
	}
	return 0;
}

/* The device's MTU with its Ethernet header: a frame of the phantom queue. */
static __u32 dev_frame_bytes(const char *dev)
{
	struct ifreq ifr = {};

	return (dev_ifreq(dev, SIOCGIFMTU, &ifr) ? 1500 : ifr.ifr_mtu) + ETH_HLEN;
}

/* The pinned object @name of @dir: its fd, or -errno. */
static int open_pin(const char *dir, const char *name)
{
	char path[BPFFS_DIR_MAX + 64];
	int fd;

	pin_path(path, sizeof(path), dir, name);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/* The hook of @ifindex's egress, its link pinned in @dir as @pin. */
static void port_hook(struct tc_attach *t, char *pin, size_t size,
		      const char *dir, __u32 ifindex)
{
	char name[32];

	snprintf(name, sizeof(name), LINK_PIN_PREFIX "%u", ifindex);
	pin_path(pin, size, dir, name);
	*t = (struct tc_attach){ .ifindex = ifindex, .egress = true,
				 .handle = SYMPHONY_TC_HANDLE,
				 .priority = SYMPHONY_TC_PRIORITY,
				 .link_pin = pin, .prog_name = PROG_PIN };
}

static bool is_link_pin(const char *name)
{
	return !strncmp(name, LINK_PIN_PREFIX, strlen(LINK_PIN_PREFIX));
}

static const char *const pin_names[] = {
	PROG_PIN, PORTS_PIN, STATS_PIN, PROG_META_PIN,
};

struct pinned {
	int	prog_fd, ports_fd, stats_fd;
	int	meta_fd;	/* -1: pinned by a symofan without one */
};

#define PINNED_NONE	{ -1, -1, -1, -1 }

static void close_pinned(struct pinned *p)
{
	if (p->prog_fd >= 0)
		close(p->prog_fd);
	if (p->ports_fd >= 0)
		close(p->ports_fd);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	if (p->meta_fd >= 0)
		close(p->meta_fd);
	p->prog_fd = p->ports_fd = p->stats_fd = p->meta_fd = -1;
}

/* The program and maps pinned in @dir: 0, -ENOENT when not loaded. */
static int open_pinned(const char *dir, struct pinned *p)
{
	p->prog_fd = open_pin(dir, PROG_PIN);
	p->ports_fd = open_pin(dir, PORTS_PIN);
	p->stats_fd = open_pin(dir, STATS_PIN);
	p->meta_fd = open_pin(dir, PROG_META_PIN);
	if (p->meta_fd < 0)
		p->meta_fd = -1;
	if (p->prog_fd >= 0 && p->ports_fd >= 0 && p->stats_fd >= 0)
		return 0;
	close_pinned(p);
	return -ENOENT;
}

/* Which of the pins of a loaded program @dir holds, as "name, name". */
static bool some_pinned(const char *dir, char *names, size_t size)
{
	char path[BPFFS_DIR_MAX + 64];
	size_t i, used = 0;
	struct dirent *de;
	DIR *links;

	names[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(pin_names); i++) {
		pin_path(path, sizeof(path), dir, pin_names[i]);
		if (access(path, F_OK))
			continue;
		used += snprintf(names + used, size - used, "%s%s",
				 used ? ", " : "", pin_names[i]);
		if (used >= size)
			return true;
	}
	links = opendir(dir);
	while (links && (de = readdir(links)) && used < size)
		if (is_link_pin(de->d_name))
			used += snprintf(names + used, size - used, "%s%s",
					 used ? ", " : "", de->d_name);
	if (links)
		closedir(links);
	return names[0];
}

/*
 * Whether the program pinned in @dir serves the devices of this network
 * namespace: the one its first attach recorded (ifindexes name other
 * devices in another).  A program pinned before the record passes.
 */
static bool same_netns(const struct pinned *p, const char *dir)
{
	struct symphony_bpf_meta meta;
	__u64 dev, ino;
	__u32 zero = 0;

	if (p->meta_fd < 0)
		return true;
	if (netns_id(&dev, &ino))
		return false;
	if (bpf_map_lookup_elem(p->meta_fd, &zero, &meta)) {
		error("cannot read %s/%s: %s", dir, PROG_META_PIN, why(errno));
		return false;
	}
	if (!meta.netns_ino || (meta.netns_dev == dev && meta.netns_ino == ino))
		return true;
	error("the program pinned in %s serves the ports of network namespace net:[%llu], this is net:[%llu]: an ifindex names another device here; run symofan in that namespace, or give this one its own --pin-dir",
	      dir, (unsigned long long)meta.netns_ino, (unsigned long long)ino);
	return false;
}

/* open_pinned() for a command that needs a port attached, in the
 * namespace of the program's ports: 0, or -1 after saying why not.
 */
static int open_attached(const char *dir, struct pinned *p)
{
	if (open_pinned(dir, p)) {
		error("Symphony is attached to no port (nothing pinned in %s)",
		      dir);
		return -1;
	}
	if (same_netns(p, dir))
		return 0;
	close_pinned(p);
	return -1;
}

/* Whether the program of @prog_fd uses the map of @map_fd. */
static bool prog_uses_map(int prog_fd, int map_fd)
{
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(info), mlen = sizeof(minfo), ids[16], i;

	info.nr_map_ids = 16;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) ||
	    bpf_obj_get_info_by_fd(map_fd, &minfo, &mlen))
		return false;
	for (i = 0; i < info.nr_map_ids && i < 16; i++)
		if (ids[i] == minfo.id)
			return true;
	return false;
}

static void unpin_all(const char *dir)
{
	char path[BPFFS_DIR_MAX + 64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pin_names); i++) {
		pin_path(path, sizeof(path), dir, pin_names[i]);
		unlink(path);
	}
	/* links of ports that serve no longer (their device went) */
	tc_unpin_links(dir, LINK_PIN_PREFIX);
	rmdir(dir);
}

/*
 * The lock of pin folder @dir, made if need be (@create) and checked to
 * be this user's alone; attach and detach hold it while they change the
 * folder's ports.  A detach may remove the folder just before the lock is
 * had: then again, on the folder as it is now.  The fd, or -1.
 */
static int lock_pin_dir(const char *dir, bool create)
{
	struct stat locked, now;
	int tries, fd;

	for (tries = 0; tries < 8; tries++) {
		if (create ? make_pin_dir(dir) : check_pin_dir(dir))
			return -1;
		fd = lock_dir(dir);
		if (fd < 0)
			return -1;
		if (!fstat(fd, &locked) && !stat(dir, &now) &&
		    locked.st_ino == now.st_ino && locked.st_dev == now.st_dev)
			return fd;
		close(fd);
		if (!create) {
			error("%s went away", dir);
			return -1;
		}
	}
	error("cannot hold %s: it keeps being removed", dir);
	return -1;
}

/*
 * Load the program on the registry's jobs map and job locks and pin it
 * in @dir, which holds none of its pins: 0 or -1.
 */
static int load_and_pin(const char *dir, const struct jobs_dir *reg,
			struct pinned *p)
{
	struct symphony_bpf_meta meta = {};
	struct symphony_bpf *skel;
	char path[BPFFS_DIR_MAX + 64];
	__u32 zero = 0;
	int err;

	if (netns_id(&meta.netns_dev, &meta.netns_ino))
		return -1;
	skel = symphony_bpf__open();
	if (!skel) {
		error("cannot open the BPF object: %s", why(errno));
		return -1;
	}
	bpf_map__set_max_entries(skel->maps.symphony_jobs, reg->meta.nr_jobs);
	err = bpf_map__reuse_fd(skel->maps.symphony_jobs, reg->jobs_fd);
	if (!err)
		err = bpf_map__reuse_fd(skel->maps.symphony_job_locks,
					reg->locks_fd);
	if (!err)
		err = symphony_bpf__load(skel);
	if (err) {
		error("cannot load the Symphony program: %s", why(-err));
		goto out;
	}
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_meta), &zero,
				  &meta, BPF_ANY) ? -errno : 0;
	if (!err) {
		pin_path(path, sizeof(path), dir, PORTS_PIN);
		err = bpf_map__pin(skel->maps.symphony_ports, path);
	}
	if (!err) {
		pin_path(path, sizeof(path), dir, STATS_PIN);
		err = bpf_map__pin(skel->maps.symphony_port_stats, path);
	}
	if (!err) {
		pin_path(path, sizeof(path), dir, PROG_META_PIN);
		err = bpf_map__pin(skel->maps.symphony_meta, path);
	}
	if (!err) {
		pin_path(path, sizeof(path), dir, PROG_PIN);
		err = bpf_program__pin(skel->progs.symphony_egress, path);
	}
	if (err) {
		error("cannot pin the program and its maps in %s: %s", dir,
		      why(err < 0 ? -err : errno));
		/* the folder held none of them (the caller checked, under
		 * its lock): all of them are ours
		 */
		unpin_all(dir);
		goto out;
	}
	err = open_pinned(dir, p);
out:
	symphony_bpf__destroy(skel);
	return err ? -1 : 0;
}

/*
 * The counters' slot of the port of @ifindex: the one it has (attached
 * again: new parameters, counters from zero), else the lowest no port
 * uses.  0, or -1 when every slot is taken.  Under the folder's lock.
 */
static int stats_slot(int ports_fd, __u32 ifindex, __u32 *slot)
{
	static __u8 used[SYMPHONY_BPF_MAX_PORTS];
	struct symphony_bpf_port port;
	__u32 key, next, i;
	bool first = true;

	if (!bpf_map_lookup_elem(ports_fd, &ifindex, &port) &&
	    port.stats_slot < SYMPHONY_BPF_MAX_PORTS) {
		*slot = port.stats_slot;
		return 0;
	}
	memset(used, 0, sizeof(used));
	while (!bpf_map_get_next_key(ports_fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (!bpf_map_lookup_elem(ports_fd, &key, &port) &&
		    port.stats_slot < SYMPHONY_BPF_MAX_PORTS)
			used[port.stats_slot] = 1;
	}
	for (i = 0; i < SYMPHONY_BPF_MAX_PORTS; i++)
		if (!used[i]) {
			*slot = i;
			return 0;
		}
	return -1;
}

/*
 * Whether the maps pinned in @dir have this symofan's layout (a program
 * pinned by an older one keeps its own until its ports are detached).
 */
static bool ports_layout_ok(const struct pinned *p, const char *dir)
{
	struct bpf_map_info ports = {}, stats = {};
	__u32 len = sizeof(ports), slen = sizeof(stats);

	if (bpf_obj_get_info_by_fd(p->ports_fd, &ports, &len) ||
	    bpf_obj_get_info_by_fd(p->stats_fd, &stats, &slen)) {
		error("cannot read the maps pinned in %s: %s", dir, why(errno));
		return false;
	}
	if (ports.value_size == sizeof(struct symphony_bpf_port) &&
	    stats.type == BPF_MAP_TYPE_PERCPU_ARRAY &&
	    stats.value_size == sizeof(struct symphony_bpf_stats) &&
	    p->meta_fd >= 0)
		return true;
	error("the program pinned in %s has another symofan's map layout: detach its ports to load it anew",
	      dir);
	return false;
}

/* A port's per-CPU counters: read into, or written from, @v. */
static struct symphony_bpf_stats *stats_buf(void)
{
	int ncpus = libbpf_num_possible_cpus();

	return ncpus < 1 ? NULL : calloc(ncpus, sizeof(struct symphony_bpf_stats));
}

/*
 * Ports of @p whose device is gone from this namespace (their link or
 * filter went with it): removed, and their link pins with them, so that
 * the last real detach unpins.  Under the folder's lock.  Returns how
 * many.
 */
static int prune_vanished(const struct pinned *p, const char *dir)
{
	char pin[BPFFS_DIR_MAX + 64];
	struct tc_attach t;
	__u32 key, next, gone[64];
	char name[IF_NAMESIZE];
	bool first = true;
	int nr = 0, i;

	while (!bpf_map_get_next_key(p->ports_fd, first ? NULL : &key, &next) &&
	       nr < (int)ARRAY_SIZE(gone)) {
		first = false;
		key = next;
		if (!if_indextoname(key, name) && errno == ENXIO)
			gone[nr++] = key;
	}
	for (i = 0; i < nr; i++) {
		bpf_map_delete_elem(p->ports_fd, &gone[i]);
		port_hook(&t, pin, sizeof(pin), dir, gone[i]);
		tc_detach_link(&t);
		printf("symofan: port of ifindex %u removed: its device is gone\n",
		       gone[i]);
	}
	return nr;
}

static int zero_stats(int stats_fd, __u32 slot)
{
	struct symphony_bpf_stats *zero = stats_buf();
	int err;

	if (!zero)
		return -1;
	err = bpf_map_update_elem(stats_fd, &slot, zero, 0);
	free(zero);
	return err;
}

/* PARAMETER VALUE pairs and "rate RATE" into @port's parameters. */
static int parse_params(const struct sym_args *a, struct symphony_bpf_cfg *cfg,
			__u64 *rate)
{
	char err[256];
	int i;

	symphony_bpf_cfg_defaults(cfg);
	*rate = 0;
	for (i = 0; i < a->nr_words; i += 2) {
		if (i + 1 == a->nr_words) {
			error("'%s' wants a value", a->words[i]);
			return -1;
		}
		if (!strcmp(a->words[i], "rate")) {
			if (parse_rate(a->words[i + 1], rate) ||
			    *rate < SYMPHONY_BPF_RATE_MIN ||
			    *rate > SYMPHONY_BPF_RATE_MAX) {
				error("rate '%s': wants 10kbit..400gbit (bit, kbit, mbit, gbit)",
				      a->words[i + 1]);
				return -1;
			}
			continue;
		}
		if (symphony_bpf_cfg_set(cfg, a->words[i], a->words[i + 1], err,
					 sizeof(err))) {
			error("%s", err);
			return -1;
		}
	}
	if (!*rate) {
		error("rate RATE is needed: the port's rate (its HTB or TBF rate), at which the phantom queue drains");
		return -1;
	}
	return 0;
}

/*
 * The registry's jobs for the program: refused while sch_symphony qdiscs
 * own them (their locks are not the program's), else recorded as the
 * program's.  0, or -1 after saying why.
 */
static int claim_registry(struct jobs_dir *reg)
{
	if (reg->meta.owner == SYMPHONY_JOBS_OWNER_QDISC) {
		error("the job registry %s serves sch_symphony qdiscs (tc ... symphony jobs_map %s/%s): the module locks a job's updates with its own locks, this program with %s/%s, so one job would be updated under two locks and lose updates; give the program a registry of its own (symofan job init --pin-dir DIR; attach --registry DIR), or, once no qdisc uses this one, 'symofan job release --pin-dir %s'",
		      reg->dir, reg->dir, JOBS_PIN, reg->dir, LOCKS_PIN,
		      reg->dir);
		return -1;
	}
	return set_jobs_owner(reg, SYMPHONY_JOBS_OWNER_BPF);
}

/* Whether the ports map of @ports_fd still holds a port. */
static bool any_port(int ports_fd)
{
	__u32 key;

	return !bpf_map_get_next_key(ports_fd, NULL, &key);
}

/*
 * The program of the registry's jobs is gone: the registry of @reg (open
 * and locked) is nobody's again (unless another program, from another
 * pin folder, still uses its jobs map).
 */
static void release_jobs(struct jobs_dir *reg)
{
	int tries;

	/* an unpinned, detached program is freed a moment later (RCU) */
	for (tries = 0; reg->meta.owner == SYMPHONY_JOBS_OWNER_BPF &&
	     tries < 100; tries++) {
		if (!map_used_by_prog(reg->jobs_fd)) {
			set_jobs_owner(reg, SYMPHONY_JOBS_OWNER_NONE);
			break;
		}
		usleep(10000);
	}
}

/* release_jobs() for the registry in @dir. */
static void release_registry(const char *dir)
{
	struct jobs_dir reg;

	if (open_jobs_dir(&reg, dir, true))
		return;
	release_jobs(&reg);
	close_jobs_dir(&reg);
}

/* How a port runs the program: "tcx link id N", "clsact filter", "none". */
static const char *hook_text(const struct tc_attach_info *h, char *buf,
			     size_t size)
{
	if (h->kind == TC_HOOK_TCX)
		snprintf(buf, size, "tcx link id %u", h->link_id);
	else if (h->kind == TC_HOOK_CLSACT)
		snprintf(buf, size, "clsact filter");
	else
		snprintf(buf, size, "not attached");
	return buf;
}

/*
 * Attach @prog_fd to the egress of @ifindex, by a tcx link pinned in
 * @a's folder or a clsact filter: 0, or -1 after saying why not.
 */
static int port_attach(const struct sym_args *a, __u32 ifindex, int prog_fd,
		       bool reattach, struct tc_attach_info *info)
{
	char pin[BPFFS_DIR_MAX + 64], foreign[160];
	struct tc_attach t;
	int r;

	port_hook(&t, pin, sizeof(pin), a->pin_dir, ifindex);
	t.force_clsact = a->hook_clsact;
	r = tc_attach_prog(&t, prog_fd, info);
	if (r == -EBUSY) {
		error("the egress of %s runs another pin folder's Symphony program (%s); detach it there first",
		      a->dev, tc_foreign_text(info, a->dev, true, foreign,
					      sizeof(foreign)));
		return -1;
	}
	if (r) {
		error("cannot attach to the egress of %s: %s%s", a->dev,
		      why(-r),
		      reattach ? " (its earlier attachment runs on as it was)" : "");
		return -1;
	}
	return 0;
}

static int cmd_attach(const struct command *cmd, int argc, char **argv)
{
	struct pinned p = PINNED_NONE;
	struct symphony_bpf_port port = {}, old_port;
	struct symphony_bpf_stats *old_stats = NULL;
	struct tc_attach_info hook;
	char how[48];
	struct jobs_dir reg = { .jobs_fd = -1, .registry_fd = -1,
				.meta_fd = -1, .locks_fd = -1, .lock_fd = -1 };
	struct sym_args a;
	char err[256], names[64];
	bool reattach = false, loaded = false;
	__u64 rate;
	__u32 ifindex;
	int ret = 2, r, dir_lock = -1;

	r = sym_parse(cmd, argc, argv, true, false, true, &a);
	if (r)
		goto out_args;
	ifindex = dev_ifindex(a.dev);
	if (!ifindex || dev_require_ether(a.dev) ||
	    parse_params(&a, &port.cfg, &rate))
		goto out_args;
	ret = 1;
	/* the registry's lock, then the pin folder's: one attach or detach
	 * at a time changes the folder's ports
	 */
	if (require_cap_bpf() || check_bpffs(a.pin_dir) ||
	    open_jobs_dir(&reg, a.registry, true))
		goto out_args;
	dir_lock = lock_pin_dir(a.pin_dir, true);
	if (dir_lock < 0)
		goto out;
	if (symphony_bpf_cfg_derive(&port.cfg, rate, dev_frame_bytes(a.dev),
				    reg.meta.nr_jobs, err, sizeof(err))) {
		error("%s", err);
		ret = 2;
		goto out;
	}
	if (open_pinned(a.pin_dir, &p)) {
		if (some_pinned(a.pin_dir, names, sizeof(names))) {
			error("%s holds part of a Symphony program (%s): a port may still run it, so it is left alone; detach its ports, or remove those pins once no port runs it",
			      a.pin_dir, names);
			goto out;
		}
		if (claim_registry(&reg) || load_and_pin(a.pin_dir, &reg, &p))
			goto out;
		loaded = true;
	} else if (!same_netns(&p, a.pin_dir)) {
		goto out;
	} else if (!prog_uses_map(p.prog_fd, reg.jobs_fd) ||
		   !prog_uses_map(p.prog_fd, reg.locks_fd)) {
		error("the program pinned in %s uses another jobs map or job locks than %s's (another registry, or a migrated one?): detach its ports to load it anew",
		      a.pin_dir, a.registry);
		goto out;
	} else if (claim_registry(&reg)) {
		goto out;
	}
	if (!ports_layout_ok(&p, a.pin_dir))
		goto out;
	prune_vanished(&p, a.pin_dir);
	port.ifindex = ifindex;
	if (stats_slot(p.ports_fd, ifindex, &port.stats_slot)) {
		error("no counters left for %s: the program in %s serves %d ports already",
		      a.dev, a.pin_dir, SYMPHONY_BPF_MAX_PORTS);
		goto out;
	}
	/* attached again: the old parameters and counters, kept to be put
	 * back if the new attachment fails (the old filter runs on)
	 */
	reattach = !bpf_map_lookup_elem(p.ports_fd, &ifindex, &old_port);
	old_stats = stats_buf();
	if (!old_stats || (reattach && bpf_map_lookup_elem(p.stats_fd,
							   &port.stats_slot,
							   old_stats))) {
		error("cannot read the counters of %s: %s", a.dev, why(errno));
		goto out;
	}
	if (zero_stats(p.stats_fd, port.stats_slot) ||
	    bpf_map_update_elem(p.ports_fd, &ifindex, &port, 0)) {
		error("cannot set the port of %s: %s", a.dev, why(errno));
		goto out_port;
	}
	if (port_attach(&a, ifindex, p.prog_fd, reattach, &hook))
		goto out_port;
	printf("symofan: Symphony on the egress of %s (%s): rate %llu bit/s, kmin %u kmax %u bytes, marking %s, jobs map %s/%s (%u slots)\n",
	       a.dev, hook_text(&hook, how, sizeof(how)),
	       (unsigned long long)rate, port.cfg.kmin_bytes,
	       port.cfg.kmax_bytes,
	       port.cfg.marking == SYMPHONY_MARKING_RED ? "red" : "symphony",
	       a.registry, JOBS_PIN, reg.meta.nr_jobs);
	ret = 0;
	goto out;
out_port:
	if (reattach) {
		bpf_map_update_elem(p.ports_fd, &ifindex, &old_port, 0);
		bpf_map_update_elem(p.stats_fd, &port.stats_slot, old_stats, 0);
	} else {
		bpf_map_delete_elem(p.ports_fd, &ifindex);
	}
	/* a program loaded for this port alone goes with it */
	if (loaded && !any_port(p.ports_fd)) {
		close_pinned(&p);
		unpin_all(a.pin_dir);
		release_jobs(&reg);
	}
out:
	free(old_stats);
	close_pinned(&p);
	if (dir_lock >= 0)
		close(dir_lock);
	close_jobs_dir(&reg);
out_args:
	free(a.words);
	return r > 0 ? 0 : ret;
}

/* "DEV" or "ifindex N" (a device that is gone has only its number). */
static int detach_target(const struct sym_args *a, __u32 *ifindex,
			 char *name)
{
	if (!strcmp(a->dev, "ifindex")) {
		if (a->nr_words != 1 ||
		    parse_u32(a->words[0], 1, INT32_MAX, ifindex)) {
			error("ifindex wants the port's interface index, a number from 1 (symofan symphony status lists them)");
			return -1;
		}
		if (!if_indextoname(*ifindex, name))
			snprintf(name, IF_NAMESIZE, "ifindex %u", *ifindex);
		return 0;
	}
	if (a->nr_words) {
		error("unexpected argument '%s'", a->words[0]);
		return -1;
	}
	snprintf(name, IF_NAMESIZE, "%s", a->dev);
	*ifindex = if_nametoindex(a->dev);
	if (!*ifindex)
		error("no network device '%s' here (a port whose device is gone: detach ifindex N, as status lists it)",
		      a->dev);
	return *ifindex ? 0 : -1;
}

/*
 * Takes Symphony off port @ifindex and out of the ports map (its stats
 * slot is free then: the next attach zeroes it).  The hook's result,
 * 0 or -errno, and whether the port was recorded, in *@had_port.
 */
static int remove_port(const struct pinned *p, const char *dir, __u32 ifindex,
		       bool *had_port)
{
	char pin[BPFFS_DIR_MAX + 64];
	struct tc_attach hook;
	int r;

	port_hook(&hook, pin, sizeof(pin), dir, ifindex);
	r = tc_detach_prog(&hook);
	*had_port = !bpf_map_delete_elem(p->ports_fd, &ifindex);
	return r;
}

/* A detach error worth a warning: not a gone device or hook. */
static bool detach_failed(int r)
{
	return r && r != -ENOENT && r != -ENODEV && r != -EINVAL;
}

/* The folder's last port is gone: its pins go, the registry is freed. */
static void release_folder(struct pinned *p, const char *dir,
			   const char *registry)
{
	close_pinned(p);
	unpin_all(dir);
	release_registry(registry);
}

/*
 * Detaches every port of the folder and unpins it (the package's prerm
 * on removal).  A port in another network namespace loses its tcx link
 * with the pin; a clsact filter there stays until its device goes.
 */
static int detach_all(const struct sym_args *a)
{
	struct pinned p = PINNED_NONE;
	int ret = 1, r, dir_lock, ports = 0;
	bool had_port;
	__u32 ifindex;

	if (access(a->pin_dir, F_OK)) {
		printf("symofan: Symphony is attached to no port (nothing pinned in %s)\n",
		       a->pin_dir);
		return 0;
	}
	dir_lock = lock_pin_dir(a->pin_dir, false);
	if (dir_lock < 0 || open_attached(a->pin_dir, &p))
		goto out;
	while (!bpf_map_get_next_key(p.ports_fd, NULL, &ifindex)) {
		r = remove_port(&p, a->pin_dir, ifindex, &had_port);
		if (detach_failed(r))
			error("warning: cannot detach from ifindex %u: %s",
			      ifindex, why(-r));
		if (!had_port) {
			error("cannot remove port %u from %s: %s", ifindex,
			      a->pin_dir, why(errno));
			goto out;
		}
		ports++;
	}
	release_folder(&p, a->pin_dir, a->registry);
	printf("symofan: Symphony detached from %d ports, %s unpinned\n",
	       ports, a->pin_dir);
	ret = 0;
out:
	close_pinned(&p);
	if (dir_lock >= 0)
		close(dir_lock);
	return ret;
}

static int cmd_detach(const struct command *cmd, int argc, char **argv)
{
	struct pinned p = PINNED_NONE;
	struct sym_args a;
	char name[IF_NAMESIZE + 16];
	int ret = 2, r, dir_lock = -1;
	bool had_port;
	__u32 ifindex;

	r = sym_parse(cmd, argc, argv, true, true, true, &a);
	if (!r && a.all == !!a.dev) {
		error("which ports? DEV, ifindex N or --all");
		sym_usage(cmd);
		r = -1;
	}
	if (!r && a.all) {
		ret = detach_all(&a);
		goto out_args;
	}
	if (r || detach_target(&a, &ifindex, name))
		goto out_args;
	ret = 1;
	if (access(a.pin_dir, F_OK)) {
		error("Symphony is attached to no port (nothing pinned in %s)",
		      a.pin_dir);
		goto out_args;
	}
	dir_lock = lock_pin_dir(a.pin_dir, false);
	if (dir_lock < 0 || open_attached(a.pin_dir, &p))
		goto out;
	r = remove_port(&p, a.pin_dir, ifindex, &had_port);
	if (!had_port && r) {
		error("Symphony is not attached to %s", name);
		goto out;
	}
	if (detach_failed(r))
		error("warning: cannot detach from %s: %s", name, why(-r));
	prune_vanished(&p, a.pin_dir);
	if (!any_port(p.ports_fd))
		release_folder(&p, a.pin_dir, a.registry);
	ret = 0;
out:
	close_pinned(&p);
	if (dir_lock >= 0)
		close(dir_lock);
out_args:
	free(a.words);
	return r > 0 ? 0 : ret;
}

/* A port's counters, summed over the CPUs (the high-water mark: max). */
static int port_stats(int stats_fd, __u32 slot, struct symphony_bpf_stats *s)
{
	int ncpus = libbpf_num_possible_cpus(), cpu;
	struct symphony_bpf_stats *v;

	memset(s, 0, sizeof(*s));
	if (ncpus < 1)
		return -1;
	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -1;
	if (bpf_map_lookup_elem(stats_fd, &slot, v)) {
		free(v);
		return -1;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		s->packets += v[cpu].packets;
		s->bytes += v[cpu].bytes;
		s->red_marks += v[cpu].red_marks;
		s->symphony_marks += v[cpu].symphony_marks;
		s->outpacing_packets += v[cpu].outpacing_packets;
		s->collective_packets += v[cpu].collective_packets;
		s->unclassified_packets += v[cpu].unclassified_packets;
		s->malformed_packets += v[cpu].malformed_packets;
		s->red_drops += v[cpu].red_drops;
		s->phantom_overlimits += v[cpu].phantom_overlimits;
		if (v[cpu].max_backlog_ns > s->max_backlog_ns)
			s->max_backlog_ns = v[cpu].max_backlog_ns;
	}
	free(v);
	return 0;
}

static __u64 mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Nanoseconds of @port's rate as bytes. */
static __u64 bytes_of_ns(const struct symphony_bpf_port *port, __u64 ns)
{
	if (!port->cfg.ps_per_byte_q16)
		return 0;
	return (unsigned __int128)ns * (1000ULL << 16) /
	       port->cfg.ps_per_byte_q16;
}

static void add_u64(struct json_object *o, const char *key, __u64 v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *port_json(const struct symphony_bpf_port *port,
				     const struct symphony_bpf_stats *s,
				     const char *name, __u64 backlog_ns,
				     const struct tc_attach_info *hook)
{
	const struct symphony_bpf_cfg *c = &port->cfg;
	struct json_object *o = json_object_new_object(), *st;

	json_object_object_add(o, "dev", json_object_new_string(name));
	add_u64(o, "ifindex", port->ifindex);
	json_object_object_add(o, "hook",
			       json_object_new_string(tc_hook_name(hook->kind)));
	add_u64(o, "link_id", hook->link_id);
	add_u64(o, "prog_id", hook->prog_id);
	add_u64(o, "rate_bps", c->rate_bps);
	add_u64(o, "limit_packets", c->limit_packets);
	add_u64(o, "limit_bytes", c->limit_bytes);
	add_u64(o, "kmin_bytes", c->kmin_bytes);
	add_u64(o, "kmax_bytes", c->kmax_bytes);
	add_u64(o, "pmax_ppm", c->pmax_ppm);
	add_u64(o, "qmin_bytes", c->qmin_bytes);
	json_object_object_add(o, "nonect", json_object_new_string(
		c->nonect == SYMPHONY_NONECT_DROP ? "drop" : "pass"));
	json_object_object_add(o, "marking", json_object_new_string(
		c->marking == SYMPHONY_MARKING_RED ? "red" : "symphony"));
	add_u64(o, "k_ppm", c->k_ppm);
	add_u64(o, "tau_ppm", c->tau_ppm);
	add_u64(o, "twin_us", c->twin_us);
	add_u64(o, "warmup_psn", c->warmup_psn);
	add_u64(o, "samples_packets", c->sample_min_packets);
	add_u64(o, "alpha_max", c->alpha_max);
	add_u64(o, "jobs", c->nr_jobs);
	add_u64(o, "phantom_backlog_bytes", bytes_of_ns(port, backlog_ns));
	st = json_object_new_object();
	add_u64(st, "packets", s->packets);
	add_u64(st, "bytes", s->bytes);
	add_u64(st, "red_marks", s->red_marks);
	add_u64(st, "symphony_marks", s->symphony_marks);
	add_u64(st, "outpacing_packets", s->outpacing_packets);
	add_u64(st, "collective_packets", s->collective_packets);
	add_u64(st, "unclassified_packets", s->unclassified_packets);
	add_u64(st, "malformed_packets", s->malformed_packets);
	add_u64(st, "red_drops", s->red_drops);
	add_u64(st, "phantom_overlimits", s->phantom_overlimits);
	add_u64(st, "max_backlog_bytes", bytes_of_ns(port, s->max_backlog_ns));
	json_object_object_add(o, "stats", st);
	return o;
}

/* A field of status's JSON, as text. */
static const char *stat_of(struct json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

/* A port's counters as tc -s prints a qdisc's: names with their units. */
static void print_port_stats(struct json_object *st)
{
	printf("  sent %s bytes %s packets (collective %s, unclassified %s, malformed %s)\n",
	       stat_of(st, "bytes"), stat_of(st, "packets"),
	       stat_of(st, "collective_packets"),
	       stat_of(st, "unclassified_packets"),
	       stat_of(st, "malformed_packets"));
	printf("  marked %s packets by RED, %s by Symphony; %s packets outpacing; dropped %s packets by RED\n",
	       stat_of(st, "red_marks"), stat_of(st, "symphony_marks"),
	       stat_of(st, "outpacing_packets"), stat_of(st, "red_drops"));
	printf("  phantom queue: %s packets over its limit, high-water %s bytes\n",
	       stat_of(st, "phantom_overlimits"),
	       stat_of(st, "max_backlog_bytes"));
}

static int cmd_status(const struct command *cmd, int argc, char **argv)
{
	struct pinned p = PINNED_NONE;
	struct json_object *ports = json_object_new_array();
	struct sym_args a;
	__u32 key, next, want = 0;
	bool first = true;
	int ret = 2, r;

	r = sym_parse(cmd, argc, argv, true, true, false, &a);
	if (r)
		goto out_args;
	if (a.dev) {
		want = dev_ifindex(a.dev);
		if (!want)
			goto out_args;
	}
	ret = 1;
	if (open_attached(a.pin_dir, &p))
		goto out_args;
	while (!bpf_map_get_next_key(p.ports_fd, first ? NULL : &key, &next)) {
		struct symphony_bpf_port port;
		struct symphony_bpf_stats s;
		char pin[BPFFS_DIR_MAX + 64];
		struct tc_attach_info hook;
		struct tc_attach t;
		char name[IF_NAMESIZE] = "(gone)";
		__u64 now = mono_now_ns(), backlog;

		first = false;
		key = next;
		if ((want && key != want) ||
		    bpf_map_lookup_elem(p.ports_fd, &key, &port))
			continue;
		port_stats(p.stats_fd, port.stats_slot, &s);
		if_indextoname(key, name);
		backlog = port.empty_ns > now ? port.empty_ns - now : 0;
		port_hook(&t, pin, sizeof(pin), a.pin_dir, key);
		tc_attach_query(&t, &hook);
		json_object_array_add(ports, port_json(&port, &s, name, backlog,
						       &hook));
	}
	if (want && !json_object_array_length(ports)) {
		error("Symphony is not attached to %s", a.dev);
		goto out;
	}
	if (a.json) {
		puts(json_object_to_json_string_ext(ports, JSON_C_TO_STRING_PLAIN));
	} else {
		size_t i;

		for (i = 0; i < json_object_array_length(ports); i++) {
			struct json_object *o = json_object_array_get_idx(ports, i), *st;

			json_object_object_get_ex(o, "stats", &st);
			printf("%s (%s, link id %s, prog id %s): rate %s bit/s, RED kmin %s kmax %s bytes pmax %s ppm, marking %s, k %s ppm; phantom backlog %s bytes\n",
			       stat_of(o, "dev"), stat_of(o, "hook"),
			       stat_of(o, "link_id"), stat_of(o, "prog_id"),
			       stat_of(o, "rate_bps"),
			       stat_of(o, "kmin_bytes"), stat_of(o, "kmax_bytes"),
			       stat_of(o, "pmax_ppm"), stat_of(o, "marking"),
			       stat_of(o, "k_ppm"),
			       stat_of(o, "phantom_backlog_bytes"));
			print_port_stats(st);
		}
	}
	ret = 0;
out:
	close_pinned(&p);
out_args:
	json_object_put(ports);
	free(a.words);
	return r > 0 ? 0 : ret;
}

static void print_param_table(FILE *f)
{
	char range[96];
	int i;

	fprintf(f, "  PARAMETER VALUE, as tc's symphony qdisc takes them:\n");
	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *pr = &symphony_params[i];

		if (pr->attr == TCA_SYMPHONY_JOBS)
			continue;
		symphony_param_range_text(pr, 0, range, sizeof(range));
		fprintf(f, "    %-12s %s (%s)\n", pr->keyword, pr->help, range);
	}
}

const struct command symphony_commands[] = {
	{
		.name = "attach",
		.synopsis = "DEV rate RATE [PARAMETER VALUE]... [--registry DIR] [--pin-dir DIR] [--hook tcx|clsact]",
		.help = "run Symphony as tc-BPF on the egress of DEV, RED on a phantom queue draining at RATE",
		.details =
		"  RATE is the port's (its HTB or TBF rate): the phantom queue that RED\n"
		"  marks on drains at it.  The jobs' state is the registry's (symofan job\n"
		"  init; --registry, default " JOBS_PIN_DIR "), shared by every port.\n"
		"  Attaching to a port again replaces its parameters.  limit and\n"
		"  limit_bytes size the phantom queue (limit in frames of DEV's MTU).\n"
		"  The port runs the program by a tcx link pinned in --pin-dir where the\n"
		"  kernel has tcx (Linux 6.6 and later), else by a filter on its clsact\n"
		"  egress; --hook clsact asks for the filter.  A port that runs another\n"
		"  pin folder's Symphony program is refused.\n",
		.print_details = print_param_table,
		.run = cmd_attach,
	},
	{
		.name = "detach",
		.synopsis = "DEV | ifindex N | --all [--pin-dir DIR] [--registry DIR]",
		.help = "take Symphony off the egress of DEV (the last port: unpin the program)",
		.details =
		"  ifindex N names a port whose device is gone (status lists them);\n"
		"  --all every port of the pin folder, which it then unpins.\n"
		"  Ports whose device is gone are removed on the way.  The last port's\n"
		"  detach unpins the program and, if no other program uses the\n"
		"  registry's jobs (--registry, default " JOBS_PIN_DIR "), frees them\n"
		"  for sch_symphony qdiscs.\n",
		.run = cmd_detach,
	},
	{
		.name = "status", .synopsis = "[DEV] [--pin-dir DIR] [--json]",
		.help = "each port's parameters, phantom backlog and counters",
		.run = cmd_status,
	},
	{ }
};
