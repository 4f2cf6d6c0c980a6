#!/bin/bash
# CTest deb_install (label "machine": it installs a package on this machine, so tools/test runs
# it only with RDMABENCH_TEST_MACHINE=1, as CI does): tools/package builds the .deb (lintian
# without errors); `apt-get install ./rdmabench_*.deb` puts rdmabench in PATH with its manual
# page; a campaign over the testbed pair whose hosts run the installed rdmabench from their PATH
# (the guests share this machine's root) completes; `apt-get remove` leaves none of its files.
#   deb_test.sh CHECK_RESULTS
set -u
CHECK=${1:?usage: deb_test.sh CHECK_RESULTS}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SOFTROCE=$ROOT/testbed/softroce
# shellcheck source=tests/orchestrator/test_lib.sh
. "$ROOT/tests/orchestrator/test_lib.sh"
[ "$(id -u)" = 0 ] || fail "deb_install installs a package: run it as root (CI does)"
if dpkg-query -W -f='${Status}' rdmabench 2>/dev/null | grep -q "install ok installed"; then
    fail "rdmabench is installed on this machine already: remove it first"
fi
pair_workdir rb-deb
remove_package() { apt-get remove -y -qq rdmabench >/dev/null 2>&1 || true; }
trap 'remove_package; pair_cleanup' EXIT

step "1. tools/package"
deb=$(RDMABENCH_PACKAGE_DIR=$WORK/package "$ROOT/tools/package" 2>"$WORK/package.err") ||
    { show "$WORK/package.err"; fail "tools/package failed"; }
show "$WORK/package.err"
[ -f "$deb" ] || fail "tools/package printed '$deb', not a file"

step "2. apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$WORK/install.log" 2>&1 ||
    { show "$WORK/install.log"; fail "apt-get install failed"; }
[ "$(command -v rdmabench)" = /usr/bin/rdmabench ] || fail "rdmabench is not /usr/bin/rdmabench in PATH"
rdmabench --version | grep -qx "rdmabench [0-9.]*" || fail "the installed rdmabench does not run"
[ "$(man -w rdmabench)" = /usr/share/man/man1/rdmabench.1.gz ] || fail "man -w rdmabench: $(man -w rdmabench 2>&1)"
dpkg -L rdmabench >"$WORK/files"

step "3. a campaign over the pair with the installed rdmabench on both hosts"
CFG=$(PATH=/usr/bin:/bin timeout 900 "$SOFTROCE" pair up) || fail "testbed/softroce pair up failed"
cat >"$WORK/campaign.json" <<JSON
{"name": "deb", "ssh_config": "$CFG", "connect_timeout_s": 20,
 "hosts": [{"name": "p", "server": {"host": "rb-host1", "device": "rxe0"},
            "client": {"host": "rb-host2", "device": "rxe0"}, "connect_address": "198.18.0.1"}],
 "matrix": {"op": ["write", "send"], "sizes": [[4096]], "iterations": 200, "timeout_s": 30},
 "repetitions": 1, "timeout_s": 120}
JSON
rdmabench sweep "$WORK/campaign.json" --out "$WORK/out" >"$WORK/sweep.out" 2>&1 ||
    { show "$WORK/sweep.out"; fail "the campaign failed"; }
counts=$("$CHECK" "$WORK/out") || fail "results do not validate ($counts)"
[[ $counts == "ok=2 failed=0 skipped=0 "* ]] || fail "campaign: $counts"

step "4. apt-get remove leaves none of its files"
apt-get remove -y -qq rdmabench >"$WORK/remove.log" 2>&1 || { show "$WORK/remove.log"; fail "apt-get remove failed"; }
left=$(while read -r f; do [ -f "$f" ] && echo "$f"; done <"$WORK/files")
[ -z "$left" ] || fail "left after apt-get remove: $left"
hash -r
command -v rdmabench >/dev/null && fail "rdmabench still in PATH after apt-get remove"
echo "PASS" >&2
