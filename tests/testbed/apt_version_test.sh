#!/bin/bash
# CTest testbed_apt_version (unit): testbed/apt-version.sh's choice of a package version when the
# archive has moved under the guest kernel's (issue 46), from `apt-cache madison` output as the
# archive printed it: exact, a newer revision, an older revision, a kbuild of the same series, and
# none (with the reason naming what the archive has).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=testbed/apt-version.sh
. "$HERE/../../testbed/apt-version.sh"
failures=0
check() { # NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'" >&2; failures=$((failures + 1)); fi
}
pick() { # WANT SCOPE (madison on stdin): the choice, or "none (exit N)"
    local out rc=0
    out=$(apt_pick_version "$1" "$2") || rc=$?
    [ "$rc" = 0 ] && echo "$out" || echo "none (exit $rc)"
}

# The archive of 2026-11-28 (issue 46): the image and headers at 6.1.192-2, kbuild only at
# 6.1.192-3 and 6.1.176-1, the source at 6.1.192-3 (and on another day also at -2).
KBUILD=' linux-kbuild-6.1 |  6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-kbuild-6.1 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main amd64 Packages'
SOURCE_AHEAD='linux-source-6.1 |  6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-source-6.1 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main amd64 Packages'
SOURCE_ALL='linux-source-6.1 |  6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-source-6.1 |  6.1.192-2 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-source-6.1 |  6.1.192-1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-source-6.1 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main amd64 Packages
linux-source-6.1 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main Sources'
HEADERS='linux-headers-6.1.0-56-common |  6.1.192-2 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages'
# The archive behind the image: only older revisions of the release are left.
BEHIND='linux-kbuild-6.1 |  6.1.192-1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-kbuild-6.1 |  6.1.190-1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages
linux-kbuild-6.1 |  6.1.176-1 | http://deb.debian.org/debian bookworm/main amd64 Packages'
# Two older revisions: the newer of them (numerically: -10 above -9).
BEHIND2='linux-source-6.1 |  6.1.192-9 | a
linux-source-6.1 |  6.1.192-10 | a
linux-source-6.1 |  6.1.191-12 | a'
# No 6.1.192 at all.
OTHER='linux-kbuild-6.1 |  6.1.190-1 | a
linux-kbuild-6.1 |  6.1.176-1 | b
linux-kbuild-6.2 |  6.2.1-1 | c'

check "exact: the headers at the image's version" "6.1.192-2 exact" "$(pick 6.1.192-2 release <<<"$HEADERS")"
check "exact: the source where -2 is still there beside -3" "6.1.192-2 exact" "$(pick 6.1.192-2 release <<<"$SOURCE_ALL")"
check "newer revision: kbuild 6.1.192-3 for 6.1.192-2" "6.1.192-3 revision" "$(pick 6.1.192-2 series <<<"$KBUILD")"
check "newer revision: the source 6.1.192-3 for 6.1.192-2" "6.1.192-3 revision" "$(pick 6.1.192-2 release <<<"$SOURCE_AHEAD")"
check "older revision: kbuild 6.1.192-1 for 6.1.192-2" "6.1.192-1 revision" "$(pick 6.1.192-2 series <<<"$BEHIND")"
check "older revisions: the newest of them (-10 above -9)" "6.1.192-10 revision" "$(pick 6.1.192-11 release <<<"$BEHIND2")"
check "series: kbuild 6.1.190-1, the newest 6.1 when no 6.1.192 is left" "6.1.190-1 series" "$(pick 6.1.192-2 series <<<"$OTHER")"
check "none: no source of release 6.1.192" "none (exit 1)" "$(pick 6.1.192-2 release <<<"$OTHER")"
check "none: an empty archive" "none (exit 1)" "$(pick 6.1.192-2 series <<<"")"
check "none: no kbuild of series 6.3" "none (exit 1)" "$(pick 6.3.1-1 series <<<"$OTHER")"
check "epochs: 1:6.1.192-3 is a revision of 1:6.1.192-2" "1:6.1.192-3 revision" \
    "$(pick 1:6.1.192-2 release <<<' p | 1:6.1.192-3 | a')"
check "upstream of 1:6.1.192-2" "6.1.192" "$(apt_upstream 1:6.1.192-2)"
check "upstream of a native version" "6.1.192" "$(apt_upstream 6.1.192)"
check "series of 6.1.192-2" "6.1" "$(apt_series 6.1.192-2)"
check "madison versions, each once" "6.1.192-3 6.1.192-2 6.1.192-1 6.1.176-1" \
    "$(apt_madison_versions <<<"$SOURCE_ALL" | paste -sd' ')"

# apt_choose: the error names the package, the release and what the archive has.
apt-cache() { [ "$1" = madison ] && printf '%s\n' "$OTHER"; }
APT_CHOICE='' APT_CHOICE_ERROR=''
apt_choose linux-source-6.1 6.1.192-2 release && check "apt_choose fails" "1" "0"
check "apt_choose's reason" \
    "the archive has no linux-source-6.1 of release 6.1.192 (it has: 6.1.190-1 6.1.176-1 6.2.1-1; apt-get update?)" \
    "$APT_CHOICE_ERROR"
apt_choose linux-kbuild-6.1 6.1.192-2 series
check "apt_choose: a series choice" "6.1.190-1 series" "$APT_CHOICE"

[ "$failures" = 0 ] || { echo "FAIL: $failures check(s)" >&2; exit 1; }
echo PASS
