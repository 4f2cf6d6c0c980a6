# shellcheck shell=bash
# testbed/softroce-pair.sh - part of testbed/softroce (sourced by it): the pair
# subcommand and the implementation it shares with fabric (pair_up, pair_down,
# pair_status, pair_env and their helpers); what only a fabric needs is in
# softroce-fabric.sh.

# ---------------------------------------------------------------------------
# pair and fabric: guests rb-host1..N, each with sshd and rxe0 on a link they
# share. The pair (N = 2) joins its two guests with a point-to-point qemu
# socket; a fabric (N >= 2) puts its guests on one L2 segment: as root, a
# bridge on this host with one tap device per guest (a learning switch; they
# are removed again by "fabric down"); otherwise a qemu socket netdev on a
# multicast group over the host's loopback (a hub, no root needed, but it
# drops frames under load: RC retransmits after its timeout, so bandwidth
# figures suffer). The pair_* functions below serve both, through GROUP
# (pair|fabric), PAIR_DIR and PAIR_HOSTS (use_fabric, in softroce-fabric.sh,
# points them at a fabric).
# ---------------------------------------------------------------------------
GROUP=pair
PAIR_DIR=${RDMABENCH_PAIR_DIR:-/tmp/rdmabench-pair}
PAIR_MARK=.rdmabench-pair
PAIR_HOSTS=(1 2)
MCAST_GROUP=239.255.82.66  # administratively scoped; over lo only

# mac KIND N: a guest NIC's MAC (KIND: 0 link, 1 ssh, 2 iWARP link).
mac() { printf '52:54:00:72:%02x:%02x' $((0x62 + $1)) "$2"; }

pair_check_dir() {
    [[ $PAIR_DIR =~ ^/[A-Za-z0-9_./-]+$ ]] ||
        die "RDMABENCH_PAIR_DIR must be an absolute path of [A-Za-z0-9_./-], not '$PAIR_DIR'"
    PAIR_DIR=${PAIR_DIR%/}
}

# Serialises up/down of one pair dir.
pair_lock() {
    mkdir -p "$(dirname "$PAIR_DIR")"
    exec {PAIR_LOCKFD}>"$PAIR_DIR.lock"
    flock -w 900 "$PAIR_LOCKFD" || die "timed out waiting for $PAIR_DIR.lock"
}

pair_pid() { cat "$PAIR_DIR/host$1/qemu.pid" 2>/dev/null || true; }
pair_alive() { alive "$(pair_pid "$1")" "$PAIR_DIR/host$1"; }
pair_any_alive() {
    local n
    for n in "${PAIR_HOSTS[@]}"; do pair_alive "$n" && return 0; done
    return 1
}

# free_port [EXCLUDE...]: a port free for TCP and UDP on this host (qemu binds
# it later; a race with another program shows up as a qemu start failure).
free_port() {
    local p i
    for ((i = 0; i < 500; i++)); do
        p=$((20000 + RANDOM % 40000))
        [[ " $* " != *" $p "* ]] || continue
        [ -z "$(ss -Htuan "( sport = :$p )" 2>/dev/null)" ] && { echo "$p"; return 0; }
    done
    return 1
}

# link_opt PORT N KIND: guest N's end of a link: the pair: host 1 listens,
# host 2 connects; a fabric: its tap on the bridge, or the multicast group on
# PORT.
link_opt() {
    if [ "$GROUP" = fabric ] && [ "$FABRIC_NET" = bridge ]; then
        echo "tap,ifname=$(fabric_ifname "$3" "$2"),script=no,downscript=no"
    elif [ "$GROUP" = fabric ]; then
        echo "socket,mcast=$MCAST_GROUP:$1,localaddr=127.0.0.1"
    elif [ "$2" = 1 ]; then
        echo "socket,listen=127.0.0.1:$1"
    else
        echo "socket,connect=127.0.0.1:$1"
    fi
}

# pair_start_guest N: boot rb-hostN in the background (own session, so it
# outlives this command), pid in hostN/qemu.pid.
pair_start_guest() {
    local n=$1 state=$PAIR_DIR/host$1
    qemu_args "$state" 1 "${RDMABENCH_PAIR_MEM:-1024}"
    # --transport both: siw gets a link of its own (a VLAN or macvlan on the
    # rxe link would not do: rxe also takes the upper devices' addresses as
    # GIDs, and rdma_cm would route the siw address through rxe).
    if [ "$TRANSPORT" = both ]; then
        QEMU_ARGS+=(-netdev "$(link_opt "$IWLINK_PORT" "$n" i),id=iwlink"
            -device "virtio-net-pci,netdev=iwlink,mac=$(mac 2 "$n")")
    fi
    # (The lock fd must not leak into qemu, or "pair down" would wait on it.)
    setsid qemu-system-x86_64 "${QEMU_ARGS[@]}" \
        -netdev "$(link_opt "$LINK_PORT" "$n" l),id=link" \
        -device "virtio-net-pci,netdev=link,mac=$(mac 0 "$n")" \
        -netdev "user,id=mgmt,restrict=on,net=198.19.$n.0/24,host=198.19.$n.2,dhcpstart=198.19.$n.15,hostfwd=tcp:127.0.0.1:${SSH_PORT[$n]}-198.19.$n.15:22" \
        -device "virtio-net-pci,netdev=mgmt,mac=$(mac 1 "$n")" \
        </dev/null >"$state/qemu.log" 2>&1 {PAIR_LOCKFD}>&- &
    echo $! >"$state/qemu.pid"
    # Until setsid has exec'd qemu, the pid's command line is not qemu's yet.
    local i
    for ((i = 0; i < 100; i++)); do
        pair_alive "$n" && break
        sleep 0.05
    done
}

# pair_teardown: power every guest off (ssh, then signals); no qemu is left.
pair_teardown() {
    local n pid i cfg=$PAIR_DIR/ssh_config asked=()
    for n in "${PAIR_HOSTS[@]}"; do
        if pair_alive "$n" && [ -f "$cfg" ] && [ -f "$PAIR_DIR/host$n/ready" ]; then
            # guest-init.sh (PID 1) powers off on SIGTERM.
            timeout 20 ssh -F "$cfg" "rb-host$n" 'kill -TERM 1' </dev/null >/dev/null 2>&1 {PAIR_LOCKFD}>&- &
            asked+=("$n")
        fi
    done
    for ((i = 0; i < 200 && ${#asked[@]} > 0; i++)); do
        pair_any_alive || break
        sleep 0.1
    done
    for n in "${PAIR_HOSTS[@]}"; do
        pid=$(pair_pid "$n")
        if alive "$pid" "$PAIR_DIR/host$n"; then
            [[ " ${asked[*]} " != *" $n "* ]] || msg "rb-host$n did not power off; killing qemu $pid"
            kill_qemu "$pid" "$PAIR_DIR/host$n"
        fi
    done
    wait 2>/dev/null || true
    ! pair_any_alive || die "a qemu of $PAIR_DIR is still running"
    [ "$GROUP" != fabric ] || fabric_net_down
}

write_pair_ssh_config() {
    local n
    {
        echo "# rdmabench testbed $GROUP, generated by testbed/softroce $GROUP up"
        for n in "${PAIR_HOSTS[@]}"; do
            cat <<EOF
Host rb-host$n
    HostName 127.0.0.1
    Port ${SSH_PORT[$n]}
    HostKeyAlias rb-host$n
EOF
        done
        cat <<EOF
Host ${PAIR_HOSTS[*]/#/rb-host}
    User root
    IdentityFile $PAIR_DIR/ssh/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $PAIR_DIR/ssh/known_hosts
    StrictHostKeyChecking no
    BatchMode yes
    ConnectTimeout 10
    ServerAliveInterval 15
    LogLevel ERROR
EOF
    } >"$PAIR_DIR/ssh_config.tmp"
    mv "$PAIR_DIR/ssh_config.tmp" "$PAIR_DIR/ssh_config"
}

pair_up() {
    local n state t0 deadline i bad='' dirvar=RDMABENCH_PAIR_DIR all=${#PAIR_HOSTS[@]}
    local -A SSH_PORT=()
    [ "$GROUP" = pair ] || dirvar=RDMABENCH_FABRIC_DIR
    pair_lock
    if pair_any_alive || { [ "$GROUP" = fabric ] && [ -f "$PAIR_DIR/ports" ] && (
        fabric_size_from_dir
        pair_any_alive
    ); }; then
        die "a $GROUP is already up in $PAIR_DIR (ssh config: $PAIR_DIR/ssh_config); run 'softroce $GROUP down' first"
    fi
    if [ -e "$PAIR_DIR" ]; then
        [ -e "$PAIR_DIR/$PAIR_MARK" ] || die "$PAIR_DIR exists and is not a testbed $GROUP dir; remove it or set $dirvar"
        rm -rf "$PAIR_DIR"
    fi
    t0=$SECONDS
    need_tools ssh:openssh-client ssh-keygen:openssh-client ss:iproute2 setsid:util-linux
    [ -x /usr/sbin/sshd ] || die "missing: /usr/sbin/sshd (apt-get install openssh-server)"
    ensure_cache
    mkdir -p "$PAIR_DIR/ssh"
    for n in "${PAIR_HOSTS[@]}"; do mkdir -p "$PAIR_DIR/host$n"; done
    touch "$PAIR_DIR/$PAIR_MARK"

    # Keys: one client key, one host key shared by every guest.
    ssh-keygen -q -t ed25519 -N '' -C rdmabench-testbed -f "$PAIR_DIR/ssh/id_ed25519"
    ssh-keygen -q -t ed25519 -N '' -C rdmabench-testbed-host -f "$PAIR_DIR/ssh/ssh_host_ed25519_key"
    cp "$PAIR_DIR/ssh/id_ed25519.pub" "$PAIR_DIR/ssh/authorized_keys"
    local names=${PAIR_HOSTS[*]/#/rb-host}
    echo "${names// /,} $(cut -d' ' -f1,2 "$PAIR_DIR/ssh/ssh_host_ed25519_key.pub")" >"$PAIR_DIR/ssh/known_hosts"

    local taken=()
    FABRIC_NET=
    if [ "$GROUP" = fabric ]; then
        fabric_net_up l
        [ "$TRANSPORT" != both ] || fabric_net_up i
        [ "$FABRIC_NET" = bridge ] ||
            msg "warning: not root (or no /dev/net/tun): the fabric's link is a multicast hub over lo, which drops frames under load"
    fi
    LINK_PORT=$(free_port) || die "no free port"
    taken+=("$LINK_PORT")
    for n in "${PAIR_HOSTS[@]}"; do
        SSH_PORT[$n]=$(free_port "${taken[@]}") || die "no free port"
        taken+=("${SSH_PORT[$n]}")
    done
    IWLINK_PORT=$(free_port "${taken[@]}") || die "no free port"
    {
        printf 'HOSTS=%s\nLINK_PORT=%s\nIWLINK_PORT=%s\nFABRIC_NET=%s\n' "$all" "$LINK_PORT" "$IWLINK_PORT" "$FABRIC_NET"
        for n in "${PAIR_HOSTS[@]}"; do printf 'SSH_PORT%s=%s\n' "$n" "${SSH_PORT[$n]}"; done
    } >"$PAIR_DIR/ports"
    write_pair_ssh_config

    for n in "${PAIR_HOSTS[@]}"; do
        state=$PAIR_DIR/host$n
        prepare_guest_state "$state"
        {
            echo "RB_MODE=pair"
            echo "RB_HOSTNAME=rb-host$n"
            echo "RB_TRACE=${RDMABENCH_TESTBED_TRACE:-}"
            printf 'RB_KVER=%q\nRB_MODBASE=%q\nRB_DEVICE=%q\nRB_ADDR=%q\n' \
                "$KVER" "$KERNEL_DIR" "$DEVICE" "$LINK_NET.$n"
            printf 'RB_TRANSPORT=%q\nRB_IWARP_DEVICE=%q\n' "$TRANSPORT" "$IWARP_DEVICE"
            if [ "$TRANSPORT" = both ]; then
                printf 'RB_IWARP_ADDR=%q\n' "$IWARP_NET_BOTH.$n"
            else
                printf 'RB_IWARP_ADDR=%q\n' "$LINK_NET.$n"
            fi
            printf 'RB_LINK_MAC=%s\nRB_MGMT_MAC=%s\n' "$(mac 0 "$n")" "$(mac 1 "$n")"
            printf 'RB_IWARP_MAC=%s\n' "$(mac 2 "$n")"
            printf 'RB_MGMT_ADDR=198.19.%s.15\n' "$n"
            printf 'RB_SSH_DIR=%q\nRB_PATH=%q\n' "$PAIR_DIR/ssh" "$PATH"
        } >"$state/guest.conf"
    done

    # From here on, any failure or signal tears every guest down.
    trap 'msg "$GROUP up failed; tearing down"; pair_teardown' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    if [ "$GROUP" = fabric ]; then
        # On a multicast hub nobody listens first: boot them all at once.
        if [ "$FABRIC_NET" = bridge ]; then
            msg "booting ${PAIR_HOSTS[*]/#/rb-host} (link: the bridge $(fabric_ifname l), a tap each)"
        else
            msg "booting ${PAIR_HOSTS[*]/#/rb-host} (link: multicast $MCAST_GROUP:$LINK_PORT over lo)"
        fi
        for n in "${PAIR_HOSTS[@]}"; do pair_start_guest "$n"; done
    else
    msg "booting rb-host1 (link listens on 127.0.0.1:$LINK_PORT, ssh 127.0.0.1:${SSH_PORT[1]})"
    pair_start_guest 1
    # rb-host2 connects to rb-host1's socket: wait for the listener.
    for ((i = 0; i < 300; i++)); do
        [ -n "$(ss -Hltn "( sport = :$LINK_PORT )" 2>/dev/null)" ] && break
        pair_alive 1 || break
        sleep 0.1
    done
    for ((i = 0; i < 100; i++)); do
        [ "$TRANSPORT" != both ] || [ -n "$(ss -Hltn "( sport = :$IWLINK_PORT )" 2>/dev/null)" ] && break
        sleep 0.1
    done
    [ -n "$(ss -Hltn "( sport = :$LINK_PORT )" 2>/dev/null)" ] || {
        console_tail "$PAIR_DIR/host1"
        die "rb-host1's qemu did not listen on 127.0.0.1:$LINK_PORT. Console: $PAIR_DIR/host1/console.log"
    }
    msg "booting rb-host2 (ssh 127.0.0.1:${SSH_PORT[2]})"
    pair_start_guest 2
    fi

    deadline=$((SECONDS + ${RDMABENCH_PAIR_TIMEOUT:-600}))
    local -A up=()
    while [ "${#up[@]}" -lt "$all" ]; do
        for n in "${PAIR_HOSTS[@]}"; do
            [ -z "${up[$n]:-}" ] || continue
            state=$PAIR_DIR/host$n
            if ! pair_alive "$n"; then
                bad="rb-host$n failed to boot: $(cat "$state/guest-error" 2>/dev/null || echo "qemu exited")"
                console_tail "$state"
                die "$bad. Console log: $state/console.log"
            fi
            if [ -f "$state/ready" ] &&
                timeout 20 ssh -F "$PAIR_DIR/ssh_config" "rb-host$n" true </dev/null >/dev/null 2>&1; then
                up[$n]=1
                msg "rb-host$n is up ($((SECONDS - t0)) s)"
            fi
        done
        if [ "${#up[@]}" -lt "$all" ] && [ "$SECONDS" -ge "$deadline" ]; then
            for n in "${PAIR_HOSTS[@]}"; do
                [ -n "${up[$n]:-}" ] || { bad="rb-host$n"; console_tail "$PAIR_DIR/host$n"; }
            done
            die "$bad not up after ${RDMABENCH_PAIR_TIMEOUT:-600} s (RDMABENCH_PAIR_TIMEOUT). Console log: $PAIR_DIR/${bad#rb-}/console.log"
        fi
        [ "${#up[@]}" -ge "$all" ] || sleep 0.5
    done
    trap - EXIT INT TERM
    msg "$GROUP up in $((SECONDS - t0)) s"
    echo "$PAIR_DIR/ssh_config"
}

pair_down() {
    local t0=$SECONDS
    pair_lock
    if [ ! -e "$PAIR_DIR/$PAIR_MARK" ] && ! pair_any_alive; then
        msg "no $GROUP is up ($PAIR_DIR)"
        return 0
    fi
    pair_teardown
    rm -rf "$PAIR_DIR"
    msg "$GROUP down in $((SECONDS - t0)) s"
}

# ready_var N VAR: a RDMABENCH_TEST_* value from hostN/ready.
ready_var() {
    sed -n "s/^export $2=//p" "$PAIR_DIR/host$1/ready" 2>/dev/null
}

pair_status() {
    local n pid state=down rc alive=0 link
    for n in "${PAIR_HOSTS[@]}"; do pair_alive "$n" && alive=$((alive + 1)); done
    if [ "$alive" = "${#PAIR_HOSTS[@]}" ]; then
        state=up rc=0
    elif [ "$alive" -gt 0 ]; then
        state=degraded rc=1
    else
        state=down rc=3
    fi
    if [ "$GROUP" = pair ]; then
        echo "pair: $state ($PAIR_DIR)"
    else
        echo "fabric: $state ($PAIR_DIR, ${#PAIR_HOSTS[@]} guests)"
    fi
    [ "$state" != down ] || return $rc
    # shellcheck source=/dev/null
    . "$PAIR_DIR/ports"
    echo "ssh config: $PAIR_DIR/ssh_config"
    link="qemu socket netdev on 127.0.0.1:$LINK_PORT"
    if [ "$GROUP" = fabric ] && [ "${FABRIC_NET:-}" = bridge ]; then
        link="the bridge $(fabric_ifname l) on this host, a tap device per guest"
    elif [ "$GROUP" = fabric ]; then
        link="qemu socket netdev on the multicast group $MCAST_GROUP:$LINK_PORT (lo)"
    fi
    echo "link: $link"
    for n in "${PAIR_HOSTS[@]}"; do
        pid=$(pair_pid "$n")
        local port_var=SSH_PORT$n
        if pair_alive "$n"; then
            echo "rb-host$n: running, qemu pid $pid, ssh 127.0.0.1:${!port_var}," \
                "$(ready_var "$n" RDMABENCH_TEST_DEVICE || true) $LINK_NET.$n" \
                "gid index $(ready_var "$n" RDMABENCH_TEST_GID_INDEX || true)" \
                "$([ -f "$PAIR_DIR/host$n/ready" ] && echo ready || echo booting)"
        else
            echo "rb-host$n: not running (console: $PAIR_DIR/host$n/console.log)"
        fi
    done
    return $rc
}

pair_env() {
    local n
    for n in "${PAIR_HOSTS[@]}"; do
        # shellcheck disable=SC2015  # meant: die unless alive and ready
        pair_alive "$n" && [ -f "$PAIR_DIR/host$n/ready" ] ||
            die "no $GROUP is up in $PAIR_DIR (softroce $GROUP up)"
    done
    if [ "$GROUP" = pair ]; then
        printf 'RB_PAIR_SSH_CONFIG=%q\n' "$PAIR_DIR/ssh_config"
    else
        printf 'RB_FABRIC_SSH_CONFIG=%q\nRB_FABRIC_HOSTS=%q\n' "$PAIR_DIR/ssh_config" "${#PAIR_HOSTS[@]}"
    fi
    for n in "${PAIR_HOSTS[@]}"; do
        printf 'RB_HOST%s_ADDR=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_ADDR)"
        printf 'RB_HOST%s_DEVICE=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_DEVICE)"
        printf 'RB_HOST%s_GID_INDEX=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_GID_INDEX)"
        # pair up --transport iwarp|both: the siw device.
        if [ -n "$(ready_var "$n" RDMABENCH_TEST_IWARP_DEVICE)" ]; then
            printf 'RB_HOST%s_IWARP_ADDR=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_IWARP_ADDR)"
            printf 'RB_HOST%s_IWARP_DEVICE=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_IWARP_DEVICE)"
            printf 'RB_HOST%s_IWARP_GID_INDEX=%q\n' "$n" "$(ready_var "$n" RDMABENCH_TEST_IWARP_GID_INDEX)"
        fi
    done
}

cmd_pair() {
    pair_check_dir
    case ${1:-} in
        up)
            case ${2:-} in
                --transport) set_transport "${3:-}" ;;
                --transport=*) set_transport "${2#*=}" ;;
                "") ;;
                *) usage >&2; exit 2 ;;
            esac
            pair_up
            ;;
        down) pair_down ;;
        status) pair_status ;;
        env) pair_env ;;
        *) usage >&2; exit 2 ;;
    esac
}
