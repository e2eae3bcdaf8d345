#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make-debian-root.sh - a Debian 12 (bookworm) root for the package install
# test (selftests/host/test_deb_install.sh): made once with debootstrap
# from the project's mirror and cached beside the VM kernels, as a user's
# machine would be before installing symphony-ofan: systemd as init,
# iproute2, DKMS with gcc-12 and make, the run-time libraries of the
# agent, and the Debian 6.1 and 6.12 kernels of the VM matrix installed
# from their packages (the same images the VM boots; no initramfs: the
# runner's boots them).  Their headers packages are kept beside the root,
# not installed (debs/KVER/): the test installs them as a user does.  The root is
# booted by scripts/vm-run.sh --root DIR --init systemd.
#
# Usage: scripts/make-debian-root.sh [--print-path]
#   --print-path  print the root's folder when done (its debs/ holds the
#                 kernels' headers packages)
# Exit status: 0 ready, 1 a failure (named), 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

print_path=0
case "${1:-}" in
'') ;;
--print-path) print_path=1 ;;
-h|--help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "make-debian-root.sh: unknown argument '$1'" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap not found: run scripts/install-deps.sh"

mirror=${SYMOFAN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What a router or training host has before the packages: init, the
# network tools, what DKMS builds with, the agent's libraries.
include=systemd,systemd-sysv,dbus,iproute2,kmod,procps,dkms,gcc-12,make,libc6-dev,patch,dpkg-dev,pahole,libssl3,libelf1,zlib1g,libbpf1,libmnl0,libjson-c5,jq,linux-base,initramfs-tools,apt-utils

# The kernels: the VM matrix's stock 6.1 and 6.12 images; their headers
# packages by release, in debs/KVER/
kernel_debs=()
header_debs=()
kvers=()
for k in 6.1 6.12; do
	vm_kernel "$k" || die "the $k kernel is not set up: run scripts/install-deps.sh"
	abi=${VMK_KVER%-amd64}
	kernel_debs+=("$VMK_PKG")
	kvers+=("$VMK_KVER")
	debs="linux-headers-$VMK_KVER linux-headers-$abi-common"
	case "$k" in
	6.1) debs+=" linux-kbuild-6.1 linux-compiler-gcc-12-x86" ;;
	*) debs+=" linux-kbuild-$abi" ;;
	esac
	header_debs+=("$debs")
done

layout=2	# debs/KVER/ for the headers
stamp=$(printf '%s\n' "$layout" "$mirror" "$include" "${kernel_debs[@]}" "${header_debs[@]}" |
	md5sum | cut -c1-10)
root=$(symofan_cache)/debian-root-bookworm-$stamp
if [ -f "$root/.complete" ]; then
	[ "$print_path" -eq 0 ] || echo "$root/rootfs"
	exit 0
fi

log "making a bookworm root in $root (debootstrap from $mirror, a few minutes, once)"
# a root of another stamp is out of date
rm -rf "$(symofan_cache)"/debian-root-bookworm-*
mkdir -p "$root/debs"
(cd "$root/debs" && apt-get download -qq -o APT::Sandbox::User=root \
	"${kernel_debs[@]}") || die "apt-get download of the kernel images failed"
for i in "${!kvers[@]}"; do
	mkdir -p "$root/debs/${kvers[$i]}"
	# shellcheck disable=SC2086 # a list of package names
	(cd "$root/debs/${kvers[$i]}" && apt-get download -qq \
		-o APT::Sandbox::User=root ${header_debs[$i]}) ||
		die "apt-get download of ${kvers[$i]}'s headers packages failed"
done
debootstrap --variant=minbase --include="$include" bookworm "$root/rootfs" \
	"$mirror" > "$root/debootstrap.log" 2>&1 || {
	tail -n 20 "$root/debootstrap.log" >&2
	die "debootstrap failed (whole log: $root/debootstrap.log)"
}

# The kernel images, installed from their packages; INITRD=No: the VM
# boots with the runner's initramfs.
mkdir -p "$root/rootfs/var/tmp/kernels"
for deb in "${kernel_debs[@]}"; do
	cp "$root"/debs/"${deb}"_*.deb "$root/rootfs/var/tmp/kernels/"
	rm -f "$root"/debs/"${deb}"_*.deb
done
chroot "$root/rootfs" env INITRD=No DEBIAN_FRONTEND=noninteractive \
	sh -c 'dpkg -i /var/tmp/kernels/*.deb' > "$root/kernels.log" 2>&1 || {
	tail -n 20 "$root/kernels.log" >&2
	die "installing the kernel images in the root failed"
}
rm -rf "$root/rootfs/var/tmp/kernels" "$root"/rootfs/var/cache/apt/archives/*.deb

# A machine of its own: a hostname, no root password prompt on the
# console, the BPF file system where the agent pins.
echo symofan-deb > "$root/rootfs/etc/hostname"
echo 'bpffs /sys/fs/bpf bpf defaults 0 0' >> "$root/rootfs/etc/fstab"
touch "$root/.complete"
log "the root is ready: $root/rootfs ($(du -sh "$root/rootfs" | cut -f1))"
[ "$print_path" -eq 0 ] || echo "$root/rootfs"
