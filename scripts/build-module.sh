#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-module.sh - build sch_symphony.ko and the test-only modules for one
# of the VM tier's kernels (lib.sh vm_kernel), in a copy of their sources
# under build/kmod/NAME, so that modules for several kernels live side by
# side.  The stock 6.1 kernel's are built in place by 'make'.
#
# Usage: scripts/build-module.sh NAME     (6.1-debug, 6.12, 6.12-rt, 7.3 or 7.3-rt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

[ $# -eq 1 ] || { sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
name=$1
rc=0
vm_kernel "$name" || rc=$?
[ "$rc" -ne 2 ] || die "no kernel '$name' (one of: $VM_KERNELS)"
[ "$rc" -eq 0 ] && [ -f "${VMK_KDIR:-}/Makefile" ] ||
	die "no build tree for the $name kernel at '${VMK_KDIR:-}': run $(vm_kernel_setup_hint "$name")"

out=$(module_tree "$name")
[ "$out" != "$top" ] || { make -C "$top" module; exit 0; }
mkdir -p "$out/kernel" "$out/include" "$out/selftests/kmod"
# Copy what changed only, so that Kbuild rebuilds only what it must.
cp -u "$top/Kbuild" "$out/"
for f in "$top"/kernel/Kbuild "$top"/kernel/*.[ch] "$top"/selftests/kmod/*; do
	case "$f" in *.mod.c|*.o|*.ko|*.cmd|*.mod|*.order|*.symvers) continue ;; esac
	[ -f "$f" ] || continue
	dir=kernel
	case "$f" in */selftests/kmod/*) dir=selftests/kmod ;; esac
	cp -u "$f" "$out/$dir/"
done
cp -ru "$top"/include/. "$out/include/"
make -C "$VMK_KDIR" M="$out" modules
make -C "$VMK_KDIR" M="$out/selftests/kmod" modules
