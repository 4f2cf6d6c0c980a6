#!/bin/bash
# CTest check_includes (unit): tools/check-includes passes the tree, and fails on a tree whose
# base/ includes model/ (against the graph) and whose orchestrator/launch includes
# orchestrator/campaign or orchestrator/sweep (edges the table does not hold: launch is the
# bottom layer), naming each file, line and edge; its tables are one way (no cycle), and a table
# with a cycle would be refused.
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
grep -q '^orchestrator/launch/l.cc:1: orchestrator/launch -> orchestrator/campaign ' "$T/bad.out" ||
    fail "launch -> campaign not named"
python3 - "$ROOT/tools/check-includes" <<'PY' || fail "the cycle check"
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("check_includes", sys.argv[1])
spec = importlib.util.spec_from_loader("check_includes", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)
assert m.cycle_in(m.TOP) is None and m.cycle_in(m.ORCHESTRATOR) is None, "a declared cycle"
cyc = m.cycle_in({"campaign": {"fabric"}, "fabric": {"sweep"}, "sweep": {"campaign"}})
assert cyc and cyc[0] == cyc[-1] and len(cyc) == 4, cyc
print("cycle found:", " -> ".join(cyc))
PY
echo "PASS: check-includes"
