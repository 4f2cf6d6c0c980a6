#!/bin/bash
# CTest siw_skip_rule (unit): run_on_siw.sh with a stand-in testbed/softroce whose siw-module
# says "cannot be built" (exit 3): without RDMABENCH_REQUIRE_TESTBED it exits 77 (CTest "Not
# Run") and says it skipped; with RDMABENCH_REQUIRE_TESTBED=1 it fails (exit 1) naming the
# reason; a buildable module runs the suite through `softroce run --transport iwarp`.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >"$T/softroce" <<'SH'
#!/bin/sh
if [ "$1" = siw-module ]; then
    echo "siw.ko: no linux-source for the guest kernel" >&2
    exit "${FAKE_SIW_RC:-3}"
fi
echo "ran: $*"
SH
chmod +x "$T/softroce"

rc=0
env -u RDMABENCH_REQUIRE_TESTBED "$HERE/run_on_siw.sh" "$T/softroce" engine_tests >"$T/out" 2>&1 || rc=$?
cat "$T/out" >&2
[ "$rc" = 77 ] || fail "without RDMABENCH_REQUIRE_TESTBED: exit $rc, expected 77"
grep -q "NOT RUN (skipped)" "$T/out" || fail "the skip is not said"

rc=0
RDMABENCH_REQUIRE_TESTBED=1 "$HERE/run_on_siw.sh" "$T/softroce" engine_tests >"$T/out" 2>&1 || rc=$?
cat "$T/out" >&2
[ "$rc" = 1 ] || fail "with RDMABENCH_REQUIRE_TESTBED=1: exit $rc, expected 1"
grep -q "^FAIL: siw.ko cannot be built" "$T/out" || fail "the failure does not give the reason"
grep -q "no linux-source" "$T/out" || fail "the module's own reason is not shown"

rc=0
FAKE_SIW_RC=0 RDMABENCH_REQUIRE_TESTBED=1 "$HERE/run_on_siw.sh" "$T/softroce" engine_tests --x \
    >"$T/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "a buildable module: exit $rc"
grep -qx "ran: run --transport iwarp --timeout 1500 -- engine_tests --x" "$T/out" ||
    fail "the suite was not run on iwarp: $(cat "$T/out")"
echo PASS >&2
