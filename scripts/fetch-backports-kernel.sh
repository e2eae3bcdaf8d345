#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fetch-backports-kernel.sh - fetch a Debian trixie-backports kernel for the
# VM tier and prepare a tree to build the module against, without touching
# the host's apt sources: an apt state of the project's own (its lists and
# sources under the cache) lists trixie-backports, `apt-get download`
# fetches the kernel's parts, which are unpacked into the cache as the
# bookworm images are.
#
# The image: linux-base, linux-binary-unsigned and linux-modules of the
# flavour (7.x splits what linux-image-*-unsigned held), laid out as the
# runner wants them (boot/vmlinuz-KVER, lib/modules/KVER).
#
# The build tree: trixie's headers packages name gcc-14, which bookworm
# does not have (their kbuild binaries would run here: they need glibc
# 2.34), and Debian's config holds gcc-14's CC_HAS_* answers (e.g.
# -fmin-function-alignment, which gcc-12 refuses).  So the tree is
# linux-source-MAJOR.MINOR with the flavour's own config (from linux-base),
# `olddefconfig` with this machine's compiler and `modules_prepare`, its
# release set to the image's, and the image's Module.symvers from the
# headers package for modpost.  Debian builds 7.x without MODVERSIONS, so
# what a module must match to load is the release and vermagic flags.
#
# Usage: scripts/fetch-backports-kernel.sh [--print-dir] NAME
#   NAME          7.3 or 7.3-rt (scripts/lib.sh VM_KERNELS)
#   --print-dir   print the image folder when done
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

print_dir=0
name=
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1 ;;
	-h|--help) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "fetch-backports-kernel.sh: unknown option '$1'" >&2; exit 2 ;;
	*) [ -z "$name" ] || { echo "fetch-backports-kernel.sh: one kernel at a time" >&2; exit 2; }
	   name=$1 ;;
	esac
	shift
done
[ -n "$name" ] || { echo "fetch-backports-kernel.sh: which kernel? (7.3 or 7.3-rt)" >&2; exit 2; }
backports_kernel_split "$name" ||
	{ echo "fetch-backports-kernel.sh: '$name' is not a backports kernel (7.3 or 7.3-rt)" >&2; exit 2; }
series=$BPK_SERIES
flavour=$BPK_FLAVOUR
[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get download)"

# The project's apt state: the lists of trixie-backports only, refreshed
# when older than a day or when they lack linux-source-SERIES.
apt_root=$(backports_apt_root)
apt_opts=(-o "Dir::State=$apt_root/state" -o "Dir::Cache=$apt_root/cache"
	  -o "Dir::Etc::sourcelist=$apt_root/sources.list"
	  -o "Dir::Etc::sourceparts=$apt_root/sources.list.d"
	  -o "Dir::Etc::preferencesparts=$apt_root/preferences.d"
	  -o "Dir::Etc::Parts=$apt_root/apt.conf.d"
	  -o APT::Sandbox::User=root)	# the cache is under root's home, closed to _apt
mkdir -p "$apt_root"/{state/lists/partial,cache/archives/partial,sources.list.d,preferences.d,apt.conf.d}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main" \
	>"$apt_root/sources.list"
# Without the mirror, the kernel fetched last stays in use.
cached_image() {
	local abi

	abi=$(cat "$apt_root/abi-$series" 2>/dev/null) || return 1
	[ -f "$(vm_kernel_dir "$abi" "$flavour")/.complete" ] || return 1
	vm_kernel_dir "$abi" "$flavour"
}
refresh_lists() {
	local cached

	log "updating the trixie-backports lists in $apt_root"
	if apt-get "${apt_opts[@]}" --error-on=any update -qq >/dev/null 2>&1; then
		touch "$apt_root/updated"
		return 0
	fi
	cached=$(cached_image) ||
		die "apt-get update of trixie-backports failed (is deb.debian.org reachable?)"
	log "apt-get update of trixie-backports failed: keeping $cached"
	[ "$print_dir" -eq 0 ] || echo "$cached"
	exit 0
}
# (apt dates the lists by the archive's Release, so a stamp of our own)
if [ -z "$(find "$apt_root/updated" -mtime -1 2>/dev/null)" ]; then
	refresh_lists
fi
src_version=$(apt-cache "${apt_opts[@]}" policy "linux-source-$series" 2>/dev/null |
	sed -n 's/^ *Candidate: \([^ (]*\)$/\1/p')
if [ -z "$src_version" ] || [ "$src_version" = "(none)" ]; then
	refresh_lists
	src_version=$(apt-cache "${apt_opts[@]}" policy "linux-source-$series" |
		sed -n 's/^ *Candidate: \([^ (]*\)$/\1/p')
fi
if [ -z "$src_version" ] || [ "$src_version" = "(none)" ]; then
	die "trixie-backports has no linux-source-$series"
fi
# 7.3.4-1~bpo13+1 -> ABI 7.3.4+deb13, release 7.3.4+deb13-amd64
abi=${src_version%%-*}+deb13
kver=$abi-$flavour
echo "$abi" >"$apt_root/abi-$series"

image=$(vm_kernel_dir "$abi" "$flavour")
if [ -f "$image/.complete" ]; then
	[ "$print_dir" -eq 0 ] || echo "$image"
	exit 0
fi
start=$(date +%s)
pkgs="linux-base-$kver linux-binary-unsigned-$kver linux-modules-$kver linux-headers-$kver linux-source-$series"
dl=$apt_root/debs
mkdir -p "$dl"
chmod 0755 "$apt_root" "$dl"	# apt's _apt user downloads into it
log "fetching $pkgs"
# shellcheck disable=SC2086 # a list of package names
(cd "$dl" && apt-get "${apt_opts[@]}" download -qq $pkgs >/dev/null 2>&1) ||
	die "apt-get download of $pkgs failed"
deb() {	# deb PACKAGE: its downloaded file
	local found=("$dl/$1"_*.deb)
	[ -f "${found[0]}" ] && echo "${found[0]}"
}

# The tree is prepared where it stays (its files name their folder); the
# image counts as there once .complete is.
rm -rf "$image"
mkdir -p "$image"
log "unpacking the $kver image"
for p in "linux-base-$kver" "linux-binary-unsigned-$kver" "linux-modules-$kver"; do
	f=$(deb "$p")
	[ -n "$f" ] || die "$p was not downloaded"
	dpkg -x "$f" "$image"
done
# usr/lib/modules/KVER/vmlinuz.unsigned -> boot/vmlinuz-KVER, lib/modules
mkdir -p "$image/boot" "$image/lib"
mv "$image/usr/lib/modules" "$image/lib/modules"
mv "$image/lib/modules/$kver/vmlinuz.unsigned" "$image/boot/vmlinuz-$kver"
cp "$image/lib/modules/$kver/config" "$image/boot/config-$kver"
depmod -b "$image" "$kver" || die "depmod for $kver failed"

# The source, shared by the flavours of one version
src=$(symofan_cache)/linux-source-$src_version
if [ ! -f "$src/.complete" ]; then
	deb_dir=$(mktemp -d)
	dpkg -x "$(deb "linux-source-$series")" "$deb_dir"
	unpack_source "$deb_dir/usr/src/linux-source-$series.tar.xz" "$src"
	rm -rf "$deb_dir"
fi

log "preparing the build tree for $kver with $(gcc -dumpfullversion 2>/dev/null || echo gcc)"
kb=$image/build
mkdir -p "$kb"
cp "$image/boot/config-$kver" "$kb/.config"
make -s -C "$src" O="$kb" olddefconfig >/dev/null
make -s -C "$src" O="$kb" KERNELRELEASE="$kver" -j"$(nproc)" modules_prepare >"$kb/prepare.log" 2>&1 ||
	{ tail -n 30 "$kb/prepare.log" >&2; die "modules_prepare for $kver failed"; }
# modpost checks the module's symbols against the image's exports
hdr=$(mktemp -d)
dpkg -x "$(deb "linux-headers-$kver")" "$hdr"
cp "$hdr/usr/src/linux-headers-$kver/Module.symvers" "$kb/Module.symvers"
rm -rf "$hdr"
[ "$(kdir_release "$kb")" = "$kver" ] ||
	die "the build tree's release is '$(kdir_release "$kb")', not $kver"
find "$kb" -name '*.o' -delete
touch "$image/.complete"
log "VM kernel $name ($kver) and its build tree in $(( $(date +%s) - start )) s: $image"
[ "$print_dir" -eq 0 ] || echo "$image"
