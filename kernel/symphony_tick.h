/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_tick.h - the time Symphony's windows run on.
 *
 * Algorithm 1 resets a job's psn_rec and its Cnt_total/Cnt_op counters
 * every T_win, as the paper's switch resets its window registers at
 * periodic intervals.  Rather than read a clock for every packet, the
 * qdisc keeps the start of the current T_win period, CLOCK_MONOTONIC
 * nanoseconds rounded down to a multiple of T_win, refreshed by an
 * hrtimer at each multiple while packets flow: the datapath reads the
 * time with one load, and every job's windows roll on the same grid.
 * The timer stops after a period without packets and restarts, with one
 * clock read, at the next packet.  Windows shorter than
 * SYMPHONY_TICK_MIN_NS would make the timer fire too often: the time is
 * then read from the clock for every packet, and a job's window starts
 * at its first packet.
 */
#ifndef _SYMPHONY_TICK_H
#define _SYMPHONY_TICK_H

#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#define SYMPHONY_TICK_MIN_NS	(20 * NSEC_PER_USEC)

struct symphony_tick {
	struct hrtimer	timer;
	u64		now_ns;		/* start of the current period */
	u64		period_ns;	/* T_win */
	bool		running;	/* the timer is armed */
	bool		busy;		/* a packet read now_ns since the last expiry */
};

void symphony_tick_init(struct symphony_tick *tick, u64 period_ns);
void symphony_tick_restart(struct symphony_tick *tick, u64 period_ns);
void symphony_tick_cancel(struct symphony_tick *tick);
u64 symphony_tick_start(struct symphony_tick *tick);

/*
 * symphony_tick_now - the time for a packet's window accounting,
 * CLOCK_MONOTONIC ns: the start of the current T_win period, or the clock
 * itself for windows below SYMPHONY_TICK_MIN_NS.  Callers are serialised
 * (the qdisc lock).
 */
static inline u64 symphony_tick_now(struct symphony_tick *tick)
{
	if (unlikely(!READ_ONCE(tick->running)))
		return symphony_tick_start(tick);
	if (!READ_ONCE(tick->busy))
		WRITE_ONCE(tick->busy, true);
	return READ_ONCE(tick->now_ns);
}

#endif /* _SYMPHONY_TICK_H */
