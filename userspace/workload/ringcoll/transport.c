// SPDX-License-Identifier: GPL-2.0
/*
 * transport.c - ringcoll's packets: the sockets, and RoCE's reliable
 * connection as a DCQCN sender and receiver sees it.
 *
 * A step's data is one RDMA WRITE message (FIRST/MIDDLE/LAST or ONLY) of
 * size/N/C bytes: UDP destination port 4791, the step in the UDP
 * source port (step base + iteration x steps + step), the job in the BTH
 * reserved bits, the channel's queue pair in DestQP, ECT(0) in the IP
 * header: what sch_symphony parses.  The PSN runs on per queue pair
 * (--flows legacy), or counts from 0 in each message (astra, nccl), as
 * Astra-Sim's and NCCL's RDMA writes number theirs; the go-back-N
 * transport keeps a sequence running on per queue pair either way, which
 * the receiver rebuilds from the message the source port names and the
 * step plan (message_seq()), and ACKs and NAKs carry it (Symphony's
 * parser reads data packets only).
 *
 * Reliability is RoCE's go-back-N: the receiver accepts packets in PSN
 * order, ACKs each complete message and NAKs a gap; the sender rewinds on
 * a NAK or after a retransmission timeout, adaptive (rto.h) so that a
 * queue longer than --rto does not make every timeout spurious.  Congestion control is DCQCN
 * (include/workload/dcqcn.h): the receiver sends a CNP for a CE-marked
 * packet, at most one per queue pair per --cnp-interval (the --cc
 * profile's notification point by default), and the sender
 * paces each queue pair at its DCQCN rate; --fixed-rate sends at --rate.
 * Which queue pair sends next, and when, is collective.c's pump().
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "ringcoll.h"

int open_sockets(struct ringcoll *rc)
{
	static const char busy[] = " (another ringcoll in this network namespace?)";

	/* data and control on sockets of their own: a data burst filling
	 * its socket buffer never holds back an ACK or a CNP
	 */
	rc->tx_fd = open_raw_socket();
	if (rc->tx_fd < 0)
		return -1;
	rc->ctl_fd = open_raw_socket();
	if (rc->ctl_fd < 0)
		return -1;
	rc->rx_fd = open_udp_rx(SYMPHONY_UDP_PORT_ROCEV2, busy);
	if (rc->rx_fd < 0)
		return -1;
	rc->rx_uec_fd = -1;
	if (rc->uec) {
		rc->rx_uec_fd = open_udp_rx(SYMPHONY_UDP_PORT_UEC, busy);
		if (rc->rx_uec_fd < 0)
			return -1;
	}
	return 0;
}

/* Send @len bytes of UDP payload, at @pkt + 28, to @daddr:@dport. */
static int send_udp(struct ringcoll *rc, __u32 daddr, __u16 sport, __u16 dport,
		    __u8 ecn, __u8 *pkt, size_t len)
{
	return send_raw_udp(rc->tx_fd, rc->common.local, daddr, sport, dport, ecn,
			    rc->ip_id++, pkt, len);
}

/* A control packet (ACK, NAK, CNP) on its own socket: 0 when sent; one
 * refused by a full queue is lost, as on a real NIC, and counted.
 */
static int send_control(struct ringcoll *rc, __u32 daddr, __u8 *pkt, size_t len)
{
	int ret = send_raw_udp(rc->ctl_fd, rc->common.local, daddr,
			       rc->step_base, SYMPHONY_UDP_PORT_ROCEV2,
			       ROCE_ECN_CONTROL, rc->ip_id++, pkt, len);

	if (ret > 0)
		rc->control_unsent++;
	return ret;
}

/* The rate timeline: a point where a queue pair's DCQCN rate changed. */
static void sample_rate(struct ringcoll *rc, struct channel *ch, __u64 now)
{
	struct rate_sample *s;

	if (rc->nr_samples == MAX_RATE_SAMPLES)
		return;
	if (rc->nr_samples) {
		s = &rc->samples[rc->nr_samples - 1];
		if (s->job == ch->job->id && s->channel == ch->index &&
		    s->slot == ch->slot && s->rate_bps == ch->cc.rc_bps)
			return;
	}
	s = &rc->samples[rc->nr_samples++];
	*s = (struct rate_sample){ now, ch->job->id, ch->index, ch->slot,
				   ch->cc.rc_bps };
}

/* The message of @ch holding sequence number @seq, or NULL. */
static struct message *message_of(struct ringcoll *rc, struct channel *ch,
				  __u64 seq, __u32 *step)
{
	__u32 k;

	/* messages are acked in order: those before ch->acked hold no
	 * sequence number still to (re)send
	 */
	for (k = ch->acked; k < ch->queued; k++) {
		struct message *m = &ch->msg[k];

		if (seq >= m->seq_start && seq < m->seq_start + m->count) {
			*step = m->step;
			return m;
		}
	}
	(void)rc;
	return NULL;
}

static __u16 step_port(const struct ringcoll *rc, const struct job *j,
		       __u32 step)
{
	return (rc->step_base + (__u64)j->iter * rc->steps + step) & 0xffff;
}

/* Transmit the next packet of @ch; 1 when the qdisc was full. */
int transmit(struct ringcoll *rc, struct channel *ch, __u64 now)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32 + 8192];
	__u8 *l4 = pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	struct job *j = ch->job;
	struct message *m;
	__u32 step, i, payload, hdr;
	bool ack_req;
	__u64 wire, psn;
	int ret;

	m = message_of(rc, ch, ch->next_seq, &step);
	if (!m)
		return 0;
	i = ch->next_seq - m->seq_start;
	if (i == 0 && ch->next_seq == ch->high_seq) {
		/* --step-flows (astra): a step's first transmission starts
		 * a flow
		 */
		if (rc->step_flows && !rc->fixed_rate) {
			dcqcn_init(&ch->cc, &rc->cc);
			rc->flow_starts++;
		}
		j->rec[j->iter].step_first_rate_bps[ch->index][step] =
			rc->fixed_rate ? rc->rate_bps : ch->cc.rc_bps;
	}
	payload = i + 1 < m->count ? rc->mtu : m->bytes - (m->count - 1) * rc->mtu;
	/* the receiver ACKs every ACK_EVERY packets and a message's last */
	ack_req = i + 1 == m->count || !((ch->next_seq + 1) % ACK_EVERY);
	psn = rc->psn_per_message ? i : ch->next_seq;
	if (rc->uec) {
		hdr = roce_put_uec(l4, (__u32)psn, step_port(rc, j, step),
				   j->id, ch->qpn, i == 0, i + 1 == m->count);
	} else {
		hdr = SYMPHONY_BTH_LEN;
		roce_put_bth(l4, roce_write_opcode(i, m->count), j->id, ch->qpn,
			     psn & PSN_MASK, ack_req);
	}
	memset(l4 + hdr, 0xa5, payload);
	ret = send_udp(rc, ch->succ, step_port(rc, j, step),
		       rc->uec ? SYMPHONY_UDP_PORT_UEC : SYMPHONY_UDP_PORT_ROCEV2,
		       ROCE_ECN_ECT0, pkt, hdr + payload);
	if (ret > 0)
		rc->refused_sends++;
	if (ret)
		return ret;
	rc->packets_sent++;
	rc->bytes_sent += hdr + payload;
	if (ch->next_seq < ch->high_seq)
		rc->retransmits++;
	else if (ack_req)
		rto_sent(&ch->rto, ch->next_seq, now);
	ch->next_seq++;
	if (ch->next_seq > ch->high_seq) {
		ch->high_seq = ch->next_seq;
		if (i + 1 == m->count)
			m->sent_ns = now;
	}
	/* the timeout runs from the latest packet, resent ones too: only a
	 * sender that has stopped sending waits for it
	 */
	ch->ack_deadline_ns = now + rto_ns(&ch->rto, rc->rto_ns);
	if (!rc->fixed_rate) {
		dcqcn_on_sent(&ch->cc, &rc->cc, hdr + payload, now);
		sample_rate(rc, ch, now);
	}
	/* paced on the frame: Ethernet header and FCS, IP, UDP, headers,
	 * payload and ICRC, as the link and the shapers count it
	 */
	wire = ETH_OVERHEAD + ROCE_IPV4_LEN + ROCE_UDP_LEN + hdr + payload +
	       ROCE_ICRC_LEN;
	ch->next_tx_ns += dcqcn_gap_ns(&ch->cc, wire);
	/* a late wake-up may catch up a little, no more */
	if (ch->next_tx_ns + MAX_BURST_NS < now)
		ch->next_tx_ns = now - MAX_BURST_NS;
	rc->nic_next_ns += wire * 8 * 1000000000ULL / rc->rate_bps;
	if (rc->nic_next_ns + MAX_BURST_NS < now)
		rc->nic_next_ns = now - MAX_BURST_NS;
	return 0;
}

static struct job *job_by_id(struct ringcoll *rc, __u32 id)
{
	__u32 n;

	for (n = 0; n < rc->nr_jobs; n++)
		if (rc->jobs[n].id == id)
			return &rc->jobs[n];
	return NULL;
}

/* The 64-bit sequence number near @ref whose low 24 bits are @psn. */
static __u64 seq_of(__u64 ref, __u32 psn)
{
	__s32 d = (__s32)((psn - (__u32)ref) << 8) >> 8;

	return ref + d;
}

static void send_ack(struct ringcoll *rc, struct job *j, struct channel *ch,
		     __u64 seq, __u8 syndrome)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	size_t len;

	len = roce_put_ack(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, j->id, ch->qpn,
			   seq & PSN_MASK, syndrome, ch->recv_total);
	if (!send_control(rc, ch->pred, pkt, len)) {
		if (syndrome == ROCE_AETH_ACK)
			rc->acks_sent++;
		else
			rc->naks_sent++;
	}
}

static void send_cnp(struct ringcoll *rc, struct job *j, struct channel *ch)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	size_t len;

	len = roce_put_cnp(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, j->id, ch->qpn);
	if (!send_control(rc, ch->pred, pkt, len))
		rc->cnps_sent++;
}

/* Whether the ACK of @j's @ch's last message (after it arrived) is to be
 * "lost": --lose-final-acks, so that the sender must time out.
 */
static bool lose_final_ack(const struct ringcoll *rc, const struct job *j,
			   struct channel *ch)
{
	__u32 per = qp_messages(rc, ch->dim, ch->slot);

	if (j->rank != rc->lose_acks_rank ||
	    ch->final_acks_lost >= rc->lose_final_acks || !per ||
	    ch->recv_total < (__u64)per * rc->iterations)
		return false;
	ch->final_acks_lost++;
	return true;
}

/* Record that @ch's next message arrived complete: this queue pair's n-th
 * message of an iteration is the ring's step at position slot + n * step_qps
 * (the previous rank may be an iteration ahead).
 */
static void record_arrival(struct ringcoll *rc, struct job *j,
			   const struct channel *ch, __u64 now)
{
	__u32 per = qp_messages(rc, ch->dim, ch->slot), pos;
	__u64 it;

	if (!per)	/* a queue pair that carries no step */
		return;
	it = ch->recv_total / per;
	pos = ch->slot + ch->recv_total % per * rc->step_qps;
	if (it < rc->iterations)
		j->rec[it].step_recv_ns[ch->index][rc->dim_steps[ch->dim][pos]] = now;
}

/*
 * The sequence number of a data packet of @ch whose PSN counts within
 * its message (--flows astra, nccl), in @seq; false when the packet is
 * none of this queue pair's messages.  The UDP source port @sport names
 * the message: step_base + iteration x steps + step, 16 bits read near
 * the message the receiver expects next; the plan gives where that
 * message starts in the queue pair's sequence (plan_sequence()), the PSN
 * the packet's place in it.
 */
static bool message_seq(const struct ringcoll *rc, const struct channel *ch,
			__u16 sport, __u32 psn, __u64 *seq)
{
	__u32 per = qp_messages(rc, ch->dim, ch->slot), pos, k, count;
	__u64 ref, g, it, first, i;
	__s16 d;

	if (!per)
		return false;
	it = ch->recv_total / per;
	pos = ch->slot + ch->recv_total % per * rc->step_qps;
	ref = it * rc->steps + rc->dim_steps[ch->dim][pos];
	d = (__s16)(__u16)(sport - rc->step_base - ref);
	if (d < 0 && (__u64)-d > ref)
		return false;
	g = ref + d;
	it = g / rc->steps;
	k = g % rc->steps;
	if (rc->step_dim[k] != ch->dim ||
	    rc->step_pos[k] % rc->step_qps != ch->slot)
		return false;
	first = it * ch->iter_packets + ch->msg_first[rc->step_pos[k] / rc->step_qps];
	count = step_packets(rc, k, ch->index);
	/* 24 bits of the index: a message of more packets is read near
	 * where the receiver is in it
	 */
	i = psn;
	if (count > PSN_MASK + 1ULL) {
		ref = ch->expected_seq > first ? ch->expected_seq - first : 0;
		i = seq_of(ref < count ? ref : count - 1, psn);
	}
	if (i >= count)
		return false;
	*seq = first + i;
	return true;
}

/* A data packet of @j's channel @ch from the previous rank, from UDP
 * source port @sport.
 */
static void on_data(struct ringcoll *rc, struct job *j, struct channel *ch,
		    __u16 sport, __u32 psn, bool last, __u8 ecn, __u64 now)
{
	__u64 seq;

	if (!rc->psn_per_message)
		seq = seq_of(ch->expected_seq, psn);
	else if (!message_seq(rc, ch, sport, psn, &seq))
		return;
	j->last_progress_ns = now;
	if (ecn == ROCE_ECN_CE) {
		rc->ce_received++;
		if (!ch->last_cnp_ns ||
		    now - ch->last_cnp_ns >= rc->cc.cnp_interval_ns) {
			send_cnp(rc, j, ch);
			ch->last_cnp_ns = now;
		}
	}
	if (seq == ch->expected_seq) {
		ch->expected_seq++;
		if (!last) {
			/* a cumulative ACK now and then, as AckReq asks */
			if (!(ch->expected_seq % ACK_EVERY))
				send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
			return;
		}
		record_arrival(rc, j, ch, now);
		ch->recv_total++;
		if (!lose_final_ack(rc, j, ch))
			send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
		return;
	}
	if (seq > ch->expected_seq) {
		/* a gap: one NAK per expected PSN and RTO/2 */
		if (ch->nak_seq != ch->expected_seq ||
		    now - ch->last_nak_ns > rc->rto_ns / 2) {
			send_ack(rc, j, ch, ch->expected_seq, ROCE_AETH_NAK_SEQ);
			ch->nak_seq = ch->expected_seq;
			ch->last_nak_ns = now;
		}
		return;
	}
	rc->dup_packets++;
	if (last && !lose_final_ack(rc, j, ch))	/* its ACK may have been lost */
		send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
}

static void on_ack(struct ringcoll *rc, struct job *j, struct channel *ch,
		   __u32 psn, __u8 syndrome, __u64 now)
{
	__u64 seq = seq_of(ch->acked_seq, psn), upto;
	bool nak = syndrome == ROCE_AETH_NAK_SEQ;
	__u32 k;

	j->last_progress_ns = now;
	/* an ACK covers its PSN, a NAK everything before its PSN */
	upto = nak ? seq : seq + 1;
	if (nak)
		rc->naks_received++;
	if (upto > ch->acked_seq && upto <= ch->high_seq) {
		ch->acked_seq = upto;
		rto_acked(&ch->rto, upto, now);
		for (k = 0; k < ch->queued; k++) {
			struct message *m = &ch->msg[k];

			if (!m->acked_ns &&
			    m->seq_start + m->count <= ch->acked_seq) {
				m->acked_ns = now;
				ch->acked++;
			}
		}
		if (ch->next_seq < ch->acked_seq)
			ch->next_seq = ch->acked_seq;
		ch->ack_deadline_ns = ch->acked_seq < ch->high_seq ?
				      now + rto_ns(&ch->rto, rc->rto_ns) : 0;
	}
	if (nak && seq >= ch->acked_seq && seq < ch->next_seq) {
		ch->next_seq = seq;		/* go back N */
		rto_went_back(&ch->rto);
	}
}

/* The channel of @j that queue pair @qpn names, or NULL. */
static struct channel *channel_of(struct ringcoll *rc, struct job *j, __u32 qpn)
{
	__u32 d, c;

	if (!qpn)
		return NULL;
	d = (qpn - 1) / MAX_CHANNELS;
	c = (qpn - 1) % MAX_CHANNELS;
	return d < rc->dims && c < rc->nr_qps ? &j->ch[d][c] : NULL;
}

/* Read every datagram waiting on @fd. */
void receive(struct ringcoll *rc, int fd, bool uec_port)
{
	__u8 buf[9000];
	char control[CMSG_SPACE(sizeof(int))];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control,
	};

	for (;;) {
		struct cmsghdr *cm;
		struct channel *ch;
		struct job *j;
		__u8 ecn = 0, op;
		__u32 qpn, psn, job;
		__u64 now;
		ssize_t n;

		msg.msg_namelen = sizeof(from);
		msg.msg_controllen = sizeof(control);
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return;
		now = mono_ns();
		rc->last_rx_ns = now;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS)
				ecn = *(__u8 *)CMSG_DATA(cm) & 3;
		rc->packets_received++;
		if (uec_port) {
			const __u8 *ses = buf + SYMPHONY_PDS_LEN;

			if (n < SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN)
				continue;
			job = symphony_get_be24(ses + SYMPHONY_SES_JOBID);
			qpn = symphony_get_be16(ses + 2);
			j = job_by_id(rc, job);
			ch = j ? channel_of(rc, j, qpn) : NULL;
			if (!ch || from.sin_addr.s_addr != ch->pred)
				continue;
			on_data(rc, j, ch, ntohs(from.sin_port),
				symphony_get_be32(buf + SYMPHONY_PDS_PSN) & PSN_MASK,
				ses[SYMPHONY_SES_FLAGS] & SYMPHONY_SES_FLAG_EOM,
				ecn, now);
			continue;
		}
		if (n < SYMPHONY_BTH_LEN)
			continue;
		op = buf[SYMPHONY_BTH_OPCODE];
		job = roce_bth_job(buf);
		qpn = symphony_get_be24(buf + SYMPHONY_BTH_DESTQP);
		psn = symphony_get_be24(buf + SYMPHONY_BTH_PSN);
		j = job_by_id(rc, job);
		ch = j ? channel_of(rc, j, qpn) : NULL;
		if (!ch)
			continue;
		if (op == SYMPHONY_OP_CNP) {
			if (from.sin_addr.s_addr != ch->succ)
				continue;
			rc->cnps_received++;
			if (!rc->fixed_rate) {
				dcqcn_on_cnp(&ch->cc, &rc->cc, now);
				sample_rate(rc, ch, now);
			}
		} else if (op == SYMPHONY_OP_RC_ACK && n >= SYMPHONY_BTH_LEN + ROCE_AETH_LEN) {
			if (from.sin_addr.s_addr != ch->succ)
				continue;
			j->succ_ready[ch->dim] = true;
			on_ack(rc, j, ch, psn, buf[SYMPHONY_BTH_LEN], now);
		} else if (op == ROCE_OP_CLOSE) {
			if (from.sin_addr.s_addr != ch->pred || ch->pred_closed)
				continue;
			ch->pred_closed = true;
			rc->closes_received++;
		} else if (op == SYMPHONY_OP_RC_SEND_ONLY) {
			/* hello: answer with an ACK of nothing */
			if (from.sin_addr.s_addr == ch->pred)
				send_ack(rc, j, ch, ch->expected_seq - 1,
					 ROCE_AETH_ACK);
		} else if (op >= SYMPHONY_OP_RC_WRITE_FIRST &&
			   op <= SYMPHONY_OP_RC_WRITE_ONLY) {
			if (from.sin_addr.s_addr != ch->pred)
				continue;
			on_data(rc, j, ch, ntohs(from.sin_port), psn,
				op == SYMPHONY_OP_RC_WRITE_LAST ||
				op == SYMPHONY_OP_RC_WRITE_ONLY, ecn, now);
		}
	}
}

/* Ask the next rank of ring @d whether it listens (a SEND ONLY on the
 * ring's first queue pair).
 */
void hello(struct ringcoll *rc, struct job *j, __u32 d, __u64 now)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	struct channel *ch = &j->ch[d][0];

	roce_put_bth(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, SYMPHONY_OP_RC_SEND_ONLY,
		     j->id, ch->qpn, 0, true);
	send_udp(rc, ch->succ, rc->step_base, SYMPHONY_UDP_PORT_ROCEV2,
		 ROCE_ECN_CONTROL, pkt, SYMPHONY_BTH_LEN);
	j->last_hello_ns[d] = now;
}

/* Tell the next rank of @ch that every message sent on it is ACKed. */
void send_close(struct ringcoll *rc, struct job *j, struct channel *ch)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + SYMPHONY_BTH_LEN];

	if (rc->lose_closes)
		return;
	roce_put_bth(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, ROCE_OP_CLOSE, j->id,
		     ch->qpn, 0, false);
	if (!send_control(rc, ch->succ, pkt, SYMPHONY_BTH_LEN))
		rc->closes_sent++;
}
