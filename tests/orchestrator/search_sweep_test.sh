#!/bin/bash
# Testbed test: a campaign with a `search` block instead of a matrix, run inside
#   testbed/softroce run -- tests/orchestrator/search_sweep_test.sh RDMABENCH CHECK_RESULTS
# (RDMABENCH_TEST_DEVICE/ADDR/GID_INDEX set). configs/search-example.json: --dry-run lists the
# budgeted points, the same ones every time (seeded); the sweep runs exactly those points with
# every result valid, each measuring the whole line of sizes; index.jsonl ends with a "cliffs"
# record (possibly an empty list: planted cliffs are the unit tests' job) that covers every run;
# --resume runs nothing and writes a fresh record. Fails (never skips) without the testbed.
set -u
BIN=${1:?usage: search_sweep_test.sh RDMABENCH CHECK_RESULTS}
CHECK=${2:?usage: search_sweep_test.sh RDMABENCH CHECK_RESULTS}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CFG=$SRC/configs/search-example.json
T=$(mktemp -d "${TMPDIR:-/tmp}/rb-sweep-search.XXXXXX")
# shellcheck source=tests/orchestrator/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
[ -n "${RDMABENCH_TEST_DEVICE:-}" ] || fail "RDMABENCH_TEST_DEVICE is not set: run this inside testbed/softroce run"
BUDGET=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search"]["budget"])' "$CFG")

step "1. --dry-run lists the budgeted points, the same ones on every call"
"$BIN" sweep "$CFG" --dry-run >"$T/dry1.out" 2>&1 || { show "$T/dry1.out"; fail "dry run exited with $?"; }
"$BIN" sweep "$CFG" --dry-run >"$T/dry2.out" 2>&1 || fail "second dry run exited with $?"
show "$T/dry1.out"
cmp -s "$T/dry1.out" "$T/dry2.out" || fail "two dry runs of the same seeded campaign differ"
grep -q "^search: lhs, seed 1, budget $BUDGET run(s): $BUDGET sample(s), each a line along sizes" "$T/dry1.out" ||
    fail "no search summary in the dry run"
grep -q '^cliff: bw_gbps along sizes' "$T/dry1.out" || fail "no cliff settings in the dry run"
grep -o '^  [0-9]*/[0-9]* [^ ]*' "$T/dry1.out" | awk '{print $2}' >"$T/dry.ids"
[ "$(wc -l <"$T/dry.ids")" = "$BUDGET" ] || fail "expected $BUDGET points in the dry run"
[ "$(sort -u "$T/dry.ids" | wc -l)" = "$BUDGET" ] || fail "point ids are not unique"
[ "$(grep -c 'sizes=64,128,256,512,1K,2K,4K,8K,16K' "$T/dry1.out")" = "$BUDGET" ] ||
    fail "every point should measure the line of sizes 64..16K"

step "2. the sweep runs exactly those points and records the cliffs"
"$BIN" sweep "$CFG" --out "$T/s" >"$T/run.out" 2>"$T/run.err"
rc=$?
show "$T/run.out" "$T/run.err"
[ "$rc" = 0 ] || fail "sweep exited with $rc"
counts=$("$CHECK" "$T/s") || fail "results do not validate ($counts)"
[ "$counts" = "ok=$BUDGET failed=0 skipped=0 results=$BUDGET lines=$((BUDGET + 1)) envs=1" ] ||
    fail "expected $BUDGET ok points and one record line, got: $counts"
grep -q '^cliffs (bw_gbps along sizes, a drop of more than 30 % from the previous value): [0-9]* in [0-9]* line(s)' "$T/run.out" ||
    fail "the sweep did not print its cliffs"
py_check "index or results do not match the search" "$T/s" "$T/dry.ids" <<'PY'
import json, os, sys
d, ids = sys.argv[1], open(sys.argv[2]).read().split()
lines = [json.loads(l) for l in open(d + "/index.jsonl") if l.strip()]
points = [l for l in lines if "point_id" in l]
records = [l for l in lines if l.get("record") == "cliffs"]
assert sorted(p["point_id"] for p in points) == sorted(ids), "index points differ from the dry run"
assert len(records) == 1 and lines[-1] is records[0], "expected one cliffs record, last"
r = records[0]
assert r["metric"] == "bw_gbps" and r["along"] == "sizes" and r["threshold"] == 0.3, r
assert isinstance(r["cliffs"], list), r
sizes = [64 << k for k in range(9)]
for pid in ids:
    doc = json.load(open(os.path.join(d, pid + ".json")))
    assert [x["size"] for x in doc["results"]] == sizes, (pid, [x["size"] for x in doc["results"]])
    assert doc["workload"]["sizes"] == sizes and doc["point"]["matrix"]["sizes"] == sizes
    assert doc["workload"]["op"] == "write" and doc["workload"]["qp"] in ("rc", "uc")
    assert doc["workload"]["tx_depth"] in (4, 8, 16, 32, 64) and doc["point"]["matrix"]["mtu"] in (256, 1024)
# Every run is one line of 9 sizes (lines of a single value would not count).
assert r["lines"] == len(ids) and r["values"] == 9 * len(ids), r
for c in r["cliffs"]:
    assert c["point_id"] in ids and c["value"] in sizes and c["previous"]["value"] < c["value"], c
    assert c["metric"] < 0.7 * c["previous"]["metric"] and c["shape"] in ("dip", "step", "end"), c
print("index: %d points, %d cliff(s)" % (len(points), len(r["cliffs"])))
PY

step "3. --resume runs nothing and appends a fresh cliffs record"
"$BIN" sweep "$CFG" --out "$T/s" --resume >"$T/resume.out" 2>&1 || { show "$T/resume.out"; fail "resume exited with $?"; }
show "$T/resume.out"
grep -q ", 0 to run, $BUDGET already done" "$T/resume.out" || fail "resume did not see $BUDGET done points"
[ "$(grep -c '"record":"cliffs"' "$T/s/index.jsonl")" = 2 ] || fail "expected a second cliffs record"
! pgrep -af 'rdmabench (server|client)' >&2 || fail "rdmabench processes left running"

rm -rf "$T"
echo "PASS: search sweep" >&2
