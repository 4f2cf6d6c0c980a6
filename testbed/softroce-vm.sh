# shellcheck shell=bash
# testbed/softroce-vm.sh - part of testbed/softroce (sourced by it; uses its
# msg, die, settings and TESTBED_DIR): what every guest is built from and how
# it is started and watched, shared by run, pair and fabric.  The cache (the
# Debian kernel package, extracted; its vmlinux; the initramfs; the "cache"
# subcommand's ensure_cache), qemu's arguments, a guest's state dir, alive and
# kill_qemu, console_tail.

# ---------------------------------------------------------------------------
# Cache: guest kernel (Debian package, extracted) and initramfs
# ---------------------------------------------------------------------------
CACHE_DIR=${RDMABENCH_CACHE:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache/rdmabench}/testbed

# need_tools TOOL:PACKAGE...: fail early, naming the Debian package to install.
need_tools() {
    local t missing=() PATH=$PATH:/usr/sbin:/sbin
    for t in "$@"; do
        command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (apt-get install ${t#*:})")
    done
    [ ${#missing[@]} -eq 0 ] || die "missing: ${missing[*]}"
}

# Sets KERNEL_DIR (extracted package), KVER, KERNEL_IMAGE, INITRAMFS.
ensure_cache() {
    local lockfd
    need_tools qemu-system-x86_64:qemu-system-x86 cpio:cpio gzip:gzip depmod:kmod \
        apt-get:apt dpkg:dpkg flock:util-linux rdma:iproute2 ip:iproute2 ibv_devinfo:ibverbs-utils
    [ -x /bin/busybox ] || die "missing: /bin/busybox (apt-get install busybox-static)"
    mkdir -p "$CACHE_DIR"
    exec {lockfd}>"$CACHE_DIR/.lock"
    # Another run may be downloading/building: wait for it (bounded).
    flock -w 1800 "$lockfd" || die "timed out waiting for the cache lock $CACHE_DIR/.lock"
    ensure_kernel
    SIW_KO=
    if want_iwarp; then
        ensure_siw || die "iWARP is not available: $SIW_ERROR"
    fi
    ensure_initramfs
    exec {lockfd}>&-
}

# resolve_kernel_pkg: prints "PACKAGE VERSION" of the kernel behind
# linux-image-amd64 (or RDMABENCH_TESTBED_KERNEL_PKG), empty if apt knows none.
# apt-cache takes ~1 s per call, so the answer is kept in the cache until the
# apt lists change.
resolve_kernel_pkg() {
    local memo=$CACHE_DIR/kernel.resolved
    local key="${RDMABENCH_TESTBED_KERNEL_PKG:-linux-image-amd64}"
    if [ -s "$memo" ] && [ "$(head -n 1 "$memo")" = "$key" ] &&
        [ -z "$(find /var/lib/apt/lists -maxdepth 1 -newer "$memo" 2>/dev/null | head -n 1)" ]; then
        sed -n 2p "$memo"
        return 0
    fi
    local pv
    pv=$(resolve_kernel_pkg_apt)
    [ -z "$pv" ] || printf '%s\n%s\n' "$key" "$pv" >"$memo"
    [ -z "$pv" ] || echo "$pv"
}

resolve_kernel_pkg_apt() {
    local pkg=${RDMABENCH_TESTBED_KERNEL_PKG:-} ver
    if [ -z "$pkg" ]; then
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
            awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }') || true
    fi
    [ -n "$pkg" ] || return 0
    ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null |
        awk '$1 == "Version:" { print $2; exit }') || true
    [ -n "$ver" ] && echo "$pkg $ver"
    return 0
}

ensure_kernel() {
    local pv pkg ver name tmp debs t0 PATH=$PATH:/usr/sbin:/sbin   # depmod
    pv=$(resolve_kernel_pkg)
    if [ -z "$pv" ] && [ "$(id -u)" = 0 ] && ! ls "$CACHE_DIR"/kernel/*/.complete >/dev/null 2>&1; then
        msg "apt knows no linux-image-amd64 kernel; running apt-get update"
        apt-get update -qq >&2 || true
        pv=$(resolve_kernel_pkg)
    fi
    if [ -z "$pv" ]; then
        # Offline: fall back to the newest kernel already in the cache.
        # shellcheck disable=SC2012  # dir names made here (package_version): ls | sort -V is safe
        KERNEL_DIR=$(ls -d "$CACHE_DIR"/kernel/*/ 2>/dev/null | sort -V | tail -n 1)
        KERNEL_DIR=${KERNEL_DIR%/}
        # shellcheck disable=SC2015  # meant: die unless both hold
        [ -n "$KERNEL_DIR" ] && [ -f "$KERNEL_DIR/.complete" ] ||
            die "cannot resolve linux-image-amd64 with apt-cache (run apt-get update?) and no kernel is cached in $CACHE_DIR/kernel"
        msg "apt-cache cannot resolve the kernel; using cached $(basename "$KERNEL_DIR")"
    else
        read -r pkg ver <<<"$pv"
        name=${pkg}_${ver//:/%}
        KERNEL_DIR=$CACHE_DIR/kernel/$name
        if [ ! -f "$KERNEL_DIR/.complete" ]; then
            t0=$SECONDS
            msg "fetching the guest kernel $pkg $ver into $KERNEL_DIR (once)"
            mkdir -p "$CACHE_DIR/kernel"
            rm -rf "$KERNEL_DIR"
            tmp=$(mktemp -d "$CACHE_DIR/kernel/.tmp.XXXXXX")
            # As root, apt's _apt sandbox user cannot write into $HOME/...
            if ! (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$pkg=$ver" >&2); then
                rm -rf "$tmp"
                # Lists older than the archive name a kernel it no longer has: update them (as
                # root, once) and resolve the kernel again.
                apt_update_once "apt-get download $pkg=$ver failed" || die "apt-get download $pkg=$ver failed (apt-get update?)"
                ensure_kernel
                return
            fi
            debs=("$tmp"/*.deb)
            dpkg -x "${debs[0]}" "$tmp/root" || { rm -rf "$tmp"; die "dpkg -x ${debs[0]} failed"; }
            # shellcheck disable=SC2012  # a kernel version: ls is safe
            KVER=$(basename "$(ls -d "$tmp"/root/lib/modules/*/ | head -n 1)")
            # Drop drivers a headless VM never loads (about half the size).
            rm -rf "$tmp/root/lib/modules/$KVER/kernel/"{sound,drivers/gpu,drivers/media,drivers/net/wireless,drivers/staging,drivers/bluetooth,net/bluetooth,net/wireless,net/mac80211}
            depmod -b "$tmp/root" "$KVER" || { rm -rf "$tmp"; die "depmod -b failed"; }
            touch "$tmp/root/.complete"
            mv "$tmp/root" "$KERNEL_DIR"
            rm -rf "$tmp"
            msg "kernel cached in $((SECONDS - t0)) s"
        fi
    fi
    # shellcheck disable=SC2012  # a kernel version: ls is safe
    KVER=$(basename "$(ls -d "$KERNEL_DIR"/lib/modules/*/ | head -n 1)")
    KERNEL_IMAGE=$KERNEL_DIR/boot/vmlinuz-$KVER
    [ -f "$KERNEL_IMAGE" ] || die "no $KERNEL_IMAGE in the cache"
    ensure_vmlinux
}

# ensure_vmlinux: qemu boots an uncompressed ELF vmlinux directly through its
# PVH entry point (CONFIG_PVH), which skips the XZ decompression of the
# bzImage: ~4 s less per boot under TCG.  Falls back to the bzImage.
ensure_vmlinux() {
    local bz=$KERNEL_IMAGE elf=$KERNEL_DIR/vmlinux-$KVER off unxz
    if [ ! -f "$elf" ] && grep -qx 'CONFIG_PVH=y' "$KERNEL_DIR/boot/config-$KVER" 2>/dev/null; then
        unxz="xz -dcq"
        command -v xz >/dev/null || unxz="/bin/busybox xzcat"
        # The payload is the XZ stream after the setup code (CONFIG_KERNEL_XZ).
        off=$(grep -abo -m1 $'\xfd7zXZ\x00' "$bz" | head -n 1 | cut -d: -f1) || true
        if [ -n "$off" ]; then
            tail -c +$((off + 1)) "$bz" | $unxz >"$elf.tmp" 2>/dev/null || true
            if [ "$(head -c 4 "$elf.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
                mv "$elf.tmp" "$elf"
            else
                msg "warning: could not extract vmlinux from $bz; booting the bzImage"
            fi
        fi
        rm -f "$elf.tmp"
    fi
    [ ! -f "$elf" ] || KERNEL_IMAGE=$elf
}

# module_load_order MODDIR NAME...: the .ko paths (relative to MODDIR) of NAMEs
# and their dependencies from modules.dep, dependencies first.
module_load_order() {
    local moddir=$1 name line
    shift
    local -A seen=()
    local -a order=()
    _visit() {
        local path=$1 line dep
        [ -z "${seen[$path]:-}" ] || return 0
        seen[$path]=1
        line=$(grep -m1 -F "$path:" "$moddir/modules.dep") || die "$path not in modules.dep"
        for dep in ${line#*:}; do
            _visit "$dep"
        done
        order+=("$path")
    }
    for name in "$@"; do
        line=$(grep -m1 -E "(^|/)$name\.ko:" "$moddir/modules.dep") ||
            die "module $name not found in $moddir/modules.dep"
        _visit "${line%%:*}"
    done
    printf '%s\n' "${order[@]}"
}

ensure_initramfs() {
    local moddir=$KERNEL_DIR/lib/modules/$KVER mods key tmp m t0
    local -a modules=("${GUEST_MODULES[@]}")
    want_iwarp && modules+=("${IWARP_MODULES[@]}")
    # Inputs of the image: rebuilt whenever one of them changes.
    key=$({
        echo "format $INITRAMFS_FORMAT $KERNEL_DIR ${modules[*]}"
        sha256sum "$TESTBED_DIR/initramfs-init.sh" /bin/busybox
        [ -z "$SIW_KO" ] || sha256sum "$SIW_KO"
    } | sha256sum | cut -c1-16)
    INITRAMFS=$CACHE_DIR/initramfs/$(basename "$KERNEL_DIR")-$key.cpio.gz
    [ -f "$INITRAMFS" ] && return 0

    t0=$SECONDS
    msg "building the initramfs $INITRAMFS"
    # shellcheck disable=SC2015  # meant: die unless both hold
    [ -x /bin/busybox ] && file_is_static /bin/busybox ||
        die "/bin/busybox (static) is needed: apt-get install busybox-static"
    mods=$(module_load_order "$moddir" "${modules[@]}")
    mkdir -p "$CACHE_DIR/initramfs"
    tmp=$(mktemp -d "$CACHE_DIR/initramfs/.tmp.XXXXXX")
    mkdir -p "$tmp"/root/{bin,dev,proc,sys,newroot,modules}
    cp /bin/busybox "$tmp/root/bin/"
    for m in $(/bin/busybox --list); do
        [ "$m" = busybox ] || ln -s busybox "$tmp/root/bin/$m"
    done
    install -m 755 "$TESTBED_DIR/initramfs-init.sh" "$tmp/root/init"
    : >"$tmp/root/modules.load"
    for m in $mods; do
        cp "$moddir/$m" "$tmp/root/modules/"
        basename "$m" .ko >>"$tmp/root/modules.load"
    done
    # siw.ko (built out of tree, not in modules.dep) last: its dependencies
    # (ib_core, libcrc32c) are in the list above.
    if [ -n "$SIW_KO" ]; then
        cp "$SIW_KO" "$tmp/root/modules/siw.ko"
        echo siw >>"$tmp/root/modules.load"
    fi
    (cd "$tmp/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initramfs.cpio.gz" ||
        { rm -rf "$tmp"; die "cpio failed"; }
    mv "$tmp/initramfs.cpio.gz" "$INITRAMFS"
    rm -rf "$tmp"
    # Older images (inputs changed) are dropped after an hour.
    find "$CACHE_DIR/initramfs" -maxdepth 1 -name '*.cpio.gz' ! -path "$INITRAMFS" -mmin +60 -delete 2>/dev/null || true
    msg "initramfs built in $((SECONDS - t0)) s"
}

file_is_static() {
    ! ldd "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------------------
# qemu
# ---------------------------------------------------------------------------

# qemu_args STATE SMP MEM: the arguments common to all guests (TCG only: KVM
# hangs after decompression on this kind of machine).
qemu_args() {
    local state=$1 smp=$2 mem=$3 sec=passthrough
    # passthrough keeps owners/modes but needs root; "none" works for others.
    [ "$(id -u)" = 0 ] || sec=none
    # shellcheck disable=SC2034  # read in softroce-run.sh and softroce-pair.sh
    QEMU_ARGS=(
        -name "rdmabench-testbed,debug-threads=off"
        -accel tcg -cpu "${RDMABENCH_QEMU_CPU:-max}" -smp "$smp" -m "$mem"
        -nodefaults -no-user-config -display none -no-reboot
        -kernel "$KERNEL_IMAGE" -initrd "$INITRAMFS"
        -append "console=ttyS0 panic=-1 oops=panic loglevel=4 printk.time=1 mitigations=off nokaslr rdmabench.9pcache=${RDMABENCH_9P_CACHE:-mmap} rdmabench.state=$state ${RDMABENCH_KERNEL_ARGS:-}"
        -serial "file:$state/console.log"
        -virtfs "local,path=/,mount_tag=hostroot,security_model=$sec,multidevs=remap"
    )
}

# prepare_guest_state STATE: copy what the guest runs from the state dir, so
# editing testbed/ during a run does not affect it.
prepare_guest_state() {
    cp "$TESTBED_DIR/guest-init.sh" "$TESTBED_DIR/lib.sh" "$1/"
    : >"$1/console.log"
}

# alive PID STATE: PID is a qemu of that state dir (guards against pid reuse).
alive() {
    [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] &&
        tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF "rdmabench.state=$2 "
}

# kill_qemu PID STATE: TERM, then KILL after 5 s.
kill_qemu() {
    local pid=$1 state=$2 i
    alive "$pid" "$state" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        alive "$pid" "$state" || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        alive "$pid" "$state" || return 0
        sleep 0.1
    done
}

# console_tail STATE: the end of a guest's console, for error messages.
console_tail() {
    msg "last lines of $1/console.log:"
    tail -n 15 "$1/console.log" | sed 's/^/    | /' >&2 || true
    if [ -s "$1/qemu.log" ]; then
        msg "qemu said ($1/qemu.log):"
        tail -n 5 "$1/qemu.log" | sed 's/^/    | /' >&2 || true
    fi
}
