/* check_import.c — `tvds import calculix`: the deck, DoF list and matrix-storage readers (errors
 * with file and line), and the round trip through a real CalculiX run: import, reduce, compare
 * with ccx's own *FREQUENCY results. */
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define TVDS_TEST_CHOLMOD
#include "tvds_test.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

#define IMP_PI 3.14159265358979323846

static char dir[256];

static void setup(void)
{
    cc_setup();
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_check_import_");
}

static void teardown(void)
{
    cc_teardown();
    if (tvds_test_rmtree(dir) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

static char *path_of(const char *file)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return p;
}

/* A two-node spring-mass job written by hand: deck features the reader must handle. */
static void small_job(void)
{
    tvds_test_write_file(dir, "nodes.inc", "1, 0, 0, 0\n2, 1.0, 0, 0\n3, 2.0, 0.5\n");
    tvds_test_write_file(dir, "job.inp",
                         "** a comment line\n"
                         "*Heading\n spring\n"
                         "*node, nset=ALL\n"
                         "*INCLUDE, INPUT=nodes.inc\n"
                         "*NSET, NSET=PAIR, generate\n"
                         "2, 3, 1\n"
                         "*Nset,\n" /* keyword line continued (trailing comma) */
                         "  NSET=ENDS\n"
                         "1, 3,\n" /* trailing comma on a data line */
                         "** sets named inside sets\n"
                         "*NSET, NSET=BOTH\n"
                         "ENDS, pair\n"
                         "*NSET, NSET=GROUND\n1\n"
                         "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n");
    /* Node 1 is clamped: DoFs of nodes 2 and 3 along x and y. */
    tvds_test_write_file(dir, "job.dof", "2.1\n2.2\n3.1\n3.2\n");
    tvds_test_write_file(dir, "job.sti",
                         "1 1  2.0000000000000e+03\n1 2  0.0000000000000e+00\n"
                         "2 2  1.0000000000000e+03\n1 3 -1.0000000000000e+03\n"
                         "3 3  1.0000000000000e+03\n4 4  5.0000000000000e+02\n"
                         "2 4 -5.0000000000000e+02\n");
    tvds_test_write_file(dir, "job.mas", "1 1  1.0\n2 2  1.0\n3 3  0.5\n4 4  0.5\n1 3  0.0\n");
}

static int import_msg(tvds_fe_model **m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    tvds_ctx_init(ctx);
    return tvds_import_calculix(path_of("job.inp"), m, info, &cc, ctx);
}

START_TEST(test_deck_features)
{
    small_job();
    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(import_msg(&m, &info, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->n, 4);
    ck_assert_int_eq(info.nodes, 3);
    ck_assert_int_eq(m->dofs[2].node, 3);
    ck_assert_int_eq(m->dofs[3].dir, TVDS_DIR_Y);
    ck_assert_double_eq(m->dofs[3].xyz[1], 0.5);
    ck_assert_double_eq(m->dofs[3].xyz[2], 0.0); /* z omitted in *NODE */
    /* Sets: ALL (nodes 2, 3 have DoFs), PAIR {2,3}, ENDS {3} (node 1 has no DoF), BOTH {3,2};
     * GROUND {1} has no DoF and is left out. */
    ck_assert_int_eq(m->nsets, 4);
    ck_assert_int_eq(info.sets_dropped, 1);
    ck_assert_str_eq(info.first_dropped, "GROUND");
    ck_assert_str_eq(m->sets[2].name, "ENDS");
    ck_assert_int_eq(m->sets[2].n, 1);
    ck_assert_str_eq(m->sets[3].name, "BOTH");
    ck_assert_int_eq(m->sets[3].n, 2);
    ck_assert_int_eq(m->sets[3].nodes[0], 3);
    ck_assert_int_eq(m->sets[3].nodes[1], 2);
    /* Upper triangle read as a symmetric matrix, explicit zeros dropped. */
    ck_assert_int_eq(m->K->stype, 1);
    ck_assert_int_eq((int)cholmod_nnz(m->K, &cc), 6);
    ck_assert_int_eq((int)cholmod_nnz(m->M, &cc), 4);
    tvds_fe_paths names = {"job.mas", "job.sti", "job.dof", NULL, 1};
    ck_assert_msg(tvds_fe_model_check(m, &names, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    /* Written and read back as a full-model directory, with every check. */
    char out[400];
    snprintf(out, sizeof out, "%s/full", dir);
    ck_assert_int_eq(tvds_fe_model_write(m, out, &ctx), TVDS_OK);
    tvds_fe_model_free(&m, &cc);
    char mp[500], kp[500], dp[500], sp[500];
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    snprintf(sp, sizeof sp, "%s/sets.txt", out);
    tvds_fe_paths p = {mp, kp, dp, sp, 1};
    ck_assert_msg(tvds_fe_model_read(&p, &m, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->nsets, 4);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* Each defect is refused with the file and line. */
START_TEST(test_errors_file_line)
{
    static const struct {
        const char *file, *text, *expect;
    } cases[] = {
        {"job.dof", "2.1\n7.1\n", "job.dof:2: node 7 has no coordinates in the input deck"},
        {"job.dof", "2.1\n2.0\n", "job.dof:2: node 2 direction 0: tvds maps directions 1-3"},
        {"job.dof", "2.1\n2x\n", "job.dof:2: expected '<node>.<direction>'"},
        {"job.dof", "2.1\n2.2\n3.1\n2.2\n", "job.dof:4: 2.2 listed twice (first on line 2)"},
        {"job.sti", "1 1 1\n2 2 1\n2 1 3\n", "job.sti:3: entry (2,1) below the diagonal"},
        {"job.sti", "1 1 1\n1 9 1\n", "job.sti:2: index (1,9) out of range 1..4"},
        {"job.mas", "1 1 1\n2 2 1\n1 1 2\n3 3 1\n4 4 1\n",
         "job.mas:3: entry (1,1) repeats the one on line 1"},
        {"job.mas", "1 1 1\n2 2 1\n3 3 x\n", "job.mas:3: expected '<row> <column> <value>'"},
        {"job.inp", "*NODE\n1, 0, 0\n*NSET, NSET=A\n1, B\n",
         "job.inp:4: *NSET A: 'B' is neither a node id nor a node set defined above"},
        {"job.inp", "*NODE\n1, 0, zero\n", "job.inp:2: *NODE: coordinate 'zero' is not a finite"},
        {"job.inp", "*NODE\n1, 0\n*INCLUDE, INPUT=missing.inc\n",
         "job.inp:3: *INCLUDE: cannot open"},
        {"job.inp", "*NODE\n1, 0\n*NSET, NSET=A, GENERATE\n5, 1\n",
         "job.inp:4: *NSET, GENERATE: expected 'first, last[, increment]'"},
        {"job.inp", "*NODE\n1, 0\n*NSET, NSET=a b\n1\n", "job.inp:3: set name 'a b'"},
        {"job.inp", "*NODE\n1, 0\n*INCLUDE, INPUT=/dev/zero\n",
         "job.inp:3: *INCLUDE: cannot open /dev/zero: not a regular file"},
        {"job.inp", "** includes itself\n*INCLUDE, INPUT=job.inp\n",
         "job.inp:2: *INCLUDE nested more than 16 deep"},
        /* Before: accepted (last definition won, the face vanished, the faces were merged, K
         * had 0 or a few of its entries). */
        {"job.inp", "*NODE\n1, 0\n2, 1\n3, 2, 0.5\n2, 1, 0.1\n",
         "job.inp:5: *NODE: node 2 defined twice (first at "},
        {"job.inp",
         "*NODE\n1, 0\n2, 1\n3, 2, 0.5\n*ELEMENT, TYPE=C3D4\n7, 1, 2, 3, 9\n",
         "job.inp:6: *ELEMENT: element 7 names node 9, which no *NODE defines"},
        {"job.inp",
         "*NODE\n1, 0\n2, 1\n3, 2, 0.5\n4, 0, 0, 1\n*ELEMENT, TYPE=C3D4\n7, 1, 2, 3, 4\n"
         "*SURFACE, NAME=S\n7, S1\n*SURFACE, NAME=S\n7, S2\n",
         "job.inp:10: *SURFACE S defined twice (first at "},
        {"job.sti", "", "job.sti: no entries: expected the upper triangle of a 4-DoF matrix"},
        {"job.sti", "1 1  2.0e+03\n1 2  0.0\n2 2  1.0e+03\n",
         "job.sti:3: no diagonal entry (3,3) for DoF 3 (node 3 ux) in the 3 entries"},
        {"job.mas", "1 1  1.0\n2 2  1.0\n3 3  0.5\n4 4  0.", 
         "job.mas:4: the file ends in the middle of a line (truncated file?)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        small_job();
        tvds_test_write_file(dir, cases[k].file, cases[k].text);
        tvds_ctx ctx;
        tvds_fe_model *m = NULL;
        ck_assert_int_ne(import_msg(&m, NULL, &ctx), TVDS_OK);
        ck_assert_ptr_null(m);
        char want[600];
        snprintf(want, sizeof want, "%s/%s", dir, cases[k].expect);
        ck_assert_msg(strstr(ctx.msg, want) != NULL, "case %zu: expected '%s', got '%s'", k, want,
                      ctx.msg);
    }
}
END_TEST

/* `tvds import` through the CLI: a directory another process owns is refused (exit 2, before:
 * written over, exit 0); the written directory carries a manifest, so that M, K and the DoF
 * table of two imports are refused by the reader; a refused deck leaves no directory. */
START_TEST(test_cli_outdir)
{
    small_job();
    char cmd[1200], out[400];
    const char *pwd = getenv("PWD") ? getenv("PWD") : ".";
    snprintf(out, sizeof out, "%s/full", dir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_outdir *od = NULL;
    ck_assert_int_eq(tvds_outdir_open(out, &od, &ctx), TVDS_OK);
    snprintf(cmd, sizeof cmd, "%s/build/bin/tvds import calculix %s/job.inp -o %s >/dev/null 2>&1",
             pwd, dir, out);
    int st = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    tvds_outdir_close(&od);
    st = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(st), 0);
    char mp[500], kp[500], dp[500];
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    tvds_fe_paths p = {mp, kp, dp, NULL, 1};
    tvds_fe_model *m = NULL;
    ck_assert_msg(tvds_fe_model_read(&p, &m, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_fe_model_free(&m, &cc);
    FILE *f = fopen(kp, "a");
    ck_assert_ptr_nonnull(f);
    fputs("% another import\n", f);
    fclose(f);
    ck_assert_int_eq(tvds_fe_model_read(&p, &m, &cc, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "K.mtx: not the file manifest.txt lists"), "%s", ctx.msg);
    /* A deck refused: no directory left behind. */
    tvds_test_write_file(dir, "job.sti", "");
    snprintf(cmd, sizeof cmd, "%s/build/bin/tvds import calculix %s/job.inp -o %s/none 2>/dev/null",
             pwd, dir, dir);
    st = system(cmd);
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    snprintf(out, sizeof out, "%s/none", dir);
    struct stat sb;
    ck_assert_msg(stat(out, &sb) != 0, "an output directory was left behind");
}
END_TEST

/* Every allocation failure (tvds's and CHOLMOD's, routed by tvds_cholmod_start) is reported
 * as TVDS_ERR_NOMEM with nothing returned and nothing leaked (ASan/valgrind in CI): the
 * import, its checks, and reading the written directory back. */
START_TEST(test_alloc_failures)
{
    small_job();
    cholmod_common c2;
    ck_assert_int_eq(tvds_cholmod_start(&c2), TVDS_OK);
    char out[400], mp[500], kp[500], dp[500], sp[500];
    snprintf(out, sizeof out, "%s/full", dir);
    snprintf(mp, sizeof mp, "%s/M.mtx", out);
    snprintf(kp, sizeof kp, "%s/K.mtx", out);
    snprintf(dp, sizeof dp, "%s/dofs.txt", out);
    snprintf(sp, sizeof sp, "%s/sets.txt", out);
    for (int stage = 0; stage < 2; stage++) {
        long k;
        for (k = 0; k < 5000; k++) {
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            tvds_cholmod_ctx(&ctx);
            tvds_fe_model *m = NULL;
            tvds_fe_paths names = {"job.mas", "job.sti", "job.dof", NULL, 1};
            tvds_fe_paths p = {mp, kp, dp, sp, 1};
            tvds_alloc_fail_after(k);
            int rc = stage == 0 ? tvds_import_calculix(path_of("job.inp"), &m, NULL, &c2, &ctx)
                                : tvds_fe_model_read(&p, &m, &c2, &ctx);
            if (rc == TVDS_OK && stage == 0) rc = tvds_fe_model_check(m, &names, &c2, &ctx);
            tvds_alloc_fail_after(-1);
            tvds_cholmod_ctx(NULL);
            if (rc == TVDS_OK) {
                if (stage == 0) ck_assert_int_eq(tvds_fe_model_write(m, out, &ctx), TVDS_OK);
                tvds_fe_model_free(&m, &c2);
                break;
            }
            ck_assert_msg(rc == TVDS_ERR_NOMEM && ctx.status == TVDS_ERR_NOMEM,
                          "stage %d, failure %ld: %d %s", stage, k, rc, ctx.msg);
            tvds_fe_model_free(&m, &c2);
        }
        ck_assert_msg(k > 10 && k < 5000, "stage %d: %ld allocations", stage, k);
    }
    cholmod_finish(&c2);
}
END_TEST

/* ---- Round trip through CalculiX ----------------------------------------------------------- */

/* Cantilever of nx x ny x nz C3D8 hexahedra, a x a x len, clamped at z = 0, steel; the
 * step is given by the caller. Node sets FIX (clamped face, GENERATE) and TIP (free end). */
static void write_cantilever(const char *job, const char *step)
{
    const int nx = 2, ny = 2, nz = 8;
    const double a = 0.01, len = 0.1;
    char p[600];
    snprintf(p, sizeof p, "%s/%s.inp", dir, job);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
#define NID(i, j, k) (1 + (i) + (nx + 1) * ((j) + (ny + 1) * (k)))
    fprintf(f, "** cantilever of C3D8 hexahedra (tvds import test)\n*node, nset=NALL\n");
    fprintf(f, "*include, input=nodes.inc\n*ELEMENT, TYPE=C3D8, ELSET=EALL\n");
    int e = 1;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                fprintf(f, "%d, %d, %d, %d, %d, %d, %d, %d, %d\n", e++, NID(i, j, k),
                        NID(i + 1, j, k), NID(i + 1, j + 1, k), NID(i, j + 1, k), NID(i, j, k + 1),
                        NID(i + 1, j, k + 1), NID(i + 1, j + 1, k + 1), NID(i, j + 1, k + 1));
    fprintf(f, "*NSET, NSET=FIX, GENERATE\n1, %d, 1\n*Nset, Nset=TIP\n", (nx + 1) * (ny + 1));
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++)
            fprintf(f, "%d,%s", NID(i, j, nz), (i == nx && j == ny) ? "\n" : " ");
    fprintf(f,
            "*MATERIAL, NAME=STEEL\n*ELASTIC\n210e9, 0.3\n*DENSITY\n7800\n"
            "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*BOUNDARY\nFIX, 1, 3\n"
            "*STEP\n%s*END STEP\n",
            step);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(p, sizeof p, "%s/nodes.inc", dir);
    f = fopen(p, "w");
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 0; i <= nx; i++)
                fprintf(f, "%d, %.17g, %.17g, %.17g\n", NID(i, j, k), i * a / nx, j * a / ny,
                        k * len / nz);
#undef NID
    ck_assert_int_eq(fclose(f), 0);
}

static void run_ccx(const char *job)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && OMP_NUM_THREADS=1 ccx -i %s >%s.log 2>&1", dir, job, job);
    ck_assert_msg(system(cmd) == 0, "ccx failed: see %s/%s.log", dir, job);
}

/* The eigenfrequencies of ccx's .dat file ("MODE NO EIGENVALUE ... CYCLES/TIME" table) and
 * the half unit of their last printed digit. */
static int ccx_freqs(const char *job, double *f, double *half_unit, int max)
{
    char p[600], line[512];
    snprintf(p, sizeof p, "%s/%s.dat", dir, job);
    FILE *fp = fopen(p, "r");
    ck_assert_ptr_nonnull(fp);
    int n = 0, in = 0;
    while (fgets(line, sizeof line, fp) && n < max) {
        if (strstr(line, "E I G E N V A L U E   O U T P U T")) in = 1;
        if (strstr(line, "P A R T I C I P A T I O N")) break;
        int mode;
        double lam, omega, hz;
        char hzs[64];
        if (in && sscanf(line, "%d %lf %lf %63s", &mode, &lam, &omega, hzs) == 4 && mode == n + 1) {
            hz = strtod(hzs, NULL);
            const char *ex = strchr(hzs, 'E');
            ck_assert_ptr_nonnull(ex);
            /* 0.ddddddd E+xx: the last digit is worth 10^(xx - 7). */
            half_unit[n] = 0.5 * pow(10.0, strtol(ex + 1, NULL, 10) - 7);
            f[n++] = hz;
        }
    }
    fclose(fp);
    return n;
}

START_TEST(test_calculix_round_trip)
{
    if (system("command -v ccx >/dev/null 2>&1") != 0) {
        fprintf(stderr, "import: SKIPPED the CalculiX round trip: 'ccx' is not installed "
                        "(Debian calculix-ccx; 'make deps' installs it)\n");
        return;
    }
    enum { NF = 10 };
    write_cantilever("freq", "*FREQUENCY\n10\n");
    run_ccx("freq");
    write_cantilever("job", "*FREQUENCY, SOLVER=MATRIXSTORAGE\n");
    run_ccx("job");
    double fccx[NF], hu[NF];
    ck_assert_int_eq(ccx_freqs("freq", fccx, hu, NF), NF);

    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(import_msg(&m, &info, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->n, 3 * 9 * 8); /* the clamped face's 9 nodes have no DoF */
    ck_assert_int_eq(info.sets_dropped, 1);
    tvds_fe_paths names = {"job.mas", "job.sti", "job.dof", NULL, 1};
    ck_assert_msg(tvds_fe_model_check(m, &names, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);

    /* Full model: ARPACK's lowest ten, the reference for the Craig-Bampton error. */
    double ffull[NF];
    ck_assert_msg(tvds_eigs_lowest(m->M, m->K, NF, 0.0, 1e-13, ffull, NULL, &cc, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    /* Reduced: TIP retained (9 nodes, 27 DoFs) + 150 of the 189 fixed-interface modes. */
    int nb, *b = NULL;
    ck_assert_int_eq(tvds_reduce_parse_spec("TIP", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
                     TVDS_OK);
    ck_assert_int_eq(nb, 27);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = 150;
    tvds_substructure *s = NULL;
    ck_assert_msg(tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, m->nsets, m->sets, &o, &s,
                                 NULL, &cc, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    tvds_free(b);
    /* What `tvds check` reads: the written substructure passes every check. */
    char out[400];
    snprintf(out, sizeof out, "%s/job_cb", dir);
    ck_assert_int_eq(tvds_substructure_write(s, out, &ctx), TVDS_OK);
    tvds_substructure *back = NULL;
    ck_assert_msg(tvds_substructure_read(out, NULL, &back, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(back->nsets, 1); /* TIP: NALL has interior nodes */
    ck_assert_str_eq(back->sets[0].name, "TIP");
    tvds_substructure_free(&back);

    int nr = s->n;
    double *A = malloc(sizeof(double) * nr * nr), *B = malloc(sizeof(double) * nr * nr),
           *w = malloc(sizeof(double) * nr);
    memcpy(A, s->K, sizeof(double) * nr * nr);
    memcpy(B, s->M, sizeof(double) * nr * nr);
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', nr, A, nr, B, nr, w), 0);
    double worst_cb = 0.0, worst = 0.0;
    for (int k = 0; k < NF; k++) {
        double fred = sqrt(w[k]) / (2 * IMP_PI);
        /* Craig-Bampton truncation error: Rayleigh-Ritz, never below the full model beyond
         * the eigensolver's round-off. */
        double e_cb = fred / ffull[k] - 1.0;
        ck_assert_double_ge(e_cb, -1e-9);
        worst_cb = fmax(worst_cb, fabs(e_cb));
        /* ccx prints 7 digits: the reduced frequency agrees with ccx's to half a unit of the
         * last digit plus the truncation error, plus 1e-9 for the 14 digits of the matrix
         * storage and the eigensolvers' tolerances. */
        double tol = hu[k] / fccx[k] + fabs(e_cb) + 1e-9;
        double err = fabs(fred / fccx[k] - 1.0);
        worst = fmax(worst, err / tol);
        ck_assert_msg(err <= tol, "mode %d: tvds %.10g Hz, ccx %.7g Hz, rel. error %.3g > %.3g",
                      k + 1, fred, fccx[k], err, tol);
        ck_assert_msg(fabs(e_cb) < hu[k] / fccx[k],
                      "mode %d: CB error %.3g not below ccx's "
                      "printed precision",
                      k + 1, e_cb);
    }
    fprintf(stderr,
            "import: CalculiX round trip: 10 modes, f1 = %.7g Hz (ccx %.7g), CB truncation "
            "error <= %.2g, agreement within %.2f of the 7-digit tolerance\n",
            sqrt(w[0]) / (2 * IMP_PI), fccx[0], worst_cb, worst);
    free(A);
    free(B);
    free(w);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

Suite *import_suite(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("import");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_deck_features);
    tcase_add_test(tc, test_errors_file_line);
    tcase_add_test(tc, test_alloc_failures);
    suite_add_tcase(s, tc);
    TCase *tl = tcase_create("import_ccx");
    tcase_set_tags(tl, "long");
    tcase_add_checked_fixture(tl, setup, teardown);
    tcase_set_timeout(tl, 60);
    tcase_add_test(tl, test_calculix_round_trip);
    tcase_add_test(tl, test_cli_outdir);
    suite_add_tcase(s, tl);
    return s;
}
