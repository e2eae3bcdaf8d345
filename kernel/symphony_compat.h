/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_compat.h - differences between the kernel versions the module
 * builds for (6.1 and later), confined to one place.
 */
#ifndef _SYMPHONY_COMPAT_H
#define _SYMPHONY_COMPAT_H

#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/netlink.h>

/*
 * symphony_reject_value - reject attribute @attr, whose value is @value.
 * @msg names the parameter and its valid range and must have static
 * storage; kernels that format extack messages add the value itself.
 */
static inline void symphony_reject_value(struct netlink_ext_ack *extack,
					 const struct nlattr *attr,
					 const char *msg, u32 value)
{
#ifdef NL_SET_ERR_MSG_FMT_MOD
	NL_SET_ERR_MSG_FMT_MOD(extack, "%s (got %u)", msg, value);
#else
	if (extack)
		extack->_msg = msg;
#endif
	NL_SET_BAD_ATTR(extack, attr);
}

/* hrtimer_setup() replaced hrtimer_init() and the function assignment. */
static inline void
symphony_hrtimer_setup(struct hrtimer *timer,
		       enum hrtimer_restart (*function)(struct hrtimer *),
		       clockid_t clock_id, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, function, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#endif
}

#endif /* _SYMPHONY_COMPAT_H */
