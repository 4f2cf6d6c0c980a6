#!/bin/bash
# CTest check_links (unit): tools/check-links on a folder of its own. Good links (a file, a folder,
# a heading's anchor by GitHub's rule, a repeated heading's -1, a page's own #anchor, an image, a
# reference definition, a source file's #L10, http and mailto) pass; a missing file, a missing
# anchor in another page and in the page itself are each printed as FILE:LINE: TARGET and make it
# exit 1; links in fenced blocks and code spans are not read.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHECK=$ROOT/tools/check-links
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/rb-links.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/docs" "$T/src"
touch "$T/src/a.cc" "$T/fig.png"
cat >"$T/docs/page.md" <<'EOF'
# A page

## Exit status (`--help`'s table)

## Watching a link

## Watching a link

### 1,000 agents: what_it costs?
EOF
cat >"$T/README.md" <<'EOF'
# Top

## Two commands

See [the page](docs/page.md), [its status](docs/page.md#exit-status---helps-table),
[again](docs/page.md#watching-a-link-1), [agents](docs/page.md#1000-agents-what_it-costs),
[here](#two-commands), [src](src/a.cc#L10), [folder](src/), ![fig](fig.png "a title"),
[web](https://example.com/x#y), [mail](mailto:a@b.c).

[ref]: docs/page.md#a-page

```sh
[not a link](missing-in-a-fence.md)
```
And `[not a link](missing-in-code.md)` either.
EOF
out=$("$CHECK" "$T/README.md" "$T/docs/page.md" 2>&1)
rc=$?
[ "$rc" = 0 ] && [ -z "$out" ] || fail "good links: exit $rc: $out"
echo "ok: good links pass"

cat >"$T/docs/bad.md" <<'EOF'
# Bad

A [missing file](nothing.md), a [missing anchor](page.md#no-such-heading),
and [one of its own](#not-here); [fine](page.md#watching-a-link).
EOF
out=$(cd "$T" && "$CHECK" docs/bad.md 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "broken links: exit $rc, not 1: $out"
grep -q "^docs/bad.md:3: nothing.md" <<<"$out" || fail "missing file not reported: $out"
grep -q "^docs/bad.md:3: page.md#no-such-heading" <<<"$out" || fail "missing anchor not reported: $out"
grep -q "^docs/bad.md:4: #not-here" <<<"$out" || fail "missing own anchor not reported: $out"
[ "$(grep -c . <<<"$out")" = 3 ] || fail "expected 3 broken links: $out"
echo "ok: broken links reported"
echo "PASS: check-links"
