#!/bin/sh
# squeal3d_antisym.sh — docs/squeal.md, "Transients of the 3D pair": the 3D case at mu = 0.45
# with C from x = 30 mm to 0.45 s (subs-b at h and h/2, FiLm), the tip line's edge normal forces
# split into the part symmetric across the width (l_-5 + l_+5, the in-plane family) and the
# antisymmetric part (l_-5 - l_+5, lateral bending and torsion), RMS of each fluctuation per 5 ms,
# drawn to docs/img/squeal3d_antisym.png. About 4 min of CPU. Run from the source tree:
#   sh docs/img/squeal3d_antisym.sh [WORKDIR]
set -e
W=${1:-out/squeal3d_antisym}
T=build/bin/tvds
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$W"
case "$W" in /*) A=$W ;; *) A=$PWD/$W ;; esac
$T model beam-on-beam-3d -o "$W/model" --set s0=0.030 >/dev/null
run() { # name method [extra --set]
    n=$1 meth=$2
    shift 2
    $T run models/beam_on_beam/beam_on_beam_3d.ini -o "$W/$n" -q --method "$meth" \
        --set run.t_end=0.45 --set contact.C.mu=0.45 \
        --set substructure.beam1.dir="$A/model/beam1" \
        --set substructure.beam2.dir="$A/model/beam2" "$@"
    # columns 2 and 42: lambda_n of the edge nodes z = -5 and +5 mm
    awk -F, 'NR > 1 { b = int($1 / 0.005); n[b]++; s = $2 + $42; d = $2 - $42;
                      S[b] += s; S2[b] += s * s; D[b] += d; D2[b] += d * d; if (b > mb) mb = b }
             END { for (b = 0; b < mb; b++) if (n[b] > 1) {
                       ms = S[b] / n[b]; vs = S2[b] / n[b] - ms * ms; if (vs < 0) vs = 0
                       md = D[b] / n[b]; vd = D2[b] / n[b] - md * md; if (vd < 0) vd = 0
                       printf "%.4f %.6e %.6e\n", (b + 0.5) * 0.005, sqrt(vs), sqrt(vd) } }' \
        "$W/$n/contacts.csv" >"$W/$n.dat"
}
run subsb subs-b
run subsb_h2 subs-b --set run.dt=8.8e-8
run film film
gnuplot <<EOF
set terminal pngcairo size 900,520 font ",11"
set output "docs/img/squeal3d_antisym.png"
set logscale y
set format y "10^{%L}"
set xlabel "t [s]"
set ylabel "RMS of the fluctuation per 5 ms [N]"
set title "3D pair, mu = 0.45: tip-line edge forces, symmetric vs antisymmetric across the width"
set key right top
set yrange [1e-12:1]
plot "$W/subsb.dat" u 1:3 w l lw 2 lc rgb "#c0392b" t "subs-b, h: antisymmetric", \
     "$W/subsb_h2.dat" u 1:3 w l lw 2 lc rgb "#e67e22" t "subs-b, h/2: antisymmetric", \
     "$W/film.dat" u 1:3 w l lw 2 lc rgb "#2c3e50" t "FiLm: antisymmetric", \
     "$W/subsb.dat" u 1:2 w l dt 2 lc rgb "#c0392b" t "subs-b, h: symmetric", \
     "$W/film.dat" u 1:2 w l dt 2 lc rgb "#2c3e50" t "FiLm: symmetric"
EOF
echo "wrote docs/img/squeal3d_antisym.png"
