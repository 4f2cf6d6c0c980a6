#!/bin/sh
# /init of the rdmabench testbed initramfs (runs under busybox sh as PID 1).
#
# - insmods the modules listed (in dependency order) in /modules.load: virtio
#   PCI + 9p for the root, and also veth, virtio_net and rdma_rxe, because
#   loading them from RAM here is much faster than modprobe over 9p later;
# - mounts the host's root file system (qemu -virtfs ... mount_tag=hostroot)
#   on /newroot, moves /proc /sys /dev into it and mounts the guest-only
#   file systems (/run tmpfs, /dev/pts, /dev/shm);
# - switch_root's to "$state/guest-init.sh" (bash, from the host).
# Any failure powers the guest off (qemu runs with -no-reboot, so a panic or a
# reboot ends qemu too).  Executing from 9p is slow under TCG (~0.5 s per
# exec), so the generic work is done here, from RAM.
export PATH=/bin

fail() {
    echo "rdmabench-initramfs: FATAL: $*"
    echo "rdmabench-initramfs: powering off"
    sync
    poweroff -f
    sleep 5
    echo o >/proc/sysrq-trigger
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The cpio has no /dev/console (it is built without root); use devtmpfs's.
exec </dev/console >/dev/console 2>&1

for m in $(cat /modules.load); do
    insmod "/modules/$m.ko" || fail "insmod $m failed"
done

# rdmabench.state=DIR on the kernel command line: the per-guest state dir
# (a host path, seen through 9p) that holds guest-init.sh and its config.
state=
p9cache=mmap
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        rdmabench.state=*) state=${arg#rdmabench.state=} ;;
        rdmabench.9pcache=*) p9cache=${arg#rdmabench.9pcache=} ;;
    esac
done
[ -n "$state" ] || fail "no rdmabench.state= on the kernel command line"

mkdir -p /newroot
# The virtio-9p channel registers when the PCI device is probed; retry a bit.
i=0
until mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000,cache=$p9cache,access=client" \
        hostroot /newroot 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -lt 100 ] || fail "cannot mount the host root over virtio-9p (mount_tag hostroot)"
    sleep 0.1
done
[ -f "/newroot$state/guest-init.sh" ] || fail "/newroot$state/guest-init.sh not found"
[ -x /newroot/bin/bash ] || fail "/bin/bash missing on the host root"

# /proc /sys /dev of the 9p export are the *host's*; cover them with ours.
for d in proc sys dev; do
    mount --move "/$d" "/newroot/$d" || fail "mount --move /$d"
done
# Guest-only file systems: never write the host's /run.
mount -t tmpfs -o mode=0755,size=256m tmpfs /newroot/run || fail "mount /run"
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /newroot/dev/pts || fail "mount /dev/pts"
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm || fail "mount /dev/shm"
ln -s /proc/self/fd /newroot/dev/fd
ln -s /proc/self/fd/0 /newroot/dev/stdin
ln -s /proc/self/fd/1 /newroot/dev/stdout
ln -s /proc/self/fd/2 /newroot/dev/stderr
# A busybox on tmpfs for guest-init.sh's small helpers (exec'ing from 9p is slow).
mkdir -p /newroot/run/rdmabench
cp /bin/busybox /newroot/run/rdmabench/busybox

# shellcheck disable=SC2093 # (only reached if exec fails)
exec switch_root /newroot /bin/bash "$state/guest-init.sh" "$state"
fail "switch_root failed"
