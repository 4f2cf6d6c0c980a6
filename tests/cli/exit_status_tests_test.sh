#!/bin/bash
# CTest exit_status_tests (unit): every exit status of the table in docs/single-pair.md ("Exit status")
# has a row in tests/README.md "Exit statuses and the tests that produce them", and each row's
# file holds its check (the assertion that the status came), so a status no test produces, or a
# test that no longer checks it, fails here.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
# The statuses: the first column of the table under the heading "Exit status" (any level) of
# docs/single-pair.md, up to the next heading.
PAGE=docs/single-pair.md
statuses=$(awk '/^#+ Exit status$/ { on = 1; next } on && /^#/ { exit }
  on && /^\| [0-9]+ \|/ { print $2 }' "$ROOT/$PAGE")
[ -n "$statuses" ] || fail "no exit-status table found in $PAGE"
rows=$(awk '/^## Exit statuses and the tests that produce them/ { on = 1; next } on && /^## / { exit }
  on && /^\| [0-9]+ \|/ { print }' "$ROOT/tests/README.md")
[ -n "$rows" ] || fail "no table in tests/README.md 'Exit statuses and the tests that produce them'"
n=0
for status in $statuses; do
    row=$(grep -E "^\| $status \|" <<<"$rows" | head -n 1)
    [ -n "$row" ] || fail "exit status $status of $PAGE has no test in tests/README.md"
    # Columns: status | produced by | file | `check` (a literal; "\|" stands for "|").
    file=$(awk -F' \\| ' '{ print $3 }' <<<"$row")
    check=$(sed -E 's/.*\| `(.*)` \|$/\1/; s/\\\|/|/g' <<<"$row")
    [ -f "$ROOT/$file" ] || fail "status $status: no file $file"
    grep -qF -- "$check" "$ROOT/$file" || fail "status $status: $file does not contain: $check"
    echo "ok: $status ($file)"
    n=$((n + 1))
done
echo "PASS: $n exit statuses, each checked by a test"
