#!/bin/bash
# CTest dry_run_configs (unit): `rdmabench sweep F --dry-run` of every campaign under configs/
# prints what tests/fixtures/dry-run/<name>.txt holds (its output, stdout then stderr, and exit
# status; the command's path written as "rdmabench", the output folder as "OUT"). The fixtures
# were recorded before the orchestrator became drivers over one runner (issue 48): a change of
# structure must not change a plan. A deliberate change of the dry run's text re-records them:
#   tests/orchestrator/dry_run_configs_test.sh build/cli/rdmabench --update
set -u
BIN=$(realpath "${1:?usage: dry_run_configs_test.sh RDMABENCH [--update]}")
UPDATE=${2:-}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIX="$ROOT/tests/fixtures/dry-run"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
n=0
cd "$ROOT" || exit 1
for f in configs/*.json; do
    name=$(basename "$f" .json)
    rc=0
    env -u SLURM_JOB_ID "$BIN" sweep "$f" --dry-run --out "$T/out" >"$T/stdout" 2>"$T/stderr" || rc=$?
    { cat "$T/stdout"; echo "--- stderr"; cat "$T/stderr"; echo "--- exit $rc"; } |
        sed -e "s|$BIN|rdmabench|g" -e "s|$T/out|OUT|g" >"$T/$name.txt"
    n=$((n + 1))
    if [ "$UPDATE" = --update ]; then
        mkdir -p "$FIX" && cp "$T/$name.txt" "$FIX/$name.txt"
        continue
    fi
    if ! diff -u "$FIX/$name.txt" "$T/$name.txt"; then
        echo "FAIL: the dry run of $f differs from $FIX/$name.txt" >&2
        fail=1
    fi
done
[ "$n" -ge 5 ] || { echo "FAIL: only $n campaigns under configs/" >&2; exit 1; }
[ "$fail" = 0 ] || exit 1
echo "PASS: $n dry runs as recorded"
