#!/bin/bash
# CTest install_tree (label unit, no device): `cmake --install` of the build into a DESTDIR
# stage (--strip, as a package installs it) puts the command, its manual page, its bash completion, the example campaigns, the
# testbed scripts and the documentation under the prefix; the installed command runs and reads an
# installed campaign; moved to another prefix, it still does (nothing is found through a path of
# the build tree); the manual page and the completion are the command's own (--help's options).
#   install_test.sh BUILD_DIR
set -u
build=${1:?usage: install_test.sh BUILD_DIR}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
T=$(mktemp -d "${TMPDIR:-/tmp}/rb-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
DESTDIR=$T/stage cmake --install "$build" --prefix /opt/rb --strip >"$T/install.log" 2>&1 ||
    { cat "$T/install.log" >&2; fail "cmake --install failed"; }
P=$T/stage/opt/rb
for f in bin/rdmabench share/man/man1/rdmabench.1.gz share/bash-completion/completions/rdmabench \
    share/rdmabench/configs/quick.json share/rdmabench/configs/traffic-classes.json \
    share/rdmabench/testbed/softroce share/rdmabench/testbed/lib.sh share/doc/rdmabench/README.md \
    share/doc/rdmabench/SCHEMA.md share/doc/rdmabench/campaigns.md \
    share/doc/rdmabench/copyright share/doc/rdmabench/changelog.gz; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/rdmabench" ] && [ -x "$P/share/rdmabench/testbed/softroce" ] || fail "not executable"
# Runs from the stage, and from another prefix after a move: no path of the build tree.
mv "$T/stage/opt/rb" "$T/moved"
P=$T/moved
"$P/bin/rdmabench" --version | grep -qx "rdmabench [0-9.]*" || fail "the moved rdmabench does not run"
"$P/bin/rdmabench" sweep "$P/share/rdmabench/configs/quick.json" --dry-run >"$T/dry.out" 2>&1 ||
    { cat "$T/dry.out" >&2; fail "the moved rdmabench cannot read an installed campaign"; }
if grep -aqF "$(cd "$build" && pwd)" "$P/bin/rdmabench"; then fail "the binary names the build tree"; fi
# The manual page: man finds it under the prefix, and every client option of --help is in it.
man -w -M "$P/share/man" rdmabench >/dev/null 2>&1 || fail "man -w does not find rdmabench(1)"
page=$(MANWIDTH=200 man -l "$P/share/man/man1/rdmabench.1.gz" 2>/dev/null) || fail "man cannot format rdmabench(1)"
for opt in $("$P/bin/rdmabench" client --help | grep -o -- '--[a-z][a-z_-]*' | sort -u); do
    grep -qF -- "$opt" <<<"$page" || fail "rdmabench(1) lacks the client's $opt"
done
# The completion: bash loads it; it completes subcommands and a subcommand's options.
out=$(bash -c ". '$P/share/bash-completion/completions/rdmabench'
  COMP_WORDS=(rdmabench cl); COMP_CWORD=1; _rdmabench; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(rdmabench client --to); COMP_CWORD=2; _rdmabench; echo \"\${COMPREPLY[*]}\"") ||
    fail "the completion does not load"
grep -qx "client" <<<"$(sed -n 1p <<<"$out")" || fail "completion of 'cl': $out"
grep -q -- "--tos" <<<"$(sed -n 2p <<<"$out")" || fail "completion of 'client --to': $out"
grep -q -- "--token" <<<"$(sed -n 2p <<<"$out")" || fail "completion of 'client --to': $out"
echo "install_tree: ok ($(find "$P" -type f | wc -l) files)"
