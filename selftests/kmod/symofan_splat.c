// SPDX-License-Identifier: GPL-2.0
/*
 * symofan_splat.c - test-only module: on load it raises the kernel splat
 * chosen by its "kind" parameter and then refuses to stay loaded.  The
 * VM runner's self-test uses it to prove that each class of bug the runner
 * claims to catch fails a run: a WARN and an int3 trap on every kernel,
 * and on the debug kernel a lockdep lock inversion, a KASAN out-of-bounds
 * access and a kmemleak leak.
 *
 *	insmod symofan_splat.ko kind=warn|int3|lockdep|kasan|leak
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *kind = "warn";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "splat to raise at load: warn, int3, lockdep, kasan or leak");

static DEFINE_MUTEX(symofan_splat_a);
static DEFINE_MUTEX(symofan_splat_b);

/* A then B, later B then A: lockdep reports the inversion at the second
 * order without any deadlock happening (one thread takes both).
 */
static void symofan_splat_lockdep(void)
{
	mutex_lock(&symofan_splat_a);
	mutex_lock(&symofan_splat_b);
	mutex_unlock(&symofan_splat_b);
	mutex_unlock(&symofan_splat_a);

	mutex_lock(&symofan_splat_b);
	mutex_lock(&symofan_splat_a);
	mutex_unlock(&symofan_splat_a);
	mutex_unlock(&symofan_splat_b);
}

/* One byte past a 16-byte kmalloc object: KASAN's slab-out-of-bounds. */
static noinline void symofan_splat_kasan(void)
{
	char *buf = kmalloc(16, GFP_KERNEL);
	size_t past = 16;

	if (!buf)
		return;
	OPTIMIZER_HIDE_VAR(past);
	OPTIMIZER_HIDE_VAR(buf);
	WRITE_ONCE(buf[past], 1);
	kfree(buf);
}

/*
 * Objects nothing points to any more: kmemleak's unreferenced objects.
 * Several, each pointer overwriting the last in the same variable: a dead
 * task's stack, which the kernel may cache and kmemleak then scans, keeps
 * at most the last one referenced.
 */
static noinline void symofan_splat_leak(void)
{
	void *buf;
	int i;

	for (i = 0; i < 32; i++) {
		buf = kmalloc(1024, GFP_KERNEL);
		if (buf)
			memset(buf, 0x5a, 1024);
		OPTIMIZER_HIDE_VAR(buf);
	}
}

/*
 * An int3 that the kernel's text holds, with no kprobe or text patch
 * behind it: the trap handler oopses ("Oops: int3") as it does for an
 * int3 that QEMU ran from a stale translation, but here memory holds the
 * cc, and the runner must call it the kernel's fault.
 */
static noinline void symofan_splat_int3(void)
{
#ifdef CONFIG_X86
	asm volatile("int3");
#else
	WARN(1, "symofan_splat: int3 is x86's\n");
#endif
}

static int __init symofan_splat_init(void)
{
	if (!strcmp(kind, "warn"))
		WARN(1, "symofan_splat: warning injected for the runner's self-test\n");
	else if (!strcmp(kind, "int3"))
		symofan_splat_int3();
	else if (!strcmp(kind, "lockdep"))
		symofan_splat_lockdep();
	else if (!strcmp(kind, "kasan"))
		symofan_splat_kasan();
	else if (!strcmp(kind, "leak"))
		symofan_splat_leak();
	else {
		pr_err("symofan_splat: unknown kind '%s'\n", kind);
		return -EINVAL;
	}
	return -ECANCELED;
}

module_init(symofan_splat_init);
MODULE_DESCRIPTION("Test-only: raises a kernel splat (WARN, int3, lockdep, KASAN, kmemleak) on load");
MODULE_LICENSE("GPL");
