#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deb_install_vm.sh - the guest's half of host/test_deb_install.sh, run
# by the Debian root's systemd (scripts/vm-run.sh --root --init systemd)
# as a user would: apt installs the packages with the running kernel's
# headers, DKMS builds the module, the qdisc goes on a port through the
# installed plugin, the job unit starts and takes a job, Symphony attaches
# as tc-BPF; with --upgrade KVER, installing another kernel's headers
# builds the module for it too; then apt remove, after which no module,
# pin or unit may be left.  Prints "ok N - what" or "not ok N - what"
# per point and "points N" at the end, for the host to judge.
#
# Usage: deb_install_vm.sh WORK [--upgrade KVER]
#   WORK holds the packages (*.deb), the kernels' headers packages
#   (headers/KVER/*.deb) and bpftool
set -u

work=${1:?usage: deb_install_vm.sh WORK [--upgrade KVER]}
upgrade=
[ "${2:-}" != --upgrade ] || upgrade=${3:?--upgrade wants a kernel release}
kver=$(uname -r)
n=0
export DEBIAN_FRONTEND=noninteractive PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
log=$work/apt-$kver.log

# point WHAT COMMAND...: one point, passed when COMMAND exits 0; its
# output is shown when it fails.
point() {
	local what=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/#   /'
	fi
}

# offline: every dependency is in the root or in WORK
apt_get() {
	apt-get -y -q --no-install-recommends -o Acquire::Retries=0 \
		-o Dpkg::Use-Pty=0 "$@" >> "$log" 2>&1 || { tail -n 25 "$log"; return 1; }
}

echo "# kernel $kver, $(nproc) CPUs, $(. /etc/os-release && echo "$PRETTY_NAME"), systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p')"
point "apt installs symphony-ofan-dkms and symphony-ofan with the kernel's headers" \
	apt_get install "$work"/symphony-ofan-dkms_*.deb "$work"/symphony-ofan_*.deb \
	"$work"/headers/"$kver"/*.deb
point "DKMS built and installed the module for $kver" \
	sh -c "dkms status sch-symphony | grep -q '$kver.*installed' &&
	       ls /lib/modules/$kver/updates/dkms/sch_symphony.ko*"
point "modprobe sch_symphony loads it" sh -c "modprobe sch_symphony && grep -q '^sch_symphony ' /proc/modules"
ip link add dummy0 type dummy && ip link set dummy0 up
ip link add dummy1 type dummy && ip link set dummy1 up
point "tc takes the qdisc through the installed plugin (no TC_LIB_DIR)" \
	sh -c "tc qdisc add dev dummy0 root symphony kmin 5kb kmax 10kb &&
	       tc qdisc show dev dummy0 | grep -q 'symphony .*kmin 5120b'"
point "the manual pages are installed" \
	test -f /usr/share/man/man8/tc-symphony.8.gz -a -f /usr/share/man/man8/symofan.8.gz \
	-a -f /usr/share/man/man5/ofan.conf.5.gz
point "systemctl start symofan-jobs creates the job registry" \
	sh -c "systemctl start symofan-jobs && systemctl is-active -q symofan-jobs &&
	       test -e /sys/fs/bpf/symphony/jobs"
point "symofan job add registers a job" \
	sh -c "symofan job add --name ring0 | grep -q 'job 1 added'"
point "symofan symphony attach puts Symphony as tc-BPF on a port" \
	sh -c "symofan symphony attach dummy1 rate 1gbit &&
	       symofan symphony status dummy1 --json | grep -q dummy1"
# A kernel upgrade: that kernel's headers installed afterwards, DKMS's
# hook (/etc/kernel/header_postinst.d/dkms) builds the module for it
# (sch_symphony.ko.xz where the kernel compresses its modules: 6.12).
upgrade_headers() {
	apt_get install "$work"/headers/"$upgrade"/*.deb &&
		ls "/lib/modules/$upgrade"/updates/dkms/sch_symphony.ko* ||
		{ dkms status; ls -l "/lib/modules/$upgrade"; return 1; }
}
if [ -n "$upgrade" ]; then
	point "installing $upgrade's headers builds the module for it too (a kernel upgrade)" \
		upgrade_headers
fi

# a user deletes the qdisc, then removes the packages
tc qdisc del dev dummy0 root
point "apt remove removes both packages" \
	apt_get remove symphony-ofan symphony-ofan-dkms
point "no module is left: none loaded, none in /lib/modules" \
	sh -c "! grep -q '^sch_symphony ' /proc/modules &&
	       test -z \"\$(find /lib/modules -name 'sch_symphony.ko*')\""
point "no pin is left in /sys/fs/bpf" \
	sh -c "test -z \"\$(ls -A /sys/fs/bpf)\""
point "no program is left on the port" \
	sh -c "test -z \"\$($work/bpftool net show dev dummy1 | grep -i symphony)\""
point "no unit is left: none running, no unit file" \
	sh -c "! systemctl is-active -q symofan-jobs &&
	       test ! -e /lib/systemd/system/symofan-jobs.service -a ! -e /lib/systemd/system/symofan-ofan.service"
echo "points $n"
