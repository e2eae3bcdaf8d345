// SPDX-License-Identifier: GPL-2.0
/*
 * job_registry.c - the Symphony job registry's pin folder: opening and
 * checking it, creating it, re-creating it at this symofan's layout, and
 * reading and deleting its jobs (job_registry.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "bpffs.h"
#include "job_registry.h"
#include "symphony/symphony_bpf.h"
#include "symphony_jobs.skel.h"
#include "tool_util.h"

int require_cap_bpf(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	int caps[] = { CAP_BPF, CAP_SYS_ADMIN };
	size_t i;

	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: let the kernel decide */
	for (i = 0; i < ARRAY_SIZE(caps); i++)
		if (data[caps[i] / 32].effective & (1U << (caps[i] % 32)))
			return 0;
	error("creating BPF maps needs CAP_BPF: run as root");
	return -1;
}

int get_pinned(const char *dir, const char *name, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);
	char path[256];
	int fd;

	pin_path(path, sizeof(path), dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len)) {
		close(fd);
		return -errno;
	}
	return fd;
}

void close_jobs_dir(struct jobs_dir *d)
{
	if (d->jobs)
		munmap(d->jobs, d->jobs_len);
	if (d->jobs_fd >= 0)
		close(d->jobs_fd);
	if (d->registry_fd >= 0)
		close(d->registry_fd);
	if (d->meta_fd >= 0)
		close(d->meta_fd);
	if (d->locks_fd >= 0)
		close(d->locks_fd);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->jobs = NULL;
	d->jobs_fd = d->registry_fd = d->meta_fd = d->locks_fd = -1;
	d->lock_fd = -1;
}

int open_jobs_dir(struct jobs_dir *d, const char *dir, bool lock)
{
	struct bpf_map_info jobs_info, reg_info, meta_info, locks_info;
	__u32 zero = 0;

	memset(d, 0, sizeof(*d));
	d->dir = dir;
	d->jobs_fd = d->registry_fd = d->meta_fd = d->locks_fd = -1;
	d->lock_fd = -1;
	if (check_bpffs(dir))
		return -1;
	d->meta_fd = get_pinned(dir, META_PIN, &meta_info);
	if (d->meta_fd >= 0 && check_pin_dir(dir))
		goto fail;
	if (d->meta_fd == -ENOENT) {
		error("no job registry at %s: run 'symofan job init%s%s'", dir,
		      strcmp(dir, JOBS_PIN_DIR) ? " --pin-dir " : "",
		      strcmp(dir, JOBS_PIN_DIR) ? dir : "");
		return -1;
	}
	if (d->meta_fd < 0) {
		error("cannot open %s/%s: %s", dir, META_PIN, why(-d->meta_fd));
		return -1;
	}
	if (meta_info.value_size != sizeof(d->meta) ||
	    bpf_map_lookup_elem(d->meta_fd, &zero, &d->meta) ||
	    d->meta.magic != SYMPHONY_JOBS_META_MAGIC) {
		error("%s/%s is not a job registry's meta map", dir, META_PIN);
		goto fail;
	}
	if (d->meta.layout_version != SYMPHONY_JOB_LAYOUT_VERSION) {
		error("the maps in %s have job layout %u, this symofan uses %u: 'symofan job migrate --pin-dir %s' re-creates them at layout %u, keeping job ids, names and parameters",
		      dir, d->meta.layout_version, SYMPHONY_JOB_LAYOUT_VERSION,
		      dir, SYMPHONY_JOB_LAYOUT_VERSION);
		goto fail;
	}
	d->jobs_fd = get_pinned(dir, JOBS_PIN, &jobs_info);
	d->registry_fd = get_pinned(dir, REGISTRY_PIN, &reg_info);
	d->locks_fd = get_pinned(dir, LOCKS_PIN, &locks_info);
	if (d->jobs_fd < 0 || d->registry_fd < 0 || d->locks_fd < 0) {
		error("%s is incomplete (%s, %s, %s): 'symofan job migrate --pin-dir %s' re-creates it",
		      dir, d->jobs_fd < 0 ? "no jobs map" : "jobs map",
		      d->registry_fd < 0 ? "no registry" : "registry",
		      d->locks_fd < 0 ? "no job locks" : "job locks", dir);
		goto fail;
	}
	if (jobs_info.type != BPF_MAP_TYPE_ARRAY ||
	    jobs_info.value_size != sizeof(struct symphony_job) ||
	    !(jobs_info.map_flags & BPF_F_MMAPABLE) ||
	    reg_info.value_size != sizeof(struct symphony_job_entry) ||
	    locks_info.type != BPF_MAP_TYPE_ARRAY ||
	    locks_info.value_size != sizeof(struct symphony_bpf_job_lock) ||
	    locks_info.max_entries != SYMPHONY_BPF_JOB_LOCKS) {
		error("%s/%s, %s/%s or %s/%s has another layout than this symofan's: 'symofan job migrate --pin-dir %s'",
		      dir, JOBS_PIN, dir, REGISTRY_PIN, dir, LOCKS_PIN, dir);
		goto fail;
	}
	d->meta.nr_jobs = jobs_info.max_entries;
	d->jobs_len = (size_t)jobs_info.max_entries * sizeof(struct symphony_job);
	d->jobs = mmap(NULL, d->jobs_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d->jobs_fd, 0);
	if (d->jobs == MAP_FAILED) {
		d->jobs = NULL;
		error("cannot map %s/%s: %s", dir, JOBS_PIN, why(errno));
		goto fail;
	}
	if (lock) {
		d->lock_fd = lock_dir(dir);
		if (d->lock_fd < 0)
			goto fail;
	}
	return 0;
fail:
	close_jobs_dir(d);
	return -1;
}

/* Creates the four maps of a registry with @nr_jobs slots, unpinned. */
static struct symphony_jobs_bpf *create_maps(__u32 nr_jobs)
{
	struct symphony_jobs_bpf *skel;
	int err;

	skel = symphony_jobs_bpf__open();
	if (!skel) {
		error("cannot open the maps' object: %s", why(errno));
		return NULL;
	}
	err = bpf_map__set_max_entries(skel->maps.symphony_jobs, nr_jobs);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.job_registry,
					       nr_jobs);
	if (!err)
		err = symphony_jobs_bpf__load(skel);
	if (err) {
		error("cannot create the maps: %s", why(-err));
		symphony_jobs_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Pins the maps of @skel in @dir (mode 0600), meta last: it marks the
 * registry complete.
 */
static int pin_maps(struct symphony_jobs_bpf *skel, const char *dir,
		    __u32 nr_jobs)
{
	struct symphony_jobs_meta meta = {
		.magic = SYMPHONY_JOBS_META_MAGIC,
		.layout_version = SYMPHONY_JOB_LAYOUT_VERSION,
		.nr_jobs = nr_jobs,
	};
	/* meta last: it marks the registry complete */
	struct bpf_map *maps[] = {
		skel->maps.symphony_jobs, skel->maps.job_registry,
		skel->maps.symphony_job_locks, skel->maps.job_meta,
	};
	static const char *const names[] = {
		JOBS_PIN, REGISTRY_PIN, LOCKS_PIN, META_PIN,
	};
	char path[256];
	__u32 zero = 0;
	size_t i;
	int err;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.job_meta), &zero, &meta,
				BPF_ANY)) {
		error("cannot write the meta map: %s", why(errno));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(maps); i++) {
		pin_path(path, sizeof(path), dir, names[i]);
		err = bpf_map__pin(maps[i], path);
		if (err) {
			error("cannot pin %s: %s", path, why(-err));
			return -1;
		}
		chmod(path, 0600);
	}
	return 0;
}

int create_registry(const char *dir, __u32 nr_jobs)
{
	struct symphony_jobs_bpf *skel;
	int ret = 0;

	skel = create_maps(nr_jobs);
	if (!skel)
		return -1;
	if (pin_maps(skel, dir, nr_jobs)) {
		bpf_map__unpin(skel->maps.symphony_jobs, NULL);
		bpf_map__unpin(skel->maps.job_registry, NULL);
		bpf_map__unpin(skel->maps.symphony_job_locks, NULL);
		ret = -1;
	}
	symphony_jobs_bpf__destroy(skel);
	return ret;
}

int unpin_registry(const char *dir)
{
	static const char *const names[] = {
		JOBS_PIN, REGISTRY_PIN, LOCKS_PIN, META_PIN,
	};
	char path[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		pin_path(path, sizeof(path), dir, names[i]);
		if (unlink(path) && errno != ENOENT) {
			error("cannot remove %s: %s", path, why(errno));
			return -1;
		}
	}
	return 0;
}

int migrate_registry(const char *dir, __u32 *nr_jobs, __u32 *carried)
{
	struct symphony_job_entry e;
	struct symphony_jobs_bpf *skel;
	struct bpf_map_info info;
	__u32 key, next, *prev = NULL;
	int ret = -1, old_reg = -1, fd;

	*carried = 0;
	fd = get_pinned(dir, JOBS_PIN, &info);
	if (fd >= 0) {
		*nr_jobs = info.max_entries;	/* keep the number of slots */
		close(fd);
	}
	fd = get_pinned(dir, REGISTRY_PIN, &info);
	if (fd >= 0 && info.value_size == sizeof(e) && info.key_size == 4)
		old_reg = fd;
	else if (fd >= 0)
		close(fd);
	skel = create_maps(*nr_jobs);
	if (!skel)
		goto out;
	while (old_reg >= 0 && !bpf_map_get_next_key(old_reg, prev, &next)) {
		if (next < *nr_jobs &&
		    !bpf_map_lookup_elem(old_reg, &next, &e)) {
			struct symphony_job j = {
				.k_ppm = e.k_ppm, .tau_ppm = e.tau_ppm,
				.warmup_psn = e.warmup_psn,
				.sample_min_packets = e.sample_min_packets,
			};

			e.packets_seen = 0;
			e.idle_since_ns = clock_ns(CLOCK_MONOTONIC);
			bpf_map_update_elem(bpf_map__fd(skel->maps.job_registry),
					    &next, &e, BPF_ANY);
			bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_jobs),
					    &next, &j, BPF_ANY);
			(*carried)++;
		}
		key = next;
		prev = &key;
	}
	if (unpin_registry(dir))
		goto destroy;
	if (!pin_maps(skel, dir, *nr_jobs))
		ret = 0;
destroy:
	symphony_jobs_bpf__destroy(skel);
out:
	if (old_reg >= 0)
		close(old_reg);
	return ret;
}

__u64 *registered_ids(const struct jobs_dir *d, __u32 *count)
{
	__u64 *bits = calloc((d->meta.nr_jobs + 63) / 64, sizeof(__u64));
	__u32 key, next, *prev = NULL;

	*count = 0;
	if (!bits) {
		error("out of memory");
		return NULL;
	}
	while (!bpf_map_get_next_key(d->registry_fd, prev, &next)) {
		if (next < d->meta.nr_jobs) {
			bits[next / 64] |= 1ULL << (next % 64);
			(*count)++;
		}
		key = next;
		prev = &key;
	}
	return bits;
}

int delete_job(struct jobs_dir *d, __u32 id)
{
	if (bpf_map_delete_elem(d->registry_fd, &id) && errno != ENOENT) {
		error("cannot unregister job %u: %s", id, why(errno));
		return -1;
	}
	request_job_reset(&d->jobs[id]);
	return 0;
}

const char *jobs_owner_name(__u32 owner)
{
	switch (owner) {
	case SYMPHONY_JOBS_OWNER_NONE:
		return "no datapath";
	case SYMPHONY_JOBS_OWNER_QDISC:
		return "sch_symphony qdiscs";
	case SYMPHONY_JOBS_OWNER_BPF:
		return "Symphony's tc-BPF program";
	}
	return "an unknown datapath";
}

int set_jobs_owner(struct jobs_dir *d, __u32 owner)
{
	struct symphony_jobs_meta meta = d->meta;
	__u32 zero = 0;

	if (d->meta.owner == owner)
		return 0;
	meta.owner = owner;
	if (bpf_map_update_elem(d->meta_fd, &zero, &meta, BPF_EXIST)) {
		error("cannot record the owner of %s: %s", d->dir, why(errno));
		return -1;
	}
	d->meta.owner = owner;
	return 0;
}
