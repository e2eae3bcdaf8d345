// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_jobs.bpf.c - the Symphony jobs map, declared here so that libbpf
 * creates it with the BTF of struct symphony_job: bpftool then prints its
 * entries field by field.  Also the agent's job registry maps, for the
 * same reason.  No program: the symphony qdisc reads and writes
 * the map from the kernel, tools from userspace.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "symphony_jobs_map.h"

/* The agent's registry of job ids handed out (symofan job ...). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYMPHONY_JOBS_DEFAULT);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct symphony_job_entry);
} job_registry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct symphony_jobs_meta);
} job_meta SEC(".maps");

char LICENSE[] SEC("license") = "GPL";
