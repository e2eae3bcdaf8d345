/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_compat.h - differences between the kernel versions the module
 * builds for (6.1 and later), confined to one place.  Each shim names the
 * kernel that needs it.  Where distribution kernels backport a helper
 * into an older version, Kbuild probes the headers or Module.symvers
 * instead of the version (SYMPHONY_HAVE_* in kernel/Kbuild).
 */
#ifndef _SYMPHONY_COMPAT_H
#define _SYMPHONY_COMPAT_H

#include <linux/bpf.h>
#include <linux/version.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/string.h>
#include <net/sch_generic.h>

/*
 * symphony_reject_value - reject attribute @attr, whose value is @value.
 * @msg names the parameter and its valid range, starts with the module's
 * name and must have static storage.  6.2 added NL_SET_ERR_MSG_FMT, which
 * also shows the value; 6.1 keeps the static message.
 */
static inline void symphony_reject_value(struct netlink_ext_ack *extack,
					 const struct nlattr *attr,
					 const char *msg, s64 value)
{
	NL_SET_BAD_ATTR(extack, attr);
#ifdef NL_SET_ERR_MSG_FMT
	/* A formatted message has room for NETLINK_MAX_FMTMSG_LEN bytes:
	 * longer ones are kept whole, without the value.
	 */
	if (strlen(msg) <= 60) {
		NL_SET_ERR_MSG_FMT(extack, "%.60s (got %lld)", msg, value);
		return;
	}
#endif
	if (extack)
		extack->_msg = msg;
}

/* 6.13: hrtimer_setup() replaced hrtimer_init() and the function assignment. */
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

/*
 * 6.2 replaced map_value_has_{spin_lock,timer,kptrs}() with the map's
 * btf_record: whether a map value holds fields the kernel manages (spin
 * lock, timer, kptr, and later list heads, rb nodes, refcounts, workqueues),
 * which a plain store of the value would corrupt.
 */
static inline bool symphony_map_has_special_fields(const struct bpf_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return !IS_ERR_OR_NULL(map->record);
#else
	return map_value_has_spin_lock(map) || map_value_has_timer(map) ||
	       map_value_has_kptrs(map);
#endif
}

/*
 * Drop @skb at enqueue, counted, with the reason drop monitors see:
 * @congested for RED's early drop, else past the limit.  Kernels after
 * 6.18 (7.3 has it) take an enum qdisc_drop_reason of their own
 * (include/net/dropreason-qdisc.h) and name both, as sch_red does:
 * QDISC_DROP_CONGESTED, QDISC_DROP_OVERLIMIT.  6.12.117 (Debian) and
 * upstream 6.16 take an skb_drop_reason, whose only qdisc reason is
 * SKB_DROP_REASON_QDISC_DROP; older kernels' __dev_xmit_skb() frees the
 * packet with that reason itself.
 */
static inline int symphony_qdisc_drop(struct sk_buff *skb, struct Qdisc *sch,
				      struct sk_buff **to_free, bool congested)
{
#if defined(SYMPHONY_HAVE_QDISC_DROP_ENUM)
	return qdisc_drop_reason(skb, sch, to_free,
				 congested ? QDISC_DROP_CONGESTED :
					     QDISC_DROP_OVERLIMIT);
#elif defined(SYMPHONY_HAVE_QDISC_DROP_REASON)
	return qdisc_drop_reason(skb, sch, to_free, SKB_DROP_REASON_QDISC_DROP);
#else
	return qdisc_drop(skb, sch, to_free);
#endif
}

/*
 * 6.12.117 (Debian; upstream 6.13) exports bpf_map_get() in the
 * BPF_INTERNAL symbol namespace, and 6.13 made MODULE_IMPORT_NS() take a
 * string.  The module then relies on a symbol the kernel calls internal:
 * README, "The jobs map".
 */
#ifdef SYMPHONY_BPF_MAP_GET_NS
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define SYMPHONY_IMPORT_BPF_INTERNAL	MODULE_IMPORT_NS("BPF_INTERNAL")
#else
#define SYMPHONY_IMPORT_BPF_INTERNAL	MODULE_IMPORT_NS(BPF_INTERNAL)
#endif
#else
#define SYMPHONY_IMPORT_BPF_INTERNAL
#endif

#endif /* _SYMPHONY_COMPAT_H */
