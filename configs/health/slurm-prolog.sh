#!/bin/bash
# Example: a Slurm prolog (or epilog) that runs `rdmabench check` on the node and drains the node
# when the check fails, with the failed expectation as the reason (docs/health-checks.md). Not
# active anywhere: copy it, adapt it, and name it in slurm.conf
# (Prolog=/etc/slurm/prolog.d/rdmabench-check.sh; slurmd runs it as root, which check does not
# need). It always exits 0: the drain says why, and a failing prolog would also requeue the job.
#
# Environment (all optional):
#   RDMABENCH             the command (default: rdmabench on PATH)
#   RDMABENCH_CHECK_ARGS  check's options, e.g. "--peer node7 --expect-file /etc/rdmabench/check"
#                         (default: the port ACTIVE and a usable GID only)
#   SLURMD_NODENAME       set by slurmd: the node to drain (default: this host's short name)
set -u
RDMABENCH=${RDMABENCH:-rdmabench}
node=${SLURMD_NODENAME:-$(hostname -s)}
out=$(mktemp)
rc=0
# shellcheck disable=SC2086 # the options, one word each
"$RDMABENCH" check --max-time 30 ${RDMABENCH_CHECK_ARGS:-} >"$out" 2>&1 || rc=$?
cat "$out"
if [ "$rc" = 8 ]; then  # an expectation failed: the verdict line names the first
  reason="rdmabench check: $(sed -n 's/^check: FAIL, //p' "$out" | head -n 1)"
elif [ "$rc" != 0 ]; then  # the check could not run (no device, bad options, the peer down)
  reason="rdmabench check could not run (exit $rc): $(tail -n 1 "$out")"
fi
rm -f "$out"
[ "$rc" = 0 ] || scontrol update nodename="$node" state=drain reason="${reason:0:250}"
exit 0
