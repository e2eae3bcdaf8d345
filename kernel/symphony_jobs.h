/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_jobs.h - where the symphony qdisc keeps its per-job state: a
 * table of its own, or a BPF array map of struct symphony_job shared with
 * the agent and with the qdiscs of other ports.
 */
#ifndef _SYMPHONY_JOBS_H
#define _SYMPHONY_JOBS_H

#include <linux/bpf.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "symphony/symphony_map.h"

struct symphony_jobs {
	struct symphony_job	*own;	/* own table, or NULL */
	struct bpf_map		*map;	/* jobs map, or NULL */
	u32			nr;	/* job slots: ids 0..nr-1 */
};

struct symphony_jobs *symphony_jobs_create_own(u32 nr,
					       struct netlink_ext_ack *extack);
struct symphony_jobs *symphony_jobs_create_map(int fd,
					       const struct nlattr *attr,
					       struct netlink_ext_ack *extack);
void symphony_jobs_destroy(struct symphony_jobs *jobs);
void symphony_jobs_init_locks(void);
spinlock_t *symphony_job_lock(const struct symphony_job *job);

/*
 * Whether others update these jobs too (a jobs map, which several qdiscs
 * may share): then each update takes the job's lock.  An own table is
 * used only by its qdisc's dequeue, which the qdisc lock serialises, and
 * swapped under that lock.
 */
static inline bool symphony_jobs_shared(const struct symphony_jobs *jobs)
{
	return !!jobs->map;
}

/* The state block of job @id, or NULL when the id has no slot. */
static inline struct symphony_job *
symphony_jobs_slot(const struct symphony_jobs *jobs, u32 id)
{
	if (id >= jobs->nr)
		return NULL;
	if (jobs->own)
		return &jobs->own[id];
	return jobs->map->ops->map_lookup_elem(jobs->map, &id);
}

#endif /* _SYMPHONY_JOBS_H */
