// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_jobs.c - the symphony qdisc's per-job state: its own table, or
 * a BPF array map of struct symphony_job that the agent created and pinned
 * and tc handed over as a file descriptor.
 *
 * One map may serve the qdiscs of several ports on several CPUs, so every
 * job's state block is updated under a lock; the locks live here, hashed
 * by the block's address, shared by all qdiscs of the module.
 */
#include <linux/bpf.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "symphony_compat.h"
#include "symphony_jobs.h"

#define SYMPHONY_JOB_LOCK_BITS	10

static spinlock_t symphony_job_locks[1 << SYMPHONY_JOB_LOCK_BITS];

void symphony_jobs_init_locks(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(symphony_job_locks); i++)
		spin_lock_init(&symphony_job_locks[i]);
}

spinlock_t *symphony_job_lock(const struct symphony_job *job)
{
	return &symphony_job_locks[hash_ptr(job, SYMPHONY_JOB_LOCK_BITS)];
}

struct symphony_jobs *symphony_jobs_create_own(u32 nr,
					       struct netlink_ext_ack *extack)
{
	struct symphony_jobs *jobs;

	jobs = kzalloc(sizeof(*jobs), GFP_KERNEL);
	if (!jobs)
		goto nomem;
	jobs->own = kvcalloc(nr, sizeof(*jobs->own), GFP_KERNEL);
	if (!jobs->own) {
		kfree(jobs);
		goto nomem;
	}
	jobs->nr = nr;
	return jobs;

nomem:
	NL_SET_ERR_MSG_MOD(extack, "cannot allocate the job table");
	return ERR_PTR(-ENOMEM);
}

struct symphony_jobs *symphony_jobs_create_map(int fd,
					       const struct nlattr *attr,
					       struct netlink_ext_ack *extack)
{
	struct symphony_jobs *jobs;
	struct bpf_map *map;

	map = bpf_map_get(fd);
	if (IS_ERR(map)) {
		symphony_reject_value(extack, attr,
				      "sch_symphony: jobs_map is not a BPF map fd",
				      fd);
		return ERR_CAST(map);
	}
	if (map->map_type != BPF_MAP_TYPE_ARRAY) {
		symphony_reject_value(extack, attr,
				      "sch_symphony: jobs map must be a BPF array map (see map type)",
				      map->map_type);
		goto invalid;
	}
	if (map->key_size != sizeof(u32)) {
		symphony_reject_value(extack, attr,
				      "sch_symphony: jobs map key must be 4 bytes (see key size)",
				      map->key_size);
		goto invalid;
	}
	if (map->value_size != sizeof(struct symphony_job)) {
		symphony_reject_value(extack, attr,
				      "sch_symphony: jobs map value size is not sizeof(struct symphony_job): layout mismatch",
				      map->value_size);
		goto invalid;
	}

	jobs = kzalloc(sizeof(*jobs), GFP_KERNEL);
	if (!jobs) {
		bpf_map_put(map);
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the job table");
		return ERR_PTR(-ENOMEM);
	}
	jobs->map = map;
	jobs->nr = map->max_entries;
	return jobs;

invalid:
	bpf_map_put(map);
	return ERR_PTR(-EINVAL);
}

void symphony_jobs_destroy(struct symphony_jobs *jobs)
{
	if (!jobs)
		return;
	if (jobs->map)
		bpf_map_put(jobs->map);
	kvfree(jobs->own);
	kfree(jobs);
}
