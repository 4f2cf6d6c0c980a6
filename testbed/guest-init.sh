#!/bin/bash
# PID 1 of an rdmabench testbed guest, after the initramfs (initramfs-init.sh)
# switch_root'ed into the host's root file system (mounted over virtio-9p) and
# loaded the modules (virtio, 9p, veth, virtio_net, rdma_rxe).  Called as
#   guest-init.sh STATE_DIR
# STATE_DIR is a host directory (shared through 9p) holding guest.conf and
# lib.sh, written by testbed/softroce; results go back through it:
#   booted      rxe is up (run mode); the RDMABENCH_TEST_* assignments
#   ready       same, in pair mode, once sshd has started
#   exitcode    exit status of CMD (run mode)
#   guest-error one-line reason when the setup failed
# Its own messages go to the console (ttyS0 -> STATE_DIR/console.log).
#
# Rules: the host's files are live under /, so this script writes nothing on
# the host outside STATE_DIR (/run is a guest tmpfs; nothing under /etc or
# /lib); every step has a timeout; the guest powers off at the end, whatever
# happens.  Each exec from 9p costs ~0.5 s under TCG, hence bash builtins and
# the busybox copy on tmpfs ($BB) wherever possible.

set -u
STATE=${1:?usage: guest-init.sh STATE_DIR}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
BB=/run/rdmabench/busybox
RB_SLEEP="$BB sleep"

uptime_s() {
    local up _
    read -r up _ </proc/uptime
    echo "$up"
}
log() { echo "[$(uptime_s)] rdmabench-guest: $*"; }

power_off() {
    $BB sync
    # Not the host's systemd poweroff: PID 1 is this script.
    $BB poweroff -f
    $BB sleep 2
    echo o >/proc/sysrq-trigger
    $BB sleep 10
}

fail() {
    log "FATAL: $*"
    echo "$*" >"$STATE/guest-error"
    power_off
    exit 1
}

# t SECONDS CMD...: run one setup step with a timeout.  (CMD is resolved
# here: busybox would run its own applet of the same name.)
t() {
    local secs=$1 cmd
    shift
    cmd=$(type -P "$1") || { log "$1: command not found"; return 127; }
    shift
    $BB timeout -k 5 "$secs" "$cmd" "$@"
}

trap 'fail "guest-init.sh: unexpected SIGINT"' INT
# shellcheck source=/dev/null
. "$STATE/guest.conf" || fail "cannot read $STATE/guest.conf"
# shellcheck source=testbed/lib.sh
. "$STATE/lib.sh" || fail "cannot read $STATE/lib.sh"
: "${RB_MODE:?}" "${RB_KVER:?}" "${RB_MODBASE:?}" "${RB_DEVICE:?}" "${RB_ADDR:?}"
STEP=${RB_STEP_TIMEOUT:-60}
if [ -n "${RB_TRACE:-}" ]; then
    PS4='+[$(uptime_s)] '
    set -x
fi

log "up ($RB_KVER), mode $RB_MODE, state $STATE"

# Kernel modules of the *guest* kernel live in the cache, not in the host's
# /lib/modules.  If the host has a /lib/modules directory we cover it with a
# tmpfs (guest-only) and bind the cached tree there; otherwise (no mount point,
# and we must not create one on the host) point modprobe at the cache with -d,
# both for the kernel's auto-loading (kernel.modprobe) and for commands run in
# the guest (MODPROBE_OPTIONS, also set for ssh sessions).
if [ -d /lib/modules ] && [ ! -L /lib/modules ]; then
    $BB mount -t tmpfs -o mode=0755,size=1m tmpfs /lib/modules || fail "mount tmpfs /lib/modules"
    $BB mkdir "/lib/modules/$RB_KVER"
    $BB mount -o bind "$RB_MODBASE/lib/modules/$RB_KVER" "/lib/modules/$RB_KVER" ||
        fail "bind-mount the guest modules"
else
    export MODPROBE_OPTIONS="-d $RB_MODBASE"
    printf '#!/bin/sh\necho "rdmabench-guest: kernel loads module: $*" >/dev/console\nexec /sbin/modprobe -d %q "$@"\n' \
        "$RB_MODBASE" >/run/rdmabench/modprobe
    $BB chmod 755 /run/rdmabench/modprobe
    echo /run/rdmabench/modprobe >/proc/sys/kernel/modprobe
fi

echo "$RB_HOSTNAME" >/proc/sys/kernel/hostname
ulimit -l unlimited || fail "ulimit -l unlimited"
ulimit -n 65536 || true

# --- network -----------------------------------------------------------------
# find_netdev MAC: the interface with that MAC (no udev here: eth0, eth1...).
find_netdev() {
    local d a
    for d in /sys/class/net/*; do
        read -r a <"$d/address" || continue
        if [ "$a" = "$1" ]; then
            echo "${d##*/}"
            return 0
        fi
    done
    return 1
}

# Which devices: RB_TRANSPORT "" (as before the option existed) or roce: rxe
# only; iwarp: siw only; both: rxe on the link as always, siw on a second
# link of its own (run: a second veth pair; pair: a second NIC and link), so
# that rdma_cm, which picks a device by address, finds each by its address.
RB_TRANSPORT=${RB_TRANSPORT:-}
WANT_ROCE=1 WANT_IWARP=
case "$RB_TRANSPORT" in
"" | roce) ;;
iwarp) WANT_ROCE='' WANT_IWARP=1 ;;
both) WANT_IWARP=1 ;;
*) fail "unknown RB_TRANSPORT $RB_TRANSPORT" ;;
esac

# One "ip -batch" (a single exec) for all of the link setup.
case "$RB_MODE" in
run)
    # rxe on one end of a veth pair; client and server share the rxe device
    # (loopback), which works, unlike two rxe devices in two namespaces.
    NETDEV=rbveth0
    IPCMDS="link set lo up
link add rbveth0 type veth peer name rbveth1
link set rbveth1 up
link set rbveth0 up
addr add $RB_ADDR/${RB_PREFIX:-24} dev rbveth0"
    IWARP_NETDEV=rbveth0
    if [ "$RB_TRANSPORT" = both ]; then
        IWARP_NETDEV=rbveth2
        IPCMDS+="
link add rbveth2 type veth peer name rbveth3
link set rbveth3 up
link set rbveth2 up
addr add $RB_IWARP_ADDR/${RB_PREFIX:-24} dev rbveth2"
    fi
    ;;
pair)
    NETDEV=$(find_netdev "$RB_LINK_MAC") || fail "no NIC with MAC $RB_LINK_MAC (link)"
    MGMT=$(find_netdev "$RB_MGMT_MAC") || fail "no NIC with MAC $RB_MGMT_MAC (ssh)"
    IPCMDS="link set lo up
link set $MGMT up
addr add $RB_MGMT_ADDR/24 dev $MGMT
link set $NETDEV up
addr add $RB_ADDR/${RB_PREFIX:-24} dev $NETDEV"
    IWARP_NETDEV=$NETDEV
    if [ "$RB_TRANSPORT" = both ]; then
        # A NIC of its own on a second link (see testbed/softroce pair_start_guest).
        IWARP_NETDEV=$(find_netdev "$RB_IWARP_MAC") || fail "no NIC with MAC $RB_IWARP_MAC (iWARP link)"
        IPCMDS+="
link set $IWARP_NETDEV up
addr add $RB_IWARP_ADDR/${RB_PREFIX:-24} dev $IWARP_NETDEV"
    fi
    ;;
*) fail "unknown RB_MODE $RB_MODE" ;;
esac
echo "$IPCMDS" >/run/rdmabench/ip.batch
t "$STEP" ip -batch /run/rdmabench/ip.batch || fail "network setup failed: ip -batch: ${IPCMDS//$'\n'/; }"

ENV_LINES=
# --- rxe -----------------------------------------------------------------------
if [ -n "$WANT_ROCE" ]; then
    [ -d /sys/module/rdma_rxe ] || t "$STEP" modprobe rdma_rxe || fail "modprobe rdma_rxe"
    t "$STEP" rdma link add "$RB_DEVICE" type rxe netdev "$NETDEV" ||
        fail "rdma link add $RB_DEVICE type rxe netdev $NETDEV"
    GID_INDEX=$(rb_wait_roce_gid "$RB_DEVICE" "$RB_ADDR" "$STEP") ||
        fail "no ACTIVE port with the RoCE v2 GID of $RB_ADDR on $RB_DEVICE after ${STEP}s"
    log "$RB_DEVICE on $NETDEV ($RB_ADDR) ACTIVE, RoCE v2 GID index $GID_INDEX"
    ENV_LINES="export RDMABENCH_TEST_DEVICE=$RB_DEVICE
export RDMABENCH_TEST_ADDR=$RB_ADDR
export RDMABENCH_TEST_GID_INDEX=$GID_INDEX"
    [ -z "$RB_TRANSPORT" ] || ENV_LINES+="
export RDMABENCH_TEST_ROCE_DEVICE=$RB_DEVICE
export RDMABENCH_TEST_ROCE_ADDR=$RB_ADDR
export RDMABENCH_TEST_ROCE_GID_INDEX=$GID_INDEX"
fi

# --- siw -----------------------------------------------------------------------
# siw.ko (built by testbed/softroce from Debian's kernel source) and its
# dependencies were insmod'ed by the initramfs.
if [ -n "$WANT_IWARP" ]; then
    [ -d /sys/module/siw ] || fail "the siw module is not loaded (initramfs)"
    t "$STEP" rdma link add "$RB_IWARP_DEVICE" type siw netdev "$IWARP_NETDEV" ||
        fail "rdma link add $RB_IWARP_DEVICE type siw netdev $IWARP_NETDEV"
    rb_wait_port_active "$RB_IWARP_DEVICE" "$STEP" ||
        fail "port 1 of $RB_IWARP_DEVICE (siw on $IWARP_NETDEV) not ACTIVE after ${STEP}s"
    log "$RB_IWARP_DEVICE (siw) on $IWARP_NETDEV ($RB_IWARP_ADDR) ACTIVE"
    IWARP_LINES="export RDMABENCH_TEST_IWARP_DEVICE=$RB_IWARP_DEVICE
export RDMABENCH_TEST_IWARP_ADDR=$RB_IWARP_ADDR
export RDMABENCH_TEST_IWARP_GID_INDEX=0"
    if [ -z "$WANT_ROCE" ]; then
        # iWARP only: the usual variables name siw0.
        RB_DEVICE=$RB_IWARP_DEVICE RB_ADDR=$RB_IWARP_ADDR GID_INDEX=0
        ENV_LINES="export RDMABENCH_TEST_DEVICE=$RB_DEVICE
export RDMABENCH_TEST_ADDR=$RB_ADDR
export RDMABENCH_TEST_GID_INDEX=0"
    fi
    ENV_LINES+="
$IWARP_LINES"
fi

[ -z "$RB_TRANSPORT" ] || ENV_LINES+="
export RDMABENCH_TEST_TRANSPORT=$RB_TRANSPORT"
echo "$ENV_LINES" >/run/rdmabench-testbed.env
. /run/rdmabench-testbed.env

# --- run mode: CMD, then power off ---------------------------------------------
if [ "$RB_MODE" = run ]; then
    $BB cp /run/rdmabench-testbed.env "$STATE/booted"
    log "running the command"
    (
        # The caller's environment (exported variables), then ours on top.
        set +x
        # shellcheck source=/dev/null
        . "$STATE/env.sh"
        . /run/rdmabench-testbed.env
        [ -z "${MODPROBE_OPTIONS:-}" ] || export MODPROBE_OPTIONS
        cd "$RB_CWD" || exit 125
        exec "${RB_CMD[@]}"
    ) </dev/null >"$STATE/stdout" 2>"$STATE/stderr"
    rc=$?
    echo "$rc" >"$STATE/exitcode.tmp" && $BB mv "$STATE/exitcode.tmp" "$STATE/exitcode"
    log "command exited with $rc, powering off"
    power_off
    exit 0
fi

# --- pair mode: sshd, then wait for SIGTERM ------------------------------------
$BB mkdir -p -m 0755 /run/sshd
# ssh sessions get these (sshd does not pass its own environment on); PATH is
# the one of the "pair up" caller.
SETENV="SetEnv \"PATH=${RB_PATH:-$PATH}\""
while IFS= read -r line; do
    SETENV+=" ${line#export }"
done </run/rdmabench-testbed.env
[ -z "${MODPROBE_OPTIONS:-}" ] || SETENV+=" \"MODPROBE_OPTIONS=$MODPROBE_OPTIONS\""
cat >/run/rdmabench/sshd_config <<EOF
# generated by testbed/guest-init.sh (guest-only, in /run)
Port 22
ListenAddress 0.0.0.0
HostKey $RB_SSH_DIR/ssh_host_ed25519_key
AuthorizedKeysFile $RB_SSH_DIR/authorized_keys
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PidFile /run/rdmabench/sshd.pid
UseDNS no
PrintMotd no
PrintLastLog no
Subsystem sftp /usr/lib/openssh/sftp-server
$SETENV
EOF
# bash sources ~/.bashrc for commands run by sshd.  The host's may be slow to
# run (e.g. "pyenv init": ~20 s of execs over 9p under TCG, per ssh command),
# so the guests see a small one instead: a guest-only bind mount, the host's
# file is untouched.
if [ -f "$HOME/.bashrc" ]; then
    cat >/run/rdmabench/bashrc <<'RCEOF'
# rdmabench testbed guest: stands in for the host's ~/.bashrc (see guest-init.sh)
[ -r /run/rdmabench-testbed.env ] && . /run/rdmabench-testbed.env
RCEOF
    $BB mount -o bind /run/rdmabench/bashrc "$HOME/.bashrc" || fail "bind-mount over $HOME/.bashrc"
fi
# sshd inherits "ulimit -l unlimited" from here (UsePAM no: nothing resets it).
# -r: no re-exec of sshd per connection (an exec from 9p is slow here).
t "$STEP" /usr/sbin/sshd -r -f /run/rdmabench/sshd_config -E "$STATE/sshd.log" ||
    fail "sshd did not start (see $STATE/sshd.log)"

$BB cp /run/rdmabench-testbed.env "$STATE/ready.tmp" && $BB mv "$STATE/ready.tmp" "$STATE/ready"
log "ready; waiting for SIGTERM (testbed/softroce pair down)"

trap 'log "SIGTERM: powering off"; power_off; exit 0' TERM
# Sleep in the background so the trap runs at once; wait also reaps orphans.
while :; do
    $BB sleep 3600 &
    wait $!
done
