#!/bin/bash
# CTest engine_on_siw: the engine suite on Soft-iWARP (testbed/softroce run --transport iwarp).
#   run_on_siw.sh SOFTROCE ENGINE_TESTS [GTEST ARGS...]
# Exit 77 (CTest SKIP_RETURN_CODE: reported as "Not Run", never as passed) when siw.ko cannot
# be built for the testbed's guest kernel (no matching Debian linux-source/linux-headers); any
# other testbed failure is a failure.
set -u
softroce=$1
shift
"$softroce" siw-module >/dev/null
rc=$?
if [ "$rc" = 3 ]; then
    echo "NOT RUN: siw.ko cannot be built for the testbed's guest kernel (reason above);" \
        "the iWARP engine tests did not run" >&2
    exit 77
fi
[ "$rc" = 0 ] || { echo "testbed/softroce siw-module failed (exit $rc)" >&2; exit 1; }
exec "$softroce" run --transport iwarp --timeout 1500 -- "$@"
