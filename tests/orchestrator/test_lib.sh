# Shared by the sweep test scripts (sourced): how they report.
#   fail MESSAGE   print "FAIL: MESSAGE" on stderr and exit 1
#   step TITLE     print "=== TITLE" on stderr
#   show FILE...   print the files on stderr, indented
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() { echo "=== $*" >&2; }
show() { sed 's/^/    | /' "$@" >&2; }
