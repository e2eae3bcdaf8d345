#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh - build the VM tier's debug kernel once and cache it
# next to the stock image: Debian's linux-source-6.1 configured from
# x86_64_defconfig, the kernel's kvm_guest.config and the project's
# scripts/vm-kernel/debug.config (KASAN, lockdep, kmemleak, UBSAN, KFENCE,
# DEBUG_OBJECTS, fault injection).  The build tree stays in the cache so
# that the module builds against it (KDIR).  Rebuilt when the fragment or
# the source package changes; otherwise it only prints where it is.
#
# Usage: scripts/build-debug-kernel.sh [--print-dir] [-j N]
#   --print-dir   print the image folder (building first if needed)
#   -j N          parallel jobs (default: the CPUs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

print_dir=0
jobs=$(nproc)
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1; shift ;;
	-j) jobs=${2:?}; shift 2 ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-debug-kernel.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$jobs" in ''|*[!0-9]*|0) die "-j wants a positive number, got '$jobs'" ;; esac

tarball=$(debug_kernel_tarball) ||
	die "linux-source-6.1 is not installed: run scripts/install-deps.sh"
image=$(debug_kernel_dir) || die "cannot name the debug kernel's folder"
if [ -f "$image/.complete" ]; then
	[ "$print_dir" -eq 0 ] || echo "$image"
	exit 0
fi

start=$(date +%s)
src=$(symofan_cache)/$(basename "$tarball" .tar.xz)-src
unpack_source "$tarball" "$src"

rm -rf "$image"
build=$image/build
mkdir -p "$build"
log "configuring in $build"
make -s -C "$src" O="$build" x86_64_defconfig >/dev/null
(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m -O "$build" .config \
	"$src/kernel/configs/kvm_guest.config" "$here/vm-kernel/debug.config" >/dev/null)
make -s -C "$src" O="$build" olddefconfig >/dev/null

# Every option of the fragment must have survived olddefconfig: a
# dependency that is not met would silently drop a detector.
missing=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1=\2/p' "$here/vm-kernel/debug.config" |
	while read -r want; do
		grep -qxF "$want" "$build/.config" || echo "$want"
	done)
[ -z "$missing" ] || die "options of debug.config not in the final config: $(echo $missing)"

log "building with $jobs jobs (one-off; tens of minutes on two cores)"
make -s -C "$src" O="$build" -j"$jobs" bzImage modules >"$build/build.log" 2>&1 ||
	{ tail -n 40 "$build/build.log" >&2; die "the debug kernel did not build"; }
kver=$(kdir_release "$build")
make -s -C "$src" O="$build" INSTALL_MOD_PATH="$image" modules_install \
	>>"$build/build.log" 2>&1 || die "modules_install failed"
mkdir -p "$image/boot"
# The runner boots the bzImage: a KASAN kernel cannot take QEMU's PVH
# entry (its C code runs instrumented before KASAN's early shadow exists).
cp "$build/arch/x86/boot/bzImage" "$image/boot/vmlinuz-$kver"
# Only what out-of-tree modules need stays: objects of the tree go.
find "$build" -name '*.o' -delete
echo "$kver" > "$image/.kver"
touch "$image/.complete"
log "debug kernel $kver built in $(( $(date +%s) - start )) s: $image"
[ "$print_dir" -eq 0 ] || echo "$image"
