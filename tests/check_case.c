/* check_case.c — case files: every error with its line, --set overrides, relative paths, time
 * functions, a complete case with two substructures. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvds/tvds_case.h"
#include "core/test_hooks_impl.h"

static const double TWO_PI_T = 6.283185307179586476925286766559;

static int read_text(const char *text, const char *const *ov, int nov, tvds_model **m,
                     tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    return tvds_case_read_string(text, "case.ini", "tests/data/case", ov, nov, m, ctx);
}

/* ---- A complete case --------------------------------------------------------------------------
 */

START_TEST(test_valid_case)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read("tests/data/case/valid.ini", NULL, 0, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->name, "valid_case");
    ck_assert_str_eq(m->case_path, "tests/data/case/valid.ini");
    /* [run] */
    ck_assert_int_eq(m->opt.method, TVDS_METHOD_FILM);
    ck_assert_int_eq(m->opt.dt_auto, 0);
    ck_assert(m->opt.dt == 1e-5 && m->opt.t_end == 0.02 && m->opt.out_dt == 1e-4);
    ck_assert(m->opt.win_t0 == 0.005 && m->opt.win_t1 == 0.02);
    ck_assert(m->opt.film_tol == 1e-9 && m->opt.film_maxit == 50 && m->opt.v_stick == 1e-8);
    ck_assert_int_eq(m->opt.modal, 0);
    /* substructures, relative to the case file's directory */
    ck_assert_int_eq(m->nsub, 2);
    ck_assert_str_eq(m->subs[0]->name, "shoe");
    ck_assert_int_eq(m->subs[0]->n, 3);
    ck_assert_str_eq(m->subs[1]->name, "bar");
    ck_assert_int_eq(m->subs[1]->n, 7);
    ck_assert_int_eq(m->damping[0].kind, TVDS_DAMP_RAYLEIGH);
    ck_assert(m->damping[0].alpha == 0.24 && m->damping[0].beta == 4e-8);
    ck_assert(m->damping[0].alpha0 == 40 && m->damping[0].beta0 == 4e-8); /* beta0 = beta */
    ck_assert(m->damping[0].t_hold == 0.2 && m->damping[0].t_ramp == 0.05);
    ck_assert_int_eq(m->damping[1].kind, TVDS_DAMP_NONE);
    /* contacts */
    ck_assert_int_eq(m->ncontact, 2);
    const tvds_contact *c = &m->contacts[0];
    ck_assert_str_eq(c->name, "tip");
    ck_assert_int_eq(c->dim, 2);
    ck_assert_int_eq(c->slave_sub, 0);
    ck_assert_int_eq(c->nslave, 1);
    ck_assert_int_eq(c->slave_nodes[0], 1);
    ck_assert_int_eq(c->master_kind, TVDS_MASTER_SURFACE);
    ck_assert_int_eq(c->master_sub, 1);
    ck_assert_int_eq(c->nmaster, 3);
    ck_assert(c->master_nodes[0] == 10 && c->master_nodes[1] == 20 && c->master_nodes[2] == 30);
    ck_assert(c->mu_s == 0.3 && c->mu_k == 0.3);
    ck_assert_int_eq(c->initially_stuck, 1);
    ck_assert_int_eq(c->exact_stick, 1);
    ck_assert(c->v_stick == 1e-8); /* inherited from [run] */
    ck_assert_int_eq(c->law, TVDS_LAW_LAGRANGE);
    c = &m->contacts[1];
    ck_assert_int_eq(c->master_kind, TVDS_MASTER_RIGID);
    ck_assert_int_eq(c->dim, 3);
    ck_assert(c->rigid_normal[0] == 0 && c->rigid_normal[1] == 0 && c->rigid_normal[2] == 1);
    double dot = c->rigid_t1[0] * c->rigid_normal[0] + c->rigid_t1[1] * c->rigid_normal[1] +
                 c->rigid_t1[2] * c->rigid_normal[2];
    ck_assert(fabs(dot) < 1e-15);
    ck_assert(fabs(hypot(hypot(c->rigid_t1[0], c->rigid_t1[1]), c->rigid_t1[2]) - 1) < 1e-15);
    ck_assert(c->rigid_point[2] == -0.001);
    ck_assert_int_eq(c->anisotropic, 1);
    ck_assert(c->mu_axis[0] == 0.1 && c->mu_axis[1] == 0);
    ck_assert_int_eq(c->law, TVDS_LAW_PENALTY);
    ck_assert(c->kn == 20 && c->pen0 == 0.5 && c->kt == 4e5 && c->cn == 0 && c->ct == 0);
    ck_assert(tvds_fn_eval(&c->rigid_motion[0], 0.005) == 0.005);
    /* constraints */
    ck_assert_int_eq(m->nbil, 2);
    ck_assert_int_eq(m->bil[0].nterms, 2);
    ck_assert(m->bil[0].terms[0].sub == 0 && m->bil[0].terms[0].dof == 0);
    ck_assert(m->bil[0].terms[1].dof == 1 && m->bil[0].terms[1].coef == -0.7071067811865476);
    ck_assert(m->bil[1].terms[0].sub == 1 && m->bil[1].terms[0].dof == 4 &&
              m->bil[1].terms[0].coef == 1.0);
    ck_assert_int_eq(m->bil[1].value.kind, TVDS_FN_SMOOTH_RAMP);
    ck_assert(fabs(tvds_fn_eval(&m->bil[1].value, 0.05) - (0.0015 + 0.001)) < 1e-15);
    /* loads: inline table continued over an indented line; table file relative to the case */
    ck_assert_int_eq(m->nload, 2);
    ck_assert(m->loads[0].sub == 1 && m->loads[0].dof == 3);
    ck_assert_int_eq(m->loads[0].fn.ntab, 3);
    ck_assert(tvds_fn_eval(&m->loads[0].fn, 0.005) == -0.1);
    ck_assert_int_eq(m->loads[1].fn.ntab, 3);
    ck_assert(tvds_fn_eval(&m->loads[1].fn, 0.015) == 1.5 - 0.5);
    /* gravity, base */
    ck_assert(m->gravity[0] == 0 && m->gravity[1] == -10 && m->gravity[2] == 0);
    ck_assert(tvds_fn_eval(&m->gravity_fn, 3.0) == 1.0);
    ck_assert_int_eq(m->has_base_acc, 1);
    ck_assert(m->base_dir[0] == 1 && m->base_acc.kind == TVDS_FN_HARMONIC && m->base_acc.freq == 1);
    /* elements */
    ck_assert_int_eq(m->nel, 2);
    ck_assert(m->elements[0].kind == TVDS_EL_SPRING && m->elements[0].k == 3e-5);
    ck_assert(m->elements[0].sub[0] == 0 && m->elements[0].dof[0] == 2 &&
              m->elements[0].sub[1] == -1);
    const tvds_element *e = &m->elements[1];
    ck_assert(e->kind == TVDS_EL_ELASTIC_FRICTION && e->k == 1e5 && e->kindF == TVDS_EF_STICK_SLIP);
    ck_assert(tvds_fn_eval(&e->Fst, 0) == 1.2 && tvds_fn_eval(&e->Fsl, 0) == 1.0);
    /* initial conditions: one DoF, then a node set of three */
    ck_assert_int_eq(m->nic, 4);
    ck_assert(m->ics[0].sub == 0 && m->ics[0].dof == 0 && m->ics[0].u0 == 6.010407640085654e-4);
    ck_assert(m->ics[1].sub == 1 && m->ics[1].dof == 1 && m->ics[1].v0 == 0.01);
    ck_assert(m->ics[3].dof == 5);
    /* probes */
    ck_assert_int_eq(m->nprobe, 3);
    ck_assert(m->probes[0].kind == TVDS_PROBE_U && m->probes[0].dof == 1 && m->probes[0].rec == -1);
    ck_assert(m->probes[1].kind == TVDS_PROBE_V && m->probes[1].dof == -1 && m->probes[1].rec == 0);
    ck_assert(m->probes[2].kind == TVDS_PROBE_A && m->probes[2].sub == 1 && m->probes[2].dof == 6);

    /* The summary names what it read. */
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_model_print(m, f, &ctx), TVDS_OK);
    long len = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)len + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)len, f), len);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "7 DoFs (6 physical, 1 modal)"));
    ck_assert_ptr_nonnull(strstr(buf, "stable dt"));
    ck_assert_ptr_nonnull(strstr(buf, "tip "));
    free(buf);
    tvds_model_free(&m);
    ck_assert_ptr_null(m);
}
END_TEST

/* Frequencies of the test substructures are known in closed form: sqrt(k/m) / 2 pi. */
START_TEST(test_freq_range)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_case_read("tests/data/case/valid.ini", NULL, 0, &m, &ctx), TVDS_OK);
    double lo, hi;
    ck_assert_int_eq(tvds_substructure_freq_range(m->subs[0], &lo, &hi, &ctx), TVDS_OK);
    ck_assert(fabs(lo - 100.0 / TWO_PI_T) < 1e-12 * 100 &&
              fabs(hi - 100.0 / TWO_PI_T) < 1e-12 * 100);
    ck_assert_int_eq(tvds_substructure_freq_range(m->subs[1], &lo, &hi, &ctx), TVDS_OK);
    ck_assert(fabs(lo - sqrt(1e5) / TWO_PI_T) < 1e-9 && fabs(hi - 2000.0 / TWO_PI_T) < 1e-9);
    tvds_model_free(&m);
}
END_TEST

/* surface = c1 makes the master surface the C1 master kind; c0 (the default) keeps straight
 * segments; an override switches it. */
START_TEST(test_surface_key)
{
    static const char *text = "[run]\nt_end = 1\n[substructure shoe]\ndir = shoe\n"
                              "[substructure bar]\ndir = bar\n[contact c]\nslave = shoe:1\n"
                              "master = bar:top\nsurface = c1\n";
    tvds_model *m = NULL;
    tvds_ctx ctx;
    ck_assert_msg(read_text(text, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->contacts[0].master_kind, TVDS_MASTER_SURFACE_C1);
    ck_assert_int_eq(m->contacts[0].nmaster, 3);
    tvds_model_free(&m);
    const char *ov[1] = {"contact.c.surface=c0"};
    ck_assert_msg(read_text(text, ov, 1, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->contacts[0].master_kind, TVDS_MASTER_SURFACE);
    tvds_model_free(&m);
}
END_TEST

/* ---- Errors name the line ------------------------------------------------------------------- */

#define HEAD  "[run]\nt_end = 1\n[substructure shoe]\ndir = shoe\n" /* lines 1-4 */
#define HEAD2 HEAD "[substructure bar]\ndir = bar\n"                /* lines 1-6 */

static const struct {
    const char *text;
    int line;
    const char *what; /* substring of the message */
} bad_cases[] = {
    {HEAD "[foo]\nx = 1\n", 5, "unknown section [foo]"},
    {HEAD "[contact]\nslave = shoe:1\n", 5, "needs a name"},
    {HEAD "[run x]\n", 5, "takes no name"},
    {HEAD "[run]\n", 5, "duplicate section [run] (first at line 1)"},
    {HEAD "[substructure shoe]\ndir = shoe\n", 5, "duplicate section"},
    {"[run]\nt_end = 1\nt_end = 2\n", 3, "duplicate key 't_end' in [run] (first at line 2)"},
    {"[run]\nt_end = 1\nspeed = 2\n[substructure shoe]\ndir = shoe\n", 3,
     "unknown key 'speed' in [run]"},
    {"[run]\ndt = 1e-5\n[substructure shoe]\ndir = shoe\n", 1, "[run]: missing key 't_end'"},
    {"t_end = 1\n[run]\n", 1, "key outside any section"},
    {"[run]\nt_end 1\n", 2, "expected 'key = value'"},
    {"[run\nt_end = 1\n", 1, "without closing ']'"},
    {"[run]\nt_end = 1\n[substructure shoe]\ndir = shoe\n[load f]\ndof = shoe:1:ux\nf = 1\n"
     "[contact a b]\n",
     8, "more than two words"},
    {"[run]\nt_end = 1x\n[substructure shoe]\ndir = shoe\n", 2, "'1x' is not a finite number"},
    {"[run]\nt_end = nan\n[substructure shoe]\ndir = shoe\n", 2, "'nan' is not a finite number"},
    {"[run]\nt_end = inf\n[substructure shoe]\ndir = shoe\n", 2, "'inf' is not a finite number"},
    {"[run]\nt_end = 1e999\n[substructure shoe]\ndir = shoe\n", 2, "not a finite number"},
    {"[run]\nt_end = -1\n[substructure shoe]\ndir = shoe\n", 2, "t_end = -1 must be > 0"},
    {"[run]\nt_end = 1\ndt = 0\n[substructure shoe]\ndir = shoe\n", 3, "dt = 0 must be > 0"},
    {"[run]\nt_end = 1\ndt_safety = 1.5\n[substructure shoe]\ndir = shoe\n", 3, "outside (0, 1]"},
    {"[run]\nt_end = 1\nmethod = subs-d\n[substructure shoe]\ndir = shoe\n", 3,
     "'subs-d' is not one of subs-a, subs-b, subs-c or film"},
    {"[run]\nt_end = 1\nwindow = 0.1\n[substructure shoe]\ndir = shoe\n", 3,
     "window: expected 2 numbers, got 1"},
    {"[run]\nt_end = 1\nwindow = 0.5 0.2\n[substructure shoe]\ndir = shoe\n", 3, "T0 < T1"},
    {"[run]\nt_end = 1\nfilm_maxit = 2.5\n[substructure shoe]\ndir = shoe\n", 3,
     "'2.5' is not an integer"},
    {"[run]\nt_end = 1\nallow_unstable_dt = maybe\n[substructure shoe]\ndir = shoe\n", 3,
     "expected yes or no"},
    {"[run]\nt_end = 1\n", 2, "no [substructure NAME] section"},
    {HEAD "[substructure x]\n", 5, "[substructure x]: missing key 'dir'"},
    {HEAD "damping = rayleigh\nalpha = -1\n", 6, "alpha = -1 must be >= 0"},
    {HEAD "alpha = 1\n", 5, "alpha only applies with damping = rayleigh"},
    {HEAD "damping = matrix\n", 5, "has no C matrix"},
    {HEAD "[load f]\ndof = beam:1:ux\nf = 1\n", 6, "unknown substructure 'beam'"},
    {HEAD "[load f]\ndof = shoe:7:ux\nf = 1\n", 6, "substructure 'shoe' has no DoF ux at node 7"},
    {HEAD "[load f]\ndof = shoe:1:rz\nf = 1\n", 6, "has no DoF rz at node 1"},
    {HEAD "[load f]\ndof = shoe:1:uw\nf = 1\n", 6, "unknown direction 'uw'"},
    {HEAD "[load f]\ndof = shoe:1\nf = 1\n", 6, "is not SUB:NODE:DIR"},
    {HEAD "[load f]\ndof = shoe:1:ux\n", 5, "[load f]: missing key 'f'"},
    {HEAD "[load f]\ndof = shoe:1:ux\nf = ramp 1 2\n", 7, "f: 'ramp' takes 3 numbers"},
    {HEAD "[load f]\ndof = shoe:1:ux\nf = ramp 1 2 1\n", 7, "needs T1 > T0"},
    {HEAD "[load f]\ndof = shoe:1:ux\nf = sine 1 2\n", 7, "unknown time function 'sine'"},
    {HEAD "[load f]\ndof = shoe:1:ux\nf = table 0 1 0 2\n", 7, "increase strictly"},
    {HEAD "[load f]\ndof = shoe:1:ux\nf = table nofile.txt\n", 7, "cannot open table file"},
    {HEAD2 "[contact c]\nslave = shoe:nothere\nmaster = bar:top\n", 8,
     "substructure 'shoe' has no node set 'nothere'"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = bar:end\n", 9, "at least 2 nodes"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = bar:top\nmu = 0.3\nmu_s = 0.4\n", 11,
     "either mu or mu_s/mu_k"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = bar:top\nkn = 5\n", 10,
     "kn only applies with law = penalty"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = bar:top\nnormal = 0 1 0\n", 10,
     "normal only applies with master = rigid or disc or SUB:FACESET with omega (not a node-set "
     "master surface)"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = rigid\nnormal = 0 1 0\nt1 = 0 1 1\n", 11,
     "not perpendicular"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = rigid\n", 7, "missing key 'normal'"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = rigid\nnormal = 0 1 0\nsurface = c1\n", 11,
     "surface only applies with master = SUB:NODESET (2D) (not a rigid master)"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = bar:top\nsurface = c2\n", 10,
     "'c2' is not one of c0 or c1"},
    {HEAD2 "[contact c]\nslave = shoe:1\nmaster = rigid\nnormal = 0 1 0\nlaw = penalty\n", 7,
     "missing key 'kn'"},
    {HEAD2 "[constraint r]\nterms = shoe:1:ux*0 shoe:1:uy\n", 8, "not a finite nonzero number"},
    {HEAD2 "[constraint r]\nterms = shoe:1:ux shoe:1:ux*2\n", 8, "appears twice"},
    {HEAD2 "[element e]\ntype = spring\ndof1 = shoe:1:ux\nk = 5\nFst = 1\n", 11,
     "Fst only applies to type = elastic_friction"},
    {HEAD2 "[element e]\ntype = lever\ndof1 = shoe:1:ux\n", 8, "'lever' is not one of"},
    {HEAD2 "[initial i]\ndof = bar:top:uz\n", 8, "node 10 of set 'top' has no DoF uz"},
    {HEAD2 "[initial i]\ndof = shoe:1:ux\n[initial j]\ndof = shoe:1:ux\nu0 = 1\n", 10,
     "already has initial conditions"},
    {HEAD2 "[probe p]\ndof = shoe:1:ux\npoint = bar:mid\n", 9, "either dof or point"},
    {HEAD2 "[probe p]\npoint = bar:top\n", 8, "has no recovery point 'top'"},
    {HEAD2 "[probe p]\nquantity = x\ndof = shoe:1:ux\n", 8, "'x' is not one of u, v or a"},
    {HEAD2 "[probe p]\ndof = bar:mode:2\n", 8, "has no modal DoF 2"},
    {HEAD "[gravity]\ng = 0 -10\n", 6, "g: expected 3 numbers, got 2"},
    {HEAD "[base]\ndir = 0 0 0\nacc = 1\n", 6, "dir: zero vector"},
};

START_TEST(test_errors_name_the_line)
{
    tvds_ctx ctx;
    tvds_model *m = (tvds_model *)&ctx; /* must be cleared */
    int rc = read_text(bad_cases[_i].text, NULL, 0, &m, &ctx);
    ck_assert_msg(rc < 0, "case %d accepted", _i);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(ctx.status, rc);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "case.ini:%d: ", bad_cases[_i].line);
    ck_assert_msg(strncmp(ctx.msg, prefix, strlen(prefix)) == 0,
                  "case %d: expected '%s...', got '%s'", _i, prefix, ctx.msg);
    ck_assert_msg(strstr(ctx.msg, bad_cases[_i].what) != NULL, "case %d: '%s' not in '%s'", _i,
                  bad_cases[_i].what, ctx.msg);
    ck_assert_ptr_null(strchr(ctx.msg, '\n'));
}
END_TEST

START_TEST(test_long_line)
{
    /* 198 characters on a line are fine (CRLF or not); 199 are an error naming the line. */
    for (int len = 198; len <= 199; len++)
        for (int crlf = 0; crlf < 2; crlf++) {
            char text[512];
            int n = snprintf(text, sizeof text, "[run]\nt_end = 1\n[substructure shoe]\n; ");
            memset(text + n, 'x', (size_t)len - 2);
            snprintf(text + n + len - 2, sizeof text - (size_t)(n + len - 2), "%s\ndir = shoe\n",
                     crlf ? "\r" : "");
            tvds_ctx ctx;
            tvds_model *m = NULL;
            int rc = read_text(text, NULL, 0, &m, &ctx);
            if (len == 198) {
                ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
                tvds_model_free(&m);
            } else {
                ck_assert_int_eq(rc, TVDS_ERR_PARSE);
                ck_assert_msg(strncmp(ctx.msg, "case.ini:4: line longer than 198", 32) == 0, "%s",
                              ctx.msg);
            }
        }
}
END_TEST

/* A missing substructure directory: the reader's own message (naming the file) propagates. */
START_TEST(test_substructure_error_propagates)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    int rc =
        read_text("[run]\nt_end = 1\n[substructure s]\ndir = no_such_dir\n", NULL, 0, &m, &ctx);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "no_such_dir"));
    /* Relative to the case file's directory, not the working directory. */
    ck_assert_ptr_nonnull(strstr(ctx.msg, "tests/data/case/no_such_dir"));
}
END_TEST

START_TEST(test_missing_case_file)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_int_eq(tvds_case_read("tests/data/case/none.ini", NULL, 0, &m, &ctx), TVDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "tests/data/case/none.ini"));
}
END_TEST

/* ---- --set ---------------------------------------------------------------------------------- */

static const char *const base_case = "[run]\nt_end = 1\n[substructure shoe]\ndir = shoe\n"
                                     "[substructure bar]\ndir = bar\n"
                                     "[contact tip]\nslave = shoe:1\nmaster = bar:top\nmu = 0.3\n";

START_TEST(test_set_overrides)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    const char *ov[] = {"run.t_end=0.5", "run.out_dt = 1e-3", "contact.tip.mu=0.2",
                        "gravity.g=0 -9.81 0", "run.method=subs-c"};
    int rc = read_text(base_case, ov, 5, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert(m->opt.t_end == 0.5);                                      /* existing key replaced */
    ck_assert(m->opt.out_dt == 1e-3);                                    /* absent key added */
    ck_assert(m->contacts[0].mu_s == 0.2 && m->contacts[0].mu_k == 0.2); /* named section */
    ck_assert(m->gravity[1] == -9.81); /* absent unnamed section added */
    ck_assert_int_eq(m->opt.method, TVDS_METHOD_SUBS_C);
    tvds_model_free(&m);
}
END_TEST

/* The reference paths of the engine are run options: run.search and run.reuse, with --set. */
START_TEST(test_set_reference_paths)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    ck_assert_msg(read_text(base_case, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->opt.search, TVDS_SEARCH_WALK);
    ck_assert_int_eq(m->opt.reuse_off, 0);
    tvds_model_free(&m);
    const char *ov[] = {"run.search=scan", "run.reuse=off"};
    ck_assert_msg(read_text(base_case, ov, 2, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->opt.search, TVDS_SEARCH_SCAN);
    ck_assert_int_eq(m->opt.reuse_off, 1);
    tvds_model_free(&m);
    const char *bad[] = {"run.search=global"};
    ck_assert_int_lt(read_text(base_case, bad, 1, &m, &ctx), 0);
    ck_assert_msg(strstr(ctx.msg, "walk") && strstr(ctx.msg, "scan"), "%s", ctx.msg);
}
END_TEST

static const struct {
    const char *set;
    const char *what;
} bad_sets[] = {
    {"run.dt=abc", "dt: 'abc' is not a finite number"},
    {"run.t_end=-2", "t_end = -2 must be > 0"},
    {"foo.x=1", "unknown section type 'foo'"},
    {"run.speed=3", "unknown key 'speed' in [run]"},
    {"contact.floor.mu=0.1", "no section [contact floor]"},
    {"contact.mu=0.1", "sections are named"},
    {"run.x.t_end=1", "takes no name"},
    {"run.t_end", "expected section.key=value"},
    {"contact.tip.master=bar:nothere", "has no node set 'nothere'"},
    {"load.f.f=1", "no section [load f]"},
};

START_TEST(test_bad_set)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    const char *ov[] = {"run.out_dt=0", bad_sets[_i].set};
    int rc = read_text(base_case, ov, 2, &m, &ctx);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_null(m);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "--set %s: ", bad_sets[_i].set);
    ck_assert_msg(strncmp(ctx.msg, prefix, strlen(prefix)) == 0, "expected '%s', got '%s'", prefix,
                  ctx.msg);
    ck_assert_msg(strstr(ctx.msg, bad_sets[_i].what) != NULL, "'%s' not in '%s'", bad_sets[_i].what,
                  ctx.msg);
}
END_TEST

/* An added section still needs its required keys, reported against the --set that added it. */
START_TEST(test_set_added_section_incomplete)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    const char *ov[] = {"base.acc=1"};
    ck_assert_int_lt(read_text(base_case, ov, 1, &m, &ctx), 0);
    ck_assert_msg(strcmp(ctx.msg, "--set base.acc=1: [base]: missing key 'dir'") == 0, "%s",
                  ctx.msg);
}
END_TEST

/* ---- Time functions ------------------------------------------------------------------------- */

START_TEST(test_time_functions)
{
    tvds_fn f;
    char msg[256];
    ck_assert_int_eq(tvds_fn_parse("0.25", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(f.kind == TVDS_FN_CONST && tvds_fn_eval(&f, 7) == 0.25);
    ck_assert_int_eq(tvds_fn_parse("const -3", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(tvds_fn_eval(&f, 0) == -3);
    ck_assert_int_eq(tvds_fn_parse("ramp 2 1 3", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(tvds_fn_eval(&f, 0) == 0 && tvds_fn_eval(&f, 2) == 1 && tvds_fn_eval(&f, 9) == 2);
    /* smooth ramp: half way at the middle, zero slope at both ends */
    ck_assert_int_eq(tvds_fn_parse("smooth -0.2 0 0.1", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(fabs(tvds_fn_eval(&f, 0.05) + 0.1) < 1e-16);
    ck_assert(tvds_fn_deriv(&f, 0.0, 1) == 0 && fabs(tvds_fn_deriv(&f, 0.1, 1)) < 1e-12);
    ck_assert_int_eq(tvds_fn_parse("harmonic 1.5 2", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(f.kind == TVDS_FN_HARMONIC && f.freq == 2 && f.phase == 0);
    ck_assert(fabs(tvds_fn_eval(&f, 0.125) - 1.5) < 1e-15);
    ck_assert_int_eq(
        tvds_fn_parse("harmonic 1 1 1.5707963267948966 + 2", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(fabs(tvds_fn_eval(&f, 0) - 3.0) < 1e-15);
    ck_assert_int_eq(tvds_fn_parse("table 0 0 1 10 3 10 - 1", NULL, &f, msg, sizeof msg), TVDS_OK);
    ck_assert(f.kind == TVDS_FN_TABLE && f.ntab == 3 && f.offset == -1);
    ck_assert(tvds_fn_eval(&f, 0.5) == 4 && tvds_fn_eval(&f, 5) == 9 && tvds_fn_eval(&f, -1) == -1);
    /* format and parse back: identical function */
    char text[512];
    tvds_fn g;
    tvds_fn_format(&f, text, sizeof text);
    ck_assert_int_eq(tvds_fn_parse(text, NULL, &g, msg, sizeof msg), TVDS_OK);
    ck_assert(g.ntab == 3 && g.offset == f.offset);
    for (int i = 0; i < 3; i++)
        ck_assert(g.tab_t[i] == f.tab_t[i] && g.tab_v[i] == f.tab_v[i]);
    tvds_fn_clear(&g);
    tvds_fn_clear(&f);
    ck_assert_int_eq(tvds_fn_parse("table force.txt", "tests/data/case", &f, msg, sizeof msg),
                     TVDS_OK);
    ck_assert(f.ntab == 3 && tvds_fn_eval(&f, 0.005) == 0.75);
    tvds_fn_clear(&f);

    static const char *const bad[] = {"",
                                      "ramp 1 2",
                                      "smooth 1 1 1",
                                      "harmonic 1",
                                      "harmonic 1 -1",
                                      "harmonic 1 2 3 4",
                                      "const",
                                      "table 0 1 2",
                                      "table 0 1 0 2",
                                      "table",
                                      "wave 1",
                                      "1 + x",
                                      "nan",
                                      "table 0 inf",
                                      "1 2",
                                      "ramp 1 0 1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = tvds_fn_parse(bad[i], NULL, &f, msg, sizeof msg);
        ck_assert_msg(rc < 0, "'%s' accepted", bad[i]);
        ck_assert(msg[0] != '\0');
        ck_assert(f.ntab == 0 && f.tab_t == NULL);
    }
}
END_TEST

/* Comments (';' and '#' at line start, ' ;' inline), blank lines, CRLF, ':' separator. */
START_TEST(test_ini_syntax)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    const char *text = "; comment\r\n# another\r\n\r\n[run]\r\nt_end = 2 ; inline\r\n"
                       "dt : 1e-3\r\n[substructure shoe]\r\ndir = shoe\r\n";
    int rc = read_text(text, NULL, 0, &m, &ctx);
    ck_assert_msg(rc == TVDS_OK, "%s", ctx.msg);
    ck_assert(m->opt.t_end == 2 && m->opt.dt == 1e-3 && !m->opt.dt_auto);
    ck_assert_str_eq(m->name, "case");                   /* from "case.ini" */
    ck_assert_int_eq(m->opt.method, TVDS_METHOD_SUBS_B); /* defaults */
    ck_assert(m->opt.dt_safety == 0.9 && m->opt.film_maxit == 100 &&
              m->opt.modal == TVDS_PATH_AUTO);
    tvds_model_free(&m);
}
END_TEST

/* Every allocation failure is reported cleanly (no leak, no crash; ASan checks). */
START_TEST(test_alloc_failures)
{
    tvds_ctx ctx;
    tvds_model *m = NULL;
    const char *ov[] = {"run.out_dt=1e-3"};
    long n0 = tvds_alloc_count();
    ck_assert_int_eq(read_text(base_case, ov, 1, &m, &ctx), TVDS_OK);
    long need = tvds_alloc_count() - n0;
    tvds_model_free(&m);
    for (long k = 0; k < need; k++) {
        tvds_alloc_fail_after(k);
        int rc = read_text(base_case, ov, 1, &m, &ctx);
        tvds_alloc_fail_after(-1);
        ck_assert_msg(rc == TVDS_ERR_NOMEM && m == NULL, "allocation %ld: rc %d (%s)", k, rc,
                      ctx.msg);
    }
}
END_TEST

Suite *case_suite(void)
{
    Suite *s = suite_create("case");
    TCase *tc = tcase_create("case");
    tcase_add_test(tc, test_valid_case);
    tcase_add_test(tc, test_freq_range);
    tcase_add_test(tc, test_surface_key);
    tcase_add_loop_test(tc, test_errors_name_the_line, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_long_line);
    tcase_add_test(tc, test_substructure_error_propagates);
    tcase_add_test(tc, test_missing_case_file);
    tcase_add_test(tc, test_set_overrides);
    tcase_add_test(tc, test_set_reference_paths);
    tcase_add_loop_test(tc, test_bad_set, 0, (int)(sizeof bad_sets / sizeof bad_sets[0]));
    tcase_add_test(tc, test_set_added_section_incomplete);
    tcase_add_test(tc, test_time_functions);
    tcase_add_test(tc, test_ini_syntax);
    tcase_add_test(tc, test_alloc_failures);
    suite_add_tcase(s, tc);
    return s;
}
