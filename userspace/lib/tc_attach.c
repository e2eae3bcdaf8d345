// SPDX-License-Identifier: GPL-2.0
/*
 * tc_hook.c - the clsact hook of a device for the agent's tc-BPF
 * programs.
 */
#include <stdarg.h>
#include <bpf/libbpf.h>

#include "tc_hook.h"

static int libbpf_silent(enum libbpf_print_level level, const char *fmt,
			 va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

int tc_hook_create_quiet(struct bpf_tc_hook *hook)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_silent);
	int err = bpf_tc_hook_create(hook);

	libbpf_set_print(old);
	return err;
}
