/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job_registry.h - the Symphony job registry in its pin folder (default
 * /sys/fs/bpf/symphony, mode 0700):
 *	jobs		BPF array of struct symphony_job, indexed by job id
 *	job_registry	BPF hash: job id -> struct symphony_job_entry
 *	job_meta	BPF array[1]: struct symphony_jobs_meta (layout version,
 *			the datapath that owns the jobs)
 *	job_locks	BPF array of bpf_spin_lock: the locks the tc-BPF
 *			program takes a job's updates under, one map for
 *			every program serving the registry
 * all declared in include/symphony/symphony_map.h and created from
 * bpf/symphony_jobs.bpf.c, so that bpftool shows them field by field.
 * Opened and checked against this symofan's layout, created, re-created
 * from another layout; and the registered jobs read and deleted.
 *
 * The datapath updates a job's state block and counters under its own
 * lock, which the agent cannot take, so the agent never writes them: a
 * parameter change is one 32-bit store through a mapping of the
 * (mmapable) jobs map, and a reset (job add, job del) clears the
 * parameters and bumps the block's reset_gen, which the datapath applies
 * under its lock on the job's next packet (symphony_map.h).
 */
#ifndef _SYMOFAN_JOB_REGISTRY_H
#define _SYMOFAN_JOB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>

#include "symphony/symphony_map.h"

#define JOBS_PIN_DIR		"/sys/fs/bpf/symphony"
#define JOBS_PIN		"jobs"
#define REGISTRY_PIN		"job_registry"
#define META_PIN		"job_meta"
#define LOCKS_PIN		"job_locks"
#define JOB_ID_FIRST		1	/* id 0 stays for untagged traffic */

struct bpf_map_info;

/* An open pin folder. */
struct jobs_dir {
	const char		*dir;
	int			jobs_fd;
	int			registry_fd;
	int			meta_fd;
	int			locks_fd;	/* job_locks */
	int			lock_fd;	/* the folder's flock */
	struct symphony_jobs_meta meta;
	struct symphony_job	*jobs;	/* the jobs map, mapped shared */
	size_t			jobs_len;
};

/* Creating BPF maps needs CAP_BPF (or CAP_SYS_ADMIN): say so up front. */
int require_cap_bpf(void);

/* The map pinned as DIR/NAME and its info: its fd, or -errno. */
int get_pinned(const char *dir, const char *name, struct bpf_map_info *info);

/*
 * Opens the registry of @dir: the three maps, checked against this
 * symofan's layout, and the jobs map mapped.  With @lock, holds the
 * folder's lock until close_jobs_dir().  0, or -1 after an error message.
 */
int open_jobs_dir(struct jobs_dir *d, const char *dir, bool lock);
void close_jobs_dir(struct jobs_dir *d);

/*
 * Creates a registry of @nr_jobs slots and pins it in @dir; 0, or -1
 * after an error message (nothing left pinned but what was there).
 */
int create_registry(const char *dir, __u32 nr_jobs);

/*
 * Re-creates the registry of a folder whose maps have another layout (or
 * are incomplete): new maps at this layout, with the slots of the old
 * jobs map if there is one, else *@nr_jobs; registry entries (ids, names,
 * parameters) carried over when the old registry's layout is readable;
 * then the pins replaced.  The caller holds the folder's lock.  0 with
 * *@nr_jobs and *@carried set, or -1 after an error message.
 */
int migrate_registry(const char *dir, __u32 *nr_jobs, __u32 *carried);

/*
 * Removes the registry's pins from @dir (those there: any layout); maps
 * still in use (a qdisc's jobs_map) live on until their last user goes.
 * The caller holds the folder's lock.  0, or -1 after an error message.
 */
int unpin_registry(const char *dir);

/* One set bit per registered id, in a bitmap of nr_jobs bits. */
__u64 *registered_ids(const struct jobs_dir *d, __u32 *count);

static inline bool id_set(const __u64 *bits, __u32 id)
{
	return bits[id / 64] >> (id % 64) & 1;
}

/* Whether @job's block waits for the datapath to apply a reset: readers
 * take it for a cleared one meanwhile.
 */
static inline bool job_reset_pending(const struct symphony_job *job)
{
	return __atomic_load_n(&job->reset_gen, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&job->applied_gen, __ATOMIC_ACQUIRE);
}

/*
 * Asks the datapath for a fresh block for @job: its parameters cleared
 * (one store each, words only the agent writes), then reset_gen bumped;
 * state and counters are cleared by the datapath under its lock.
 */
static inline void request_job_reset(struct symphony_job *job)
{
	__atomic_store_n(&job->k_ppm, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&job->tau_ppm, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&job->warmup_psn, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&job->sample_min_packets, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&job->reset_gen, 1, __ATOMIC_RELEASE);
}

/* A copy of job @id's block for display: the datapath may be updating
 * it, so fields of one copy can be a packet apart.  A block with a
 * reset pending reads as cleared, its parameters as they are.
 */
static inline void read_job(const struct jobs_dir *d, __u32 id,
			    struct symphony_job *j)
{
	memcpy(j, &d->jobs[id], sizeof(*j));
	if (job_reset_pending(j)) {
		struct symphony_job fresh = {
			.k_ppm = j->k_ppm, .tau_ppm = j->tau_ppm,
			.warmup_psn = j->warmup_psn,
			.sample_min_packets = j->sample_min_packets,
			.reset_gen = j->reset_gen, .applied_gen = j->applied_gen,
		};

		*j = fresh;
	}
}

/* The packets job @id counted (0 while a reset is pending). */
static inline __u64 job_packets(const struct jobs_dir *d, __u32 id)
{
	if (job_reset_pending(&d->jobs[id]))
		return 0;
	return __atomic_load_n(&d->jobs[id].packets, __ATOMIC_RELAXED);
}

/*
 * Records @owner as the datapath of the registry's jobs (a registry
 * holds one: symphony_map.h).  0, or -1 after an error message.  The
 * caller holds the folder's lock.
 */
int set_jobs_owner(struct jobs_dir *d, __u32 owner);

/* The owner's name, for messages: "sch_symphony qdiscs", ... */
const char *jobs_owner_name(__u32 owner);

/* Unregisters job @id and asks for its block to be cleared (state,
 * counters and parameters).
 */
int delete_job(struct jobs_dir *d, __u32 id);

static inline __u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif /* _SYMOFAN_JOB_REGISTRY_H */
