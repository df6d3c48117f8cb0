/* validate.c — shipped validation cases: SDND100/SDND104 analytic references, one-DoF shoes
 * over the friction laws, and the driver that runs the case files through the engine. */
#include "tvds/tvds_validate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/friction_laws_impl.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_sim.h"

static const double V_PI = 3.14159265358979323846;
static const double COS45 = 0.70710678118654752440;

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

/* SDND104 slip arc starting at rest relative to the base at ts, sliding in direction s:
 * v(t) = -s mu g (t - ts) + (a0/w)(cos wt - cos w ts) and its integral from ts. */
typedef struct arc {
    double ts, s, a0, w, mug;
} arc;

static double arc_v(const arc *A, double t)
{
    return -A->s * A->mug * (t - A->ts) + A->a0 / A->w * (cos(A->w * t) - cos(A->w * A->ts));
}

static double arc_x(const arc *A, double t)
{
    double d = t - A->ts;
    return -0.5 * A->s * A->mug * d * d +
           A->a0 / A->w * ((sin(A->w * t) - sin(A->w * A->ts)) / A->w - cos(A->w * A->ts) * d);
}

/* End of arc A: the first return of s v to zero after its start, found by scanning in steps of
 * `scan` (at most up to tlim) and bisecting to round-off. */
static double arc_end(const arc *A, double scan, double tlim)
{
    double s = A->s, ta = A->ts, tb = A->ts + scan;
    while (s * arc_v(A, tb) > 0.0) {
        ta = tb;
        tb += scan;
        if (tb > tlim) break;
    }
    for (int it = 0; it < 200 && tb - ta > 4e-16 * tb; it++) {
        double tm = 0.5 * (ta + tb);
        if (s * arc_v(A, tm) > 0.0)
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
        double te = arc_end(&A, scan, t1 + 2.0 * T);
        double a = t > t0 ? t : t0, b = te < t1 ? te : t1;
        /* s v >= 0 on the whole arc: only round-off could make the integral negative. */
        if (b > a) E += m * g * fmax(0.0, s * (arc_x(&A, b) - arc_x(&A, a)));
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

/* ==== One-DoF shoes over the friction laws =================================================== */

/* 3-point (quadratic) interpolation of samples y at times k h, k = 0..n-1, at time t. */
static double interp3(const double *y, int n, double h, double t)
{
    int i = (int)floor(t / h + 0.5); /* nearest sample */
    if (i < 1) i = 1;
    if (i > n - 2) i = n - 2;
    double x = t / h - i; /* in [-1, 1] */
    return y[i] + 0.5 * x * (y[i + 1] - y[i - 1]) +
           0.5 * x * x * (y[i + 1] - 2.0 * y[i] + y[i - 1]);
}

static tvds_fn fconst(double v)
{
    tvds_fn f;
    memset(&f, 0, sizeof f);
    f.kind = TVDS_FN_CONST;
    f.amp = v;
    return f;
}

/* Rigid stick-slip element between DoF x and ground, one central-difference step of
 * m x'' = fother - Fi (the element pushes x with -Fi). Returns x_{n+1}; *Fi and *dvf receive the
 * element force and slip velocity of the step. */
static double rigid_step(const tvds_element *el, tvds_ef_state *st, double t1, double m, double x,
                         double xprev, double fother, double h, double *Fi, double *dvf)
{
    double xfree = 2.0 * x - xprev + h * h * fother / m;
    double dv_pred = (xfree - h * h * st->Fi / m - x) / h;
    tvds_ef_rigid_request req;
    tvds_ef_rigid_begin(el, st, t1, dv_pred, &req);
    tvds_ef_out o;
    int redo = 0;
    double xn;
    if (req.stick_row) {
        xn = x; /* relative displacement frozen over the step */
        double lambda = (xfree - xn) * m / (h * h);
        tvds_ef_rigid_end(el, st, t1, lambda, 0.0, h, &o, &redo);
        if (redo) {
            xn = xfree - h * h * o.Fi / m;
            tvds_ef_rigid_end(el, st, t1, 0.0, (xn - x) / h, h, &o, &redo);
        }
    } else {
        xn = xfree - h * h * req.Fi / m;
        tvds_ef_rigid_end(el, st, t1, 0.0, (xn - x) / h, h, &o, &redo);
    }
    *Fi = o.Fi;
    *dvf = o.dv_fric;
    return xn;
}

int tvds_shoe_sdnd100(int law, int one_way, double kt, double h, double dy[4])
{
    const double m = 1.0, k = 1e4, g = 10.0, mu = 0.1, r0 = 0.85e-3;
    if (!(h > 0.0) || h > 1e-3) return TVDS_ERR_INVALID;
    double t_end = 4.0 * V_PI / 100.0 + 4.0 * h;
    int n = (int)ceil(t_end / h) + 2;
    double *r = tvds_malloc((size_t)n * sizeof *r);
    if (!r) return TVDS_ERR_NOMEM;
    r[0] = r0;
    if (law == TVDS_SHOE_PENALTY) {
        tvds_contact c;
        memset(&c, 0, sizeof c);
        c.law = TVDS_LAW_PENALTY;
        c.kn = 20.0;
        c.pen0 = 0.5; /* F_N = kn pen0 = m g */
        c.kt = kt;
        c.mu_s = c.mu_k = mu;
        if (one_way) {
            c.anisotropic = 1;
            c.mu_axis[0] = mu;  /* along x */
            c.mu_axis[1] = 0.0; /* along y = NORM_OBST */
        }
        double ut0[2] = {r0 * COS45, r0 * COS45};
        tvds_pen_state st;
        tvds_pen_init(&c, 0.0, ut0, &st);
        /* Released from rest with the tangential spring unloaded: r_{-1} = r0 + h^2 a0 / 2. */
        double rprev = r0 - 0.5 * h * h * k * r0 / m;
        for (int i = 0; i + 1 < n; i++) {
            double vt = (r[i] - rprev) / h;
            tvds_pen_kin kin = {0.0, 0.0, {r[i] * COS45, r[i] * COS45}, {vt * COS45, vt * COS45}};
            tvds_pen_out o;
            tvds_pen_step(&c, &st, &kin, h, &o);
            double ftheta = (o.Ft[0] + o.Ft[1]) * COS45;
            r[i + 1] = 2.0 * r[i] - rprev + h * h * (-k * r[i] + ftheta) / m;
            rprev = r[i];
        }
    } else {
        tvds_element el;
        memset(&el, 0, sizeof el);
        el.kind = TVDS_EL_ELASTIC_FRICTION;
        el.rigid = 1;
        double fsl = (one_way ? mu / sqrt(2.0) : mu) * m * g;
        el.Fsl = fconst(fsl);
        el.Fst = fconst(fsl); /* Fst = Fsl (1 + dFfrel), dFfrel = 0: Coulomb */
        tvds_ef_state st;
        tvds_ef_init(&el, r0, &st);
        double a0 = (-k * r0 + fsl) / m;      /* k r0 > Fst: slides from the start */
        double rprev = r0 + 0.5 * h * h * a0; /* x_{-1} = x0 - h v0 + h^2 a0 / 2 */
        for (int i = 0; i + 1 < n; i++) {
            double Fi, dvf;
            r[i + 1] = rigid_step(&el, &st, (i + 1) * h, m, r[i], rprev, -k * r[i], h, &Fi, &dvf);
            rprev = r[i];
        }
    }
    for (int q = 0; q < 4; q++)
        dy[q] = COS45 * interp3(r, n, h, (q + 1) * V_PI / 100.0);
    tvds_free(r);
    return TVDS_OK;
}

int tvds_shoe_sdnd104(int law, double a0, double kt, double ks, double h, double *P)
{
    const double m = 1.0, g = 10.0, mu = 0.1, w = 2.0 * V_PI;
    const double t0 = 4.0, t1 = 12.0;
    if (!(h > 0.0) || h > 1e-3) return TVDS_ERR_INVALID;
    long n = (long)llround(t1 / h);
    double x = 0.0, xprev; /* displacement relative to the base; stuck at t = 0 */
    double E = 0.0;
    /* Stuck and at rest relative to the base at t = 0 with zero base acceleration:
     * x_{-1} = 0 (second-order start, a(0) = 0). */
    xprev = 0.0;
    if (law == TVDS_SHOE_PENALTY) {
        tvds_contact c;
        memset(&c, 0, sizeof c);
        c.law = TVDS_LAW_PENALTY;
        c.kn = 20.0;
        c.pen0 = 0.5;
        c.kt = kt;
        c.mu_s = c.mu_k = mu;
        tvds_pen_state st;
        tvds_pen_init(&c, 0.0, NULL, &st);
        for (long i = 0; i < n; i++) {
            double t = i * h;
            double v = (x - xprev) / h;
            tvds_pen_kin kin = {0.0, 0.0, {x, 0.0}, {v, 0.0}};
            tvds_pen_out o;
            tvds_pen_step(&c, &st, &kin, h, &o);
            /* The wear of step i: anchor slip over (t_{i-1}, t_i], counted at its midpoint. */
            if (t - 0.5 * h >= t0 && t - 0.5 * h < t1) E += o.p_wear * h;
            double f = -m * a0 * sin(w * t) - ks * x + o.Ft[0];
            double xn = 2.0 * x - xprev + h * h * f / m;
            xprev = x;
            x = xn;
        }
    } else {
        tvds_element el;
        memset(&el, 0, sizeof el);
        el.kind = TVDS_EL_ELASTIC_FRICTION;
        el.rigid = 1;
        el.Fsl = fconst(mu * m * g);
        el.Fst = fconst(mu * m * g);
        tvds_ef_state st;
        tvds_ef_init(&el, 0.0, &st);
        for (long i = 0; i < n; i++) {
            double t = i * h;
            double f = -m * a0 * sin(w * t) - ks * x;
            double Fi, dvf;
            double xn = rigid_step(&el, &st, t + h, m, x, xprev, f, h, &Fi, &dvf);
            /* Slip over (t_i, t_{i+1}): wear F_N |dv_fric| h, zero while stuck. */
            if (t + 0.5 * h >= t0 && t + 0.5 * h < t1) E += m * g * fabs(dvf) * h;
            xprev = x;
            x = xn;
        }
    }
    *P = E / (t1 - t0);
    return TVDS_OK;
}

/* ---- Belt-driven oscillator ---- */

#define BELT_M   1.0
#define BELT_K   100.0
#define BELT_V   0.1
#define BELT_FST 2.0
#define BELT_FSL 1.0

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

/* The belt oscillator from stuck at t = 0 with step h: xs[0..n-1] at t = i h. */
static int belt_sim(int rigid, double k, double b, double h, int n, double *xs)
{
    tvds_element el;
    memset(&el, 0, sizeof el);
    el.kind = TVDS_EL_ELASTIC_FRICTION;
    el.rigid = rigid;
    el.k = k;
    el.b = b;
    el.Fst = fconst(BELT_FST);
    el.Fsl = fconst(BELT_FSL);
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    double state[TVDS_EF_NSTATE];
    tvds_ef_hook_init(&el, 0.0, state);
    /* Stuck to the belt at t = 0: x = 0, moving at V (du_{-1} = 0 too). */
    double xprev = -BELT_V * h, du_old = 0.0, force = 0.0;
    xs[0] = 0.0;
    int rc = TVDS_OK;
    for (int i = 0; i + 1 < n && !rc; i++) {
        double x0 = xs[i], t1 = (i + 1) * h;
        if (rigid) {
            /* The element between the mass and the belt: relative coordinate y = x - V t. */
            double Fi, dvf;
            double y = x0 - BELT_V * i * h, yprev = xprev - BELT_V * (i - 1) * h;
            double yn = rigid_step(&el, &st, t1, BELT_M, y, yprev, -BELT_K * x0, h, &Fi, &dvf);
            xs[i + 1] = yn + BELT_V * t1;
        } else {
            /* Element force at t_i from du_i and its backward difference (the engine's hook). */
            double du = x0 - BELT_V * i * h;
            rc = tvds_ef_hook_force(&el, i * h, h, du, (du - du_old) / h, state, &force, NULL);
            du_old = du;
            xs[i + 1] = 2.0 * x0 - xprev + h * h * (-BELT_K * x0 + force) / BELT_M;
        }
        xprev = x0;
    }
    return rc;
}

int tvds_shoe_belt(int rigid, double k, double b, double h, int nt, const double *t, double *x)
{
    if (!(h > 0.0) || h > 1e-3 || nt < 0 || nt > 8) return TVDS_ERR_INVALID;
    double t_end = 0.0;
    for (int i = 0; i < nt; i++) {
        if (!(t[i] >= 0.0 && t[i] <= 2.0)) return TVDS_ERR_INVALID;
        if (t[i] > t_end) t_end = t[i];
    }
    int n = (int)ceil(t_end / h) + 3;
    double *xs = tvds_malloc((size_t)n * sizeof *xs);
    if (!xs) return TVDS_ERR_NOMEM;
    int rc = belt_sim(rigid, k, b, h, n, xs);
    for (int i = 0; i < nt && !rc; i++)
        x[i] = interp3(xs, n, h, t[i]);
    tvds_free(xs);
    return rc;
}

/* ==== The table ============================================================================== */

/* SDND100 analytic extrema, DY = r cos 45 (docs/validation.md). */
#define R0          0.85e-3
#define BAND        1e-4               /* mu m g / k */
#define BAND_D      (1e-4 * COS45_LIT) /* one-way: mu / sqrt(2) */
#define COS45_LIT   0.70710678118654752440
#define DY(n, band) ((((n) % 2) ? -1.0 : 1.0) * (R0 - 2.0 * (n) * (band)) * COS45_LIT)

static int law_sdnd100_pen(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 0, 4e7, 1e-4, v);
}
static int law_sdnd100_exact(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_EXACT, 0, 0.0, 1e-6, v);
}
static int law_sdnd100d_pen(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 1, 4e7, 1e-4, v);
}
static int law_sdnd104_exact(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_shoe_sdnd104(TVDS_SHOE_EXACT, a0[i], 0.0, 0.0, 1e-6, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}
static int law_sdnd104_pen(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_shoe_sdnd104(TVDS_SHOE_PENALTY, a0[i], 9e6, 3e-5, 1e-4, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}
static int analytic_sdnd104(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_sdnd104_wear_power(a0[i], 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}

/* Belt oscillator: sample times (stick, slip, slip, stick, second slip) and the closed-form
 * positions there (tvds_belt_closed_form). */
static const double belt_t[4] = {0.3, 0.45, 0.8, 0.95};
static int law_belt(int rigid, double *v)
{
    return tvds_shoe_belt(rigid, 1e6, 2000.0, rigid ? 1e-6 : 1e-5, 4, belt_t, v);
}
static int law_belt_rigid(double *v)
{
    return law_belt(1, v);
}
static int law_belt_elastic(double *v)
{
    return law_belt(0, v);
}
#define QB(lbl, t, ref, tol, kind, ch)                                                             \
    {                                                                                              \
        lbl, kind, ch, t, ref, tol                                                                 \
    }
#define BELT_ROWS(tol, kind, ch)                                                                   \
    4,                                                                                             \
    {                                                                                              \
        QB("x(0.3)", 0.3, 0.02381773291, tol, kind, ch),                                           \
            QB("x(0.45)", 0.45, 0.007973285286, tol, kind, ch),                                    \
            QB("x(0.8)", 0.8, 0.0128761102, tol, kind, ch),                                        \
            QB("x(0.95)", 0.95, 0.024142101, tol, kind, ch)                                        \
    }

#define PI_LIT 3.14159265358979323846
#define Q100(lbl, n, band, tol)                                                                    \
    {                                                                                              \
        lbl, TVDS_VQ_PROBE_AT, "dy", (n)*PI_LIT / 100.0, DY(n, band), tol                          \
    }
#define Q100L(lbl, n, band, tol)                                                                   \
    {                                                                                              \
        lbl, TVDS_VQ_LAW, NULL, 0.0, DY(n, band), tol                                              \
    }
#define SDND100_ROWS(band, tol, tol_last)                                                          \
    4,                                                                                             \
    {                                                                                              \
        Q100("DY(pi/100)", 1, band, tol), Q100("DY(2pi/100)", 2, band, tol),                       \
            Q100("DY(3pi/100)", 3, band, tol), Q100("DY(4pi/100)", 4, band, tol_last)              \
    }
#define SDND100_LAW(band, tol, tol_last)                                                           \
    4,                                                                                             \
    {                                                                                              \
        Q100L("DY(pi/100)", 1, band, tol), Q100L("DY(2pi/100)", 2, band, tol),                     \
            Q100L("DY(3pi/100)", 3, band, tol), Q100L("DY(4pi/100)", 4, band, tol_last)            \
    }

/* SDND104 references (seed table, means over [4, 12] s). */
#define W15   15.26709959
#define W1_5  0.40906245
#define W1_01 2.261641e-4
#define QW(lbl, ref, tol)                                                                          \
    {                                                                                              \
        lbl, TVDS_VQ_WEAR_MEAN, "base", 0.0, ref, tol                                              \
    }
#define QWL(lbl, ref, tol)                                                                         \
    {                                                                                              \
        lbl, TVDS_VQ_LAW, NULL, 0.0, ref, tol                                                      \
    }

static const tvds_vcase cases[] = {
    /* ---- through the engine (case files under models/shoe/) ---- */
    {"sdnd100-a-lagrange",
     "engine",
     "models/shoe/sdnd100a_lagrange.ini",
     {NULL},
     "1 node on a rigid plane, gravity, exact normal and stick constraints",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 1e-3)},
    {"sdnd100-a-penalty",
     "engine",
     "models/shoe/sdnd100a_penalty.ini",
     {NULL},
     "1 node, penalty shock kn = 20, pen0 = 0.5 (F_N = m g), kt = 4e7, dt = 1e-4",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 5e-3)},
    {"sdnd100-b-lagrange",
     "engine",
     "models/shoe/sdnd100b.ini",
     {NULL},
     "2 substructures: shoe node on a blocked 2-node plane substructure (surface master)",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 1e-3)},
    {"sdnd100-c-physical",
     "engine",
     "models/shoe/sdnd100c.ini",
     {NULL},
     "modeling A penalty on the direct physical-coordinate path",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 5e-3)},
    {"sdnd100-d-lagrange",
     "engine",
     "models/shoe/sdnd100d_lagrange.ini",
     {NULL},
     "one-way friction mu_axis = 0.1 0 (mu along x only), exact constraints",
     NULL,
     SDND100_ROWS(BAND_D, 1e-3, 1e-3)},
    {"sdnd100-d-penalty",
     "engine",
     "models/shoe/sdnd100d_penalty.ini",
     {NULL},
     "one-way friction, penalty shock",
     NULL,
     SDND100_ROWS(BAND_D, 1e-3, 5e-3)},
    {"sdnd104-a0=15",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 15 1 0", NULL},
     "slip-slip; exact stick, relative frame, window [4, 12] s",
     NULL,
     1,
     {QW("mean wear power [W]", W15, 1e-4)}},
    {"sdnd104-a0=1.5",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 1.5 1 0", NULL},
     "stick-slip; exact stick",
     NULL,
     1,
     {QW("mean wear power [W]", W1_5, 1e-4)}},
    {"sdnd104-a0=1.01",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 1.01 1 0", NULL},
     "stick-slip, short slips; exact stick",
     NULL,
     1,
     {QW("mean wear power [W]", W1_01, 1e-4)}},
    {"sdnd104-a0=0.99",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 0.99 1 0", NULL},
     "permanent stick: wear must be exactly 0",
     NULL,
     1,
     {QW("mean wear power [W]", 0.0, 0.0)}},
    {"sdnd104-pen-a0=15",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 15 1 0", NULL},
     "penalty kt = 9e6, dt = 1e-4 (Code_Aster's settings)",
     NULL,
     1,
     {QW("mean wear power [W]", W15, 5e-4)}},
    {"sdnd104-pen-a0=1.5",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 1.5 1 0", NULL},
     "penalty",
     NULL,
     1,
     {QW("mean wear power [W]", W1_5, 5e-4)}},
    {"sdnd104-pen-a0=1.01",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 1.01 1 0", NULL},
     "penalty",
     NULL,
     1,
     {QW("mean wear power [W]", W1_01, 5e-3)}},
    {"sdnd104-pen-a0=0.99",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 0.99 1 0", NULL},
     "penalty: elastic stick, no anchor slip",
     NULL,
     1,
     {QW("mean wear power [W]", 0.0, 0.0)}},
    {"ef-belt-elastic",
     "engine",
     "models/shoe/ef_belt.ini",
     {NULL},
     "ElasticFriction k = 1e6, b = 2000 between a mass and a driven belt (constraint)",
     NULL,
     BELT_ROWS(1e-3, TVDS_VQ_PROBE_AT, "x")},
    /* ---- law level: one-DoF integrators over src/engine/friction_laws.c ---- */
    {"law:ef-belt-rigid",
     "law",
     NULL,
     {NULL},
     "rigid ElasticFriction through the stick-row protocol, dt = 1e-6",
     law_belt_rigid,
     BELT_ROWS(1e-4, TVDS_VQ_LAW, NULL)},
    {"law:ef-belt-elastic",
     "law",
     NULL,
     {NULL},
     "ElasticFriction k = 1e6, b = 2000 through the engine hook form, dt = 1e-5",
     law_belt_elastic,
     BELT_ROWS(1e-3, TVDS_VQ_LAW, NULL)},
    {"law:sdnd100-penalty",
     "law",
     NULL,
     {NULL},
     "penalty law, 2 tangents, kt = 4e7, dt = 1e-4",
     law_sdnd100_pen,
     SDND100_LAW(BAND, 1e-3, 5e-3)},
    {"law:sdnd100-exact",
     "law",
     NULL,
     {NULL},
     "rigid stick-slip element, dt = 1e-6",
     law_sdnd100_exact,
     SDND100_LAW(BAND, 1e-3, 1e-3)},
    {"law:sdnd100-d-penalty",
     "law",
     NULL,
     {NULL},
     "one-way penalty law, kt = 4e7, dt = 1e-4",
     law_sdnd100d_pen,
     SDND100_LAW(BAND_D, 1e-3, 5e-3)},
    {"law:sdnd104-analytic",
     "law",
     NULL,
     {NULL},
     "closed-form arcs and exact events (tvds_sdnd104_wear_power)",
     analytic_sdnd104,
     4,
     {QWL("P(a0=15)", W15, 1e-8), QWL("P(a0=1.5)", W1_5, 1e-7), QWL("P(a0=1.01)", W1_01, 1e-6),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
    {"law:sdnd104-exact",
     "law",
     NULL,
     {NULL},
     "rigid stick-slip element, no spring to the base, dt = 1e-6",
     law_sdnd104_exact,
     4,
     {QWL("P(a0=15)", W15, 1e-4), QWL("P(a0=1.5)", W1_5, 1e-4), QWL("P(a0=1.01)", W1_01, 1e-4),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
    {"law:sdnd104-penalty",
     "law",
     NULL,
     {NULL},
     "penalty law kt = 9e6, spring 3e-5 to the base, dt = 1e-4 (Code_Aster's)",
     law_sdnd104_pen,
     4,
     {QWL("P(a0=15)", W15, 5e-4), QWL("P(a0=1.5)", W1_5, 5e-4), QWL("P(a0=1.01)", W1_01, 5e-3),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

const tvds_vcase *tvds_validate_cases(int *n)
{
    *n = NCASES;
    return cases;
}

/* ==== Running an engine case ================================================================= */

static int find_channel(const char *const *names, int n, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix);
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], prefix, lp) != 0) continue;
        if (!suffix || strcmp(names[i] + lp, suffix) == 0) return i;
    }
    return -1;
}

/* Run one case through the engine and extract its quantities into values[]. */
static int run_engine_case(const tvds_vcase *c, const tvds_validate_opts *o, double *values,
                           char *msg, size_t msgsize)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", o && o->root ? o->root : ".", c->case_file);
    const char *sets[3 + 8];
    int nsets = 0;
    while (nsets < 3 && c->sets[nsets]) {
        sets[nsets] = c->sets[nsets];
        nsets++;
    }
    for (int i = 0; o && o->sets && i < o->nsets && i < 8; i++)
        sets[nsets++] = o->sets[i];
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    tvds_data *d = NULL;
    double *hist[TVDS_VQ_MAX] = {NULL};
    int chan[TVDS_VQ_MAX];
    long nmax = 0, ns = 0;
    double *times = NULL;
    int rc = tvds_case_read(path, sets, nsets, &m, &ctx);
    if (!rc) rc = tvds_data_create(m, &d, &ctx);
    if (!rc) {
        double h = tvds_data_dt(d);
        nmax = (long)ceil(m->opt.t_end / h) + 4;
        times = tvds_malloc((size_t)nmax * sizeof *times);
        if (!times) rc = TVDS_ERR_NOMEM;
    }
    /* History channels of the probes the quantities name. */
    int nh = 0;
    const char *const *hn = NULL;
    const double *hv = NULL;
    if (!rc) rc = tvds_channels(d, TVDS_GROUP_HISTORY, &nh, &hn, &hv);
    for (int q = 0; !rc && q < c->nq; q++) {
        chan[q] = -1;
        if (c->q[q].kind != TVDS_VQ_PROBE_AT) continue;
        char pre[256];
        snprintf(pre, sizeof pre, "%s [", c->q[q].channel);
        chan[q] = find_channel(hn, nh, pre, NULL);
        if (chan[q] < 0) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: no probe '%s'", path, c->q[q].channel);
            break;
        }
        hist[q] = tvds_malloc((size_t)nmax * sizeof(double));
        if (!hist[q]) rc = TVDS_ERR_NOMEM;
    }
    if (!rc) {
        times[ns] = tvds_data_time(d);
        for (int q = 0; q < c->nq; q++)
            if (hist[q]) hist[q][ns] = hv[chan[q]];
        ns++;
        while (!rc && tvds_data_time(d) < m->opt.t_end * (1.0 - 1e-12)) {
            rc = tvds_step(m, d, &ctx);
            if (rc || ns >= nmax) break;
            times[ns] = tvds_data_time(d);
            for (int q = 0; q < c->nq; q++)
                if (hist[q]) hist[q][ns] = hv[chan[q]];
            ns++;
        }
    }
    for (int q = 0; !rc && q < c->nq; q++) {
        const tvds_vquantity *Q = &c->q[q];
        if (Q->kind == TVDS_VQ_PROBE_AT) {
            if (ns < 3 || Q->t > times[ns - 1] || Q->t < times[0]) {
                rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: t = %g s outside the run", path, Q->t);
                break;
            }
            /* Uniform steps from times[0]: quadratic interpolation on the nearest samples. */
            double h = tvds_data_dt(d);
            values[q] = interp3(hist[q], (int)ns, h, Q->t - times[0]);
        } else if (Q->kind == TVDS_VQ_WEAR_MEAN) {
            int n = 0;
            const char *const *sn = NULL;
            const double *sv = NULL;
            rc = tvds_summary(d, &n, &sn, &sv);
            if (rc) break;
            char pre[256];
            snprintf(pre, sizeof pre, "%s.", Q->channel);
            int k = find_channel(sn, n, pre, "mean p_wear [W]");
            if (k < 0) {
                rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: no summary '%s.mean p_wear [W]'", path,
                                Q->channel);
                break;
            }
            values[q] = sv[k];
        }
    }
    if (rc) snprintf(msg, msgsize, "%.190s", ctx.msg[0] ? ctx.msg : tvds_strerror(rc));
    for (int q = 0; q < TVDS_VQ_MAX; q++)
        tvds_free(hist[q]);
    tvds_free(times);
    tvds_data_free(&d);
    tvds_model_free(&m);
    return rc;
}

static int selected(const tvds_vcase *c, const tvds_validate_opts *o)
{
    if (!o) return 1;
    if (o->filter) {
        /* Comma-separated alternatives: "lagrange,law:" selects either. */
        int any = 0;
        const char *p = o->filter;
        while (!any) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char tok[128];
            if (len >= sizeof tok) len = sizeof tok - 1;
            memcpy(tok, p, len);
            tok[len] = '\0';
            if (len > 0 && strstr(c->name, tok)) any = 1;
            if (!e) break;
            p = e + 1;
        }
        if (!any) return 0;
    }
    if (o->group && strcmp(o->group, c->group) != 0) return 0;
    return 1;
}

int tvds_validate_run(const tvds_validate_opts *o, tvds_vresult **res, int *nres, tvds_ctx *ctx)
{
    int total = 0;
    for (int i = 0; i < NCASES; i++)
        if (selected(&cases[i], o)) total += cases[i].nq;
    *res = NULL;
    *nres = 0;
    tvds_vresult *r = tvds_calloc((size_t)(total > 0 ? total : 1), sizeof *r);
    if (!r) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    int k = 0;
    for (int i = 0; i < NCASES; i++) {
        const tvds_vcase *c = &cases[i];
        if (!selected(c, o)) continue;
        double values[TVDS_VQ_MAX] = {0};
        char msg[200] = "";
        int rc;
        if (c->law)
            rc = c->law(values);
        else
            rc = run_engine_case(c, o, values, msg, sizeof msg);
        if (rc && !msg[0]) snprintf(msg, sizeof msg, "%s", tvds_strerror(rc));
        for (int q = 0; q < c->nq; q++, k++) {
            tvds_vresult *x = &r[k];
            const tvds_vquantity *Q = &c->q[q];
            x->c = c;
            x->q = q;
            if (rc) {
                x->status = TVDS_V_ERROR;
                x->computed = NAN;
                x->relerr = NAN;
                snprintf(x->msg, sizeof x->msg, "%s", msg);
                continue;
            }
            x->computed = values[q];
            x->relerr = Q->ref != 0.0 ? fabs(values[q] - Q->ref) / fabs(Q->ref) : fabs(values[q]);
            x->status = x->relerr <= Q->tol ? TVDS_V_PASS : TVDS_V_FAIL;
            if (!isfinite(values[q])) x->status = TVDS_V_FAIL;
        }
    }
    *res = r;
    *nres = k;
    return TVDS_OK;
}

static const char *verdict(int s)
{
    return s == TVDS_V_PASS ? "PASS" : s == TVDS_V_FAIL ? "FAIL" : "ERROR";
}

int tvds_validate_print(FILE *out, const tvds_vresult *res, int nres, int markdown)
{
    int bad = 0;
    if (markdown) {
        fprintf(out, "| case | quantity | reference | computed | rel. error | tolerance | "
                     "verdict |\n|---|---|---|---|---|---|---|\n");
    } else {
        fprintf(out, "%-22s %-20s %15s %15s %10s %9s  %s\n", "case", "quantity", "reference",
                "computed", "rel.err", "tol", "verdict");
    }
    for (int i = 0; i < nres; i++) {
        const tvds_vresult *r = &res[i];
        const tvds_vquantity *Q = &r->c->q[r->q];
        char comp[32], err[32], tol[32];
        if (r->status == TVDS_V_ERROR) {
            snprintf(comp, sizeof comp, "-");
            snprintf(err, sizeof err, "-");
        } else {
            snprintf(comp, sizeof comp, "%.9g", r->computed);
            snprintf(err, sizeof err, "%.2e", r->relerr);
        }
        if (Q->ref == 0.0 && Q->tol == 0.0)
            snprintf(tol, sizeof tol, "exact 0");
        else
            snprintf(tol, sizeof tol, "%.0e", Q->tol);
        if (r->status != TVDS_V_PASS) bad++;
        if (markdown)
            fprintf(out, "| %s | %s | %.9g | %s | %s | %s | %s%s%s |\n", r->c->name, Q->label,
                    Q->ref, comp, err, tol, verdict(r->status), r->msg[0] ? ": " : "", r->msg);
        else
            fprintf(out, "%-22s %-20s %15.9g %15s %10s %9s  %s%s%s\n", r->c->name, Q->label, Q->ref,
                    comp, err, tol, verdict(r->status), r->msg[0] ? "  " : "", r->msg);
    }
    return bad;
}

/* ==== Figures (tvds validate --plots) ======================================================== */

/* SDND100 analytic motion along theta: half cycles of the harmonic oscillator (omega0 = 100
 * rad/s) about the shifted equilibria c = sign(r_n) band, from rest at r_n at t_n = n pi/omega0;
 * the shoe stays at the first extremum with |r_n| <= band. */
static void sdnd100_motion(double t, double band, double *r, double *v)
{
    const double w = 100.0;
    double rn = R0, tn = 0.0;
    for (;;) {
        if (fabs(rn) <= band) {
            *r = rn;
            *v = 0.0;
            return;
        }
        double c = rn > 0.0 ? band : -band, tend = tn + V_PI / w;
        if (t <= tend) {
            *r = c + (rn - c) * cos(w * (t - tn));
            *v = -w * (rn - c) * sin(w * (t - tn));
            return;
        }
        rn = 2.0 * c - rn;
        tn = tend;
    }
}

/* SDND104 exact solution sampled at increasing times ts[0..nt-1]: relative velocity vr and the
 * cumulative mean wear power pc = (1/(t - 4)) integral over [4, t] of m g |v_r| (NAN for
 * t <= 4). The same events and arcs as tvds_sdnd104_wear_power (m = 1, mu = 0.1, g = 10,
 * f = 1 Hz). */
static void sdnd104_sample(double a0, int nt, const double *ts, double *vr, double *pc)
{
    const double m = 1.0, g = 10.0, mug = 1.0, w = 2.0 * V_PI, T = 1.0, t0 = 4.0;
    double eta = mug / a0, E = 0.0;
    int j = 0;
    if (eta >= 1.0) {
        for (j = 0; j < nt; j++) {
            vr[j] = 0.0;
            pc[j] = ts[j] > t0 ? 0.0 : NAN;
        }
        return;
    }
    double as = asin(eta), scan = T / 20000.0, tmax = ts[nt - 1];
    double t = 0.0, s = 0.0;
    int sticking = 1;
    while (j < nt) {
        if (sticking) {
            double kk = ceil((w * t - as) / V_PI);
            double te = (as + kk * V_PI) / w;
            if (te < t) te = t;
            for (; j < nt && ts[j] < te; j++) {
                vr[j] = 0.0;
                pc[j] = ts[j] > t0 ? E / (ts[j] - t0) : NAN;
            }
            t = te;
            s = sin(w * t) > 0.0 ? -1.0 : 1.0;
            sticking = 0;
            continue;
        }
        arc A = {t, s, a0, w, mug};
        double te = arc_end(&A, scan, tmax + 2.0 * T), a = t > t0 ? t : t0;
        for (; j < nt && ts[j] < te; j++) {
            vr[j] = arc_v(&A, ts[j]);
            double Ej = E;
            if (ts[j] > a) Ej += m * g * fmax(0.0, s * (arc_x(&A, ts[j]) - arc_x(&A, a)));
            pc[j] = ts[j] > t0 ? Ej / (ts[j] - t0) : NAN;
        }
        if (te > a) E += m * g * fmax(0.0, s * (arc_x(&A, te) - arc_x(&A, a)));
        t = te;
        if (fabs(a0 * sin(w * t)) <= mug)
            sticking = 1;
        else
            s = sin(w * t) > 0.0 ? -1.0 : 1.0;
    }
}

/* Per-step record of an engine run: the time channel and up to 2 named channels. */
typedef struct vrec {
    long n;
    double h;
    double *t, *y[2];
} vrec;

static void vrec_free(vrec *r)
{
    tvds_free(r->t);
    for (int k = 0; k < 2; k++)
        tvds_free(r->y[k]);
    memset(r, 0, sizeof *r);
}

/* Run case_file (relative to o->root) with the overrides sets[] then o->sets, recording at every
 * step the channels whose names start with pre[k] in group grp[k] (k < nch <= 2). */
static int record_case(const char *case_file, const char *const *sets, const tvds_validate_opts *o,
                       int nch, const int *grp, const char *const *pre, vrec *r, tvds_ctx *ctx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", o && o->root ? o->root : ".", case_file);
    const char *all[3 + 8];
    int ns = 0;
    while (sets && ns < 3 && sets[ns]) {
        all[ns] = sets[ns];
        ns++;
    }
    for (int i = 0; o && o->sets && i < o->nsets && i < 8; i++)
        all[ns++] = o->sets[i];
    memset(r, 0, sizeof *r);
    tvds_model *m = NULL;
    tvds_data *d = NULL;
    const double *val[2] = {NULL, NULL}, *tv = NULL;
    int ch[2] = {-1, -1};
    long nmax = 0;
    int rc = tvds_case_read(path, all, ns, &m, ctx);
    if (!rc) rc = tvds_data_create(m, &d, ctx);
    if (!rc) {
        r->h = tvds_data_dt(d);
        nmax = (long)ceil(m->opt.t_end / r->h) + 4;
        r->t = tvds_malloc((size_t)nmax * sizeof(double));
        if (!r->t) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    }
    for (int k = 0; !rc && k < nch; k++) {
        int n = 0;
        const char *const *names = NULL;
        rc = tvds_channels(d, grp[k], &n, &names, &val[k]);
        if (rc) break;
        if (grp[k] == TVDS_GROUP_HISTORY) tv = val[k]; /* channel 0: "t [s]" */
        ch[k] = find_channel(names, n, pre[k], NULL);
        if (ch[k] < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: no channel '%s...'", path, pre[k]);
            break;
        }
        r->y[k] = tvds_malloc((size_t)nmax * sizeof(double));
        if (!r->y[k]) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    }
    if (!rc && !tv) rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "validate: no history channel");
    /* The channels describe t_n = time - dt after a step and t_0 before the first one (the
     * first step publishes t_0 again): a sample is stored when its time advances. */
    while (!rc && r->n < nmax) {
        if (r->n == 0 || tv[0] > r->t[r->n - 1]) {
            r->t[r->n] = tv[0];
            for (int k = 0; k < nch; k++)
                r->y[k][r->n] = val[k][ch[k]];
            r->n++;
        }
        if (tvds_data_time(d) >= m->opt.t_end * (1.0 - 1e-12)) break;
        rc = tvds_step(m, d, ctx);
    }
    tvds_data_free(&d);
    tvds_model_free(&m);
    if (rc) vrec_free(r);
    return rc;
}

typedef struct vfig {
    const char *file, *caption;
} vfig;

static const vfig figures[] = {
    {"sdnd100a.png",
     "SDND100 modeling A (`sdnd100a_lagrange.ini`, dt = 1e-5 s, run to 0.3 s): DY and VY of the "
     "shoe from tvds against the analytic piecewise solution (half cycles about "
     "±μmg/k, stop at the first extremum inside the stick band), the reference "
     "extrema at nπ/100 s marked; bottom: tvds − analytic."},
    {"sdnd100d.png", "SDND100 modeling D (`sdnd100d_lagrange.ini`, one-way friction: the same "
                     "problem with μ/√2 along θ), as above."},
    {"sdnd104_velocity.png", "SDND104 (`sdnd104.ini`, exact stick, dt = 1e-5 s): velocity of "
                             "the mass relative to the base, tvds against the exact piecewise "
                             "solution, for a0 = 15 (slip-slip), 1.5 and 1.01 (stick-slip) "
                             "and 0.99 m/s² (permanent stick)."},
    {"sdnd104_wear.png", "SDND104: cumulative mean wear power (1/(t − 4)) ∫₄ᵗ F_N |v_r| dt, tvds "
                         "against the exact solution; the dashed line is the reference (the "
                         "value at t = 12 s)."},
    {"ef_belt.png", "ElasticFriction belt oscillator (`ef_belt.ini`, k = 1e6 N/m, b = 2000 N s/m, "
                    "dt = 1e-5 s): mass displacement x(t) against the closed form of the rigid "
                    "element; bottom: tvds − closed form."},
};
#define NFIGS ((int)(sizeof figures / sizeof figures[0]))

void tvds_validate_print_figures(FILE *out, const char *reldir)
{
    for (int i = 0; i < NFIGS; i++)
        fprintf(out, "![%s](%s/%s)\n\n*%s*\n\n", figures[i].file, reldir, figures[i].file,
                figures[i].caption);
}

static int close_csv(FILE *f, const char *path, tvds_ctx *ctx)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    return TVDS_OK;
}

/* Keep the worst render status: errors (< 0) first, then the gnuplot warning. */
static int render(const tvds_plot_figure *fig, int *warn, tvds_ctx *ctx)
{
    int rc = tvds_plot_render(fig, ctx);
    if (rc > 0) {
        *warn = rc;
        rc = TVDS_OK;
    }
    return rc;
}

#define C_TVDS "#1f4e9c"
#define C_REF  "#f28e2b"
#define C_PT   "#c0392b"

/* SDND100 figure for one case file: DY, VY and the DY error. */
static int plot_sdnd100(const char *dir, const char *stem, const char *case_file, double band,
                        const char *title, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    vrec r;
    const int grp[1] = {TVDS_GROUP_HISTORY};
    const char *pre[1] = {"dy ["};
    /* Over (0, 0.3 s) as the seed's figures: the shoe's final stick is visible. */
    const char *sets[2] = {"run.t_end=0.3", NULL};
    int rc = record_case(case_file, sets, o, 1, grp, pre, &r, ctx);
    if (rc) return rc;
    char data[1024], pts[1024], png[1024];
    FILE *f;
    snprintf(data, sizeof data, "%s/%s.csv", dir, stem);
    snprintf(pts, sizeof pts, "%s/%s_ref.csv", dir, stem);
    snprintf(png, sizeof png, "%s/%s.png", dir, stem);
    f = fopen(data, "w");
    if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data);
    if (!rc) {
        /* Every 20th step; VY from the central difference of DY (the scheme's velocity at t_n). */
        fprintf(f, "t [s],DY tvds [mm],VY tvds [mm/s],DY analytic [mm],VY analytic [mm/s],"
                   "DY error [mm]\n");
        for (long i = 1; i + 1 < r.n; i += 20) {
            double rr, vv, t = r.t[i];
            sdnd100_motion(t, band, &rr, &vv);
            double vy = (r.y[0][i + 1] - r.y[0][i - 1]) / (r.t[i + 1] - r.t[i - 1]);
            fprintf(f, "%.6g,%.8g,%.8g,%.8g,%.8g,%.6g\n", t, 1e3 * r.y[0][i], 1e3 * vy,
                    1e3 * rr * COS45, 1e3 * vv * COS45, 1e3 * (r.y[0][i] - rr * COS45));
        }
        rc = close_csv(f, data, ctx);
    }
    if (!rc && (f = fopen(pts, "w")) == NULL) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s", pts);
    if (!rc) {
        fprintf(f, "t [s],DY [mm],VY [mm/s]\n");
        for (int n = 0; n <= 9; n++)                        /* the extrema before 0.3 s */
            fprintf(f, "%.10g,%.10g,0\n", n * V_PI / 100.0, /* mu = band k / (m g) */
                    1e3 * COS45 * tvds_sdnd100_extremum(R0, band * 1e3, 1.0, 10.0, 1e4, n));
        rc = close_csv(f, pts, ctx);
    }
    vrec_free(&r);
    if (rc) return rc;
    tvds_plot_series s[3][3];
    tvds_plot_panel p[3];
    static const char *const yl[3] = {"DY [mm]", "VY [mm/s]", "DY tvds - analytic [mm]"};
    static const char *const pt[3] = {"displacement DY", "velocity VY", "error of tvds on DY"};
    for (int k = 0; k < 3; k++) {
        memset(s[k], 0, sizeof s[k]);
        p[k] = tvds_plot_panel_default();
        p[k].title = pt[k];
        p[k].xlabel = "t [s]";
        p[k].ylabel = yl[k];
        p[k].grid = 1;
        p[k].xmin = 0.0;
        p[k].xmax = 0.3;
        p[k].series = s[k];
        if (k < 2) {
            s[k][0] = (tvds_plot_series){data,       1,     1,   4 + k, 0, NULL, TVDS_PLOT_LINES,
                                         "analytic", C_REF, 5.0, 0,     0};
            s[k][1] = (tvds_plot_series){data,   1,      1,   2 + k, 0, NULL, TVDS_PLOT_LINES,
                                         "tvds", C_TVDS, 1.5, 0,     0};
            s[k][2] = (tvds_plot_series){
                pts,  1, 1,   2 + k, 0, NULL, TVDS_PLOT_POINTS, "reference extrema at nπ/100 s",
                C_PT, 0, 1.6, 7};
            p[k].nseries = 3;
        } else {
            s[k][0] = (tvds_plot_series){data, 1,      1,   6, 0, NULL, TVDS_PLOT_LINES,
                                         NULL, C_TVDS, 1.2, 0, 0};
            p[k].nseries = 1;
            p[k].key = "off";
        }
    }
    p[0].key = "top right";
    tvds_plot_figure fig = {png, 900, 900, title, 3, 1, 3, p};
    return render(&fig, warn, ctx);
}

/* SDND104 figures: relative velocity and cumulative mean wear power for the four amplitudes. */
static int plot_sdnd104(const char *dir, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    static const char *const acc[4] = {"base.acc=harmonic 15 1 0", "base.acc=harmonic 1.5 1 0",
                                       "base.acc=harmonic 1.01 1 0", "base.acc=harmonic 0.99 1 0"};
    static const char *const ttl[4] = {"a0 = 15 m/s² (slip-slip)", "a0 = 1.5 m/s² (stick-slip)",
                                       "a0 = 1.01 m/s² (stick-slip, short slips)",
                                       "a0 = 0.99 m/s² (permanent stick)"};
    static const double pref[4] = {W15, W1_5, W1_01, 0.0};
    char data[4][1024], png[2][1024];
    int rc = TVDS_OK;
    for (int c = 0; c < 4 && !rc; c++) {
        vrec r;
        const int grp[2] = {TVDS_GROUP_HISTORY, TVDS_GROUP_CONTACTS};
        const char *pre[2] = {"v [", "base.p_wear"};
        const char *sets[2] = {acc[c], NULL};
        rc = record_case("models/shoe/sdnd104.ini", sets, o, 2, grp, pre, &r, ctx);
        if (rc) break;
        /* Exact solution and output every 4e-3 s (250 samples per period). */
        long every = (long)llround(4e-3 / r.h);
        if (every < 1) every = 1;
        int nt = (int)(r.n / every) + 1;
        double *ts = tvds_malloc((size_t)nt * 3 * sizeof(double));
        if (!ts) {
            vrec_free(&r);
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
            break;
        }
        double *vr = ts + nt, *pc = ts + 2 * nt;
        nt = 0;
        for (long i = 0; i < r.n; i += every)
            ts[nt++] = r.t[i];
        sdnd104_sample(a0[c], nt, ts, vr, pc);
        snprintf(data[c], sizeof data[c], "%s/sdnd104_a%d.csv", dir, c);
        FILE *f = fopen(data[c], "w");
        if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data[c]);
        if (!rc) {
            fprintf(f, "t [s],v_r tvds [m/s],v_r exact [m/s],P tvds [W],P exact [W]\n");
            /* Cumulative wear F_N |w| of the steps at t_n >= 4 s, rectangle rule. */
            double E = 0.0;
            int j = 0;
            for (long i = 0; i < r.n; i++) {
                if (r.t[i] >= 4.0) E += r.y[1][i] * r.h;
                if (i % every) continue;
                double t = r.t[i];
                if (t > 4.0)
                    fprintf(f, "%.6g,%.8g,%.8g,%.8g,%.8g\n", t, r.y[0][i], vr[j], E / (t - 4.0),
                            pc[j]);
                else
                    fprintf(f, "%.6g,%.8g,%.8g,,\n", t, r.y[0][i], vr[j]);
                j++;
            }
            rc = close_csv(f, data[c], ctx);
        }
        tvds_free(ts);
        vrec_free(&r);
    }
    if (rc) return rc;
    tvds_plot_series s[2][4][2];
    tvds_plot_panel p[2][4];
    tvds_plot_refline ref[4];
    for (int c = 0; c < 4; c++) {
        for (int g = 0; g < 2; g++) {
            tvds_plot_panel *P = &p[g][c];
            *P = tvds_plot_panel_default();
            P->title = ttl[c];
            P->xlabel = "t [s]";
            P->ylabel = g == 0 ? "v_r [m/s]" : "mean wear power over [4 s, t] [W]";
            P->grid = 1;
            /* Velocity: the whole run for the slip-slip transient, three periods of the
             * window otherwise (the stick phases stay visible). */
            P->xmin = g == 0 && c == 0 ? 0.0 : 4.0;
            P->xmax = g == 0 && c > 0 ? 7.0 : 12.0;
            P->key = c == 0 ? "bottom right" : "off";
            s[g][c][0] = (tvds_plot_series){
                data[c], 1, 1, g == 0 ? 3 : 5, 0, NULL, TVDS_PLOT_LINES, "exact", C_REF, 5.0, 0, 0};
            s[g][c][1] = (tvds_plot_series){
                data[c], 1, 1, g == 0 ? 2 : 4, 0, NULL, TVDS_PLOT_LINES, "tvds", C_TVDS, 1.2, 0, 0};
            P->nseries = 2;
            P->series = s[g][c];
        }
        ref[c] = (tvds_plot_refline){0, pref[c], "reference", "black", 1};
        p[1][c].nrefs = 1;
        p[1][c].refs = &ref[c];
        if (c == 3) {
            p[0][c].ymin = p[1][c].ymin = -1.0;
            p[0][c].ymax = p[1][c].ymax = 1.0;
        }
    }
    p[1][0].key = "bottom right";
    snprintf(png[0], sizeof png[0], "%s/sdnd104_velocity.png", dir);
    snprintf(png[1], sizeof png[1], "%s/sdnd104_wear.png", dir);
    tvds_plot_figure f0 = {
        png[0],
        1100,
        800,
        "SDND104: velocity of the mass relative to the base (base acceleration a0 sin 2πt, "
        "μ = 0.1, g = 10 m/s²)",
        2,
        2,
        4,
        p[0]};
    tvds_plot_figure f1 = {png[1], 1100, 800, "SDND104: cumulative mean wear power F_N |v_r|",
                           2,      2,    4,   p[1]};
    rc = render(&f0, warn, ctx);
    if (!rc) rc = render(&f1, warn, ctx);
    return rc;
}

/* ElasticFriction belt figure: x(t) from the engine (or, while the engine cannot run the
 * element, from the one-DoF hook-form integrator) against the closed form. */
static int plot_belt(const char *dir, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    vrec r;
    const int grp[1] = {TVDS_GROUP_HISTORY};
    const char *pre[1] = {"x ["};
    tvds_ctx c2;
    tvds_ctx_init(&c2);
    const char *who = "tvds (engine, ef_belt.ini)";
    int rc = record_case("models/shoe/ef_belt.ini", NULL, o, 1, grp, pre, &r, &c2);
    if (rc) {
        /* Fallback: the same element and parameters through the engine's hook form. */
        who = "tvds one-DoF hook form (engine run failed)";
        memset(&r, 0, sizeof r);
        r.h = 1e-5;
        r.n = (long)llround(1.0 / r.h) + 1;
        r.t = tvds_malloc((size_t)r.n * sizeof(double));
        r.y[0] = tvds_malloc((size_t)r.n * sizeof(double));
        if (!r.t || !r.y[0]) {
            vrec_free(&r);
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
        }
        for (long i = 0; i < r.n; i++)
            r.t[i] = i * r.h;
        rc = belt_sim(0, 1e6, 2000.0, r.h, (int)r.n, r.y[0]);
        if (rc) {
            vrec_free(&r);
            return TVDS_ERROR(ctx, rc, "validate: belt oscillator failed");
        }
    }
    char data[1024], png[1024];
    snprintf(data, sizeof data, "%s/ef_belt.csv", dir);
    snprintf(png, sizeof png, "%s/ef_belt.png", dir);
    FILE *f = fopen(data, "w");
    if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data);
    if (!rc) {
        long every = (long)llround(5e-4 / r.h);
        if (every < 1) every = 1;
        fprintf(f, "t [s],x tvds [mm],x closed form [mm],error [mm]\n");
        for (long i = 0; i < r.n; i += every) {
            double xc = tvds_belt_closed_form(r.t[i]);
            fprintf(f, "%.6g,%.8g,%.8g,%.6g\n", r.t[i], 1e3 * r.y[0][i], 1e3 * xc,
                    1e3 * (r.y[0][i] - xc));
        }
        rc = close_csv(f, data, ctx);
    }
    vrec_free(&r);
    if (rc) return rc;
    tvds_plot_series s[2][2];
    tvds_plot_panel p[2];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 2; k++) {
        p[k] = tvds_plot_panel_default();
        p[k].xlabel = "t [s]";
        p[k].grid = 1;
        p[k].xmin = 0.0;
        p[k].xmax = 1.0;
        p[k].series = s[k];
    }
    p[0].title = "mass displacement";
    p[0].ylabel = "x [mm]";
    p[0].key = "bottom right";
    s[0][0] = (tvds_plot_series){
        data, 1, 1, 3, 0, NULL, TVDS_PLOT_LINES, "closed form (rigid element)", C_REF, 5.0, 0, 0};
    s[0][1] = (tvds_plot_series){data, 1, 1, 2, 0, NULL, TVDS_PLOT_LINES, who, C_TVDS, 1.5, 0, 0};
    p[0].nseries = 2;
    p[1].title = "difference: contact compliance (k = 1e6 N/m) and time step";
    p[1].ylabel = "x tvds - closed form [mm]";
    p[1].key = "off";
    s[1][0] = (tvds_plot_series){data, 1, 1, 4, 0, NULL, TVDS_PLOT_LINES, NULL, C_TVDS, 1.2, 0, 0};
    p[1].nseries = 1;
    tvds_plot_figure fig = {png,
                            900,
                            750,
                            "ElasticFriction: mass dragged by a belt at 0.1 m/s (Fst = 2 N, "
                            "Fsl = 1 N, K = 100 N/m)",
                            2,
                            1,
                            2,
                            p};
    return render(&fig, warn, ctx);
}

int tvds_validate_plots(const char *dir, const tvds_validate_opts *o, tvds_ctx *ctx)
{
    if (!dir || !dir[0]) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "validate: no plot directory");
    int warn = 0;
    int rc = tvds_mkdir_p(dir, ctx);
    if (!rc)
        rc = plot_sdnd100(
            dir, "sdnd100a", "models/shoe/sdnd100a_lagrange.ini", BAND,
            "SDND100 modeling A: release of a friction shoe (m = 1 kg, k = 1e4 N/m, μ = 0.1, "
            "r0 = 0.85 mm along 45°; exact stick)",
            o, &warn, ctx);
    if (!rc)
        rc = plot_sdnd100(dir, "sdnd100d", "models/shoe/sdnd100d_lagrange.ini", BAND_D,
                          "SDND100 modeling D: one-way friction (μ = 0.1 along x, 0 along y; exact "
                          "stick)",
                          o, &warn, ctx);
    if (!rc) rc = plot_sdnd104(dir, o, &warn, ctx);
    if (!rc) rc = plot_belt(dir, o, &warn, ctx);
    return rc ? rc : warn;
}
