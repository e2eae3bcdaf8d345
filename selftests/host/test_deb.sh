#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_deb.sh - make deb (scripts/build-deb.sh): the three packages build
# from a copy of the tree lintian-clean, a second build gives the same
# bytes, each package holds what its users look for (the module's source
# and dkms.conf, the plugin where Debian's tc reads it, the agent, units
# and pages; the tools and the testbed scripts), and DKMS builds the
# module from the package's source tree.  The install on a real Debian
# root is vm/test_deb_install.sh's.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd dpkg-buildpackage dh_dkms lintian dkms git
kdir=$("$TOP_DIR/scripts/lib.sh" default_kdir)
kver=$("$TOP_DIR/scripts/lib.sh" kdir_release "$kdir")
version=$(cat "$TOP_DIR/VERSION")
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

ktap_plan 8

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"

"$TOP_DIR/scripts/build-deb.sh" --out "$tmp/a" >"$tmp/a.list" 2>"$tmp/a.log"
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$tmp/a.log" | sed 's/^/# /'
check_eq "make deb builds the packages lintian-clean (exit 0)" 0 "$rc"
names=$(cd "$tmp/a" 2>/dev/null && ls ./*.deb | sed 's|^\./||' | grep -v dbgsym | tr '\n' ' ')
check_eq "three packages, versioned from VERSION" \
	"symphony-ofan-dkms_${version}_all.deb symphony-ofan-tools_${version}_amd64.deb symphony-ofan_${version}_amd64.deb " \
	"$names"

"$TOP_DIR/scripts/build-deb.sh" --out "$tmp/b" --no-lintian >/dev/null 2>&1
differ=$(cd "$tmp/a" && for deb in *.deb; do
	cmp -s "$deb" "$tmp/b/$deb" || echo "$deb"
done)
check_eq "a second build gives the same bytes (SOURCE_DATE_EPOCH)" "" "$differ"

for p in symphony-ofan-dkms symphony-ofan symphony-ofan-tools; do
	dpkg-deb -x "$tmp/a/${p}_${version}_"*.deb "$tmp/root"
done
src=$tmp/root/usr/src/sch-symphony-$version
check "the dkms package: the module's source and dkms.conf of this version" \
	sh -c "grep -qx 'PACKAGE_VERSION=\"$version\"' $src/dkms.conf &&
	       grep -qx 'AUTOINSTALL=\"yes\"' $src/dkms.conf &&
	       test -f $src/kernel/symphony_qdisc.c -a -f $src/Kbuild"
check "symphony-ofan: plugin where tc reads it, agent, units, pages" test \
	-f "$tmp/root/usr/lib/$multiarch/tc/q_symphony.so" -a \
	-x "$tmp/root/usr/sbin/symofan" -a \
	-f "$tmp/root/lib/systemd/system/symofan-jobs.service" -a \
	-f "$tmp/root/usr/share/man/man8/tc-symphony.8.gz" -a \
	-f "$tmp/root/usr/share/man/man5/ofan.conf.5.gz"
check_eq "the units run the packaged agent" "" \
	"$(grep -h '/usr/local' "$tmp/root/lib/systemd/system/"*.service)"
check "symphony-ofan-tools: the tools and the scripts under their names" test \
	-x "$tmp/root/usr/sbin/ringcoll" -a -x "$tmp/root/usr/sbin/symofan-leafspine"

if [ -d "$kdir" ]; then
	check "DKMS builds the module from the package's source ($kver)" \
		dkms_builds "$tmp/root/usr/src" "$version" "$kver" "$tmp"
else
	ktap_skip "DKMS builds the module from the package's source" "no kernel headers"
fi

ktap_finished
