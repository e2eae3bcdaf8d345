#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_deb_install.sh - the packages of make deb installed on a real
# Debian 12 root (scripts/make-debian-root.sh: debootstrap, cached) booted
# with systemd in the VM, once with Debian's 6.1 kernel and once with
# 6.12: apt install with the kernel's headers, DKMS builds the module,
# modprobe, the qdisc through the installed plugin, the job unit, a job,
# Symphony as tc-BPF; on 6.1 also 6.12's headers installed afterwards
# build the module for it (a kernel upgrade); then apt remove leaves no
# module, pin or unit (selftests/tools/deb_install_vm.sh, the guest's
# half).  Runs in make check-matrix (SYMOFAN_CHECK_MATRIX=1): the root
# takes minutes to make and each boot builds the module under TCG.
. "$(dirname "$0")/../lib.sh"

[ -n "${SYMOFAN_CHECK_MATRIX:-}" ] ||
	ktap_skip_all "runs in make check-matrix (a Debian root, two systemd boots that build the module under TCG: about 10 minutes)"
require_root
require_cmd debootstrap dpkg-buildpackage qemu-system-x86_64

kernels=(6.1 6.12)
ktap_plan $((1 + 2 * ${#kernels[@]}))

tmp=$(mktemp -d)
on_exit rm -rf "$tmp"
work=$tmp/work
mkdir -p "$work/headers"
"$TOP_DIR/scripts/build-deb.sh" --out "$work" --no-lintian >/dev/null 2>"$tmp/deb.log"
check_eq "make deb builds the packages" 0 "$?"
root=$("$TOP_DIR/scripts/make-debian-root.sh" --print-path) ||
	{ echo "# cannot make the Debian root (above)"; exit "$KSFT_FAIL"; }
cp "$TOP_DIR/selftests/tools/deb_install_vm.sh" "$work/"
cp "$BPFTOOL" "$work/bpftool"
# each kernel's headers packages (make-debian-root.sh keeps them by release)
kvers=()
for k in "${kernels[@]}"; do
	kver=$(. "$TOP_DIR/scripts/lib.sh" && vm_kernel "$k" && echo "$VMK_KVER")
	kvers+=("$kver")
	cp -r "${root%/rootfs}/debs/$kver" "$work/headers/"
done

for i in "${!kernels[@]}"; do
	k=${kernels[$i]}
	args=("$work")
	[ "$k" != 6.1 ] || args+=(--upgrade "${kvers[1]}")
	start=$(date +%s)
	"$TOP_DIR/scripts/vm-run.sh" --kernel "$k" --root "$root" --init systemd \
		--rw "$work" --timeout 1800 -- /bin/bash "$work/deb_install_vm.sh" "${args[@]}" \
		> "$tmp/vm-$k.log" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/vm-$k.log"
	ktap_print "the install test on $k took $(($(date +%s) - start)) s"
	points=$(sed -n 's/^points //p' "$tmp/vm-$k.log")
	check_eq "on $k the guest ran every point (exit 0)" "0 $((${#args[@]} > 1 ? 14 : 13))" "$rc $points"
	check_eq "on $k every point passed" "" "$(grep '^not ok' "$tmp/vm-$k.log")"
done

ktap_finished
