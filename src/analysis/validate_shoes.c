/* validate_shoes.c — one-DoF shoes integrated over the friction laws (SDND100, SDND104, the
 * belt-driven oscillator), independent of the engine. */
#include <math.h>
#include <string.h>

#include "analysis/validate_impl.h"
#include "engine/friction_laws_impl.h"

/* ==== One-DoF shoes over the friction laws =================================================== */

/* 3-point (quadratic) interpolation of samples y at times k h, k = 0..n-1, at time t. */
double validate_interp3(const double *y, int n, double h, double t)
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
        dy[q] = COS45 * validate_interp3(r, n, h, (q + 1) * V_PI / 100.0);
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

/* The belt oscillator from stuck at t = 0 with step h: xs[0..n-1] at t = i h. */
int validate_belt_sim(int rigid, double k, double b, double h, int n, double *xs)
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
    int rc = validate_belt_sim(rigid, k, b, h, n, xs);
    for (int i = 0; i < nt && !rc; i++)
        x[i] = validate_interp3(xs, n, h, t[i]);
    tvds_free(xs);
    return rc;
}
