#!/bin/bash
# Example: `rdmabench check` for node_exporter's textfile collector (docs/health-checks.md): run it
# from cron or a systemd timer; it writes rdmabench.prom (atomically) into the collector's folder:
# rdmabench_check_pass, rdmabench_check_expectation_pass and rdmabench_check_figure, labelled by
# host, device, port and expectation. When the check could not run at all it removes the file, so
# that an alert on absent(rdmabench_check_pass) fires rather than stale figures being read as
# current.
#
# Environment (all optional):
#   RDMABENCH             the command (default: rdmabench on PATH)
#   RDMABENCH_CHECK_ARGS  check's options, e.g. "--loopback --expect-file /etc/rdmabench/check"
#   TEXTFILE_DIR          the collector's folder (default /var/lib/prometheus/node-exporter,
#                         Debian's prometheus-node-exporter)
set -u
RDMABENCH=${RDMABENCH:-rdmabench}
DIR=${TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
json=$(mktemp --suffix=.json)
trap 'rm -f "$json"' EXIT
rc=0
# shellcheck disable=SC2086 # the options, one word each
"$RDMABENCH" check --max-time 30 --json "$json" ${RDMABENCH_CHECK_ARGS:-} >/dev/null || rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 8 ]; then
  echo "rdmabench check could not run (exit $rc): removing $DIR/rdmabench.prom" >&2
  rm -f "$DIR/rdmabench.prom"
  exit "$rc"
fi
"$RDMABENCH" export --prometheus "$json" -o "$DIR/rdmabench.prom"
