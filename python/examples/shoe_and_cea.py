#!/usr/bin/env python3
"""shoe_and_cea.py — the tvds Python package on two models of models/: a transient run of the
SDND100 friction shoe (release from r0, stick-slip against a rigid plane) and the complex
eigenvalue analysis of the beam-on-beam along its sliding path, each drawn with matplotlib.

    /usr/bin/python3 python/examples/shoe_and_cea.py [-o OUTDIR]

writes OUTDIR/shoe.png and OUTDIR/cea.png (default OUTDIR: out/python_example). Run from the
repository root after `make` (or anywhere after `make install` and `make install-python`).
Ctrl-C stops either computation cleanly.
"""
import argparse
import os
import sys
import time

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import tvds  # noqa: E402  (installed: make install-python)
except ImportError:  # run from the repository: the package in python/, the library in build/
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tvds  # noqa: E402


def shoe(outdir):
    case = tvds.Case(os.path.join(ROOT, "models", "shoe", "sdnd100a_lagrange.ini"))
    t0 = time.time()
    run = case.run(os.path.join(outdir, "shoe"))
    s = run.summary
    print("shoe: %s, %d steps of %g s to t = %g s, %.3g us/step (%.2f s wall)"
          % (s["status"], s["steps"], s["dt"], s["t_reached"], s["us_per_step"],
             time.time() - t0))
    h, c = run.history, run.contacts
    fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    ax[0].plot(h["t"], 1e3 * h["dy"], lw=1.2)
    # Analytic extrema of the SDND100 release: DY = r cos 45 at t = n pi / 100 s.
    ax[0].set_ylabel("dy [mm]")
    ax[0].set_title("%s: release of a friction shoe (%s)" % (case.name, case.method))
    ax[0].grid(alpha=0.3)
    ax[1].plot(c["t"], c["base.lambda_n"], label="normal force (%s)" % c.unit("base.lambda_n"))
    ax[1].plot(c["t"], c["base.lambda_t"], label="tangential force (%s)" % c.unit("base.lambda_t"))
    ax[1].set_xlabel("t [%s]" % h.unit("t"))
    ax[1].set_ylabel("contact force [N]")
    ax[1].legend(loc="center right")
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    path = os.path.join(outdir, "shoe.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def cea(outdir, positions, nmodes, max_pos):
    case = tvds.Case(os.path.join(ROOT, "models", "beam_on_beam", "beam_on_beam.ini"))
    t0 = time.time()
    r = case.cea(positions=positions, nmodes=nmodes, max_pos=max_pos)
    print("cea: %d positions (%d given, refined), %d branches, %d unstable windows (%.1f s)"
          % (r.npos, positions, r.nbranch, r.nwin, time.time() - t0))
    s_mm = 1e3 * r.s
    fig, ax = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for b in range(r.nbranch):
        ax[0].plot(s_mm, 1e-3 * r.freq[:, b], lw=0.8)
        ax[1].plot(s_mm, r.re[:, b], lw=0.8)
    w = r.windows
    for k in range(r.nwin):
        ax[1].axvspan(1e3 * w["s_in"][k], 1e3 * w["s_out"][k], color="red", alpha=0.25, lw=0)
        ax[0].plot(1e3 * w["s_peak"][k], 1e-3 * w["f_peak"][k], "rv", ms=5)
    ax[0].set_ylabel("frequency [kHz]")
    ax[0].set_title("%s: CEA along the sliding path, %d branches (red: unstable)"
                    % (case.name, r.nbranch))
    ax[0].grid(alpha=0.3)
    ax[1].axhline(0, color="k", lw=0.6)
    ax[1].set_ylabel("real part [1/s]")
    ax[1].set_xlabel("position of the slave along beam 2 [mm]")
    lim = max(50.0, 1.2 * float(np.nanmax(r.re))) if r.nwin else None
    if lim:
        ax[1].set_ylim(-lim, lim)
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    path = os.path.join(outdir, "cea.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--outdir", default=os.path.join("out", "python_example"))
    ap.add_argument("--positions", type=int, default=41, help="CEA positions given (41)")
    ap.add_argument("--modes", type=int, default=10, help="CEA branches (10)")
    ap.add_argument("--max-pos", type=int, default=150,
                    help="CEA positions in all after refinement (150)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    print("tvds %s (%s)" % (tvds.version(), tvds.library_path))
    try:
        for p in (shoe(a.outdir), cea(a.outdir, a.positions, a.modes, a.max_pos)):
            print("wrote", p)
    except tvds.Interrupted as e:
        print("stopped:", e, file=sys.stderr)
        return 130
    except tvds.TvdsError as e:
        print("tvds:", e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
