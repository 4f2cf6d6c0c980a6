# shellcheck shell=bash
# testbed/softroce-siw.sh - part of testbed/softroce (sourced by it): building
# siw.ko for the guest kernel (ensure_siw, which ensure_cache calls for
# --transport iwarp|both) and the siw-module subcommand.

# ---------------------------------------------------------------------------
# siw.ko: Debian's 6.1 kernel ships rdma_rxe but not siw (CONFIG_RDMA_SIW is
# unset).  It builds out of tree from Debian's own packages for exactly the
# guest kernel: linux-source-<major.minor> (only drivers/infiniband/sw/siw is
# extracted) and linux-headers-<kver> with its -common and linux-kbuild
# dependencies, all at the guest kernel package's version, fetched with
# apt-get download + dpkg -x (nothing is installed).  Cached per kernel
# package in $CACHE_DIR/siw/<pkg>_<version>/siw.ko; the downloads (~150 MB)
# are deleted afterwards.
# ---------------------------------------------------------------------------

# ensure_siw: sets SIW_KO; on failure returns 1 with SIW_ERROR set (the
# build log, if any, stays in $CACHE_DIR/siw/<name>.failed.log).
ensure_siw() {
    local name dir ver mm tmp hdr deb dep common kbuild t0 hdir vm t
    local PATH=$PATH:/usr/sbin:/sbin
    name=$(basename "$KERNEL_DIR")
    dir=$CACHE_DIR/siw/$name
    SIW_KO=$dir/siw.ko SIW_ERROR=
    [ -f "$dir/.complete" ] && [ -f "$SIW_KO" ] && return 0
    SIW_KO=
    ver=${name#*_}
    ver=${ver//%/:}
    mm=$(echo "$KVER" | cut -d. -f1,2)
    for t in make:make gcc-12:gcc-12 xz:xz-utils tar:tar strip:binutils; do
        command -v "${t%%:*}" >/dev/null 2>&1 ||
            { SIW_ERROR="building siw.ko needs ${t%%:*} (apt-get install ${t#*:})"; return 1; }
    done
    t0=$SECONDS
    msg "building siw.ko for $KVER ($ver) from Debian's linux-source-$mm and linux-headers-$KVER (once, ~1-2 min)"
    mkdir -p "$CACHE_DIR/siw"
    tmp=$(mktemp -d "$CACHE_DIR/siw/.tmp.XXXXXX")
    _siw_fail() {
        SIW_ERROR="$1 (kernel $KVER, package version $ver)"
        [ ! -s "$tmp/build.log" ] || { cp "$tmp/build.log" "$CACHE_DIR/siw/$name.failed.log"; SIW_ERROR+="; log: $CACHE_DIR/siw/$name.failed.log"; }
        rm -rf "$tmp"
        return 1
    }
    _siw_get() {
        (cd "$tmp/debs" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$@" >>"$tmp/build.log" 2>&1)
    }
    mkdir -p "$tmp/debs" "$tmp/root" "$tmp/src"
    hdr=linux-headers-$KVER
    _siw_get "$hdr=$ver" || { _siw_fail "apt-get download $hdr=$ver failed (no matching headers; apt-get update?)"; return 1; }
    # Its Depends name the -common headers and the kbuild package.
    deb=$(ls "$tmp"/debs/"${hdr}"_*.deb)
    common='' kbuild=''
    for dep in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | awk '{ print $1 }'); do
        case $dep in
            linux-headers-*-common) common=$dep ;;
            linux-kbuild-*) kbuild=$dep ;;
        esac
    done
    # shellcheck disable=SC2015  # meant: fail unless both were found
    [ -n "$common" ] && [ -n "$kbuild" ] || { _siw_fail "$hdr does not depend on linux-headers-*-common and linux-kbuild-*"; return 1; }
    _siw_get "$common=$ver" "$kbuild=$ver" ||
        { _siw_fail "apt-get download $common=$ver $kbuild=$ver failed"; return 1; }
    _siw_get "linux-source-$mm=$ver" ||
        { _siw_fail "apt-get download linux-source-$mm=$ver failed (no kernel source of the guest kernel's version)"; return 1; }
    for deb in "$tmp"/debs/linux-headers-*.deb "$tmp"/debs/linux-kbuild-*.deb; do
        dpkg -x "$deb" "$tmp/root" || { _siw_fail "dpkg -x $deb failed"; return 1; }
    done
    hdir=$tmp/root/usr/src/$hdr
    # The arch headers' Makefile includes the -common one by absolute path.
    # shellcheck disable=SC2015  # meant: fail unless both exist
    [ -f "$hdir/Makefile" ] && [ -d "$tmp/root/usr/src/$common" ] || { _siw_fail "unexpected layout of $hdr"; return 1; }
    echo "include $tmp/root/usr/src/$common/Makefile" >"$hdir/Makefile"
    deb=$(ls "$tmp"/debs/linux-source-*.deb)
    dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$mm.tar.xz" |
        tar -xJ -C "$tmp/src" --wildcards "linux-source-$mm/drivers/infiniband/sw/siw/*" 2>>"$tmp/build.log" ||
        { _siw_fail "drivers/infiniband/sw/siw not found in linux-source-$mm"; return 1; }
    rm -rf "$tmp/debs"
    mv "$tmp/src/linux-source-$mm/drivers/infiniband/sw/siw" "$tmp/siw"
    # Without CONFIG_RDMA_SIW=m, kbuild succeeds and builds nothing.
    make -C "$hdir" M="$tmp/siw" CONFIG_RDMA_SIW=m -j"${RDMABENCH_SIW_JOBS:-2}" modules >>"$tmp/build.log" 2>&1 ||
        { _siw_fail "make of siw.ko failed"; return 1; }
    [ -f "$tmp/siw/siw.ko" ] || { _siw_fail "make built no siw.ko"; return 1; }
    vm=$(modinfo -F vermagic "$tmp/siw/siw.ko" 2>/dev/null | awk '{ print $1 }')
    [ "$vm" = "$KVER" ] || { _siw_fail "siw.ko has vermagic '$vm', not $KVER"; return 1; }
    strip --strip-debug "$tmp/siw/siw.ko"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$tmp/siw/siw.ko" "$tmp/build.log" "$dir/"
    touch "$dir/.complete"
    rm -rf "$tmp"
    rm -f "$CACHE_DIR/siw/$name.failed.log"
    SIW_KO=$dir/siw.ko
    msg "siw.ko cached in $dir ($((SECONDS - t0)) s)"
}

# siw-module: build (once) and print siw.ko; exit 3 when it cannot be built
# here (tests report themselves "not run" on 3, and fail on anything else).
cmd_siw_module() {
    local lockfd
    # shellcheck disable=SC2034  # read by want_iwarp (testbed/softroce)
    TRANSPORT=iwarp
    mkdir -p "$CACHE_DIR"
    exec {lockfd}>"$CACHE_DIR/.lock"
    flock -w 1800 "$lockfd" || die "timed out waiting for the cache lock $CACHE_DIR/.lock"
    ensure_kernel
    if ! ensure_siw; then
        msg "error: siw.ko cannot be built for the guest kernel: $SIW_ERROR"
        exit 3
    fi
    exec {lockfd}>&-
    echo "$SIW_KO"
}
