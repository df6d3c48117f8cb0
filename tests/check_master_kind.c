/* check_master_kind.c — a master kind added the way docs/architecture.md describes, from outside
 * the library's contact folder: its functions (this file), its table entry (registered with
 * sim_master_register) and its case keys (those of master = rigid, which it reads). The kind,
 * "test_plane", is a rigid plane written again here; `tvds run` (tvds_run) and the CEA
 * (tvds_cea_run) must give byte for byte what they give with the library's rigid_plane on the
 * same case, which shows that stepping, penalty, set-up and the CEA reach the kind only through
 * the table. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "engine/contact/master.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_run.h"
#include "tvds_test.h"

/* ---- The kind: a rigid plane through rigid_point, normal rigid_normal, first tangent rigid_t1,
 * translated by rigid_motion(t) ---- */

static double tp_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void tp_unit(double a[3])
{
    double l = sqrt(tp_dot(a, a));
    if (l > 0.0)
        for (int k = 0; k < 3; k++)
            a[k] /= l;
}

/* Unit normal n and tangents t (t1 made orthogonal to n, t2 = n x t1). */
static void tp_axes(const tvds_contact *C, double n[3], double t[2][3])
{
    double tt[3] = {0, 0, 0};
    n[0] = n[1] = n[2] = 0.0;
    for (int a = 0; a < C->dim; a++) {
        n[a] = C->rigid_normal[a];
        tt[a] = C->rigid_t1[a];
    }
    tp_unit(n);
    double tn = tp_dot(tt, n);
    for (int a = 0; a < 3; a++)
        tt[a] -= tn * n[a];
    tp_unit(tt);
    memcpy(t[0], tt, sizeof tt);
    t[1][0] = n[1] * tt[2] - n[2] * tt[1];
    t[1][1] = n[2] * tt[0] - n[0] * tt[2];
    t[1][2] = n[0] * tt[1] - n[1] * tt[0];
}

static int tp_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    double nn = 0.0, tt = 0.0;
    for (int a = 0; a < C->dim; a++) {
        nn += C->rigid_normal[a] * C->rigid_normal[a];
        tt += C->rigid_t1[a] * C->rigid_t1[a];
    }
    if (!(nn > 0.0) || !(tt > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact: test_plane needs a normal and a t1");
    *ent = C->dim; /* the slave only */
    return TVDS_OK;
}

static void tp_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                     double P[3], double Pm[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    for (int a = 0; a < 3; a++)
        P[a] = Pm[a] = 0.0;
    for (int a = 0; a < C->dim; a++)
        P[a] = C->rigid_point[a] + tvds_fn_eval(&C->rigid_motion[a], t);
}

static int tp_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                      double t, int keep, tvds_ctx *ctx)
{
    double n[3], tt[2][3], P[3], Pm[3], rq[3];
    tp_axes(&m->contacts[c->contact], n, tt);
    tp_point(m, d, c, conf, t, P, Pm);
    for (int a = 0; a < 3; a++)
        rq[a] = Q[a] - P[a];
    c->seg = 0;
    c->alpha = 0.0;
    c->s = tp_dot(tt[0], rq);
    return TVDS_OK;
}

static void tp_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    tp_axes(&m->contacts[c->contact], c->n, c->t);
}

static int tp_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                      int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    return 0;
}

static void tp_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    out[0] = out[1] = out[2] = 0.0;
    for (int a = 0; a < C->dim; a++)
        out[a] = deriv == 0 ? tvds_fn_eval(&C->rigid_motion[a], t)
                            : tvds_fn_deriv(&C->rigid_motion[a], t, deriv);
}

/* Static state (3D only here): the friction along the relative velocity projected on the
 * plane. */
static int tp_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                           const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    if (ms->ncomp != 3) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: test_plane is 3D");
    ms->rigid = 1;
    double nn =
        sqrt(c->rigid_normal[0] * c->rigid_normal[0] + c->rigid_normal[1] * c->rigid_normal[1] +
             c->rigid_normal[2] * c->rigid_normal[2]);
    for (int k = 0; k < 3; k++) {
        ms->rigid_n[k] = c->rigid_normal[k] / nn;
        vm[k] = tvds_fn_deriv(&c->rigid_motion[k], t, 1);
    }
    double v[3], vn = 0.0, vt = 0.0;
    for (int k = 0; k < 3; k++)
        vn += (vs[k] - vm[k]) * ms->rigid_n[k];
    for (int k = 0; k < 3; k++) {
        v[k] = vs[k] - vm[k] - vn * ms->rigid_n[k];
        vt += v[k] * v[k];
    }
    vt = sqrt(vt);
    if (!(vt > 0)) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: test_plane: no sliding");
    for (int k = 0; k < 3; k++)
        ms->rigid_t[k] = v[k] / vt;
    return TVDS_OK;
}

static int tp_static_at(const sim_master_static *ms, const double X[3], double s, sim_master_at *g)
{
    g->seg = -1;
    g->alpha = 0.0;
    g->len = 1.0;
    g->face = -1;
    for (int k = 0; k < 3; k++) {
        g->n[k] = ms->rigid_n[k];
        g->t[k] = ms->rigid_t[k];
    }
    return SIM_AT_OK;
}

static const sim_master_type test_plane = {
    .name = "test_plane",
    .prescribed = 1,
    .setup = tp_setup,
    .closest = tp_closest,
    .frame = tp_frame,
    .weights = tp_weights,
    .point = tp_point,
    .motion = tp_motion,
    .offsets = 0,
    .static_setup = tp_static_setup,
    .static_at = tp_static_at,
};

/* ---- The comparisons ---- */

/* The case at path with its one contact on kind (-1: as read), until t_end; dt_auto: the step
 * from the stable bound (which reads the kind) rather than the case's. */
static tvds_model *load(const char *path, int kind, double t_end, int dt_auto)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read(path, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->ncontact, 1);
    ck_assert_int_eq(m->contacts[0].master_kind, TVDS_MASTER_RIGID);
    if (kind >= 0) m->contacts[0].master_kind = kind;
    m->opt.t_end = t_end;
    if (dt_auto) m->opt.dt_auto = 1;
    return m;
}

/* 1 when dir_a/file and dir_b/file hold the same bytes (and are not empty). */
static int same_file(const char *dir_a, const char *dir_b, const char *file)
{
    char pa[1200], pb[1200];
    snprintf(pa, sizeof pa, "%s/%s", dir_a, file);
    snprintf(pb, sizeof pb, "%s/%s", dir_b, file);
    long la = 0, lb = 0;
    char *a = tvds_test_slurp(pa, &la), *b = tvds_test_slurp(pb, &lb);
    ck_assert_msg(a && b, "missing %s", file);
    int same = la > 0 && la == lb && memcmp(a, b, (size_t)la) == 0;
    free(a);
    free(b);
    return same;
}

/* The run of the case with rigid_plane and with test_plane: the same histories, contact
 * states and energies, byte for byte. */
static void run_both(const char *path, double t_end, int dt_auto)
{
    int kind = sim_master_register(&test_plane);
    ck_assert_int_ge(kind, TVDS_MASTER_KIND_COUNT);
    char base[256], da[300], db[300];
    tvds_test_mkdtemp(base, sizeof base, "/tmp/tvds_kind_");
    snprintf(da, sizeof da, "%s/rigid", base);
    snprintf(db, sizeof db, "%s/test", base);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_run_opts o = tvds_run_opts_default();
    tvds_model *ma = load(path, -1, t_end, dt_auto), *mb = load(path, kind, t_end, dt_auto);
    ck_assert_msg(tvds_run(ma, da, &o, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_run(mb, db, &o, &ctx) == TVDS_OK, "%s", ctx.msg);
    static const char *const files[] = {"history.csv", "contacts.csv", "energy.csv"};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(same_file(da, db, files[i]), "%s: %s differs", path, files[i]);
    tvds_model_free(&ma);
    tvds_model_free(&mb);
    ck_assert_int_eq(tvds_test_rmtree(base), 0);
}

/* Lagrange law with exact sticking: the slip/stick rows, the prediction of stuck points on a
 * prescribed master. */
START_TEST(test_kind_run_lagrange)
{
    run_both("models/shoe/sdnd100a_lagrange.ini", 0.13, 0);
}
END_TEST

/* Penalty law, the step from the stable bound: the penalty forces and the bound (through the
 * kind's 'prescribed') read the kind. */
START_TEST(test_kind_run_penalty)
{
    run_both("models/shoe/sdnd100a_penalty.ini", 0.13, 1);
}
END_TEST

/* The CEA of the shoe sliding on the plane (moving along x at 1 m/s): the same eigenvalues
 * and multipliers, bit for bit. */
START_TEST(test_kind_cea)
{
    int kind = sim_master_register(&test_plane);
    ck_assert_int_ge(kind, TVDS_MASTER_KIND_COUNT);
    tvds_cea_result *r[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        tvds_model *m = load("models/shoe/sdnd100a_lagrange.ini", i ? kind : -1, 0.05, 0);
        m->contacts[0].rigid_motion[0] =
            (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1e3, .t0 = 0, .t1 = 1e3};
        tvds_cea_options opt = tvds_cea_options_default();
        opt.t_eval = 0.05;
        opt.nmodes = 4;
        opt.refine = 0;
        double s[2] = {0.0, 1.0};
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_cea_run(m, 0, s, 2, &opt, &r[i], &ctx) == TVDS_OK, "%s", ctx.msg);
        tvds_model_free(&m);
    }
    ck_assert_int_eq(r[0]->npos, r[1]->npos);
    ck_assert_int_eq(r[0]->nbranch, r[1]->nbranch);
    ck_assert_int_gt(r[0]->nbranch, 0);
    size_t nv = (size_t)r[0]->npos * r[0]->nbranch;
    ck_assert(memcmp(r[0]->freq, r[1]->freq, nv * sizeof(double)) == 0);
    ck_assert(memcmp(r[0]->re, r[1]->re, nv * sizeof(double)) == 0);
    ck_assert(memcmp(r[0]->zeta, r[1]->zeta, nv * sizeof(double)) == 0);
    ck_assert(memcmp(r[0]->lambda_n, r[1]->lambda_n, r[0]->npos * sizeof(double)) == 0);
    ck_assert(isfinite(r[0]->freq[0]) && r[0]->freq[0] > 0.0); /* the shoe's mode */
    ck_assert(r[0]->chi == r[1]->chi);
    tvds_cea_result_free(&r[0]);
    tvds_cea_result_free(&r[1]);
}
END_TEST

Suite *master_kind_suite(void)
{
    Suite *s = suite_create("master_kind");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kind_run_lagrange);
    tcase_add_test(tc, test_kind_run_penalty);
    tcase_add_test(tc, test_kind_cea);
    suite_add_tcase(s, tc);
    return s;
}
