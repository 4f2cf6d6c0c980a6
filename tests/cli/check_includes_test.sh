#!/bin/bash
# CTest check_includes (unit): tools/check-includes passes the tree, and fails on a tree whose
# base/ includes model/ (against the graph) and whose orchestrator/launch includes
# orchestrator/sweep (an edge the table does not hold), naming each file, line and edge.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$ROOT/tools/check-includes" "$ROOT" >"$T/tree.out" || { cat "$T/tree.out" >&2; fail "the tree breaks the graph"; }
mkdir -p "$T/bad/base" "$T/bad/model" "$T/bad/orchestrator/launch" "$T/bad/orchestrator/sweep"
printf '#include <string>\n#include "base/ok.h"\n#include "model/up.h"\n' >"$T/bad/base/a.h"
printf '#include "orchestrator/campaign/c.h"\n#include "orchestrator/sweep/s.h"\n' >"$T/bad/orchestrator/launch/l.cc"
rc=0
"$ROOT/tools/check-includes" "$T/bad" >"$T/bad.out" || rc=$?
cat "$T/bad.out"
[ "$rc" = 1 ] || fail "a tree against the graph: exit $rc, expected 1"
grep -qx 'base/a.h:3: base -> model (allowed: none)' "$T/bad.out" || fail "base -> model not named"
grep -q '^orchestrator/launch/l.cc:2: orchestrator/launch -> orchestrator/sweep ' "$T/bad.out" ||
    fail "launch -> sweep not named"
! grep -q 'l.cc:1' "$T/bad.out" || fail "launch -> campaign (in the table) was called a violation"
echo "PASS: check-includes"
