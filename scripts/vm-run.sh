#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# vm-run.sh - run a command inside QEMU (TCG) booting one of the VM tier's
# kernels (Debian's 6.1, the 6.1 debug build, 6.12 and 6.12-rt, trixie-
# backports' 7.3 and 7.3-rt) with the project's module for that kernel
# loaded.  The host root is shared read-only over virtio-9p under an
# overlay whose writes stay in guest memory; /run is a fresh tmpfs.
# The command's output is streamed; the script exits with its status.  It
# fails (exit 125) when the kernel panics, oopses, WARNs, hits a BUG, a
# KASAN/UBSAN/lockdep splat or a hung task, when kmemleak (debug kernel)
# finds a leak at the end, or when the command times out; exit 123 when
# the splat is the emulator's own (an int3 trap at kernel text that was
# already patched back: see stale_int3_oops in scripts/lib.sh).
#
# Usage: scripts/vm-run.sh [options] [--] command [args...]
#   --kernel NAME      6.1 (default, or $SYMOFAN_VM_KERNEL), 6.1-debug,
#                      6.12, 6.12-rt, 7.3 or 7.3-rt
#   --timeout SEC      kill the VM after SEC seconds (default 300)
#   --module PATH      insmod PATH before the command (repeatable; default
#                      the project's sch_symphony.ko built for the kernel)
#   --no-module        load no module of the project
#   --rw DIR           share host folder DIR writable at the same path
#                      (repeatable)
#   --mem MB           guest memory in MiB (default 4096: the qdisc's largest
#                      job table, 2^24 slots, takes 1.75 GiB, and a boot's
#                      earlier tests hold some; 1024 on the debug kernel:
#                      its kmemleak scans take 11 s at 1 GiB, 17 s at 2).
#                      QEMU maps guest memory as the guest touches it.
#   --smp N            guest CPUs (default: host CPUs, at most 4)
#   --root DIR         share DIR as the guest's root instead of the host's
#                      (a Debian root: scripts/make-debian-root.sh); loads
#                      no module of the project, runs the command from /
#   --init systemd     boot the root's systemd, which runs the command as
#                      a unit and powers off (default: the initramfs runs
#                      it in a chroot, without an init)
#   --keep             keep the run folder (console log, dmesg) on success
#   --plugin SO[,ARGS] load a QEMU TCG plugin (bench/tcg_insns.sh)
#   -v, --verbose      stream the kernel console too
# $SYMOFAN_VM_APPEND is added to the guest kernel's command line (for a
# one-off experiment, say kmemleak=off to time what kmemleak costs).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/lib.sh"

usage() { sed -n '15,37p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

timeout_s=300
kernel=${SYMOFAN_VM_KERNEL:-6.1}
mem_mb=
smp=$(nproc); [ "$smp" -le 4 ] || smp=4
modules=()
default_module=1
rwdirs=()
keep=0
plugin=
verbose=0
root=/
init=chroot
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--timeout) timeout_s=${2:?}; shift 2 ;;
	--module) modules+=("$(realpath "${2:?}")"); default_module=0; shift 2 ;;
	--no-module) default_module=0; shift ;;
	--rw) rwdirs+=("$(realpath "${2:?}")"); shift 2 ;;
	--mem) mem_mb=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--root) root=$(realpath "${2:?}"); default_module=0; shift 2 ;;
	--init)
		case "${2:-}" in
		systemd|chroot) init=$2 ;;
		*) die "--init wants systemd or chroot, got '${2:-}'" ;;
		esac
		shift 2 ;;
	--keep) keep=1; shift ;;
	--plugin) plugin=${2:?}; shift 2 ;;
	-v|--verbose) verbose=1; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) echo "vm-run.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "vm-run.sh: no command given" >&2; usage; }
case "$timeout_s" in ''|*[!0-9]*) die "--timeout wants seconds, got '$timeout_s'" ;; esac
case "$kernel" in *debug) : "${mem_mb:=1024}" ;; *) : "${mem_mb:=4096}" ;; esac

[ "$root" = / ] || [ -x "$root/lib/systemd/systemd" ] || [ "$init" = chroot ] ||
	die "--root $root has no /lib/systemd/systemd to boot (scripts/make-debian-root.sh)"
[ -d "$root/etc" ] || die "--root $root is not a root folder (no etc/)"

rc=0
vm_kernel "$kernel" || rc=$?
[ "$rc" -ne 2 ] || die "--kernel: no kernel '$kernel' (one of: $VM_KERNELS)"
[ "$rc" -eq 0 ] || die "the $kernel kernel is not set up: run $(vm_kernel_setup_hint "$kernel")"
image=$VMK_IMAGE
kver=$VMK_KVER
# The uncompressed ELF vmlinux boots through QEMU's PVH entry, without
# unpacking under TCG; the debug kernel has only its bzImage (vmlinuz).
vmlinux="$image/boot/vmlinux-$kver"
[ -f "$vmlinux" ] || vmlinux="$image/boot/vmlinuz-$kver"
moddir="$image/lib/modules/$kver"
if [ -z "$kver" ] || [ ! -f "$vmlinux" ] || [ ! -f "$moddir/modules.dep" ]; then
	die "no VM kernel at $vmlinux: run $(vm_kernel_setup_hint "$kernel")"
fi

if [ "$default_module" -eq 1 ]; then
	ko=$(module_tree "$kernel")/kernel/sch_symphony.ko
	[ -f "$ko" ] || die "$ko is not built: run 'make modules-$kernel' (or 'make' for 6.1)"
	modules=("$ko")
fi
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found: run scripts/install-deps.sh"

# The initramfs: busybox, /init and the modules that reach the 9p share
# (none where the kernel has them built in), rebuilt when the init script
# or the kernel changes.
initrd_modules="virtio_pci 9pnet_virtio 9p overlay"
stamp=$(cat "$here/vm-init.sh" /bin/busybox "$moddir/modules.dep" | md5sum | cut -c1-12)
initrd="$(symofan_cache)/initramfs-$kver-$stamp.cpio.gz"
if [ ! -f "$initrd" ]; then
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,proc,sys,dev,modules,host}
	: > "$stage/modules/order"
	cp /bin/busybox "$stage/bin/busybox"
	cp "$here/vm-init.sh" "$stage/init"
	chmod 0755 "$stage/init"
	# shellcheck disable=SC2086
	modprobe -d "$image" -S "$kver" -a --show-depends $initrd_modules |
		awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' |
		while read -r ko; do
			cp "$ko" "$stage/modules/"
			basename "$ko" >> "$stage/modules/order"
		done
	# shellcheck disable=SC2086
	[ -s "$stage/modules/order" ] ||
		modprobe -d "$image" -S "$kver" -a --show-depends $initrd_modules >/dev/null ||
		die "cannot resolve the 9p modules in $moddir"
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
fi

rundir=$(mktemp -d /tmp/vm-run.XXXXXX)
chmod 0755 "$rundir"
{
	echo "# generated by vm-run.sh"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root TERM=dumb SYMOFAN_IN_VM=1 SYMOFAN_VM_KERNEL=$kernel"
	[ -z "${CI:-}" ] || echo "export CI=$(printf %q "$CI")"
	[ -z "${SYMOFAN_VM_TESTS:-}" ] ||
		echo "export SYMOFAN_VM_TESTS=$(printf %q "$SYMOFAN_VM_TESTS")"
	[ -z "${SYMOFAN_KMEMLEAK_SCAN:-}" ] ||
		echo "export SYMOFAN_KMEMLEAK_SCAN=$(printf %q "$SYMOFAN_KMEMLEAK_SCAN")"
	for m in "${modules[@]}"; do
		echo "insmod $(printf %q "$m") || { echo 'vm-run: insmod $m failed'; exit 125; }"
	done
	if [ "$root" = / ]; then
		printf 'cd %q || exit 125\n' "$PWD"
	else
		echo 'cd /'
	fi
	printf 'exec'
	printf ' %q' "$@"
	printf '\n'
} > "$rundir/run.sh"

rwlist=$(IFS=,; echo "${rwdirs[*]:-}")
append="console=ttyS0,115200 loglevel=5 panic=-1 oops=panic"
# QEMU's TCG CPU has no invariant-TSC flag, so the guest would mark its
# TSC unstable ("TSCs unsynchronized") and fall back on the HPET and the
# unstable sched_clock() path, which cost every clock read an emulated
# device access or a cmpxchg.  The TCG TSC is derived from the host's and
# shared by all vCPUs: tell the guest so, as on a host with an invariant
# TSC.
append+=" tsc=reliable"
append+=" softlockup_panic=1 hung_task_timeout_secs=60 rdinit=/init"
# The debug kernel's ACPI interpreter, instrumented, runs past its loop
# limit on each PCI routing table under TCG (30 s a device): route the
# interrupts through the BIOS's PIR table instead.
case "$kernel" in *debug) append+=" acpi=noirq" ;; esac
# The debug kernel runs without 5-level paging: an interrupt taken while
# identify_boot_cpu() rebuilds the CPU's feature bits saw LA57 off for a
# moment, and KASAN reported the 5-level direct map's addresses as wild
# (a CI run, at 0.005 s of boot, before any module).
cpu=max
case "$kernel" in *debug) cpu=max,la57=off ;; esac
append+="${SYMOFAN_VM_APPEND:+ $SYMOFAN_VM_APPEND}"
append+=" symofan.run=$rundir symofan.modules=$image symofan.init=$init"
[ -z "$rwlist" ] || append+=" symofan.rw=$rwlist"

qemu=(qemu-system-x86_64 -machine pc -accel tcg,thread=multi -cpu "$cpu"
	-smp "$smp" -m "$mem_mb" -nodefaults -display none -no-reboot
	-kernel "$vmlinux" -initrd "$initrd" -append "$append"
	-serial "file:$rundir/console.log" -serial "file:$rundir/output.log"
	-fsdev "local,id=hostroot,path=$root,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot"
	-fsdev "local,id=run,path=$rundir,security_model=none"
	-device "virtio-9p-pci,fsdev=run,mount_tag=run")
i=0
for d in "${rwdirs[@]}"; do
	qemu+=(-fsdev "local,id=rw$i,path=$d,security_model=none"
		-device "virtio-9p-pci,fsdev=rw$i,mount_tag=rw$i")
	i=$((i + 1))
done
[ -z "$plugin" ] || qemu+=(-plugin "$plugin")

: > "$rundir/console.log"
: > "$rundir/output.log"
start=$(date +%s%N)
timeout --foreground -k 5 "$timeout_s" "${qemu[@]}" </dev/null \
	>"$rundir/qemu.log" 2>&1 &
qpid=$!
trap 'kill "$qpid" 2>/dev/null; echo "vm-run: interrupted" >&2; exit 130' INT TERM
# The tails end when QEMU does; \r comes from the guest's serial line.
tail -n +1 -s 0.1 --pid="$qpid" -F "$rundir/output.log" 2>/dev/null |
	sed -u 's/\r$//' &
tpid=$!
if [ "$verbose" -eq 1 ]; then
	tail -n +1 -s 0.1 --pid="$qpid" -F "$rundir/console.log" 2>/dev/null |
		sed -u 's/\r$//; s/^/[console] /' >&2 &
fi
qrc=0
wait "$qpid" || qrc=$?
wait "$tpid" 2>/dev/null || true
elapsed_ms=$((($(date +%s%N) - start) / 1000000))

# Kernel splats anywhere in the console or the final dmesg fail the run.
splat=$KERNEL_SPLAT_RE
problem=""
if grep -Eq "$splat" "$rundir/console.log" "$rundir/dmesg" 2>/dev/null; then
	problem="kernel splat"
elif [ -s "$rundir/kmemleak" ]; then
	problem="kmemleak: $(grep -c '^unreferenced object' "$rundir/kmemleak") unreferenced objects"
elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	problem="timed out after $timeout_s s"
elif [ ! -s "$rundir/status" ]; then
	problem="VM stopped without a command status (qemu exit $qrc)"
fi

# An int3 trap that memory does not hold (scripts/lib.sh stale_int3_oops)
# is QEMU's, not a kernel defect: exit 123, so a caller may run again what
# did not finish.
fault_rc=125
if [ "$problem" = "kernel splat" ] &&
	stale_int3_oops "$splat" "$rundir/console.log"; then
	problem="the emulator ran patched kernel text stale (an int3 that memory no longer holds: QEMU TCG, not the kernel)"
	fault_rc=123
fi

if [ -n "$problem" ]; then
	set +o pipefail
	{
		echo "vm-run: FAILED: $problem"
		echo "vm-run: kernel console (relevant lines, $rundir/console.log):"
		if [ -s "$rundir/kmemleak" ]; then
			head -n 60 "$rundir/kmemleak" | sed 's/^/  | /'
		elif grep -Eq "$splat" "$rundir/console.log" "$rundir/dmesg" 2>/dev/null; then
			cat "$rundir/console.log" "$rundir/dmesg" 2>/dev/null |
				grep -E -A 25 "$splat" | head -n 80 | sed 's/^/  | /'
		else
			tail -n 30 "$rundir/console.log" | sed 's/^/  | /'
			sed 's/^/  | qemu: /' "$rundir/qemu.log"
		fi
	} >&2
	exit "$fault_rc"
fi

rc=$(cat "$rundir/status")
boot=$(sed -n 's/.*vm-init: booted in \([0-9.]*\) s.*/\1/p' "$rundir/console.log")
echo "vm-run: command exited $rc ($kernel kernel $kver, guest boot ${boot:-?} s, wall $((elapsed_ms / 1000)).$((elapsed_ms % 1000 / 100)) s)" >&2
[ "$keep" -eq 1 ] || rm -rf "$rundir"
exit "$rc"
