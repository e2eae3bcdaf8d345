#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_build_install.sh - a copy of the tree builds warning-clean with the
# BPF objects carrying BTF, "make clean" leaves nothing behind, "make
# install" puts each piece where its user looks for it (modprobe, tc,
# PATH), "make uninstall" takes it all back, and DKMS builds the module.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd make git modprobe bpftool
kdir=$("$TOP_DIR/scripts/lib.sh" default_kdir)
[ -d "$kdir" ] || ktap_skip_all "no kernel headers: run scripts/install-deps.sh"
kver=$("$TOP_DIR/scripts/lib.sh" kdir_release "$kdir")

ktap_plan 9

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"
src=$tmp/src
mkdir "$src"
# The tracked files (and uncommitted edits), as a fresh clone would have.
git -C "$TOP_DIR" ls-files -z --cached --others --exclude-standard |
	(cd "$TOP_DIR" && xargs -0 cp --parents -t "$src" 2>/dev/null)
(cd "$src" && find . -type f | sort) > "$tmp/before"

make -C "$src" -j2 >"$tmp/build.log" 2>&1
check_eq "make builds the whole tree" 0 "$?"
warnings=$(grep -E 'warning:|error:' "$tmp/build.log" | head -n 5)
check_eq "the build is warning-clean (-Wall -Wextra)" "" "$warnings"
check "the BPF object carries BTF with the map value's field names" sh -c \
	"bpftool btf dump file $src/build/ecnstat.bpf.o | grep -q \"'rocev2_cnp'\""

make -C "$src" clean >/dev/null 2>&1
(cd "$src" && find . -type f | sort) > "$tmp/after"
check_eq "make clean leaves nothing behind" "" \
	"$(diff "$tmp/before" "$tmp/after" | grep '^>' | head -n 5)"

make -C "$src" -j2 >/dev/null 2>&1
dest=$tmp/dest
make -C "$src" install DESTDIR="$dest" >"$tmp/install.log" 2>&1
check_eq "make install DESTDIR=... succeeds" 0 "$?"
check "modprobe finds the installed module (request_module path)" sh -c \
	"modprobe -d $dest -S $kver --show-depends sch_symphony |
	 grep -q '$dest/lib/modules/$kver/updates/sch_symphony.ko'"
check "the tc plugin and the tools are where tc and PATH look" test \
	-f "$dest/usr/lib/$(gcc -print-multiarch)/tc/q_symphony.so" -a \
	-x "$dest/usr/local/sbin/ecnstat"
make -C "$src" uninstall DESTDIR="$dest" >/dev/null 2>&1
check_eq "make uninstall removes every installed file" "" \
	"$(find "$dest" -type f | head -n 5)"

if command -v dkms >/dev/null; then
	make -C "$src" dkms-src DESTDIR="$tmp/dkms-src" >/dev/null
	check "dkms builds the module from dkms.conf" dkms_builds \
		"$tmp/dkms-src/usr/src" "$(cat "$src/VERSION")" "$kver" "$tmp"
else
	ktap_skip "dkms builds the module from dkms.conf" "dkms not installed"
fi

ktap_finished
