/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpffs.h - pin folders on the bpf filesystem, as the project's tools keep
 * their maps: paths of pins, the check that a folder is on bpffs, folder
 * creation and an exclusive lock, and the network namespace that the
 * interfaces of a pin folder belong to.  Errors are reported with error()
 * (tool_util.h).
 */
#ifndef SYMOFAN_LIB_BPFFS_H
#define SYMOFAN_LIB_BPFFS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The longest pin folder: room for "/<map name>" in a 256-byte path. */
#define BPFFS_DIR_MAX		200

/* DIR/NAME into @buf. */
void pin_path(char *buf, size_t size, const char *dir, const char *name);

/* @path is on a bpf filesystem. */
bool on_bpffs(const char *path);

/*
 * The deepest existing ancestor of @dir (or itself) must be on bpffs:
 * 0, or -1 after saying how to mount it.
 */
int check_bpffs(const char *dir);
/*
 * A pin folder named by option @opt: an absolute path of at most
 * BPFFS_DIR_MAX characters, or -1 after an error message naming both.
 */
int check_dir_arg(const char *opt, const char *dir);

/*
 * Creates @path and its missing parents, mode 0700 (less the umask); a
 * folder that exists keeps its mode.  0, or -1 with errno set.
 */
int mkdir_p(const char *path);

/*
 * Whether @dir may hold this user's pins: a real folder (no symlink),
 * owned by the effective user and writable by it alone, under folders of
 * root's or the user's that others cannot write to unless sticky.  0, or
 * -1 after an error message naming the folder and what is wrong.
 */
int check_pin_dir(const char *dir);

/* mkdir_p(), then check_pin_dir(): 0, or -1 after an error message. */
int make_pin_dir(const char *dir);

/* Whether a loaded BPF program uses the map of @map_fd (true when the
 * programs cannot be listed: as if in use).
 */
bool map_used_by_prog(int map_fd);

/*
 * An exclusive lock on folder @dir against other tools at work in it:
 * the fd holding it (close to release), or -1 after an error message.
 */
int lock_dir(const char *dir);

/* The device and inode of this process's network namespace; 0 or -1. */
int netns_id(__u64 *dev, __u64 *ino);

#endif /* SYMOFAN_LIB_BPFFS_H */
