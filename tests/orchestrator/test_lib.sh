# Shared by the sweep test scripts (sourced): how they report.
#   fail MESSAGE   print "FAIL: MESSAGE" on stderr and exit 1
#   step TITLE     print "=== [SECONDS s] TITLE" on stderr (seconds since the script started)
#   show FILE...   print the files on stderr, indented
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() { echo "=== [${SECONDS} s] $*" >&2; }
show() { sed 's/^/    | /' "$@" >&2; }
# sweep_expect WANT_RC WANT_COUNTS CAMPAIGN OUTDIR: runs "$BIN sweep CAMPAIGN --out OUTDIR"
# (stdout in OUTDIR.out, stderr in OUTDIR.err), shows both, and fails unless it exited WANT_RC
# and "$CHECK OUTDIR" (rdmabench_check_results) printed WANT_COUNTS.
sweep_expect() {
    local want_rc=$1 want_counts=$2 campaign=$3 out=$4 rc counts
    "$BIN" sweep "$campaign" --out "$out" >"$out.out" 2>"$out.err"
    rc=$?
    show "$out.out" "$out.err"
    [ "$rc" = "$want_rc" ] || fail "sweep $campaign exited with $rc, expected $want_rc"
    counts=$("$CHECK" "$out") || fail "results of $campaign do not validate ($counts)"
    [ "$counts" = "$want_counts" ] || fail "$campaign: got $counts, expected $want_counts"
}
# ssh_test_workdir PREFIX: sets WORK to a new folder (mode 755, the guests read it over 9p) and
# points TMPDIR at WORK/t, where the sweeps put their ssh control folders.
ssh_test_workdir() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    chmod 755 "$WORK"
    export TMPDIR=$WORK/t
    mkdir -p "$TMPDIR"
}
# close_control_masters: ends the ssh control masters a killed sweep left in $TMPDIR (they would
# time out by themselves).
close_control_masters() {
    local s
    for s in "$TMPDIR"/rdmabench-ssh.*/*; do
        [ -S "$s" ] && timeout 10 ssh -o ControlPath="$s" -O exit dummy >/dev/null 2>&1
    done
}
# pair_workdir PREFIX: ssh_test_workdir PREFIX and a testbed pair of the test's own in WORK/pair
# (RDMABENCH_PAIR_DIR; "$SOFTROCE" pair up/down), taken down on any exit; the work folder is
# removed when the test passed and kept (and named) when it failed.
pair_workdir() {
    ssh_test_workdir "$1"
    export RDMABENCH_PAIR_DIR=$WORK/pair
    trap pair_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
# pair_qemus: the pids of the pair's qemu processes (their command lines name the state dir).
pair_qemus() { pgrep -f "rdmabench.state=$RDMABENCH_PAIR_DIR/host" || true; }
pair_cleanup() {
    local rc=$? pid
    close_control_masters
    if [ -n "$(pair_qemus)" ]; then
        timeout 120 "$SOFTROCE" pair down || true
        for pid in $(pair_qemus); do kill -KILL "$pid" 2>/dev/null || true; done
    fi
    if [ "$rc" = 0 ]; then rm -rf "$WORK"; else echo "(work folder kept: $WORK)" >&2; fi
    exit "$rc"
}
# py_check MESSAGE ARG...: runs the Python script on stdin with ARGs (python3 - ARG...); its
# output goes to stdout; when it fails, "FAIL: MESSAGE: " and the last line of its error (the
# assertion and its values), so a truncated CI log still shows what did not hold.
py_check() {
    local msg=$1 err rc
    shift
    err=$(mktemp)
    python3 - "$@" 2>"$err"
    rc=$?
    if [ "$rc" != 0 ]; then
        sed 's/^/    | /' "$err" >&2
        msg="$msg: $(tail -n1 "$err" | cut -c1-600)"
    fi
    rm -f "$err"
    [ "$rc" = 0 ] || fail "$msg"
}
