// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_control.c - "symofan ofan set-mode MODE" and "symofan ofan port
 * INDEX up|down": change the load-balancing mode and an uplink's
 * administrative state at run time, in ofan_config under the pin-folder
 * lock.  An uplink set down stays down until set up, whatever its link
 * does and whatever the daemon or a reload writes; set up, it carries
 * traffic while its link is up.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "ofan.h"
#include "ofan/ofan_maps.h"
#include "state.h"
#include "tool_util.h"

/*
 * Opens and locks ofan_config of @dir and reads the active set's into
 * @cfg (its set into *@set).
 */
static int open_config(const char *dir, struct ofan_config *cfg, __u32 *set,
		       int *lock_fd)
{
	int fd;

	fd = open_pinned(dir, "ofan_config", sizeof(*cfg), false);
	if (fd < 0)
		return -1;
	*lock_fd = lock_dir(dir);
	if (*lock_fd < 0) {
		close(fd);
		return -1;
	}
	/* under the lock: no load flips the set meanwhile */
	if (read_active_set(dir, set))
		goto fail;
	if (bpf_map_lookup_elem(fd, set, cfg)) {
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

static int write_config(int fd, const char *dir, __u32 set,
			const struct ofan_config *cfg)
{
	if (bpf_map_update_elem(fd, &set, cfg, BPF_ANY)) {
		error("cannot write %s/ofan_config: %s", dir, why(errno));
		return -1;
	}
	return 0;
}

/*
 * ar and jsq drain each uplink's phantom backlog at the uplink's rate:
 * *@none, the uplinks of set @set of @dir without one (a bit each).
 * 0, or -1 after an error.
 */
static int uplinks_without_rate(const char *dir, __u32 set, __u32 w,
				__u64 *none)
{
	struct ofan_port port;
	__u32 i, key;
	int fd, ret = 0;

	*none = 0;
	fd = open_pinned(dir, "ofan_ports", sizeof(port), false);
	if (fd < 0)
		return -1;
	for (i = 0; i < w && i < OFAN_MAX_W; i++) {
		key = ofan_port_index(set, i);
		if (bpf_map_lookup_elem(fd, &key, &port)) {
			error("cannot read %s/ofan_ports: %s", dir, why(errno));
			ret = -1;
			break;
		}
		if (!port.rate_bps)
			*none |= 1ULL << i;
	}
	close(fd);
	return ret;
}

int cmd_ofan_set_mode(const struct command *cmd, int argc, char **argv)
{
	struct ofan_config cfg;
	int ret, fd, lock_fd, mode;
	__u32 old, set;
	struct opts o;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 1, &o));
	if (ret >= 0)
		return ret;
	mode = ofan_mode_by_name(o.args[0]);
	if (mode < 0) {
		error("unknown mode '%s' (" OFAN_MODE_LIST ")", o.args[0]);
		return EXIT_USAGE;
	}
	fd = open_config(o.pin_dir, &cfg, &set, &lock_fd);
	if (fd < 0)
		return EXIT_ERROR;
	if (ofan_mode_needs_rate(mode)) {
		__u64 none;

		ret = EXIT_ERROR;
		if (uplinks_without_rate(o.pin_dir, set, cfg.w, &none))
			goto out;
		ret = EXIT_USAGE;
		if (none) {
			error("mode %s needs a rate on every uplink: uplink %d has none (add 'rate RATE' to its line and load again)",
			      ofan_mode_names[mode], __builtin_ctzll(none));
			goto out;
		}
	}
	old = cfg.mode;
	cfg.mode = mode;
	ret = write_config(fd, o.pin_dir, set, &cfg) ? EXIT_ERROR : EXIT_OK;
	if (!ret)
		printf("symofan: ofan mode %s -> %s\n", ofan_mode_name(old),
		       ofan_mode_names[mode]);
out:
	close(lock_fd);
	close(fd);
	return ret;
}

/*
 * Whether this process runs in the network namespace @dir was loaded
 * from: the uplinks' ifindexes name other devices elsewhere.  0, or -1
 * after saying where to run.
 */
static int require_load_netns(const char *dir)
{
	struct symofan_state *st = calloc(1, sizeof(*st));
	__u64 dev, ino;
	int fd, ret = -1;

	if (!st) {
		error("out of memory");
		return -1;
	}
	fd = read_state(dir, st);
	if (fd >= 0)
		close(fd);
	if (fd == -1 || !st->nr_uplinks) {
		ret = 0;	/* no load recorded: nothing to mix up */
	} else if (fd >= 0 && !netns_id(&dev, &ino)) {
		if (st->netns_dev == dev && st->netns_ino == ino)
			ret = 0;
		else
			error("%s was loaded from network namespace net:[%llu], this is net:[%llu]: its uplinks' ifindexes name other devices here; run this there",
			      dir, (unsigned long long)st->netns_ino,
			      (unsigned long long)ino);
	}
	free(st);
	return ret;
}

/* Whether the link of uplink @idx of set @set of @dir is up now. */
static bool uplink_link_up(const char *dir, __u32 set, __u32 idx)
{
	__u32 key = ofan_port_index(set, idx);
	struct ofan_port port = {};
	int fd;

	fd = open_pinned(dir, "ofan_ports", sizeof(port), false);
	if (fd < 0)
		return false;
	bpf_map_lookup_elem(fd, &key, &port);
	close(fd);
	return uplinks_link_up(&port, 1) & 1;
}

int cmd_ofan_port(const struct command *cmd, int argc, char **argv)
{
	struct ofan_config cfg;
	unsigned long idx;
	int ret, fd, lock_fd;
	bool up, link_up;
	__u32 set;
	struct opts o;
	char *end;

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
	if (require_load_netns(o.pin_dir))
		return EXIT_ERROR;
	fd = open_config(o.pin_dir, &cfg, &set, &lock_fd);
	if (fd < 0)
		return EXIT_ERROR;
	ret = EXIT_USAGE;
	if (idx >= cfg.w) {
		error("port: no uplink %lu (uplinks 0..%u)", idx, cfg.w - 1);
		goto out;
	}
	if (up)
		cfg.admin_down_ports &= ~(1ULL << idx);
	else
		cfg.admin_down_ports |= 1ULL << idx;
	link_up = uplink_link_up(o.pin_dir, set, idx);
	if (up && link_up)
		cfg.up_ports |= 1ULL << idx;
	else
		cfg.up_ports &= ~(1ULL << idx);
	ret = write_config(fd, o.pin_dir, set, &cfg) ? EXIT_ERROR : EXIT_OK;
	if (!ret)
		printf("symofan: ofan uplink %lu administratively %s%s (up ports 0x%llx)\n",
		       idx, up ? "up" : "down",
		       up && !link_up ? ", its link is down" : "",
		       (unsigned long long)cfg.up_ports);
out:
	close(lock_fd);
	close(fd);
	return ret;
}
