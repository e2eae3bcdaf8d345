/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_hook.h - the clsact hook of a device for the agent's tc-BPF
 * programs (Ofan on ingress, Symphony on egress).
 */
#ifndef SYMOFAN_LIB_TC_HOOK_H
#define SYMOFAN_LIB_TC_HOOK_H

#include <bpf/libbpf.h>

/* bpf_tc_hook_create() without libbpf's message when clsact exists:
 * 0, -EEXIST or another -errno.
 */
int tc_hook_create_quiet(struct bpf_tc_hook *hook);

#endif /* SYMOFAN_LIB_TC_HOOK_H */
