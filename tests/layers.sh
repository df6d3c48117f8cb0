#!/bin/sh
# layers.sh — check that the library calls only downward (docs/architecture.md).
#
# usage: tests/layers.sh OBJDIR OBJ...   (OBJDIR: the build's object tree, e.g. build/obj;
#        OBJ: the library's and the CLI's object files; `make layers` passes them)
#
# Every object file gets the rank of the first line of LAYERS below whose pattern matches its
# source path. A call from file A to a function defined in file B (nm: B defines the global
# symbol A leaves undefined) is allowed when rank(B) < rank(A), or when both have the same
# rank and the rank is marked "peers" (files of one room that may call each other, as long as
# the files do not call in a circle). A call upward, a call between two files of a strict rank
# (the engine's phases), or a circle among peers fails the check with the offending calls.
set -eu
export LC_ALL=C
[ $# -ge 2 ] || { echo "usage: tests/layers.sh OBJDIR OBJ..."; exit 2; }
objdir=$1
shift

# rank  kind    source pattern (shell glob on the path under the source root)
LAYERS='
10 peers  src/core/*
20 peers  src/io/*
30 peers  reduce/*
40 strict src/engine/friction_laws.c
41 strict src/engine/elements.c
42 strict src/engine/sim_state.c
44 strict src/engine/contact/master.c
43 peers  src/engine/contact/*
45 strict src/engine/sim_assemble.c
45 strict src/engine/sim_penalty.c
45 strict src/engine/sim_channels.c
45 strict src/engine/sim_exact.c
46 strict src/engine/sim_predict.c
46 strict src/engine/sim_contact.c
46 strict src/engine/sim_elements.c
46 strict src/engine/sim_solve.c
46 strict src/engine/sim_record.c
45 strict src/engine/sim_subs.c
45 strict src/engine/sim_wbuild.c
46 strict src/engine/sim_data.c
47 strict src/engine/sim.c
48 strict src/engine/run.c
50 peers  src/fe/*
60 peers  src/analysis/*
90 peers  src/cli/*
'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file -> rank, kind
printf '%s\n' "$@" | sort > "$tmp/objs"
: > "$tmp/ranks"
: > "$tmp/defs"
: > "$tmp/uses"
while read -r o; do
    src=${o#"$objdir"/}
    src=${src%.o}.c
    rank=
    kind=
    while read -r r k pat; do
        [ -n "$r" ] || continue
        # shellcheck disable=SC2254
        case $src in $pat) rank=$r kind=$k; break ;; esac
    done <<EOF
$LAYERS
EOF
    [ -n "$rank" ] || { echo "layers: $src is in no layer (add it to tests/layers.sh)"; exit 1; }
    echo "$src $rank $kind" >> "$tmp/ranks"
    nm -g --defined-only "$o" | awk -v f="$src" 'NF == 3 && $2 ~ /[TDRB]/ {print $3, f}' >> "$tmp/defs"
    nm -u "$o" | awk -v f="$src" '{print $NF, f}' >> "$tmp/uses"
done < "$tmp/objs"

sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
# caller callee symbol
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 {print $2, $3, $1}' | sort -u > "$tmp/calls"

awk -v ranks="$tmp/ranks" '
BEGIN { while ((getline l < ranks) > 0) { split(l, f, " "); rk[f[1]] = f[2] + 0; kd[f[1]] = f[3] } }
{
    x = $1; y = $2
    if (rk[y] > rk[x]) { print "layers: upward call " x " -> " y " (" $3 ")"; bad = 1 }
    else if (rk[y] == rk[x] && kd[x] == "strict") {
        print "layers: call between two files of one strict layer " x " -> " y " (" $3 ")"; bad = 1
    }
    else if (rk[y] == rk[x]) edge[x, y] = 1
    if (rk[y] == rk[x]) { nodes[x] = 1; nodes[y] = 1 }
}
END {
    # A circle among peers: repeatedly drop files that call no remaining peer.
    do {
        changed = 0
        for (n in nodes) {
            out = 0
            for (m in nodes) if ((n, m) in edge) { out = 1; break }
            if (!out) { delete nodes[n]; changed = 1 }
        }
    } while (changed)
    left = ""
    for (n in nodes) left = left " " n
    if (left != "") { print "layers: calls in a circle among" left; bad = 1 }
    exit bad
}' "$tmp/calls" || { echo "layers: FAILED (the order is in tests/layers.sh and docs/architecture.md)"; exit 1; }

echo "layers: $(wc -l < "$tmp/calls") cross-file calls among $(wc -l < "$tmp/ranks") files, all downward"
