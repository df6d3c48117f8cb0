/* check_friction_laws.c — ElasticFriction element and penalty shock law against closed forms:
 * belt-driven stick-slip oscillator, energy accounting, state transitions, return mapping. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/friction_laws_impl.h"
#include "tvds/tvds_sim.h"

static const double PI = 3.14159265358979323846;

static tvds_fn fconst(double v)
{
    tvds_fn f;
    memset(&f, 0, sizeof f);
    f.kind = TVDS_FN_CONST;
    f.amp = v;
    return f;
}

static tvds_element ef_element(double Fst, double Fsl, double k, double b)
{
    tvds_element el;
    memset(&el, 0, sizeof el);
    el.name = "ef";
    el.kind = TVDS_EL_ELASTIC_FRICTION;
    el.kindF = TVDS_EF_STICK_SLIP;
    el.Fst = fconst(Fst);
    el.Fsl = fconst(Fsl);
    el.k = k;
    el.b = b;
    return el;
}

/* ---- Belt-driven oscillator: closed form ---------------------------------------------------
 * Mass m on a spring K to ground, dragged through the friction element by a belt at speed V.
 * Steady cycle: stick from x = Fsl/K - A to x = Fst/K (A = (Fst - Fsl)/K) at speed V, then
 * slide with m x'' + K x = Fsl from rest relative to the belt:
 *   x - Fsl/K = A cos(w s) + (V/w) sin(w s), w = sqrt(K/m), s = time since release,
 * until x' = V again: w s = 2 pi - 2 atan(A w / V); there x = Fsl/K - A.
 *   slip duration  = (2 pi - 2 atan(A w / V)) / w,  stick duration = 2 A / V,
 *   slip amplitude = sqrt(A^2 + V^2/w^2) about Fsl/K,
 *   friction energy per cycle = Fsl (V * slip duration + 2 A). */
typedef struct belt {
    double m, K, V, Fst, Fsl;
} belt;

typedef struct belt_result {
    int nrel;         /* releases (stick -> slide) */
    double t_rel[16]; /* release times */
    int nstick;
    double t_stick[16];             /* stick times (slide -> stick) */
    double xmax[16];                /* maximum of x during slip i (after release i) */
    double e_fric[16];              /* friction energy from release i to release i+1 */
    double w_belt[16];              /* belt work from release i to release i+1 */
    double int_Pp, int_Pl, work_el; /* whole run */
    double Es0, Es1;                /* spring energy of the element at start and end */
    double min_Pl, min_Pfric;
} belt_result;

/* Central differences with the rigid stick-slip protocol (friction_laws_impl.h): the stick
 * row x_{n+1} - x_n = V h is solved for its multiplier, released when |lambda| > Fst. */
static void belt_run_rigid(const belt *p, double h, double t_end, belt_result *r)
{
    tvds_element el = ef_element(p->Fst, p->Fsl, 0.0, 0.0);
    el.rigid = 1;
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    memset(r, 0, sizeof *r);
    double x = 0.0, xprev = -p->V * h; /* stuck to the belt, moving at V */
    int prev_sf = st.sf, nsteps = (int)llround(t_end / h);
    for (int n = 0; n < nsteps; n++) {
        double t1 = (n + 1) * h;
        double xstar = 2.0 * x - xprev - h * h * p->K * x / p->m;
        double dv_pred = (xstar - h * h * st.Fi / p->m - x) / h - p->V; /* with last force */
        tvds_ef_rigid_request req;
        tvds_ef_rigid_begin(&el, &st, t1, dv_pred, &req);
        double xn, lambda = 0.0;
        tvds_ef_out o;
        int redo = 0;
        if (req.stick_row) {
            xn = x + p->V * h;
            /* m (xn - 2x + xprev)/h^2 = -K x - lambda */
            lambda = -p->K * x - p->m * (xn - 2.0 * x + xprev) / (h * h);
            tvds_ef_rigid_end(&el, &st, t1, lambda, 0.0, h, &o, &redo);
            if (redo) {
                xn = xstar - h * h * o.Fi / p->m;
                tvds_ef_rigid_end(&el, &st, t1, 0.0, (xn - x) / h - p->V, h, &o, &redo);
            }
        } else {
            xn = xstar - h * h * req.Fi / p->m;
            tvds_ef_rigid_end(&el, &st, t1, 0.0, (xn - x) / h - p->V, h, &o, &redo);
        }
        ck_assert_int_eq(redo, 0);
        if (prev_sf == TVDS_SF_STICK && o.sf != TVDS_SF_STICK && r->nrel < 16)
            r->t_rel[r->nrel++] = t1;
        if (prev_sf != TVDS_SF_STICK && o.sf == TVDS_SF_STICK && r->nstick < 16)
            r->t_stick[r->nstick++] = t1;
        if (r->nrel > 0 && r->nrel <= 16) {
            int i = r->nrel - 1;
            if (o.sf != TVDS_SF_STICK && xn > r->xmax[i]) r->xmax[i] = xn;
            r->e_fric[i] += o.Pl * h;
            r->w_belt[i] += -o.Fi * p->V * h; /* the element pushes the belt with +Fi */
        }
        prev_sf = o.sf;
        xprev = x;
        x = xn;
    }
}

static void belt_closed_form(const belt *p, double *t_slip, double *t_stick, double *R,
                             double *e_cycle)
{
    double w = sqrt(p->K / p->m), A = (p->Fst - p->Fsl) / p->K;
    *t_slip = (2.0 * PI - 2.0 * atan(A * w / p->V)) / w;
    *t_stick = 2.0 * A / p->V;
    *R = sqrt(A * A + p->V * p->V / (w * w));
    *e_cycle = p->Fsl * (p->V * *t_slip + 2.0 * A);
}

START_TEST(test_ef_belt_rigid_stick_slip)
{
    belt p = {.m = 1.0, .K = 100.0, .V = 0.1, .Fst = 2.0, .Fsl = 1.0};
    double h = 1e-4, t_slip, t_stick, R, e_cycle;
    belt_closed_form(&p, &t_slip, &t_stick, &R, &e_cycle);
    belt_result r;
    belt_run_rigid(&p, h, 2.2, &r);
    ck_assert_int_ge(r.nrel, 3);
    ck_assert_int_ge(r.nstick, 2);
    double w = sqrt(p.K / p.m);
    /* An event is decided by the force at t_n and recorded at t_{n+1}: a latency of h to 2h
     * (exactly 2h when the crossing falls on a sample, as the first release does here), and
     * central differences shift the phase of the slip arc by t_slip (w h)^2 / 24. */
    double tol_t = 2.0 * h * (1.0 + 1e-9) + t_slip * (w * h) * (w * h) / 24.0;
    /* First release: x = V t reaches Fst/K. */
    ck_assert_double_eq_tol(r.t_rel[0], p.Fst / (p.K * p.V), tol_t);
    for (int i = 0; i + 1 < r.nrel && i < r.nstick; i++) {
        ck_assert_double_eq_tol(r.t_stick[i] - r.t_rel[i], t_slip, tol_t);
        ck_assert_double_eq_tol(r.t_rel[i + 1] - r.t_stick[i], t_stick, tol_t);
        ck_assert_double_eq_tol(r.t_rel[i + 1] - r.t_rel[i], t_slip + t_stick, 2.0 * tol_t);
        /* Slip amplitude: the release state is known to V h in position. */
        ck_assert_double_eq_tol(r.xmax[i] - p.Fsl / p.K, R, 2.0 * p.V * h + R * w * h * w * h);
    }
    /* Energy per steady cycle (from the second release on): friction loss = closed form, and
     * = belt work (the oscillator's energy is periodic). The loss rate is at most
     * Fsl (V + R w), so each event's timing error costs at most that times h. */
    double tol_e = 2.0 * h * p.Fsl * (p.V + R * w) + e_cycle * (w * h) * (w * h) / 12.0;
    ck_assert_double_eq_tol(r.e_fric[1], e_cycle, tol_e);
    ck_assert_double_eq_tol(r.w_belt[1], e_cycle, tol_e + 2.0 * h * p.Fst * p.V);
}
END_TEST

/* Compliant element driven through the same oscillator: stiff spring k >> K, damper b at
 * critical damping of the mass on k. */
static void belt_run_elastic(const belt *p, double k, double b, double h, double t_end,
                             belt_result *r)
{
    tvds_element el = ef_element(p->Fst, p->Fsl, k, b);
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    memset(r, 0, sizeof *r);
    r->Es0 = 0.5 * k * st.dx_s * st.dx_s;
    r->min_Pl = r->min_Pfric = INFINITY;
    double x = 0.0, xprev = -p->V * h, Fi = st.Fi, dx_old = 0.0;
    int prev_sf = st.sf, nsteps = (int)llround(t_end / h);
    for (int n = 0; n < nsteps; n++) {
        double t1 = (n + 1) * h;
        double xn = 2.0 * x - xprev + h * h * (-p->K * x - Fi) / p->m;
        double dx = xn - p->V * t1, dv = (dx - dx_old) / h;
        tvds_ef_out o;
        ck_assert_int_eq(tvds_ef_step(&el, &st, t1, dx, dv, h, &o), TVDS_OK);
        r->int_Pp += o.Pp * h;
        r->int_Pl += o.Pl * h;
        r->work_el += o.Fi * (dx - dx_old);
        if (o.Pl < r->min_Pl) r->min_Pl = o.Pl;
        if (o.Pfric < r->min_Pfric) r->min_Pfric = o.Pfric;
        if (prev_sf == TVDS_SF_STICK && o.sf != TVDS_SF_STICK && r->nrel < 16)
            r->t_rel[r->nrel++] = t1;
        if (prev_sf != TVDS_SF_STICK && o.sf == TVDS_SF_STICK && r->nstick < 16)
            r->t_stick[r->nstick++] = t1;
        if (r->nrel > 0 && r->nrel <= 16) {
            int i = r->nrel - 1;
            if (o.sf != TVDS_SF_STICK && xn > r->xmax[i]) r->xmax[i] = xn;
            r->e_fric[i] += o.Pfric * h;
        }
        prev_sf = o.sf;
        Fi = o.Fi;
        dx_old = dx;
        xprev = x;
        x = xn;
    }
    r->Es1 = 0.5 * k * st.dx_s * st.dx_s;
}

START_TEST(test_ef_belt_elastic_stick_slip)
{
    belt p = {.m = 1.0, .K = 100.0, .V = 0.1, .Fst = 2.0, .Fsl = 1.0};
    double k = 1e6, b = 2.0 * sqrt(p.m * k), h = 1e-5;
    double t_slip, t_stick, R, e_cycle;
    belt_closed_form(&p, &t_slip, &t_stick, &R, &e_cycle);
    belt_result r;
    belt_run_elastic(&p, k, b, h, 1.6, &r);
    ck_assert_int_ge(r.nrel, 2);
    ck_assert_int_ge(r.nstick, 1);
    /* The compliant contact lets the mass lag the belt by up to Fst/k while sticking, i.e. an
     * event may shift by Fst/(k V) in time (here 2e-5 s), once at the release and once at the
     * stick; the critically damped mass on k settles in b/k = 2e-3 s, well inside the stick
     * phase. Plus the step latency (2h) and the central-difference phase error. */
    double w = sqrt(p.K / p.m);
    double tol_t = 2.0 * p.Fst / (k * p.V) + 2.0 * h + t_slip * (w * h) * (w * h) / 24.0;
    ck_assert_double_eq_tol(r.t_rel[0], p.Fst / (p.K * p.V), tol_t);
    ck_assert_double_eq_tol(r.t_stick[0] - r.t_rel[0], t_slip, tol_t);
    ck_assert_double_eq_tol(r.t_rel[1] - r.t_stick[0], t_stick, tol_t);
    ck_assert_double_eq_tol(r.xmax[0] - p.Fsl / p.K, R, p.V * tol_t);
    ck_assert_double_eq_tol(r.e_fric[1] > 0 ? r.e_fric[0] : 0.0,
                            p.Fsl * (p.V * t_slip + 2.0 * (p.Fst - p.Fsl) / p.K),
                            tol_t * p.Fsl * (p.V + R * w) * 2.0);
    /* Energy accounting: Pp integrates to the change of spring energy and Pp + Pl to the work
     * done on the element (dv = backward difference of dx), to round-off. */
    double scale = r.work_el > 0 ? r.work_el : 1.0;
    ck_assert_double_eq_tol(r.int_Pp, r.Es1 - r.Es0, 1e-12 * scale);
    ck_assert_double_eq_tol(r.int_Pp + r.int_Pl, r.work_el, 1e-10 * scale);
    ck_assert(r.min_Pl >= 0.0);
    ck_assert(r.min_Pfric >= 0.0);
}
END_TEST

/* Prescribed dx: stretch, reverse, stretch the other way. With b = 0 the transitions happen
 * at closed-form elongations: break away at k dx_s = Fst, slide with Fi = +-Fsl exactly,
 * re-stick as soon as the motion reverses, break away backwards after (Fsl + Fst)/k. */
START_TEST(test_ef_sf_transitions)
{
    double k = 1000.0, Fst = 3.0, Fsl = 2.0, h = 1e-3, v = 0.01;
    tvds_element el = ef_element(Fst, Fsl, k, 0.0);
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    ck_assert_int_eq(st.sf, TVDS_SF_STICK);
    double dx = 0.0, break1 = NAN, restick = NAN, break2 = NAN;
    int prev = st.sf;
    tvds_ef_out o;
    for (int n = 1; n <= 2000; n++) {
        double dv = n <= 1000 ? v : -v;
        dx += dv * h;
        tvds_ef_step(&el, &st, n * h, dx, dv, h, &o);
        if (prev == TVDS_SF_STICK && o.sf == TVDS_SF_SLIDE_POS) break1 = dx;
        if (prev == TVDS_SF_SLIDE_POS && o.sf == TVDS_SF_STICK) restick = dx;
        if (prev == TVDS_SF_STICK && o.sf == TVDS_SF_SLIDE_NEG) break2 = dx;
        if (o.sf == TVDS_SF_SLIDE_POS) {
            ck_assert_double_eq_tol(o.Fi, Fsl, 1e-12);
            ck_assert(o.dv_fric > 0.0);
            if (prev == TVDS_SF_SLIDE_POS) /* the spring does not move while sliding */
                ck_assert_double_eq_tol(o.Pp, 0.0, 1e-9);
        }
        if (o.sf == TVDS_SF_SLIDE_NEG) ck_assert_double_eq_tol(o.Fi, -Fsl, 1e-12);
        if (o.sf == TVDS_SF_STICK) {
            ck_assert(fabs(o.Fi) <= Fst);
            ck_assert_double_eq(o.dv_fric, 0.0); /* true stick */
        }
        prev = o.sf;
    }
    double dstep = v * h;
    ck_assert_double_eq_tol(break1, Fst / k, dstep);
    ck_assert_double_eq_tol(restick, 1000 * v * h, 1e-12 + dstep); /* sticks at the reversal */
    /* Backward breakaway: spring goes from +Fsl/k to -Fst/k while sticking. */
    ck_assert_double_eq_tol(restick - break2, (Fsl + Fst) / k, dstep);
    ck_assert_double_eq_tol(o.Fi, -Fsl, 1e-12);
}
END_TEST

START_TEST(test_ef_forces_rules)
{
    tvds_element el = ef_element(1.0, 2.0, 10.0, 0.0); /* Fst < Fsl */
    el.dFfrel = 0.05;
    double Fst, Fsl;
    tvds_ef_forces(&el, 0.0, &Fst, &Fsl);
    ck_assert_double_eq_tol(Fst, 2.1, 1e-15);
    ck_assert_double_eq(Fsl, 2.0);
    el.Fst = fconst(2.0); /* Fst = Fsl is replaced too */
    tvds_ef_forces(&el, 0.0, &Fst, &Fsl);
    ck_assert_double_eq_tol(Fst, 2.1, 1e-15);
    /* Time functions: Fsl ramps 0 -> 4 over [0, 1], Fst constant 3: from Fsl >= 3 on,
     * Fst = Fsl (1 + dFfrel). */
    el.Fsl.kind = TVDS_FN_RAMP;
    el.Fsl.amp = 4.0;
    el.Fsl.t0 = 0.0;
    el.Fsl.t1 = 1.0;
    el.Fst = fconst(3.0);
    tvds_ef_forces(&el, 0.5, &Fst, &Fsl);
    ck_assert_double_eq_tol(Fsl, 2.0, 1e-15);
    ck_assert_double_eq_tol(Fst, 3.0, 1e-15);
    tvds_ef_forces(&el, 1.0, &Fst, &Fsl);
    ck_assert_double_eq_tol(Fst, 4.2, 1e-14);
    /* Breakaway follows Fst(t): hold dx fixed with k dx = 2.5; sticks while Fst(t) = 3, then
     * the ramp of Fsl past 2.5 ... Fst stays 3 > 2.5: never slides; drop Fst to 2 at t = 0.5. */
    el.Fst.kind = TVDS_FN_TABLE;
    double tt[2] = {0.0, 1.0}, tv[2] = {3.0, 1.0};
    el.Fst.ntab = 2;
    el.Fst.tab_t = tt;
    el.Fst.tab_v = tv;
    el.Fsl = fconst(0.5);
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    tvds_ef_out o;
    double t_break = NAN;
    for (int n = 1; n <= 1000 && isnan(t_break); n++) {
        tvds_ef_step(&el, &st, n * 1e-3, 0.25, n == 1 ? 250.0 : 0.0, 1e-3, &o);
        if (o.sf != TVDS_SF_STICK) t_break = n * 1e-3;
    }
    /* Fst(t) = 3 - 2 t = 2.5 at t = 0.25 (first step is a jump of dx, b = 0 so dv is unused). */
    ck_assert_double_eq_tol(t_break, 0.25, 1.001e-3);
    ck_assert_double_eq_tol(o.Fi, 0.5, 1e-15);
}
END_TEST

/* Rigid stick-slip protocol: eps_dvsl arms re-sticking, eps_dI keeps small impulses stuck. */
START_TEST(test_ef_rigid_protocol)
{
    tvds_element el = ef_element(2.0, 1.0, 0.0, 0.0);
    el.rigid = 1;
    el.eps_dvsl = 1e-3;
    el.eps_dI = 1e-4;
    double h = 1e-3;
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    tvds_ef_rigid_request req;
    tvds_ef_out o;
    int redo;
    tvds_ef_rigid_begin(&el, &st, h, 0.0, &req);
    ck_assert_int_eq(req.stick_row, 1);
    /* |lambda| = 3 > Fst but its impulse over a short step, 3e-5 N s, is <= eps_dI: held. */
    tvds_ef_rigid_end(&el, &st, h, 3.0, 0.0, 1e-5, &o, &redo);
    ck_assert_int_eq(redo, 0);
    ck_assert_int_eq(o.sf, TVDS_SF_STICK);
    ck_assert_double_eq(o.Fi, 3.0);
    /* Larger impulse: released the way lambda pulls, step redone with Fi = +Fsl. */
    tvds_ef_rigid_begin(&el, &st, 2 * h, 0.0, &req);
    tvds_ef_rigid_end(&el, &st, 2 * h, 3.0, 0.0, h, &o, &redo);
    ck_assert_int_eq(redo, 1);
    ck_assert_int_eq(o.sf, TVDS_SF_SLIDE_POS);
    ck_assert_double_eq(o.Fi, 1.0);
    tvds_ef_rigid_end(&el, &st, 2 * h, 0.0, 2e-4, h, &o, &redo);
    ck_assert_int_eq(redo, 0);
    ck_assert_double_eq_tol(o.Pl, 2e-4, 1e-18);
    /* Not yet separated faster than eps_dvsl: no stick row even though the speed is small. */
    tvds_ef_rigid_begin(&el, &st, 3 * h, 0.5e-3, &req);
    ck_assert_int_eq(req.stick_row, 0);
    ck_assert_double_eq(req.Fi, 1.0);
    tvds_ef_rigid_end(&el, &st, 3 * h, 0.0, 0.5e-3, h, &o, &redo);
    tvds_ef_rigid_begin(&el, &st, 4 * h, 2e-3, &req); /* separates: armed */
    ck_assert_int_eq(req.stick_row, 0);
    tvds_ef_rigid_end(&el, &st, 4 * h, 0.0, 2e-3, h, &o, &redo);
    tvds_ef_rigid_begin(&el, &st, 5 * h, 0.5e-3, &req); /* slows below eps_dvsl: try stick */
    ck_assert_int_eq(req.stick_row, 1);
    tvds_ef_rigid_end(&el, &st, 5 * h, -1.5, 0.0, h, &o, &redo);
    ck_assert_int_eq(o.sf, TVDS_SF_STICK);
    ck_assert_double_eq(o.Fi, -1.5);
    /* Packing round trip. */
    double buf[TVDS_EF_NSTATE];
    tvds_ef_state st2;
    st.armed = 1;
    st.x_fric = 0.125;
    tvds_ef_state_pack(&st, buf);
    tvds_ef_state_unpack(buf, &st2);
    ck_assert(st2.sf == st.sf && st2.armed == st.armed && st2.row == st.row);
    ck_assert(st2.x_fric == st.x_fric && st2.dx_s == st.dx_s && st2.Fi == st.Fi);
}
END_TEST

/* The engine hook form: same results as tvds_ef_step, force on DoF a = -Fi, deferred init. */
START_TEST(test_ef_hook)
{
    tvds_element el = ef_element(3.0, 2.0, 1000.0, 5.0);
    tvds_ef_state st;
    tvds_ef_init(&el, 0.01, &st);
    double s1[TVDS_EF_NSTATE], s2[TVDS_EF_NSTATE];
    tvds_ef_hook_init(&el, 0.01, s1);
    tvds_ef_hook_init(&el, NAN, s2); /* initialised by the first call */
    double h = 1e-3, du_old = 0.01;
    for (int n = 0; n < 200; n++) {
        double du = 0.01 + 0.02 * sin(0.05 * n);
        double dv = (du - du_old) / h;
        tvds_ef_out o, o1;
        double f1, f2;
        tvds_ef_step(&el, &st, n * h, du, dv, h, &o);
        ck_assert_int_eq(tvds_ef_hook_force(&el, n * h, h, du, dv, s1, &f1, &o1), TVDS_OK);
        ck_assert_int_eq(tvds_ef_hook_force(&el, n * h, h, du, dv, s2, &f2, NULL), TVDS_OK);
        ck_assert(f1 == -o.Fi && f2 == f1);
        ck_assert(o1.sf == o.sf && o1.Pl == o.Pl);
        du_old = du;
    }
}
END_TEST

START_TEST(test_ef_preload)
{
    tvds_element el = ef_element(5.0, 4.0, 100.0, 0.0);
    tvds_ef_state st;
    tvds_ef_out o;
    el.kindPS = TVDS_EF_UNLOADED;
    tvds_ef_init(&el, 0.3, &st);
    ck_assert_double_eq(st.Fi, 0.0);
    ck_assert_double_eq(st.x_fric, 0.3);
    el.kindPS = TVDS_EF_PRELOAD_DX;
    el.dxSD0 = 0.02;
    tvds_ef_init(&el, 0.3, &st);
    ck_assert_double_eq_tol(st.Fi, 2.0, 1e-14);
    tvds_ef_step(&el, &st, 1e-3, 0.3, 0.0, 1e-3, &o); /* held: keeps the preload */
    ck_assert_int_eq(o.sf, TVDS_SF_STICK);
    ck_assert_double_eq_tol(o.Fi, 2.0, 1e-14);
    el.kindPS = TVDS_EF_PRELOAD_FORCE;
    el.Fs0 = -4.5;
    tvds_ef_init(&el, 0.0, &st);
    ck_assert_double_eq_tol(st.dx_s, -0.045, 1e-15);
    tvds_ef_step(&el, &st, 1e-3, 0.0, 0.0, 1e-3, &o);
    ck_assert_int_eq(o.sf, TVDS_SF_STICK);
    ck_assert_double_eq_tol(o.Fi, -4.5, 1e-13);
    el.Fs0 = 6.0; /* above Fst: slides at once and relaxes to Fsl, losing (6^2 - 4^2)/(2k) */
    tvds_ef_init(&el, 0.0, &st);
    tvds_ef_step(&el, &st, 1e-3, 0.0, 0.0, 1e-3, &o);
    ck_assert_int_eq(o.sf, TVDS_SF_SLIDE_POS);
    ck_assert_double_eq_tol(o.Fi, 4.0, 1e-14);
    ck_assert_double_eq_tol(o.Pp * 1e-3, -(36.0 - 16.0) / 200.0, 1e-14);
    ck_assert_double_eq_tol((o.Pp + o.Pl) * 1e-3, 0.0, 1e-14); /* no work from outside */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_ef_check(&el, &ctx), TVDS_OK);
    el.k = 0.0;
    ck_assert_int_eq(tvds_ef_check(&el, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "element ef"));
}
END_TEST

START_TEST(test_ef_shapes)
{
    tvds_element el = ef_element(0.0, 1.0, 1.0, 0.0);
    el.kindF = TVDS_EF_CONTINUOUS;
    el.dvL = 0.1;
    double d;
    for (int kt = 0; kt < 2; kt++) {
        el.kindTrans = kt;
        el.eps_sigma = 0.5;
        el.eps_tau = 0.01;
        ck_assert_double_eq(tvds_ef_shape(&el, 0.0, &d), 0.0);
        if (kt == TVDS_EF_GEVREY) ck_assert_double_eq_tol(d, 1.0, 1e-15);
        double prev = -2.0;
        for (int i = -150; i <= 150; i++) {
            double u = i / 100.0, up = u + 1e-7, um = u - 1e-7;
            double T = tvds_ef_shape(&el, u, &d);
            ck_assert(T >= prev);                                             /* monotone */
            ck_assert_double_eq_tol(T, -tvds_ef_shape(&el, -u, NULL), 1e-15); /* odd */
            double fd = (tvds_ef_shape(&el, up, NULL) - tvds_ef_shape(&el, um, NULL)) / 2e-7;
            if (fabs(fabs(u) - 1.0) > 1e-3) ck_assert_double_eq_tol(d, fd, 1e-6 * (1 + fabs(d)));
            prev = T;
        }
    }
    el.kindTrans = TVDS_EF_GEVREY;
    ck_assert_double_eq(tvds_ef_shape(&el, 1.0, NULL), 1.0); /* Fsl reached at dvL */
    ck_assert_double_eq(tvds_ef_shape(&el, -1.3, NULL), -1.0);
    ck_assert(tvds_ef_shape(&el, 0.99, NULL) < 1.0);
    el.kindTrans = TVDS_EF_TANH;
    ck_assert_double_eq_tol(tvds_ef_shape(&el, 1.0, NULL), 0.99, 1e-14);
}
END_TEST

START_TEST(test_ef_continuous_steady)
{
    /* Constant dv: the spring settles and the contact slips at dv: Fi = Fsl T(dv/dvL). */
    tvds_element el = ef_element(0.0, 2.0, 500.0, 3.0);
    el.kindF = TVDS_EF_CONTINUOUS;
    el.dvL = 0.1;
    el.eps_sigma = 1.0;
    double h = 1e-3;
    double dvs[3] = {0.03, 0.1, 0.5};
    for (int c = 0; c < 3; c++) {
        tvds_ef_state st;
        tvds_ef_init(&el, 0.0, &st);
        ck_assert_int_eq(st.sf, TVDS_SF_CONTINUOUS);
        tvds_ef_out o;
        double dx = 0.0;
        for (int n = 1; n <= 5000; n++) {
            dx += dvs[c] * h;
            tvds_ef_step(&el, &st, n * h, dx, dvs[c], h, &o);
            /* The implicit update satisfies the series equation to round-off. */
            double Fsd = el.k * st.dx_s + el.b * (dvs[c] - o.dv_fric);
            ck_assert_double_eq_tol(Fsd, o.Fi, 1e-9);
            ck_assert_double_eq_tol(o.Fi, 2.0 * tvds_ef_shape(&el, o.dv_fric / el.dvL, NULL),
                                    1e-12);
            ck_assert(o.Pl >= 0.0);
        }
        ck_assert_double_eq_tol(o.Fi, 2.0 * tvds_ef_shape(&el, dvs[c] / el.dvL, NULL), 1e-9);
        if (dvs[c] >= el.dvL) ck_assert_double_eq_tol(o.Fi, 2.0, 1e-12);
    }
    /* Rigid continuous: no internal state, Fi = Fsl T(dv/dvL) directly. */
    el.rigid = 1;
    tvds_ef_state st;
    tvds_ef_init(&el, 0.0, &st);
    tvds_ef_out o;
    ck_assert_int_eq(tvds_ef_step(&el, &st, 0.0, 0.0, -0.05, h, &o), TVDS_OK);
    ck_assert_double_eq_tol(o.Fi, -2.0 * tvds_ef_shape(&el, 0.5, NULL), 1e-15);
    ck_assert_double_eq_tol(o.Pl, fabs(o.Fi) * 0.05, 1e-15);
    /* Rigid stick-slip cannot be stepped alone. */
    el.kindF = TVDS_EF_STICK_SLIP;
    ck_assert_int_eq(tvds_ef_step(&el, &st, 0.0, 0.0, 0.0, h, &o), TVDS_ERR_INVALID);
}
END_TEST

/* ---- Penalty law --------------------------------------------------------------------------- */

static tvds_contact pen_contact(void)
{
    tvds_contact c;
    memset(&c, 0, sizeof c);
    c.name = "shoe";
    c.law = TVDS_LAW_PENALTY;
    c.kn = 20.0;
    c.pen0 = 0.5;
    c.kt = 4e5;
    c.mu_s = c.mu_k = 0.1;
    return c;
}

START_TEST(test_pen_static_and_stick)
{
    tvds_contact c = pen_contact();
    tvds_pen_state st;
    tvds_pen_init(&c, 0.0, NULL, &st);
    tvds_pen_kin k = {0};
    tvds_pen_out o;
    tvds_pen_step(&c, &st, &k, 1e-4, &o);
    ck_assert_double_eq(o.FN, 10.0); /* kn pen0 = m g */
    ck_assert_int_eq(o.state, TVDS_STICK);
    /* Tangential displacement below mu FN / kt = 2.5e-6 m: elastic stick, no wear. */
    k.ut[0] = 1.5e-6;
    k.ut[1] = -1.0e-6;
    tvds_pen_step(&c, &st, &k, 1e-4, &o);
    ck_assert_int_eq(o.state, TVDS_STICK);
    ck_assert_double_eq_tol(o.Ft[0], -0.6, 1e-12);
    ck_assert_double_eq_tol(o.Ft[1], 0.4, 1e-12);
    ck_assert_double_eq(o.p_wear, 0.0);
    ck_assert_double_eq(o.p_fric, 0.0);
    ck_assert_double_eq(o.w[0], 0.0);
}
END_TEST

START_TEST(test_pen_return_mapping)
{
    tvds_contact c = pen_contact();
    c.ct = 30.0;
    double h = 1e-4;
    tvds_pen_state st;
    tvds_pen_init(&c, 0.0, NULL, &st);
    tvds_pen_kin k = {.dn = 0.1, .vn = 0.0, .ut = {3e-5, 4e-5}, .vt = {0.3, 0.4}};
    tvds_pen_out o;
    double old[2] = {st.u_slip[0], st.u_slip[1]};
    tvds_pen_step(&c, &st, &k, h, &o);
    double FN = 20.0 * 0.6;
    ck_assert_double_eq_tol(o.FN, FN, 1e-14);
    ck_assert_int_eq(o.state, TVDS_SLIP);
    ck_assert_double_eq_tol(hypot(o.Ft[0], o.Ft[1]), 0.1 * FN, 1e-14);
    /* Direction: opposite to the motion, along the trial force (here along -ut). */
    ck_assert_double_eq_tol(o.Ft[0] / o.Ft[1], 0.75, 1e-12);
    ck_assert(o.Ft[0] < 0.0);
    /* The new anchor makes the spring + damper carry exactly Ft (backward Euler). */
    for (int a = 0; a < 2; a++) {
        double wa = (st.u_slip[a] - old[a]) / h;
        ck_assert_double_eq_tol(wa, o.w[a], 1e-12);
        double F = -c.kt * (k.ut[a] - st.u_slip[a]) - c.ct * (k.vt[a] - wa);
        ck_assert_double_eq_tol(F, o.Ft[a], 1e-9);
    }
    ck_assert_double_eq_tol(o.p_fric, 0.1 * FN * hypot(o.w[0], o.w[1]), 1e-12);
    ck_assert_double_eq_tol(o.p_wear, FN * hypot(o.w[0], o.w[1]), 1e-12);
    ck_assert(o.p_fric > 0.0);
}
END_TEST

START_TEST(test_pen_static_kinetic_open)
{
    tvds_contact c = pen_contact();
    c.mu_s = 0.15;
    c.mu_k = 0.1; /* FN = 10: stick up to 1.5 N, slide at 1 N */
    double h = 1e-4;
    tvds_pen_state st;
    tvds_pen_init(&c, 0.0, NULL, &st);
    tvds_pen_kin k = {0};
    tvds_pen_out o;
    k.ut[0] = 1.2 / c.kt; /* 1.2 N: between mu_k FN and mu_s FN, sticks */
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_int_eq(o.state, TVDS_STICK);
    ck_assert_double_eq_tol(o.Ft[0], -1.2, 1e-12);
    k.ut[0] = 1.6 / c.kt; /* breaks away, slides at mu_k */
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_int_eq(o.state, TVDS_SLIP);
    ck_assert_double_eq_tol(o.Ft[0], -1.0, 1e-12);
    k.ut[0] += 1e-7; /* keeps sliding forward */
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_int_eq(o.state, TVDS_SLIP);
    ck_assert_double_eq_tol(o.Ft[0], -1.0, 1e-12);
    k.ut[0] -= 1e-7; /* reverses a little: the spring unloads elastically, sticks */
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_int_eq(o.state, TVDS_STICK);
    ck_assert_double_eq_tol(o.Ft[0], -1.0 + c.kt * 1e-7, 1e-9);
    /* Opening: no forces, the anchor follows. */
    k.dn = -0.6;
    k.ut[0] = 0.3;
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_int_eq(o.state, TVDS_OPEN);
    ck_assert_double_eq(o.FN, 0.0);
    ck_assert_double_eq(o.Ft[0], 0.0);
    ck_assert_double_eq(st.u_slip[0], 0.3);
    /* Normal damping adds to kn pen, and a fast separation cannot pull. */
    c.cn = 2.0;
    k.dn = 0.0;
    k.vn = 1.0;
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_double_eq_tol(o.FN, 12.0, 1e-14);
    k.vn = -10.0;
    tvds_pen_step(&c, &st, &k, h, &o);
    ck_assert_double_eq(o.FN, 0.0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_pen_check(&c, &ctx), TVDS_OK);
    c.mu_s = 0.05;
    ck_assert_int_eq(tvds_pen_check(&c, &ctx), TVDS_ERR_INVALID);
}
END_TEST

START_TEST(test_pen_anisotropic)
{
    tvds_contact c = pen_contact();
    c.anisotropic = 1;
    c.mu_axis[0] = 0.1;
    c.mu_axis[1] = 0.0; /* one-way friction */
    tvds_pen_state st;
    tvds_pen_init(&c, 0.0, NULL, &st);
    tvds_pen_kin k = {.ut = {1e-3, 1e-3}};
    tvds_pen_out o;
    tvds_pen_step(&c, &st, &k, 1e-4, &o);
    ck_assert_int_eq(o.state, TVDS_SLIP);
    ck_assert_double_eq_tol(o.Ft[0], -1.0, 1e-14);
    ck_assert_double_eq(o.Ft[1], 0.0);
    ck_assert_double_eq_tol(st.u_slip[1], 1e-3, 1e-18); /* free axis follows */
    ck_assert(o.p_fric >= 0.0);
    double buf[TVDS_PEN_NSTATE];
    tvds_pen_state st2;
    tvds_pen_state_pack(&st, buf);
    tvds_pen_state_unpack(buf, &st2);
    ck_assert_int_eq(st2.state, st.state);
    ck_assert(st2.u_slip[0] == st.u_slip[0] && st2.u_slip[1] == st.u_slip[1]);
}
END_TEST

/* Random kinematics: friction power is never negative and the force never leaves the cone. */
START_TEST(test_pen_power_nonnegative)
{
    tvds_contact c = pen_contact();
    c.mu_s = 0.3;
    c.mu_k = 0.2;
    c.ct = 50.0;
    c.cn = 1.0;
    srand(12345);
    double h = 1e-4;
    for (int aniso = 0; aniso < 2; aniso++) {
        c.anisotropic = aniso;
        c.mu_axis[0] = 0.2;
        c.mu_axis[1] = 0.05;
        tvds_pen_state st;
        tvds_pen_init(&c, 0.0, NULL, &st);
        tvds_pen_kin k = {0};
        for (int n = 0; n < 20000; n++) {
            double r[4];
            for (int i = 0; i < 4; i++)
                r[i] = 2.0 * rand() / (double)RAND_MAX - 1.0;
            k.dn = 0.3 * r[0];
            k.vn = r[1];
            for (int a = 0; a < 2; a++) {
                double du = 5e-6 * r[2 + a];
                k.vt[a] = du / h;
                k.ut[a] += du;
            }
            tvds_pen_out o;
            tvds_pen_step(&c, &st, &k, h, &o);
            ck_assert(o.p_fric >= 0.0);
            ck_assert(o.FN >= 0.0);
            if (!aniso)
                ck_assert(hypot(o.Ft[0], o.Ft[1]) <= c.mu_s * o.FN * (1 + 1e-14) + 1e-300);
            else
                for (int a = 0; a < 2; a++)
                    ck_assert(fabs(o.Ft[a]) <=
                              c.mu_axis[a] * c.mu_s / c.mu_k * o.FN * (1 + 1e-14) + 1e-300);
            if (o.state == TVDS_STICK) ck_assert(o.p_wear == 0.0);
        }
    }
}
END_TEST

Suite *friction_laws_suite(void)
{
    Suite *s = suite_create("friction_laws");
    TCase *tc = tcase_create("elastic_friction");
    tcase_add_test(tc, test_ef_belt_rigid_stick_slip);
    tcase_add_test(tc, test_ef_belt_elastic_stick_slip);
    tcase_add_test(tc, test_ef_sf_transitions);
    tcase_add_test(tc, test_ef_forces_rules);
    tcase_add_test(tc, test_ef_rigid_protocol);
    tcase_add_test(tc, test_ef_hook);
    tcase_add_test(tc, test_ef_preload);
    tcase_add_test(tc, test_ef_shapes);
    tcase_add_test(tc, test_ef_continuous_steady);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    tc = tcase_create("penalty");
    tcase_add_test(tc, test_pen_static_and_stick);
    tcase_add_test(tc, test_pen_return_mapping);
    tcase_add_test(tc, test_pen_static_kinetic_open);
    tcase_add_test(tc, test_pen_anisotropic);
    tcase_add_test(tc, test_pen_power_nonnegative);
    suite_add_tcase(s, tc);
    return s;
}
