# shellcheck shell=bash
# testbed/apt-version.sh - part of testbed/softroce (sourced by softroce-siw.sh, and by
# tests/testbed/apt_version_test.sh): which version of a Debian package to download when the
# archive has moved under a pinned one.
#
# The testbed pins nothing by hand: the guest kernel is whatever linux-image-amd64 depends on
# today. What must then match it is fetched at that kernel's package version, and the archive does
# not always have it: Debian publishes a package's tools (linux-kbuild-6.1) or its source
# (linux-source-6.1) a revision ahead of, or behind, the image. apt_pick_version chooses, from
# the versions the archive has (as `apt-cache madison` prints them), by this rule:
#   1. the exact version, where the archive has it;
#   2. else the newest version of the same upstream release (6.1.192-3 for 6.1.192-2: another
#      Debian revision of the same kernel release);
#   3. else, with scope "series" only (the kbuild tools: build scripts and host programs, which
#      do not go into the module), the newest of the same series (6.1.x);
#   4. else nothing (exit 1): no version of the same upstream release (or series) exists.
# The module's vermagic is still checked against the guest kernel after the build.

# apt_upstream VERSION: VERSION without its epoch and Debian revision (1:6.1.192-2 -> 6.1.192).
apt_upstream() {
    local v=$1
    case $v in
        *:*) v=${v#*:} ;;
    esac
    case $v in
        *-*) v=${v%-*} ;;
    esac
    printf '%s\n' "$v"
}

# apt_series VERSION: the first two components of its upstream release (6.1.192-2 -> 6.1).
apt_series() {
    local u
    u=$(apt_upstream "$1")
    printf '%s\n' "$u" | cut -d. -f1,2
}

# apt_madison_versions: the versions in `apt-cache madison` output on stdin (the second "|"
# field), one a line, each once, in their first order.
apt_madison_versions() {
    awk -F'|' 'NF >= 3 { v = $2; gsub(/^[ \t]+|[ \t]+$/, "", v); if (v != "" && !seen[v]++) print v }'
}

# apt_pick_version WANT SCOPE: prints the version to download and how it relates to WANT
# ("VERSION exact", "VERSION revision", "VERSION series") from `apt-cache madison` output on
# stdin; SCOPE is "release" (rules 1-2) or "series" (rules 1-3). Exit 1, printing nothing, when
# no version qualifies.
apt_pick_version() {
    local want=$1 scope=$2 v best
    local -a versions
    mapfile -t versions < <(apt_madison_versions)
    for v in "${versions[@]}"; do
        [ "$v" = "$want" ] && { echo "$v exact"; return 0; }
    done
    best=$(_apt_newest apt_upstream "$(apt_upstream "$want")" "${versions[@]}")
    [ -z "$best" ] || { echo "$best revision"; return 0; }
    [ "$scope" = series ] || return 1
    best=$(_apt_newest apt_series "$(apt_series "$want")" "${versions[@]}")
    [ -z "$best" ] || { echo "$best series"; return 0; }
    return 1
}

# _apt_newest KEYFN KEY VERSION...: the newest VERSION (dpkg's order) whose KEYFN is KEY; empty
# when none is.
_apt_newest() {
    local fn=$1 key=$2 v best=''
    shift 2
    for v in "$@"; do
        [ "$("$fn" "$v")" = "$key" ] || continue
        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
    done
    printf '%s' "$best"
}

# apt_choose PKG WANT SCOPE: apt_pick_version over what the archive has of PKG today (apt-cache
# madison). Sets APT_CHOICE ("VERSION exact|revision|series") or APT_CHOICE_ERROR (the versions
# the archive has, or that it has none) and returns 1.
apt_choose() {
    local pkg=$1 want=$2 scope=$3 out have
    APT_CHOICE='' APT_CHOICE_ERROR=''
    out=$(apt-cache madison "$pkg" 2>/dev/null) || true
    # shellcheck disable=SC2034  # read by the caller
    if APT_CHOICE=$(apt_pick_version "$want" "$scope" <<<"$out"); then
        return 0
    fi
    have=$(apt_madison_versions <<<"$out" | paste -sd' ')
    if [ "$scope" = series ]; then
        APT_CHOICE_ERROR="the archive has no $pkg of release $(apt_upstream "$want") or series $(apt_series "$want")"
    else
        APT_CHOICE_ERROR="the archive has no $pkg of release $(apt_upstream "$want")"
    fi
    APT_CHOICE_ERROR+=" (it has: ${have:-none}; apt-get update?)"
    return 1
}

# apt_update_once WHY: as root, `apt-get update` once per process (the lists may name versions the
# archive no longer has, or lack the ones it has now); returns 1 when not root or already done.
apt_update_once() {
    [ -z "${APT_UPDATED:-}" ] && [ "$(id -u)" = 0 ] || return 1
    APT_UPDATED=1
    echo "testbed: $1; running apt-get update" >&2
    apt-get update -qq >&2 || true
}
