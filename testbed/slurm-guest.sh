#!/bin/bash
# Guest side of testbed/slurm (run over ssh in a fabric guest, from the copy
# in <fabric dir>/slurm/):
#   slurm-guest.sh start N [ctld]   munged, slurmd (and slurmctld) of rb-hostN
#   slurm-guest.sh stop             stops them (and any slurmstepd left)
#   slurm-guest.sh status           one line: which daemons run
# Everything it writes is guest-local (/run is the guest's tmpfs) except the
# logs, which go to <fabric dir>/slurm/.  Idempotent: running daemons are kept.
set -euo pipefail
# Only in a testbed guest (PID 1 is guest-init.sh), never on the host.
grep -qa 'guest-init.sh' /proc/1/cmdline 2>/dev/null ||
    { echo "slurm-guest.sh: not in a testbed guest (PID 1 is not guest-init.sh); refusing" >&2; exit 1; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=/dev/null
. "$HERE/guest.conf"
export LD_LIBRARY_PATH=$SLURM_ROOT/usr/lib/x86_64-linux-gnu/slurm-wlm:$SLURM_ROOT/usr/lib/x86_64-linux-gnu
export SLURM_CONF=$SLURM_DIR/slurm.conf
SBIN=$SLURM_ROOT/usr/sbin
MUNGE_DIR=$GUEST_RUN/munge
BB=/run/rdmabench/busybox

# running NAME PIDFILE: the pid file names a live process called NAME.
running() {
    local pid comm=
    pid=$(cat "$2" 2>/dev/null) || return 1
    [ -n "$pid" ] && read -r comm <"/proc/$pid/comm" 2>/dev/null && [ "$comm" = "$1" ]
}

# wait_for SECS TEST...: poll TEST every 0.2 s.
wait_for() {
    local secs=$1 i
    shift
    for ((i = 0; i < secs * 5; i++)); do
        "$@" && return 0
        $BB sleep 0.2
    done
    return 1
}

not_running() { ! running "$@"; }

# stop_daemon NAME PIDFILE
stop_daemon() {
    local pid
    running "$1" "$2" || return 0
    pid=$(cat "$2")
    kill -TERM "$pid" 2>/dev/null || true
    wait_for 20 not_running "$1" "$2" || { kill -KILL "$pid" 2>/dev/null || true; }
    wait_for 5 not_running "$1" "$2"
}

hosts_file() {
    # rb-hostN resolve without DNS (the guests have none): a guest-only bind
    # mount over /etc/hosts (the host's file is not changed).
    grep -q ' /etc/hosts ' /proc/self/mounts && return 0
    {
        cat /etc/hosts
        echo "# testbed/slurm (guest-only)"
        for ((i = 1; i <= HOSTS; i++)); do echo "$LINK_NET.$i rb-host$i"; done
    } >"$GUEST_RUN/hosts"
    $BB mount -o bind "$GUEST_RUN/hosts" /etc/hosts
}

start() {
    local n=$1 ctld=${2:-}
    # (parents: /run, which exists)
    # shellcheck disable=SC2174
    mkdir -m 0755 -p "$GUEST_RUN" /run/munge
    # shellcheck disable=SC2174
    mkdir -m 0700 -p "$MUNGE_DIR" "$GUEST_RUN/ctld" "$GUEST_RUN/slurmd"
    hosts_file
    # slurmd needs a file system on /sys/fs/cgroup (see cgroup.conf).
    grep -q ' /sys/fs/cgroup ' /proc/self/mounts || $BB mount -t tmpfs -o mode=0755,size=1m rb-slurm-cgroup /sys/fs/cgroup
    if ! running munged /run/munge/munged.pid; then
        # munged wants its key owned by it and unreadable by others: a copy in /run.
        (umask 077 && cat "$SLURM_DIR/munge.key" >"$MUNGE_DIR/munge.key")
        "$SBIN/munged" --key-file="$MUNGE_DIR/munge.key" --socket="$MUNGE_SOCKET" \
            --pid-file=/run/munge/munged.pid --log-file="$MUNGE_DIR/munged.log" \
            --seed-file="$MUNGE_DIR/munged.seed" --origin="$LINK_NET.$n" </dev/null ||
            { cat "$MUNGE_DIR/munged.log" >&2; echo "rb-host$n: munged did not start" >&2; exit 1; }
        wait_for 30 test -S "$MUNGE_SOCKET" || { echo "rb-host$n: no munge socket $MUNGE_SOCKET" >&2; exit 1; }
        cp "$MUNGE_DIR/munged.log" "$SLURM_DIR/munged-rb-host$n.log" 2>/dev/null || true
    fi
    if [ -n "$ctld" ] && ! running slurmctld-wlm "$GUEST_RUN/slurmctld.pid"; then
        "$SBIN/slurmctld-wlm" -f "$SLURM_CONF" </dev/null >>"$SLURM_DIR/slurmctld.out" 2>&1 ||
            { echo "rb-host$n: slurmctld did not start (see $SLURM_DIR/slurmctld.log, slurmctld.out)" >&2; exit 1; }
        wait_for 60 running slurmctld-wlm "$GUEST_RUN/slurmctld.pid" ||
            { echo "rb-host$n: slurmctld exited (see $SLURM_DIR/slurmctld.log)" >&2; exit 1; }
    fi
    if ! running slurmd-wlm "$GUEST_RUN/slurmd.pid"; then
        "$SBIN/slurmd-wlm" -f "$SLURM_CONF" -N "rb-host$n" -d "$SBIN/slurmstepd-wlm" \
            </dev/null >>"$SLURM_DIR/slurmd-rb-host$n.out" 2>&1 ||
            { echo "rb-host$n: slurmd did not start (see $SLURM_DIR/slurmd-rb-host$n.log)" >&2; exit 1; }
        wait_for 60 running slurmd-wlm "$GUEST_RUN/slurmd.pid" ||
            { echo "rb-host$n: slurmd exited (see $SLURM_DIR/slurmd-rb-host$n.log)" >&2; exit 1; }
    fi
    echo "rb-host$n: $(status)" >&2
}

stop() {
    local p comm
    stop_daemon slurmd-wlm "$GUEST_RUN/slurmd.pid"
    stop_daemon slurmctld-wlm "$GUEST_RUN/slurmctld.pid"
    # Steps outlive a stopped slurmd; none should be left.
    for p in /proc/[0-9]*; do
        read -r comm <"$p/comm" 2>/dev/null || continue
        [ "$comm" != slurmstepd-wlm ] && [ "$comm" != slurmstepd ] || kill -KILL "${p#/proc/}" 2>/dev/null || true
    done
    stop_daemon munged /run/munge/munged.pid
    ! grep -q ' /etc/hosts ' /proc/self/mounts || $BB umount /etc/hosts
    ! grep -q '^rb-slurm-cgroup /sys/fs/cgroup ' /proc/self/mounts || $BB umount /sys/fs/cgroup
    echo "$(hostname): stopped" >&2
}

status() {
    local s=
    running munged /run/munge/munged.pid && s+="munged " || s+="(no munged) "
    running slurmctld-wlm "$GUEST_RUN/slurmctld.pid" && s+="slurmctld "
    running slurmd-wlm "$GUEST_RUN/slurmd.pid" && s+="slurmd" || s+="(no slurmd)"
    echo "$s"
    [[ $s != *"(no"* ]]
}

case ${1:-} in
    start) shift; start "$@" ;;
    stop) stop ;;
    status) status ;;
    *) echo "usage: slurm-guest.sh start N [ctld] | stop | status" >&2; exit 2 ;;
esac
