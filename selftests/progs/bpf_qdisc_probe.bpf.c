// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_qdisc_probe.bpf.c - the smallest BPF qdisc (struct_ops Qdisc_ops,
 * Linux 6.16 and later), to confirm on a kernel what one can do for
 * Symphony (vm/test_bpf_qdisc_limits.sh, docs/symphony_bpf.md): where it
 * may be attached, and whether its enqueue may write a packet, as
 * marking CE needs.  Of each IPv4 packet the TOS byte is read and written
 * back through an skb dynptr, the return codes kept in globals; every
 * packet is dropped: the probe queues nothing.  Built against the running
 * kernel's vmlinux.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define PROBE_NET_XMIT_DROP	0x01	/* NET_XMIT_DROP, a macro in C */
#define PROBE_PROTO_OFFSET	12	/* the Ethernet header's type */
#define PROBE_ETH_P_IP		0x0800
#define PROBE_TOS_OFFSET	15	/* ETH_HLEN + offsetof(iphdr, tos) */

extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags,
			       struct bpf_dynptr *ptr__uninit) __ksym;
extern void bpf_qdisc_skb_drop(struct sk_buff *skb,
			       struct bpf_sk_buff_ptr *to_free) __ksym;

__u64 probe_packets;		/* IPv4 packets enqueued */
__s64 probe_read_rc;		/* bpf_dynptr_read()'s return, last packet */
__s64 probe_write_rc;		/* bpf_dynptr_write()'s */
__u32 probe_tos;		/* the byte read */

SEC("struct_ops")
int BPF_PROG(probe_enqueue, struct sk_buff *skb, struct Qdisc *sch,
	     struct bpf_sk_buff_ptr *to_free)
{
	struct bpf_dynptr ptr;
	__u16 proto = 0;
	__u8 tos = 0;

	bpf_dynptr_from_skb((struct __sk_buff *)skb, 0, &ptr);
	if (bpf_dynptr_read(&proto, sizeof(proto), &ptr, PROBE_PROTO_OFFSET,
			    0) || proto != bpf_htons(PROBE_ETH_P_IP))
		goto drop;
	probe_packets++;
	probe_read_rc = bpf_dynptr_read(&tos, 1, &ptr, PROBE_TOS_OFFSET, 0);
	probe_tos = tos;
	/* what setting CE would do: the same byte written back */
	probe_write_rc = bpf_dynptr_write(&ptr, PROBE_TOS_OFFSET, &tos, 1, 0);
drop:
	bpf_qdisc_skb_drop(skb, to_free);
	return PROBE_NET_XMIT_DROP;
}

SEC("struct_ops")
struct sk_buff *BPF_PROG(probe_dequeue, struct Qdisc *sch)
{
	return NULL;
}

SEC("struct_ops")
int BPF_PROG(probe_init, struct Qdisc *sch, struct nlattr *opt,
	     struct netlink_ext_ack *extack)
{
	return 0;
}

SEC("struct_ops")
void BPF_PROG(probe_reset, struct Qdisc *sch)
{
}

SEC("struct_ops")
void BPF_PROG(probe_destroy, struct Qdisc *sch)
{
}

SEC(".struct_ops")
struct Qdisc_ops symofan_probe = {
	.enqueue	= (void *)probe_enqueue,
	.dequeue	= (void *)probe_dequeue,
	.init		= (void *)probe_init,
	.reset		= (void *)probe_reset,
	.destroy	= (void *)probe_destroy,
	.id		= "symofan_probe",
};
