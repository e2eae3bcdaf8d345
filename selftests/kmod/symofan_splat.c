// SPDX-License-Identifier: GPL-2.0
/*
 * symofan_splat.c - test-only module: on load it raises the kernel splat
 * chosen by its "kind" parameter and then refuses to stay loaded.  The
 * VM runner's self-test uses it to prove that a WARN fails a run.
 *
 *	insmod symofan_splat.ko kind=warn
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/string.h>

static char *kind = "warn";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "splat to raise at load: warn");

static int __init symofan_splat_init(void)
{
	if (!strcmp(kind, "warn")) {
		WARN(1, "symofan_splat: warning injected for the runner's self-test\n");
		return -ECANCELED;
	}
	pr_err("symofan_splat: unknown kind '%s'\n", kind);
	return -EINVAL;
}

module_init(symofan_splat_init);
MODULE_DESCRIPTION("Test-only: raises a kernel WARN on load");
MODULE_LICENSE("GPL");
