#!/bin/bash
# CTest install_tree (label unit, no device): `cmake --install` of the build into a DESTDIR
# stage (--strip, as a package installs it) puts the command, its manual page, its bash
# completion, the example campaigns, the testbed scripts and the documentation under the prefix;
# every page of docs/ is installed beside the README (share/doc/rdmabench/docs/), and every path
# README.md, the pages of docs/ and the manual page name under an install prefix
# (/usr/share/rdmabench/..., `share/doc/rdmabench`, `bin/rdmabench`, found in their text, not
# listed here) is in the stage, and every file an installed testbed script runs or sources from
# beside itself too; the installed command runs and reads an installed campaign, and moved to
# another prefix, it still does (nothing is found through a path of the build tree), as do
# testbed/slurm status and testbed/softroce --help; the manual page and the completion are the
# command's own (--help's options).
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
    share/doc/rdmabench/SCHEMA.md share/doc/rdmabench/campaigns.md share/doc/rdmabench/docs/single-pair.md \
    share/doc/rdmabench/copyright share/doc/rdmabench/changelog.gz; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/rdmabench" ] && [ -x "$P/share/rdmabench/testbed/softroce" ] || fail "not executable"
# named_paths FILE...: the paths under an install prefix that FILE's text names: /usr/... or
# /usr/local/... followed by bin/ or share/, or bin/... and share/... written alone (after a space,
# quote, backtick or parenthesis), as paths relative to the prefix, without trailing punctuation.
named_paths() {
    grep -ohE "(^|[[:space:]\`'\"(])(/usr(/local)?/)?(bin|share)/[A-Za-z0-9_.*+/-]+" "$@" |
        sed -E "s/^[[:space:]\`'\"(]//; s#^/usr(/local)?/##; s/[.,:;]+\$//" | sort -u
}
got=$(printf '%s\n' 'sbatch /usr/share/a/b.sbatch, (/usr/local/bin/c) `share/doc/d`.' 'build/bin/e' |
    named_paths -)
[ "$got" = "$(printf '%s\n' bin/c share/a/b.sbatch share/doc/d)" ] || fail "named_paths: $got"
# The manual page's roff source with its escapes undone (formatted text may hyphenate a path).
gzip -dc "$P/share/man/man1/rdmabench.1.gz" | sed -E 's/\\-/-/g; s/\\&//g; s/\\f[BIRP]//g' >"$T/man.txt" ||
    fail "cannot read the installed manual page"
src=$(cd "$(dirname "$0")/../.." && pwd)
# Every page the README links to is installed beside it (docs/NAME.md).
for f in "$src"/docs/*.md; do
    [ -f "$P/share/doc/rdmabench/docs/${f##*/}" ] || fail "not installed: share/doc/rdmabench/docs/${f##*/}"
done
named=$(named_paths "$src/README.md" "$src"/docs/*.md "$T/man.txt")
[ "$(grep -c . <<<"$named")" -ge 3 ] || fail "README.md, docs/ and rdmabench(1) name almost no installed path: $named"
while read -r f; do
    # A glob (configs/*.json) must match something; anything else must exist.
    compgen -G "$P/$f" >/dev/null || fail "README.md, docs/ or rdmabench(1) names $f, which is not installed"
done <<<"$named"
# What the installed testbed scripts run from beside themselves ("$TESTBED_DIR/NAME") is there.
for f in $(grep -ohE '\$TESTBED_DIR/[A-Za-z0-9_.-]+' "$P/share/rdmabench/testbed/"* | sort -u); do
    [ -e "$P/share/rdmabench/testbed/${f#\$TESTBED_DIR/}" ] || fail "testbed script needs $f, not installed"
done
# What the documentation tells the user to run is executable.
for f in share/rdmabench/configs/slurm-campaign.sbatch share/rdmabench/testbed/slurm; do
    [ -x "$P/$f" ] || fail "not executable: $f"
done
# Runs from the stage, and from another prefix after a move: no path of the build tree.
mv "$T/stage/opt/rb" "$T/moved"
P=$T/moved
"$P/bin/rdmabench" --version | grep -qx "rdmabench [0-9.]*" || fail "the moved rdmabench does not run"
"$P/bin/rdmabench" sweep "$P/share/rdmabench/configs/quick.json" --dry-run >"$T/dry.out" 2>&1 ||
    { cat "$T/dry.out" >&2; fail "the moved rdmabench cannot read an installed campaign"; }
# The installed batch script finds the campaign installed with the rdmabench on PATH: outside an
# allocation, the sweep reads it and then refuses the slurm launcher (exit 2).
(cd "$T" && env -u SLURM_JOB_ID PATH="$P/bin:$PATH" "$P/share/rdmabench/configs/slurm-campaign.sbatch") \
    >"$T/sbatch.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "not inside a Slurm allocation" "$T/sbatch.out" ||
    { cat "$T/sbatch.out" >&2; fail "the installed slurm-campaign.sbatch outside an allocation: exit $rc"; }
# The installed testbed/slurm runs from there (no fabric here: "not up", exit 3).
RDMABENCH_FABRIC_DIR=$T/no-fabric "$P/share/rdmabench/testbed/slurm" status >"$T/slurm.out" 2>&1
rc=$?
[ "$rc" = 3 ] && grep -q "not up" "$T/slurm.out" ||
    { cat "$T/slurm.out" >&2; fail "the installed testbed/slurm status: exit $rc, not 3 (not up)"; }
# The installed testbed/softroce runs from there: it sources lib.sh and its parts
# (softroce-*.sh) from beside itself.
if ! "$P/share/rdmabench/testbed/softroce" --help >"$T/softroce.out" 2>&1 ||
    ! grep -q "^usage: softroce run" "$T/softroce.out"; then
    cat "$T/softroce.out" >&2
    fail "the installed testbed/softroce --help does not run"
fi
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
