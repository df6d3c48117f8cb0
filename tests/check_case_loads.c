/* check_case_loads.c — loads and imposed motions on node sets and face sets: a set load and a
 * set constraint run bit for bit as the per-node sections they stand for; a pressure on a face
 * set gives the consistent nodal forces (the analytic ones on a 4-node trapezoid, tilted; P x
 * area in total on a flat mesh); the tributary split on a uniform mesh; refusals with their line.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tvds/tvds.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#define TVDS_TEST_ENGINE
#include "tvds_test.h"

/* The benchmark plate (3 x 3 cells of 5 mm, 4-node faces, face set 'top' in z = 0 with the
 * normal +z, nodes 1..16 row by row) and its slider, in dir/p, with two node sets added;
 * returns the case file's text (the sliding case) to be extended. */
static char *plate_case(const char *dir, char *base, size_t nbase)
{
    char path[256], sets[300];
    snprintf(base, nbase, "%s/p", dir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_bench_plate_write(base, 3, 4, path, sizeof path, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    snprintf(sets, sizeof sets, "%s/plate/sets.txt", base);
    char *s = tvds_test_slurp(sets, NULL);
    ck_assert_ptr_nonnull(s);
    char *t = malloc(strlen(s) + 200);
    ck_assert_ptr_nonnull(t);
    sprintf(t, "%sset ctr 6 7 10 11\nset row 1 2 3 4\nset nine 1 2 3 5 6 7 9 10 11\n", s);
    tvds_test_write_file(NULL, sets, t);
    free(s);
    free(t);
    char *c = tvds_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(c);
    return c;
}

static tvds_model *read_case(const char *text, const char *base)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read_string(text, "case.ini", base, NULL, 0, &m, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    return m;
}

static int read_fails(const char *text, const char *base, const char *want)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read_string(text, "case.ini", base, NULL, 0, &m, &ctx);
    ck_assert_ptr_null(m);
    ck_assert_msg(rc != TVDS_OK && strstr(ctx.msg, want), "want '%s', got '%s'", want, ctx.msg);
    return rc;
}

static char *cat2(const char *a, const char *b)
{
    char *r = malloc(strlen(a) + strlen(b) + 1);
    ck_assert_ptr_nonnull(r);
    strcpy(r, a);
    strcat(r, b);
    return r;
}

/* Sum of the loads on DoF direction dir of substructure sub at time t. */
static double load_sum(const tvds_model *m, int sub, int dir, double t)
{
    double s = 0.0;
    for (int l = 0; l < m->nload; l++)
        if (m->loads[l].sub == sub && m->subs[sub]->dofs[m->loads[l].dof].dir == dir)
            s += tvds_fn_eval(&m->loads[l].fn, t);
    return s;
}

/* The load on (node, dir) of sub at t (0 when none). */
static double load_at(const tvds_model *m, int sub, long node, int dir, double t)
{
    double s = 0.0;
    for (int l = 0; l < m->nload; l++) {
        const tvds_dof *d = &m->subs[sub]->dofs[m->loads[l].dof];
        if (m->loads[l].sub == sub && d->node == node && d->dir == dir)
            s += tvds_fn_eval(&m->loads[l].fn, t);
    }
    return s;
}

/* A load of total F on a face set's 16 nodes and one on a node set of 9 (equal split) and
 * imposed motions on a node set of 4 run bit for bit as 16 + 9 per-node [load] sections with
 * f = F / n and 4 one-node constraints: every channel of every group at every one of 400
 * steps. */
START_TEST(test_set_equals_nodes)
{
    char dir[64], base[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_setload_");
    char *c = plate_case(dir, base, sizeof base);
    const double F = -0.3;
    char *a = cat2(c, "[load push]\ndof = plate:top:uz\nf = smooth -0.3 0 0.002\n"
                      "[load nine]\ndof = plate:nine:ux\nf = -0.7\n"
                      "[constraint hold]\nterms = plate:row:uy*2\nvalue = harmonic 1e-6 500\n");
    char sec[16384] = "";
    for (int k = 1; k <= 16; k++) {
        char b[200];
        snprintf(b, sizeof b, "[load push%d]\ndof = plate:%d:uz\nf = smooth %.17g 0 0.002\n", k, k,
                 F / 16);
        strcat(sec, b);
    }
    static const int nine[9] = {1, 2, 3, 5, 6, 7, 9, 10, 11};
    for (int k = 0; k < 9; k++) {
        char b[200];
        snprintf(b, sizeof b, "[load nine%d]\ndof = plate:%d:ux\nf = %.17g\n", k, nine[k],
                 -0.7 / 9); /* not -0.7 * (1 / 9.0): that differs in the last bit */
        strcat(sec, b);
    }
    for (int k = 1; k <= 4; k++) {
        char b[200];
        snprintf(b, sizeof b,
                 "[constraint hold%d]\nterms = plate:%d:uy*2\n"
                 "value = harmonic 1e-6 500\n",
                 k, k);
        strcat(sec, b);
    }
    char *b = cat2(c, sec);
    tvds_model *ma = read_case(a, base), *mb = read_case(b, base);
    ck_assert_int_eq(ma->nload, mb->nload);
    ck_assert_int_eq(ma->nload, 26); /* 16 + 9 + the slider's press */
    ck_assert_int_eq(ma->nbil, mb->nbil);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_data *da = NULL, *db = NULL;
    ck_assert_msg(tvds_data_create(ma, &da, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_data_create(mb, &db, &ctx) == TVDS_OK, "%s", ctx.msg);
    double moved = 0.0;
    for (int st = 0; st < 400; st++) {
        ck_assert_msg(tvds_step(ma, da, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_msg(tvds_step(mb, db, &ctx) == TVDS_OK, "%s", ctx.msg);
        for (int g = 0; g < TVDS_GROUP_COUNT; g++) {
            int na, nb;
            const char *const *nma, *const *nmb;
            const double *va, *vb;
            tvds_channels(da, g, &na, &nma, &va);
            tvds_channels(db, g, &nb, &nmb, &vb);
            ck_assert_int_eq(na, nb);
            for (int k = 0; k < na; k++)
                ck_assert_msg(memcmp(&va[k], &vb[k], sizeof(double)) == 0,
                              "step %d group %d channel %s: %.17g != %.17g", st, g, nma[k], va[k],
                              vb[k]);
        }
        moved = fmax(moved, fabs(ch(da, TVDS_GROUP_HISTORY, ch_index(da, 0, "mid_uz [m]"))));
    }
    ck_assert(moved > 0.0); /* the load reached the plate */
    tvds_data_free(&da);
    tvds_data_free(&db);
    tvds_model_free(&ma);
    tvds_model_free(&mb);
    free(a);
    free(b);
    free(c);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* split = area on the uniform 3 x 3 mesh: corner nodes F/36, edge nodes F/18, inner nodes F/9
 * (a quarter, a half and a whole face of 9); the sum F. The default split gives F/16 each. */
START_TEST(test_tributary_split)
{
    char dir[64], base[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_setload_");
    char *c = plate_case(dir, base, sizeof base);
    char *a = cat2(c, "[load push]\ndof = plate:top:uz\nf = 36\nsplit = area\n");
    tvds_model *m = read_case(a, base);
    /* Each weight is a 9-point Gauss sum over one to four faces, divided by the total: a few
     * tens of roundings of numbers of the same sign. */
    const double tol = 64 * DBL_EPSILON;
    for (long node = 1; node <= 16; node++) {
        long i = (node - 1) % 4, j = (node - 1) / 4;
        int edges = (i == 0 || i == 3) + (j == 0 || j == 3);
        double want = edges == 2 ? 1.0 : edges == 1 ? 2.0 : 4.0;
        double got = load_at(m, 0, node, TVDS_DIR_Z, 0.0);
        ck_assert_msg(fabs(got - want) <= tol * 36, "node %ld: %.17g, want %g", node, got, want);
    }
    ck_assert_double_eq_tol(load_sum(m, 0, TVDS_DIR_Z, 0.0), 36.0, tol * 36);
    tvds_model_free(&m);
    free(a);
    a = cat2(c, "[load push]\ndof = plate:top:uz\nf = 36\n");
    m = read_case(a, base);
    for (long node = 1; node <= 16; node++)
        ck_assert(load_at(m, 0, node, TVDS_DIR_Z, 0.0) == 36.0 / 16);
    tvds_model_free(&m);
    free(a);
    free(c);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* pressure = P on the flat face set: f = -P A n in total (n = +z, A = 15 mm x 15 mm), no
 * in-plane component, inner nodes -P h^2, edge nodes -P h^2 / 2, corners -P h^2 / 4. */
START_TEST(test_pressure_flat)
{
    char dir[64], base[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_setload_");
    char *c = plate_case(dir, base, sizeof base);
    char *a = cat2(c, "[load p]\nfaces = plate:top\npressure = ramp 2e5 0 1\n");
    tvds_model *m = read_case(a, base);
    const double h = 0.005, P = 1e5, tol = 64 * DBL_EPSILON; /* at t = 0.5 */
    ck_assert_int_eq(m->nload, 1 + 16);                      /* uz only */
    ck_assert_double_eq_tol(load_sum(m, 0, TVDS_DIR_Z, 0.5), -P * 9 * h * h, tol * P * 9 * h * h);
    ck_assert(load_sum(m, 0, TVDS_DIR_X, 0.5) == 0.0 && load_sum(m, 0, TVDS_DIR_Y, 0.5) == 0.0);
    for (long node = 1; node <= 16; node++) {
        long i = (node - 1) % 4, j = (node - 1) / 4;
        int edges = (i == 0 || i == 3) + (j == 0 || j == 3);
        double want = -P * h * h * (edges == 2 ? 0.25 : edges == 1 ? 0.5 : 1.0);
        ck_assert_double_eq_tol(load_at(m, 0, node, TVDS_DIR_Z, 0.5), want, tol * P * h * h);
    }
    tvds_model_free(&m);
    free(a);
    free(c);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* A one-face substructure: the trapezoid (0,0) (2,0) (1,1) (0,1) x L, tilted by th about x.
 * Its Jacobian is (3 - eta) L^2 / 8, so the consistent weights (integral of N_a dA) are
 * 5/12 L^2 (nodes 1, 2) and 1/3 L^2 (nodes 3, 4); f_a = -P w_a n, n = (0, -sin th, cos th). */
static void trapezoid_sub(const char *dir, double L, double th)
{
    const double xy[4][2] = {{0, 0}, {2, 0}, {1, 1}, {0, 1}};
    char dofs[1024] = "", M[1024], K[1024];
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < 3; i++) {
            char b[160];
            double y = xy[a][1] * L;
            snprintf(b, sizeof b, "%d %s %.17g %.17g %.17g\n", a + 1,
                     i == 0   ? "ux"
                     : i == 1 ? "uy"
                              : "uz",
                     xy[a][0] * L, y * cos(th), y * sin(th));
            strcat(dofs, b);
        }
    snprintf(M, sizeof M, "%%%%MatrixMarket matrix array real general\n12 12\n");
    snprintf(K, sizeof K, "%%%%MatrixMarket matrix array real general\n12 12\n");
    for (int j = 0; j < 12; j++)
        for (int i = 0; i < 12; i++) {
            strcat(M, i == j ? "1\n" : "0\n");
            strcat(K, i == j ? "1000\n" : "0\n");
        }
    tvds_test_write_file(dir, "dofs.txt", dofs);
    tvds_test_write_file(dir, "M.mtx", M);
    tvds_test_write_file(dir, "K.mtx", K);
    tvds_test_write_file(dir, "sets.txt", "face skin 1 2 3 4\n");
}

START_TEST(test_pressure_trapezoid)
{
    char dir[64], sub[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_setload_");
    snprintf(sub, sizeof sub, "%s/trap", dir);
    const double L = 0.01, th = 0.5236, P = 3e4;
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    trapezoid_sub(sub, L, th);
    tvds_model *m = read_case("[run]\nt_end = 1\ndt = 1e-3\n[substructure trap]\ndir = trap\n"
                              "[load p]\nfaces = trap:skin\npressure = 3e4\n",
                              dir);
    const double n[3] = {0.0, -sin(th), cos(th)}, w[4] = {5.0 / 12, 5.0 / 12, 1.0 / 3, 1.0 / 3};
    /* Coordinates carry one rounding each (cos, sin, x L); the 9-point sum a few more. */
    const double tol = 64 * DBL_EPSILON * P * L * L;
    double tot[3] = {0, 0, 0};
    for (int a = 0; a < 4; a++)
        for (int i = 0; i < 3; i++) {
            double got = load_at(m, 0, a + 1, i, 0.0), want = -P * w[a] * L * L * n[i];
            ck_assert_msg(fabs(got - want) <= tol, "node %d dir %d: %.17g, want %.17g", a + 1, i,
                          got, want);
            tot[i] += got;
        }
    ck_assert_double_eq_tol(tot[2], -P * 1.5 * L * L * cos(th), 4 * tol);
    tvds_model_free(&m);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* Refusals name the file and line. */
START_TEST(test_set_refusals)
{
    char dir[64], base[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_setload_");
    char *c = plate_case(dir, base, sizeof base);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[load x]\ndof = plate:TOPU:uz\nf = 1\n",
         "'TOPU' is neither a node number nor a node set or face set of substructure 'plate'"},
        {"[load x]\ndof = plate:ctr:uz\nf = 1\nsplit = area\n", "split = area needs a face set"},
        {"[load x]\ndof = plate:1:uz\nf = 1\nsplit = equal\n", "split only applies"},
        {"[load x]\ndof = plate:ctr:uz\nf = 1\nsplit = tributary\n", "split"},
        {"[load x]\nfaces = plate:ctr\npressure = 1\n", "has no face set 'ctr'"},
        {"[load x]\nfaces = plate:top\npressure = 1\nf = 2\n", "f does not apply"},
        {"[load x]\nfaces = plate:top\n", "faces: only with pressure"},
        {"[constraint x]\nterms = plate:row:ux plate:5:ux\n", "give it as the only term"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *a = cat2(c, bad[i].text);
        read_fails(a, base, bad[i].want);
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_model *m = NULL;
        (void)tvds_case_read_string(a, "case.ini", base, NULL, 0, &m, &ctx);
        ck_assert_msg(strstr(ctx.msg, "case.ini:"), "%s", ctx.msg);
        free(a);
    }
    free(c);
    (void)tvds_test_rmtree(dir);
}
END_TEST

Suite *case_loads_suite(void)
{
    Suite *s = suite_create("case_loads");
    TCase *tc = tcase_create("sets");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_set_equals_nodes);
    tcase_add_test(tc, test_tributary_split);
    tcase_add_test(tc, test_pressure_flat);
    tcase_add_test(tc, test_pressure_trapezoid);
    tcase_add_test(tc, test_set_refusals);
    suite_add_tcase(s, tc);
    return s;
}
