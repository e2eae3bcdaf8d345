#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# install-deps.sh - install what the project needs from Debian's packages and
# fetch Debian's kernel image matching the installed linux-headers ABI, for
# the QEMU runner.  Idempotent: when everything is present it only checks.
#
# Usage: scripts/install-deps.sh [--no-vm-kernel]
#
# The VM kernel is unpacked under $SYMOFAN_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/symphony-ofan), never inside the tree.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

want_vm_kernel=1
for arg in "$@"; do
	case "$arg" in
	--no-vm-kernel) want_vm_kernel=0 ;;
	-h|--help) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install-deps.sh: unknown argument '$arg'" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages)"

# Debian package names, one per line.  Later issues add theirs here.
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
pkg-config
linux-headers-amd64
qemu-system-x86
busybox-static
iproute2
cpio
xz-utils
binutils
kmod
jq
python3
dwarves
dkms
frr
gnuplot-nox
file
ethtool
iputils-ping
bsdextrautils
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

abi=$(headers_abi) || die "cannot derive the kernel ABI from linux-headers-amd64"
kdir_image=$(vm_kernel_dir "$abi")
if [ ! -f "$kdir_image/boot/vmlinuz-$abi-amd64" ]; then
	log "fetching linux-image-$abi-amd64-unsigned for the VM"
	tmp=$(mktemp -d)
	chmod 0755 "$tmp"	# apt's _apt user downloads into it
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -qq "linux-image-$abi-amd64-unsigned" >/dev/null) ||
		die "apt-get download linux-image-$abi-amd64-unsigned failed"
	mkdir -p "$kdir_image.partial"
	dpkg -x "$tmp"/linux-image-"$abi"-amd64-unsigned_*.deb "$kdir_image.partial"
	rm -rf "$kdir_image"
	mv "$kdir_image.partial" "$kdir_image"
fi
kver="$abi-amd64"
[ -f "$kdir_image/lib/modules/$kver/modules.dep" ] ||
	depmod -b "$kdir_image" "$kver" || die "depmod for the VM kernel failed"
# Under TCG, unpacking the xz-compressed bzImage takes seconds at every
# boot; QEMU boots the uncompressed ELF vmlinux directly through its PVH
# entry point (CONFIG_PVH), so unpack it once here.
vmlinux="$kdir_image/boot/vmlinux-$kver"
if [ ! -f "$vmlinux" ]; then
	vmlinuz="$kdir_image/boot/vmlinuz-$kver"
	offset=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1)
	[ -n "$offset" ] || die "no xz payload in $vmlinuz"
	tail -c +"$((offset + 1))" "$vmlinuz" | xz -dcq > "$vmlinux.tmp" 2>/dev/null || true
	readelf -h "$vmlinux.tmp" >/dev/null 2>&1 || die "cannot unpack $vmlinuz"
	mv "$vmlinux.tmp" "$vmlinux"
fi
log "VM kernel: $vmlinux"
