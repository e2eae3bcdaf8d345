#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-deb.sh - build the Debian packages (debian/) from a clean copy of
# the tree's tracked files, so that nothing of the working tree's build
# enters them, and check them with lintian:
#   symphony-ofan-dkms   the module's source for DKMS (architecture all)
#   symphony-ofan        symofan, ecnstat, the tc plugin, the BPF objects,
#                        the systemd units and the manual pages
#   symphony-ofan-tools  the workload tools and the testbed scripts
# The version is VERSION's (debian/rules refuses a debian/changelog that
# says another); dpkg-buildpackage takes SOURCE_DATE_EPOCH from the
# changelog's top entry, so two builds give the same bytes.
#
# Usage: scripts/build-deb.sh [--out DIR] [--no-lintian]
#   --out DIR      where the .deb files go (default build/deb)
#   --no-lintian   skip the lintian check
# Exit status: 0 built and lintian-clean, 1 a build or lintian failure,
# 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

out=$top/build/deb
run_lintian=1
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?--out wants a folder}; shift 2 ;;
	--no-lintian) run_lintian=0; shift ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build-deb.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
for c in dpkg-buildpackage dh dh_dkms go-md2man; do
	command -v "$c" >/dev/null ||
		die "'$c' not found: run scripts/install-deps.sh"
done

version=$(cat "$top/VERSION")
work=$out/work
rm -rf "$work"
src=$work/symphony-ofan-$version
mkdir -p "$src"
# The tracked files (with their uncommitted edits), as a clone has them.
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 cp --parents -t "$src" 2>/dev/null) ||
	die "cannot copy the tree to $src"

log "building the packages of symphony-ofan $version in $src"
(cd "$src" && dpkg-buildpackage --build=binary --no-sign -j"$(nproc)") \
	> "$work/build.log" 2>&1 || {
	tail -n 40 "$work/build.log" >&2
	die "dpkg-buildpackage failed (whole log: $work/build.log)"
}
changes=$work/symphony-ofan_${version}_$(dpkg --print-architecture).changes
rm -f "$out"/*.deb
for deb in $(sed -n 's/^ [0-9a-f]\{64\} [0-9]* \(.*\.deb\)$/\1/p' "$changes"); do
	cp "$work/$deb" "$out/"
	echo "$out/$deb"
done
if [ "$run_lintian" -eq 1 ]; then
	command -v lintian >/dev/null || die "lintian not found: run scripts/install-deps.sh"
	lintian --fail-on error,warning --info "$changes" >&2 ||
		die "lintian found errors or warnings (above)"
fi
