#!/bin/bash
# Opens the page of `rdmabench report` in headless Chromium (label "browser"): the committed
# campaign fixture's report must load every embedded figure (naturalWidth > 0, counted by a
# script injected into a copy of the page) and render to a non-empty PNG screenshot.
# Usage: browser_test.sh RDMABENCH FIXTURE_CAMPAIGN_DIR
# Fails (never skips) when chromium is missing.
set -euo pipefail
BIN=$1
CAMPAIGN=$2
EXPECTED_FIGURES=5   # bandwidth, msgrate, latency, latency_cdf, latency_hist (plots/README.md)

fail() { echo "browser_test: FAIL: $*" >&2; exit 1; }

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || fail "chromium not found in PATH; install the Debian package chromium (tools/install-deps does)"

T=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-browser-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$BIN" report "$CAMPAIGN" --out "$T/report.html" > "$T/report.out" 2> "$T/report.err" ||
  fail "rdmabench report failed: $(cat "$T/report.err")"
[ "$(cat "$T/report.out")" = "$T/report.html" ] || fail "report printed '$(cat "$T/report.out")'"
imgs=$(grep -o '<img ' "$T/report.html" | wc -l)
[ "$imgs" -eq "$EXPECTED_FIGURES" ] || fail "the page has $imgs <img> elements, expected $EXPECTED_FIGURES"

# A copy with a script that writes, once the page has loaded, how many images decoded.
sed 's|</body>|<script>window.addEventListener("load", function () { var n = 0; for (const i of document.images) if (i.complete \&\& i.naturalWidth > 0) n++; var d = document.createElement("div"); d.id = "rb-check"; d.textContent = "loaded-images=" + n + " total-images=" + document.images.length; document.body.appendChild(d); });</script></body>|' \
  "$T/report.html" > "$T/check.html"
grep -q 'rb-check' "$T/check.html" || fail "could not inject the check script"

chrome() {
  # Root needs --no-sandbox; a private profile; bounded in time.
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --user-data-dir="$T/profile" \
    --virtual-time-budget=10000 "$@"
}

chrome --dump-dom "file://$T/check.html" > "$T/dom.html" 2> "$T/chrome-dom.err" ||
  fail "chromium --dump-dom failed (exit $?): $(tail -5 "$T/chrome-dom.err")"
line=$(grep -o 'loaded-images=[0-9]* total-images=[0-9]*' "$T/dom.html" || true)
[ -n "$line" ] || fail "the check script left no result in the DOM: $(tail -5 "$T/chrome-dom.err")"
[ "$line" = "loaded-images=$EXPECTED_FIGURES total-images=$EXPECTED_FIGURES" ] ||
  fail "chromium loaded: $line; expected all $EXPECTED_FIGURES figures"
echo "browser_test: $line"

chrome --screenshot="$T/shot.png" --window-size=1280,2400 --hide-scrollbars \
  "file://$T/report.html" > "$T/chrome-shot.out" 2> "$T/chrome-shot.err" ||
  fail "chromium --screenshot failed: $(tail -5 "$T/chrome-shot.err")"
[ -s "$T/shot.png" ] || fail "no screenshot written"
magic=$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' \n')
[ "$magic" = "89504e470d0a1a0a" ] || fail "the screenshot is not a PNG (starts with $magic)"
echo "browser_test: screenshot $(stat -c %s "$T/shot.png") bytes"
if [ -n "${RDMABENCH_SCREENSHOT_OUT:-}" ]; then cp "$T/shot.png" "$RDMABENCH_SCREENSHOT_OUT"; fi
echo "browser_test: 2 passed, 0 failed"
