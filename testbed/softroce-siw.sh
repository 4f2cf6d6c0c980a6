# shellcheck shell=bash
# testbed/softroce-siw.sh - part of testbed/softroce (sourced by it): building
# siw.ko for the guest kernel (ensure_siw, which ensure_cache calls for
# --transport iwarp|both) and the siw-module subcommand.

# ---------------------------------------------------------------------------
# siw.ko: Debian's 6.1 kernel ships rdma_rxe but not siw (CONFIG_RDMA_SIW is
# unset).  It builds out of tree from Debian's own packages for exactly the
# guest kernel: linux-source-<major.minor> (only drivers/infiniband/sw/siw is
# extracted) and linux-headers-<kver> with its -common and linux-kbuild
# dependencies, at the guest kernel package's version where the archive has
# it, else another revision of the same release (kbuild: of the same 6.1
# series; apt-version.sh has the rule), fetched with apt-get download +
# dpkg -x (nothing is installed).  The versions used are printed and kept in
# <dir>/versions.  Cached per kernel
# package in $CACHE_DIR/siw/<pkg>_<version>/siw.ko; the downloads (~150 MB)
# are deleted afterwards.
# ---------------------------------------------------------------------------

# ensure_siw: sets SIW_KO; on failure returns 1 with SIW_ERROR set (the
# build log, if any, stays in $CACHE_DIR/siw/<name>.failed.log).
ensure_siw() {
    local name dir ver mm tmp hdr deb dep common kbuild t0 hdir vm t used=''
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
    # _siw_fetch PKG SCOPE: downloads PKG at the version apt_choose picks against the guest
    # kernel's (testbed/apt-version.sh); adds "PKG VERSION" (and its skew) to $used. Lists older
    # than the archive name versions it no longer has: after a failed download, apt-get update
    # (as root) and pick again, once.
    _siw_fetch() {
        local try
        for try in 1 2; do
            if ! apt_choose "$1" "$ver" "$2"; then
                [ "$try" = 1 ] && apt_update_once "apt's lists have no $1 to build siw.ko with" && continue
                _siw_fail "$APT_CHOICE_ERROR"
                return 1
            fi
            echo "picked $1 $APT_CHOICE" >>"$tmp/build.log"
            if _siw_get "$1=${APT_CHOICE%% *}"; then
                used+=", $1 ${APT_CHOICE%% *}"
                [ "${APT_CHOICE#* }" = exact ] || used+=" (${APT_CHOICE#* } skew from $ver)"
                return 0
            fi
            [ "$try" = 1 ] && apt_update_once "apt-get download $1=${APT_CHOICE%% *} failed" && continue
            _siw_fail "apt-get download $1=${APT_CHOICE%% *} failed"
            return 1
        done
    }
    mkdir -p "$tmp/debs" "$tmp/root" "$tmp/src"
    hdr=linux-headers-$KVER
    # Each package at the guest kernel's version where the archive has it, else another Debian
    # revision of the same release (kbuild: of the same series); testbed/apt-version.sh.
    _siw_fetch "$hdr" release || return 1
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
    for dep in "$common:release" "$kbuild:series" "linux-source-$mm:release"; do
        _siw_fetch "${dep%:*}" "${dep##*:}" || return 1
    done
    used=${used#, }
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
    echo "$used" >"$dir/versions"
    touch "$dir/.complete"
    rm -rf "$tmp"
    rm -f "$CACHE_DIR/siw/$name.failed.log"
    SIW_KO=$dir/siw.ko
    msg "siw.ko cached in $dir ($((SECONDS - t0)) s), built from $used"
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
