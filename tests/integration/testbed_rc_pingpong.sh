#!/bin/bash
# Integration test of the Soft-RoCE testbed: `testbed/softroce run` brings up an
# rxe device, and ibv_rc_pingpong runs server (background) + client over it.
# Passes only if both exit 0 and print their "bytes in ... seconds" lines.
# Anything missing (qemu, rdma-core tools, the kernel cache...) is a FAILURE,
# never a skip.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SOFTROCE=$ROOT/testbed/softroce

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

[ -x "$SOFTROCE" ] || fail "$SOFTROCE missing or not executable"
for tool in ibv_rc_pingpong timeout; do
    command -v "$tool" >/dev/null || fail "$tool not found (apt-get install ibverbs-utils)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-it-pingpong.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Runs where the rxe device is (a guest, usually): server in the background,
# then the client, retried while the server is not listening yet.
cat >"$WORK/inner.sh" <<'EOF'
#!/bin/bash
set -u
: "${RDMABENCH_TEST_DEVICE:?}" "${RDMABENCH_TEST_ADDR:?}" "${RDMABENCH_TEST_GID_INDEX:?}"
W=$1
ARGS=(-d "$RDMABENCH_TEST_DEVICE" -g "$RDMABENCH_TEST_GID_INDEX" -n 200)
echo "device $RDMABENCH_TEST_DEVICE addr $RDMABENCH_TEST_ADDR gid index $RDMABENCH_TEST_GID_INDEX"
timeout 300 ibv_rc_pingpong "${ARGS[@]}" >"$W/server.out" 2>&1 &
server=$!
client_rc=1
for ((i = 0; i < 60; i++)); do
    client_rc=0
    timeout 240 ibv_rc_pingpong "${ARGS[@]}" "$RDMABENCH_TEST_ADDR" >"$W/client.out" 2>&1 || client_rc=$?
    [ "$client_rc" -ne 0 ] && grep -q "Couldn't connect" "$W/client.out" && kill -0 "$server" 2>/dev/null ||
        break
    sleep 1
done
server_rc=0
wait "$server" || server_rc=$?
echo "--- server (exit $server_rc)"
cat "$W/server.out"
echo "--- client (exit $client_rc)"
cat "$W/client.out"
echo "server_rc=$server_rc client_rc=$client_rc" >"$W/status"
EOF

rc=0
"$SOFTROCE" run --timeout 900 -- bash "$WORK/inner.sh" "$WORK" | tee "$WORK/run.out" || rc=$?
[ "$rc" -eq 0 ] || fail "testbed/softroce run exited $rc"
[ -f "$WORK/status" ] || fail "the command in the testbed did not finish"
server_rc=1 client_rc=1
# shellcheck source=/dev/null
. "$WORK/status"
[ "$server_rc" -eq 0 ] || fail "ibv_rc_pingpong server exited $server_rc"
[ "$client_rc" -eq 0 ] || fail "ibv_rc_pingpong client exited $client_rc"
for side in server client; do
    grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' "$WORK/$side.out" ||
        fail "no bytes/sec line from the $side"
done
echo "PASS: ibv_rc_pingpong over $(grep -m1 '^device' "$WORK/run.out")"
