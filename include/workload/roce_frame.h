/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * roce_frame.h - the packets of the workload tools, built and read in one
 * place: IPv4 and UDP headers (for a raw socket that sets the UDP source
 * port and the ECN field per packet), the RoCEv2 Base Transport Header
 * with the ACK Extended Transport Header, the CNP, and the UEC PDS/SES
 * headers, as include/symphony/symphony_wire.h describes them.  The job
 * rides in the BTH reserved bits (13 bits: byte 4 bits 5-0, then byte 8
 * bits 6-0), the step in the UDP source port, the flow's queue pair (the
 * collective's channel) in DestQP: what sch_symphony parses by default.
 */
#ifndef _WORKLOAD_ROCE_FRAME_H
#define _WORKLOAD_ROCE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "symphony/symphony_wire.h"

#define ROCE_IPV4_LEN		20
#define ROCE_UDP_LEN		8
#define ROCE_AETH_LEN		4
#define ROCE_ICRC_LEN		4
#define ROCE_JOB_BITS		13	/* BTH reserved bits */
#define ROCE_CNP_PAD		16	/* a CNP's reserved payload */

/* AETH syndromes (IBTA vol. 1, 9.7.5.1.1) */
#define ROCE_AETH_ACK		0x00
#define ROCE_AETH_NAK_SEQ	0x60	/* NAK: PSN sequence error */

/* ECN codepoints of the IP header */
#define ROCE_ECN_NOT_ECT	0
#define ROCE_ECN_ECT1		1
#define ROCE_ECN_ECT0		2
#define ROCE_ECN_CE		3

/* The RFC 1071 sum of @len bytes at @p, folded into @sum (not inverted). */
static inline __u32 roce_csum_add(__u32 sum, const __u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += symphony_get_be16(p + i);
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The Internet checksum of @len bytes at @hdr, host order: 0 when a
 * header with its checksum in place is intact.
 */
static inline __u16 roce_inet_csum(const void *hdr, size_t len)
{
	return ~roce_csum_add(0, (const __u8 *)hdr, len) & 0xffff;
}

/*
 * roce_put_ipv4_udp - IPv4 (no options, DF, TTL 64) and UDP headers for a
 * UDP payload of @payload_len bytes, at @out (28 bytes).  Addresses are in
 * network byte order (as in struct in_addr), ports in host order.  The IP
 * checksum is filled; the UDP checksum is 0 (none), as RoCEv2 NICs send.
 */
static inline void roce_put_ipv4_udp(__u8 *out, __u32 saddr_be,
				     __u32 daddr_be, __u16 sport, __u16 dport,
				     __u8 ecn, __u16 ip_id, size_t payload_len)
{
	__u8 *udp = out + ROCE_IPV4_LEN;
	__u32 tot_len = ROCE_IPV4_LEN + ROCE_UDP_LEN + payload_len;
	const __u8 *s = (const __u8 *)&saddr_be, *d = (const __u8 *)&daddr_be;
	int i;

	out[0] = 0x45;
	out[1] = ecn & 3;
	symphony_put_be16(out + 2, tot_len);
	symphony_put_be16(out + 4, ip_id);
	symphony_put_be16(out + 6, 0x4000);		/* DF */
	out[8] = 64;
	out[9] = 17;					/* UDP */
	out[10] = out[11] = 0;
	for (i = 0; i < 4; i++) {
		out[12 + i] = s[i];
		out[16 + i] = d[i];
	}
	symphony_put_be16(out + 10, roce_inet_csum(out, ROCE_IPV4_LEN));

	symphony_put_be16(udp, sport);
	symphony_put_be16(udp + 2, dport);
	symphony_put_be16(udp + 4, ROCE_UDP_LEN + payload_len);
	symphony_put_be16(udp + 6, 0);
}

/* The job's 13 bits in the BTH reserved fields. */
static inline void roce_bth_put_job(__u8 *bth, __u32 job)
{
	bth[SYMPHONY_BTH_FECN_RSVD] =
		(bth[SYMPHONY_BTH_FECN_RSVD] & ~SYMPHONY_BTH_RSVD6_MASK) |
		((job >> 7) & SYMPHONY_BTH_RSVD6_MASK);
	bth[SYMPHONY_BTH_ACKREQ_RSVD] =
		(bth[SYMPHONY_BTH_ACKREQ_RSVD] & ~SYMPHONY_BTH_RSVD7_MASK) |
		(job & SYMPHONY_BTH_RSVD7_MASK);
}

static inline __u32 roce_bth_job(const __u8 *bth)
{
	return (__u32)(bth[SYMPHONY_BTH_FECN_RSVD] & SYMPHONY_BTH_RSVD6_MASK) << 7 |
	       (bth[SYMPHONY_BTH_ACKREQ_RSVD] & SYMPHONY_BTH_RSVD7_MASK);
}

/*
 * roce_put_bth - a 12-byte BTH at @bth: @opcode, default P_Key, @job in
 * the reserved bits, @dest_qp, @psn (24 bits), AckReq when @ack_req.
 */
static inline void roce_put_bth(__u8 *bth, __u8 opcode, __u32 job,
				__u32 dest_qp, __u32 psn, bool ack_req)
{
	int i;

	for (i = 0; i < SYMPHONY_BTH_LEN; i++)
		bth[i] = 0;
	bth[SYMPHONY_BTH_OPCODE] = opcode;
	symphony_put_be16(bth + 2, 0xffff);
	symphony_put_be24(bth + SYMPHONY_BTH_DESTQP, dest_qp);
	bth[SYMPHONY_BTH_ACKREQ_RSVD] = ack_req ? 0x80 : 0;
	roce_bth_put_job(bth, job);
	symphony_put_be24(bth + SYMPHONY_BTH_PSN, psn);
}

/* The RDMA WRITE opcode of packet @i of a @count-packet message. */
static inline __u8 roce_write_opcode(__u32 i, __u32 count)
{
	if (count == 1)
		return SYMPHONY_OP_RC_WRITE_ONLY;
	if (i == 0)
		return SYMPHONY_OP_RC_WRITE_FIRST;
	if (i == count - 1)
		return SYMPHONY_OP_RC_WRITE_LAST;
	return SYMPHONY_OP_RC_WRITE_MIDDLE;
}

/*
 * A requester's close notice to its responder: every message it sent on
 * the queue pair is ACKed, so that the responder, done too, may go
 * without waiting for resends of messages whose last ACK it cannot know
 * arrived (what a connection manager's disconnect tells; ringcoll's
 * exit).  A BTH alone, with an opcode of IBTA's manufacturer-specific
 * range (0xc0-0xff): no data for a switch's parser
 * (symphony_bth_is_data()).
 */
#define ROCE_OP_CLOSE		0xc0

/* An ACK or NAK: BTH (opcode ACK) then the AETH (syndrome, 24-bit MSN). */
static inline size_t roce_put_ack(__u8 *out, __u32 job, __u32 dest_qp,
				  __u32 psn, __u8 syndrome, __u32 msn)
{
	roce_put_bth(out, SYMPHONY_OP_RC_ACK, job, dest_qp, psn, false);
	out[SYMPHONY_BTH_LEN] = syndrome;
	symphony_put_be24(out + SYMPHONY_BTH_LEN + 1, msn);
	return SYMPHONY_BTH_LEN + ROCE_AETH_LEN;
}

/* A CNP (opcode 0x81) for the flow of @dest_qp: BTH and 16 zero bytes. */
static inline size_t roce_put_cnp(__u8 *out, __u32 job, __u32 dest_qp)
{
	int i;

	roce_put_bth(out, SYMPHONY_OP_CNP, job, dest_qp, 0, false);
	for (i = 0; i < ROCE_CNP_PAD; i++)
		out[SYMPHONY_BTH_LEN + i] = 0;
	return SYMPHONY_BTH_LEN + ROCE_CNP_PAD;
}

/*
 * roce_put_uec - UEC PDS request header and the first 8 bytes of the SES
 * header (20 bytes): RUD request, @psn, source and destination PDC id
 * @pdc (the step), start/end of message, message id @msg_id (the
 * channel), @job in JobID.
 */
static inline size_t roce_put_uec(__u8 *out, __u32 psn, __u32 pdc, __u32 job,
				  __u32 msg_id, bool som, bool eom)
{
	__u8 *pds = out, *ses = out + SYMPHONY_PDS_LEN;
	int i;

	for (i = 0; i < SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN; i++)
		out[i] = 0;
	pds[0] = 0x02 << 3;				/* RUD request */
	symphony_put_be32(pds + SYMPHONY_PDS_PSN, psn);
	symphony_put_be16(pds + SYMPHONY_PDS_SPDCID, pdc);
	symphony_put_be16(pds + SYMPHONY_PDS_DPDCID, pdc);
	ses[SYMPHONY_SES_FLAGS] = (som ? SYMPHONY_SES_FLAG_SOM : 0) |
				  (eom ? SYMPHONY_SES_FLAG_EOM : 0);
	symphony_put_be16(ses + 2, msg_id);
	symphony_put_be24(ses + SYMPHONY_SES_JOBID, job);
	return SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN;
}

#endif /* _WORKLOAD_ROCE_FRAME_H */
