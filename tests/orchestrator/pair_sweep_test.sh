#!/bin/bash
# Testbed test (b): `rdmabench sweep` over ssh between the two guests of the testbed pair
# (testbed/softroce pair up, in a state dir of its own; always taken down at the end).
#   1. a campaign of 9 points (ops x QP types, two sizes a point; 3 invalid, skipped) completes
#      and every result validates; the token never shows on a command line; env/<host>.json captured;
#   2. the server killed in the middle of a point: that point failed, the later ones pass;
#   3. the orchestrator killed (SIGKILL) in the middle: nothing is left running on the hosts,
#      and --resume runs exactly the points that were missing;
#   4. unreachable host, wrong rdmabench path, malformed campaign: clear errors, no point run;
#      --dry-run touches no host;
#   5. hostile values (an rdmabench path and a device name full of quotes, $(...), ;, newline)
#      reach the remote side intact and execute nothing;
#   6. --jobs 2 runs two disjoint host pairs at the same time;
#   7. a hunt (docs/hunting.md) over op, size, MTU and traffic class, the links at MTU 9000 (so
#      that rxe's active MTU is 4096): on the clean pair it reports nothing; with two anomalies
#      planted with tc on both guests (loss of 2 % on RoCE packets of 2,048 bytes or more, which
#      only a 4,096-byte MTU makes; a 50 Mbit/s policer on DSCP 26, tos 104) it names exactly
#      the trigger of each (mtu=4096, tos=104) with a command that reproduces it, exit 6;
#      interrupted (SIGINT) half-way, --resume reads back what was measured and finishes it;
#   and afterwards `pgrep -f 'rdmabench (server|client)'` finds nothing on either host.
# Usage: pair_sweep_test.sh RDMABENCH CHECK_RESULTS. Fails (never skips) when the pair cannot run.
set -u
BIN=${1:?usage: pair_sweep_test.sh RDMABENCH CHECK_RESULTS}
CHECK=${2:?usage: pair_sweep_test.sh RDMABENCH CHECK_RESULTS}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SOFTROCE=$ROOT/testbed/softroce

# shellcheck source=tests/orchestrator/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
for tool in ssh python3 pgrep timeout; do
    command -v "$tool" >/dev/null || fail "$tool not found"
done

pair_workdir rb-sweep-pair

step "pair up ($RDMABENCH_PAIR_DIR)"
CFG=$(timeout 900 "$SOFTROCE" pair up) || fail "testbed/softroce pair up failed (is another pair running on this machine?)"
eval "$(timeout 60 "$SOFTROCE" pair env)" || fail "pair env failed"
for v in RB_HOST1_ADDR RB_HOST1_DEVICE RB_HOST1_GID_INDEX RB_HOST2_DEVICE RB_HOST2_GID_INDEX; do
    [ -n "${!v:-}" ] || fail "pair env did not set $v"
done
export WORK CFG BIN RB_HOST1_ADDR RB_HOST2_ADDR RB_HOST1_DEVICE RB_HOST2_DEVICE RB_HOST1_GID_INDEX RB_HOST2_GID_INDEX
rssh() { timeout 120 ssh -F "$CFG" "$@" </dev/null; }

# remote_leftovers SECONDS: prints rdmabench server/client processes still on a host after
# waiting up to SECONDS for them to go; true when there are some.
remote_leftovers() {
    local i h out found
    for ((i = 0; i <= $1; i += 2)); do
        found=
        for h in rb-host1 rb-host2; do
            out=$(rssh "$h" "pgrep -af 'rdmabench (server|client)'") && found+="$h: $out"$'\n'
        done
        [ -n "$found" ] || return 1
        sleep 2
    done
    echo "$found" >&2
    return 0
}

# campaign FILE PYTHON-DICT-EXPRESSION: writes a campaign (python builds it, so hostile
# strings are JSON-encoded properly). H12 is the rb-host1 -> rb-host2 pair.
campaign() {
    local file=$1
    shift
    py_check "cannot write campaign $1" "$file" "$@" <<'PY'
import json, os, sys
e = os.environ
def host(n, **kw):
    d = {"host": "rb-host%d" % n, "device": e["RB_HOST%d_DEVICE" % n],
         "gid_index": int(e["RB_HOST%d_GID_INDEX" % n]), "rdmabench": e["BIN"]}
    d.update(kw)
    return d
H12 = {"name": "h1-h2", "server": host(1), "client": host(2), "connect_address": e["RB_HOST1_ADDR"]}
c = eval(sys.argv[2])
c.setdefault("ssh_config", e["CFG"])
c.setdefault("timeout_s", 240)
c.setdefault("connect_timeout_s", 20)
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
}

# sweep NAME ARGS...: runs rdmabench sweep ARGS, output in $WORK/NAME.{out,err}; sets RC.
sweep() {
    local name=$1
    shift
    timeout 1800 "$BIN" sweep "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    RC=$?
    show "$WORK/$name.out" "$WORK/$name.err"
}

# ---------------------------------------------------------------------------------------------
step "1. 9-point campaign rb-host1 -> rb-host2 (ops x QP types, two sizes a point)"
campaign "$WORK/main.json" '{"name": "pair-main", "hosts": [H12], "token": "tok-SECRET-4711",
    "matrix": {"op": ["send", "write", "read"], "qp": ["rc", "uc", "ud"],
               "sizes": [[64, 1024]], "iterations": 100}}'
# Sample every command line here and on both hosts while it runs: the token must not appear.
(
    while [ ! -e "$WORK/main.done" ]; do
        ps -eo args | grep -F tok-SECRET | grep -v grep >>"$WORK/token-seen"
        for h in rb-host1 rb-host2; do
            rssh "$h" "ps -eo args" 2>/dev/null | grep -F tok-SECRET | grep -v grep >>"$WORK/token-seen"
        done
        sleep 1
    done
) &
SAMPLER=$!
sweep main "$WORK/main.json" --out "$WORK/main"
touch "$WORK/main.done"
wait "$SAMPLER"
[ "$RC" = 0 ] || fail "sweep exited with $RC"
counts=$("$CHECK" "$WORK/main") || fail "results do not validate ($counts)"
[ "$counts" = "ok=6 failed=0 skipped=3 results=6 lines=9 envs=2" ] || fail "unexpected: $counts"
[ ! -s "$WORK/token-seen" ] || { show "$WORK/token-seen"; fail "the token appeared on a command line"; }
for h in rb-host1 rb-host2; do
    py_check "env/$h.json is incomplete" "$WORK/main/env/$h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kernel"].startswith("Linux rb-host"), d["kernel"]
assert d["rdmabench_version"].startswith("rdmabench "), d
assert any(x.get("name") == "rxe0" for x in d["devices"]), d["devices"]
PY
done
py_check "result documents lack the point identity" "$WORK/main" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    p = d["point"]
    assert p["campaign"] == "pair-main" and p["host_pair"] == "h1-h2" and p["repetition"] == 1, p
    assert d["workload"]["op"] == p["matrix"]["op"] and d["workload"]["qp"] == p["matrix"]["qp"], p
    assert d["workload"]["sizes"] == p["matrix"]["sizes"], p
    assert d["hosts"]["server"]["hostname"] == "rb-host1" and d["hosts"]["client"]["hostname"] == "rb-host2"
PY
[ "$(grep -c '"status":"skipped","duration_s":0,"error":"invalid op' "$WORK/main/index.jsonl")" = 3 ] ||
    fail "expected 3 skipped points with their reason in the index"
! remote_leftovers 10 || fail "rdmabench processes left on the hosts after step 1"

# ---------------------------------------------------------------------------------------------
step "2. the server killed in the middle of a point"
campaign "$WORK/kill.json" '{"name": "pair-kill", "hosts": [H12],
    "matrix": {"iterations": [400000, 100], "op": ["write", "send"], "sizes": 64},
    "exclude": [{"iterations": 400000, "op": "send"}]}'
timeout 1800 "$BIN" sweep "$WORK/kill.json" --out "$WORK/kill" >"$WORK/kill.out" 2>"$WORK/kill.err" &
pid=$!
for ((i = 0; i < 300; i++)); do
    rssh rb-host2 "pgrep -f 'rdmabench client'" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
done
rssh rb-host2 "pgrep -f 'rdmabench client'" >/dev/null || fail "the first point's client never ran"
# A deliberate allowance, not a bound: the kill comes 2 s (and an ssh login) after the client
# appeared, in setup or measuring, either way the first point fails; its 400,000 writes keep it
# running far longer on the emulated pair. Had it ended first, the index below would not read
# failed, ok, ok: the test cannot pass by a kill that came too late.
sleep 2
rssh rb-host1 "pkill -KILL -f '^[^ ]*rdmabench server'" || fail "no server to kill on rb-host1"
wait "$pid"
RC=$?
show "$WORK/kill.out" "$WORK/kill.err"
[ "$RC" = 1 ] || fail "expected exit status 1 (a point failed), got $RC"
py_check "unexpected index after the kill" "$WORK/kill/index.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["status"] for l in lines] == ["failed", "ok", "ok"], lines
assert lines[0]["point_id"].startswith("write-rc-bw-64-h1-h2-r1-"), lines[0]
assert lines[0]["error"], lines[0]
print("    failed point's error:", lines[0]["error"].splitlines()[0])
PY
counts=$("$CHECK" "$WORK/kill") || fail "results do not validate ($counts)"
! remote_leftovers 10 || fail "rdmabench processes left on the hosts after step 2"

# ---------------------------------------------------------------------------------------------
step "3. the orchestrator killed (SIGKILL) in the middle; --resume"
campaign "$WORK/resume.json" '{"name": "pair-resume", "hosts": [H12],
    "matrix": {"op": ["send", "write"], "qp": ["rc", "uc"], "sizes": 64, "iterations": 3000}}'
"$BIN" sweep "$WORK/resume.json" --out "$WORK/resume" >"$WORK/resume1.out" 2>"$WORK/resume1.err" &
pid=$!
for ((i = 0; i < 600; i++)); do
    grep -q '\] ok ' "$WORK/resume1.err" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
done
grep -q '\] ok ' "$WORK/resume1.err" || { show "$WORK/resume1.err"; fail "no point finished"; }
# Kill it while the next point runs (its client is up on rb-host2).
for ((i = 0; i < 60; i++)); do
    rssh rb-host2 "pgrep -f 'rdmabench client'" >/dev/null && break
    sleep 1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
show "$WORK/resume1.out" "$WORK/resume1.err"
! remote_leftovers 20 || fail "rdmabench processes left on the hosts after the orchestrator was killed"
ok_before=$(grep -c '"status":"ok"' "$WORK/resume/index.jsonl")
[ "$ok_before" -ge 1 ] && [ "$ok_before" -le 3 ] || fail "expected 1..3 ok points before the kill, got $ok_before"
sweep resume2 "$WORK/resume.json" --out "$WORK/resume" --resume
[ "$RC" = 0 ] || fail "--resume exited with $RC"
grep -q "4 points, $((4 - ok_before)) to run, $ok_before already done" "$WORK/resume2.out" ||
    fail "--resume did not run exactly the missing points"
counts=$("$CHECK" "$WORK/resume") || fail "results do not validate ($counts)"
case $counts in ok=4\ failed=0\ skipped=0\ results=4\ *) ;; *) fail "after --resume: $counts" ;; esac
[ "$(grep -c '"status":"ok"' "$WORK/resume/index.jsonl")" = 4 ] || fail "a finished point was run again"

# ---------------------------------------------------------------------------------------------
step "4. clear errors: unreachable host, wrong rdmabench path, malformed campaign; dry run"
printf 'Include %s\nHost rb-dead\n    HostName 127.0.0.1\n    Port 1\n' "$CFG" >"$WORK/ssh_config_dead"
campaign "$WORK/dead.json" '{"name": "pair-dead", "ssh_config": os.environ["WORK"] + "/ssh_config_dead",
    "connect_timeout_s": 5, "hosts": [dict(H12, client=host(2, host="rb-dead"))],
    "matrix": {"op": "write"}}'
sweep dead "$WORK/dead.json" --out "$WORK/dead"
[ "$RC" = 1 ] || fail "unreachable host: expected exit status 1, got $RC"
grep -q "rb-dead" "$WORK/dead.err" && grep -q "cannot reach rb-dead over ssh" "$WORK/dead.err" ||
    fail "unreachable host: the error does not name rb-dead"
grep -q "no point was run" "$WORK/dead.err" && [ ! -s "$WORK/dead/index.jsonl" ] || fail "points ran with a host down"
sweep deaddry "$WORK/dead.json" --out "$WORK/deaddry" --dry-run
[ "$RC" = 0 ] && grep -q "client on rb-dead: " "$WORK/deaddry.out" && [ ! -e "$WORK/deaddry" ] ||
    fail "--dry-run failed or touched something"

campaign "$WORK/badpath.json" '{"name": "pair-badpath",
    "hosts": [dict(H12, server=host(1, rdmabench="/nonexistent/rdmabench"))], "matrix": {"op": "write"}}'
sweep badpath "$WORK/badpath.json" --out "$WORK/badpath"
[ "$RC" = 1 ] || fail "wrong rdmabench path: expected exit status 1, got $RC"
grep "rb-host1" "$WORK/badpath.err" | grep -q "/nonexistent/rdmabench" || fail "wrong path: the error does not name the host and path"

campaign "$WORK/bad.json" '{"name": "pair-bad", "hosts": [H12], "matrix": {"op": ["write", "bogus"]}}'
sweep bad "$WORK/bad.json" --out "$WORK/bad"
[ "$RC" = 2 ] && grep -q "/matrix/op/1 'bogus'" "$WORK/bad.err" || fail "malformed campaign: expected exit 2 naming /matrix/op/1"
echo '{"name": "x", "hosts": [' >"$WORK/syntax.json"
sweep syntax "$WORK/syntax.json"
[ "$RC" = 2 ] && grep -q "syntax.json" "$WORK/syntax.err" || fail "JSON syntax error: expected exit 2 naming the file"

# ---------------------------------------------------------------------------------------------
step "5. hostile values reach the remote side intact"
HOSTILE_DIR="$WORK/h ost'q\"d;\$(touch $WORK/pwned1)\`touch $WORK/pwned2\`&|<>*?
line"
mkdir -p "$HOSTILE_DIR" && ln -s "$BIN" "$HOSTILE_DIR/rdmabench" || fail "cannot create $HOSTILE_DIR"
export HOSTILE_BIN="$HOSTILE_DIR/rdmabench"
# (Not "${": campaign strings expand ${NAME} from the environment.)
export HOSTILE_DEV="rxe0' \"; touch $WORK/pwned3; echo \$(touch $WORK/pwned4) \`id\` \$HOME ;x
y"
campaign "$WORK/hostile.json" '{"name": "pair-hostile",
    "hosts": [dict(H12, name="path", server=host(1, rdmabench=e["HOSTILE_BIN"]), client=host(2, rdmabench=e["HOSTILE_BIN"])),
              dict(H12, name="device", server=host(1, device=e["HOSTILE_DEV"]))],
    "matrix": {"op": "write", "sizes": 64, "iterations": 100}}'
sweep hostile "$WORK/hostile.json" --out "$WORK/hostile"
[ "$RC" = 1 ] || fail "expected exit status 1 (the point with the bad device fails), got $RC"
py_check "hostile values were altered or executed" "$WORK/hostile" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
lines = {json.loads(l)["point_id"].split("-r1-")[0]: json.loads(l) for l in open(d + "/index.jsonl")}
path = lines["write-rc-bw-64-path"]
dev = lines["write-rc-bw-64-device"]
assert path["status"] == "ok", path
assert dev["status"] == "failed", dev
# The server saw the device name byte for byte (it quotes it in its error).
assert os.environ["HOSTILE_DEV"] in dev["error"], dev["error"]
env = json.load(open(d + "/env/rb-host1.json"))
assert env["rdmabench"] == os.environ["HOSTILE_BIN"], env["rdmabench"]
assert env["rdmabench_version"].startswith("rdmabench "), env
print("    device error:", dev["error"].splitlines()[0][:160])
PY
for n in 1 2 3 4; do
    [ ! -e "$WORK/pwned$n" ] || fail "a hostile value was executed (pwned$n exists)"
done
! remote_leftovers 10 || fail "rdmabench processes left on the hosts after step 5"

# ---------------------------------------------------------------------------------------------
step "6. --jobs 2: two disjoint host pairs at the same time"
campaign "$WORK/jobs.json" '{"name": "pair-jobs",
    "hosts": [{"name": "loop1", "server": host(1), "client": host(1), "connect_address": e["RB_HOST1_ADDR"]},
              {"name": "loop2", "server": host(2), "client": host(2), "connect_address": e["RB_HOST2_ADDR"]}],
    "matrix": {"op": ["write", "send"], "sizes": 64, "iterations": 3000}}'
sweep jobs "$WORK/jobs.json" --out "$WORK/jobs" --jobs 2
[ "$RC" = 0 ] || fail "--jobs 2 exited with $RC"
counts=$("$CHECK" "$WORK/jobs") || fail "results do not validate ($counts)"
case $counts in ok=4\ failed=0\ *) ;; *) fail "--jobs 2: $counts" ;; esac
py_check "--jobs 2 did not run the pairs in parallel" "$WORK/jobs/index.jsonl" <<'PY'
import datetime, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
end = lambda l: datetime.datetime.strptime(l["time"], "%Y-%m-%dT%H:%M:%SZ").timestamp()
total = sum(l["duration_s"] for l in lines)
span = max(end(l) for l in lines) - min(end(l) - l["duration_s"] for l in lines)
print("    points: %.1f s one after the other, %.1f s from the first start to the last end" % (total, span))
assert span < 0.8 * total, (span, total)
PY

# ---------------------------------------------------------------------------------------------
step "7a. hunt on the clean pair (links at MTU 9000): no anomaly"
for h in rb-host1 rb-host2; do
    rssh "$h" "ip link set \$(ip -o -4 addr show | awk '\$4 ~ /^198\.18\./ {print \$2}') mtu 9000" ||
        fail "cannot set the link MTU on $h"
done
# hunt_campaign FILE BUDGET: the hunt of this step (0.5 s an evaluation, a 5 s progress timeout).
hunt_campaign() {
    campaign "$1" '{"name": "pair-hunt", "hosts": [H12],
        "hunt": {"budget": '"$2"', "seed": 1, "duration_s": 0.5,
                 "space": {"op": ["write", "send"], "sizes": ["4K", "64K"], "mtu": [1024, 4096],
                           "tos": [0, 104]},
                 "baseline": {"mtu": 1024}, "fixed": {"inline_size": 0, "timeout_s": 5},
                 "score": {"bw_below": 0.2}}}'
}
hunt_campaign "$WORK/hunt-clean.json" 8
sweep hunt-clean "$WORK/hunt-clean.json" --out "$WORK/hunt-clean"
[ "$RC" = 0 ] || fail "the clean hunt exited with $RC (6: it reported an anomaly)"
grep -q "^hunt: 8 evaluation(s), 0 anomalies" "$WORK/hunt-clean.out" || fail "the clean hunt's summary"

step "7b. hunt with a loss above 2,000 bytes and a policer on DSCP 26 planted: both named, resumed"
# On both guests: RoCE v2 packets (UDP 4791) with bit 11 or 12 of the IP total length set (2,048
# bytes or more) go through netem loss 2 %; those with DSCP 26 through a 50 Mbit/s policer.
plant_hunt() {
    rssh "$1" "set -e; d=\$(ip -o -4 addr show | awk '\$4 ~ /^198\.18\./ {print \$2}')
tc qdisc add dev \$d root handle 1: prio bands 4 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
tc qdisc add dev \$d parent 1:4 handle 40: netem loss 2%
for bit in 0x0800 0x1000; do
  tc filter add dev \$d parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
     match ip dport 4791 0xffff match u16 \$bit \$bit at 2 flowid 1:4
done
tc filter add dev \$d parent 1: protocol ip prio 2 u32 match ip protocol 17 0xff \
   match ip dport 4791 0xffff match ip tos 0x68 0xfc action police rate 50mbit burst 100k drop flowid 1:1" \
        >"$WORK/tc-$1.out" 2>&1
}
for h in rb-host1 rb-host2; do
    plant_hunt "$h" || { show "$WORK/tc-$h.out"; fail "cannot plant the hunt's anomalies on $h"; }
done
hunt_campaign "$WORK/hunt.json" 16
# Interrupted after its fourth evaluation, then resumed.
timeout 1800 "$BIN" sweep "$WORK/hunt.json" --out "$WORK/hunt" >"$WORK/hunt-1.out" 2>"$WORK/hunt-1.err" &
HUNT=$!
for ((i = 0; i < 600; i++)); do
    [ "$(grep -c '^\[[0-9]*/16\]' "$WORK/hunt-1.err")" -ge 4 ] && break
    kill -0 "$HUNT" 2>/dev/null || break
    sleep 0.5
done
kill -INT "$HUNT" 2>/dev/null
wait "$HUNT"
RC=$?
show "$WORK/hunt-1.out" "$WORK/hunt-1.err"
[ "$RC" = 130 ] || fail "the interrupted hunt exited with $RC, not 130"
sweep hunt "$WORK/hunt.json" --out "$WORK/hunt" --resume
[ "$RC" = 6 ] || fail "the resumed hunt exited with $RC, not 6 (anomalies found)"
grep -q "read back from earlier runs" "$WORK/hunt.out" || fail "the resumed hunt read nothing back"
py_check "the hunt did not name exactly the planted triggers" "$WORK/hunt/index.jsonl" <<'PY'
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if '"record":"hunt"' in l.replace(" ", "")][-1]
triggers = sorted(json.dumps(a["trigger"], sort_keys=True) for a in rec["anomalies"])
print("    %d evaluations; triggers %s" % (rec["evaluations"], triggers))
assert triggers == ['{"mtu": 4096}', '{"tos": 104}'], triggers
for a in rec["anomalies"]:
    assert a["confirm"]["anomalous"], a
    c = a["reproduce"]["client"]
    assert c.startswith("rdmabench client 198.18.0.1 -d rxe0 -x 1 "), c
    k, v = next(iter(a["trigger"].items()))
    assert ("--%s %s" % (k, v)) in c, c
PY
# A policed run that completed nothing in its window fails ("no operation completed"): no
# evaluation of the hunt is "ok" at 0 operations.
py_check "a policed evaluation reported 0 operations as ok" "$WORK/hunt" <<'PY'
import glob, json, sys
stalled = low = 0
for f in sorted(glob.glob(sys.argv[1] + "/e*.json") + glob.glob(sys.argv[1] + "/failed/e*.json")):
    d = json.load(open(f))
    for r in d.get("results", []):
        if "no operation completed" in (r.get("error") or "") + (d.get("error") or ""):
            stalled += 1
        elif not r.get("error") and not d.get("error"):
            assert r["ops"] > 0, (f, r["ops"])
            low += d["workload"].get("tos") == 104
print("    policed or stalled evaluations: %d failed with nothing completed, %d measured a rate"
      % (stalled, low))
PY
for h in rb-host1 rb-host2; do rssh "$h" "tc qdisc del dev \$(ip -o -4 addr show | awk '\$4 ~ /^198\.18\./ {print \$2}') root" || true; done
! remote_leftovers 10 || fail "rdmabench processes left on the hosts after step 7"

# ---------------------------------------------------------------------------------------------
step "8. nothing left running on either host"
! remote_leftovers 0 || fail "pgrep -f 'rdmabench (server|client)' found processes"
step "pair down"
timeout 120 "$SOFTROCE" pair down || fail "pair down failed"
[ -z "$(pair_qemus)" ] || fail "qemu of the pair still running"
echo "PASS: pair sweep" >&2
