/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ecnstat_map.h - map layout of the ecnstat tc-BPF program, shared by
 * bpf/ecnstat.bpf.c and the userspace/ecnstat loader.  Ports and opcodes
 * are symphony_wire.h's.
 */
#ifndef SYMOFAN_ECNSTAT_MAP_H
#define SYMOFAN_ECNSTAT_MAP_H

#include <linux/types.h>

/* Per-CPU counters of one attachment (hook and interface), summed by the
 * loader.  All fields count packets (GSO packets as their segments)
 * except bytes.
 */
struct ecnstat_counters {
	__u64 packets;		/* IPv4 and IPv6 packets seen */
	__u64 bytes;		/* their length on the wire, bytes */
	__u64 not_ect;		/* ECN field 00 */
	__u64 ect1;		/* ECN field 01 */
	__u64 ect0;		/* ECN field 10 */
	__u64 ce;		/* ECN field 11 */
	__u64 rocev2;		/* UDP to SYMPHONY_UDP_PORT_ROCEV2 */
	__u64 rocev2_cnp;	/* of which SYMPHONY_OP_CNP */
	__u64 uec;		/* UDP to SYMPHONY_UDP_PORT_UEC */
	__u64 other;		/* not IPv4/IPv6 or truncated */
};

#endif /* SYMOFAN_ECNSTAT_MAP_H */
