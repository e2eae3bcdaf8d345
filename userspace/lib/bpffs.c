// SPDX-License-Identifier: GPL-2.0
/*
 * bpffs.c - pin folders on the bpf filesystem: paths, the bpffs check,
 * folder creation and locking, the network namespace (bpffs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "tool_util.h"

void pin_path(char *buf, size_t size, const char *dir, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

bool on_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int check_bpffs(const char *dir)
{
	char buf[PATH_MAX], *slash;

	snprintf(buf, sizeof(buf), "%s", dir);
	while (access(buf, F_OK)) {
		slash = strrchr(buf, '/');
		if (!slash || slash == buf) {
			strcpy(buf, "/");
			break;
		}
		*slash = '\0';
	}
	if (!on_bpffs(buf)) {
		error("%s is not on a bpf filesystem (mount -t bpf bpf /sys/fs/bpf; 'ip netns exec' hides it, nsenter --net=... does not)",
		      buf);
		return -1;
	}
	return 0;
}

int check_dir_arg(const char *opt, const char *dir)
{
	if (dir[0] == '/' && strlen(dir) <= BPFFS_DIR_MAX)
		return 0;
	error("%s '%s': wants an absolute path of at most %d characters",
	      opt, dir, BPFFS_DIR_MAX);
	return -1;
}

int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

/*
 * Whether folder @path (lstat()ed into @st) may hold pins of this user:
 * no symlink, a folder, and nobody else able to change what it holds.
 * The pin folder itself (@last) must be ours and writable by us alone;
 * a folder above it ours or root's, and writable by others only if it
 * is sticky (the bpffs root of 'mount -t bpf' is 1777): there nobody
 * can rename or remove an entry they do not own.
 */
static int pin_dir_component_ok(const char *path, const struct stat *st,
				bool last)
{
	uid_t euid = geteuid();

	if (S_ISLNK(st->st_mode)) {
		error("%s is a symbolic link: pin folders are taken only as real folders",
		      path);
		return -1;
	}
	if (!S_ISDIR(st->st_mode)) {
		error("%s is not a folder", path);
		return -1;
	}
	if (last && (st->st_uid != euid || (st->st_mode & 0022))) {
		error("%s is owned by uid %u with mode %04o: a pin folder must be owned by this user (uid %u) and writable by it alone, or others could replace its pins; remove it or choose another folder",
		      path, (unsigned int)st->st_uid,
		      (unsigned int)(st->st_mode & 07777), (unsigned int)euid);
		return -1;
	}
	if (!last && st->st_uid != euid && st->st_uid != 0) {
		error("%s (above a pin folder) is owned by uid %u: another user could rename the pin folder away; choose a folder under one of root's or this user's",
		      path, (unsigned int)st->st_uid);
		return -1;
	}
	if (!last && (st->st_mode & 0022) &&
	    !(st->st_mode & S_ISVTX)) {
		error("%s (above a pin folder) has mode %04o: writable by others without the sticky bit, it lets them rename the pin folder away",
		      path, (unsigned int)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

int check_pin_dir(const char *dir)
{
	char buf[PATH_MAX], *p;
	struct stat st;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
		error("%s: path too long", dir);
		return -1;
	}
	/* every folder from the root down, the pin folder last */
	for (p = buf + 1; ; p++) {
		bool last = !*p;

		if (*p && *p != '/')
			continue;
		if (p > buf + 1 && p[-1] == '/' && !last)
			continue;	/* "//" */
		*p = '\0';
		if (lstat(buf, &st)) {
			error("cannot read %s: %s", buf, strerror(errno));
			return -1;
		}
		if (pin_dir_component_ok(buf, &st, last))
			return -1;
		if (last)
			return 0;
		*p = '/';
	}
}

int make_pin_dir(const char *dir)
{
	if (mkdir_p(dir)) {
		error("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return check_pin_dir(dir);
}

bool map_used_by_prog(int map_fd)
{
	struct bpf_map_info minfo = {};
	__u32 mlen = sizeof(minfo), id = 0;

	if (bpf_obj_get_info_by_fd(map_fd, &minfo, &mlen))
		return true;	/* cannot tell: as if in use */
	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info), ids[64], i;
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;	/* gone meanwhile */
		info.nr_map_ids = ARRAY_SIZE(ids);
		info.map_ids = (__u64)(unsigned long)ids;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			for (i = 0; i < info.nr_map_ids && i < ARRAY_SIZE(ids); i++)
				if (ids[i] == minfo.id) {
					close(fd);
					return true;
				}
		close(fd);
	}
	return false;
}

int lock_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		error("cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX)) {
		error("cannot lock %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int netns_id(__u64 *dev, __u64 *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st)) {
		error("cannot identify the network namespace: %s",
		      strerror(errno));
		return -1;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}
