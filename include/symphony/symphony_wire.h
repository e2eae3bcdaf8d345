/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_wire.h - wire formats of the collective traffic the datapath
 * understands, shared by the qdisc's parser, the packet-crafting tool and
 * the workload generators.  All multi-byte fields are big endian.
 *
 * RoCEv2: IPv4/IPv6, UDP destination port 4791, then the 12-byte Base
 * Transport Header (IBTA vol. 1, 9.2):
 *
 *	byte 0		opcode
 *	byte 1		SE:1 M:1 PadCnt:2 TVer:4
 *	bytes 2-3	P_Key
 *	byte 4		FECN:1 BECN:1 reserved:6
 *	bytes 5-7	DestQP
 *	byte 8		AckReq:1 reserved:7
 *	bytes 9-11	PSN (24 bits)
 *
 * UEC (Ultra Ethernet 1.0), UDP destination port 4793, as this project
 * frames it: the 12-byte PDS request header of a RUD/ROD packet, then the
 * first 8 bytes of the SES standard header:
 *
 *	PDS byte 0	type:5 next_hdr(high 3 bits)
 *	PDS byte 1	next_hdr(low bit) flags:7
 *	PDS bytes 2-3	clear PSN offset
 *	PDS bytes 4-7	PSN (32 bits)
 *	PDS bytes 8-9	source PDC id (SPDCID)
 *	PDS bytes 10-11	destination PDC id (DPDCID)
 *	SES byte 0	reserved:2 opcode:6
 *	SES byte 1	version:2 dc:1 ie:1 rel:1 hd:1 eom:1 som:1
 *	SES bytes 2-3	message id
 *	SES byte 4	RI generation
 *	SES bytes 5-7	JobID (24 bits)
 *
 * Symphony's paper maps the UEC JobID to the job and the PDC id to the
 * step; this project takes the sender's PDC id (SPDCID), the analogue of
 * the RoCEv2 UDP source port.
 */
#ifndef _SYMPHONY_WIRE_H
#define _SYMPHONY_WIRE_H

#include <linux/types.h>

#define SYMPHONY_UDP_PORT_ROCEV2	4791
#define SYMPHONY_UDP_PORT_UEC		4793

#define SYMPHONY_BTH_LEN		12
#define SYMPHONY_BTH_OPCODE		0
#define SYMPHONY_BTH_FECN_RSVD		4	/* reserved: low 6 bits */
#define SYMPHONY_BTH_DESTQP		5
#define SYMPHONY_BTH_ACKREQ_RSVD	8	/* reserved: low 7 bits */
#define SYMPHONY_BTH_PSN		9
#define SYMPHONY_BTH_RSVD6_MASK		0x3f
#define SYMPHONY_BTH_RSVD7_MASK		0x7f
#define SYMPHONY_BTH_PSN_BITS		24

/* RC opcodes (IBTA vol. 1, table 38) */
#define SYMPHONY_OP_RC_SEND_FIRST	0x00
#define SYMPHONY_OP_RC_SEND_MIDDLE	0x01
#define SYMPHONY_OP_RC_SEND_LAST	0x02
#define SYMPHONY_OP_RC_SEND_ONLY	0x04
#define SYMPHONY_OP_RC_WRITE_FIRST	0x06
#define SYMPHONY_OP_RC_WRITE_MIDDLE	0x07
#define SYMPHONY_OP_RC_WRITE_LAST	0x08
#define SYMPHONY_OP_RC_WRITE_ONLY	0x0a
#define SYMPHONY_OP_RC_ACK		0x11
#define SYMPHONY_OP_CNP			0x81

#define SYMPHONY_PDS_LEN		12
#define SYMPHONY_PDS_PSN		4
#define SYMPHONY_PDS_SPDCID		8
#define SYMPHONY_PDS_DPDCID		10
#define SYMPHONY_SES_MIN_LEN		8
#define SYMPHONY_SES_FLAGS		1
#define SYMPHONY_SES_FLAG_EOM		0x02
#define SYMPHONY_SES_FLAG_SOM		0x01
#define SYMPHONY_SES_JOBID		5
#define SYMPHONY_UEC_PSN_BITS		32
#define SYMPHONY_UEC_JOBID_BITS		24

/*
 * Big-endian header fields at any alignment, byte by byte (compilers turn
 * these into one load or store and a byte swap): the one set of helpers
 * of the parsers and packet builders outside the kernel, which uses its
 * own get_unaligned_be*().
 */
static inline __u32 symphony_get_be16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

static inline __u32 symphony_get_be24(const __u8 *p)
{
	return (__u32)p[0] << 16 | (__u32)p[1] << 8 | p[2];
}

static inline __u32 symphony_get_be32(const __u8 *p)
{
	return (__u32)p[0] << 24 | symphony_get_be24(p + 1);
}

static inline __u64 symphony_get_be64(const __u8 *p)
{
	return (__u64)symphony_get_be32(p) << 32 | symphony_get_be32(p + 4);
}

static inline void symphony_put_be16(__u8 *p, __u32 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void symphony_put_be24(__u8 *p, __u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void symphony_put_be32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	symphony_put_be24(p + 1, v);
}

static inline void symphony_put_be64(__u8 *p, __u64 v)
{
	symphony_put_be32(p, v >> 32);
	symphony_put_be32(p + 4, v);
}

#endif /* _SYMPHONY_WIRE_H */
