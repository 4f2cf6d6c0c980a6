# shellcheck shell=bash
# testbed/softroce-fabric.sh - part of testbed/softroce (sourced by it): the
# fabric subcommand and what only a fabric needs (its size, state dir, bridge
# and taps); the guests are booted and stopped by the pair_* functions of
# softroce-pair.sh.

# fabric: the most guests "fabric up N" boots (memory: RDMABENCH_PAIR_MEM each).
FABRIC_MAX=16

# use_fabric N: point the pair_* functions at the fabric of N guests.
use_fabric() {
    # shellcheck disable=SC2015  # meant: die unless all three hold
    [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge 2 ] && [ "$1" -le "$FABRIC_MAX" ] ||
        die "fabric up: N must be a number of guests from 2 to $FABRIC_MAX, not '$1'"
    # shellcheck disable=SC2034  # read in softroce-pair.sh
    GROUP=fabric
    PAIR_DIR=${RDMABENCH_FABRIC_DIR:-/tmp/rdmabench-fabric}
    # shellcheck disable=SC2034  # read in softroce-pair.sh
    PAIR_MARK=.rdmabench-fabric
    PAIR_HOSTS=()
    local n
    for ((n = 1; n <= $1; n++)); do PAIR_HOSTS+=("$n"); done
}

# fabric_size_from_dir: PAIR_HOSTS from a fabric dir that is up (status, env, down).
fabric_size_from_dir() {
    local n
    n=$(sed -n 's/^HOSTS=//p' "${RDMABENCH_FABRIC_DIR:-/tmp/rdmabench-fabric}/ports" 2>/dev/null || true)
    use_fabric "${n:-2}"
}

# fabric_ifname KIND [N]: this fabric dir's bridge (KIND l: link, i: iWARP
# link) or guest N's tap on it; short (IFNAMSIZ) and unique per fabric dir.
fabric_ifname() {
    local h
    h=$(printf '%s' "$PAIR_DIR" | md5sum | cut -c1-5)
    echo "rb$h$1${2:-}"
}

# fabric_net_down: remove this fabric dir's bridges and taps (none: no-op).
fabric_net_down() {
    local k n
    [ "$(id -u)" = 0 ] || return 0
    for k in l i; do
        for n in "${PAIR_HOSTS[@]}"; do
            ip link del "$(fabric_ifname "$k" "$n")" 2>/dev/null || true
        done
        ip link del "$(fabric_ifname "$k")" 2>/dev/null || true
    done
}

# fabric_net_up KIND: a bridge and a tap per guest (as root; else nothing, and
# the guests join a multicast group instead). Sets FABRIC_NET to bridge|mcast.
fabric_net_up() {
    local k=$1 br n tap
    FABRIC_NET=mcast
    [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] || return 0
    br=$(fabric_ifname "$k")
    ip link del "$br" 2>/dev/null || true
    ip link add "$br" type bridge 2>/dev/null || return 0
    [ ! -w "/proc/sys/net/ipv6/conf/$br/disable_ipv6" ] || echo 1 >"/proc/sys/net/ipv6/conf/$br/disable_ipv6"
    for n in "${PAIR_HOSTS[@]}"; do
        tap=$(fabric_ifname "$k" "$n")
        ip link del "$tap" 2>/dev/null || true
        ip tuntap add "$tap" mode tap || die "ip tuntap add $tap mode tap failed"
        [ ! -w "/proc/sys/net/ipv6/conf/$tap/disable_ipv6" ] || echo 1 >"/proc/sys/net/ipv6/conf/$tap/disable_ipv6"
        ip link set "$tap" master "$br" up || die "cannot add $tap to the bridge $br"
    done
    ip link set "$br" up || die "cannot bring the bridge $br up"
    # shellcheck disable=SC2034  # read in softroce-pair.sh (pair_up, link_opt)
    FABRIC_NET=bridge
}

fabric_check_dir() {
    local d=${RDMABENCH_FABRIC_DIR:-/tmp/rdmabench-fabric}
    [[ $d =~ ^/[A-Za-z0-9_./-]+$ ]] ||
        die "RDMABENCH_FABRIC_DIR must be an absolute path of [A-Za-z0-9_./-], not '$d'"
    RDMABENCH_FABRIC_DIR=${d%/}
}

# fabric up [N] [--transport T] [--slurm] | status | down | env
cmd_fabric() {
    local n=4 slurm=0
    fabric_check_dir
    case ${1:-} in
        up)
            shift
            while [ $# -gt 0 ]; do
                case $1 in
                    --transport) set_transport "${2:-}"; shift ;;
                    --transport=*) set_transport "${1#*=}" ;;
                    --slurm) slurm=1 ;;
                    [0-9]*) n=$1 ;;
                    *) usage >&2; exit 2 ;;
                esac
                shift
            done
            use_fabric "$n"
            pair_up
            # Slurm inside the guests (testbed/slurm up: munged and slurmd on each, slurmctld
            # on rb-host1); stdout stays the ssh config path alone.
            [ "$slurm" = 0 ] || "$TESTBED_DIR/slurm" up >&2 || die "fabric up --slurm: testbed/slurm up failed"
            ;;
        down | status | env)
            fabric_size_from_dir
            case $1 in
                down) pair_down ;;
                status) pair_status ;;
                env) pair_env ;;
            esac
            ;;
        *) usage >&2; exit 2 ;;
    esac
}
