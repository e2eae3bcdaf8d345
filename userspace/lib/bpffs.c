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
