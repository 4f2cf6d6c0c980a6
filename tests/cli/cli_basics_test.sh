#!/bin/bash
# CTest cli_basics (label unit, no device needed): small command-line behaviours of the rdmabench
# binary on the host. `devices` with no RDMA device exits 1 (with one or more, 0); an option that
# takes a file refuses a value that looks like an option; --help ends with the exit statuses; a
# fabric campaign's --dry-run lists its rounds; a server takes --once or --sessions, not both; a
# sweep refuses a host whose rdmabench is another version; a client's --start-at is a Unix time
# within its timeout.
#   cli_basics_test.sh RDMABENCH
set -u
bin=$1
fail=0
check() {  # check NAME WANT_STATUS WANT_TEXT CMD...
  local name=$1 want=$2 text=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want: $out"
    fail=1
  elif [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL $name: output lacks '$text': $out"
    fail=1
  else
    echo "ok   $name"
  fi
}
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  check devices-present 0 "" "$bin" devices
else
  check devices-none 1 "no RDMA device found" "$bin" devices
  check devices-none-json 1 "[]" "$bin" devices --json
fi
check client-json-option 2 "a file name, not an option ('-J'" "$bin" client 192.0.2.1 --json -J
# --start-at: a Unix time no further ahead than the timeout (checked before any device).
check client-start-at-text 2 "invalid start-at 'soon'" "$bin" client 192.0.2.1 --start-at soon
check client-start-at-far 2 "at most the timeout (5 s) from now" \
  "$bin" client 192.0.2.1 --start-at "$(($(date +%s) + 3600))"
# QP settings: ranges from the field table, perftest's spellings accepted (before any device).
check client-sl-range 2 "invalid sl '16'" "$bin" client 192.0.2.1 --sl 16
check client-tos-range 2 "invalid tos '256'" "$bin" client 192.0.2.1 -T 256
check client-retry-range 2 "invalid retry-count '8'" "$bin" client 192.0.2.1 --retry-count 8
check client-gid-type 2 "invalid gid-type 'ib'" "$bin" client 192.0.2.1 --gid-type ib
check client-flow-label-alias 2 "invalid flow-label '1048576'" "$bin" client 192.0.2.1 --flow_label 1048576
check client-pkey-alias 2 "invalid pkey-index '65536'" "$bin" client 192.0.2.1 --pkey_index 65536
check server-cpus-absent 2 "invalid cpus '4000': a CPU this process may run on" "$bin" server --cpus 4000
check export-out-option 2 "--out" "$bin" export --csv /nonexistent -o --x
check help-exit-statuses 0 "5    the server is busy" "$bin" --help
check server-once-and-sessions 2 "--once or --sessions, not both" "$bin" server --once --sessions 2
fabric=$(dirname "$0")/../../configs/fabric-pairwise.json
check fabric-dry-run-rounds 0 "6/6 pairwise 3/3 swapped: rb-host4 -> rb-host3, rb-host1 -> rb-host2" \
  "$bin" sweep "$fabric" --dry-run
check help-exit-check 0 "8    check: an expectation failed" "$bin" --help
check check-bad-expectation 2 "invalid expect 'write bw 64K >= 90': unit '' is not one of: Gb/s, Mb/s" \
  "$bin" check -e 'write bw 64K >= 90'
check check-expect-file-absent 2 "invalid expect-file '/nonexistent/x'" "$bin" check --expect-file /nonexistent/x
check check-traffic-without-peer 2 "invalid peer '': a server to run the traffic expectations against" \
  "$bin" check -e 'read lat 8 p99 <= 5us'
check check-peer-and-loopback 2 "one of --peer HOST and --loopback" "$bin" check --peer h --loopback
check help-exit-bad-link 0 "6    sweep: every point ran, but a fabric link was judged bad" "$bin" --help
# A host whose rdmabench is another version: the host check stops the sweep, naming both.
tmp=$(mktemp -d)
printf '#!/bin/sh\necho "rdmabench 0.0.1"\n' >"$tmp/old-rdmabench"
chmod +x "$tmp/old-rdmabench"
printf '{"name": "v", "hosts": [{"name": "p", "server": {"host": "local", "rdmabench": "%s"}, "client": {"host": "local"}}], "matrix": {"op": "write"}}\n' \
  "$tmp/old-rdmabench" >"$tmp/v.json"
check sweep-version-mismatch 1 "is rdmabench 0.0.1, this controller is rdmabench " \
  "$bin" sweep "$tmp/v.json" --out "$tmp/out"
rm -rf "$tmp"
exit $fail
