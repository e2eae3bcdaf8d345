#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# vm-init.sh - /init of the runner's initramfs.  Loads the 9p modules,
# mounts the host root read-only under an overlay that keeps writes in
# guest memory, mounts the run folder (and extra writable folders) from the host,
# runs the command the host wrote there and records its exit status (and,
# on a kernel with kmemleak, what it found).
# Output of the command goes to the second serial port, which the host
# streams; kernel messages go to the first.  With symofan.init=systemd
# (vm-run.sh --init systemd, a Debian root) the root's systemd boots
# instead and runs the command as a unit, which records its status and
# powers off.

/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

fail() {
	echo "vm-init: $*" > /dev/ttyS1
	echo "vm-init: $*" > /dev/console
	poweroff -f
}

for arg in $(cat /proc/cmdline); do
	case "$arg" in
	symofan.run=*) rundir=${arg#symofan.run=} ;;
	symofan.rw=*) rwdirs=${arg#symofan.rw=} ;;
	symofan.modules=*) moddir=${arg#symofan.modules=} ;;
	symofan.init=*) init=${arg#symofan.init=} ;;
	esac
done
[ -n "$rundir" ] || fail "no symofan.run= on the kernel command line"

while read -r mod; do
	insmod "/modules/$mod" || fail "insmod $mod failed"
done < /modules/order

r=/host
mkdir -p /lower /rw $r
# The host root does not change under the VM, except for the shared
# folders, which are mounted without cache below.  An overlay with a tmpfs
# upper layer makes it writable in the guest; writes never reach the host.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 \
	hostroot /lower || fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay $r || fail "cannot mount the overlay root"

mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -t devtmpfs devtmpfs $r/dev
ln -sf /proc/self/fd $r/dev/fd
ln -sf /proc/self/fd/0 $r/dev/stdin
ln -sf /proc/self/fd/1 $r/dev/stdout
ln -sf /proc/self/fd/2 $r/dev/stderr
mkdir -p $r/dev/pts $r/dev/shm 2>/dev/null
mount -t devpts devpts $r/dev/pts
mount -t tmpfs tmpfs $r/dev/shm
# The host's runtime state (its netns names, pid files) must not show.
mount -t tmpfs -o mode=0755 tmpfs $r/run || fail "cannot mount tmpfs on /run"

mount -t bpf bpf $r/sys/fs/bpf
mount -t debugfs debugfs $r/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $r/sys/kernel/tracing 2>/dev/null

# Writable shares: tag "run" is the run folder, "rwN" the extra folders,
# each mounted at its own host path.
mkdir -p $r$rundir
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=512000 \
	run $r$rundir || fail "cannot mount the run folder $rundir"
i=0
for d in $(echo "$rwdirs" | tr ',' ' '); do
	mkdir -p $r$d
	mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=512000 \
		rw$i $r$d || fail "cannot mount writable folder $d"
	i=$((i + 1))
done

hostname symofan-vm

# A Debian root boots its own systemd, with its own /lib/modules; the
# command is a unit of it (its output on the second serial port), after
# which the machine powers off at once.
if [ "$init" = systemd ]; then
	unit=$r/etc/systemd/system/symofan-vm-run.service
	cat > "$unit" <<EOM
[Unit]
Description=the command of scripts/vm-run.sh
After=basic.target

[Service]
Type=oneshot
StandardInput=null
ExecStart=/bin/sh -c '/bin/bash $rundir/run.sh > /dev/ttyS1 2>&1; echo \$\$? > $rundir/status; dmesg > $rundir/dmesg; sync; umount $rundir'
ExecStopPost=/bin/systemctl poweroff --force --force
EOM
	mkdir -p $r/etc/systemd/system/multi-user.target.wants
	ln -sf ../symofan-vm-run.service \
		$r/etc/systemd/system/multi-user.target.wants/symofan-vm-run.service
	echo "vm-init: booted in $(cut -d' ' -f1 /proc/uptime) s, starting systemd" > /dev/console
	exec switch_root $r /lib/systemd/systemd
fi

# request_module() runs this wrapper from the initramfs root: it runs the
# host's modprobe on the VM kernel's modules, unpacked in the host's cache.
cat > /sbin/symofan-modprobe <<EOM
#!/bin/sh
exec chroot $r /sbin/modprobe -d $moddir "\$@"
EOM
chmod 0755 /sbin/symofan-modprobe
echo /sbin/symofan-modprobe > /proc/sys/kernel/modprobe

echo "vm-init: booted in $(cut -d' ' -f1 /proc/uptime) s" > /dev/console

chroot $r /bin/sh -c "ip link set lo up; cd / && exec /bin/bash $rundir/run.sh" \
	< /dev/null > /dev/ttyS1 2>&1
rc=$?
# A kernel with kmemleak (the debug kernel): objects leaked during the run,
# once they are old enough (5 s) for a scan to report them.
leaks=$r/sys/kernel/debug/kmemleak
if [ -w "$leaks" ]; then
	sleep 6
	echo scan > "$leaks"
	echo scan > "$leaks"
	cat "$leaks" > $r$rundir/kmemleak
fi
echo "$rc" > $r$rundir/status
dmesg > $r$rundir/dmesg 2>/dev/null
sync
umount $r$rundir 2>/dev/null
poweroff -f
