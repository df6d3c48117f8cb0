/* check_engine.c — the time-stepping engine: constraints, contact methods, exact stick, energy
 * bookkeeping, modal vs physical paths, error reporting and the no-allocation rule. Models are
 * built here programmatically. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/contact/hermite.h"
#include "engine/sim_impl.h" /* reference paths: tvds_data.check */
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"
#define TVDS_TEST_ENGINE
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

static const double PI = 3.14159265358979323846;

/* ---- Model builders ----------------------------------------------------------------------- */

/* A substructure of nn nodes (ids 1..nn) with DoFs X, Y at (x[i], y[i]); M, K zeroed. */
static tvds_substructure *sub_nodes(const char *name, int nn, const double *x, const double *y)
{
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    s->name = tvds_strdup(name);
    s->n = 2 * nn;
    s->M = tvds_calloc((size_t)s->n * s->n, sizeof(double));
    s->K = tvds_calloc((size_t)s->n * s->n, sizeof(double));
    s->dofs = tvds_calloc((size_t)s->n, sizeof(tvds_dof));
    for (int i = 0; i < nn; i++)
        for (int a = 0; a < 2; a++) {
            tvds_dof *d = &s->dofs[2 * i + a];
            d->kind = TVDS_DOF_PHYSICAL;
            d->node = i + 1;
            d->dir = a;
            d->xyz[0] = x[i];
            d->xyz[1] = y ? y[i] : 0.0;
        }
    return s;
}

/* A substructure of one node with DoFs x, y, z at the origin, M = I, springs k on x and y. */
static tvds_substructure *shoe3d(double k)
{
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    s->name = tvds_strdup("shoe");
    s->n = 3;
    s->M = tvds_calloc(9, sizeof(double));
    s->K = tvds_calloc(9, sizeof(double));
    s->dofs = tvds_calloc(3, sizeof(tvds_dof));
    for (int a = 0; a < 3; a++) {
        s->dofs[a] = (tvds_dof){.kind = TVDS_DOF_PHYSICAL, .node = 1, .dir = a};
        s->M[a + 3 * a] = 1.0;
    }
    s->K[0] = s->K[4] = k;
    return s;
}

static void addM(tvds_substructure *s, int i, int j, double v)
{
    s->M[i + (size_t)j * s->n] += v;
}
static void addK(tvds_substructure *s, int i, int j, double v)
{
    s->K[i + (size_t)j * s->n] += v;
}
/* Spring k between DoFs i and j (j < 0: ground). */
static void spring(tvds_substructure *s, int i, int j, double k)
{
    addK(s, i, i, k);
    if (j >= 0) {
        addK(s, j, j, k);
        addK(s, i, j, -k);
        addK(s, j, i, -k);
    }
}

static tvds_model *model_new(int nsub)
{
    tvds_model *m = tvds_model_create();
    m->nsub = nsub;
    m->subs = tvds_calloc((size_t)nsub, sizeof *m->subs);
    m->damping = tvds_calloc((size_t)nsub, sizeof *m->damping);
    return m;
}

static tvds_contact *add_contact(tvds_model *m, const char *name, int slave_sub, long node)
{
    m->contacts = tvds_realloc(m->contacts, (size_t)(m->ncontact + 1) * sizeof *m->contacts);
    tvds_contact *c = &m->contacts[m->ncontact++];
    memset(c, 0, sizeof *c);
    c->name = tvds_strdup(name);
    c->dim = 2;
    c->slave_sub = slave_sub;
    c->nslave = 1;
    c->slave_nodes = tvds_calloc(1, sizeof(long));
    c->slave_nodes[0] = node;
    c->exact_stick = 1;
    return c;
}

static void rigid_plane(tvds_contact *c)
{
    c->master_kind = TVDS_MASTER_RIGID;
    c->rigid_normal[1] = 1.0;
    c->rigid_t1[0] = 1.0;
}

static void add_ic(tvds_model *m, int sub, int dof, double u0, double v0)
{
    m->ics = tvds_realloc(m->ics, (size_t)(m->nic + 1) * sizeof *m->ics);
    m->ics[m->nic++] = (tvds_initial){.sub = sub, .dof = dof, .u0 = u0, .v0 = v0};
}

static void add_probe(tvds_model *m, const char *name, int kind, int sub, int dof)
{
    m->probes = tvds_realloc(m->probes, (size_t)(m->nprobe + 1) * sizeof *m->probes);
    m->probes[m->nprobe++] =
        (tvds_probe){.name = tvds_strdup(name), .kind = kind, .sub = sub, .dof = dof, .rec = -1};
}

static tvds_bilateral *add_bil(tvds_model *m, const char *name, int nterms)
{
    m->bil = tvds_realloc(m->bil, (size_t)(m->nbil + 1) * sizeof *m->bil);
    tvds_bilateral *b = &m->bil[m->nbil++];
    memset(b, 0, sizeof *b);
    b->name = tvds_strdup(name);
    b->nterms = nterms;
    b->terms = tvds_calloc((size_t)nterms, sizeof(tvds_term));
    return b;
}

static void add_load(tvds_model *m, int sub, int dof, tvds_fn fn)
{
    m->loads = tvds_realloc(m->loads, (size_t)(m->nload + 1) * sizeof *m->loads);
    m->loads[m->nload++] =
        (tvds_load){.name = tvds_strdup("load"), .sub = sub, .dof = dof, .fn = fn};
}

/* A fixed time step dt [s] instead of the automatic choice. */
static void fixed_dt(tvds_model *m, double dt)
{
    m->opt.dt_auto = 0;
    m->opt.dt = dt;
}

/* ---- Running ------------------------------------------------------------------------------ */

/* Reset ctx and create the state of model m; the creation must succeed. */
static tvds_data *data_new(const tvds_model *m, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, ctx) == TVDS_OK, "%s", ctx->msg);
    return d;
}

/* n steps, each of which must succeed. */
static void steps_ok(const tvds_model *m, tvds_data *d, tvds_ctx *ctx, long n)
{
    for (long k = 0; k < n; k++)
        ck_assert_msg(tvds_step(m, d, ctx) == TVDS_OK, "%s", ctx->msg);
}

/* Step from code rc (no step unless TVDS_OK) until a step fails or n steps were made; returns
 * the last code, *calls (may be NULL) the number of tvds_step calls. */
static int steps_until_error(const tvds_model *m, tvds_data *d, tvds_ctx *ctx, int rc, long n,
                             long *calls)
{
    long k;
    for (k = 0; rc == TVDS_OK && k < n; k++)
        rc = tvds_step(m, d, ctx);
    if (calls) *calls = k;
    return rc;
}

/* ---- 1. Frictionless mass on a rigid plane ------------------------------------------------ */

START_TEST(test_mass_on_plane)
{
    const double mass = 2.0, g = 9.81;
    double x0 = 0.3, y0 = 0.0;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("block", 1, &x0, &y0);
    addM(s, 0, 0, mass);
    addM(s, 1, 1, mass);
    spring(s, 0, -1, 50.0); /* a soft horizontal spring gives a finite stable step */
    m->gravity[1] = -g;
    tvds_contact *c = add_contact(m, "floor", 0, 1);
    rigid_plane(c);
    add_ic(m, 0, 0, 0.01, 0.0);
    m->opt.method = _i;
    fixed_dt(m, 1e-3);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "floor.lambda_n [N]");
    int igap = ch_index(d, TVDS_GROUP_CONTACTS, "floor.gap [m]");
    int ilt = ch_index(d, TVDS_GROUP_CONTACTS, "floor.lambda_t [N]");
    for (int k = 0; k < 2000; k++) {
        ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
        /* The plane carries the weight exactly from the first step on. */
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, iln), mass * g, 1e-12 * mass * g);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, igap), 0.0, 1e-15);
        ck_assert_double_eq(ch(d, TVDS_GROUP_CONTACTS, ilt), 0.0);
    }
    /* Frictionless: the horizontal oscillation keeps its energy (central-difference energy
     * is conserved; the balance error is round-off). */
    ck_assert_double_lt(summary(d, "energy balance error [-]"), 1e-10);
    tvds_data_free(&d);
    ck_assert_ptr_null(d);
    tvds_model_free(&m);
}
END_TEST

/* ---- 2. Dual assembly reproduces the merged model ----------------------------------------- */

/* A chain of 4 nodes along x (1D, X DoFs used; Y DoFs carry their own mass and a ground
 * spring). split: two substructures joined at node 2 by a bilateral tie. */
static tvds_model *chain_model(int split, int modal)
{
    const double mnode = 0.5, k = 2e4;
    double xs[4] = {0, 1, 2, 3};
    tvds_model *m;
    if (!split) {
        m = model_new(1);
        tvds_substructure *s = m->subs[0] = sub_nodes("chain", 4, xs, NULL);
        for (int i = 0; i < 8; i++)
            addM(s, i, i, mnode);
        spring(s, 0, -1, k);
        for (int i = 0; i < 3; i++)
            spring(s, 2 * i, 2 * i + 2, k * (1 + 0.3 * i));
        for (int i = 0; i < 4; i++)
            spring(s, 2 * i + 1, -1, k);
        add_probe(m, "u4", TVDS_PROBE_U, 0, 6);
        add_probe(m, "u2", TVDS_PROBE_U, 0, 2);
        add_load(m, 0, 6, (tvds_fn){.kind = TVDS_FN_HARMONIC, .amp = 3.0, .freq = 17.0});
        add_ic(m, 0, 2, 1e-3, 0.0);
        add_ic(m, 0, 4, -2e-3, 0.5);
    } else {
        m = model_new(2);
        tvds_substructure *a = m->subs[0] = sub_nodes("A", 2, xs, NULL);
        tvds_substructure *b = m->subs[1] = sub_nodes("B", 3, xs + 1, NULL);
        /* A: nodes 1, 2 (node 2 with 40 % of its mass); B: nodes 2', 3, 4. */
        addM(a, 0, 0, mnode);
        addM(a, 1, 1, mnode);
        addM(a, 2, 2, 0.4 * mnode);
        addM(a, 3, 3, 0.4 * mnode);
        spring(a, 0, -1, k);
        spring(a, 0, 2, k);
        spring(a, 1, -1, k);
        spring(a, 3, -1, 0.4 * k);
        for (int i = 0; i < 6; i++)
            addM(b, i, i, mnode);
        b->M[0] = b->M[1 + 6] = 0.6 * mnode;
        for (int i = 0; i < 2; i++)
            spring(b, 2 * i, 2 * i + 2, k * (1 + 0.3 * (i + 1)));
        spring(b, 1, -1, 0.6 * k);
        spring(b, 3, -1, k);
        spring(b, 5, -1, k);
        tvds_bilateral *tx = add_bil(m, "tie_x", 2);
        tx->terms[0] = (tvds_term){0, 2, 1.0};
        tx->terms[1] = (tvds_term){1, 0, -1.0};
        tvds_bilateral *ty = add_bil(m, "tie_y", 2);
        ty->terms[0] = (tvds_term){0, 3, 1.0};
        ty->terms[1] = (tvds_term){1, 1, -1.0};
        add_probe(m, "u4", TVDS_PROBE_U, 1, 4);
        add_probe(m, "u2", TVDS_PROBE_U, 0, 2);
        add_load(m, 1, 4, (tvds_fn){.kind = TVDS_FN_HARMONIC, .amp = 3.0, .freq = 17.0});
        add_ic(m, 0, 2, 1e-3, 0.0);
        add_ic(m, 1, 0, 1e-3, 0.0);
        add_ic(m, 1, 2, -2e-3, 0.5);
    }
    m->opt.modal = modal;
    fixed_dt(m, 2e-4);
    return m;
}

START_TEST(test_dual_vs_merged)
{
    tvds_model *m1 = chain_model(0, 1), *m2 = chain_model(1, 1);
    tvds_ctx ctx;
    tvds_data *d1 = data_new(m1, &ctx), *d2 = data_new(m2, &ctx);
    double umax = 0.0, dmax = 0.0;
    for (int k = 0; k < 3000; k++) {
        ck_assert_int_eq(tvds_step(m1, d1, &ctx), TVDS_OK);
        ck_assert_int_eq(tvds_step(m2, d2, &ctx), TVDS_OK);
        for (int p = 1; p <= 2; p++) {
            double a = ch(d1, TVDS_GROUP_HISTORY, p), b = ch(d2, TVDS_GROUP_HISTORY, p);
            if (fabs(a) > umax) umax = fabs(a);
            if (fabs(a - b) > dmax) dmax = fabs(a - b);
        }
    }
    ck_assert_double_gt(umax, 1e-4);
    /* Same scheme, same equations summed at the tie: round-off-level agreement. */
    ck_assert_double_lt(dmax / umax, 1e-9);
    ck_assert_double_lt(summary(d2, "energy balance error [-]"), 1e-9);
    tvds_data_free(&d1);
    tvds_data_free(&d2);
    tvds_model_free(&m1);
    tvds_model_free(&m2);
}
END_TEST

/* ---- 4. One-DoF Coulomb oscillator (SDND100 physics) -------------------------------------- */

static tvds_model *coulomb_model(int method, int modal)
{
    double x0 = 0.0, y0 = 0.0;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("shoe", 1, &x0, &y0);
    addM(s, 0, 0, 1.0);
    addM(s, 1, 1, 1.0);
    spring(s, 0, -1, 1e4);
    m->gravity[1] = -10.0;
    tvds_contact *c = add_contact(m, "shoe", 0, 1);
    rigid_plane(c);
    c->mu_s = c->mu_k = 0.1;
    add_ic(m, 0, 0, 0.85e-3, 0.0);
    add_probe(m, "ux", TVDS_PROBE_U, 0, 0);
    add_probe(m, "vx", TVDS_PROBE_V, 0, 0);
    m->opt.method = method;
    m->opt.modal = modal;
    fixed_dt(m, 1e-5);
    return m;
}

START_TEST(test_coulomb_oscillator)
{
    int method = _i == 0 ? TVDS_METHOD_SUBS_B : TVDS_METHOD_FILM;
    tvds_model *m = coulomb_model(method, 1);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int ist = ch_index(d, TVDS_GROUP_CONTACTS, "shoe.state [-]");
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "shoe.p_friction [W]");
    const double w0 = 100.0, delta = 2.0 * 0.1 * 1.0 * 10.0 / 1e4;
    double u[3] = {0, 0, 0}, t[3] = {0, 0, 0}, vmax = 0.0, last = 0.0, tstop = -1.0;
    int next = 1;
    long nsteps = (long)(0.2 / 1e-5);
    for (long k = 0; k < nsteps; k++) {
        ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
        u[0] = u[1], u[1] = u[2], t[0] = t[1], t[1] = t[2];
        u[2] = ch(d, TVDS_GROUP_HISTORY, 1);
        t[2] = ch(d, TVDS_GROUP_HISTORY, 0);
        double v = ch(d, TVDS_GROUP_HISTORY, 2);
        if (fabs(v) > vmax) vmax = fabs(v);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), -1e-12);
        /* Extremum: the increment changes sign (a stuck step has a zero increment). */
        double du = u[2] - u[1];
        if (k >= 2 && next <= 3 && du != 0.0 && last * du < 0.0) {
            /* Extremum n: amplitude r0 - n * 2 mu m g / k, time n pi / w0. */
            double ref = (next % 2 ? -1.0 : 1.0) * (0.85e-3 - next * delta);
            double tref = next * PI / w0;
            ck_assert_double_eq_tol(u[1], ref, 1e-3 * fabs(ref));
            ck_assert_double_eq_tol(t[1], tref, 1e-3 * tref);
            next++;
        }
        if (du != 0.0) last = du;
        if (next == 4 && du == 0.0 && tstop < 0.0) {
            /* The 4th extremum is where the shoe stops for good. */
            tstop = t[1];
            ck_assert_double_eq_tol(u[1], 0.05e-3, 1e-3 * 0.05e-3);
        }
        if (t[2] > 4 * PI / w0 + 1e-3) {
            /* Stopped at the 4th extremum: stuck, velocity exactly zero (the corrector restores
             * the stuck displacement bit for bit: docs/theory.md, "Exact zero velocity"). */
            ck_assert_int_eq((int)ch(d, TVDS_GROUP_CONTACTS, ist), TVDS_STICK);
            ck_assert_double_eq(v, 0.0);
            ck_assert_double_lt(fabs(v), 1e-12 * vmax);
            ck_assert_double_eq_tol(u[2], 0.05e-3, 1e-3 * 0.05e-3);
        }
    }
    ck_assert_int_eq(next, 4);
    ck_assert_double_eq_tol(tstop, 4 * PI / w0, 1e-3 * 4 * PI / w0);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- Anisotropic (one-way) friction: SDND100 modeling D ----------------------------------- */

START_TEST(test_anisotropic_shoe)
{
    /* A shoe on the rigid plane z = 0 (3D), restricted to the 45-degree line of the x-y plane
     * by cos45 DX - cos45 DY = 0, spring k along that line, friction mu only along x. The
     * friction force mu m g along x projects as mu m g cos45 on the line: the amplitude r drops
     * by 2 mu m g cos45 / k per half cycle; DY = r cos45 at the extrema. */
    const double c45 = sqrt(0.5), k = 1e4, r0 = 0.85e-3;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = shoe3d(0.0);
    /* K = k e e^T with e = (c45, c45, 0). */
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            s->K[a + 3 * b] = k * 0.5;
    m->gravity[2] = -10.0;
    tvds_bilateral *b = add_bil(m, "line45", 2);
    b->terms[0] = (tvds_term){0, 0, c45};
    b->terms[1] = (tvds_term){0, 1, -c45};
    tvds_contact *c = add_contact(m, "shoe", 0, 1);
    c->dim = 3;
    c->master_kind = TVDS_MASTER_RIGID;
    c->rigid_normal[2] = 1.0;
    c->rigid_t1[0] = 1.0;
    c->anisotropic = 1;
    c->mu_axis[0] = 0.1;
    c->mu_axis[1] = 0.0;
    add_ic(m, 0, 0, r0 * c45, 0.0);
    add_ic(m, 0, 1, r0 * c45, 0.0);
    add_probe(m, "DY", TVDS_PROBE_U, 0, 1);
    m->opt.method = _i == 0 ? TVDS_METHOD_SUBS_B : TVDS_METHOD_FILM;
    fixed_dt(m, 1e-5);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    const double ref[4] = {-5.010e-4, 4.010e-4, -3.010e-4, 2.010e-4};
    double u[2] = {0, 0}, last = 0.0;
    int next = 0;
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "shoe.p_friction [W]");
    for (long k2 = 0; k2 < 13000; k2++) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), -1e-12);
        u[0] = u[1];
        u[1] = ch(d, TVDS_GROUP_HISTORY, 1);
        double du = u[1] - u[0];
        if (k2 >= 2 && next < 4 && du != 0.0 && last * du < 0.0) {
            double t = ch(d, TVDS_GROUP_HISTORY, 0) - tvds_data_dt(d);
            ck_assert_double_eq_tol(u[0], ref[next], 1e-3 * fabs(ref[next]));
            ck_assert_double_eq_tol(t, (next + 1) * PI / 100.0, 1e-3 * (next + 1) * PI / 100.0);
            next++;
        }
        if (k2 >= 1 && du != 0.0) last = du;
    }
    ck_assert_int_eq(next, 4);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- SDND104: wear power of a shoe on a vibrating base ------------------------------------ */

START_TEST(test_wear_power_sdnd104)
{
    /* m = 1, mu = 0.1, g = 10, base acceleration a0 sin(2 pi t) along x (relative frame),
     * initially stuck, a 3e-5 N/m spring as in the Code_Aster case. Mean of F_N |v_t| over
     * [4, 12] s: 0.40906245 W (stick-slip, a0 = 1.5) and exactly 0 (permanent stick,
     * a0 = 0.99). Code_Aster's own tolerance on this case is 5e-4 relative. */
    const double a0s[2] = {1.5, 0.99}, ref[2] = {0.40906245, 0.0};
    for (int c2 = 0; c2 < 2; c2++) {
        double x0 = 0, y0 = 0;
        tvds_model *m = model_new(1);
        tvds_substructure *s = m->subs[0] = sub_nodes("shoe", 1, &x0, &y0);
        addM(s, 0, 0, 1.0);
        addM(s, 1, 1, 1.0);
        spring(s, 0, -1, 3e-5);
        m->gravity[1] = -10.0;
        tvds_contact *c = add_contact(m, "shoe", 0, 1);
        rigid_plane(c);
        c->mu_s = c->mu_k = 0.1;
        c->initially_stuck = 1;
        m->has_base_acc = 1;
        m->base_dir[0] = 1.0;
        m->base_acc = (tvds_fn){.kind = TVDS_FN_HARMONIC, .amp = a0s[c2], .freq = 1.0};
        m->opt.method = _i == 0 ? TVDS_METHOD_SUBS_B : TVDS_METHOD_FILM;
        fixed_dt(m, 2e-4);
        m->opt.win_t0 = 4.0;
        m->opt.win_t1 = 12.0;
        tvds_ctx ctx;
        tvds_data *d = data_new(m, &ctx);
        int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "shoe.p_friction [W]");
        while (tvds_data_time(d) < 12.0 + 1e-4) {
            ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
            ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), 0.0);
        }
        double pw = summary(d, "shoe.mean p_wear [W]");
        if (ref[c2] == 0.0)
            ck_assert_double_eq(pw, 0.0);
        else
            ck_assert_double_eq_tol(pw, ref[c2], 5e-4 * ref[c2]);
        tvds_data_free(&d);
        tvds_model_free(&m);
    }
}
END_TEST

/* ---- Several slave nodes solved together: release of a tensile contact -------------------- */

START_TEST(test_two_slave_nodes)
{
    /* Two nodes 1 m apart tied by springs (k in x and y), masses 1 and 3 kg, on a rigid floor
     * with g = 10. An upward force ramped to 35 N on node 2 lifts it (35 > 30 N of weight);
     * the static state is node 2 in the air, spring force 5 N, floor reaction 5 N on node 1. */
    double xs[2] = {0.0, 1.0}, ys[2] = {0.0, 0.0};
    const double k = 1e4;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("bar", 2, xs, ys);
    addM(s, 0, 0, 1.0);
    addM(s, 1, 1, 1.0);
    addM(s, 2, 2, 3.0);
    addM(s, 3, 3, 3.0);
    spring(s, 0, 2, k);
    spring(s, 1, 3, k);
    spring(s, 0, -1, k);
    m->damping[0] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = 30.0, .beta = 0.0};
    m->gravity[1] = -10.0;
    tvds_contact *c = add_contact(m, "floor", 0, 1);
    rigid_plane(c);
    c->nslave = 2;
    c->slave_nodes = tvds_realloc(c->slave_nodes, 2 * sizeof(long));
    c->slave_nodes[1] = 2;
    c->mu_s = c->mu_k = 0.2;
    add_load(m, 0, 3, (tvds_fn){.kind = TVDS_FN_SMOOTH_RAMP, .amp = 35.0, .t0 = 0.0, .t1 = 0.2});
    m->opt.method = _i;
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int il1 = ch_index(d, TVDS_GROUP_CONTACTS, "floor.1.lambda_n [N]");
    int il2 = ch_index(d, TVDS_GROUP_CONTACTS, "floor.2.lambda_n [N]");
    int is2 = ch_index(d, TVDS_GROUP_CONTACTS, "floor.2.state [-]");
    int ig2 = ch_index(d, TVDS_GROUP_CONTACTS, "floor.2.gap [m]");
    int ig1 = ch_index(d, TVDS_GROUP_CONTACTS, "floor.1.gap [m]");
    while (tvds_data_time(d) < 1.5) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ig1), -1e-15);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ig2), -1e-15);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, il2), 0.0);
    }
    /* Settled (damping time 2/alpha = 0.07 s, 1.3 s after the ramp). */
    ck_assert_int_eq((int)ch(d, TVDS_GROUP_CONTACTS, is2), TVDS_OPEN);
    ck_assert_double_eq(ch(d, TVDS_GROUP_CONTACTS, il2), 0.0);
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, il1), 5.0, 1e-6);
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, ig2), 5.0 / k, 1e-9);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- Moving rigid master: a block on a conveyor belt -------------------------------------- */

START_TEST(test_conveyor_belt)
{
    /* m = 1 kg on a belt moving at 0.5 m/s, spring k = 100 N/m to ground, mu = 0.3, g = 10.
     * The block slides backwards relative to the belt at all times (its peak speed 0.3 m/s
     * stays below 0.5), so friction drags it with mu m g = 3 N: x(t) = 0.03 (1 - cos 10 t).
     * Central differences: phase error w t (w h)^2 / 24 = 4e-5 rad at t = 1 s. The belt's work
     * goes into the spring, the block and the friction dissipation: the balance closes to
     * round-off (flat belt, persistent contact). */
    double x0 = 0.0, y0 = 0.0;
    const double h = 1e-3, A = 0.03;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("block", 1, &x0, &y0);
    addM(s, 0, 0, 1.0);
    addM(s, 1, 1, 1.0);
    spring(s, 0, -1, 100.0);
    s->nrec = 1;
    s->rec = tvds_calloc(1, sizeof(tvds_recovery));
    s->rec[0].name = tvds_strdup("twice_x");
    s->rec[0].row = tvds_calloc(2, sizeof(double));
    s->rec[0].row[0] = 2.0;
    m->gravity[1] = -10.0;
    tvds_contact *c = add_contact(m, "belt", 0, 1);
    rigid_plane(c);
    c->mu_s = c->mu_k = 0.3;
    /* P(t) = 0.5 t, also before t = 0 (the belt runs before the block is put on it). */
    c->rigid_motion[0] =
        (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 100.0, .t0 = -100.0, .t1 = 100.0, .offset = -50.0};
    add_probe(m, "x", TVDS_PROBE_U, 0, 0);
    add_probe(m, "ax", TVDS_PROBE_A, 0, 0);
    m->probes = tvds_realloc(m->probes, 3 * sizeof *m->probes);
    m->probes[2] = (tvds_probe){
        .name = tvds_strdup("x2"), .kind = TVDS_PROBE_U, .sub = 0, .dof = -1, .rec = 0};
    m->nprobe = 3;
    m->opt.method = _i;
    fixed_dt(m, h);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int ilt = ch_index(d, TVDS_GROUP_CONTACTS, "belt.lambda_t [N]");
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "belt.p_friction [W]");
    int ivs = ch_index(d, TVDS_GROUP_CONTACTS, "belt.v_slide [m/s]");
    while (tvds_data_time(d) < 1.0) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        double t = ch(d, TVDS_GROUP_HISTORY, 0), x = ch(d, TVDS_GROUP_HISTORY, 1);
        ck_assert_double_eq_tol(x, A * (1.0 - cos(10.0 * t)), 2e-4 * A);
        /* Acceleration probe: the equation of motion at t_n, exactly. */
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_HISTORY, 2), 3.0 - 100.0 * x, 1e-9);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_HISTORY, 3), 2.0 * x, 1e-15);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, ilt), 3.0, 1e-12);
        ck_assert_double_lt(ch(d, TVDS_GROUP_CONTACTS, ivs), -0.1);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), 0.0);
    }
    /* The friction dissipation uses the sliding velocity over [t_n, t_{n+1}], the work of the
     * force that over the central increment: per step they differ by F_t h^2 a_rel / 2, which
     * sums to F_t h (v_max - v_min) / 2 = 3 x 1e-3 x 0.6 / 2 = 9e-4 J at most, against 1.5 J
     * of belt work: bound 6e-4 (docs/theory.md, section 12). */
    double bal = summary(d, "energy balance error [-]");
    ck_assert_double_lt(bal, 6e-4);
    ck_assert_double_gt(summary(d, "energy max [J]"), 1.4);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- Damping matrix and discrete elements --------------------------------------------------- */

/* Oscillator chain of 3 nodes (x DoFs coupled, y DoFs on ground springs). variant 0: Rayleigh
 * damping (modal path); 1: the same C = a M + b K given as a matrix (physical path); 2: the
 * first spring to ground and a damper given as discrete elements with C = 0 otherwise. */
static tvds_model *damped_model(int variant)
{
    double xs[3] = {0, 1, 2};
    const double a = 3.0, b = 2e-4, k = 1e4;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("osc", 3, xs, NULL);
    for (int i = 0; i < 6; i++)
        addM(s, i, i, 1.0 + 0.1 * i);
    if (variant != 2) spring(s, 0, -1, k);
    spring(s, 0, 2, 2 * k);
    spring(s, 2, 4, 3 * k);
    for (int i = 0; i < 3; i++)
        spring(s, 2 * i + 1, -1, k);
    add_ic(m, 0, 4, 1e-3, 0.0);
    add_probe(m, "u0", TVDS_PROBE_U, 0, 0);
    fixed_dt(m, 1e-3);
    if (variant == 0) {
        m->damping[0] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = a, .beta = b};
    } else if (variant == 1) {
        s->C = tvds_calloc(36, sizeof(double));
        for (int q = 0; q < 36; q++)
            s->C[q] = a * s->M[q] + b * s->K[q];
        m->damping[0].kind = TVDS_DAMP_MATRIX;
    } else {
        m->nel = 2;
        m->elements = tvds_calloc(2, sizeof(tvds_element));
        m->elements[0] = (tvds_element){.name = tvds_strdup("k0"),
                                        .kind = TVDS_EL_SPRING,
                                        .sub = {0, -1},
                                        .dof = {0, 0},
                                        .k = k};
        m->elements[1] = (tvds_element){.name = tvds_strdup("c02"),
                                        .kind = TVDS_EL_DAMPER,
                                        .sub = {0, 0},
                                        .dof = {0, 2},
                                        .b = 5.0};
    }
    return m;
}

START_TEST(test_damping_matrix_and_elements)
{
    tvds_model *m0 = damped_model(0), *m1 = damped_model(1), *m2 = damped_model(2);
    tvds_model *m3 = damped_model(0);
    /* m3: reference for m2, springs and damper in the matrices (physical path). */
    tvds_substructure *s3 = m3->subs[0];
    m3->damping[0] = (tvds_damping){0};
    s3->C = tvds_calloc(36, sizeof(double));
    s3->C[0] = s3->C[2 + 2 * 6] = 5.0;
    s3->C[2] = s3->C[2 * 6] = -5.0;
    m3->damping[0].kind = TVDS_DAMP_MATRIX;
    tvds_model *A[2] = {m0, m3}, *B[2] = {m1, m2};
    for (int c = 0; c < 2; c++) {
        tvds_ctx ctx;
        tvds_data *da = data_new(A[c], &ctx), *db = data_new(B[c], &ctx);
        double umax = 0.0, dmax = 0.0, u100 = 0.0;
        for (int k = 0; k < 2000; k++) {
            ck_assert_int_eq(tvds_step(A[c], da, &ctx), TVDS_OK);
            ck_assert_int_eq(tvds_step(B[c], db, &ctx), TVDS_OK);
            double a = ch(da, TVDS_GROUP_HISTORY, 1), b = ch(db, TVDS_GROUP_HISTORY, 1);
            if (fabs(a) > umax) umax = fabs(a);
            if (fabs(a - b) > dmax) dmax = fabs(a - b);
            if (k >= 1900 && fabs(a) > u100) u100 = fabs(a);
        }
        /* Same scheme: round-off agreement; and the damping acts (amplitude decays). */
        ck_assert_double_lt(dmax / umax, 1e-9);
        ck_assert_double_lt(u100, 0.5 * umax);
        tvds_data_free(&da);
        tvds_data_free(&db);
    }
    tvds_model_free(&m0);
    tvds_model_free(&m1);
    tvds_model_free(&m2);
    tvds_model_free(&m3);
}
END_TEST

/* ---- 3. Modal and physical paths ---------------------------------------------------------- */

START_TEST(test_modal_vs_physical)
{
    tvds_model *ma = chain_model(1, 1), *mb = chain_model(1, 0);
    tvds_model *ca = coulomb_model(TVDS_METHOD_SUBS_B, 1),
               *cb = coulomb_model(TVDS_METHOD_SUBS_B, 0);
    for (int i = 0; i < 2; i++) {
        ma->damping[i] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = 2.0, .beta = 1e-5};
        mb->damping[i] = ma->damping[i];
    }
    tvds_model *A[2] = {ma, ca}, *B[2] = {mb, cb};
    for (int c = 0; c < 2; c++) {
        tvds_ctx ctx;
        tvds_data *da = data_new(A[c], &ctx), *db = data_new(B[c], &ctx);
        double umax = 0.0, dmax = 0.0;
        for (int k = 0; k < 3000; k++) {
            ck_assert_int_eq(tvds_step(A[c], da, &ctx), TVDS_OK);
            ck_assert_int_eq(tvds_step(B[c], db, &ctx), TVDS_OK);
            double a = ch(da, TVDS_GROUP_HISTORY, 1), b = ch(db, TVDS_GROUP_HISTORY, 1);
            if (fabs(a) > umax) umax = fabs(a);
            if (fabs(a - b) > dmax) dmax = fabs(a - b);
        }
        ck_assert_double_lt(dmax / umax, 1e-9);
        tvds_data_free(&da);
        tvds_data_free(&db);
    }
    tvds_model_free(&ma);
    tvds_model_free(&mb);
    tvds_model_free(&ca);
    tvds_model_free(&cb);
}
END_TEST

/* ---- 5, 6. Rigid slave sliding along a flexible master ------------------------------------ */

#define NM 11
static const double SL_V = 0.1, SL_T = 0.2, SL_X0 = 0.02, SL_MS = 0.1, SL_G = 10.0;

/* Master: 11 nodes along x at y = 0, spacing 10 mm, on a Winkler foundation with axial and
 * shear springs between neighbours. Slave: one node of mass 0.1 kg pulled along x at 0.1 m/s
 * by an imposed motion, pressed by gravity, mu = 0.3. */
static tvds_model *slide_model(int method, double T, int modal)
{
    double xm[NM], x0 = SL_X0, y0 = 0.0;
    for (int i = 0; i < NM; i++)
        xm[i] = 0.01 * i;
    tvds_model *m = model_new(2);
    tvds_substructure *ms = m->subs[0] = sub_nodes("master", NM, xm, NULL);
    for (int i = 0; i < 2 * NM; i++)
        addM(ms, i, i, 0.01);
    for (int i = 0; i < NM; i++) {
        spring(ms, 2 * i + 1, -1, 2e4);
        spring(ms, 2 * i, -1, 1e3);
        if (i + 1 < NM) {
            spring(ms, 2 * i, 2 * i + 2, 5e4);
            spring(ms, 2 * i + 1, 2 * i + 3, 3e4);
        }
    }
    tvds_substructure *ss = m->subs[1] = sub_nodes("slider", 1, &x0, &y0);
    addM(ss, 0, 0, SL_MS);
    addM(ss, 1, 1, SL_MS);
    m->gravity[1] = -SL_G;
    /* Weight applied smoothly over 20 ms, so that the contact closes without an impact. */
    m->gravity_fn = (tvds_fn){.kind = TVDS_FN_SMOOTH_RAMP, .amp = 1.0, .t0 = 0.0, .t1 = 0.02};
    m->damping[0] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = 20.0, .beta = 1e-6};
    tvds_bilateral *b = add_bil(m, "drive", 1);
    b->terms[0] = (tvds_term){1, 0, 1.0};
    b->value = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = SL_V * 10.0, .t0 = 0.0, .t1 = 10.0};
    tvds_contact *c = add_contact(m, "slide", 1, 1);
    c->master_kind = TVDS_MASTER_SURFACE;
    c->master_sub = 0;
    c->nmaster = NM;
    c->master_nodes = tvds_calloc(NM, sizeof(long));
    for (int i = 0; i < NM; i++)
        c->master_nodes[i] = i + 1;
    c->mu_s = c->mu_k = 0.3;
    c->slave_kin[0] = b->value; /* subs-a: the prescribed sliding */
    add_ic(m, 1, 0, 0.0, SL_V);
    add_probe(m, "slider_x", TVDS_PROBE_U, 1, 0);
    add_probe(m, "slider_y", TVDS_PROBE_U, 1, 1);
    m->opt.method = method;
    m->opt.modal = modal;
    m->opt.t_end = T;
    return m;
}

START_TEST(test_slide_methods)
{
    /* _i < 4: straight segments; _i >= 4: the same on the C1 master curve, where every
     * invariant below holds as well (docs/theory.md, "C1 master surface"). */
    int method = _i % TVDS_METHOD_COUNT;
    tvds_model *m = slide_model(method, SL_T, 1);
    if (_i >= TVDS_METHOD_COUNT) m->contacts[0].master_kind = TVDS_MASTER_SURFACE_C1;
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int igap = ch_index(d, TVDS_GROUP_CONTACTS, "slide.gap [m]");
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "slide.p_friction [W]");
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "slide.lambda_n [N]");
    int is = ch_index(d, TVDS_GROUP_CONTACTS, "slide.s [m]");
    int ist = ch_index(d, TVDS_GROUP_CONTACTS, "slide.state [-]");
    double lnmax = 0.0;
    while (tvds_data_time(d) < m->opt.t_end) {
        int rc = tvds_step(m, d, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s: %s", tvds_method_name(method), ctx.msg);
        double t = ch(d, TVDS_GROUP_CONTACTS, 0);
        /* Non-penetration at t_{n+1}, friction dissipates. */
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, igap), -1e-15);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), -1e-12);
        double ln = ch(d, TVDS_GROUP_CONTACTS, iln);
        ck_assert_double_ge(ln, 0.0);
        if (ln > lnmax) lnmax = ln;
        /* Master and slider fall together at first; then the slider slides. */
        if (t > 0.03) ck_assert_int_eq((int)ch(d, TVDS_GROUP_CONTACTS, ist), TVDS_SLIP);
        if (method == TVDS_METHOD_SUBS_A) {
            /* 6: subs-a places the contact at the prescribed kinematic position exactly. The
             * contact geometry is that of t_{n+1}, the channels' time t_n. */
            ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, is),
                                    SL_X0 + SL_V * (t + tvds_data_dt(d)), 1e-15);
        }
    }
    ck_assert_double_gt(lnmax, 0.5 * SL_MS * SL_G);
    /* Energy balance: the only unbalanced term is the work of the normal constraint force on
     * the linearised gap, sum F_N (g_{n+1} - g_{n-1}) / 2 with the geometry frozen over the
     * step. With the surface slope changing by at most the deflection difference between
     * nodes over a segment, its sum is bounded by F_N times the static deflection (1 N x
     * 5e-5 m x 2 = 1e-4 J) against ~6e-3 J of imposed work: 2 %. */
    double bal = summary(d, "energy balance error [-]");
    ck_assert_msg(bal < 2e-2, "%s: balance error %g", tvds_method_name(method), bal);
    double pf = summary(d, "slide.mean p_friction [W]");
    /* Mean friction power ~ mu m g v = 0.03 W. */
    ck_assert_double_eq_tol(pf, 0.3 * SL_MS * SL_G * SL_V, 0.1 * 0.03);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* A slave node pulled along x over a fixed master whose 9 nodes lie on a circle (R = 50 mm,
 * 5 degrees apart, top of the circle), pressed by gravity, mu = 0.3. On straight segments the
 * slave's radius dips by the sagitta R (1 - cos(th/2)) = 4.8e-5 m at mid-segment and its normal
 * turns by th at each node; on the C1 curve (cubic Hermite, exact nodal normals of the circle)
 * it follows the circle to O(R th^4) (th = 0.087: R th^4 = 2.9e-6 m). On both the gap on the
 * curve itself, recomputed here from the slave position, stays closed, lambda_N >= 0 and the
 * friction power >= 0. The master is fixed by bilateral constraints, so that the rows' B_C
 * (the curve normal on the slave) is the exact gradient of the curved gap. */
START_TEST(test_slide_on_circle)
{
    enum { N = 9 };
    const double R = 0.05, th = 5.0 * PI / 180.0, v = 0.1, T = 0.15;
    /* Subs-b, Subs-c, FiLm. Subs-a is left out: it locates the contact at the prescribed
     * kinematic position of the slave (here a horizontal line at the start height), which on a
     * curved master is not where the slave is. */
    int method = 1 + _i % 3, c1 = _i >= 3;
    double xm[N], ym[N];
    for (int i = 0; i < N; i++) {
        /* Nodes from left to right: the surface normal n = t turned +90 degrees points up. */
        double p = PI / 2 - (i - N / 2) * th;
        xm[i] = R * cos(p);
        ym[i] = R * sin(p);
    }
    tvds_model *m = model_new(2);
    tvds_substructure *ms = m->subs[0] = sub_nodes("master", N, xm, ym);
    for (int i = 0; i < 2 * N; i++)
        addM(ms, i, i, 0.01);
    for (int i = 0; i < 2 * N; i++) {
        tvds_bilateral *b = add_bil(m, "fix", 1);
        b->terms[0] = (tvds_term){0, i, 1.0};
    }
    double x0 = xm[2], y0 = ym[2];
    tvds_substructure *ss = m->subs[1] = sub_nodes("slider", 1, &x0, &y0);
    addM(ss, 0, 0, SL_MS);
    addM(ss, 1, 1, SL_MS);
    m->gravity[1] = -SL_G;
    tvds_bilateral *b = add_bil(m, "drive", 1);
    b->terms[0] = (tvds_term){1, 0, 1.0};
    b->value = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = v * 10.0, .t0 = 0.0, .t1 = 10.0};
    tvds_contact *c = add_contact(m, "slide", 1, 1);
    c->master_kind = TVDS_MASTER_SURFACE;
    c->master_sub = 0;
    c->nmaster = N;
    c->master_nodes = tvds_calloc(N, sizeof(long));
    for (int i = 0; i < N; i++)
        c->master_nodes[i] = i + 1;
    c->mu_s = c->mu_k = 0.3;
    c->master_kind = c1 ? TVDS_MASTER_SURFACE_C1 : TVDS_MASTER_SURFACE;
    c->slave_kin[0] = b->value;
    add_ic(m, 1, 0, 0.0, v);
    add_probe(m, "slider_x", TVDS_PROBE_U, 1, 0);
    add_probe(m, "slider_y", TVDS_PROBE_U, 1, 1);
    m->opt.method = method;
    m->opt.t_end = T;
    /* FiLm's Gauss-Seidel needs up to about 240 sweeps here, with either surface: the drive
     * row and the stick trial's tangential row act on the slave's x through the tilted frame. */
    m->opt.film_maxit = 1000;
    fixed_dt(m, 1e-5);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "slide.p_friction [W]");
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "slide.lambda_n [N]");
    int iux = ch_index(d, TVDS_GROUP_HISTORY, "slider_x [m]");
    int iuy = ch_index(d, TVDS_GROUP_HISTORY, "slider_y [m]");
    double xy[2 * N], dr = 0.0, gmin = INFINITY;
    for (int i = 0; i < N; i++)
        xy[2 * i] = xm[i], xy[2 * i + 1] = ym[i];
    while (tvds_data_time(d) < T) {
        int rc = tvds_step(m, d, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s: %s", tvds_method_name(method), ctx.msg);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, iln), 0.0);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), -1e-12);
        if (tvds_data_time(d) < 0.02) continue; /* settling of the start */
        double Q[2] = {x0 + ch(d, TVDS_GROUP_HISTORY, iux), y0 + ch(d, TVDS_GROUP_HISTORY, iuy)};
        double r = hypot(Q[0], Q[1]);
        if (fabs(r - R) > dr) dr = fabs(r - R);
        int k = 0;
        while (k < N - 2 && Q[0] > xm[k + 1])
            k++;
        if (!c1) {
            double ex = xm[k + 1] - xm[k], ey = ym[k + 1] - ym[k], L = hypot(ex, ey);
            double g = (-ey * (Q[0] - xm[k]) + ex * (Q[1] - ym[k])) / L;
            if (g < gmin) gmin = g;
        } else {
            /* Signed distance to the curve: projection on the segment under the slave. */
            tvds_c1_seg sg;
            tvds_c1_segment(k > 0 ? xy + 2 * k - 2 : NULL, xy + 2 * k, xy + 2 * k + 2,
                            k + 2 < N ? xy + 2 * k + 4 : NULL, &sg);
            double xi = tvds_c1_project(&sg, Q, 0.5), x[2], t[2], n[2];
            tvds_c1_eval(&sg, xi, x, NULL, NULL);
            tvds_c1_frame(&sg, xi, t, n);
            double g = n[0] * (Q[0] - x[0]) + n[1] * (Q[1] - x[1]);
            if (g < gmin) gmin = g;
        }
    }
    /* The slider crossed 3 nodes. */
    ck_assert_double_gt(x0 + ch(d, TVDS_GROUP_HISTORY, iux), xm[5]);
    if (c1)
        ck_assert_msg(dr < R * pow(th, 4.0), "%s C1: radius off by %g m", tvds_method_name(method),
                      dr);
    else
        ck_assert_double_eq_tol(dr, R * (1.0 - cos(0.5 * th)), 0.02 * R * (1.0 - cos(0.5 * th)));
    /* Closed on the surface (curve or chords) to round-off of positions ~R; FiLm's projected
     * iteration alternates its multiplier from step to step on a fixed master (as on a rigid
     * plane), which leaves the slave one step of free fall, h^2 g, inside every other step,
     * with either surface. */
    double gtol = method == TVDS_METHOD_FILM ? 1e-10 * SL_G : 64.0 * DBL_EPSILON * R;
    ck_assert_msg(gmin > -gtol, "%s %s: gap %g m", tvds_method_name(method), c1 ? "C1" : "C0",
                  gmin);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_subs_b_vs_film)
{
    tvds_model *mb = slide_model(TVDS_METHOD_SUBS_B, SL_T, 1);
    tvds_model *mf = slide_model(TVDS_METHOD_FILM, SL_T, 1);
    tvds_ctx ctx;
    tvds_data *db = data_new(mb, &ctx), *df = data_new(mf, &ctx);
    double ymax = 0.0, dmax = 0.0;
    while (tvds_data_time(db) < SL_T) {
        ck_assert_int_eq(tvds_step(mb, db, &ctx), TVDS_OK);
        ck_assert_int_eq(tvds_step(mf, df, &ctx), TVDS_OK);
        double a = ch(db, TVDS_GROUP_HISTORY, 2), b = ch(df, TVDS_GROUP_HISTORY, 2);
        if (fabs(a) > ymax) ymax = fabs(a);
        if (fabs(a - b) > dmax) dmax = fabs(a - b);
    }
    /* Same geometry, same constraint; FiLm's Gauss-Seidel stops at film_tol = 1e-10
     * relative on the multipliers: agreement to 1e-8 of the deflection. */
    ck_assert_double_lt(dmax, 1e-8 * ymax);
    ck_assert_double_ge(summary(df, "film iterations mean [-]"), 1.0);
    tvds_data_free(&db);
    tvds_data_free(&df);
    tvds_model_free(&mb);
    tvds_model_free(&mf);
}
END_TEST

/* ---- 7. Invalid situations ---------------------------------------------------------------- */

START_TEST(test_contact_lost)
{
    tvds_model *m = slide_model(TVDS_METHOD_SUBS_B, 2.0, 1);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int rc = TVDS_OK;
    while (rc == TVDS_OK && tvds_data_time(d) < 2.0)
        rc = tvds_step(m, d, &ctx);
    ck_assert_int_eq(rc, TVDS_ERR_CONTACT_LOST);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "'slide'"));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "last node 11"));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "t = "));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "step "));
    /* About 0.8 s to reach x = 0.1 m from 0.02 m at 0.1 m/s. */
    ck_assert_double_eq_tol(tvds_data_time(d), 0.8, 0.01);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_singular_friction)
{
    /* A slave whose mass couples x and y: n M^-1 (n - chi mu t) < 0 for mu = 2 sliding in -x. */
    double x0 = 0.0, y0 = 0.0;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("block", 1, &x0, &y0);
    addM(s, 0, 0, 1.0);
    addM(s, 1, 1, 1.0);
    addM(s, 0, 1, 0.9);
    addM(s, 1, 0, 0.9);
    spring(s, 0, -1, 100.0);
    m->gravity[1] = -10.0;
    tvds_contact *c = add_contact(m, "pad", 0, 1);
    rigid_plane(c);
    c->mu_s = c->mu_k = 2.0;
    add_ic(m, 0, 0, 0.0, -1.0);
    fixed_dt(m, 1e-4);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_data *d = NULL;
    int rc = tvds_data_create(m, &d, &ctx);
    rc = steps_until_error(m, d, &ctx, rc, 10, NULL);
    ck_assert_int_eq(rc, TVDS_ERR_SINGULAR);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "'pad'"));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "t = "));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "step "));
    tvds_data_free(&d);
    /* With mu = 0.5 the same block slides. */
    m->contacts[0].mu_s = m->contacts[0].mu_k = 0.5;
    d = data_new(m, &ctx);
    steps_ok(m, d, &ctx, 10);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_divergence_and_unstable_dt)
{
    tvds_model *m = chain_model(0, 1);
    double dtc;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    m->opt.dt = 1.2 * dtc;
    tvds_data *d = NULL;
    ck_assert_int_eq(tvds_data_create(m, &d, &ctx), TVDS_ERR_UNSTABLE_DT);
    ck_assert_ptr_null(d);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "stability limit"));
    m->opt.allow_unstable_dt = 1;
    d = data_new(m, &ctx);
    long k;
    int rc = steps_until_error(m, d, &ctx, TVDS_OK, 100000, &k);
    ck_assert_int_eq(rc, TVDS_ERR_DIVERGED);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "step "));
    /* d keeps the last valid state: the step count stopped before the failed step. */
    ck_assert_int_eq(tvds_data_steps(d), k - 1);
    tvds_data_free(&d);
    /* A non-finite load is reported at once, naming the substructure. */
    m->opt.allow_unstable_dt = 0;
    m->opt.dt = 0.5 * dtc;
    m->loads[0].fn.amp = NAN;
    d = data_new(m, &ctx);
    rc = steps_until_error(m, d, &ctx, TVDS_OK, 10, NULL);
    ck_assert_int_eq(rc, TVDS_ERR_DIVERGED);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "'chain'"));
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

START_TEST(test_stable_dt_value)
{
    /* One mass-spring: 2 / w; with Rayleigh damping (2/w)(sqrt(1 + xi^2) - xi). */
    double x0 = 0.0;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("osc", 1, &x0, NULL);
    addM(s, 0, 0, 4.0);
    addM(s, 1, 1, 4.0);
    spring(s, 0, -1, 400.0); /* w = 10 */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double dtc;
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(dtc, 0.2, 1e-12);
    m->damping[0] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = 0.0, .beta = 0.02};
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    double xi = 0.5 * 0.02 * 10.0;
    ck_assert_double_eq_tol(dtc, 0.2 * (sqrt(1 + xi * xi) - xi), 1e-12);
    tvds_model_free(&m);
}
END_TEST

/* ---- 8. No allocation in tvds_step -------------------------------------------------------- */

START_TEST(test_no_alloc)
{
    for (int method = 0; method < TVDS_METHOD_COUNT; method++) {
        tvds_model *m = slide_model(method, SL_T, method % 2);
        tvds_ctx ctx;
        tvds_data *d = data_new(m, &ctx);
        long before = tvds_alloc_count();
        steps_ok(m, d, &ctx, 300);
        ck_assert_int_eq(tvds_alloc_count(), before);
        tvds_data_free(&d);
        tvds_model_free(&m);
    }
}
END_TEST

START_TEST(test_create_alloc_failure)
{
    /* Every allocation of tvds_data_create may fail: no leak (ASan), an error, NULL. */
    tvds_model *m = slide_model(TVDS_METHOD_FILM, SL_T, 1);
    for (long n = 0; n < 400; n++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_data *d = NULL;
        tvds_alloc_fail_after(n);
        int rc = tvds_data_create(m, &d, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) {
            tvds_data_free(&d);
            break;
        }
        ck_assert_int_eq(rc, TVDS_ERR_NOMEM);
        ck_assert_ptr_null(d);
    }
    tvds_model_free(&m);
}
END_TEST

/* ---- Penalty contact law --------------------------------------------------------------------- */

/* SDND100 modeling A or D on the rigid plane z = 0: law 0 Lagrange (gravity, exact stick),
 * 1 penalty (kn = 20, pen0 = 0.5: F_N = m g without gravity, uz blocked, kt = 4e7, dt = 1e-4).
 * relation: the bilateral cos45 ux - cos45 uy = 0. */
static tvds_model *sdnd100_model(int law, int relation, int modeling_d)
{
    tvds_model *m = model_new(1);
    m->subs[0] = shoe3d(1e4);
    tvds_contact *c = add_contact(m, "base", 0, 1);
    c->dim = 3;
    c->master_kind = TVDS_MASTER_RIGID;
    c->rigid_normal[2] = 1.0;
    c->rigid_t1[0] = 1.0;
    c->mu_s = c->mu_k = 0.1;
    if (modeling_d) {
        c->anisotropic = 1;
        c->mu_axis[0] = 0.1;
    }
    const double c45 = 0.70710678118654752;
    if (law == 1) {
        c->law = TVDS_LAW_PENALTY;
        c->exact_stick = 0;
        c->kn = 20.0;
        c->pen0 = 0.5;
        c->kt = 4e7;
        tvds_bilateral *b = add_bil(m, "fix_z", 1);
        b->terms[0] = (tvds_term){.sub = 0, .dof = 2, .coef = 1.0};
    } else {
        m->gravity[2] = -10.0;
    }
    if (relation) {
        tvds_bilateral *b = add_bil(m, "theta", 2);
        b->terms[0] = (tvds_term){.sub = 0, .dof = 0, .coef = c45};
        b->terms[1] = (tvds_term){.sub = 0, .dof = 1, .coef = -c45};
    }
    double r0 = 0.85e-3 * c45;
    add_ic(m, 0, 0, r0, 0.0);
    add_ic(m, 0, 1, r0, 0.0);
    add_probe(m, "dy", TVDS_PROBE_U, 0, 1);
    m->opt.method = TVDS_METHOD_SUBS_B;
    m->opt.modal = 1;
    fixed_dt(m, law == 1 ? 1e-4 : 1e-5);
    return m;
}

/* Static penalty contact: uz held by a bilateral, so the penetration stays pen0 and
 * F_N = kn pen0 exactly at every step, with no tangential force and a sticking state. */
START_TEST(test_penalty_static)
{
    tvds_model *m = sdnd100_model(1, 0, 0);
    m->ics[0].u0 = m->ics[1].u0 = 0.0;
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "base.lambda_n [N]");
    int ilt = ch_index(d, TVDS_GROUP_CONTACTS, "base.lambda_t [N]");
    int ist = ch_index(d, TVDS_GROUP_CONTACTS, "base.state [-]");
    int igp = ch_index(d, TVDS_GROUP_CONTACTS, "base.gap [m]");
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, iln), 20.0 * 0.5, 1e-12);
    long before = tvds_alloc_count();
    for (int k = 0; k < 200; k++) {
        ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, iln), 10.0, 1e-12);
        ck_assert_double_eq(ch(d, TVDS_GROUP_CONTACTS, ilt), 0.0);
        ck_assert_int_eq((int)ch(d, TVDS_GROUP_CONTACTS, ist), TVDS_STICK);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, igp), -0.5, 1e-15);
        ck_assert_double_eq(ch(d, TVDS_GROUP_HISTORY, 1), 0.0);
    }
    ck_assert_int_eq(tvds_alloc_count(), before);
    tvds_data_free(&d);
    tvds_model_free(&m);

    /* A mass pressed by gravity on a damped penalty plane settles at F_N = m g, penetration
     * m g / kn (pen0 = 0, critical normal damping cn = 2 sqrt(kn m)). */
    m = sdnd100_model(1, 0, 0);
    m->nbil = 0; /* free uz (the model frees the bilateral) */
    m->gravity[2] = -10.0;
    m->contacts[0].pen0 = 0.0;
    m->contacts[0].kn = 1e4;
    m->contacts[0].cn = 200.0;
    m->ics[0].u0 = m->ics[1].u0 = 0.0;
    d = data_new(m, &ctx);
    steps_ok(m, d, &ctx, 5000);
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, iln), 10.0, 1e-6);
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_CONTACTS, igp), -1e-3, 1e-9);
    tvds_data_free(&d);
    m->nbil = 1;
    tvds_model_free(&m);
}
END_TEST

/* DY of SDND100 sampled at t = n pi / 100 (nearest step; the time offset <= dt/2 changes DY by
 * r w^2 (dt/2)^2 / 2 < 2e-6 relative at the extremum). Returns the number of extrema read. */
static int sdnd100_extrema(tvds_model *m, double dy[4], double *bal, double *pfmin)
{
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "base.p_friction [W]");
    double h = tvds_data_dt(d);
    int next = 1;
    *pfmin = INFINITY;
    while (next <= 4) {
        ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
        double t = ch(d, TVDS_GROUP_HISTORY, 0);
        double pf = ch(d, TVDS_GROUP_CONTACTS, ipf);
        if (pf < *pfmin) *pfmin = pf;
        if (fabs(t - next * PI / 100.0) <= 0.5 * h) dy[next++ - 1] = ch(d, TVDS_GROUP_HISTORY, 1);
    }
    *bal = summary(d, "energy balance error [-]");
    tvds_data_free(&d);
    return next - 1;
}

/* SDND100 modelings A and D with the penalty law: Code_Aster's tolerances on the extrema
 * (1e-3, 5e-3 on the last: the series spring kt shifts each stop by about mu m g / kt). The
 * penalty forces act at t_n like element forces, so the energy identity holds to round-off. */
START_TEST(test_penalty_sdnd100)
{
    int d_mod = _i;
    tvds_model *m = sdnd100_model(1, 1, d_mod);
    double dy[4], bal, pfmin;
    ck_assert_int_eq(sdnd100_extrema(m, dy, &bal, &pfmin), 4);
    /* Drop of r per half cycle 2 red: 2 mu m g / k (A), sqrt(2) mu m g / k (D). */
    double red = d_mod ? 0.70710678118654752e-4 : 1e-4, c45 = 0.70710678118654752;
    for (int n = 1; n <= 4; n++) {
        double ref = (n % 2 ? -1.0 : 1.0) * (0.85e-3 - 2 * n * red) * c45;
        if (!d_mod && n == 4) ref = 0.05e-3 * c45;
        ck_assert_double_eq_tol(dy[n - 1], ref, (n == 4 ? 5e-3 : 1e-3) * fabs(ref));
    }
    ck_assert_double_ge(pfmin, 0.0);
    ck_assert_double_lt(bal, 1e-9);
    tvds_model_free(&m);
}
END_TEST

/* ---- Redundant constraints ------------------------------------------------------------------- */

/* SDND100 modeling A (Lagrange, exact stick) with the relation cos45 ux - cos45 uy = 0: once the
 * shoe sticks the stick rows already hold ux and uy, so W is singular but consistent. The
 * motion is the one without the relation (the isotropic problem stays on the line), to round-off,
 * and the engine reports how many steps were solved as rank-deficient. */
START_TEST(test_redundant_constraints)
{
    tvds_model *ma = sdnd100_model(0, 1, 0), *mb = sdnd100_model(0, 0, 0);
    tvds_ctx ctx;
    tvds_data *da = data_new(ma, &ctx), *db = data_new(mb, &ctx);
    double dmax = 0.0, umax = 0.0;
    for (int k = 0; k < 13000; k++) {
        ck_assert_msg(tvds_step(ma, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(tvds_step(mb, db, &ctx), TVDS_OK);
        double a = ch(da, TVDS_GROUP_HISTORY, 1), b = ch(db, TVDS_GROUP_HISTORY, 1);
        if (fabs(a) > umax) umax = fabs(a);
        if (fabs(a - b) > dmax) dmax = fabs(a - b);
    }
    ck_assert_double_lt(dmax, 1e-9 * umax);
    /* It stopped at 0.05 mm along theta and stays there. */
    ck_assert_double_eq_tol(ch(da, TVDS_GROUP_HISTORY, 1), 0.05e-3 * 0.70710678118654752,
                            1e-3 * 0.05e-3);
    ck_assert_double_gt(summary(da, "redundant constraint solves [-]"), 100.0);
    ck_assert_double_eq(summary(db, "redundant constraint solves [-]"), 0.0);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&ma);
    tvds_model_free(&mb);

    /* Redundant AND inconsistent: ux = 0 and 2 ux = 1e-3 cannot both hold. */
    tvds_model *m = sdnd100_model(0, 0, 0);
    tvds_bilateral *b1 = add_bil(m, "ux0", 1);
    b1->terms[0] = (tvds_term){.sub = 0, .dof = 0, .coef = 1.0};
    tvds_bilateral *b2 = add_bil(m, "ux1", 1);
    b2->terms[0] = (tvds_term){.sub = 0, .dof = 0, .coef = 2.0};
    b2->value = (tvds_fn){.kind = TVDS_FN_CONST, .amp = 1e-3};
    tvds_data *d = NULL;
    int rc = tvds_data_create(m, &d, &ctx);
    rc = steps_until_error(m, d, &ctx, rc, 10, NULL);
    ck_assert_int_eq(rc, TVDS_ERR_SINGULAR);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "inconsistent"));
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- ElasticFriction element through the engine ------------------------------------------- */

/* Closed form of the belt-driven stick-slip oscillator for a rigid contact (docs/validation.md):
 * mass 1 kg, spring K = 100 N/m to ground, belt speed V = 0.1 m/s, Fst = 2 N, Fsl = 1 N. */
static double belt_x(double t)
{
    const double K = 100.0, V = 0.1, Fst = 2.0, Fsl = 1.0, w = 10.0;
    double ts = Fst / (K * V); /* end of the first stick */
    if (t <= ts) return V * t;
    double A = (Fst - Fsl) / K, tslip = (2.0 * PI - 2.0 * atan(A * w / V)) / w;
    double tstick = 2.0 * A / V, per = tslip + tstick;
    double s = fmod(t - ts, per);
    if (s <= tslip) return Fsl / K + A * cos(w * s) + (V / w) * sin(w * s);
    double xe = Fsl / K + A * cos(w * tslip) + (V / w) * sin(w * tslip);
    return xe + V * (s - tslip);
}

START_TEST(test_elastic_friction_element)
{
    double xs[2] = {0, 1};
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("belt", 2, xs, NULL);
    for (int i = 0; i < 4; i++)
        addM(s, i, i, 1.0);
    spring(s, 0, -1, 100.0);
    spring(s, 1, -1, 100.0);
    spring(s, 3, -1, 100.0);
    tvds_bilateral *b = add_bil(m, "drive", 1);
    b->terms[0] = (tvds_term){.sub = 0, .dof = 2, .coef = 1.0};
    b->value = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 0.2, .t0 = 0.0, .t1 = 2.0};
    add_ic(m, 0, 0, 0.0, 0.1);
    add_ic(m, 0, 2, 0.0, 0.1);
    add_probe(m, "x", TVDS_PROBE_U, 0, 0);
    m->nel = 1;
    m->elements = tvds_calloc(1, sizeof(tvds_element));
    m->elements[0] = (tvds_element){.name = tvds_strdup("friction"),
                                    .kind = TVDS_EL_ELASTIC_FRICTION,
                                    .sub = {0, 0},
                                    .dof = {0, 2},
                                    .k = 1e6,
                                    .b = 2000.0,
                                    .kindF = TVDS_EF_STICK_SLIP,
                                    .Fst = {.kind = TVDS_FN_CONST, .amp = 2.0},
                                    .Fsl = {.kind = TVDS_FN_CONST, .amp = 1.0},
                                    .eps_tau = 0.01};
    fixed_dt(m, 1e-5);
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int ifi = ch_index(d, TVDS_GROUP_HISTORY, "friction.Fi [N]");
    int isf = ch_index(d, TVDS_GROUP_HISTORY, "friction.sf [-]");
    int idx = ch_index(d, TVDS_GROUP_HISTORY, "friction.dx [m]");
    int ipl = ch_index(d, TVDS_GROUP_HISTORY, "friction.Pl [W]");
    int ied = ch_index(d, TVDS_GROUP_ENERGY, "element dissipation [J]");
    /* Compliance error: about (Fst/k)(1 + (V + R w)/V) = 7e-6 m against x ~ 1e-2 m. */
    const double tq[4] = {0.3, 0.45, 0.8, 0.95};
    int q = 0, nstick = 0, nslide = 0;
    double diss = 0.0;
    for (long k = 0; k < 100000; k++) {
        ck_assert_int_eq(tvds_step(m, d, &ctx), TVDS_OK);
        double t = ch(d, TVDS_GROUP_HISTORY, 0);
        int sf = (int)ch(d, TVDS_GROUP_HISTORY, isf);
        double Fi = ch(d, TVDS_GROUP_HISTORY, ifi);
        if (sf == 0) {
            nstick++;
            ck_assert_double_le(fabs(Fi), 2.0 * (1.0 + 1e-12));
        } else {
            nslide++;
            ck_assert_double_eq_tol(fabs(Fi), 1.0, 1e-12);
        }
        ck_assert_double_ge(ch(d, TVDS_GROUP_HISTORY, ipl), -1e-12);
        ck_assert_double_eq_tol(ch(d, TVDS_GROUP_HISTORY, idx),
                                ch(d, TVDS_GROUP_HISTORY, 1) - 0.1 * t, 1e-12);
        if (q < 4 && fabs(t - tq[q]) < 0.5e-5) {
            double ref = belt_x(tq[q]);
            ck_assert_double_eq_tol(ch(d, TVDS_GROUP_HISTORY, 1), ref, 1e-3 * fabs(ref));
            q++;
        }
    }
    ck_assert_int_eq(q, 4);
    ck_assert_int_gt(nstick, 1000);
    ck_assert_int_gt(nslide, 1000);
    /* Energy: the element's dissipation is within the element work, so the balance identity
     * holds to the round-off accumulated over 1e5 steps (an O(h) inconsistency of the force
     * instants would show as ~1e-3); the element dissipates energy. */
    diss = ch(d, TVDS_GROUP_ENERGY, ied);
    ck_assert_double_gt(diss, 0.0);
    ck_assert_double_lt(summary(d, "energy balance error [-]"), 1e-7);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* Rigid stick-slip ElasticFriction (stick row, docs/theory.md 8.2) on the case file
 * models/shoe/ef_belt.ini with rigid = true, dt = 1e-5, against the rigid closed form at every
 * step to t = 0.95 s (two stick-slip cycles). The events are located to within one step, in
 * which the relative motion differs by at most V h = 1e-6 m (the belt speed over one step,
 * the largest relative velocity at the events): |x - x_ref| <= V h at every step. While
 * sticking the row holds du to round-off per step with |Fi| <= Fst; while sliding
 * Fi = +-Fsl exactly and the friction power is >= 0. */
START_TEST(test_elastic_friction_rigid)
{
    const char *ov[] = {"element.friction.rigid=true", "run.t_end=0.95"};
    tvds_model *m = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_case_read("models/shoe/ef_belt.ini", ov, 2, &m, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    ck_assert_int_eq(m->elements[0].rigid, 1);
    tvds_data *d = data_new(m, &ctx);
    double h = tvds_data_dt(d);
    ck_assert_double_eq(h, 1e-5);
    int ix = ch_index(d, TVDS_GROUP_HISTORY, "x [m]");
    int ifi = ch_index(d, TVDS_GROUP_HISTORY, "friction.Fi [N]");
    int isf = ch_index(d, TVDS_GROUP_HISTORY, "friction.sf [-]");
    int idx = ch_index(d, TVDS_GROUP_HISTORY, "friction.dx [m]");
    int ipl = ch_index(d, TVDS_GROUP_HISTORY, "friction.Pl [W]");
    ck_assert(ix >= 0 && ifi >= 0 && isf >= 0 && idx >= 0 && ipl >= 0);
    const double V = 0.1, Fst = 2.0, Fsl = 1.0;
    int nstick = 0, nslide = 0, nrel = 0, sf_old = 0;
    double dx_old = NAN, emax = 0.0;
    for (long k = 0; k < 95000; k++) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        double t = ch(d, TVDS_GROUP_HISTORY, 0), x = ch(d, TVDS_GROUP_HISTORY, ix);
        double e = fabs(x - belt_x(t));
        if (e > emax) emax = e;
        ck_assert_msg(e <= V * h, "t = %.6f: x = %.9g, closed form %.9g", t, x, belt_x(t));
        int sf = (int)ch(d, TVDS_GROUP_HISTORY, isf);
        double Fi = ch(d, TVDS_GROUP_HISTORY, ifi), dx = ch(d, TVDS_GROUP_HISTORY, idx);
        if (sf == 0) {
            nstick++;
            ck_assert_double_le(fabs(Fi), Fst);
            /* dx is published at t_n: two sticking steps in a row keep it to the round-off of
             * the displacements it is the difference of (x and the belt's V t). */
            if (sf_old == 0 && k > 1)
                ck_assert_double_le(fabs(dx - dx_old), 16.0 * DBL_EPSILON * (fabs(x) + V * t));
        } else {
            nslide++;
            ck_assert_double_eq(fabs(Fi), Fsl);
            if (sf_old == 0) nrel++;
        }
        ck_assert_double_ge(ch(d, TVDS_GROUP_HISTORY, ipl), 0.0);
        sf_old = sf;
        dx_old = dx;
    }
    /* Releases at 0.2 s and 0.8712 s: two stick-slip cycles. */
    ck_assert_int_eq(nrel, 2);
    ck_assert_int_gt(nstick, 30000);
    ck_assert_int_gt(nslide, 30000);
    ck_assert_double_gt(emax, 0.0);
    ck_assert_double_lt(summary(d, "energy balance error [-]"), 1e-7);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* SDND100 modeling B with FiLm (models/shoe/sdnd100b.ini): the plane is a blocked 2-node
 * substructure under gravity, so in the prediction it falls with the shoe and the predicted gap
 * is a difference of positions at round-off level. FiLm keeps the point in its iteration
 * unless it is open beyond round-off (docs/theory.md 7), so the normal force is steady:
 * lambda_N = m g = 10 N at every step after the start, to the round-off of the positions it
 * corrects (a few ulps of L = |X| = 0.0142 m, over h^2/m): 4 eps L m / h^2 = 1.3e-7 N. It was
 * 0 / 30 / 10 / 0 N in turn when the open test used the sign of the predicted gap. The
 * trajectory is the one of subs-b (its active-set check of corrected gaps). */
START_TEST(test_film_sdnd100b_normal_force)
{
    const char *ov[2][2] = {{"run.method=film", "run.t_end=0.06"},
                            {"run.method=subs-b", "run.t_end=0.06"}};
    double dy_end[2] = {0, 0};
    for (int q = 0; q < 2; q++) {
        tvds_model *m = NULL;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_case_read("models/shoe/sdnd100b.ini", ov[q], 2, &m, &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        tvds_data *d = data_new(m, &ctx);
        double h = tvds_data_dt(d), L = 0.01 * sqrt(2.0), mg = 10.0;
        double tol = 4.0 * DBL_EPSILON * L * 1.0 / (h * h);
        int iln = ch_index(d, TVDS_GROUP_CONTACTS, "base.lambda_n [N]");
        int idy = ch_index(d, TVDS_GROUP_HISTORY, "dy [m]");
        ck_assert(iln >= 0 && idy >= 0);
        long n = lround(0.06 / h);
        for (long k = 0; k < n; k++) {
            ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
            double l = ch(d, TVDS_GROUP_CONTACTS, iln);
            ck_assert_msg(fabs(l - mg) <= tol, "%s step %ld: lambda_n = %.12g", ov[q][0], k, l);
        }
        dy_end[q] = ch(d, TVDS_GROUP_HISTORY, idy);
        tvds_data_free(&d);
        tvds_model_free(&m);
    }
    /* Same trajectory (both methods solve the same constraints exactly at every step). */
    ck_assert_double_eq_tol(dy_end[0], dy_end[1], 1e-12);
}
END_TEST

/* A point predicted open and activated by the direct solve's check of corrected gaps slides
 * in the direction of its predicted relative velocity, which the detection leaves to the solve
 * for an open point (sim_cp_vkin). SDND100 B: the plane falls with the shoe in the prediction, so
 * the point is often predicted open by round-off and activated by the solve; at t = 0.0628 s
 * such a step decides stick or slip. Subs-b then follows FiLm (which holds the point in its
 * iteration and decides in it) step for step: the same state at every step and the same shoe
 * displacement to 1e-12 m up to t = 0.07 s. With the velocity left stale the state differs at
 * that step (slip at -1 N instead of stick) and dy by 1.7e-7 m after it. */
START_TEST(test_activated_point_direction)
{
    const char *ov[2][2] = {{"run.method=subs-b", "run.t_end=0.07"},
                            {"run.method=film", "run.t_end=0.07"}};
    tvds_model *m[2];
    tvds_data *d[2];
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int q = 0; q < 2; q++) {
        m[q] = NULL;
        ck_assert_msg(tvds_case_read("models/shoe/sdnd100b.ini", ov[q], 2, &m[q], &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        d[q] = data_new(m[q], &ctx);
    }
    int ist = ch_index(d[0], TVDS_GROUP_CONTACTS, "base.state [-]");
    int idy = ch_index(d[0], TVDS_GROUP_HISTORY, "dy [m]");
    ck_assert(ist >= 0 && idy >= 0);
    long n = lround(0.07 / tvds_data_dt(d[0])), nstick = 0;
    for (long k = 0; k < n; k++) {
        for (int q = 0; q < 2; q++)
            ck_assert_msg(tvds_step(m[q], d[q], &ctx) == TVDS_OK, "%s", ctx.msg);
        double s0 = ch(d[0], TVDS_GROUP_CONTACTS, ist), s1 = ch(d[1], TVDS_GROUP_CONTACTS, ist);
        ck_assert_msg(s0 == s1, "step %ld: state %g (subs-b) against %g (FiLm)", k, s0, s1);
        double y0 = ch(d[0], TVDS_GROUP_HISTORY, idy), y1 = ch(d[1], TVDS_GROUP_HISTORY, idy);
        ck_assert_msg(fabs(y0 - y1) <= 1e-12, "step %ld: dy %.17g (subs-b) against %.17g (FiLm)", k,
                      y0, y1);
        nstick += s0 == TVDS_STICK;
    }
    ck_assert_int_gt(nstick, 0);
    for (int q = 0; q < 2; q++) {
        tvds_data_free(&d[q]);
        tvds_model_free(&m[q]);
    }
}
END_TEST

/* Deferred probes (tvds_set_record, tvds_channels_update): SDND100 B with displacement,
 * velocity and acceleration probes of the shoe. Run three data sets side by side: every step
 * (default), on demand (every = 0) and every 7 steps. The time column and the other groups are
 * the same at every step. The probes are the same (bit for bit) after tvds_channels_update, and
 * at every 7th step without it; after a failed step, tvds_channels_update still gives those of
 * the last successful step (x_{n-1} is kept in a fourth buffer). */
START_TEST(test_deferred_probes)
{
    tvds_model *m = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_case_read("models/shoe/sdnd100b.ini", NULL, 0, &m, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    ck_assert_int_eq(m->nprobe, 1);
    add_probe(m, "vy", TVDS_PROBE_V, m->probes[0].sub, m->probes[0].dof);
    add_probe(m, "ay", TVDS_PROBE_A, m->probes[0].sub, m->probes[0].dof);
    tvds_data *d[4];
    for (int i = 0; i < 4; i++)
        d[i] = data_new(m, &ctx);
    ck_assert_int_eq(tvds_set_record(NULL, 1), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_set_record(d[1], -1), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_channels_update(NULL, d[1]), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_set_record(d[1], 0), TVDS_OK);
    ck_assert_int_eq(tvds_set_record(d[2], 7), TVDS_OK);
    int nh, ne;
    const double *hv[4], *cv[4], *ev[4];
    for (int i = 0; i < 4; i++) {
        tvds_channels(d[i], TVDS_GROUP_HISTORY, &nh, NULL, &hv[i]);
        tvds_channels(d[i], TVDS_GROUP_CONTACTS, NULL, NULL, &cv[i]);
        tvds_channels(d[i], TVDS_GROUP_ENERGY, &ne, NULL, &ev[i]);
    }
    int ik = ch_index(d[0], TVDS_GROUP_ENERGY, "kinetic [J]");
    int ib = ch_index(d[0], TVDS_GROUP_ENERGY, "balance error [J]");
    int iw = ch_index(d[0], TVDS_GROUP_ENERGY, "damping dissipation [J]");
    ck_assert_int_eq(nh, 4); /* t, dy, vy, ay */
    int nstale = 0;
    for (long k = 0; k < 300; k++) {
        /* d[3] publishes every step, then every 5 from step 101 on (a period set mid-run:
         * the count of steps done, not of steps since the call). */
        if (k == 101) ck_assert_int_eq(tvds_set_record(d[3], 5), TVDS_OK);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(tvds_step(m, d[i], &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_double_eq(hv[1][0], hv[0][0]); /* t */
        ck_assert_double_eq(hv[2][0], hv[0][0]);
        if (k < 101 || (k + 1) % 5 == 0)
            for (int j = 1; j < nh; j++)
                ck_assert_double_eq(hv[3][j], hv[0][j]);
        /* The summary, published on demand: the step and time of the published channels,
         * the window means whatever the period. */
        ck_assert_double_eq(summary(d[0], "steps [-]"), (double)k);
        ck_assert_double_eq(summary(d[0], "t [s]"), hv[0][0]);
        ck_assert_double_eq(summary(d[2], "steps [-]"), (double)k);
        ck_assert_double_eq(summary(d[2], "base.mean p_friction [W]"),
                            summary(d[0], "base.mean p_friction [W]"));
        ck_assert_double_eq(cv[1][1], cv[0][1]); /* lambda_n */
        /* The work integrals at every step, the energies with the probes. */
        ck_assert_double_eq(ev[1][iw], ev[0][iw]);
        ck_assert_double_eq(ev[2][iw], ev[0][iw]);
        if ((k + 1) % 7 == 0) {
            for (int j = 1; j < nh; j++)
                ck_assert_double_eq(hv[2][j], hv[0][j]);
            ck_assert_double_eq(ev[2][ik], ev[0][ik]);
            ck_assert_double_eq(ev[2][ib], ev[0][ib]);
        }
        if (hv[1][1] != hv[0][1]) nstale++;
        if (k % 10 == 3) {
            ck_assert_int_eq(tvds_channels_update(m, d[1]), TVDS_OK);
            ck_assert_int_eq(tvds_channels_update(m, d[2]), TVDS_OK);
            for (int j = 1; j < nh; j++) {
                ck_assert_double_eq(hv[1][j], hv[0][j]);
                ck_assert_double_eq(hv[2][j], hv[0][j]);
            }
            for (int j = 1; j < ne; j++) {
                ck_assert_double_eq(ev[1][j], ev[0][j]);
                ck_assert_double_eq(ev[2][j], ev[0][j]);
            }
        }
    }
    ck_assert_int_gt(nstale, 100); /* the deferral does defer */
    /* One more step, then a step that fails after its predictor has written x_new (a
     * non-finite gravity scale): the deferred probes are those of the last successful step. */
    ck_assert_int_eq(tvds_step(m, d[0], &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_step(m, d[1], &ctx), TVDS_OK);
    ck_assert(hv[1][3] != hv[0][3]); /* stale acceleration */
    tvds_fn g = m->gravity_fn;
    m->gravity_fn.kind = TVDS_FN_CONST;
    m->gravity_fn.amp = m->gravity_fn.offset = NAN;
    ck_assert_int_eq(tvds_step(m, d[1], &ctx), TVDS_ERR_DIVERGED);
    m->gravity_fn = g;
    ck_assert_int_eq(tvds_channels_update(m, d[1]), TVDS_OK);
    for (int j = 0; j < nh; j++)
        ck_assert_double_eq(hv[1][j], hv[0][j]);
    /* The summary's balance error: the largest over the evaluated steps, at most that of the
     * every-step run. */
    ck_assert_int_eq(tvds_channels_update(m, d[1]), TVDS_OK);
    ck_assert_double_le(summary(d[1], "energy balance error [-]"),
                        summary(d[0], "energy balance error [-]"));
    for (int i = 0; i < 4; i++)
        tvds_data_free(&d[i]);
    tvds_model_free(&m);
}
END_TEST

/* ---- Local contact search ------------------------------------------------------------------ */

/* The segment search walks from the last segment and evaluates u* only at the nodes it visits
 * (cached per state buffer). Over 0.6 s the slider crosses 6 segments of the flexible master;
 * the history must equal the one of a full nearest-segment scan of the surface at every step
 * (reference path d->check.search_global), for subs-b and subs-c. */
START_TEST(test_local_search)
{
    int method = _i == 0 ? TVDS_METHOD_SUBS_B : TVDS_METHOD_SUBS_C;
    tvds_model *m = slide_model(method, 0.6, 1);
    tvds_ctx ctx;
    tvds_data *da = data_new(m, &ctx), *db = data_new(m, &ctx);
    db->check.search_global = 1;
    int iseg = ch_index(da, TVDS_GROUP_CONTACTS, "slide.segment [-]");
    int iln = ch_index(da, TVDS_GROUP_CONTACTS, "slide.lambda_n [N]");
    int seg0 = -1, seg1 = -1;
    double dmax = 0.0, ymax = 0.0, lmax = 0.0, dl = 0.0;
    while (tvds_data_time(da) < m->opt.t_end) {
        ck_assert_int_eq(tvds_step(m, da, &ctx), TVDS_OK);
        ck_assert_int_eq(tvds_step(m, db, &ctx), TVDS_OK);
        int sa = (int)ch(da, TVDS_GROUP_CONTACTS, iseg),
            sb = (int)ch(db, TVDS_GROUP_CONTACTS, iseg);
        ck_assert_int_eq(sa, sb);
        if (seg0 < 0) seg0 = sa;
        seg1 = sa;
        double ya = ch(da, TVDS_GROUP_HISTORY, 2), yb = ch(db, TVDS_GROUP_HISTORY, 2);
        if (fabs(ya) > ymax) ymax = fabs(ya);
        if (fabs(ya - yb) > dmax) dmax = fabs(ya - yb);
        double la = ch(da, TVDS_GROUP_CONTACTS, iln), lb = ch(db, TVDS_GROUP_CONTACTS, iln);
        if (fabs(la) > lmax) lmax = fabs(la);
        if (fabs(la - lb) > dl) dl = fabs(la - lb);
    }
    ck_assert_int_ge(seg1 - seg0, 5);
    ck_assert_double_le(dmax, 1e-12 * ymax);
    ck_assert_double_le(dl, 1e-12 * lmax);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&m);
}
END_TEST

/* Every channel of every group of da and db bit for bit after step k. */
static void channels_identical(const tvds_data *da, const tvds_data *db, long k)
{
    for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
        int na, nb;
        const double *va, *vb;
        tvds_channels(da, g, &na, NULL, &va);
        tvds_channels(db, g, &nb, NULL, &vb);
        ck_assert_int_eq(na, nb);
        for (int j = 0; j < na; j++)
            ck_assert_msg(memcmp(&va[j], &vb[j], sizeof(double)) == 0,
                          "step %ld group %d channel %d: %.17g vs %.17g", k, g, j, va[j], vb[j]);
    }
}

/* The run options run.search = scan and run.reuse = off select the reference paths
 * (tvds_data.check) and, on the sliding model, give every channel bit for bit at every step. */
START_TEST(test_reference_path_options)
{
    tvds_model *m = slide_model(TVDS_METHOD_SUBS_B, 0.3, 1);
    tvds_ctx ctx;
    tvds_data *da = data_new(m, &ctx);
    ck_assert(!da->check.search_global && !da->check.reuse_off);
    m->opt.search = TVDS_SEARCH_SCAN;
    m->opt.reuse_off = 1;
    tvds_data *db = data_new(m, &ctx);
    ck_assert(db->check.search_global && db->check.reuse_off);
    ck_assert(!db->check.rows_dense && !db->check.flush_off && !db->check.geometry_table);
    long k = 0;
    for (; tvds_data_time(da) < m->opt.t_end; k++) {
        ck_assert_msg(tvds_step(m, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        channels_identical(da, db, k);
    }
    ck_assert_int_gt(k, 100);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&m);
}
END_TEST

/* Two rows, the step's common size, take the written-out LU (lu2_factor): on a singular W (the
 * same constraint twice, ux = 0 and 2 ux = 0, on a loaded mass) it must hand over to the
 * rank-revealing solve as the general band LU does. Every channel at every step equals the run
 * through the general loops (reference path check.reuse_off), the motion equals the one with the
 * relation once, ux stays 0, and two rows that contradict each other (ux = 0, 2 ux = 1e-3) are
 * reported as inconsistent. */
START_TEST(test_two_rows_redundant)
{
    tvds_model *m[3];
    for (int v = 0; v < 3; v++) {
        m[v] = model_new(1);
        m[v]->subs[0] = shoe3d(1e4);
        fixed_dt(m[v], 1e-4);
        add_load(m[v], 0, 0, (tvds_fn){.kind = TVDS_FN_HARMONIC, .amp = 1.0, .freq = 20.0});
        add_load(m[v], 0, 1, (tvds_fn){.kind = TVDS_FN_HARMONIC, .amp = 2.0, .freq = 13.0});
        tvds_bilateral *b = add_bil(m[v], "ux", 1);
        b->terms[0] = (tvds_term){.sub = 0, .dof = 0, .coef = 1.0};
        if (v == 1) continue;
        b = add_bil(m[v], "ux twice", 1);
        b->terms[0] = (tvds_term){.sub = 0, .dof = 0, .coef = 2.0};
        if (v == 2) b->value = (tvds_fn){.kind = TVDS_FN_CONST, .amp = 1e-3};
    }
    tvds_ctx ctx;
    tvds_data *da = data_new(m[0], &ctx), *db = data_new(m[0], &ctx), *d1 = data_new(m[1], &ctx);
    db->check.reuse_off = 1;
    double dmax = 0.0, umax = 0.0, uxmax = 0.0;
    for (long k = 0; k < 2000; k++) {
        ck_assert_msg(tvds_step(m[0], da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m[0], db, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m[1], d1, &ctx) == TVDS_OK, "%s", ctx.msg);
        channels_identical(da, db, k);
        const sim_sub *sa = &da->sub[0], *s1 = &d1->sub[0];
        for (int j = 0; j < 3; j++) {
            double ua = sim_phys(sa, sa->x, j), u1 = sim_phys(s1, s1->x, j);
            if (fabs(u1) > umax) umax = fabs(u1);
            if (fabs(ua - u1) > dmax) dmax = fabs(ua - u1);
            if (j == 0 && fabs(ua) > uxmax) uxmax = fabs(ua);
        }
    }
    ck_assert_double_gt(umax, 1e-6);
    ck_assert_double_lt(dmax, 1e-12 * umax);
    ck_assert_double_lt(uxmax, 1e-12 * umax);
    ck_assert_double_gt(summary(da, "redundant constraint solves [-]"), 1000.0);
    ck_assert_double_eq(summary(da, "redundant constraint solves [-]"),
                        summary(db, "redundant constraint solves [-]"));
    ck_assert_double_eq(summary(d1, "redundant constraint solves [-]"), 0.0);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_data_free(&d1);
    for (int hook = 0; hook < 2; hook++) {
        tvds_data *d = NULL;
        tvds_ctx_init(&ctx);
        int rc = tvds_data_create(m[2], &d, &ctx);
        if (d) d->check.reuse_off = hook;
        rc = steps_until_error(m[2], d, &ctx, rc, 10, NULL);
        ck_assert_int_eq(rc, TVDS_ERR_SINGULAR);
        ck_assert_ptr_nonnull(strstr(ctx.msg, "inconsistent"));
        tvds_data_free(&d);
    }
    for (int v = 0; v < 3; v++)
        tvds_model_free(&m[v]);
}
END_TEST

/* A 2D segment master's one-call geometry (sim_seg2d_geometry: closest point, frame and point
 * with each master node read once, the entries' predicted displacements taken from it) against
 * the kind's table (reference path d->check.geometry_table), every channel of every group bit for
 * bit at every step, for the four methods: on the sliding model (the slave crosses at least 5
 * segments) and on the beam-on-beam case while the preload ramps (its tip loses and regains
 * contact). */
static void paths_agree(tvds_model *m, long nsteps, int hook, int *crossed, int *regained,
                        int *flips)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_data *da = data_new(m, &ctx), *db = data_new(m, &ctx);
    if (hook == 0)
        db->check.geometry_table = 1;
    else
        db->check.reuse_off = 1;
    int seg0 = -1, seg1 = -1, open_prev = 1, state_prev = -1;
    *regained = *flips = 0;
    for (long k = 0; k < nsteps && tvds_data_time(da) < m->opt.t_end; k++) {
        ck_assert_msg(tvds_step(m, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        channels_identical(da, db, k);
        const sim_cp *c = &da->cp[0];
        if (seg0 < 0) seg0 = c->seg;
        seg1 = c->seg;
        int open = c->state == TVDS_OPEN;
        if (open_prev && !open && k > 0) (*regained)++;
        open_prev = open;
        if (!open && state_prev >= 0 && state_prev != TVDS_OPEN && c->state != state_prev)
            (*flips)++;
        state_prev = c->state;
    }
    *crossed = seg1 - seg0 < 0 ? seg0 - seg1 : seg1 - seg0;
    tvds_data_free(&da);
    tvds_data_free(&db);
}

/* The beam-on-beam case (models/beam_on_beam/beam_on_beam.ini) with the given method. */
static tvds_model *bob_model(int method)
{
    tvds_model *m = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_case_read("models/beam_on_beam/beam_on_beam.ini", NULL, 0, &m, &ctx) ==
                      TVDS_OK,
                  "%s", ctx.msg);
    m->opt.method = method;
    return m;
}

static void seg2d_paths_agree(tvds_model *m, long nsteps, int *crossed, int *regained)
{
    int flips;
    paths_agree(m, nsteps, 0, crossed, regained, &flips);
}

START_TEST(test_seg2d_geometry_path)
{
    static const int methods[] = {TVDS_METHOD_SUBS_A, TVDS_METHOD_SUBS_B, TVDS_METHOD_SUBS_C,
                                  TVDS_METHOD_FILM};
    int method = methods[_i];
    int crossed, regained;
    tvds_model *m = slide_model(method, 0.6, 1);
    seg2d_paths_agree(m, 1000000, &crossed, &regained);
    ck_assert_int_ge(crossed, 5);
    tvds_model_free(&m);
    m = bob_model(method);
    seg2d_paths_agree(m, 6000, &crossed, &regained);
    ck_assert_int_ge(regained, 2);
    tvds_model_free(&m);
}
END_TEST

/* What the step keeps from one assembly to the next instead of rebuilding it (W with its buckets
 * and LU while the rows' entries are unchanged; a contact point's entry displacements e_u per
 * state version, carried from x_{n+1} to the next step's x_n) against the run that rebuilds and
 * re-reads them at every use (reference path d->check.reuse_off): every channel bit for bit at
 * every step, for the four methods, across segment crossings (the sliding model), contact loss and
 * regain (the beam-on-beam while its preload ramps), stick-slip changes (a pad of 12 points on
 * lumped bodies) and a 3D point crossing faces. */
START_TEST(test_reuse_paths)
{
    static const int methods[] = {TVDS_METHOD_SUBS_A, TVDS_METHOD_SUBS_B, TVDS_METHOD_SUBS_C,
                                  TVDS_METHOD_FILM};
    int method = methods[_i];
    int crossed, regained, flips;
    tvds_model *m = slide_model(method, 0.6, 1);
    paths_agree(m, 1000000, 1, &crossed, &regained, &flips);
    ck_assert_int_ge(crossed, 5);
    tvds_model_free(&m);
    m = bob_model(method);
    paths_agree(m, 6000, 1, &crossed, &regained, &flips);
    ck_assert_int_ge(regained, 2);
    tvds_model_free(&m);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    char dir[64], cpath[600];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_reuse_");
    ck_assert_int_eq(tvds_bench_synthetic_pad_write(dir, 120, 12, cpath, sizeof cpath, &ctx),
                     TVDS_OK);
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    m->opt.method = method;
    paths_agree(m, 1500, 1, &crossed, &regained, &flips);
    ck_assert_int_ge(flips, 10); /* stick-slip changes of a pad point */
    tvds_model_free(&m);
    /* A 3D slider crossing the 4-node faces of a plate (as in test_case_file_faces), sticking
     * and slipping. */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/plate", dir);
    ck_assert_int_eq(tvds_bench_plate_write(sub, 3, 4, cpath, sizeof cpath, &ctx), TVDS_OK);
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    m->opt.method = method;
    m->opt.t_end = 2.0;
    paths_agree(m, 1000000, 1, &crossed, &regained, &flips);
    ck_assert_int_ge(flips, 10);
    tvds_model_free(&m);
    tvds_test_rmtree(dir);
}
END_TEST

/* Coordinates of x and x_prev in (0, SIM_TINY) in magnitude, over all substructures. */
static int tiny_coords(const tvds_data *d)
{
    int nt = 0;
    for (int i = 0; i < d->nsub; i++)
        for (int k = 0; k < d->sub[i].n; k++) {
            double a = fabs(d->sub[i].x[k]), b = fabs(d->sub[i].x_prev[k]);
            nt += (a > 0.0 && a < SIM_TINY) + (b > 0.0 && b < SIM_TINY);
        }
    return nt;
}

/* Tiny coordinates set to zero (sim_flush_tiny): while the beam-on-beam's preload ramps, the
 * damped high modes of beam 2 decay below 2^-500 (towards the subnormal range) between the
 * tip's contacts. The run that sets them to zero every SIM_FLUSH_EVERY steps publishes every
 * channel bit for bit as the run that keeps them (reference path d->check.flush_off), and right
 * after a flush its state has none left. _i: subs-b, FiLm, subs-b with exact propagation. */
START_TEST(test_flush_tiny)
{
    static const int methods[] = {TVDS_METHOD_SUBS_B, TVDS_METHOD_FILM, TVDS_METHOD_SUBS_B};
    tvds_model *m = bob_model(methods[_i]);
    if (_i == 2) {
        m->opt.integrator = TVDS_INTEGRATOR_EXACT;
        m->opt.f_band = 11e3; /* the step of the band of interest (docs/theory.md 10b) */
    }
    tvds_ctx ctx;
    tvds_data *da = data_new(m, &ctx), *db = data_new(m, &ctx);
    db->check.flush_off = 1;
    int kept = 0;
    for (long k = 0; k < 16000; k++) {
        ck_assert_msg(tvds_step(m, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        channels_identical(da, db, k);
        if (k % SIM_FLUSH_EVERY == 0) {
            /* This step began with a flush: its x_prev is the flushed x. */
            for (int i = 0; i < da->nsub; i++)
                for (int j = 0; j < da->sub[i].n; j++) {
                    double a = fabs(da->sub[i].x_prev[j]);
                    ck_assert_msg(a == 0.0 || a >= SIM_TINY, "step %ld sub %d coordinate %d: %g", k,
                                  i, j, a);
                }
            int nt = tiny_coords(db);
            if (nt > kept) kept = nt;
        }
    }
    ck_assert_int_ge(kept, 10); /* the run without the flush keeps tiny coordinates */
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&m);
}
END_TEST

/* ---- Contact rows of many points ------------------------------------------------------------ */

/* A pad of 12 slave nodes on the lumped-mass track of tvds_bench_synthetic_pad_write: G is
 * diagonal on both bodies (lumped masses), so W pairs only rows whose points share a master node
 * and is banded (band LU). The run must equal, to round-off, the one with every pair of a
 * substructure's entries in one bucket (reference path d->check.rows_dense: the plain double loop
 * over the rows' entries and the dense LU). _i: 0 subs-b, 1 FiLm, 2 subs-b with exact propagation
 * (its one-step flexibility couples the whole track: one component, dense W). */
START_TEST(test_pad_rows)
{
    char dir[64], cpath[600], sub[700];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_pad_");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_bench_synthetic_pad_write(dir, 120, 12, cpath, sizeof cpath, &ctx),
                     TVDS_OK);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    m->opt.method = _i == 1 ? TVDS_METHOD_FILM : TVDS_METHOD_SUBS_B;
    if (_i == 2) {
        m->opt.integrator = TVDS_INTEGRATOR_EXACT;
        m->opt.f_band = 5e3;
    }
    tvds_data *da = data_new(m, &ctx), *db = data_new(m, &ctx);
    db->check.rows_dense = 1;
    ck_assert_int_eq(da->sub[0].gdiag, _i != 2);
    ck_assert_int_eq(da->sub[1].gdiag, _i != 2);
    int nh, nc;
    const char *const *names;
    const double *v;
    tvds_channels(da, TVDS_GROUP_HISTORY, &nh, &names, &v);
    tvds_channels(da, TVDS_GROUP_CONTACTS, &nc, &names, &v);
    double dmax[2] = {0, 0}, pk[2] = {0, 0}, acc = 0.0;
    int nrmax = 0, band = 0;
    for (long k = 0; k < 1500; k++) {
        ck_assert_msg(tvds_step(m, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        if (da->nrow > nrmax) nrmax = da->nrow;
        acc += tvds_test_step_roundoff(db); /* the bound below */
        /* FiLm keeps a tangential row per point: two rows per point. */
        if (da->nrow >= 12 && da->W_kl + da->W_ku <= 8) band = 1;
        for (int g = 0; g < 2; g++) {
            int grp = g ? TVDS_GROUP_CONTACTS : TVDS_GROUP_HISTORY;
            for (int c = 1; c < (g ? nc : nh); c++) {
                double a = ch(da, grp, c), b = ch(db, grp, c);
                if (fabs(a) > pk[g]) pk[g] = fabs(a);
                if (fabs(a - b) > dmax[g]) dmax[g] = fabs(a - b);
            }
        }
    }
    ck_assert_int_ge(nrmax, 12);
    ck_assert_int_eq(band, _i != 2);
    ck_assert_int_eq(db->W_kl, db->nrow - 1);
    /* Round-off: the sums take their terms in another order (and skip G's exact zeros), and
     * the two runs' states, once apart, go through the BLAS kernel's own rounding (with or
     * without FMA, its blocking): tol = u sum_k (n + n_r kappa_1(W_k)) of the peak
     * (tvds_test_step_roundoff; n = 120, kappa_1(W) <= 2: 2.4e-11 after the 1 500 steps;
     * measured 4.9e-13 with the SkylakeX kernel, 3.0e-12 with Core2). */
    double tol = 0.5 * DBL_EPSILON * acc;
    ck_assert_msg(dmax[0] <= tol * pk[0] && dmax[1] <= tol * pk[1],
                  "history %g of %g, contacts %g of %g (bound %g of the peak)", dmax[0], pk[0],
                  dmax[1], pk[1], tol);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&m);
    unlink(cpath);
    static const char *const subs[] = {"track", "slider"};
    static const char *const files[] = {"M.mtx", "K.mtx", "C.mtx", "dofs.txt", "sets.txt"};
    for (int i = 0; i < 2; i++) {
        for (int f = 0; f < 5; f++) {
            snprintf(sub, sizeof sub, "%s/%s/%s", dir, subs[i], files[f]);
            unlink(sub);
        }
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        rmdir(sub);
    }
    rmdir(dir);
}
END_TEST

/* The lumped physical path (docs/theory.md 9c) against the modal path on the pad of
 * test_pad_rows (lumped masses, Rayleigh damping): run.path = auto puts both bodies on it (the
 * track's K by diagonals, the slider's in compressed rows), and every history, contact and
 * energy channel equals the modal run's to round-off over 1 500 steps. _i: 0 subs-b, 1 FiLm. */
START_TEST(test_lumped_path)
{
    char dir[64], cpath[600], sub[700];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_lump_");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_bench_synthetic_pad_write(dir, 120, 12, cpath, sizeof cpath, &ctx),
                     TVDS_OK);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(cpath, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    m->opt.method = _i == 1 ? TVDS_METHOD_FILM : TVDS_METHOD_SUBS_B;
    ck_assert_int_eq(m->opt.modal, TVDS_PATH_AUTO);
    tvds_data *da = data_new(m, &ctx);
    /* The path reported (tvds check, summary.json) is the path taken. */
    ck_assert_str_eq(tvds_substructure_path(m, 0), "lumped");
    ck_assert_str_eq(tvds_substructure_path(m, 1), "lumped");
    ck_assert_ptr_null(tvds_substructure_path(m, 2));
    m->opt.modal = TVDS_PATH_MODAL;
    tvds_data *db = data_new(m, &ctx);
    ck_assert_str_eq(tvds_substructure_path(m, 0), "modal");
    ck_assert_str_eq(tvds_substructure_path(m, 1), "modal");
    ck_assert(da->sub[0].lumped && !da->sub[0].modal && da->sub[0].ndg == 3);
    ck_assert(da->sub[1].lumped && da->sub[1].ndg == 0);
    ck_assert(!db->sub[0].lumped && db->sub[0].modal && !db->sub[1].lumped);
    double dmax[3] = {0, 0, 0}, pk[3] = {0, 0, 0};
    int nrmax = 0;
    for (long k = 0; k < 1500; k++) {
        ck_assert_msg(tvds_step(m, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(m, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        if (da->nrow > nrmax) nrmax = da->nrow;
        static const int grp[3] = {TVDS_GROUP_HISTORY, TVDS_GROUP_CONTACTS, TVDS_GROUP_ENERGY};
        for (int g = 0; g < 3; g++) {
            int nc;
            const char *const *names;
            const double *v;
            tvds_channels(da, grp[g], &nc, &names, &v);
            for (int c = 1; c < nc; c++) {
                double a = ch(da, grp[g], c), b = ch(db, grp[g], c);
                if (g == 1 && (c - 1) % CC_N == CC_STATE) {
                    /* The tips start on the track unloaded: at step 1 the gap is 0 in one run
                     * and 1e-23 m in the other, open or slipping at zero force. Where a point
                     * carries a force its state must agree. */
                    double ln = ch(da, grp[g], c - CC_STATE + CC_LAMN);
                    if (fabs(ln) > 1e-12) ck_assert_msg(a == b, "step %ld %s", k, names[c]);
                    continue;
                }
                if (fabs(a) > pk[g]) pk[g] = fabs(a);
                if (fabs(a - b) > dmax[g]) dmax[g] = fabs(a - b);
            }
        }
    }
    ck_assert_int_ge(nrmax, 12);
    /* Round-off of u = Phi x (n = 120 terms) against x = u: measured 2e-14 of each group's
     * peak over these steps; 1e-11 leaves the margin of a longer accumulation. */
    for (int g = 0; g < 3; g++)
        ck_assert_msg(dmax[g] <= 1e-11 * pk[g], "group %d: %g of %g", g, dmax[g], pk[g]);
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&m);
    unlink(cpath);
    static const char *const subs[] = {"track", "slider"};
    static const char *const files[] = {"M.mtx", "K.mtx", "C.mtx", "dofs.txt", "sets.txt"};
    for (int i = 0; i < 2; i++) {
        for (int f = 0; f < 5; f++) {
            snprintf(sub, sizeof sub, "%s/%s/%s", dir, subs[i], files[f]);
            unlink(sub);
        }
        snprintf(sub, sizeof sub, "%s/%s", dir, subs[i]);
        rmdir(sub);
    }
    rmdir(dir);
}
END_TEST

/* ---- Penalty contact on a deformable master surface ---------------------------------------- */

/* The slider of test_slide_methods on a penalty master surface (kn = 1e5 N/m with critical
 * normal damping, kt = 1e5 N/m): it settles at F_N = m g (the penetration m g / kn = 1e-5 m),
 * then slides with the friction force mu m g and a non-negative friction power. */
START_TEST(test_penalty_surface)
{
    tvds_model *m = slide_model(TVDS_METHOD_SUBS_B, 0.3, 1);
    tvds_contact *c = &m->contacts[0];
    c->law = TVDS_LAW_PENALTY;
    c->exact_stick = 0;
    c->kn = 1e5;
    c->cn = 2.0 * sqrt(1e5 * SL_MS);
    c->kt = 1e5;
    c->ct = 0.0;
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "slide.lambda_n [N]");
    int ilt = ch_index(d, TVDS_GROUP_CONTACTS, "slide.lambda_t [N]");
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "slide.p_friction [W]");
    int iseg = ch_index(d, TVDS_GROUP_CONTACTS, "slide.segment [-]");
    int seg0 = -1, seg1 = -1;
    double fn_sum = 0.0, ft_sum = 0.0;
    long cnt = 0;
    while (tvds_data_time(d) < m->opt.t_end) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s", ctx.msg);
        double t = ch(d, TVDS_GROUP_CONTACTS, 0);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), 0.0);
        int sg = (int)ch(d, TVDS_GROUP_CONTACTS, iseg);
        if (seg0 < 0) seg0 = sg;
        seg1 = sg;
        if (t > 0.15) {
            fn_sum += ch(d, TVDS_GROUP_CONTACTS, iln);
            ft_sum += ch(d, TVDS_GROUP_CONTACTS, ilt);
            cnt++;
        }
    }
    ck_assert_int_ge(seg1 - seg0, 2);
    /* Mean over the sliding phase: F_N = m g, friction on the slider -mu F_N (it moves +t);
     * the master's vibration modulates both by a few per cent. */
    double mg = SL_MS * SL_G;
    ck_assert_double_eq_tol(fn_sum / cnt, mg, 0.05 * mg);
    ck_assert_double_eq_tol(ft_sum / cnt, -0.3 * mg, 0.05 * 0.3 * mg);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* ---- 9. Exact modal propagation (docs/theory.md 10b) --------------------------------------- */

/* The free recurrence reproduces samples of the exact damped motion, the force coefficient
 * keeps the static deflection, and h -> 0 gives central differences. */
START_TEST(test_exact_coeffs)
{
    /* (w2, c, h): underdamped at small and large w h, overdamped, critical, free mass. */
    static const double cs[][3] = {{1e4, 0.5, 1e-3},     {1e8, 2.0, 1e-3},     {4e12, 4e4, 1e-6},
                                   {100.0, 100.0, 0.05}, {100.0, 20.0, 0.05},  {0.0, 3.0, 0.1},
                                   {0.0, 0.0, 0.1},      {1e4, 0.0, 0.0314159}};
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        double w2 = cs[i][0], c = cs[i][1], h = cs[i][2], a1, a2, bh, chat;
        sim_exact_coeffs(w2, c, h, &a1, &a2, &bh, &chat);
        double sg = 0.5 * c, dsc = sg * sg - w2;
        /* Two independent free solutions q(t), sampled at 0, h, 2h. */
        for (int sol = 0; sol < 2; sol++) {
            double q[3];
            for (int k = 0; k < 3; k++) {
                double t = k * h;
                if (dsc < 0.0) {
                    double wd = sqrt(-dsc);
                    q[k] = exp(-sg * t) * (sol ? sin(wd * t) / wd : cos(wd * t));
                } else if (dsc > 0.0) {
                    double r = sqrt(dsc);
                    q[k] = exp((sol ? -sg - r : -sg + r) * t);
                } else {
                    q[k] = exp(-sg * t) * (sol ? t : 1.0);
                }
            }
            double sc = fabs(q[0]) + fabs(q[1]) + fabs(q[2]);
            ck_assert_msg(fabs(q[2] - (a1 * q[1] - a2 * q[0])) <= 1e-13 * sc,
                          "case %zu: free recurrence", i);
        }
        double b = bh * h * h;
        if (w2 > 0.0) /* a constant force f: the fixed point f/w2 of the recurrence */
            ck_assert_double_eq_tol(b * w2, 1.0 - a1 + a2, 1e-13);
        else if (c > 0.0) /* the drift f t / c: q_n = n h f / c */
            ck_assert_double_eq_tol(b * c / h, 1.0 - a2, 1e-13);
        else
            ck_assert_double_eq_tol(bh, 1.0, 1e-15);
        /* The modal mass 1/bh >= 1 (docs/theory.md: penalty bound still valid). */
        ck_assert_double_le(bh, 1.0 + 1e-14);
        /* Central-difference form: (1 - a2) = b chat / h. */
        ck_assert_double_eq_tol(b * chat / h, 1.0 - a2, 1e-13);
    }
    /* h -> 0: bh = 1 - c h / 2 + O((w h)^2, (c h)^2), here (w h)^2 = 1e-8. */
    double a1, a2, bh, chat;
    sim_exact_coeffs(1e6, 10.0, 1e-7, &a1, &a2, &bh, &chat);
    ck_assert_double_eq_tol(bh, 1.0 - 0.5 * 10.0 * 1e-7, 2e-9);
    ck_assert_double_eq_tol(chat, 10.0, 1e-5);
}
END_TEST

/* One mass on a spring (w = 1000 rad/s, light Rayleigh damping) and a free DoF, at a step of
 * 20 / w (ten times the central-difference limit): the free vibration stays on the exact
 * damped solution through the first two samples. */
static tvds_model *exact_osc_model(double beta)
{
    double x0 = 0.0;
    tvds_model *m = model_new(1);
    tvds_substructure *s = m->subs[0] = sub_nodes("osc", 1, &x0, NULL);
    addM(s, 0, 0, 2.0);
    addM(s, 1, 1, 2.0);
    spring(s, 0, -1, 2e6);
    m->damping[0] = (tvds_damping){.kind = TVDS_DAMP_RAYLEIGH, .alpha = 0.0, .beta = beta};
    add_probe(m, "u", TVDS_PROBE_U, 0, 0);
    m->opt.integrator = TVDS_INTEGRATOR_EXACT;
    fixed_dt(m, 0.02);
    m->opt.t_end = 4.0;
    return m;
}

START_TEST(test_exact_free_oscillator)
{
    tvds_model *m = exact_osc_model(2e-6); /* c = 2 1/s */
    add_ic(m, 0, 0, 1e-3, 0.0);
    tvds_ctx ctx;
    /* Central differences refuse this step. */
    m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
    tvds_data *d = NULL;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_data_create(m, &d, &ctx), TVDS_ERR_UNSTABLE_DT);
    m->opt.integrator = TVDS_INTEGRATOR_EXACT;
    d = data_new(m, &ctx);
    double t[200], u[200];
    for (int k = 0; k < 200; k++) {
        steps_ok(m, d, &ctx, 1);
        t[k] = ch(d, TVDS_GROUP_HISTORY, 0);
        u[k] = ch(d, TVDS_GROUP_HISTORY, 1);
    }
    /* u(t) = e^{-t}(A cos wd t + B sin wd t) through samples 1 and 2 (the start is only
     * second-order, docs/theory.md 10b). */
    double sg = 1.0, wd = sqrt(1e6 - 1.0);
    double c1 = exp(-sg * t[1]) * cos(wd * t[1]), s1 = exp(-sg * t[1]) * sin(wd * t[1]);
    double c2 = exp(-sg * t[2]) * cos(wd * t[2]), s2 = exp(-sg * t[2]) * sin(wd * t[2]);
    double det = c1 * s2 - c2 * s1;
    double A = (u[1] * s2 - u[2] * s1) / det, B = (c1 * u[2] - c2 * u[1]) / det;
    double amp = sqrt(A * A + B * B), emax = 0.0;
    for (int k = 1; k < 200; k++) {
        double ue = exp(-sg * t[k]) * (A * cos(wd * t[k]) + B * sin(wd * t[k]));
        if (fabs(u[k] - ue) > emax) emax = fabs(u[k] - ue);
    }
    /* Round-off of 200 steps of an O(1)-conditioned recurrence. */
    ck_assert_msg(emax < 1e-11 * amp, "exact propagation: error %g of %g", emax, amp);
    ck_assert_double_gt(amp, 0.5e-3);
    /* No forces: the discrete energy (modal mass 1/bh) is dissipated only by damping. */
    ck_assert_double_lt(summary(d, "energy balance error [-]"), 1e-9);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* A constant load at w h = 20 with damping: the static deflection F/k exactly. */
START_TEST(test_exact_static)
{
    tvds_model *m = exact_osc_model(2e-4); /* c = 200 1/s */
    add_load(m, 0, 0, (tvds_fn){.kind = TVDS_FN_CONST, .amp = 3.0});
    tvds_ctx ctx;
    tvds_data *d = data_new(m, &ctx);
    steps_ok(m, d, &ctx, 200);
    ck_assert_double_eq_tol(ch(d, TVDS_GROUP_HISTORY, 1), 3.0 / 2e6, 1e-12 * 3.0 / 2e6);
    ck_assert_double_lt(summary(d, "energy balance error [-]"), 1e-9);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

/* dt = auto: the band step sqrt(24e-3) / (2 pi f_band) times dt_safety; f_band is required. */
START_TEST(test_exact_dt_auto)
{
    tvds_model *m = exact_osc_model(2e-6);
    m->opt.dt_auto = 1;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double dtc;
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "f_band"));
    m->opt.f_band = 50.0;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    ck_assert_double_eq_tol(dtc, sqrt(24e-3) / (2.0 * PI * 50.0), 1e-15);
    tvds_data *d = data_new(m, &ctx);
    ck_assert_double_eq_tol(tvds_data_dt(d), 0.9 * dtc, 1e-15);
    tvds_data_free(&d);
    /* Central differences: the limit of the top mode, f_band ignored. */
    m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    double xi = 0.5 * 2e-6 * 1e3;
    ck_assert_double_eq_tol(dtc, 2e-3 * (sqrt(1 + xi * xi) - xi), 1e-15);
    tvds_model_free(&m);
}
END_TEST

/* The sliding slider of test_slide_methods under exact propagation at four times the
 * central-difference step: the contact invariants hold and the energy balance closes as with
 * central differences (same bound, same reasoning). */
START_TEST(test_exact_slide)
{
    int method = _i;
    tvds_model *m = slide_model(method, SL_T, 1);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double dtc;
    ck_assert_int_eq(tvds_stable_dt(m, &dtc, &ctx), TVDS_OK);
    m->opt.integrator = TVDS_INTEGRATOR_EXACT;
    fixed_dt(m, 4.0 * dtc);
    tvds_data *d = data_new(m, &ctx);
    int igap = ch_index(d, TVDS_GROUP_CONTACTS, "slide.gap [m]");
    int ipf = ch_index(d, TVDS_GROUP_CONTACTS, "slide.p_friction [W]");
    int iln = ch_index(d, TVDS_GROUP_CONTACTS, "slide.lambda_n [N]");
    double lnsum = 0.0;
    long nln = 0;
    while (tvds_data_time(d) < m->opt.t_end) {
        int rc = tvds_step(m, d, &ctx);
        ck_assert_msg(rc == TVDS_OK, "%s: %s", tvds_method_name(method), ctx.msg);
        double t = ch(d, TVDS_GROUP_CONTACTS, 0);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, igap), -1e-15);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, ipf), -1e-12);
        ck_assert_double_ge(ch(d, TVDS_GROUP_CONTACTS, iln), 0.0);
        if (t > 0.05) lnsum += ch(d, TVDS_GROUP_CONTACTS, iln), nln++;
    }
    /* After the weight is on: lambda_N = m g on average (the master's vibration averages
     * out; 2 % for the residual oscillation over 0.15 s). */
    ck_assert_double_eq_tol(lnsum / nln, SL_MS * SL_G, 0.02 * SL_MS * SL_G);
    double bal = summary(d, "energy balance error [-]");
    ck_assert_msg(bal < 2e-2, "%s: balance error %g", tvds_method_name(method), bal);
    ck_assert_double_eq_tol(summary(d, "slide.mean p_friction [W]"), 0.3 * SL_MS * SL_G * SL_V,
                            0.1 * 0.03);
    tvds_data_free(&d);
    tvds_model_free(&m);
}
END_TEST

Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("constraints");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_mass_on_plane, 0, TVDS_METHOD_COUNT);
    tcase_add_test(tc, test_dual_vs_merged);
    tcase_add_loop_test(tc, test_two_slave_nodes, 0, TVDS_METHOD_COUNT);
    tcase_add_test(tc, test_modal_vs_physical);
    tcase_add_test(tc, test_damping_matrix_and_elements);
    tcase_add_test(tc, test_stable_dt_value);
    suite_add_tcase(s, tc);
    TCase *tf = tcase_create("friction");
    tcase_set_timeout(tf, 60);
    tcase_add_loop_test(tf, test_coulomb_oscillator, 0, 2);
    tcase_add_loop_test(tf, test_slide_methods, 0, 2 * TVDS_METHOD_COUNT);
    tcase_add_loop_test(tf, test_slide_on_circle, 0, 6);
    tcase_add_loop_test(tf, test_anisotropic_shoe, 0, 2);
    tcase_add_loop_test(tf, test_conveyor_belt, 0, TVDS_METHOD_COUNT);
    tcase_add_loop_test(tf, test_wear_power_sdnd104, 0, 2);
    tcase_add_test(tf, test_subs_b_vs_film);
    suite_add_tcase(s, tf);
    TCase *tl = tcase_create("laws");
    tcase_set_timeout(tl, 20);
    tcase_add_test(tl, test_penalty_static);
    tcase_add_loop_test(tl, test_penalty_sdnd100, 0, 2);
    tcase_add_test(tl, test_redundant_constraints);
    tcase_add_test(tl, test_two_rows_redundant);
    tcase_add_test(tl, test_elastic_friction_element);
    tcase_add_test(tl, test_elastic_friction_rigid);
    tcase_add_test(tl, test_film_sdnd100b_normal_force);
    tcase_add_test(tl, test_activated_point_direction);
    tcase_add_test(tl, test_deferred_probes);
    tcase_add_loop_test(tl, test_local_search, 0, 2);
    tcase_add_test(tl, test_reference_path_options);
    tcase_add_loop_test(tl, test_seg2d_geometry_path, 0, 4);
    tcase_add_loop_test(tl, test_reuse_paths, 0, 4);
    tcase_add_loop_test(tl, test_flush_tiny, 0, 3);
    tcase_add_test(tl, test_penalty_surface);
    tcase_add_loop_test(tl, test_pad_rows, 0, 3);
    tcase_add_loop_test(tl, test_lumped_path, 0, 2);
    suite_add_tcase(s, tl);
    TCase *te = tcase_create("errors");
    tcase_set_timeout(te, 30);
    tcase_add_test(te, test_contact_lost);
    tcase_add_test(te, test_singular_friction);
    tcase_add_test(te, test_divergence_and_unstable_dt);
    tcase_add_test(te, test_no_alloc);
    tcase_add_test(te, test_create_alloc_failure);
    suite_add_tcase(s, te);
    TCase *tx = tcase_create("exact");
    tcase_set_timeout(tx, 30);
    tcase_add_test(tx, test_exact_coeffs);
    tcase_add_test(tx, test_exact_free_oscillator);
    tcase_add_test(tx, test_exact_static);
    tcase_add_test(tx, test_exact_dt_auto);
    tcase_add_loop_test(tx, test_exact_slide, 0, TVDS_METHOD_COUNT);
    suite_add_tcase(s, tx);
    return s;
}
