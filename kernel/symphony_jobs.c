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
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
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

/*
 * The own table: @nr slots of struct symphony_job, up to SYMPHONY_JOBS_MAX
 * (the 24-bit job ids of BTH DestQP and UEC JobID; the netlink policy
 * holds the range), about 1.7 GiB at most.
 * Charged to the memory cgroup of whoever configures the qdisc, which may
 * be a user namespace's root: a table too large for its limit fails with
 * ENOMEM instead of taking memory from the host, and fails rather than
 * call the OOM killer (__GFP_NORETRY: __GFP_RETRY_MAYFAIL still woke the
 * memory cgroup's OOM killer through vmalloc on 6.12) when memory is short.
 */
struct symphony_jobs *symphony_jobs_create_own(u32 nr,
					       struct netlink_ext_ack *extack)
{
	struct symphony_jobs *jobs;

	jobs = kzalloc(sizeof(*jobs), GFP_KERNEL_ACCOUNT);
	if (!jobs)
		goto nomem;
	jobs->own = kvcalloc(nr, sizeof(*jobs->own),
			     GFP_KERNEL_ACCOUNT | __GFP_NORETRY |
			     __GFP_NOWARN);
	if (!jobs->own) {
		kfree(jobs);
		goto nomem;
	}
	jobs->nr = nr;
	return jobs;

nomem:
	NL_SET_ERR_MSG_MOD(extack, "cannot allocate the job table (see jobs)");
	return ERR_PTR(-ENOMEM);
}

/*
 * Why the qdisc may not write into @map through @fd, or NULL.  The qdisc
 * stores into the values as a program would, so the map must be writable
 * both through the fd handed over (not opened BPF_F_RDONLY or
 * BPF_F_WRONLY) and by programs (not BPF_F_RDONLY_PROG), not frozen, and
 * its value must hold no field the kernel manages (a bpf_spin_lock, a
 * timer, a kptr), which a plain store would corrupt.
 */
static const char *symphony_jobs_map_refusal(int fd, struct bpf_map *map)
{
	struct file *file;
	fmode_t mode = 0;

	/* The file behind @fd now, checked to be the map bpf_map_get() found
	 * (another thread may have replaced the fd meanwhile).
	 */
	file = fget(fd);
	if (file) {
		if (file->private_data == map)
			mode = file->f_mode;
		fput(file);
	}
	if (!(mode & FMODE_CAN_READ) || !(mode & FMODE_CAN_WRITE))
		return "sch_symphony: jobs_map fd must be open for reading and writing (not BPF_F_RDONLY or BPF_F_WRONLY)";
	if (map->map_flags & BPF_F_RDONLY_PROG)
		return "sch_symphony: jobs map is read-only to the datapath (BPF_F_RDONLY_PROG)";
	if (READ_ONCE(map->frozen))
		return "sch_symphony: jobs map is frozen (BPF_MAP_FREEZE)";
	if (symphony_map_has_special_fields(map))
		return "sch_symphony: jobs map value holds kernel-managed fields (spin lock, timer, kptr)";
	return NULL;
}

struct symphony_jobs *symphony_jobs_create_map(int fd,
					       const struct nlattr *attr,
					       struct netlink_ext_ack *extack)
{
	struct symphony_jobs *jobs;
	struct bpf_map *map;
	const char *refusal;

	/* Writing a map's values from the kernel is what a BPF program does:
	 * the same privilege as loading one.
	 */
	if (!bpf_capable()) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "sch_symphony: jobs_map needs CAP_BPF or CAP_SYS_ADMIN");
		return ERR_PTR(-EPERM);
	}
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
	refusal = symphony_jobs_map_refusal(fd, map);
	if (refusal) {
		if (extack)
			extack->_msg = refusal;
		NL_SET_BAD_ATTR(extack, attr);
		bpf_map_put(map);
		return ERR_PTR(-EPERM);
	}

	jobs = kzalloc(sizeof(*jobs), GFP_KERNEL_ACCOUNT);
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
