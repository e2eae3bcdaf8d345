#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh - shell helpers shared by the project's scripts: logging, the
# kernel ABI of the installed headers and where the VM kernel is cached.

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

symofan_cache() {
	echo "${SYMOFAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symphony-ofan}"
}

# The ABI ("6.1.0-42", "6.12.117+deb12") of the headers package that the
# metapackage $1 (default linux-headers-amd64) depends on; $2 is the
# flavour (default amd64, or rt-amd64).
headers_abi() {
	local meta=${1:-linux-headers-amd64} flavour=${2:-amd64} dep
	dep=$(dpkg-query -W -f='${Depends}\n' "$meta" 2>/dev/null |
		tr ',' '\n' | sed -n "s/^ *linux-headers-\([0-9][^ ]*\)-$flavour.*/\1/p" | head -n 1)
	[ -n "$dep" ] || return 1
	echo "$dep"
}

# Where the unpacked linux-image-<abi>-<flavour>-unsigned lives.
vm_kernel_dir() {
	echo "$(symofan_cache)/linux-image-$1-${2:-amd64}"
}

# The kernels the VM tier boots (vm-run.sh --kernel NAME):
#   6.1        Debian's stock kernel, the ABI of linux-headers-amd64
#   6.1-debug  the debug kernel built from linux-source-6.1
#              (scripts/build-debug-kernel.sh)
#   6.12       Debian's 6.12 (linux-headers-6.12-amd64)
#   6.12-rt    Debian's 6.12 PREEMPT_RT (linux-headers-6.12-rt-amd64)
#   7.3        Debian trixie-backports' 7.3, built against a prepared
#              linux-source-7.3 (scripts/fetch-backports-kernel.sh)
#   7.3-rt     its PREEMPT_RT flavour
VM_KERNELS="6.1 6.1-debug 6.12 6.12-rt 7.3 7.3-rt"

# backports_kernel_split NAME: set BPK_SERIES ("7.3") and BPK_FLAVOUR
# ("amd64", "rt-amd64") of a trixie-backports VM kernel; fails for others.
backports_kernel_split() {
	case "$1" in
	7.3) BPK_SERIES=7.3; BPK_FLAVOUR=amd64 ;;
	7.3-rt) BPK_SERIES=7.3; BPK_FLAVOUR=rt-amd64 ;;
	*) return 1 ;;
	esac
}

# What makes VM kernel NAME ready: the command to run, for messages.
vm_kernel_setup_hint() {
	case "$1" in
	*debug) echo "scripts/build-debug-kernel.sh" ;;
	*) if backports_kernel_split "$1"; then
		echo "scripts/fetch-backports-kernel.sh $1 (make modules-$1)"
	   else
		echo "scripts/install-deps.sh"
	   fi ;;
	esac
}

# unpack_source TARBALL DIR: a kernel source tarball into DIR, its top
# folder stripped, once: DIR/.complete marks it whole, and a cut run
# starts again from nothing.
unpack_source() {
	[ ! -f "$2/.complete" ] || return 0
	log "unpacking $1"
	rm -rf "$2" "$2.partial"
	mkdir -p "$2.partial"
	tar -xaf "$1" -C "$2.partial" --strip-components=1
	touch "$2.partial/.complete"
	mv "$2.partial" "$2"
}

# The project's own apt state for trixie-backports, never the host's.
backports_apt_root() {
	echo "$(symofan_cache)/apt-trixie-backports"
}

# vm_kernel NAME: set VMK_KVER (release), VMK_IMAGE (root of the unpacked
# image: boot/vmlinux-KVER, lib/modules/KVER), VMK_KDIR (build tree the
# module is built against) and VMK_PKG (the image package, "" if built
# here).  Fails when the kernel's headers are not installed.
vm_kernel() {
	local abi

	VMK_PKG=
	case "$1" in
	6.1|stock)
		abi=$(headers_abi) || return 1
		VMK_KVER=$abi-amd64
		VMK_IMAGE=$(vm_kernel_dir "$abi")
		VMK_PKG=linux-image-$abi-amd64-unsigned ;;
	6.1-debug|debug)
		VMK_IMAGE=$(debug_kernel_dir) || return 1
		VMK_KVER=$(cat "$VMK_IMAGE/.kver" 2>/dev/null) || VMK_KVER=
		VMK_KDIR=$VMK_IMAGE/build
		return 0 ;;
	6.12)
		abi=$(headers_abi linux-headers-6.12-amd64) || return 1
		VMK_KVER=$abi-amd64
		VMK_IMAGE=$(vm_kernel_dir "$abi")
		VMK_PKG=linux-image-$abi-amd64-unsigned ;;
	6.12-rt)
		abi=$(headers_abi linux-headers-6.12-rt-amd64 rt-amd64) || return 1
		VMK_KVER=$abi-rt-amd64
		VMK_IMAGE=$(vm_kernel_dir "$abi" rt-amd64)
		VMK_PKG=linux-image-$abi-rt-amd64-unsigned ;;
	7.3|7.3-rt)
		backports_kernel_split "$1"
		abi=$(cat "$(backports_apt_root)/abi-$BPK_SERIES" 2>/dev/null) || return 1
		VMK_KVER=$abi-$BPK_FLAVOUR
		VMK_IMAGE=$(vm_kernel_dir "$abi" "$BPK_FLAVOUR")
		VMK_KDIR=$VMK_IMAGE/build
		return 0 ;;
	*)
		return 2 ;;
	esac
	VMK_KDIR=/usr/src/linux-headers-$VMK_KVER
}

# Where the module and the test modules built for kernel NAME are: the
# top of the tree for the stock kernel (plain 'make'), else
# build/kmod/NAME, a copy of the module's sources (scripts/build-module.sh).
module_tree() {
	local top

	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	case "$1" in
	6.1|stock) echo "$top" ;;
	*) echo "$top/build/kmod/$1" ;;
	esac
}

# The source tarball of Debian's linux-source-6.1, the debug kernel's.
debug_kernel_tarball() {
	local t=/usr/src/linux-source-6.1.tar.xz

	[ -f "$t" ] || return 1
	echo "$t"
}

# Where the debug kernel (scripts/build-debug-kernel.sh) is cached: named
# by the source package's version and a hash of its config fragment, so
# that a change of either builds a new one.
debug_kernel_dir() {
	local here ver sum

	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || return 1
	sum=$(cat "$here/vm-kernel/debug.config" | md5sum | cut -c1-8)
	echo "$(symofan_cache)/linux-debug-$ver-$sum"
}

# Where ns-3 with MPI (scripts/build-ns3-mpi.sh) is installed: named by
# the version of Debian's ns3 it is built from.
ns3_mpi_dir() {
	local ver

	ver=$(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null) || return 1
	echo "$(symofan_cache)/ns3-mpi-$ver"
}

# The kernel build folder the module is built against: the running
# kernel's when its headers are installed, else the headers of the
# linux-headers-amd64 metapackage (the VM's kernel).
default_kdir() {
	local abi

	if [ -d "/lib/modules/$(uname -r)/build" ]; then
		echo "/lib/modules/$(uname -r)/build"
	elif abi=$(headers_abi); then
		echo "/usr/src/linux-headers-$abi-amd64"
	fi
}

# The release ("6.1.0-42-amd64") of the kernel that headers folder $1
# builds for, as the module's vermagic and /lib/modules name it.
kdir_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h"
}

# A kernel splat in a console log or dmesg, as an extended regex (no
# {n} intervals: mawk reads it too): what fails a VM run (vm-run.sh)
KERNEL_SPLAT_RE='Kernel panic|Oops[:]|WARNING: |BUG[:]|kernel BUG at|general protection fault'
KERNEL_SPLAT_RE+='|KASAN|UBSAN|KFENCE|possible circular locking|possible recursive locking'
KERNEL_SPLAT_RE+='|inconsistent lock state|INFO: task .* blocked|soft lockup|hard LOCKUP|RCU stall'
KERNEL_SPLAT_RE+='|refcount_t: |list_add corruption|list_del corruption|Call Trace'
# a trap's oops header, which 6.1 prints without "Oops: " (int3: 0000 [#1])
KERNEL_SPLAT_RE+='|int3: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#'

# stale_int3_oops SPLAT_RE CONSOLE: whether the first kernel splat (a line
# matching the extended regex SPLAT_RE) in the console log CONSOLE is an
# int3 trap at an instruction that memory no longer holds.  The kernel
# patches its text live (jump labels, static calls) through a temporary
# int3 and sends an IPI that makes every CPU drop what it has decoded;
# QEMU's TCG can still run a stale translation of the patched bytes on
# another vCPU after the patch is done, and the int3 handler, with no
# patch in flight, oopses.  The "Code:" line shows the bytes around the
# trap with the one at RIP in <>: an int3 (cc) traps with RIP past it, so
# the byte before the <> is what memory holds where the int3 ran.
# Anything but cc there is the emulator's fault, not the kernel's or the
# module's.
stale_int3_oops() {
	awk -v splat="$1" '
	!seen && $0 ~ splat {
		seen = 1
		if ($0 !~ /int3: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#/)
			exit 1
		oops = 1
		next
	}
	oops && /Code: / {
		if (!match($0, /[0-9a-f][0-9a-f] <[0-9a-f][0-9a-f]>/))
			exit 1
		exit substr($0, RSTART, 2) == "cc" ? 1 : 0
	}
	END { if (!oops) exit 1 }
	' "$2"
}

# Run as a command: scripts/lib.sh FUNCTION prints what FUNCTION prints.
if [ "${0##*/}" = lib.sh ] && [ $# -gt 0 ]; then
	"$@"
fi

# The bpftool the tests use: scripts/build-bpftool.sh's, which knows tcx,
# when it is built, else the system's.
symofan_bpftool() {
	local b
	b=$(ls -d "$(symofan_cache)"/bpftool-*/bpftool 2>/dev/null | sort -V | tail -n 1)
	if [ -n "$b" ] && [ -f "${b%/bpftool}/.complete" ]; then
		echo "$b"
	else
		command -v bpftool || echo bpftool
	fi
}
