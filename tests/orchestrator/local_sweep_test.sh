#!/bin/bash
# Testbed test (a): `rdmabench sweep` with the local launcher, run inside
#   testbed/softroce run -- tests/orchestrator/local_sweep_test.sh RDMABENCH CHECK_RESULTS
# (RDMABENCH_TEST_DEVICE/ADDR/GID_INDEX set). configs/quick.json must run with every point ok
# and every result valid; --resume of a complete sweep runs nothing; SIGINT in the middle of a
# sweep stops it (exit 130, nothing left running, finished results kept) and --resume completes
# exactly the rest. Fails (never skips) when the testbed is missing.
set -u
BIN=${1:?usage: local_sweep_test.sh RDMABENCH CHECK_RESULTS}
CHECK=${2:?usage: local_sweep_test.sh RDMABENCH CHECK_RESULTS}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/rb-sweep-local.XXXXXX")
# shellcheck source=tests/orchestrator/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
[ -n "${RDMABENCH_TEST_DEVICE:-}" ] || fail "RDMABENCH_TEST_DEVICE is not set: run this inside testbed/softroce run"

# leftovers: rdmabench server/client processes still running (waits up to $1 s for them to go).
leftovers() {
    local i
    for ((i = 0; i < ${1:-5} * 10; i++)); do
        pgrep -af 'rdmabench (server|client)' >/dev/null || return 1
        sleep 0.1
    done
    pgrep -af 'rdmabench (server|client)' >&2
    return 0
}

step "1. configs/quick.json, local launcher"
"$BIN" sweep "$SRC/configs/quick.json" --out "$T/quick" >"$T/quick.out" 2>"$T/quick.err"
rc=$?
show "$T/quick.out" "$T/quick.err"
[ "$rc" = 0 ] || fail "sweep exited with $rc"
n=$("$BIN" sweep "$SRC/configs/quick.json" --dry-run | grep -c '^  [0-9]*/[0-9]* ')
[ "$n" -ge 3 ] || fail "quick.json has only $n points"
counts=$("$CHECK" "$T/quick") || fail "results do not validate ($counts)"
[ "$counts" = "ok=$n failed=0 skipped=0 results=$n lines=$n envs=1" ] ||
    fail "expected $n ok points, got: $counts"
[ "$(grep -c '^\[[0-9]*/[0-9]*\] ok ' "$T/quick.err")" = "$n" ] || fail "expected one progress line per point"
grep -q "\"$RDMABENCH_TEST_DEVICE\"" "$T/quick/env/local.json" || fail "env/local.json does not list $RDMABENCH_TEST_DEVICE"
grep -q '"kernel": "Linux' "$T/quick/env/local.json" || fail "env/local.json has no kernel"
! leftovers 5 || fail "rdmabench processes left running after the sweep"

step "2. --resume of a complete sweep runs nothing"
"$BIN" sweep "$SRC/configs/quick.json" --out "$T/quick" --resume >"$T/resume.out" 2>&1 || fail "resume exited with $?"
show "$T/resume.out"
grep -q ", 0 to run, $n already done" "$T/resume.out" || fail "resume did not see $n done points"
[ "$(wc -l <"$T/quick/index.jsonl")" = "$n" ] || fail "resume appended to the index"

step "3. an earlier sweep's folder without --resume is refused (exit 2)"
"$BIN" sweep "$SRC/configs/quick.json" --out "$T/quick" >"$T/again.out" 2>&1
rc=$?
show "$T/again.out"
[ "$rc" = 2 ] && grep -q -- "--resume" "$T/again.out" || fail "expected exit 2 mentioning --resume, got $rc"

step "4. SIGINT in the middle; then --resume"
cat >"$T/int.json" <<JSON
{"name": "interrupt", "timeout_s": 300,
 "hosts": [{"name": "local",
            "server": {"host": "local", "device": "$RDMABENCH_TEST_DEVICE", "gid_index": $RDMABENCH_TEST_GID_INDEX},
            "client": {"host": "local", "device": "$RDMABENCH_TEST_DEVICE", "gid_index": $RDMABENCH_TEST_GID_INDEX}}],
 "matrix": {"op": ["write", "send"], "sizes": [[64], [4096]], "iterations": 3000}}
JSON
"$BIN" sweep "$T/int.json" --out "$T/int" >"$T/int.out" 2>"$T/int.err" &
pid=$!
for ((i = 0; i < 3000; i++)); do
    grep -q '\] ok ' "$T/int.err" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
grep -q '\] ok ' "$T/int.err" || { show "$T/int.err"; fail "no point finished"; }
sleep 1  # the next point is starting or running
kill -INT "$pid"
wait "$pid"
rc=$?
show "$T/int.out" "$T/int.err"
[ "$rc" = 130 ] || fail "expected exit status 130 after SIGINT, got $rc"
grep -q -- "--resume" "$T/int.err" || fail "no hint to --resume"
! leftovers 5 || fail "rdmabench processes left running after SIGINT"
ok_before=$(grep -c '"status":"ok"' "$T/int/index.jsonl")
[ "$ok_before" -ge 1 ] && [ "$ok_before" -lt 4 ] || fail "expected 1..3 ok points before the interrupt, got $ok_before"
"$BIN" sweep "$T/int.json" --out "$T/int" --resume >"$T/int2.out" 2>"$T/int2.err"
rc=$?
show "$T/int2.out" "$T/int2.err"
[ "$rc" = 0 ] || fail "resume exited with $rc"
grep -q ", $((4 - ok_before)) to run, $ok_before already done" "$T/int2.out" || fail "resume did not run exactly the missing points"
counts=$("$CHECK" "$T/int") || fail "results do not validate ($counts)"
case $counts in ok=4\ failed=0\ *) ;; *) fail "after resume: $counts" ;; esac
[ "$(grep -c '"status":"ok"' "$T/int/index.jsonl")" = 4 ] || fail "a finished point was run again"
! leftovers 5 || fail "rdmabench processes left running"

rm -rf "$T"
echo "PASS: local sweep" >&2
