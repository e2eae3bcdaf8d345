// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - Ofan's pin folder as the agent keeps it: pinned maps opened
 * and checked, and the agent's own state map read, created and filled
 * (state.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "state.h"
#include "tool_util.h"

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

int open_state(const char *dir, struct symofan_state *st, bool *existed)
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

void record_state(struct symofan_state *st, const struct ofan_conf *conf,
		  const char *config)
{
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

__u64 uplinks_link_up(const struct ofan_port *ports, __u32 w)
{
	struct ifreq ifr;
	__u64 up = 0;
	__u32 i;
	int sock;

	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return 0;
	for (i = 0; i < w && i < OFAN_MAX_W; i++) {
		memset(&ifr, 0, sizeof(ifr));
		if (!if_indextoname(ports[i].ifindex, ifr.ifr_name) ||
		    ioctl(sock, SIOCGIFFLAGS, &ifr))
			continue;
		if (link_flags_up(ifr.ifr_flags))
			up |= 1ULL << i;
	}
	close(sock);
	return up;
}

int read_active_set_fd(int fd, const char *dir, __u32 *set)
{
	struct ofan_active active;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, &active)) {
		error("cannot read %s/ofan_active: %s", dir, why(errno));
		return -1;
	}
	*set = ofan_config_index(active.set);
	return 0;
}

int read_active_set(const char *dir, __u32 *set)
{
	int fd, err;

	fd = open_pinned(dir, "ofan_active", sizeof(struct ofan_active), false);
	if (fd < 0)
		return -1;
	err = read_active_set_fd(fd, dir, set);
	close(fd);
	return err;
}
