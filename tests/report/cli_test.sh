#!/bin/bash
# `rdmabench report` and `rdmabench compare` through the command line (label "unit"): output
# paths, exit statuses (0 same, 1 regression, 2 bad input) and the JSON of compare. The planted
# regression is made here from the committed fixtures (rates of 4 KiB halved).
# Usage: cli_test.sh RDMABENCH FIXTURES_DIR
set -uo pipefail
BIN=$1
FIX=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-cli-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
check() {  # check NAME EXPECTED_STATUS COMMAND...
  local name=$1 want=$2
  shift 2
  "$@" > "$T/out" 2> "$T/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "cli_test: FAIL: $name: exit $got, expected $want" >&2
    sed 's/^/  stdout: /' "$T/out" | head -20 >&2
    sed 's/^/  stderr: /' "$T/err" | head -20 >&2
  fi
}
expect_grep() {  # expect_grep NAME PATTERN FILE
  if grep -q -- "$2" "$3"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "cli_test: FAIL: $1: no '$2' in $3:" >&2; head -20 "$3" >&2; fi
}

# report: default output next to the results, --out elsewhere
mkdir -p "$T/bw"
cp "$FIX/results/bw/"*.json "$T/bw/"
check "report default out" 0 "$BIN" report "$T/bw"
expect_grep "report prints its path" "^$T/bw/report.html\$" "$T/out"
[ -s "$T/bw/report.html" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "cli_test: FAIL: no report.html" >&2; }
check "report --out" 0 "$BIN" report "$FIX/campaign/results" --out "$T/sub/dir/c.html"
[ -s "$T/sub/dir/c.html" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "cli_test: FAIL: no c.html" >&2; }
mkdir -p "$T/empty"
check "report empty folder" 2 "$BIN" report "$T/empty"
expect_grep "report empty folder names it" "$T/empty" "$T/err"
check "report foreign file" 2 "$BIN" report "$FIX/results/foreign/devices.json"
check "report --out a folder" 2 "$BIN" report "$FIX/results/bw" --out "$T"
expect_grep "report --out a folder says so" "it is a folder" "$T/err"
check "report pdf" 2 "$BIN" report "$FIX/results/bw" --out "$T/x.html" --format pdf
check "report without gnuplot (the tables)" 0 env PATH=/nonexistent "$BIN" report "$FIX/results/bw" --out "$T/y.html"
expect_grep "report without gnuplot says so" "gnuplot not found in PATH" "$T/err"
expect_grep "report without gnuplot says so on the page" "this page has the tables only" "$T/y.html"

# compare: same set, planted regression, swapped, JSON, bad input
python3 - "$FIX/results/repeat" "$T/slow" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
for name in sorted(os.listdir(src)):
    doc = json.load(open(os.path.join(src, name)))
    for s in doc["results"]:
        if s["size"] == 4096:
            s["seconds"] *= 2; s["gbps"] /= 2; s["mmsg_per_s"] /= 2
    json.dump(doc, open(os.path.join(dst, name), "w"))
PY
check "compare same" 0 "$BIN" compare "$FIX/results/repeat" "$FIX/results/repeat"
expect_grep "compare same: no regression" "0 regression(s)" "$T/out"
check "compare regression" 1 "$BIN" compare "$FIX/results/repeat" "$T/slow"
expect_grep "compare regression flagged" "write rc bw  *4K  *Gb/s .*-50.0%  *REGRESSION" "$T/out"
check "compare improvement" 0 "$BIN" compare "$T/slow" "$FIX/results/repeat"
expect_grep "compare improvement" "+100.0%  *improvement" "$T/out"
check "compare regression above threshold" 0 "$BIN" compare "$FIX/results/repeat" "$T/slow" --threshold 60
check "compare json" 1 "$BIN" compare "$FIX/results/repeat" "$T/slow" --json --metric gbps
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["regressions"]==1 and len(j["comparisons"])==11, j' "$T/out" &&
  passed=$((passed + 1)) || { failed=$((failed + 1)); echo "cli_test: FAIL: compare JSON" >&2; }
check "compare missing" 2 "$BIN" compare "$FIX/results/repeat" "$T/nothing"
check "compare foreign" 2 "$BIN" compare "$FIX/results/foreign/devices.json" "$FIX/results/repeat"
check "compare unrelated" 2 "$BIN" compare "$FIX/results/bw" "$FIX/results/lat"
check "compare bad threshold" 2 "$BIN" compare "$FIX/results/repeat" "$FIX/results/repeat" --threshold=-3
expect_grep "bad threshold named" "threshold" "$T/err"
check "compare bad metric" 2 "$BIN" compare "$FIX/results/repeat" "$FIX/results/repeat" --metric p42
check "compare one argument" 2 "$BIN" compare "$FIX/results/repeat"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
