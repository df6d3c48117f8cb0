#!/bin/sh
# accuracy.sh — accuracy and CPU time of the exact modal integrator against converged
# central-difference runs on the beam-on-beam 1.2 s transient (docs/performance.md, "A step
# chosen for accuracy"). Run by `make bench-accuracy` (about 1 minute of CPU).
#
# usage: bench/accuracy.sh BIN ACCURACY_TOOL OUTDIR
# Two variants of models/beam_on_beam/beam_on_beam.ini: the paper's damping (no burst: the
# dominant frequency and lambda_N are compared), and beta = 1e-8 s on both beams (bursts across
# the unstable windows at t = 0.74-0.78 s and 1.10-1.14 s: their growth and frequency too).
# Reference: central differences at half the automatic step (converged: the automatic step
# itself differs from it by up to 1.8 % in growth, the figures printed below).
set -eu
bin=$1
tool=$2
out=$3
case=models/beam_on_beam/beam_on_beam.ini
b1="--set substructure.beam1.beta=1e-8 --set substructure.beam2.beta=1e-8 \
--set substructure.beam1.beta0=1e-8 --set substructure.beam2.beta0=1e-8"
mkdir -p "$out"
run() { # name, options...
    name=$1
    shift
    # shellcheck disable=SC2086
    "$bin" run "$case" -q -o "$out/$name" "$@" >/dev/null
    sed -n 's/.*"cpu_seconds": *\([0-9.e+-]*\).*/\1/p' "$out/$name/summary.json" | head -1 |
        xargs printf "%-22s loop CPU %s s\n" "$name"
}
half=$("$bin" check "$case" | sed -n 's/.*chosen dt *\([0-9.e+-]*\) s.*/\1/p')
half=$(awk -v h="$half" 'BEGIN { printf "%.9g", h / 2 }')
# shellcheck disable=SC2086
{
    run ref_paper --set run.dt="$half"
    run central_paper
    run exact_paper --set run.integrator=exact --set run.f_band=11e3
    run ref_beta1e-8 $b1 --set run.dt="$half"
    run central_beta1e-8 $b1
    run exact_beta1e-8 $b1 --set run.integrator=exact --set run.f_band=11e3
}
W="1.08 1.10 1.14 10604 0.72 0.74 0.78 10599"
for v in paper beta1e-8; do
    for r in central exact; do
        echo
        echo "== $r vs reference ($v damping)"
        if [ $v = paper ]; then
            "$tool" "$out/ref_$v" "$out/${r}_$v" 0.3 1.2
        else
            # shellcheck disable=SC2086
            "$tool" "$out/ref_$v" "$out/${r}_$v" 0.3 1.2 $W
        fi
    done
done
