// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_tick.c - the T_win period clock of the symphony qdisc (see
 * symphony_tick.h): an hrtimer that publishes the start of each period
 * while packets flow, and stops when they do not.
 */
#include <linux/math64.h>

#include "symphony_compat.h"
#include "symphony_tick.h"

/* @t rounded down to a multiple of @period_ns */
static u64 symphony_tick_floor(u64 t, u64 period_ns)
{
	u64 rem;

	div64_u64_rem(t, period_ns, &rem);
	return t - rem;
}

static enum hrtimer_restart symphony_tick_expire(struct hrtimer *timer)
{
	struct symphony_tick *tick = container_of(timer, struct symphony_tick,
						  timer);
	u64 period_ns = READ_ONCE(tick->period_ns), now_ns;

	/* No packet in the last period: stop until the next one. */
	if (!READ_ONCE(tick->busy) || period_ns < SYMPHONY_TICK_MIN_NS) {
		WRITE_ONCE(tick->running, false);
		return HRTIMER_NORESTART;
	}
	WRITE_ONCE(tick->busy, false);
	now_ns = symphony_tick_floor(ktime_get_ns(), period_ns);
	WRITE_ONCE(tick->now_ns, now_ns);
	hrtimer_set_expires(timer, ns_to_ktime(now_ns + period_ns));
	return HRTIMER_RESTART;
}

void symphony_tick_init(struct symphony_tick *tick, u64 period_ns)
{
	symphony_hrtimer_setup(&tick->timer, symphony_tick_expire,
			       CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	tick->period_ns = period_ns;
	tick->now_ns = 0;
	tick->running = false;
	tick->busy = false;
}

/*
 * A new T_win: stop the timer, so that the next packet reads the clock and
 * starts it again on the new period's grid.  Waiting for the old period's
 * expiry instead would leave the clock stale for up to the old T_win (10 s
 * at most).  Called without the qdisc lock: hrtimer_cancel() may wait for
 * a running expiry.  A packet that meanwhile finds the timer still running
 * reads the old period's start, as it would have a moment earlier.
 */
void symphony_tick_restart(struct symphony_tick *tick, u64 period_ns)
{
	WRITE_ONCE(tick->period_ns, period_ns);
	hrtimer_cancel(&tick->timer);
	WRITE_ONCE(tick->running, false);
}

void symphony_tick_cancel(struct symphony_tick *tick)
{
	hrtimer_cancel(&tick->timer);
	WRITE_ONCE(tick->running, false);
}

/*
 * The first packet after an idle spell: read the clock and, for windows
 * long enough, start the timer at the next multiple of T_win.  A timer
 * still finishing its last expiry is harmless: hrtimer_start() re-arms
 * it, and its NORESTART leaves the new expiry alone.
 */
u64 symphony_tick_start(struct symphony_tick *tick)
{
	u64 period_ns = READ_ONCE(tick->period_ns), now_ns = ktime_get_ns();

	if (period_ns < SYMPHONY_TICK_MIN_NS)
		return now_ns;
	now_ns = symphony_tick_floor(now_ns, period_ns);
	WRITE_ONCE(tick->now_ns, now_ns);
	WRITE_ONCE(tick->busy, true);
	WRITE_ONCE(tick->running, true);
	hrtimer_start(&tick->timer, ns_to_ktime(now_ns + period_ns),
		      HRTIMER_MODE_ABS);
	return now_ns;
}
