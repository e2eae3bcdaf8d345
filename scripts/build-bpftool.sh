#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-bpftool.sh - build bpftool, with its own libbpf, from the
# linux-source-7.x tree that fetch-backports-kernel.sh keeps in the cache,
# for the tests and for users on Debian 12: bookworm's bpftool (7.1, from
# Linux 6.1) predates tcx, so its "net show" lists no tcx link and its
# "link show" does not say which device a link is on.  Built once per
# source version (about 30 s on two cores) into the cache; later runs only
# print where it is.  scripts/lib.sh symofan_bpftool finds it.
#
# Usage: scripts/build-bpftool.sh [--print-path]
#   --print-path  print the path of the bpftool binary when done
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

print_path=0
case "${1:-}" in
'') ;;
--print-path) print_path=1 ;;
-h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "build-bpftool.sh: unknown argument '$1'" >&2; exit 2 ;;
esac

newest_source() {
	local d
	for d in $(ls -d "$(symofan_cache)"/linux-source-7.* 2>/dev/null | sort -V); do
		[ -f "$d/.complete" ] && echo "$d"
	done | tail -n 1
}

src=$(newest_source)
if [ -z "$src" ]; then
	"$here/fetch-backports-kernel.sh" 7.3
	src=$(newest_source)
	[ -n "$src" ] || die "no linux-source-7.x in $(symofan_cache)"
fi
out=$(symofan_cache)/bpftool-${src##*/linux-source-}
if [ ! -x "$out/bpftool" ] || [ ! -f "$out/.complete" ]; then
	log "building bpftool from ${src##*/}"
	rm -rf "$out"
	mkdir -p "$out"
	make -C "$src/tools/bpf/bpftool" OUTPUT="$out/" -j"$(nproc)" \
		>"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "bpftool did not build"; }
	# only the binary stays
	find "$out" -mindepth 1 -maxdepth 1 ! -name bpftool ! -name build.log \
		-exec rm -rf {} +
	touch "$out/.complete"
	log "$("$out/bpftool" version | head -n 1): $out/bpftool"
fi
[ "$print_path" -eq 0 ] || echo "$out/bpftool"
