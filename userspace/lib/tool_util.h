/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool_util.h - small helpers shared by the project's libbpf tools:
 * their exit statuses, error messages prefixed with the tool's name,
 * errno explained for BPF and netlink calls, and libbpf's logging cut to
 * its warnings.
 */
#ifndef SYMOFAN_TOOL_UTIL_H
#define SYMOFAN_TOOL_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* The exit statuses of the tools. */
enum exit_code {
	EXIT_OK = 0,		/* done */
	EXIT_ERROR = 1,		/* failed */
	EXIT_USAGE = 2,		/* bad command line or input */
};

/* The tool's name, set by each tool, e.g. "ecnstat". */
extern const char *tool_name;

static inline void __attribute__((format(printf, 1, 2)))
error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Explain the errno of a failed BPF or netlink operation. */
static inline const char *why(int err)
{
	if (err == EPERM || err == EACCES)
		return "permission denied (needs CAP_BPF and CAP_NET_ADMIN: run as root)";
	return strerror(err);
}

/* libbpf's print callback that keeps only its warnings. */
static inline int libbpf_quiet(enum libbpf_print_level level,
			       const char *fmt, va_list args)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, args) : 0;
}

#endif /* SYMOFAN_TOOL_UTIL_H */
