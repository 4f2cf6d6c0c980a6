# shellcheck shell=bash
# Helpers shared by testbed/softroce (host side) and testbed/guest-init.sh
# (inside a guest; there it is read from the per-guest state dir copy).

# rb_ipv4_mapped_gid A.B.C.D: the RoCE v2 GID rxe gives an IPv4 address,
# formatted as in /sys/class/infiniband/DEV/ports/N/gids/I.
rb_ipv4_mapped_gid() {
    local IFS=.
    # shellcheck disable=SC2086
    set -- $1
    printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
}

# rb_read FILE: first line of FILE, empty if unreadable (a builtin: cheap in
# a TCG guest, where each exec is slow).
rb_read() {
    local line=
    { read -r line <"$1"; } 2>/dev/null || true
    printf '%s' "$line"
}

# rb_wait_roce_gid DEV ADDR TIMEOUT_SEC: wait until port 1 of DEV is ACTIVE
# and has the RoCE v2 GID of ADDR; print that GID's index.  Both show up
# asynchronously after "rdma link add".  Returns 1 on timeout.
# RB_SLEEP: the sleep command to use (the guest uses busybox on tmpfs).
rb_wait_roce_gid() {
    local dev=$1 addr=$2 secs=$3 want port g n i
    want=$(rb_ipv4_mapped_gid "$addr")
    port=/sys/class/infiniband/$dev/ports/1
    for ((i = 0; i < secs * 10; i++)); do
        if [[ $(rb_read "$port/state") == *ACTIVE* ]]; then
            for g in "$port"/gids/*; do
                n=${g##*/}
                if [ "$(rb_read "$g")" = "$want" ] &&
                    [ "$(rb_read "$port/gid_attrs/types/$n")" = "RoCE v2" ]; then
                    echo "$n"
                    return 0
                fi
            done
        fi
        ${RB_SLEEP:-sleep} 0.1
    done
    return 1
}

# rb_wait_port_active DEV TIMEOUT_SEC: wait until port 1 of DEV is ACTIVE
# (siw: follows its netdev; iWARP has no RoCE GID to wait for).  Returns 1 on
# timeout.
rb_wait_port_active() {
    local dev=$1 secs=$2 i
    for ((i = 0; i < secs * 10; i++)); do
        [[ $(rb_read "/sys/class/infiniband/$dev/ports/1/state") == *ACTIVE* ]] && return 0
        ${RB_SLEEP:-sleep} 0.1
    done
    return 1
}
