#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# install-deps.sh - install what the project needs from Debian's packages and
# fetch Debian's kernel images for the QEMU runner: 6.1 matching the
# installed linux-headers ABI, 6.12 and 6.12 PREEMPT_RT (with their
# headers, to build the module for them).  The debug kernel is built from
# linux-source-6.1 by scripts/build-debug-kernel.sh.  Idempotent: when
# everything is present it only checks.
#
# Usage: scripts/install-deps.sh [--no-vm-kernel]
#
# The VM kernels are unpacked under $SYMOFAN_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/symphony-ofan), never inside the tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

want_vm_kernel=1
for arg in "$@"; do
	case "$arg" in
	--no-vm-kernel) want_vm_kernel=0 ;;
	-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install-deps.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages)"

# Debian package names, one per line.  Later issues add theirs here.
# rdma-core, ibverbs-utils, ibverbs-providers (its rxe provider) and
# perftest: Linux's Soft-RoCE (rdma_rxe) driven by ib_write_bw through the
# qdisc in the VM (vm/test_symphony_rxe.sh); iproute2's rdma adds the rxe
# devices.  strace: host/test_tc_attach.sh kills symofan mid-attach with
# its syscall fault injection.  go-md2man, help2man, groff, man-db: the
# manual pages (make man, host/test_man_pages.sh); debhelper, dh-dkms,
# lintian: make deb; debootstrap: the install test's Debian root.
packages="
build-essential
clang
llvm
libclang-rt-14-dev
libbpf-dev
bpftool
libelf-dev
zlib1g-dev
libmnl-dev
libjson-c-dev
pkg-config
linux-headers-amd64
linux-headers-6.12-amd64
linux-headers-6.12-rt-amd64
linux-source-6.1
bc
bison
flex
libssl-dev
qemu-system-x86
busybox-static
iproute2
cpio
xz-utils
binutils
kmod
jq
python3
python3-numpy
python3-scipy
dwarves
dkms
frr
gnuplot-nox
file
ethtool
iputils-ping
bsdextrautils
util-linux
libns3-dev
nlohmann-json3-dev
libgoogle-perftools-dev
protobuf-compiler
libgsl-dev
libsqlite3-dev
rdma-core
ibverbs-utils
ibverbs-providers
perftest
strace
go-md2man
help2man
groff
man-db
debhelper
dh-dkms
lintian
debootstrap
"

missing=$(for p in $packages; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
done)

if [ -n "$missing" ]; then
	log "installing: $(echo $missing)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ "$want_vm_kernel" -eq 1 ] || exit 0

# fetch_vm_kernel NAME: unpack the image of VM kernel NAME (lib.sh
# vm_kernel), index its modules, and unpack its vmlinux.
fetch_vm_kernel() {
	local tmp vmlinux vmlinuz offset

	vm_kernel "$1" || die "cannot derive the $1 kernel's ABI from its headers package"
	if [ ! -f "$VMK_IMAGE/boot/vmlinuz-$VMK_KVER" ]; then
		log "fetching $VMK_PKG for the VM"
		tmp=$(mktemp -d)
		chmod 0755 "$tmp"	# apt's _apt user downloads into it
		(cd "$tmp" && apt-get download -qq "$VMK_PKG" >/dev/null) ||
			{ rm -rf "$tmp"; die "apt-get download $VMK_PKG failed"; }
		rm -rf "$VMK_IMAGE.partial"
		mkdir -p "$VMK_IMAGE.partial"
		dpkg -x "$tmp"/"$VMK_PKG"_*.deb "$VMK_IMAGE.partial"
		rm -rf "$tmp" "$VMK_IMAGE"
		mv "$VMK_IMAGE.partial" "$VMK_IMAGE"
	fi
	[ -f "$VMK_IMAGE/lib/modules/$VMK_KVER/modules.dep" ] ||
		depmod -b "$VMK_IMAGE" "$VMK_KVER" || die "depmod for the $1 kernel failed"
	# Under TCG, unpacking the xz-compressed bzImage of 6.1 takes seconds
	# at every boot; QEMU boots the uncompressed ELF vmlinux directly
	# through its PVH entry point (CONFIG_PVH), so unpack it once here.
	# Other payloads (6.12's zstd unpacks fast) boot as the bzImage.
	vmlinux="$VMK_IMAGE/boot/vmlinux-$VMK_KVER"
	vmlinuz="$VMK_IMAGE/boot/vmlinuz-$VMK_KVER"
	if [ ! -f "$vmlinux" ]; then
		offset=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1 || true)
		if [ -n "$offset" ]; then
			tail -c +"$((offset + 1))" "$vmlinuz" | xz -dcq > "$vmlinux.tmp" 2>/dev/null || true
			readelf -h "$vmlinux.tmp" >/dev/null 2>&1 || die "cannot unpack $vmlinuz"
			mv "$vmlinux.tmp" "$vmlinux"
		else
			vmlinux=$vmlinuz
		fi
	fi
	log "VM kernel $1: $vmlinux"
}

for k in 6.1 6.12 6.12-rt; do
	fetch_vm_kernel "$k"
done
