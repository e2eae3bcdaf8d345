// SPDX-License-Identifier: GPL-2.0
/*
 * collective.c - ringcoll's schedule: the steps of each job's collective,
 * its iterations, and the loop that runs them until every job is done.
 *
 * Step k+1 of a channel starts when the previous rank's step-k data has
 * fully arrived, as in a real ring.  A channel sends its steps one after
 * the other on its queue pair, as NCCL does (--flows nccl, and legacy's
 * default); with --step-qps S, the step at place p of its ring goes on
 * the channel's queue pair p mod S (in 1D rings, step k on k mod S), so
 * that up to S steps of a rank send at once and share its NIC (each
 * step's transfer its own flow, as in the Symphony paper's simulations,
 * where a step that starts early competes with the step still being
 * sent).  With --step-flows each step's transfer also starts as a new
 * flow would: at the line rate with fresh DCQCN state, rather than at
 * the rate its queue pair's previous step was left at (transport.c's
 * transmit()).  --flows astra is both, with a queue pair per step, as
 * Astra-Sim's ns-3 frontend makes its flows.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "ringcoll.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Queue step @k of channel @c, on the ring the step runs on. */
static void start_step(struct ringcoll *rc, struct job *j, __u32 c, __u32 k,
		       __u64 now)
{
	struct channel *ch = &j->ch[rc->step_dim[k]][c * rc->step_qps +
						      rc->step_pos[k] % rc->step_qps];
	struct message *m = &ch->msg[ch->queued++];

	m->step = k;
	m->bytes = step_bytes(rc, k, c);
	m->count = step_packets(rc, k, c);
	m->seq_start = ch->end_seq;
	m->start_ns = now;
	m->sent_ns = m->acked_ns = m->recv_ns = 0;
	ch->end_seq += m->count;
	j->rec[j->iter].step_start_ns[c][k] = now;
	if (ch->next_tx_ns < now)
		ch->next_tx_ns = now;
}

static void start_iteration(struct ringcoll *rc, struct job *j, __u64 now)
{
	__u32 c, d;

	j->iter_running = true;
	j->rec[j->iter].start_ns = now;
	j->last_progress_ns = now;
	for (c = 0; c < rc->channels; c++)
		j->next_step[c] = 0;
	for (c = 0; c < rc->nr_qps; c++)
		for (d = 0; d < rc->dims; d++)
			j->ch[d][c].queued = j->ch[d][c].acked = 0;
}

/* Whether step @k of channel @c arrived from the previous rank in this
 * iteration (the previous rank may be an iteration ahead: what it sends
 * then is recorded for the next).
 */
static bool arrived(const struct job *j, __u32 c, __u32 k)
{
	return j->rec[j->iter].step_recv_ns[c][k] != 0;
}

static bool iteration_done(const struct ringcoll *rc, const struct job *j)
{
	__u32 c, d, k;

	for (c = 0; c < rc->channels; c++) {
		if (j->next_step[c] < rc->steps)
			return false;
		for (k = 0; k < rc->steps; k++)
			if (!arrived(j, c, k))
				return false;
	}
	for (c = 0; c < rc->nr_qps; c++)
		for (d = 0; d < rc->dims; d++)
			if (j->ch[d][c].acked <
			    qp_messages(rc, d, j->ch[d][c].slot))
				return false;
	return true;
}

/* Advance job @j at @now; returns the time it next needs attention. */
static __u64 run_job(struct ringcoll *rc, struct job *j, __u64 now)
{
	__u64 wake = now + 1000000;	/* at least every ms */
	bool ready = true;
	__u32 c, d, k;

	if (j->done)
		return UINT64_MAX;
	for (d = 0; d < rc->dims; d++) {
		if (j->succ_ready[d])
			continue;
		ready = false;
		if (now - j->last_hello_ns[d] >= HELLO_INTERVAL_NS ||
		    !j->last_hello_ns[d])
			hello(rc, j, d, now);
		if (j->last_hello_ns[d] + HELLO_INTERVAL_NS < wake)
			wake = j->last_hello_ns[d] + HELLO_INTERVAL_NS;
	}
	if (!ready)
		return wake;
	if (!j->iter_running) {
		if (now < rc->common.start_at_mono_ns)
			return rc->common.start_at_mono_ns;
		start_iteration(rc, j, now);
	}
	for (c = 0; c < rc->channels; c++) {
		/* the ring: step k+1 once step k arrived from the previous rank */
		while ((k = j->next_step[c]) < rc->steps &&
		       (k == 0 || arrived(j, c, k - 1))) {
			start_step(rc, j, c, k, now);
			j->next_step[c]++;
		}
	}
	for (d = 0; d < rc->dims; d++)
	for (c = 0; c < rc->nr_qps; c++) {
		struct channel *ch = &j->ch[d][c];

		if (ch->ack_deadline_ns && now >= ch->ack_deadline_ns) {
			ch->next_seq = ch->acked_seq;	/* timeout: go back */
			rto_timed_out(&ch->rto);
			rc->rto_timeouts++;
			ch->ack_deadline_ns = now + rto_ns(&ch->rto, rc->rto_ns);
		}
		if (!rc->fixed_rate)
			dcqcn_advance(&ch->cc, &rc->cc, now);
		/* transmissions are pump()'s: it knows the NIC's pace */
		if (ch->ack_deadline_ns && ch->ack_deadline_ns < wake)
			wake = ch->ack_deadline_ns;
	}
	if (iteration_done(rc, j)) {
		j->rec[j->iter].end_ns = now;
		j->iter_running = false;
		if (++j->iter == rc->iterations) {
			j->done = true;
			return UINT64_MAX;
		}
		return now;
	}
	return wake;
}

/*
 * Transmit what is due: the queue pairs share the NIC's line rate, served
 * round-robin one packet at a time, each within its own DCQCN rate.
 * Returns when the NIC or a queue pair next allows a packet, or 0 after a
 * send error.
 */
static __u64 pump(struct ringcoll *rc, __u64 now)
{
	__u32 per_job = rc->dims * rc->nr_qps, nr = rc->nr_jobs * per_job, n, i;
	__u64 wake = UINT64_MAX;
	bool sent = true;
	int ret;

	/* the lag: how late this call is after the transmission time the
	 * last one asked to be called at
	 */
	if (rc->pump_due_ns && now > rc->pump_due_ns) {
		__u64 lag = now - rc->pump_due_ns;

		if (lag > rc->worst_lag_ns)
			rc->worst_lag_ns = lag;
		if (lag > MAX_BURST_NS) {
			rc->slip_ns += lag - MAX_BURST_NS;
			rc->slips++;
		}
	}
	rc->pump_due_ns = 0;
	while (sent && rc->nic_next_ns <= now) {
		sent = false;
		for (n = 0; n < nr; n++) {
			struct channel *ch;
			struct job *j;

			i = (rc->rr_next + n) % nr;
			j = &rc->jobs[i / per_job];
			ch = &j->ch[i % per_job / rc->nr_qps][i % rc->nr_qps];
			if (j->done || !j->iter_running ||
			    ch->next_seq >= ch->end_seq || ch->next_tx_ns > now)
				continue;
			ret = transmit(rc, ch, now);
			if (ret < 0)
				return 0;
			if (ret > 0) {		/* queue full: try again soon */
				rc->burst = 0;
				rc->pump_due_ns = now + 20000;
				return rc->pump_due_ns;
			}
			if (++rc->burst > rc->max_burst)
				rc->max_burst = rc->burst;
			rc->rr_next = i + 1;
			sent = true;
			break;
		}
	}
	for (n = 0; n < nr; n++) {
		struct job *j = &rc->jobs[n / per_job];
		struct channel *ch = &j->ch[n % per_job / rc->nr_qps][n % rc->nr_qps];
		__u64 t;

		if (j->done || !j->iter_running || ch->next_seq >= ch->end_seq)
			continue;
		t = ch->next_tx_ns > rc->nic_next_ns ? ch->next_tx_ns :
						      rc->nic_next_ns;
		if (t < wake)
			wake = t;
	}
	if (wake != UINT64_MAX)
		rc->pump_due_ns = wake > now ? wake : now;
	return wake;
}

/* Where each message of an iteration on @ch starts in its sequence. */
static void plan_sequence(const struct ringcoll *rc, struct channel *ch)
{
	__u32 per = qp_messages(rc, ch->dim, ch->slot), n;

	ch->iter_packets = 0;
	for (n = 0; n < per; n++) {
		__u32 k = rc->dim_steps[ch->dim][ch->slot + n * rc->step_qps];

		ch->msg_first[n] = ch->iter_packets;
		ch->iter_packets += step_packets(rc, k, ch->index);
	}
}

/* The jobs' iteration records, queue pairs and the rate timeline. */
int init_jobs(struct ringcoll *rc)
{
	__u32 n, c, d;

	rc->samples = calloc(MAX_RATE_SAMPLES, sizeof(*rc->samples));
	if (!rc->samples)
		return -1;
	for (n = 0; n < rc->nr_jobs; n++) {
		struct job *j = &rc->jobs[n];

		j->rec = calloc(rc->iterations, sizeof(*j->rec));
		if (!j->rec) {
			fprintf(stderr, "ringcoll: out of memory\n");
			return -1;
		}
		for (c = 0; c < rc->nr_qps; c++) {
			for (d = 0; d < MAX_DIMS; d++) {
				struct channel *ch = &j->ch[d][c];

				ch->job = j;
				ch->index = c / rc->step_qps;
				ch->slot = c % rc->step_qps;
				ch->dim = d;
				ch->qpn = d * MAX_CHANNELS + c + 1;
				plan_sequence(rc, ch);
				dcqcn_init(&ch->cc, &rc->cc);
				rto_init(&ch->rto);
			}
		}
	}
	return 0;
}

/* Every message this rank sent is ACKed: tell the next ranks. */
static void send_closes(struct ringcoll *rc)
{
	__u32 n, d, c;

	for (n = 0; n < rc->nr_jobs; n++)
		for (d = 0; d < rc->dims; d++)
			for (c = 0; c < rc->nr_qps; c++)
				send_close(rc, &rc->jobs[n], &rc->jobs[n].ch[d][c]);
}

/*
 * Whether a done rank may go at @now, else when to look again (@wake).
 * A previous rank whose last ACK was lost resends its message after its
 * timeout, and only an ACK from here completes it: stay until every
 * previous rank has sent its close notice (it has every ACK), or, if a
 * notice is lost, until none has sent anything for TIME_WAIT_RTOS of the
 * longest timeout.  (Five quiet minimum timeouts, 100 ms, were too
 * short: a sender whose timeout had backed off, or followed a slow
 * round trip, resent to a rank that had gone, and failed after its
 * --timeout.)
 */
static bool may_exit(const struct ringcoll *rc, __u64 now, __u64 *wake)
{
	__u64 quiet_since = rc->last_rx_ns > rc->done_ns ? rc->last_rx_ns :
			    rc->done_ns;
	__u64 time_wait = TIME_WAIT_RTOS * rto_ceiling_ns(rc->rto_ns);
	__u32 n, d, c;
	bool closed = true;

	for (n = 0; n < rc->nr_jobs; n++)
		for (d = 0; d < rc->dims; d++)
			for (c = 0; c < rc->nr_qps; c++)
				closed &= rc->jobs[n].ch[d][c].pred_closed;
	if (closed || now - quiet_since >= time_wait)
		return true;
	*wake = quiet_since + time_wait;
	return false;
}

/*
 * Run every job to its last iteration: the jobs' steps and timers, the
 * pump, and the packets that arrive in between.  EXIT_OK once every job
 * is done and the previous ranks fell quiet; EXIT_FAIL after a send
 * error, a silent neighbour or a signal (with a message).
 */
enum exit_code run_collectives(struct ringcoll *rc)
{
	enum exit_code ret = EXIT_FAIL;
	struct pollfd pfd[2];
	__u32 n, nfds;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc->launch_ns = mono_ns();
	prctl(PR_SET_TIMERSLACK, 1000UL);	/* pacing wants us, not 50 us */
	pfd[0] = (struct pollfd){ .fd = rc->rx_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = rc->rx_uec_fd, .events = POLLIN };
	nfds = rc->uec ? 2 : 1;

	while (!stop) {
		__u64 now = mono_ns(), wake = UINT64_MAX, w;
		bool all_done = true;

		for (n = 0; n < rc->nr_jobs; n++) {
			struct job *j = &rc->jobs[n];

			w = run_job(rc, j, now);
			if (!w)
				return EXIT_FAIL;
			if (w < wake)
				wake = w;
			if (!j->done)
				all_done = false;
			if (!j->done && j->iter_running &&
			    now - j->last_progress_ns > rc->common.timeout_ns) {
				char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &j->ch[0][0].pred, a, sizeof(a));
				inet_ntop(AF_INET, &j->ch[0][0].succ, b, sizeof(b));
				fprintf(stderr, "ringcoll: job %u rank %u: no packet from %s or %s for %llu s: a neighbour died or is unreachable\n",
					j->id, j->rank, a, b,
					(unsigned long long)(rc->common.timeout_ns / 1000000000ULL));
				return EXIT_FAIL;
			}
			if (!(j->succ_ready[0] && (rc->dims < 2 || j->succ_ready[1])) &&
			    now - rc->launch_ns > rc->common.timeout_ns) {
				char b[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &j->ch[j->succ_ready[0] ? 1 : 0][0].succ,
					  b, sizeof(b));
				fprintf(stderr, "ringcoll: job %u rank %u: the next rank %s does not answer: is ringcoll running there?\n",
					j->id, j->rank, b);
				return EXIT_FAIL;
			}
		}
		if (all_done) {
			if (!rc->done_ns) {
				rc->done_ns = now;
				send_closes(rc);
			}
			if (may_exit(rc, now, &wake)) {
				ret = EXIT_OK;
				break;
			}
		}
		w = all_done ? UINT64_MAX : pump(rc, now);
		if (!w)
			return EXIT_FAIL;
		if (w < wake)
			wake = w;
		if (wake > now)
			rc->burst = 0;		/* the pump waits */
		if (wait_until(pfd, nfds, wake) > 0) {
			receive(rc, rc->rx_fd, false);
			if (rc->uec)
				receive(rc, rc->rx_uec_fd, true);
		}
	}
	if (stop)
		fprintf(stderr, "ringcoll: interrupted\n");
	return ret;
}
