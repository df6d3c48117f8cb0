#!/bin/sh
# tour.sh — run README's five-minute tour as written, each long command shortened by one
# substitution (a shorter t_end, fewer positions), in a fresh directory, and check that it
# reads only what the repository ships and writes only under out/.
# usage: tests/tour.sh TVDS_BINARY   (from the repository root; `make test-tour`)
set -eu
root=$(pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$bin" ] || { echo "tour: $1 is not an executable" >&2; exit 2; }
command -v ccx >/dev/null 2>&1 || { echo "tour: 'ccx' is not installed (Debian calculix-ccx; make deps)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tvds-tour.XXXXXX")
trap 'rm -rf "$work"' EXIT
before=$(git -C "$root" status --porcelain 2>/dev/null || true)

# The tour's commands: the sh block under "## A five-minute tour", continuation lines joined,
# comments and blank lines dropped, `make` left out (the binary is built already).
awk '/^## A five-minute tour/ { t = 1 } t && /^```sh/ { b = 1; next } b && /^```/ { exit }
     b { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' "$root/README.md" |
    sed -e 's/^[[:space:]]*//' | grep -v -e '^#' -e '^$' -e '^make\([[:space:]]\|$\)' >"$work/commands"
[ -s "$work/commands" ] || { echo "tour: no commands found in README.md" >&2; exit 1; }

# Each substitution shortens one long command; every one must apply (a tour line that changed
# must change here too, so that the test keeps running what README says).
cat >"$work/shorten" <<'SED'
cea models/beam_on_beam/beam_on_beam.ini|cea models/beam_on_beam/beam_on_beam.ini --positions 3 --no-refine --no-undamped
--set run.t_end=0.3|--set run.t_end=0.1
--set run.t_end=0.2|--set run.t_end=0.002
--mode cea --positions 11|--mode cea --positions 3 --no-refine
contact.C.mu=0.1:0.5:5|contact.C.mu=0.1:0.5:2
SED
cp "$work/commands" "$work/short"
while IFS='|' read -r from to; do
    grep -qF -- "$from" "$work/short" || { echo "tour: no tour line has '$from' (update tests/tour.sh)" >&2; exit 1; }
    awk -v f="$from" -v t="$to" '{ i = index($0, f); if (i) $0 = substr($0, 1, i - 1) t substr($0, i + length(f)); print }' \
        "$work/short" >"$work/tmp" && mv "$work/tmp" "$work/short"
done <"$work/shorten"

mkdir "$work/run"
ln -s "$root/models" "$work/run/models"
n=0
while IFS= read -r cmd; do
    n=$((n + 1))
    line=$(printf '%s\n' "$cmd" | sed "s#build/bin/tvds#$bin#g")
    t0=$(date +%s)
    if ! (cd "$work/run" && sh -c "$line" >"$work/out.$n" 2>&1); then
        echo "tour: FAILED: $cmd" >&2
        tail -n 20 "$work/out.$n" >&2
        exit 1
    fi
    echo "tour: ok ($(($(date +%s) - t0)) s): $cmd"
done <"$work/short"

# Nothing outside out/ (models/ is the repository's, linked in read-only use).
extra=$(cd "$work/run" && ls -A | grep -v -x -e out -e models || true)
[ -z "$extra" ] || { echo "tour: wrote outside out/: $extra" >&2; exit 1; }
after=$(git -C "$root" status --porcelain 2>/dev/null || true)
[ "$before" = "$after" ] || { echo "tour: the repository changed (git status)" >&2; exit 1; }
echo "tour: $n commands of README's tour passed"
