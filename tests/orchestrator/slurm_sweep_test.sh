#!/bin/bash
# Testbed test: campaigns through the slurm launcher, on the Slurm cluster in the fabric's guests
# (testbed/slurm; run by fabric_hosts_test.sh on its fabric, after `fabric up 4 --slurm`). The
# sweep runs on rb-host1 inside `salloc`, every server and client a job step started by srun.
#   1. configs/slurm-campaign.sbatch submitted with sbatch: a pairwise fabric of the job's 3 nodes
#      (no hosts named), every link measured through one agent per node, the agents the job's only
#      step (named by the sweep, in every index line, the one step in the slurmd logs), no
#      rdmabench step left (squeue --steps).
#   2. errors, before anything runs: a sweep outside an allocation, a host outside it (exit 2).
#   3. a point that times out and a sweep interrupted by SIGINT: the steps are cancelled, nothing
#      is left (squeue --steps, pgrep on the nodes); the token was never on a command line
#      (ps on the nodes and scontrol show step while the steps ran).
#   4. the allocation cancelled mid-campaign: the sweep stops and says so, the finished point is
#      kept, and --resume in a new allocation runs the rest. The same campaign then runs with the
#      ssh launcher (from this machine): compare_sweeps.py finds the same documents, env files and
#      index, field by field.
#   5. a node that cannot start steps (its slurmd stopped, in an allocation made with --no-kill):
#      the agents' step fails there, each node's agent is started again in a step of its own, and
#      the pairwise fabric leaves that node out with its links, like an unreachable ssh host, and
#      runs the rest (exit 1). Last: the node stays down until the fabric goes.
# Usage: slurm_sweep_test.sh RDMABENCH CHECK_RESULTS WORK (RDMABENCH_FABRIC_DIR: a fabric of at
# least 3 guests with Slurm up; WORK: a folder the guests can read and write).
set -u
BIN=${1:?usage: slurm_sweep_test.sh RDMABENCH CHECK_RESULTS WORK}
CHECK=${2:?usage: slurm_sweep_test.sh RDMABENCH CHECK_RESULTS WORK}
W=${3:?usage: slurm_sweep_test.sh RDMABENCH CHECK_RESULTS WORK}/slurm
BIN=$(readlink -f "$BIN")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SLURM=$ROOT/testbed/slurm
# shellcheck source=tests/orchestrator/test_lib.sh
. "$(dirname "$0")/test_lib.sh"
mkdir -p "$W" && chmod 755 "$W"

timeout 60 "$SLURM" status >"$W/status.out" || { show "$W/status.out"; fail "testbed/slurm is not up"; }
eval "$(timeout 60 "$SLURM" env)" || fail "testbed/slurm env failed"
eval "$(timeout 60 "$ROOT/testbed/softroce" fabric env)" || fail "fabric env failed"
# on1 CMD...: CMD on rb-host1 with Slurm's commands (bounded; stdin closed).
on1() { timeout 900 "$SLURM" exec "$@" </dev/null; }
# on N CMD: a shell command on rb-hostN.
on() { timeout 120 ssh -F "$RB_FABRIC_SSH_CONFIG" "rb-host$1" "$2" </dev/null; }
TOKEN=tok-SECRET-5lurm
# The script each allocation runs on rb-host1: the sweep, then the steps still there.
cat >"$W/in_alloc.sh" <<EOF
#!/bin/bash
out=\$1; shift
echo "\$SLURM_JOB_ID" >"\$out.job"
# (WAIT_GO=1: not before the test has prepared the nodes.)
while [ -n "\${WAIT_GO:-}" ] && [ ! -e "\$out.go" ]; do sleep 0.5; done
"$BIN" sweep "\$@" --out "\$out" >"\$out.out" 2>"\$out.err"
rc=\$?
# The steps still there: the sweep waits for a cancelled step to leave squeue (the slurm
# launcher's stop, issue 47: its task's exit can take seconds after srun has gone); up to 10 s
# more here all the same; one that stays is a leak.
for _ in 1 2 3 4 5 6 7 8 9 10; do
    squeue -h --steps -j "\$SLURM_JOB_ID" -o '%i %j' >"\$out.steps"
    grep -q rdmabench "\$out.steps" || break
    sleep 1
done
exit \$rc
EOF
# campaign OUT PYTHON: a host-pair campaign rb-host2 (server) <- rb-host3 (client) with this
# build's rdmabench, PYTHON applied to it (`c`, `host(n)`).
campaign() {
    python3 - "$1" "$2" <<'PY'
import json, os, sys
def host(n):
    return {"host": "rb-host%d" % n, "device": os.environ["RB_HOST%d_DEVICE" % n],
            "gid_index": int(os.environ["RB_HOST%d_GID_INDEX" % n]), "rdmabench": os.environ["BIN"]}
c = {"name": "slurm", "token": os.environ["TOKEN"], "ssh_config": os.environ["RB_FABRIC_SSH_CONFIG"],
     "hosts": [{"name": "3-to-2", "server": host(2), "client": host(3),
                "connect_address": os.environ["RB_HOST2_ADDR"]}],
     "matrix": {"op": ["write", "send"], "mode": "lat", "sizes": [[64]], "iterations": 2000,
                "timeout_s": 60},
     "timeout_s": 120}
exec(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
}
export BIN TOKEN RB_FABRIC_SSH_CONFIG RB_HOST1_DEVICE RB_HOST2_DEVICE RB_HOST3_DEVICE \
    RB_HOST1_GID_INDEX RB_HOST2_GID_INDEX RB_HOST3_GID_INDEX RB_HOST2_ADDR
# wait_for WHAT CONDITION: until the shell CONDITION holds (at most 300 s, while the sweep $pid
# runs).
wait_for() {
    local deadline=$((SECONDS + 300))
    until eval "$2"; do
        [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null || fail "$1"
        sleep 1
    done
}
# no_steps_left OUT: the allocation's steps after the sweep (OUT.steps) hold no rdmabench step.
# When one is left, what its processes were doing on rb-host2 and rb-host3 (state, kernel wait
# channel, stack) goes with the failure.
no_steps_left() {
    [ -f "$1.steps" ] || fail "no list of the steps after the sweep ($1.steps)"
    grep -q rdmabench "$1.steps" || return 0
    for n in 2 3; do
        on "$n" 'for p in $(pgrep -x rdmabench); do ps -o pid,stat,wchan:32,etimes,args -p "$p"
            for t in /proc/$p/task/*; do echo "$t $(cat "$t/wchan") $(tr "\n" " " <"$t/stack")"; done; done' \
            >"$1.procs$n" 2>&1
    done
    show "$1.steps" "$1.procs2" "$1.procs3"
    fail "rdmabench steps left in the allocation"
}
# RDMABENCH_SLURM_ONLY=N: step N alone (for chasing one step; 3 is run
# RDMABENCH_SLURM_STEP3_RUNS times, default 1, each run with its own files).
ONLY=${RDMABENCH_SLURM_ONLY:-}
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

if want 1; then
step "slurm 1. configs/slurm-campaign.sbatch: a pairwise fabric of the job's three nodes through agents, one job step"
campaign "$W/pw.json" 'del c["hosts"]
c["launcher"] = "slurm"
c["fabric"] = {"allocation": {k: v for k, v in host(1).items() if k != "host"},
               "pattern": {"pattern": "pairwise", "directions": "one"}, "start_delay_s": 1,
               "verdicts": {"bw_fraction": 0.1}}  # (one flow a round: no planted link here)
c["matrix"] = {"op": "write", "mode": "bw", "sizes": [[4096]], "duration_s": 1, "warmup_s": 0.2,
               "timeout_s": 60}' || fail "cannot write the pairwise campaign"
# The example batch script as a user submits it (this build's rdmabench first on PATH); -W waits
# for the job.
on1 sh -c 'RDMABENCH_OUT=$1 PATH=$0:$PATH exec sbatch --parsable -W -N 3 -w "rb-host[1-3]" --output="$1.out" "$2" "$3"' \
    "$(dirname "$BIN")" "$W/pw" "$ROOT/configs/slurm-campaign.sbatch" "$W/pw.json" >"$W/pw.job"
rc=$?
show "$W/pw.out"
[ "$rc" = 0 ] || fail "the pairwise sweep through srun exited with $rc"
sed -i 's/;.*//' "$W/pw.job"  # (--parsable: "JOB" or "JOB;CLUSTER")
counts=$("$CHECK" "$W/pw") || fail "the pairwise results do not validate ($counts)"
case $counts in "ok=3 failed=0 skipped=0 results=3 "*" envs=3") ;; *) fail "pairwise: got $counts" ;; esac
on1 squeue -h --steps -j "$(cat "$W/pw.job")" -o '%i %j' >"$W/pw.steps" 2>/dev/null
no_steps_left "$W/pw"
# One job step for the whole campaign: the sweep names its agents' step, every point's both ends
# ran in it, and slurmd on the nodes launched no other step of the job (the agents' hellos are the
# host checks).
agents_step=$(sed -n 's/^rdmabench: the agents run as Slurm step \([0-9.]*\) .*/\1/p' "$W/pw.out")
[ -n "$agents_step" ] || fail "the sweep did not say which step runs its agents"
cat "$RB_SLURM_DIR"/slurmd-*.log >"$W/pw.slurmd.log" 2>/dev/null
python3 - "$W/pw" "$(cat "$W/pw.job")" "$agents_step" "$W/pw.slurmd.log" <<'PY' || { show "$W/pw.out"; fail "the agents did not run as one step"; }
import json, re, sys
out, job, agents, log = sys.argv[1:]
lines = [json.loads(l) for l in open(out + "/index.jsonl") if l.strip()]
points = [l for l in lines if "point_id" in l]
assert len(points) == 3, points
for p in points:
    assert p["slurm_steps"] == {"server": agents, "client": agents}, p
launched = re.findall(r"launch task StepId=" + re.escape(job) + r"\.(\d+) ", open(log).read())
assert launched, "no 'launch task StepId=%s.N' line in the slurmd logs" % job
ids = sorted(set(int(i) for i in launched))
a = int(agents.split(".")[1])
assert launched.count(str(a)) == 3, "the agents' step %s was launched on %d nodes" % (agents, launched.count(str(a)))
assert ids == [a], "steps of the job besides the agents' %s: %s" % (agents, [i for i in ids if i != a])
print("one step for the whole campaign, the 3 agents': %s; every point's ends in it" % agents)
PY
fi

if want 2; then
step "slurm 2. refused before anything runs: outside an allocation, a host outside it"
campaign "$W/pair.json" '' || fail "cannot write the host-pair campaign"
on1 "$BIN" sweep "$W/pair.json" --launcher slurm --out "$W/none" >"$W/none.out" 2>&1
rc=$?
show "$W/none.out"
[ "$rc" = 2 ] && grep -q "not inside a Slurm allocation (SLURM_JOB_ID is not set)" "$W/none.out" ||
    fail "outside an allocation: expected exit 2 and the reason, got $rc"
[ ! -e "$W/none" ] || fail "a refused sweep created its results folder"
on1 salloc -N 2 -w "rb-host[1-2]" bash "$W/in_alloc.sh" "$W/outside" "$W/pair.json" --launcher slurm
rc=$?
show "$W/outside.err"
[ "$rc" = 2 ] && grep -q '/hosts/0/client/host .*"rb-host3".*a node of Slurm allocation' "$W/outside.err" ||
    fail "a host outside the allocation: expected exit 2 naming /hosts/0/client/host, got $rc"
fi

# slurm_step3 RUN: step 3 once, its files named stop-RUN (stop for the first).
slurm_step3() {
    local S=$W/stop$1 rc pid p2 p3 ps n left first
    step "slurm 3 (run ${1:-1}). a point that times out, then SIGINT: the steps are cancelled, the token never shown"
    campaign "$S.json" 'c["launcher"] = "slurm"
c["matrix"] = {"op": ["write", "send"], "mode": "bw", "sizes": [[4096]], "duration_s": 60,
               "timeout_s": 120}
c["timeout_s"] = 30' || fail "cannot write the campaign to stop"
    on1 salloc -N 3 -w "rb-host[1-3]" bash "$W/in_alloc.sh" "$S" "$S.json" &
    pid=$!
    # While the first point runs: the command lines on the nodes and the steps as Slurm shows them.
    # (A client: the host checks run rdmabench on the nodes too.) The point runs until its timeout_s,
    # 30 s after its launch: a deliberate allowance for the ssh round trips below on a slow guest,
    # made at once (on a loaded host three in a row once took longer than 20 s). Were they later, ps
    # and scontrol would not show the steps and the test would fail; it cannot pass by it.
    wait_for "the first point did not start (see $S.err)" '[ -n "$(on 3 "pgrep -f \"[r]dmabench client\"")" ]'
    on 2 'ps -eo args' >"$W/ps2.out" &
    p2=$!
    on 3 'ps -eo args' >"$W/ps3.out" &
    p3=$!
    on1 scontrol show step "$(cat "$S.job")" >"$W/steps.out" 2>&1 &
    ps=$!
    wait "$p2" "$p3" "$ps"
    cat "$W/ps2.out" "$W/ps3.out" >"$W/ps.out"
    grep -q "rdmabench server" "$W/ps.out" && grep -q "rdmabench" "$W/steps.out" ||
        { show "$W/ps.out" "$W/steps.out"; fail "did not see the running steps"; }
    ! grep -q "$TOKEN" "$W/ps.out" "$W/steps.out" || fail "the token is on a command line or in scontrol's view"
    # Then the first point times out, and SIGINT comes while the second one runs (up to its own 30 s:
    # the same allowance for one ssh round trip; later, the sweep would exit 1, not 130).
    # (A client other than the first point's: a first client still exiting must not pass for it.)
    first=$(on 3 "pgrep -f \"[r]dmabench client\"" | tr '\n' ' ')
    wait_for "the second point did not start (see $S.err)" 'grep -q "\"status\":\"failed\"" "$S/index.jsonl" 2>/dev/null && on 3 "pgrep -f \"[r]dmabench client\"" | grep -qvxF -f <(printf "%s\n" $first)'
    on 1 'pkill -INT -x rdmabench' || fail "cannot send SIGINT to the sweep on rb-host1"
    wait "$pid"
    rc=$?
    show "$S.out" "$S.err"
    [ "$rc" = 130 ] || fail "expected exit status 130 after SIGINT, got $rc"
    grep -q '"error":"timed out after 30 s' "$S/index.jsonl" || fail "the first point did not time out"
    no_steps_left "$S"
    for n in 2 3; do
        left=$(on "$n" "pgrep -ax rdmabench")
        [ -z "$left" ] || fail "left running on rb-host$n: $left"
    done
}
if want 3; then
    for run in $(seq "${RDMABENCH_SLURM_STEP3_RUNS:-1}"); do
        slurm_step3 "$([ "$run" = 1 ] || echo "-$run")"
    done
fi

if want 4; then
step "slurm 4. the allocation cancelled mid-campaign: results kept, --resume in a new one"
campaign "$W/end.json" 'c["launcher"] = "slurm"' || fail "cannot write the campaign to cut short"
on1 salloc -N 3 -w "rb-host[1-3]" bash "$W/in_alloc.sh" "$W/end" "$W/end.json" &
pid=$!
deadline=$((SECONDS + 300))
until grep -q '"status":"ok"' "$W/end/index.jsonl" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null || { show "$W/end.out" "$W/end.err"; fail "the first point did not finish"; }
    sleep 1
done
# A deliberate allowance: the scancel (a poll of at most 1 s, then one command through
# testbed/slurm) landed 4-7 s into the second point, which takes 17-38 s in full on the testbed
# (idle or loaded host). Had it come after the campaign's end, the sweep would exit 0 and the
# test fail below: it cannot pass by a late scancel.
on1 scancel "$(cat "$W/end.job")" || fail "scancel of the allocation failed"
timeout 120 tail --pid="$pid" -f /dev/null || fail "the sweep did not end within 120 s of the scancel"
wait "$pid"
rc=$?
show "$W/end.out" "$W/end.err"
[ "$rc" = 1 ] && grep -q "Slurm allocation $(cat "$W/end.job") ended (its time limit, or scancel)" "$W/end.err" ||
    fail "the sweep whose allocation ended: expected exit 1 and the reason, got $rc"
grep -q '"status":"ok"' "$W/end/index.jsonl" || fail "the finished point was not kept"
on1 salloc -N 3 -w "rb-host[1-3]" bash "$W/in_alloc.sh" "$W/end" "$W/end.json" --resume
rc=$?
show "$W/end.out" "$W/end.err"
[ "$rc" = 0 ] || fail "--resume in a new allocation exited with $rc"
grep -q "already done" "$W/end.out" || fail "--resume ran the finished point again"
counts=$("$CHECK" "$W/end") || fail "the resumed results do not validate ($counts)"
case $counts in "ok=2 failed=0 skipped=0 results=2 "*) ;; *) fail "resumed: got $counts" ;; esac
no_steps_left "$W/end"
"$BIN" sweep "$W/end.json" --launcher ssh --out "$W/by-ssh" >"$W/by-ssh.out" 2>&1 || { show "$W/by-ssh.out"; fail "the ssh sweep failed"; }
python3 "$(dirname "$0")/compare_sweeps.py" "$W/by-ssh" "$W/end" >"$W/compare.out"
rc=$?
show "$W/compare.out"
[ "$rc" = 0 ] || fail "the two launchers wrote different results"
fi

if want 5; then
step "slurm 5. a node whose slurmd is gone is left out with its links; the rest runs"
py_check "cannot write the campaign with a node down" "$W/pw.json" "$W/down.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["connect_timeout_s"] = 20  # srun gives up on the node after about 12 s
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
on1 env WAIT_GO=1 salloc -N 3 -w "rb-host[1-3]" --no-kill bash "$W/in_alloc.sh" "$W/down" "$W/down.json" &
pid=$!
deadline=$((SECONDS + 120))
until [ -s "$W/down.job" ]; do
    [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null || fail "no allocation for the node-down sweep"
    sleep 0.5
done
# The sweep goes only once slurmd is surely gone (its process ended), not merely signalled.
on 3 'p=$(cat /run/rb-slurm/slurmd.pid) && kill "$p" && for i in $(seq 300); do kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done; exit 1' ||
    fail "cannot stop slurmd on rb-host3 (or it did not end within 30 s)"
touch "$W/down.go"
timeout 600 tail --pid="$pid" -f /dev/null || fail "the node-down sweep did not end within 600 s"
wait "$pid"
rc=$?
show "$W/down.out" "$W/down.err"
[ "$rc" = 1 ] || fail "a node down: expected exit 1, got $rc"
grep -q 'fabric host rb-host3 is left out, with its links' "$W/down.err" || fail "rb-host3 is not named as left out"
# The agents' step could not start on rb-host3: each node's agent was started again in a step of
# its own, and only rb-host3's failed.
grep -q "host check failed for fabric host 'rb-host3': its agent did not start" "$W/down.err" ||
    fail "rb-host3's agent is not named as the one that did not start"
[ "$(grep -c '^rdmabench: the agents run as Slurm step' "$W/down.err")" -ge 2 ] ||
    fail "the agents were not started again one step per node"
counts=$("$CHECK" "$W/down") || fail "the node-down results do not validate ($counts)"
case $counts in "ok=1 failed=2 skipped=0 results=1 "*) ;; *) fail "node down: got $counts" ;; esac
fi

echo "PASS: the slurm launcher: a pairwise fabric, the same results as ssh, refusals, timeout and SIGINT cancel the steps, resume after the allocation ended, a node down left out" >&2
