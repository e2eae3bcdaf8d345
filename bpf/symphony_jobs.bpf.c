// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_jobs.bpf.c - the Symphony jobs map, declared here so that libbpf
 * creates it with the BTF of struct symphony_job: bpftool then prints its
 * entries field by field.  No program: the symphony qdisc reads and writes
 * the map from the kernel, tools from userspace.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "../include/symphony/symphony_map.h"
#include "../include/uapi/linux/pkt_sched_symphony.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYMPHONY_JOBS_DEFAULT);
	__type(key, __u32);
	__type(value, struct symphony_job);
} symphony_jobs SEC(".maps");

char LICENSE[] SEC("license") = "GPL";
