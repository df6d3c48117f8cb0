/* validate_exact.c — exact solutions of the validation cases: SDND100 extrema, SDND104 slip
 * arcs and mean wear power, the belt-driven oscillator in closed form (docs/validation.md). */
#include <math.h>

#include "analysis/validate_impl.h"

/* ==== Analytic references ==================================================================== */

double tvds_sdnd100_extremum(double r0, double mu, double m, double g, double k, int n)
{
    double band = mu * m * g / k; /* |r| <= band: the spring cannot break the shoe loose */
    double r = r0;
    for (int i = 1; i <= n; i++) {
        if (fabs(r) <= band) break; /* stopped at the previous extremum */
        /* Half cycle about the centre sign(r) band: r -> -(r - sign(r) 2 band). */
        r = r > 0.0 ? -(r - 2.0 * band) : -(r + 2.0 * band);
    }
    return r;
}

double validate_arc_v(const arc *A, double t)
{
    return -A->s * A->mug * (t - A->ts) + A->a0 / A->w * (cos(A->w * t) - cos(A->w * A->ts));
}

double validate_arc_x(const arc *A, double t)
{
    double d = t - A->ts;
    return -0.5 * A->s * A->mug * d * d +
           A->a0 / A->w * ((sin(A->w * t) - sin(A->w * A->ts)) / A->w - cos(A->w * A->ts) * d);
}

/* End of arc A: the first return of s v to zero after its start, found by scanning in steps of
 * `scan` (at most up to tlim) and bisecting to round-off. */
double validate_arc_end(const arc *A, double scan, double tlim)
{
    double s = A->s, ta = A->ts, tb = A->ts + scan;
    while (s * validate_arc_v(A, tb) > 0.0) {
        ta = tb;
        tb += scan;
        if (tb > tlim) break;
    }
    for (int it = 0; it < 200 && tb - ta > 4e-16 * tb; it++) {
        double tm = 0.5 * (ta + tb);
        if (s * validate_arc_v(A, tm) > 0.0)
            ta = tm;
        else
            tb = tm;
    }
    return 0.5 * (ta + tb);
}

int tvds_sdnd104_wear_power(double a0, double freq, double mu, double m, double g, double t0,
                            double t1, double *P)
{
    if (!(a0 > 0.0) || !(freq > 0.0) || !(mu >= 0.0) || !(m > 0.0) || !(g > 0.0) || !(t1 > t0) ||
        !(t0 >= 0.0))
        return TVDS_ERR_INVALID;
    double w = 2.0 * V_PI * freq, mug = mu * g, eta = mug / a0;
    *P = 0.0;
    if (eta >= 1.0) return TVDS_OK; /* the base never asks more than mu g: permanent stick */
    double as = asin(eta), T = 1.0 / freq, scan = T / 20000.0;
    double t = 0.0, E = 0.0;
    int sticking = 1;
    double s = 0.0;
    while (t < t1) {
        if (sticking) {
            /* Stick until |a0 sin wt| first exceeds mu g: wt = asin(eta) + k pi. */
            double kk = ceil((w * t - as) / V_PI);
            double te = (as + kk * V_PI) / w;
            if (te < t) te = t;
            t = te;
            s = sin(w * t) > 0.0 ? -1.0 : 1.0; /* the mass lags the base */
            sticking = 0;
            continue;
        }
        arc A = {t, s, a0, w, mug};
        double te = validate_arc_end(&A, scan, t1 + 2.0 * T);
        double a = t > t0 ? t : t0, b = te < t1 ? te : t1;
        /* s v >= 0 on the whole arc: only round-off could make the integral negative. */
        if (b > a) E += m * g * fmax(0.0, s * (validate_arc_x(&A, b) - validate_arc_x(&A, a)));
        t = te;
        if (fabs(a0 * sin(w * t)) <= mug) {
            sticking = 1;
        } else {
            s = sin(w * t) > 0.0 ? -1.0 : 1.0;
        }
    }
    *P = E / (t1 - t0);
    return TVDS_OK;
}

/* ---- Belt-driven oscillator ---- */

double tvds_belt_closed_form(double t)
{
    double w = sqrt(BELT_K / BELT_M), A = (BELT_FST - BELT_FSL) / BELT_K;
    double t_rel = BELT_FST / (BELT_K * BELT_V); /* first release */
    double t_slip = (2.0 * V_PI - 2.0 * atan(A * w / BELT_V)) / w, t_stick = 2.0 * A / BELT_V;
    if (t <= t_rel) return BELT_V * t;
    double s = fmod(t - t_rel, t_slip + t_stick);
    if (s <= t_slip) return BELT_FSL / BELT_K + A * cos(w * s) + BELT_V / w * sin(w * s);
    return BELT_FSL / BELT_K - A + BELT_V * (s - t_slip);
}
