#!/bin/bash
# Integration test of the two-host Soft-RoCE testbed: `testbed/softroce pair up`,
# ib_write_bw server on rb-host1 and client on rb-host2 (over ssh) across the
# link, check both print the BW table, `pair down`, and check that no qemu of
# the pair is left.  Anything missing is a FAILURE, never a skip.
#
# The pair lives in its own state dir (not the default /tmp/rdmabench-pair),
# so a developer's pair is left alone.  Every step has a timeout, and the pair
# is torn down on any exit: the guests run in their own session, so a ctest
# timeout (which kills this script's process tree) would not reach them.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SOFTROCE=$ROOT/testbed/softroce

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

[ -x "$SOFTROCE" ] || fail "$SOFTROCE missing or not executable"
for tool in ssh ib_write_bw timeout pgrep; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-it-pair.XXXXXX")
export RDMABENCH_PAIR_DIR=$WORK/pair

# qemu processes of this pair (their command line names the state dir).
pair_qemus() { pgrep -f "rdmabench.state=$RDMABENCH_PAIR_DIR/host" || true; }

cleanup() {
    local rc=$?
    if [ -n "$(pair_qemus)" ]; then
        timeout 120 "$SOFTROCE" pair down || true
        # Last resort: never leave guests behind.
        for pid in $(pair_qemus); do kill -KILL "$pid" 2>/dev/null || true; done
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== pair up ($RDMABENCH_PAIR_DIR)"
CFG=$(timeout 900 "$SOFTROCE" pair up) || fail "pair up failed"
[ -f "$CFG" ] || fail "pair up printed '$CFG', not an ssh config file"
ENV_OUT=$(timeout 60 "$SOFTROCE" pair env) || fail "pair env failed"
eval "$ENV_OUT"
for v in RB_PAIR_SSH_CONFIG RB_HOST1_ADDR RB_HOST2_ADDR RB_HOST1_DEVICE RB_HOST2_DEVICE \
    RB_HOST1_GID_INDEX RB_HOST2_GID_INDEX; do
    [ -n "${!v:-}" ] || fail "pair env did not set $v"
done
[ "$RB_PAIR_SSH_CONFIG" = "$CFG" ] || fail "pair env: RB_PAIR_SSH_CONFIG=$RB_PAIR_SSH_CONFIG, pair up said $CFG"
timeout 120 "$SOFTROCE" pair status || fail "pair status does not say up"

rssh() { timeout 300 ssh -F "$CFG" "$@"; }

# The guests' own view of the testbed variables must match pair env.
h1=$(rssh rb-host1 'echo $RDMABENCH_TEST_DEVICE $RDMABENCH_TEST_ADDR $RDMABENCH_TEST_GID_INDEX $(ulimit -l)') ||
    fail "ssh rb-host1 failed"
[ "$h1" = "$RB_HOST1_DEVICE $RB_HOST1_ADDR $RB_HOST1_GID_INDEX unlimited" ] ||
    fail "rb-host1 environment: '$h1'"

echo "== ib_write_bw: server rb-host1, client rb-host2 -> $RB_HOST1_ADDR"
BW='ib_write_bw -d "$RDMABENCH_TEST_DEVICE" -x "$RDMABENCH_TEST_GID_INDEX" -s 65536 -n 200'
rssh rb-host1 "timeout 240 $BW" >"$WORK/server.out" 2>&1 &
server=$!
client_rc=1
deadline=$((SECONDS + 600))
for ((i = 0; i < 60 && SECONDS < deadline; i++)); do
    client_rc=0
    rssh rb-host2 "timeout 240 $BW $RB_HOST1_ADDR" >"$WORK/client.out" 2>&1 || client_rc=$?
    # Retry only while the server is not listening yet.
    [ "$client_rc" -ne 0 ] && grep -q "Couldn't connect" "$WORK/client.out" && kill -0 "$server" 2>/dev/null ||
        break
    sleep 1
done
server_rc=0
wait "$server" || server_rc=$?
echo "--- server on rb-host1 (exit $server_rc)"
cat "$WORK/server.out"
echo "--- client on rb-host2 (exit $client_rc)"
cat "$WORK/client.out"
[ "$server_rc" -eq 0 ] || fail "ib_write_bw server exited $server_rc"
[ "$client_rc" -eq 0 ] || fail "ib_write_bw client exited $client_rc"
for side in server client; do
    grep -Eq '#bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\]' "$WORK/$side.out" ||
        fail "no BW table header from the $side"
    grep -Eq '^ *65536 +200 +[0-9.]+ +[0-9.]+' "$WORK/$side.out" ||
        fail "no BW result row from the $side"
done

echo "== pair down"
timeout 300 "$SOFTROCE" pair down || fail "pair down failed"
left=$(pair_qemus)
[ -z "$left" ] || fail "qemu still running after pair down: $left"
timeout 60 "$SOFTROCE" pair status >/dev/null && fail "pair status says up after pair down"
echo "PASS: ib_write_bw between rb-host1 and rb-host2, pair down left no qemu"
