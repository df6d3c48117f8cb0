/* check_import_fe.c — `tvds import abaqus` and `tvds import nastran`: files written from the
 * documented layouts (Abaqus matrix output lines; Nastran DMIG in small, large and free field
 * with continuations, IFO 1 and 6, TIN 1 and 2; GRID), every field read, every malformed line a
 * file:line error, allocation failures. The round trip through CalculiX is in check_import.c. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TVDS_TEST_CHOLMOD
#include "tvds_test.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "core/test_hooks_impl.h"

static char dir[256];

static void setup(void)
{
    cc_setup();
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_check_import_fe_");
}

static void teardown(void)
{
    cc_teardown();
    if (tvds_test_rmtree(dir) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static const char *path_of(const char *file)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, file);
    return p[k];
}

/* Append a small field line (fields of 8 columns, left-justified) or a large field line
 * (name, then fields of 16 columns) to buf; NULL ends the fields. */
static void card(char *buf, size_t n, int width, ...)
{
    va_list ap;
    va_start(ap, width);
    size_t l = strlen(buf);
    const char *f = va_arg(ap, const char *);
    l += (size_t)snprintf(buf + l, n - l, "%-8s", f);
    while ((f = va_arg(ap, const char *)) != NULL)
        l += (size_t)snprintf(buf + l, n - l, "%-*s", width, f);
    snprintf(buf + l, n - l, "\n");
    va_end(ap);
}

/* Dense symmetric matrix of an upper-triangle CHOLMOD matrix (n x n, column-major). */
static void dense(const cholmod_sparse *A, double *D)
{
    int n = (int)A->nrow;
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    memset(D, 0, sizeof(double) * n * n);
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            D[Ai[p] + n * j] = Ax[p];
            D[j + n * Ai[p]] = Ax[p];
        }
}

/* ---- Abaqus ---------------------------------------------------------------------------- */

static void abaqus_job(void)
{
    tvds_test_write_file(dir, "job.inp",
                         "** flat deck\n*NODE, NSET=ALL\n1, 0., 0., 0.\n2, 0.5, 0.25, 0.\n"
                         "7, 1., 0., 0.\n*NSET, NSET=TIP\n2, 7\n*Nset, nset=GROUND\n7\n");
    /* K: both separators, a trailing comma, a comment and a keyword line, one term given in
     * both triangles (equal), the others in either. */
    tvds_test_write_file(dir, "job_STIF2.mtx",
                         "** stiffness\n*MATRIX OUTPUT\n"
                         "1,1, 1,1, 4000.\n"
                         "2 1 1 1 -1000.\n"
                         "1,1, 2,1, -1000.,\n"
                         "2,1, 2,1, 4.0e3\n"
                         "2 , 2 , 2 , 2 , 10.0\n"
                         "2,2, 1,1, 0.\n");
    /* M: the upper triangle only. */
    tvds_test_write_file(dir, "job_MASS2.mtx",
                         "1,1, 1,1, 1.0\n1,1, 2,1, 0.1\n2,1, 2,1, 1.0\n2,2, 2,2, 1.0\n");
}

static int abaqus(tvds_fe_model **m, tvds_ccx_info *info, int deck, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    return tvds_import_abaqus(path_of("job_STIF2.mtx"), path_of("job_MASS2.mtx"),
                              deck ? path_of("job.inp") : NULL, m, info, &cc, ctx);
}

START_TEST(test_abaqus_fields)
{
    abaqus_job();
    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(abaqus(&m, &info, 1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->n, 3); /* 1 ux, 2 ux, 2 uy: node 7 has no DoF */
    ck_assert_int_eq(m->dofs[0].node, 1);
    ck_assert_int_eq(m->dofs[1].node, 2);
    ck_assert_int_eq(m->dofs[1].dir, TVDS_DIR_X);
    ck_assert_int_eq(m->dofs[2].dir, TVDS_DIR_Y);
    ck_assert_double_eq(m->dofs[2].xyz[0], 0.5);
    ck_assert_double_eq(m->dofs[2].xyz[1], 0.25);
    ck_assert_int_eq(info.nodes, 3);
    /* ALL {1, 2}, TIP {2} (7 has no DoF); GROUND {7} left out. */
    ck_assert_int_eq(m->nsets, 2);
    ck_assert_str_eq(m->sets[1].name, "TIP");
    ck_assert_int_eq(m->sets[1].n, 1);
    ck_assert_int_eq(info.sets_dropped, 1);
    ck_assert_str_eq(info.first_dropped, "GROUND");
    double K[9], M[9];
    dense(m->K, K);
    dense(m->M, M);
    const double Kw[9] = {4000, -1000, 0, -1000, 4000, 0, 0, 0, 10};
    const double Mw[9] = {1, 0.1, 0, 0.1, 1, 0, 0, 0, 1};
    for (int k = 0; k < 9; k++) {
        ck_assert_double_eq(K[k], Kw[k]);
        ck_assert_double_eq(M[k], Mw[k]);
    }
    ck_assert_int_eq((int)cholmod_nnz(m->K, &cc), 4); /* the explicit zero dropped */
    ck_assert_int_eq(m->K->stype, 1);
    tvds_fe_paths names = {"M", "K", "dofs", NULL, 1};
    ck_assert_msg(tvds_fe_model_check(m, &names, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_fe_model_free(&m, &cc);
    /* Without the deck: coordinates 0, no sets. */
    ck_assert_msg(abaqus(&m, &info, 0, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->nsets, 0);
    ck_assert_double_eq(m->dofs[2].xyz[0], 0.0);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

START_TEST(test_abaqus_errors)
{
    static const struct {
        const char *file, *text, *expect;
    } cases[] = {
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n2,1, 1,1, -1000.\n1,1, 2,1, -999.\n2,1, 2,1, 1.\n",
         "job_STIF2.mtx:3: K: the term of (node 1 ux, node 2 ux) is -999 but its mirror on line 2 "
         "is -1000"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n2,1, 2,1, 1.\n2,2,2,2,1.\n1,1, 1,1, 4000.\n",
         "job_STIF2.mtx:4: K: the term of (node 1 ux, node 1 ux) repeats the one on line 1"},
        {"job_MASS2.mtx", "1,1, 1,1, 1.0\n2,1, 2,1, 1.0\n2,2, 1,1, 0.5\n",
         "job_MASS2.mtx: M has no (nonzero) diagonal term for node 2 uy"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n-3,1, 1,1, 1.\n",
         "job_STIF2.mtx:2: node -3: a negative label is a node Abaqus adds internally"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n2,8, 2,8, 1.\n",
         "job_STIF2.mtx:2: node 2 DoF 8: tvds maps DoFs 1-3"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n1,1, 1, 4000.\n",
         "job_STIF2.mtx:2: expected 'row node, row DoF, column node, column DoF, value', found "
         "'1,1, 1, 4000.'"},
        {"job_STIF2.mtx", "1,1,,1,1, 4000.\n", "job_STIF2.mtx:1: expected 'row node"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.x\n", "job_STIF2.mtx:1: expected 'row node"},
        {"job_STIF2.mtx", "1,1, 1,1, inf\n", "job_STIF2.mtx:1: value is not finite"},
        {"job_STIF2.mtx", "** nothing\n", "job_STIF2.mtx: no matrix entry"},
        {"job_MASS2.mtx", "1,1, 1,1, 1.0\n2,1, 2,1, 1.0\n2,2, 2,2, 1.",
         "job_MASS2.mtx:3: the file ends in the middle of a line (truncated file?)"},
        {"job_STIF2.mtx", "1,1, 1,1, 4000.\n9,1, 9,1, 1.\n",
         "job_STIF2.mtx:2: K: node 9 has no coordinates in"},
        {"job.inp", "*Heading\n*Part, name=P\n*Node\n1, 0., 0., 0.\n",
         "job.inp:2: *PART: tvds reads a flat deck"},
        {"job.inp", "*NODE\n1, 0, zero\n", "job.inp:2: *NODE: coordinate 'zero' is not a finite"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        abaqus_job();
        tvds_test_write_file(dir, cases[k].file, cases[k].text);
        tvds_ctx ctx;
        tvds_fe_model *m = NULL;
        ck_assert_int_ne(abaqus(&m, NULL, 1, &ctx), TVDS_OK);
        ck_assert_ptr_null(m);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", dir, cases[k].expect);
        ck_assert_msg(strstr(ctx.msg, want) != NULL, "case %zu: expected '%s', got '%s'", k, want,
                      ctx.msg);
    }
}
END_TEST

/* ---- Nastran --------------------------------------------------------------------------- */

/* The punch file of the fields test: case control before BEGIN BULK; K symmetric (IFO 6,
 * TIN 2) in small, large and free field with '+', '*' and blank continuations, the triangles
 * mixed; M square (IFO 1, TIN 1) with both triangles; GRID in the three formats. */
static void nastran_job(void)
{
    char b[8192] = "$ executive and case control are skipped\nSOL 103\nCEND\n"
                   "SET 1 = 1,2,3,4,5,6,7,8,9,10,11,12\nBEGIN BULK\n";
    size_t l = strlen(b);
    /* header, a sequence number in columns 73-80 */
    snprintf(b + l, sizeof b - l, "%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%8d\n", "DMIG", "KAAX", "0",
             "6", "2", "0", "", "", "", 1);
    card(b, sizeof b, 16, "DMIG*", "KAAX", "1", "1", "", NULL);
    card(b, sizeof b, 16, "*", "1", "1", "4.0D+3", "", NULL);
    card(b, sizeof b, 16, "*", "2", "1", "-1.0d3", "", NULL); /* lower triangle */
    card(b, sizeof b, 8, "DMIG", "KAAX", "2", "1", "", "2", "1", "4000.", "", "+K1", NULL);
    card(b, sizeof b, 8, "+K1", "3", "1", "-1.+3", NULL); /* lower */
    strcat(b, "DMIG,KAAX,3,1,,3,1,2.0E3\n");
    strcat(b, "DMIG,KAAX,3,2,,3,2,5.+2,,+K2\n,1,2,-5.-1\n"); /* upper */
    strcat(b, "DMIG\tKAAX\t1\t2\t\t1\t2\t3.\n");             /* tabs */
    card(b, sizeof b, 8, "DMIG", "MAAX", "0", "1", "1", NULL);
    card(b, sizeof b, 8, "DMIG", "MAAX", "1", "1", "", "1", "1", ".1", NULL);
    card(b, sizeof b, 8, "", "2", "1", "1.-2", NULL); /* blank continuation */
    card(b, sizeof b, 8, "DMIG", "MAAX", "2", "1", "", "2", "1", "1.", "", "+M2", NULL);
    card(b, sizeof b, 8, "+M2", "1", "1", "1.E-2", NULL);
    strcat(b, "DMIG,MAAX,1,2,,1,2,.1\nDMIG,MAAX,3,1,,3,1,.5\nDMIG,MAAX,3,2,,3,2,.5\n");
    card(b, sizeof b, 8, "GRID", "1", "", "0.", "0.", "0.", NULL);
    card(b, sizeof b, 16, "GRID*", "2", "", "1.", "0.", NULL);
    card(b, sizeof b, 16, "*", "0.", NULL);
    strcat(b, "GRID,3,,2.,.5,0.\nENDDATA\nDMIG,KAAX,9,1,,9,1,1.\n");
    tvds_test_write_file(dir, "job.pch", b);
}

static int nastran(tvds_fe_model **m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    return tvds_import_nastran(path_of("job.pch"), NULL, NULL, NULL, m, info, &cc, ctx);
}

START_TEST(test_nastran_fields)
{
    nastran_job();
    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(nastran(&m, &info, &ctx) == TVDS_OK, "%s", ctx.msg);
    /* 1 ux, 1 uy, 2 ux, 3 ux, 3 uy (the DMIG after ENDDATA not read) */
    ck_assert_int_eq(m->n, 5);
    ck_assert_int_eq(info.nodes, 3);
    static const long nodes[5] = {1, 1, 2, 3, 3};
    static const int dirs[5] = {0, 1, 0, 0, 1};
    for (int k = 0; k < 5; k++) {
        ck_assert_int_eq(m->dofs[k].node, nodes[k]);
        ck_assert_int_eq(m->dofs[k].dir, dirs[k]);
    }
    ck_assert_double_eq(m->dofs[2].xyz[0], 1.0);
    ck_assert_double_eq(m->dofs[4].xyz[1], 0.5);
    double K[25], M[25];
    dense(m->K, K);
    dense(m->M, M);
    const double Kw[25] = {4000,  0, -1000, 0, 0,     0,    3, 0, 0,    -0.5, -1000, 0,  4000,
                           -1000, 0, 0,     0, -1000, 2000, 0, 0, -0.5, 0,    0,     500};
    const float f1 = 0.1f, f2 = 0.01f; /* TIN 1: single precision */
    const double Mw[25] = {f1, 0, f2, 0, 0, 0,  f1, 0, 0, 0, f2, 0, 1,
                           0,  0, 0,  0, 0, .5, 0,  0, 0, 0, 0,  .5};
    for (int k = 0; k < 25; k++) {
        ck_assert_msg(K[k] == Kw[k], "K[%d] = %.17g, expected %.17g", k, K[k], Kw[k]);
        ck_assert_msg(M[k] == Mw[k], "M[%d] = %.17g, expected %.17g", k, M[k], Mw[k]);
    }
    ck_assert(M[0] != 0.1); /* rounded, not read as double */
    tvds_fe_paths names = {"M", "K", "dofs", NULL, 1};
    ck_assert_msg(tvds_fe_model_check(m, &names, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_fe_model_free(&m, &cc);
    /* Matrices named explicitly; a bulk file with GRIDs beside a punch file without. */
    tvds_test_write_file(dir, "k.pch",
                         "DMIG,STIF,0,6,2\nDMIG,STIF,5,3,,5,3,7.\nDMIG,MASS,0,6,2\n"
                         "DMIG,MASS,5,3,,5,3,2.\nDMIG,KX,0,6,2\n");
    tvds_test_write_file(dir, "model.bdf", "BEGIN BULK\nGRID,5,,1.,2.,3.\nENDDATA\n");
    ck_assert_msg(tvds_import_nastran(path_of("k.pch"), "stif", "MASS", path_of("model.bdf"), &m,
                                      &info, &cc, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    ck_assert_int_eq(m->n, 1);
    ck_assert_int_eq(m->dofs[0].dir, TVDS_DIR_Z);
    ck_assert_double_eq(m->dofs[0].xyz[2], 3.0);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

START_TEST(test_nastran_errors)
{
    /* K of DoFs 1.1, 2.1 (free field), M valid: each case replaces one part. */
    static const char *const mass = "DMIG,MAAX,0,6,2\nDMIG,MAAX,1,1,,1,1,1.\n"
                                    "DMIG,MAAX,2,1,,2,1,1.\n";
    static const struct {
        const char *k, *expect;
    } cases[] = {
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\n,2,1,-1.\nDMIG,KAAX,2,1,,2,1,2.\n,1,1,-1.\n",
         "job.pch:5: KAAX: the term of (node 1 ux, node 2 ux) is given again, mirrored, after "
         "line 3: a symmetric matrix (IFO 6) gives each term once"},
        {"DMIG,KAAX,0,1,2\nDMIG,KAAX,1,1,,1,1,2.\n,2,1,-1.\nDMIG,KAAX,2,1,,2,1,2.\n",
         "job.pch:3: KAAX: the term of (node 1 ux, node 2 ux) has no mirror"},
        {"DMIG,KAAX,0,1,2\nDMIG,KAAX,1,1,,1,1,2.\n,2,1,-1.\nDMIG,KAAX,2,1,,2,1,2.\n,1,1,-1.1\n",
         "job.pch:5: KAAX is not symmetric: the term of (node 1 ux, node 2 ux) is "
         "-1.1000000000000001 but its mirror on line 3 is -1"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,2,1,2.\nDMIG,KAAX,1,1,,1,1,2.\n",
         "job.pch:4: KAAX: the term of (node 1 ux, node 1 ux) repeats the one on line 2"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,1,1,-1.\n",
         "job.pch: KAAX has no (nonzero) diagonal term for node 2 ux"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,2,1,2.\n,7,,1.\n",
         "job.pch:4: DMIG KAAX: row of scalar point 7"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,7,0,,7,0,2.\n",
         "job.pch:2: DMIG KAAX: column of scalar point 7"},
        {"DMIG,KAAX,0,6,3\n", "job.pch:1: DMIG KAAX: TIN 3: tvds reads real"},
        {"DMIG,KAAX,0,9,2,,,,2\n", "job.pch:1: DMIG KAAX: IFO 9: tvds reads square"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2000\n",
         "job.pch:2: DMIG KAAX: term '2000' of row 1.1 is not a finite Nastran real"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.,3.\n",
         "job.pch:2: DMIG KAAX: imaginary part '3.'"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.E+5+3\n", "job.pch:2: DMIG KAAX: term '2.E+5+3'"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,5,1,1,2.\n",
         "job.pch:2: DMIG KAAX: field 5 '5' must be blank"},
        {"DMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,2,1,2.\n",
         "job.pch:1: DMIG KAAX: no header entry 'DMIG KAAX 0 IFO TIN ...'"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,0,6,2\n", "job.pch:2: DMIG KAAX: a second header entry"},
        {"+,1,2\nDMIG,KAAX,0,6,2\n", "job.pch:1: a continuation line"},
        {"DMIG,KAAX,0,6,1\nDMIG,KAAX,1,1,,1,1,1.E39\n",
         "job.pch:2: DMIG KAAX: term 1e+39 overflows"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.,,1,1\n",
         "job.pch:2: more than 8 data fields and a continuation mark"},
        {"INCLUDE 'k.bdf'\n", "job.pch:1: INCLUDE is not followed"},
        {"DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,2,1,2.\nDMIG,MAAX,0,6,2\n"
         "DMIG,MAAX,1,1,,1,1,1.\nDMIG,MAAX,2,1,,2,1,1",
         "job.pch:6: the file ends in the middle of a line (truncated file?)"},
        {"DMIG KAAX 0 6 2\n", "job.pch:1: 'DMIG' followed by data within columns 1-8"},
        {"DMIG,KAAX,0,6,2\nDMIG,K2,0,6,2\n",
         "job.pch: several DMIG matrices begin with K (the file "
         "has KAAX, K2"},
        {"GRID,1,5,0.,0.,0.\n", "job.pch:1: GRID 1: coordinate system CP '5'"},
        {"GRID,1,,0.,0.,0.,2\n", "job.pch:1: GRID 1: displacement system CD '2'"},
        {"GRID,1,,0.,0.,0.\nGRID,1,,0.,1.,0.\n", "job.pch:2: GRID 1 defined again with other"},
        {"GRID,1,,0.,0.,0.\nDMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2.\nDMIG,KAAX,2,1,,2,1,2.\n",
         "job.pch:4: KAAX: node 2 has no coordinates in the GRID entries of"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s", cases[k].k, strstr(cases[k].k, "MAAX") ? "" : mass);
        tvds_test_write_file(dir, "job.pch", text);
        tvds_ctx ctx;
        tvds_fe_model *m = NULL;
        ck_assert_int_ne(nastran(&m, NULL, &ctx), TVDS_OK);
        ck_assert_ptr_null(m);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", dir, cases[k].expect);
        ck_assert_msg(strstr(ctx.msg, want) != NULL, "case %zu: expected '%s', got '%s'", k, want,
                      ctx.msg);
    }
}
END_TEST

/* Every allocation failure is TVDS_ERR_NOMEM with nothing returned and nothing leaked. */
START_TEST(test_alloc_failures)
{
    abaqus_job();
    nastran_job();
    cholmod_common c2;
    ck_assert_int_eq(tvds_cholmod_start(&c2), TVDS_OK);
    for (int which = 0; which < 2; which++) {
        long k;
        for (k = 0; k < 5000; k++) {
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            tvds_cholmod_ctx(&ctx);
            tvds_fe_model *m = NULL;
            tvds_alloc_fail_after(k);
            int rc = which == 0
                         ? tvds_import_abaqus(path_of("job_STIF2.mtx"), path_of("job_MASS2.mtx"),
                                              path_of("job.inp"), &m, NULL, &c2, &ctx)
                         : tvds_import_nastran(path_of("job.pch"), NULL, NULL, NULL, &m, NULL, &c2,
                                               &ctx);
            tvds_alloc_fail_after(-1);
            tvds_cholmod_ctx(NULL);
            if (rc == TVDS_OK) {
                tvds_fe_model_free(&m, &c2);
                break;
            }
            ck_assert_msg(rc == TVDS_ERR_NOMEM && ctx.status == TVDS_ERR_NOMEM,
                          "importer %d, failure %ld: %d %s", which, k, rc, ctx.msg);
            ck_assert_ptr_null(m);
        }
        ck_assert_msg(k > 10 && k < 5000, "importer %d: %ld allocations", which, k);
    }
    cholmod_finish(&c2);
}
END_TEST

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

/* Run the CLI in dir; the exit status, stderr in err (static). */
static int cli(const char *args, char **err)
{
    char cmd[2048], cwd[1024];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/%s' %s >out.txt 2>err.txt", dir, cwd, TVDS_BIN, args);
    int st = system(cmd);
    static char *text;
    free(text);
    long len;
    text = tvds_test_slurp(path_of("err.txt"), &len);
    *err = text;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The commands: a directory `tvds reduce` reads, defaults found beside the job, usage and
 * input errors as one line with exit code 2 and nothing written. */
START_TEST(test_cli)
{
    abaqus_job();
    nastran_job();
    char *err;
    ck_assert_msg(cli("import abaqus job", &err) == 0, "%s", err);
    ck_assert_msg(cli("import nastran job.pch -o nas", &err) == 0, "%s", err);
    const char *dirs[2] = {"job_full", "nas"};
    for (int k = 0; k < 2; k++) {
        char mp[600], kp[600], dp[600], sp[600];
        snprintf(mp, sizeof mp, "%s/%s/M.mtx", dir, dirs[k]);
        snprintf(kp, sizeof kp, "%s/%s/K.mtx", dir, dirs[k]);
        snprintf(dp, sizeof dp, "%s/%s/dofs.txt", dir, dirs[k]);
        snprintf(sp, sizeof sp, "%s/%s/sets.txt", dir, dirs[k]);
        tvds_fe_paths p = {mp, kp, dp, sp, 1};
        tvds_fe_model *m = NULL;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_fe_model_read(&p, &m, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(m->n, k ? 5 : 3);
        ck_assert_int_eq(m->nsets, k ? 0 : 2);
        tvds_fe_model_free(&m, &cc);
    }
    /* The directory is the command's (lock) and is written through the commit: a second
     * import into it while another process holds it exits 2 and leaves it as it was; the
     * manifest then vouches for the files of the one import that committed. */
    {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_outdir *od = NULL;
        ck_assert_int_eq(tvds_outdir_open(path_of("nas"), &od, &ctx), TVDS_OK);
        ck_assert_int_eq(cli("import abaqus job -o nas", &err), 2);
        ck_assert_msg(strstr(err, "nas") != NULL, "%s", err);
        tvds_outdir_close(&od);
        ck_assert_msg(cli("import abaqus job -o nas", &err) == 0, "%s", err);
        ck_assert_int_eq(access(path_of("nas/manifest.txt"), F_OK), 0);
        char mp[600], kp[600], dp[600];
        snprintf(mp, sizeof mp, "%s/nas/M.mtx", dir);
        snprintf(kp, sizeof kp, "%s/nas/K.mtx", dir);
        snprintf(dp, sizeof dp, "%s/nas/dofs.txt", dir);
        tvds_fe_paths p = {mp, kp, dp, NULL, 1};
        tvds_fe_model *m = NULL;
        ck_assert_msg(tvds_fe_model_read(&p, &m, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
        ck_assert_int_eq(m->n, 3); /* the Abaqus job's, over the Nastran one's 5 */
        tvds_fe_model_free(&m, &cc);
    }
    ck_assert_int_eq(cli("import abaqus --help", &err), 0);
    ck_assert_int_eq(cli("import nastran --help", &err), 0);
    ck_assert_int_eq(cli("import abaqus nojob", &err), 2);
    ck_assert_msg(strstr(err, "no files match nojob_STIF*.mtx: name one with --stiffness"), "%s",
                  err);
    ck_assert_int_eq(cli("import nastran job.pch --bogus", &err), 2);
    tvds_test_write_file(dir, "bad.pch", "DMIG,KAAX,0,6,2\nDMIG,KAAX,1,1,,1,1,2\n");
    ck_assert_int_eq(cli("import nastran bad.pch -o bad", &err), 2);
    ck_assert_msg(strstr(err, "bad.pch:2: DMIG KAAX: term '2' of row 1.1") != NULL, "%s", err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
    ck_assert_int_ne(access(path_of("bad"), F_OK), 0);
}
END_TEST

Suite *import_fe_suite(void)
{
    Suite *s = suite_create("import_fe");
    TCase *tc = tcase_create("import_fe");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_abaqus_fields);
    tcase_add_test(tc, test_abaqus_errors);
    tcase_add_test(tc, test_nastran_fields);
    tcase_add_test(tc, test_nastran_errors);
    tcase_add_test(tc, test_alloc_failures);
    suite_add_tcase(s, tc);
    TCase *tl = tcase_create("import_fe_cli"); /* spawns processes */
    tcase_set_tags(tl, "long");
    tcase_add_checked_fixture(tl, setup, teardown);
    tcase_set_timeout(tl, 30);
    tcase_add_test(tl, test_cli);
    suite_add_tcase(s, tl);
    return s;
}
