#!/bin/bash
# Testbed test: the QP settings checked on the wire and by a fault, between the two guests of
# the testbed pair (rxe loops traffic between two QPs of one device inside the driver, so one
# guest would show no packet). rdmabench server on rb-host1, client on rb-host2; tcpdump on
# rb-host1's link captures each run, and tests/integration/roce_capture.py reads the capture.
#   1. TCP exchange, RC write, 4 KiB at MTU 1024, --tos 104: every data packet both ways has IPv4
#      TOS 104, and the client sent exactly sent_messages x 4 write packets (FIRST + 2 MIDDLE +
#      LAST each): an independent check of the engine's accounting; setup.qp_attr.fabric says
#      what the devices applied.
#   2. rdma_cm, RC write, --tos 72 --qp-timeout 16 --retry-count 6: TOS 72 on the wire, the
#      timeout and retry count in both sides' QPs.
#   3. UD send, --tos 40: TOS 40 on the UD packets.
#   4. IPv6: an address added to each guest's rxe netdev gives a RoCE v2 IPv6 GID; with it named
#      by -x on both sides, --tos 104 --flow-label 77 run over IPv6, and the packets carry
#      traffic class 104; the flow label is what the capture shows (see docs/single-pair.md).
#   5. A fault: `tc netem loss` on rb-host2's link: with the defaults the run completes and the
#      retransmission counters of the result's counter deltas moved; with --retry-count 0 and a
#      short --qp-timeout (both held by the client's QP) a timed run fails fast (on the wire, its
#      data stops well within --timeout), exit 1, naming "transport retry counter exceeded", the
#      measurement and the QP.
#   6. Watching a link (--interval): a netem rate limit (1/20 of the pair's measured rate) on
#      rb-host2's link for 3 s in the middle of a 10 s run shows as a dip in the result's
#      intervals (which add up to the totals) at the limit's time: every interval wholly within
#      the time the limit surely held (from `tc qdisc add`'s return to the start of `tc qdisc
#      change`; there is one at least) is below the floor, the lowest lies where the limit may
#      have held, the link ran above the floor before `tc qdisc add` began, and --min-gbps (a
#      quarter of the rate) makes the client exit 7 naming the interval.
#   7. Few large writes (16 x 1 MiB) through a rate limit (a quarter of the pair's rate) with a
#      4 s no-progress timeout: the run completes, each write signalled (the signalling rule of
#      bandwidth mode), at the limit's rate.
#   8. rdmabench check against rb-host1's server: expectations it meets (a bandwidth floor of a
#      quarter of the pair's rate, a latency bound, the MTU) pass, exit 0, one PASS line each and
#      the verdict line, its --json document; through a netem rate limit of 1/20 of the rate the
#      bandwidth expectation fails: exit 8, its FAIL line, the verdict line naming it, and so
#      does the passing check's document as a --baseline (--tolerance 50), and a results
#      folder as one (a client run of the check's workload before the limit); a tuned workload's
#      document (step 6's) is refused as a baseline, exit 2 naming the field; 'port mtu
#      >= 4096' fails on the guests' MTU (1024), exit 8; with rb-host2's netdev down its port is
#      DOWN: 'port state = ACTIVE' fails, exit 8.
#   9. The examples of configs/health/ run as given, with a stand-in scontrol that records its
#      arguments: the Slurm prolog leaves a node that passes alone and drains one that fails,
#      naming the failed expectation; the node_exporter textfile passes promtool and says FAIL;
#      the CI gate exits 8 and writes a JUnit report that validates, naming the expectation.
# Usage: wire_settings_test.sh RDMABENCH. Fails (never skips) when the pair cannot run.
set -u
BIN=${1:?usage: wire_settings_test.sh RDMABENCH}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SOFTROCE=$ROOT/testbed/softroce
PCAP=$ROOT/tests/integration/roce_capture.py

# shellcheck source=tests/orchestrator/test_lib.sh
. "$ROOT/tests/orchestrator/test_lib.sh"
for tool in ssh python3 pgrep timeout tcpdump tc; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

pair_workdir rb-wire

step "pair up ($RDMABENCH_PAIR_DIR)"
CFG=$(timeout 900 "$SOFTROCE" pair up) || fail "testbed/softroce pair up failed"
eval "$(timeout 60 "$SOFTROCE" pair env)" || fail "pair env failed"
rssh() { timeout 120 ssh -F "$CFG" "$@" </dev/null; }
netdev_of() { rssh "$1" "rdma link show $2/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p'; }
ND1=$(netdev_of rb-host1 "$RB_HOST1_DEVICE")
ND2=$(netdev_of rb-host2 "$RB_HOST2_DEVICE")
[ -n "$ND1" ] && [ -n "$ND2" ] || fail "no netdev behind $RB_HOST1_DEVICE / $RB_HOST2_DEVICE"

# server PORT [ARGS...]: an rdmabench server on rb-host1, serving until killed.
server() {
    local port=$1
    shift
    rssh rb-host1 "exec $BIN server -d $RB_HOST1_DEVICE -p $port $*" >"$WORK/server-$port.log" 2>&1 &
    local i
    for ((i = 0; i < 60; i++)); do
        grep -q "listening" "$WORK/server-$port.log" 2>/dev/null && return 0
        sleep 0.5
    done
    show "$WORK/server-$port.log"
    fail "the server on port $port did not start"
}

# capture NAME CLIENT_ARGS...: runs the client on rb-host2 while tcpdump captures rb-host1's link;
# leaves NAME.json (the result), NAME.out and NAME.cap.json (roce_capture.py's summary). The
# client's exit status is in $CLIENT_RC, the seconds its ssh command took in $CLIENT_S.
capture() {
    local name=$1 i
    shift
    # Into the guest's memory (a pipe through ssh drops packets), headers only, a large buffer.
    rssh rb-host1 "exec tcpdump -i $ND1 -s 128 -B 16384 -w /dev/shm/rb-$name.pcap udp port 4791" \
        >/dev/null 2>"$WORK/$name.tcpdump" &
    local cap=$!
    for ((i = 0; i < 60; i++)); do
        grep -q "listening on" "$WORK/$name.tcpdump" 2>/dev/null && break
        sleep 0.5
    done
    CLIENT_RC=0
    local t
    t=$(date +%s.%N)
    rssh rb-host2 "$BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/$name.json $*" \
        >"$WORK/$name.out" 2>&1 || CLIENT_RC=$?
    CLIENT_S=$(python3 -c "print('%.1f' % ($(date +%s.%N) - $t))")
    sleep 1  # what the link still carries (the last ACKs)
    rssh rb-host1 "pkill -INT -x tcpdump" || true
    wait "$cap"
    rssh rb-host1 "cat /dev/shm/rb-$name.pcap && rm -f /dev/shm/rb-$name.pcap" >"$WORK/$name.pcap" ||
        fail "$name: cannot fetch the capture"
    show "$WORK/$name.out" "$WORK/$name.tcpdump"
    grep -qx "0 packets dropped by kernel" "$WORK/$name.tcpdump" || fail "$name: tcpdump dropped packets"
    python3 "$PCAP" "$WORK/$name.pcap" >"$WORK/$name.cap.json" || fail "$name: cannot read the capture"
    show "$WORK/$name.cap.json"
}
# jq-like one-liner over a JSON file: j FILE PYTHON_EXPRESSION_OF_d
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

server 18515
step "1. TCP exchange, RC write 4 KiB, --tos 104"
capture tcp_rc --op write -s 4K -n 200 --warmup 0 --mtu 1024 --tos 104
[ "$CLIENT_RC" = 0 ] || fail "tcp_rc: client exited $CLIENT_RC"
[ "$(j "$WORK/tcp_rc.cap.json" "d['ipv4_tos']")" = "[104]" ] || fail "tcp_rc: TOS on the wire is not only 104"
sent=$(j "$WORK/tcp_rc.json" "d['results'][0]['sent_messages']")
for op in FIRST:1 MIDDLE:2 LAST:1; do
    got=$(j "$WORK/tcp_rc.cap.json" "d['counts'].get('$RB_HOST2_ADDR RC_WRITE_${op%:*}', 0)")
    [ "$got" = $((sent * ${op#*:})) ] || fail "tcp_rc: $got RC_WRITE_${op%:*} packets for $sent messages"
done
for side in client server; do
    [ "$(j "$WORK/tcp_rc.json" "d['setup']['$side']['qp_attr']['fabric']['traffic_class']")" = 104 ] ||
        fail "tcp_rc: the $side's QP does not hold traffic class 104"
done

step "2. rdma_cm, RC write, --tos 72 --qp-timeout 16 --retry-count 6"
capture cm_rc --op write -s 64 -n 100 -R --tos 72 --qp-timeout 16 --retry-count 6
[ "$CLIENT_RC" = 0 ] || fail "cm_rc: client exited $CLIENT_RC"
[ "$(j "$WORK/cm_rc.cap.json" "d['ipv4_tos']")" = "[72]" ] || fail "cm_rc: TOS on the wire is not only 72"
for side in client server; do
    got=$(j "$WORK/cm_rc.json" "[d['setup']['$side']['qp_attr']['fabric'][k] for k in ('traffic_class', 'timeout', 'retry_cnt')]")
    [ "$got" = "[72, 16, 6]" ] || fail "cm_rc: the $side's QP holds $got"
done

step "3. UD send, --tos 40"
capture ud --op send -c ud -s 64 -n 100 --tos 40
[ "$CLIENT_RC" = 0 ] || fail "ud: client exited $CLIENT_RC"
[ "$(j "$WORK/ud.cap.json" "d['ipv4_tos']")" = "[40]" ] || fail "ud: TOS on the wire is not only 40"
[ "$(j "$WORK/ud.cap.json" "d['counts'].get('$RB_HOST2_ADDR UD_SEND_ONLY', 0) > 0")" = True ] ||
    fail "ud: no UD send captured"

step "4. IPv6 GIDs, --tos 104 --flow-label 77"
rssh rb-host1 "ip -6 addr add fd00:4791::1/64 dev $ND1 nodad" || fail "ip -6 addr on rb-host1"
rssh rb-host2 "ip -6 addr add fd00:4791::2/64 dev $ND2 nodad" || fail "ip -6 addr on rb-host2"
server 18516 -x fd00:4791::1
RB_HOST1_ADDR_V4=$RB_HOST1_ADDR
capture ipv6 --op write -s 4K -n 100 -p 18516 -x fd00:4791::2 --tos 104 --flow-label 77
[ "$CLIENT_RC" = 0 ] || fail "ipv6: client exited $CLIENT_RC"
[ "$(j "$WORK/ipv6.cap.json" "d['ipv6_tclass']")" = "[104]" ] || fail "ipv6: traffic class is not only 104"
[ "$(j "$WORK/ipv6.cap.json" "d['ipv4_tos']")" = "[]" ] || fail "ipv6: IPv4 packets in an IPv6 run"
[ "$(j "$WORK/ipv6.json" "d['devices']['client']['gid']")" = "fd00:4791::2" ] ||
    fail "ipv6: the client did not use its IPv6 GID"
# Debian 12's rxe (6.1) leaves the flow label of the address vector off the wire (it writes 0);
# the QPs hold it (setup.qp_attr.fabric). Either is accepted; anything else is a bug.
flow=$(j "$WORK/ipv6.cap.json" "d['ipv6_flow_label']")
case $flow in "[0]" | "[77]") echo "    flow labels on the wire: $flow" >&2 ;; *) fail "ipv6: flow labels $flow" ;; esac
[ "$(j "$WORK/ipv6.json" "d['setup']['server']['qp_attr']['fabric']['flow_label']")" = 77 ] ||
    fail "ipv6: the server's QP does not hold flow label 77"
RB_HOST1_ADDR=$RB_HOST1_ADDR_V4

step "5. netem loss on rb-host2: retransmissions counted; --retry-count 0 fails fast"
rssh rb-host2 "tc qdisc add dev $ND2 root netem loss 20%" || fail "tc netem on rb-host2"
capture loss --op write -s 4K -n 300 --qp-timeout 8
[ "$CLIENT_RC" = 0 ] || fail "loss: client exited $CLIENT_RC (RC should recover by retransmitting)"
moved=$(j "$WORK/loss.json" "sum(v for s in d['counters'].values() for k, v in s.items() if any(w in k for w in ('retry_err', 'seq_err', 'duplicate_request', 'out_of_seq')))")
[ "${moved:-0}" -gt 0 ] 2>/dev/null || fail "loss: no retransmission counter moved (${moved:-none})"
# How fast --retry-count 0 fails, from the settings: one try of --qp-timeout 8 lasts
# 4.096 us x 2^8 = 1.05 ms (rxe's timer rounds it up to a jiffy, a few ms), and with no retry
# the QP fails at the first timeout after the first lost packet, which at 20 % loss is among
# the first few dozen (0.8^50 = 1e-5): a few ms of data, tens on an emulated guest. The run is
# timed (-D 60) without a warm-up, so it fails in its measurement; had the retries gone on (a
# retry count above 0) it would have run for up to 60 s, and a QP that never gave up would
# have ended only by the no-progress timer, --timeout 5 s ("no progress", exit 4). Bound: on
# the wire (rb-host1's capture clock, independent of rdmabench), from the client's first data
# packet to its last, at most half of --timeout: hundreds of times the expected time, for an
# emulated guest on a loaded host, and still short of the no-progress timer. The whole ssh
# command (login, setup through the lossy link) must end within half of the run's 60 s.
fast_timeout=5 fast_run=60
capture fast --op write -s 4K -D $fast_run --warmup-time 0 --timeout $fast_timeout --qp-timeout 8 --retry-count 0
[ "$CLIENT_RC" = 1 ] || fail "fast: a run with --retry-count 0 over a lossy link exited $CLIENT_RC, not 1 (a completion error)"
grep -Eq "during the measurement of size 4096: measurement: [a-z -]+ completed with status 'transport retry counter exceeded' \([0-9]+, vendor error [0-9]+\) on QP [0-9]+" "$WORK/fast.out" ||
    fail "fast: the message does not name the measurement, the status and the QP"
python3 - "$WORK/fast.json" "$WORK/fast.cap.json" "$RB_HOST2_ADDR" "$fast_timeout" "$CLIENT_S" "$fast_run" <<'PY' ||
import json, sys
d, cap = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
timeout, ssh_s, run_s = float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
assert "transport retry counter exceeded" in d["error"], d["error"]
f = d["setup"]["client"]["qp_attr"]["fabric"]
assert (f["timeout"], f["retry_cnt"]) == (8, 0), f
first, last = cap["times"][sys.argv[3]]
print("    fast: the client's data ran %.3f s on the wire; the ssh command took %.1f s"
      % (last - first, ssh_s), file=sys.stderr)
assert last - first <= timeout / 2, ("data for %.3f s" % (last - first), timeout)
assert ssh_s <= run_s / 2, (ssh_s, run_s)
PY
    fail "fast: not a fast failure with the QP's settings"
rssh rb-host2 "tc qdisc del dev $ND2 root" || true

step "6. a rate limit mid-run: the intervals show the dip, --min-gbps exits 7"
# 4 KiB writes, each signaled (the intervals then count completions one by one), at most 8 in
# flight (a short queue behind the limit, drained within the 1 s ACK timeout). The pair's rate is
# measured first (emulated guests: it varies from run to run); the limit is a twentieth of it
# and the floor a quarter.
watch="--op write -s 4K -Q 1 -t 8 --qp-timeout 18 --warmup-time 0.3"
rssh rb-host2 "$BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/base.json $watch -D 2" \
    >"$WORK/base.out" 2>&1 || { show "$WORK/base.out"; fail "dip: the baseline run failed"; }
rate=$(j "$WORK/base.json" "d['results'][0]['gbps']")
floor=$(python3 -c "print('%.6f' % ($rate / 4))")
# A result document of the check's own workload (write, RC, bandwidth, 64 KiB) for --baseline.
mkdir -p "$WORK/results"
rssh rb-host2 "$BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/results/plain.json -s 64K -D 1" \
    >"$WORK/plain.out" 2>&1 || { show "$WORK/plain.out"; fail "check: the baseline's client run failed"; }
limit=$(python3 -c "print(max(100, int($rate * 1e6 / 20)))")  # kbit/s
echo "    baseline $rate Gb/s: limit ${limit} kbit/s, --min-gbps $floor" >&2
# The limit comes from a shell already waiting on rb-host2 (an ssh login can take seconds on a
# loaded host): 3 s once the client printed its first interval. It notes, on the guest's clock
# (the client's too), into limit.times: tb before `tc qdisc add` starts, t0 once it returned
# (the limit surely holds), t1 before `tc qdisc change` starts (it surely still holds), t2 once
# that returned (it surely no longer holds). Each tc takes about a second on an emulated guest,
# more on a loaded host: the limit holds for sure only within [t0, t1], and may hold within
# [tb, t2].
rm -f "$WORK/go"
rssh rb-host2 "while [ ! -e $WORK/go ]; do sleep 0.1; done; date +%s.%N; \
    tc qdisc add dev $ND2 root netem rate ${limit}kbit && date +%s.%N && sleep 3 && date +%s.%N && \
    tc qdisc change dev $ND2 root netem rate 10gbit && date +%s.%N" >"$WORK/limit.times" 2>&1 &
lpid=$!
rssh rb-host2 "exec $BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/dip.json $watch \
    -D 10 --interval 1 --min-gbps $floor" >"$WORK/dip.out" 2>&1 &
cpid=$!
for ((i = 0; i < 240; i++)); do  # the measurement runs once an interval is printed
    grep -q '^ \[' "$WORK/dip.out" 2>/dev/null && break
    sleep 0.25
done
touch "$WORK/go"
wait "$lpid" || { show "$WORK/limit.times"; fail "tc netem rate on rb-host2"; }
rc=0
wait "$cpid" || rc=$?
rssh rb-host2 "tc qdisc del dev $ND2 root" || true
show "$WORK/dip.out" "$WORK/limit.times"
[ "$rc" = 7 ] || fail "dip: the client exited $rc, not 7 (an interval below --min-gbps)"
grep -q "below --min-gbps .*, the lowest .* Gb/s at +" "$WORK/dip.out" || fail "dip: no message naming the interval"
py_check "dip: the intervals do not show the limit" "$WORK/dip.json" "$floor" "$WORK/limit.times" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
floor = float(sys.argv[2])
tb, t0, t1, t2 = (float(x) for x in open(sys.argv[3]).read().split())
assert tb <= t0 and t1 - t0 >= 3 and t1 <= t2, (tb, t0, t1, t2)
assert d["error"] is None, d["error"]
r = d["results"][0]
iv = r["intervals"]
print("    intervals (Gb/s):", " ".join("%.4f" % i["gbps"] for i in iv), file=sys.stderr)
assert len(iv) == r["intervals_total"] >= 9, len(iv)
assert sum(i["ops"] for i in iv) == r["ops"] and sum(i["bytes"] for i in iv) == r["bytes"], r
full = iv[:-1]  # the last one may be short
low = min(full, key=lambda i: i["gbps"])
assert low["gbps"] < floor and low["gbps"] == r["bw_min_gbps"], (low, r)
end = lambda i: i["start_unix_s"] + i["seconds"]
print("    limit: added %.2f-%.2f s, changed %.2f-%.2f s after the first interval's start"
      % tuple(t - iv[0]["start_unix_s"] for t in (tb, t0, t1, t2)), file=sys.stderr)
# Every interval wholly within the time the limit surely held (3 s: two 1-s intervals at least)
# is below the floor.
inside = [i for i in full if i["start_unix_s"] >= t0 and end(i) <= t1]
assert inside and all(i["gbps"] < floor for i in inside), inside
# The dip lies where the limit may have held: wholly within [tb, t2]. (An interval that ran at
# the full rate for a tenth of it is twice the limit; the limit may still hold for a second or
# more after t1, while `tc qdisc change` starts, so an interval wholly after t1 can be as low.)
assert tb <= low["start_unix_s"] and end(low) <= t2, (low, tb, t2)
# Before `tc qdisc add` began, the link ran above the floor.
before = [i for i in full if end(i) <= tb]
assert before and max(i["gbps"] for i in before) > floor, before
PY

step "7. few large writes through a rate-limited link: several completions, no false \"no progress\""
# 16 writes of 1 MiB, 16 in flight, through a limit of a quarter of the pair's rate, with a
# no-progress timeout of 4 s. Signalled once every min(100, depth) = 16 writes (the old rule),
# the first completion would need all 16 MiB: 4 s or more on any link below 16 MB/s (the testbed
# runs at 2-12 MB/s), a "no progress" failure. The signalling rule (at least 4 signalled
# completions per phase, one per MiB) signals each write: a completion every 1 MiB, 0.7 s at
# 6 MB/s. The queue behind the limit (16 MiB, 11 s at 1.5 MB/s; netem's limit raised from 1,000
# packets so none is dropped) stays within the ACK timeout (4.096 us x 2^22 = 17 s).
slow=$(python3 -c "print(max(100, int($rate * 1e6 / 4)))")  # kbit/s
rssh rb-host2 "tc qdisc add dev $ND2 root netem rate ${slow}kbit limit 100000" ||
    fail "slow: tc netem rate on rb-host2"
rc=0
rssh rb-host2 "exec $BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/slow.json \
    --op write -s 1M -n 16 -t 16 --qp-timeout 22 --timeout 4" >"$WORK/slow.out" 2>&1 || rc=$?
rssh rb-host2 "tc qdisc del dev $ND2 root" || true
show "$WORK/slow.out"
[ "$rc" = 0 ] || fail "slow: the client exited $rc through a ${slow} kbit/s link"
py_check "slow: not 16 signalled writes at the limit's rate" "$WORK/slow.json" "$slow" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
limit_gbps = int(sys.argv[2]) / 1e6
r = d["results"][0]
print("    1 MiB x %d in %.2f s: %.4f Gb/s (limit %.4f), signalled every %d"
      % (r["ops"], r["seconds"], r["gbps"], limit_gbps, r["signal_every"]), file=sys.stderr)
assert d["error"] is None and r["ops"] == 16 and r["signal_every"] == 1, r
# It went through the limit: the 16 MiB took at least as long as the limit allows (less 10 %).
assert r["gbps"] <= 1.1 * limit_gbps, (r["gbps"], limit_gbps)
PY

step "8. rdmabench check: passes what it meets; exit 8 naming a rate-limited link's figure, a small MTU, a port down"
# Soft RDMA reports port speeds it never reaches: absolute figures, from the pair's own rate
# (step 6's base run): a floor of a quarter of it, which a limit of 1/20 of it fails.
floor=$(python3 -c "print('%.4f' % ($rate / 4))")
check() {  # check NAME ARGS...: rdmabench check on rb-host2 against rb-host1's server; $CHECK_RC
    local name=$1
    shift
    CHECK_RC=0
    rssh rb-host2 "exec $BIN check -d $RB_HOST2_DEVICE --peer $RB_HOST1_ADDR --json $WORK/$name.json $*" \
        >"$WORK/$name.out" 2>&1 || CHECK_RC=$?
    show "$WORK/$name.out"
}
meets=(-e "'write bw 64K >= $floor Gb/s'" -e "'send lat 8 p99 <= 500 ms'" -e "'port mtu >= 1024'")
check check-ok "${meets[@]}"
[ "$CHECK_RC" = 0 ] || fail "check: exited $CHECK_RC with expectations it meets"
grep -q '^check: PASS, 5 of 5 expectations hold' "$WORK/check-ok.out" || fail "check: no PASS verdict line"
[ "$(grep -c '^PASS  ' "$WORK/check-ok.out")" = 5 ] || fail "check: not one PASS line per expectation"
[ "$(j "$WORK/check-ok.json" "d['verdict'], len(d['expectations']), len(d['runs'])")" = "PASS 5 2" ] ||
    fail "check --json: not a PASS document with 5 expectations and 2 runs"
# A result document of the check's own workload (write, RC, bandwidth, 64 KiB) for --baseline.
mkdir -p "$WORK/results"
rssh rb-host2 "$BIN client $RB_HOST1_ADDR -d $RB_HOST2_DEVICE --json $WORK/results/plain.json -s 64K -D 1" \
    >"$WORK/plain.out" 2>&1 || { show "$WORK/plain.out"; fail "check: the baseline's client run failed"; }
limit=$(python3 -c "print(max(100, int($rate * 1e6 / 20)))")  # kbit/s
rssh rb-host2 "tc qdisc add dev $ND2 root netem rate ${limit}kbit" || fail "check: tc netem rate on rb-host2"
check check-slow "${meets[@]}"
# The passing check's document as a baseline (its figures within 50 %), through the same limit.
check check-baseline --baseline "$WORK/check-ok.json" --tolerance 50
BASELINE_RC=$CHECK_RC
# A results folder as the baseline (the median of its documents' figures), through the same limit.
check check-baseline-results --baseline "$WORK/results" --tolerance 50
rssh rb-host2 "tc qdisc del dev $ND2 root" || true
[ "$CHECK_RC" = 8 ] || fail "check --baseline RESULTS: exited $CHECK_RC through the limit, not 8"
grep -q "^FAIL  write rc bw 64K >= [0-9.e-]* Gb/s (baseline [0-9.e-]* Gb/s - 50 %): measured " \
    "$WORK/check-baseline-results.out" || fail "check --baseline RESULTS: no FAIL line for its bandwidth"
# Step 6's document sets tx_depth and the signalling: figures the check's runs would not repeat.
check check-baseline-refused --baseline "$WORK/base.json"
[ "$CHECK_RC" = 2 ] || fail "check --baseline of a tuned workload: exited $CHECK_RC, not 2"
grep -q "invalid baseline '$WORK/base.json: /workload/" "$WORK/check-baseline-refused.out" ||
    fail "check --baseline of a tuned workload: the error does not name the field"
CHECK_RC=$BASELINE_RC
[ "$CHECK_RC" = 8 ] || fail "check --baseline: exited $CHECK_RC through the limit, not 8"
grep -q "^FAIL  write rc bw 64K >= [0-9.e-]* Gb/s (baseline [0-9.e-]* Gb/s - 50 %): measured " \
    "$WORK/check-baseline.out" || fail "check --baseline: no FAIL line for the baseline's bandwidth"
[ "$CHECK_RC" = 8 ] || fail "check: exited $CHECK_RC through a ${limit} kbit/s limit, not 8"
grep -q "^FAIL  write bw 64K >= $floor Gb/s: measured " "$WORK/check-slow.out" || fail "check: the bandwidth line does not FAIL"
grep -q "^check: FAIL, 1 of 5 failed, the first: write bw 64K >= $floor Gb/s " "$WORK/check-slow.out" ||
    fail "check: the verdict line does not name the failed expectation"
check check-mtu -e "'port mtu >= 4096'"
[ "$CHECK_RC" = 8 ] || fail "check: exited $CHECK_RC for an MTU below the expectation, not 8"
grep -q '^FAIL  port mtu >= 4096: measured 1024, expected >= 4096' "$WORK/check-mtu.out" || fail "check: no MTU FAIL line"
# The port down (its netdev down: rxe's port follows), then up again.
rssh rb-host2 "ip link set $ND2 down" || fail "check: ip link set $ND2 down"
check check-down
rssh rb-host2 "ip link set $ND2 up" || true
[ "$CHECK_RC" = 8 ] || fail "check: exited $CHECK_RC with the port down, not 8"
grep -q '^FAIL  port state = ACTIVE: measured DOWN' "$WORK/check-down.out" || fail "check: no port-state FAIL line"

step "9. the health-check examples (configs/health/): a Slurm prolog drains on FAIL, a textfile for node_exporter, a CI gate's JUnit"
# A stand-in scontrol that records its arguments (draining needs a real cluster).
mkdir -p "$WORK/bin" "$WORK/textfile"
printf '#!/bin/sh\necho "$*" >> %s/scontrol.args\n' "$WORK" >"$WORK/bin/scontrol"
chmod +x "$WORK/bin/scontrol"
printf '# what this node must show\nport mtu >= 1024\n\nwrite bw 64K >= %s Gb/s\n' "$floor" >"$WORK/expect-ok"
printf 'port mtu >= 4096\n' >"$WORK/expect-mtu"
example() {  # example NAME SCRIPT EXPECT_FILE [ARGS...]: the script on rb-host2, with the stand-in first on PATH
    local name=$1 script=$2 expect=$3
    shift 3
    EXAMPLE_RC=0
    rssh rb-host2 "PATH=$WORK/bin:\$PATH RDMABENCH=$BIN SLURMD_NODENAME=rb-host2 TEXTFILE_DIR=$WORK/textfile \
        RDMABENCH_CHECK_ARGS='-d $RB_HOST2_DEVICE --peer $RB_HOST1_ADDR --expect-file $expect' \
        $ROOT/configs/health/$script $*" >"$WORK/$name.out" 2>&1 || EXAMPLE_RC=$?
    show "$WORK/$name.out"
}
example prolog-ok slurm-prolog.sh "$WORK/expect-ok"
[ "$EXAMPLE_RC" = 0 ] && [ ! -e "$WORK/scontrol.args" ] || fail "prolog: drained (or exited $EXAMPLE_RC) on a passing check"
grep -q '^check: PASS, 4 of 4 expectations hold' "$WORK/prolog-ok.out" || fail "prolog: the expect file's expectations did not all run"
example prolog-mtu slurm-prolog.sh "$WORK/expect-mtu"
[ "$EXAMPLE_RC" = 0 ] || fail "prolog: exited $EXAMPLE_RC"
grep -q '^update nodename=rb-host2 state=drain reason=rdmabench check: 1 of 3 failed, the first: port mtu >= 4096 (rxe' \
    "$WORK/scontrol.args" || { show "$WORK/scontrol.args"; fail "prolog: no drain naming the failed expectation"; }
example textfile node-exporter-textfile.sh "$WORK/expect-mtu"
[ "$EXAMPLE_RC" = 0 ] || fail "textfile: exited $EXAMPLE_RC"
promtool check metrics <"$WORK/textfile/rdmabench.prom" >"$WORK/promtool.out" 2>&1 ||
    { show "$WORK/promtool.out"; fail "textfile: promtool check metrics"; }
grep -q '^rdmabench_check_pass{host="rb-host2",device="rxe0",port="1"} 0$' "$WORK/textfile/rdmabench.prom" &&
    grep -q '^rdmabench_check_expectation_pass{.*expectation="port mtu >= 4096"} 0$' "$WORK/textfile/rdmabench.prom" ||
    { show "$WORK/textfile/rdmabench.prom"; fail "textfile: no failed verdict and expectation"; }
example gate ci-gate.sh "$WORK/expect-ok" "$WORK/gate" -d "$RB_HOST2_DEVICE" --peer "$RB_HOST1_ADDR" -e "'port mtu >= 4096'"
[ "$EXAMPLE_RC" = 8 ] || fail "gate: exited $EXAMPLE_RC with a failing expectation, not 8"
xmllint --noout --schema "$ROOT/tests/fixtures/junit.xsd" "$WORK/gate/rdmabench-junit.xml" ||
    fail "gate: the JUnit report does not validate"
grep -q '<testcase name="port mtu &gt;= 4096" classname="rdmabench.check.rb-host2"' "$WORK/gate/rdmabench-junit.xml" ||
    { show "$WORK/gate/rdmabench-junit.xml"; fail "gate: no test case for the failed expectation"; }

step "no rdmabench client left on rb-host2"
[ -z "$(rssh rb-host2 'pgrep -x rdmabench' || true)" ] || fail "an rdmabench process is left on rb-host2"
echo "PASS" >&2
