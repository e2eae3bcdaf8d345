#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh - shell helpers shared by the project's scripts: logging, the
# kernel ABI of the installed headers and where the VM kernel is cached.

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

symofan_cache() {
	echo "${SYMOFAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symphony-ofan}"
}

# The ABI ("6.1.0-42") of the linux-headers-<abi>-amd64 package that the
# linux-headers-amd64 metapackage depends on.
headers_abi() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}\n' linux-headers-amd64 2>/dev/null |
		tr ',' '\n' | sed -n 's/^ *linux-headers-\([0-9][^ ]*\)-amd64.*/\1/p' | head -n 1)
	[ -n "$dep" ] || return 1
	echo "$dep"
}

# Where the unpacked linux-image-<abi>-amd64-unsigned lives.
vm_kernel_dir() {
	echo "$(symofan_cache)/linux-image-$1-amd64"
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

# Run as a command: scripts/lib.sh FUNCTION prints what FUNCTION prints.
if [ "${0##*/}" = lib.sh ] && [ $# -gt 0 ]; then
	"$@"
fi
