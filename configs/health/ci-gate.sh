#!/bin/bash
# Example: a CI job gated on `rdmabench check` with a JUnit report (docs/health-checks.md): the
# check's expectations become the test cases of rdmabench-junit.xml (one per expectation, a failed
# one with what was measured and expected), which GitLab, Jenkins and most CI systems show; the job
# fails with the check's exit status (8: an expectation failed). A regression gate on two result
# folders works the same with `rdmabench compare` (exit 1 on a regression) and `rdmabench export
# --junit` of the new folder.
#
# Usage: ci-gate.sh OUT_DIR [CHECK OPTIONS...], e.g.
#   ci-gate.sh reports --peer node7 -e 'write bw 64K >= 90% of link' -e 'read lat 8 p99 <= 5us'
# Environment: RDMABENCH, the command (default: rdmabench on PATH).
set -u
RDMABENCH=${RDMABENCH:-rdmabench}
OUT=${1:?usage: ci-gate.sh OUT_DIR [CHECK OPTIONS...]}
shift
mkdir -p "$OUT"
rc=0
"$RDMABENCH" check --json "$OUT/check.json" "$@" || rc=$?
if [ -s "$OUT/check.json" ]; then
  "$RDMABENCH" export --junit "$OUT/check.json" -o "$OUT/rdmabench-junit.xml" || exit $?
fi
exit "$rc"
