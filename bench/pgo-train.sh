#!/bin/sh
# bench/pgo-train.sh TVDS: the training runs of the profile-guided build (make PGO=1,
# docs/performance.md): short runs of the shipped cases through the stepping paths a user's
# runs take (modal central differences with each contact method, exact propagation, the shoes'
# laws and elements, 3D faces). One thread, as the runs are deterministic that way.
set -e
BIN=$1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1 OPENBLAS_NUM_THREADS=1
for m in subs-a subs-b subs-c film; do
    "$BIN" run models/beam_on_beam/beam_on_beam.ini --set run.method=$m --set run.t_end=0.012 \
        -o "$OUT/bob_$m" --quiet
done
"$BIN" run models/beam_on_beam/beam_on_beam.ini --set run.integrator=exact --set run.f_band=11e3 \
    --set run.t_end=0.05 -o "$OUT/exact" --quiet
for f in models/shoe/*.ini; do
    for m in subs-b film; do
        "$BIN" run "$f" --set run.method=$m -o "$OUT/shoe" --quiet
    done
done
"$BIN" run models/beam_on_beam/beam_on_beam_3d.ini --set run.t_end=0.002 -o "$OUT/bob3d" --quiet
