#!/bin/bash
# `rdmabench export --junit` and `--prometheus` against their validators (label "unit"): the
# committed campaign fixture (ok, failed and repeated points) plus a point and a fabric verdict
# planted here with every character the formats must escape (quotes, backslashes, newlines,
# markup, a control character). The JUnit XML is validated by `xmllint --schema` against
# tests/fixtures/junit.xsd and its counts read back; the Prometheus text by `promtool check
# metrics` (Debian's prometheus) and parsed by the Prometheus client's own parser
# (python3-prometheus-client), which must read back the medians and the escaped labels. Then a
# check's document and a comparison (`compare --json`, a regression planted) as JUnit.
# Usage: export_formats_test.sh RDMABENCH FIXTURES_DIR
set -uo pipefail
BIN=$1
FIX=$2
PY=/usr/bin/python3  # Debian's, with python3-prometheus-client (not a pyenv's)
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-export-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "export_formats_test: FAIL: $*" >&2; exit 1; }
for tool in xmllint promtool; do
  command -v $tool >/dev/null || fail "$tool not found (tools/install-deps test: libxml2-utils, prometheus)"
done
$PY -c 'import prometheus_client' 2>/dev/null || fail "python3-prometheus-client not installed"

cp -r "$FIX/campaign/results" "$T/c"
# A failed point whose reason needs escaping, and a fabric verdict record naming a link the same.
cat >> "$T/c/index.jsonl" <<'JSON'
{"point_id":"write-rc-bw-64_4K-odd-r1-0000000001","status":"failed","duration_s":1.5,"error":"a <b> & \"c\" 'd'\u0001 e\nsecond line","host_pair":"odd","repetition":1,"time":"2026-11-27T10:00:00Z"}
{"record":"verdicts","criteria":{},"judged":3,"counts":{"ok":2,"congested":0,"bad":1,"failed":0,"suspect":0},"not_ok":[{"link":"h\"1\\ -> h2\nx","matrix":{"op":"write","qp":"rc","mode":"bw"},"size":65536,"metric":"gbps","value":1.0,"best":9.0,"alone":1.0,"verdict":"bad","why":"slow","point_id":"p"}],"time":"2026-11-27T10:00:00Z"}
JSON

# --- JUnit ---
"$BIN" export --junit "$T/c" -o "$T/out.xml" || fail "export --junit exited $?"
xmllint --noout --schema "$FIX/junit.xsd" "$T/out.xml" 2> "$T/xmllint.err" ||
  { cat "$T/xmllint.err" >&2; fail "the JUnit XML does not validate against junit.xsd"; }
points=$(grep -v '"record"' "$T/c/index.jsonl" | $PY -c 'import json,sys; print(len({json.loads(l)["point_id"] for l in sys.stdin if l.strip()}))')
failed=$(grep -v '"record"' "$T/c/index.jsonl" | $PY -c '
import json,sys
last={}
for l in sys.stdin:
    if l.strip(): j=json.loads(l); last[j["point_id"]]=j["status"]
print(sum(1 for s in last.values() if s=="failed"))')
$PY - "$T/out.xml" "$points" "$failed" <<'PY' || fail "the JUnit XML's counts"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
assert root.get("tests") == sys.argv[2] and len(cases) == int(sys.argv[2]), (root.attrib, len(cases))
failures = [c for c in cases if c.find("failure") is not None]
assert root.get("failures") == sys.argv[3] and len(failures) == int(sys.argv[3]), root.attrib
odd = [c for c in cases if c.get("name") == "write-rc-bw-64_4K-odd-r1-0000000001"][0]
f = odd.find("failure")
assert f.get("message") == "a <b> & \"c\" 'd'\ufffd e", f.get("message")  # the first line
assert f.text.endswith("second line"), f.text
assert any("invalid device" in (c.find("failure").get("message") or "") for c in failures)
print("junit: %s testcases, %s failures, valid" % (len(cases), len(failures)))
PY

# --- Prometheus ---
"$BIN" export --prometheus "$T/c" -o "$T/out.prom" || fail "export --prometheus exited $?"
promtool check metrics < "$T/out.prom" > "$T/promtool.out" 2>&1 ||
  { cat "$T/promtool.out" >&2; fail "promtool check metrics"; }
$PY - "$T/out.prom" "$T/c" <<'PY' || fail "the Prometheus text read back"
import glob, json, statistics, sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
for name in ["rdmabench_throughput_bytes_per_second", "rdmabench_latency_seconds",
             "rdmabench_points", "rdmabench_link_verdicts", "rdmabench_link_not_ok",
             "rdmabench_port_delta", "rdmabench_message_rate_per_second"]:
    assert name in fams and fams[name].type == "gauge", name
# The median over the repetitions of write/rc/bw at 4 KiB, from the documents themselves.
docs = [json.load(open(p)) for p in glob.glob(sys.argv[2] + "/write-rc-bw-*.json")]
want = statistics.median([r["gbps"] * 1e9 / 8 for d in docs for r in d["results"] if r["size"] == 4096])
got = [s for s in fams["rdmabench_throughput_bytes_per_second"].samples
       if s.labels["op"] == "write" and s.labels["mode"] == "bw" and s.labels["size"] == "4096"]
assert len(got) == 1 and abs(got[0].value - want) <= 1e-6 * want, (got, want)
assert "point_id" not in got[0].labels and set(got[0].labels) == {
    "campaign", "host", "peer", "device", "port", "op", "qp", "mode", "size"}, got[0].labels
status = {s.labels["status"]: s.value for s in fams["rdmabench_points"].samples}
assert status.get("failed", 0) >= 2 and status.get("ok", 0) >= 1, status
bad = fams["rdmabench_link_not_ok"].samples
assert len(bad) == 1 and bad[0].labels["link"] == "h\"1\\ -> h2\nx" and bad[0].value == 1, bad
pct = {s.labels["percentile"] for s in fams["rdmabench_latency_seconds"].samples}
assert pct == {"50", "99", "99.9"}, pct
print("prometheus: %d families, %d samples, valid" % (len(fams), sum(len(f.samples) for f in fams.values())))
PY

# --- Results without host names (lone `rdmabench client` documents): their host and peer labels
# are empty (Prometheus' "absent"), the same in every series, never a figure legend's text ---
"$BIN" export --prometheus "$FIX/results/bw" -o "$T/nohosts.prom" || fail "export --prometheus of lone results exited $?"
promtool check metrics < "$T/nohosts.prom" > "$T/promtool.out" 2>&1 ||
  { cat "$T/promtool.out" >&2; fail "promtool check metrics (lone results)"; }
$PY - "$T/nohosts.prom" <<'PY' || fail "the labels of results without hosts"
import sys
from prometheus_client.parser import text_string_to_metric_families
samples = [s for f in text_string_to_metric_families(open(sys.argv[1]).read()) for s in f.samples]
with_hosts = [s for s in samples if "host" in s.labels]
assert with_hosts, "no sample has a host label"
for s in with_hosts:
    assert s.labels["host"] == "" and s.labels.get("peer", "") == "", s
    assert not any("=" in v for v in s.labels.values()), s
tp = [s for s in samples if s.name == "rdmabench_throughput_bytes_per_second"]
assert tp and all("peer" in s.labels for s in tp), tp[:1]
print("lone results: %d samples, host and peer empty" % len(with_hosts))
PY

# --- A check's document (rdmabench check --json: a rate-limited link, tests/fixtures/check) ---
"$BIN" export --junit "$FIX/check/check-fail.json" -o "$T/check.xml" || fail "export --junit of a check exited $?"
xmllint --noout --schema "$FIX/junit.xsd" "$T/check.xml" 2> "$T/xmllint.err" ||
  { cat "$T/xmllint.err" >&2; fail "the check's JUnit XML does not validate against junit.xsd"; }
"$BIN" export --prometheus "$FIX/check/check-fail.json" -o "$T/check.prom" || fail "export --prometheus of a check exited $?"
promtool check metrics < "$T/check.prom" > "$T/promtool.out" 2>&1 ||
  { cat "$T/promtool.out" >&2; fail "promtool check metrics (check)"; }
$PY - "$T/check.xml" "$T/check.prom" <<'PY' || fail "the check's exports read back"
import sys, xml.etree.ElementTree as ET
from prometheus_client.parser import text_string_to_metric_families
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
assert [c.get("name") for c in cases] == ["port state = ACTIVE", "gid = usable",
    "write bw 64K >= 0.0090 Gb/s", "send lat 8 p99 <= 500 ms", "port mtu >= 1024"], cases
assert root.get("tests") == "5" and root.get("failures") == "1", root.attrib
f = cases[2].find("failure")
assert f.get("message").startswith("measured nothing, expected >= 0.009 Gb/s; the run failed: warm-up: no progress"), f.get("message")
assert all(c.get("classname") == "rdmabench.check.rb-host2" for c in cases), [c.get("classname") for c in cases]
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[2]).read())}
v = fams["rdmabench_check_pass"].samples
assert len(v) == 1 and v[0].value == 0 and v[0].labels == {"host": "rb-host2", "device": "rxe0", "port": "1"}, v
e = {s.labels["expectation"]: s.value for s in fams["rdmabench_check_expectation_pass"].samples}
assert e == {"port state = ACTIVE": 1, "gid = usable": 1, "write bw 64K >= 0.0090 Gb/s": 0,
             "send lat 8 p99 <= 500 ms": 1, "port mtu >= 1024": 1}, e
fig = {s.labels["expectation"]: s.value for s in fams["rdmabench_check_figure"].samples}
assert fig["port mtu >= 1024"] == 1024 and 0 < fig["send lat 8 p99 <= 500 ms"] < 5e8, fig
print("check: junit %d testcases (1 failure), prometheus %d expectations, valid" % (len(cases), len(e)))
PY

# --- A comparison (rdmabench compare --json): the candidate's write 30 % slower, its send gone ---
mkdir -p "$T/cmp-a" "$T/cmp-b"
cp "$FIX"/results/bw/*.json "$T/cmp-a/"
cp "$FIX/results/bw/read.json" "$T/cmp-b/"
$PY - "$FIX/results/bw/write.json" "$T/cmp-b/write.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for k in ("gbps", "mmsg_per_s"):
        if isinstance(r.get(k), (int, float)):
            r[k] *= 0.7
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" compare "$T/cmp-a" "$T/cmp-b" --json > "$T/cmp.json" 2> "$T/cmp.err"
rc=$?
[ "$rc" = 1 ] || { cat "$T/cmp.err" >&2; fail "compare of a 30 % slower write exited $rc, expected 1"; }
"$BIN" export --junit "$T/cmp.json" -o "$T/cmp.xml" || fail "export --junit of a comparison exited $?"
xmllint --noout --schema "$FIX/junit.xsd" "$T/cmp.xml" 2> "$T/xmllint.err" ||
  { cat "$T/xmllint.err" >&2; fail "the comparison's JUnit XML does not validate against junit.xsd"; }
$PY - "$T/cmp.json" "$T/cmp.xml" <<'PY' || fail "the comparison's JUnit read back"
import json, sys, xml.etree.ElementTree as ET
c = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
cases = root.findall("./testsuite/testcase")
failed = [x for x in cases if x.find("failure") is not None]
skipped = [x for x in cases if x.find("skipped") is not None]
assert len(cases) == len(c["comparisons"]) + len(c["not_compared"]), (len(cases), c)
assert len(failed) == c["regressions"] > 0, (len(failed), c["regressions"])
assert all(x.get("name").startswith("write ") for x in failed), [x.get("name") for x in failed]
assert all(x.get("classname") == "rdmabench.compare" for x in cases)
m = failed[0].find("failure").get("message")
assert m.startswith("a regression: ") and "(-30 %)" in m and "the rule: " in m, m
assert len(skipped) == len(c["not_compared"]) > 0 and all(x.get("name").startswith("send ") for x in skipped), \
    [x.get("name") for x in skipped]
print("compare: junit %d testcases, %d regressions, %d not compared, valid" % (len(cases), len(failed), len(skipped)))
PY

# --- Bad input: no format, two formats ---
"$BIN" export "$T/c" > "$T/o" 2> "$T/e" && fail "export without a format succeeded"
grep -q -- "--csv\|format" "$T/e" || { cat "$T/e" >&2; fail "no format: the error names none"; }
"$BIN" export --junit --prometheus "$T/c" > "$T/o" 2> "$T/e" && fail "export with two formats succeeded"
echo "export formats: ok"
