# shellcheck shell=bash
# testbed/softroce-run.sh - part of testbed/softroce (sourced by it): the run
# subcommand.  CMD runs where an rxe device is up: on this host (a veth pair
# and rxe, as root) or in a qemu guest that sees the host's files.

# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------

# write_env_file: the caller's exported variables as bash assignments.
write_env_file() {
    local name
    while IFS= read -r name; do
        case $name in
            _ | SHLVL | PWD | OLDPWD | SHELLOPTS | BASHOPTS | BASH_* | RDMABENCH_TEST_*) continue ;;
        esac
        [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        printf 'export %s=%q\n' "$name" "${!name}"
    done < <(compgen -e)
}

cmd_run() {
    local timeout=3600 mode=${RDMABENCH_TESTBED:-auto}
    # shellcheck disable=SC2034  # read by die (testbed/softroce)
    DIE_STATUS=125
    while [ $# -gt 0 ]; do
        case $1 in
            --timeout) timeout=${2:?--timeout needs a value}; shift 2 ;;
            --timeout=*) timeout=${1#*=}; shift ;;
            --transport) set_transport "${2:-}"; shift 2 ;;
            --transport=*) set_transport "${1#*=}"; shift ;;
            --) shift; break ;;
            -h | --help) usage; exit 0 ;;
            *) break ;;
        esac
    done
    [ $# -gt 0 ] || { usage >&2; exit 125; }
    # shellcheck disable=SC2015  # meant: die unless both hold
    [[ $timeout =~ ^[0-9]+$ ]] && [ "$timeout" -gt 0 ] || die "--timeout wants seconds, got '$timeout'"

    # Host mode makes rxe only; iWARP always runs in a guest.
    if want_iwarp; then
        [ "$mode" != host ] || die "RDMABENCH_TESTBED=host supports --transport roce only (siw runs in the VM)"
        [ "$mode" = auto ] || [ "$mode" = vm ] || die "RDMABENCH_TESTBED must be vm or host, not '$mode'"
        mode=vm
    fi
    case $mode in
        host) run_on_host "$timeout" "$@" ;;
        vm) run_in_vm "$timeout" "$@" ;;
        auto)
            if host_can_rxe; then
                run_on_host "$timeout" "$@"
            else
                run_in_vm "$timeout" "$@"
            fi
            ;;
        *) die "RDMABENCH_TESTBED must be vm or host, not '$mode'" ;;
    esac
}

# host_can_rxe: cheap check that this kernel may create rxe devices; the real
# proof is run_on_host's setup, which falls back to a VM in auto mode.
host_can_rxe() {
    [ "$(id -u)" = 0 ] && command -v rdma >/dev/null && command -v modprobe >/dev/null &&
        modprobe -q rdma_rxe 2>/dev/null && modprobe -q veth 2>/dev/null &&
        [ -d /sys/module/rdma_rxe ]
}

# --- host mode ---------------------------------------------------------------
HOST_VETH=
HOST_DEV=
host_cleanup() {
    [ -z "$HOST_DEV" ] || rdma link delete "$HOST_DEV" 2>/dev/null || true
    [ -z "$HOST_VETH" ] || ip link delete "$HOST_VETH" 2>/dev/null || true
    HOST_DEV='' HOST_VETH=''
}

# host_setup: veth pair + rxe on this host; sets HOST_DEV, HOST_ADDR,
# HOST_GID_INDEX.  Each run takes its own 198.18.N.0/24 and names.
host_setup() {
    local lockfd n
    exec {lockfd}>"${TMPDIR:-/tmp}/rdmabench-testbed-host.lock"
    flock -w 60 "$lockfd" || return 1
    for ((n = 1; n < 255; n++)); do
        ip -4 -o addr show | grep -qF " 198.18.$n." || break
    done
    [ "$n" -lt 255 ] || { exec {lockfd}>&-; return 1; }
    HOST_VETH=rbveth${n}a
    # shellcheck disable=SC2015  # meant: clean up when any step fails
    ip link add "$HOST_VETH" type veth peer name "rbveth${n}b" &&
        ip link set "rbveth${n}b" up && ip link set "$HOST_VETH" up &&
        ip addr add "198.18.$n.1/24" dev "$HOST_VETH" || { exec {lockfd}>&-; host_cleanup; return 1; }
    exec {lockfd}>&-
    HOST_DEV=rbrxe$n
    HOST_ADDR=198.18.$n.1
    rdma link add "$HOST_DEV" type rxe netdev "$HOST_VETH" 2>/dev/null || { HOST_DEV=; host_cleanup; return 1; }
    HOST_GID_INDEX=$(rb_wait_roce_gid "$HOST_DEV" "$HOST_ADDR" 30) || { host_cleanup; return 2; }
}

run_on_host() {
    local timeout=$1 rc t0
    shift
    trap 'host_cleanup' EXIT
    trap 'host_cleanup; trap - INT; kill -INT $$' INT
    trap 'host_cleanup; exit 143' TERM
    if ! host_setup; then
        host_cleanup
        if [ "${RDMABENCH_TESTBED:-auto}" = host ]; then
            die "cannot create an rxe device on this host (RDMABENCH_TESTBED=host)"
        fi
        msg "this host cannot create an rxe device; using a VM"
        trap - EXIT INT TERM
        run_in_vm "$timeout" "$@"
        # shellcheck disable=SC2317  # run_in_vm exits; kept should it ever return
        return
    fi
    msg "host mode: $HOST_DEV on $HOST_VETH ($HOST_ADDR), GID index $HOST_GID_INDEX"
    t0=$SECONDS
    rc=0
    RDMABENCH_TEST_DEVICE=$HOST_DEV RDMABENCH_TEST_ADDR=$HOST_ADDR RDMABENCH_TEST_GID_INDEX=$HOST_GID_INDEX \
        timeout --foreground -k 10 "$timeout" "$@" || rc=$?
    host_cleanup
    if [ "$rc" = 124 ] && [ $((SECONDS - t0)) -ge "$timeout" ]; then
        die "timed out after $timeout s; killed the command"
    fi
    exit "$rc"
}

# --- VM mode -----------------------------------------------------------------
RUN_STATE=
RUN_QPID=
RUN_TAILS=()

run_vm_cleanup() {
    local keep=${1:-no} p
    kill_qemu "$RUN_QPID" "$RUN_STATE"
    for p in "${RUN_TAILS[@]}"; do kill "$p" 2>/dev/null || true; done
    if [ "$keep" = no ] && [ -n "$RUN_STATE" ] && [ -z "${RDMABENCH_KEEP_STATE:-}" ]; then
        rm -rf "$RUN_STATE"
    fi
}

run_in_vm() {
    local timeout=$1 boot_timeout=${RDMABENCH_BOOT_TIMEOUT:-300} t0 i why=
    shift
    ensure_cache
    RUN_STATE=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-testbed.XXXXXX")
    chmod 755 "$RUN_STATE"
    [[ $RUN_STATE =~ ^[A-Za-z0-9_./-]+$ ]] || die "state dir path $RUN_STATE has odd characters"
    prepare_guest_state "$RUN_STATE"
    write_env_file >"$RUN_STATE/env.sh"
    {
        echo "RB_MODE=run"
        echo "RB_HOSTNAME=rb-run"
        echo "RB_TRACE=${RDMABENCH_TESTBED_TRACE:-}"
        printf 'RB_KVER=%q\nRB_MODBASE=%q\nRB_DEVICE=%q\nRB_ADDR=%q\n' \
            "$KVER" "$KERNEL_DIR" "$DEVICE" "$LINK_NET.1"
        printf 'RB_TRANSPORT=%q\nRB_IWARP_DEVICE=%q\n' "$TRANSPORT" "$IWARP_DEVICE"
        if [ "$TRANSPORT" = both ]; then
            printf 'RB_IWARP_ADDR=%q\n' "$IWARP_NET_BOTH.1"
        else
            printf 'RB_IWARP_ADDR=%q\n' "$LINK_NET.1"
        fi
        printf 'RB_CWD=%q\n' "$PWD"
        printf 'RB_CMD=('
        printf '%q ' "$@"
        printf ')\n'
    } >"$RUN_STATE/guest.conf"
    : >"$RUN_STATE/stdout"
    : >"$RUN_STATE/stderr"

    trap 'run_vm_cleanup keep' EXIT
    trap 'msg "interrupted; killing qemu"; run_vm_cleanup; trap - EXIT INT; kill -INT $$' INT
    trap 'msg "terminated; killing qemu"; run_vm_cleanup; trap - EXIT; exit 143' TERM

    qemu_args "$RUN_STATE" "${RDMABENCH_VM_SMP:-2}" "${RDMABENCH_VM_MEM:-2048}"
    t0=$SECONDS
    qemu-system-x86_64 "${QEMU_ARGS[@]}" -nic none </dev/null >"$RUN_STATE/qemu.log" 2>&1 &
    RUN_QPID=$!
    # Stream CMD's output files (written by the guest through 9p) live.
    tail -n +1 -F -s 0.2 --pid="$RUN_QPID" "$RUN_STATE/stdout" 2>/dev/null &
    RUN_TAILS+=($!)
    tail -n +1 -F -s 0.2 --pid="$RUN_QPID" "$RUN_STATE/stderr" >&2 2>/dev/null &
    RUN_TAILS+=($!)

    while alive "$RUN_QPID" "$RUN_STATE"; do
        if [ ! -e "$RUN_STATE/booted" ] && [ $((SECONDS - t0)) -ge "$boot_timeout" ] &&
            [ ! -e "$RUN_STATE/exitcode" ]; then
            why=boot-timeout
            break
        fi
        if [ $((SECONDS - t0)) -ge "$timeout" ]; then
            why=timeout
            break
        fi
        sleep 0.2
    done
    [ -z "$why" ] || kill_qemu "$RUN_QPID" "$RUN_STATE"
    wait "$RUN_QPID" 2>/dev/null || true
    # The tails end by themselves (--pid) after a last read.
    for ((i = 0; i < 50; i++)); do
        kill -0 "${RUN_TAILS[@]}" 2>/dev/null || break
        sleep 0.1
    done

    if [ -f "$RUN_STATE/exitcode" ]; then
        local rc
        rc=$(cat "$RUN_STATE/exitcode")
        run_vm_cleanup no
        trap - EXIT INT TERM
        exit "$rc"
    fi
    case $why in
        timeout)
            msg "error: timed out after $timeout s; killed qemu. Guest console: $RUN_STATE/console.log" ;;
        boot-timeout)
            msg "error: the guest did not come up within $boot_timeout s (RDMABENCH_BOOT_TIMEOUT); killed qemu. Guest console: $RUN_STATE/console.log"
            console_tail "$RUN_STATE" ;;
        *)
            if [ -e "$RUN_STATE/booted" ]; then
                msg "error: the guest stopped before CMD finished (no exit status). Guest console: $RUN_STATE/console.log"
            else
                msg "error: the guest failed to boot/set up rxe${RUN_STATE:+: $(cat "$RUN_STATE/guest-error" 2>/dev/null || echo "see below")}. Guest console: $RUN_STATE/console.log"
            fi
            console_tail "$RUN_STATE" ;;
    esac
    exit 125
}
