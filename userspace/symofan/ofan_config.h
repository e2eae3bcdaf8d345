/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ofan_config.h - the switch description that "symofan ofan load" reads
 * (format: userspace/ofan.conf.5.md), parsed and fully validated into
 * struct ofan_conf before anything on the system is touched.
 */
#ifndef _SYMOFAN_OFAN_CONFIG_H
#define _SYMOFAN_OFAN_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>

#include "bpffs.h"
#include "ofan/ofan_maps.h"
#include "ofan/ofan_names.h"

#define OFAN_CONF_PIN_DIR	"/sys/fs/bpf/ofan"
#define OFAN_CONF_PIN_DIR_MAX	BPFFS_DIR_MAX	/* room for "/<map name>" */
#define OFAN_CONF_ACK_MAX_BYTES	128
#define OFAN_CONF_MAX_DOWNLINKS	OFAN_MAX_PIPE_PORTS

enum ofan_role {
	OFAN_ROLE_EDGE,		/* keys are edge switches: level 0 */
	OFAN_ROLE_AGGREGATION,	/* keys are pods: level 1 */
};

struct ofan_conf_uplink {
	unsigned int	line;		/* 0: index not declared */
	char		ifname[IFNAMSIZ];
	__u32		ifindex;
	__u32		nh_flags;	/* OFAN_PORT_F_NH4, OFAN_PORT_F_NH6 */
	__u8		nh4[4];		/* IPv4 next hop, network byte order */
	__u8		nh6[16];	/* IPv6 next hop, network byte order */
	__u64		rate_bps;	/* "rate", bit/s; 0: not given */
};

struct ofan_conf_downlink {
	unsigned int	line;
	char		ifname[IFNAMSIZ];
	__u32		ifindex;
	__u32		pipe;
};

struct ofan_conf_key {
	unsigned int	line;		/* 0: key not declared */
	bool		local;
	bool		all_ports;
	__u64		ports;		/* when !all_ports: listed uplinks */
};

struct ofan_conf_prefix {
	unsigned int	line;
	__u32		family;
	__u32		len;
	__u8		addr[16];	/* network byte order, host bits 0 */
	__u32		key;
};

struct ofan_conf {
	const char		*path;
	enum ofan_role		role;
	enum ofan_mode		mode;
	__u32			ack_max_bytes;
	char			pin_dir[OFAN_CONF_PIN_DIR_MAX + 1];
	bool			has_seed;
	__u64			seed;
	__u64			ar_buffer_bytes;	/* "ar-buffer" */

	__u32			w;	/* uplinks 0..w-1 */
	struct ofan_conf_uplink	uplinks[OFAN_MAX_W];
	__u32			nr_downlinks;
	struct ofan_conf_downlink downlinks[OFAN_CONF_MAX_DOWNLINKS];
	__u32			nr_pipes;	/* highest pipe + 1 */

	__u32			nr_keys;	/* highest declared key + 1 */
	__u32			nr_declared;	/* keys declared */
	__u32			nr_local;	/* of which local */
	struct ofan_conf_key	keys[OFAN_MAX_KEYS];

	__u32			nr_prefixes;
	struct ofan_conf_prefix	*prefixes;

	bool			fast_enabled;
	__u32			fast_net;	/* network byte order */
	__u32			fast_prefix_len;
	__u32			fast_shift;
	__u32			fast_mask;
};

/*
 * ofan_conf_load - parse and validate the file at @path into @conf
 * (allocated by the caller; freed with ofan_conf_free()).  Returns 0, or
 * -1 after printing "PATH:LINE: reason" to @err for the first error.
 */
int ofan_conf_load(struct ofan_conf *conf, const char *path, FILE *err);

void ofan_conf_free(struct ofan_conf *conf);

/* The valid-port mask of key @k: its listed ports, or all w uplinks. */
__u64 ofan_conf_key_ports(const struct ofan_conf *conf, __u32 k);

/* Uplink @i of @conf as the datapath's ofan_ports holds it. */
void ofan_conf_port(const struct ofan_conf *conf, __u32 i,
		    struct ofan_port *port);

/* The uplinks with a next hop of @family (AF_INET or AF_INET6). */
__u64 ofan_conf_family_ports(const struct ofan_conf *conf, int family);

#endif /* _SYMOFAN_OFAN_CONFIG_H */
