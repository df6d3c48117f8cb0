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
#include "core/test_hooks_impl.h"

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
    if (getenv("KEEP_TMP") == NULL && tvds_test_rmtree(dir) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
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
        {"job.inp", "*NODE\n1, 0\n2, 1\n3, 2, 0.5\n*ELEMENT, TYPE=C3D4\n7, 1, 2, 3, 9\n",
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
    snprintf(cmd, sizeof cmd, "%s/" TVDS_BIN " import calculix %s/job.inp -o %s >/dev/null 2>&1",
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
    snprintf(cmd, sizeof cmd, "%s/" TVDS_BIN " import calculix %s/job.inp -o %s/none 2>/dev/null",
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

/* ---- Elements whose CalculiX mass is integrated at the stiffness points ------------------------
 */

/* The cantilever of write_cantilever (2 x 2 x 8 cells, 0.01 x 0.01 x 0.1 m, clamped at z = 0)
 * in quadratic hexahedra (C3D20R) or tetrahedra, six to a cell (C3D10, C3D4). Nodes on the grid
 * of half the cell size (the quadratic elements' midside nodes); only used nodes are written. */
static void write_cantilever_typed(const char *job, const char *type, const char *step)
{
    enum { NX = 2, NY = 2, NZ = 8, GX = 2 * NX + 1, GY = 2 * NY + 1, GZ = 2 * NZ + 1 };
    const double a = 0.01, len = 0.1;
    static int used[GX * GY * GZ];
    memset(used, 0, sizeof used);
#define GID(i, j, k) ((i) + GX * ((j) + GY * (k)))
    char p[600];
    snprintf(p, sizeof p, "%s/%s_el.inc", dir, job);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    int quad = strcmp(type, "C3D4") != 0, hex = strncmp(type, "C3D20", 5) == 0, e = 1;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                int c[8][3];
                for (int v = 0; v < 8; v++) {
                    int di = (v == 1 || v == 2 || v == 5 || v == 6),
                        dj = (v == 2 || v == 3 || v == 6 || v == 7);
                    c[v][0] = 2 * (i + di), c[v][1] = 2 * (j + dj), c[v][2] = 2 * (k + (v >= 4));
                }
                int el[6][20], nel = 0, nn = 0;
                if (hex) {
                    static const int ed[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                                  {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
                    nn = 20;
                    for (int v = 0; v < 8; v++)
                        el[0][v] = GID(c[v][0], c[v][1], c[v][2]);
                    for (int q = 0; q < 12; q++) {
                        const int *u = c[ed[q][0]], *w = c[ed[q][1]];
                        el[0][8 + q] = GID((u[0] + w[0]) / 2, (u[1] + w[1]) / 2, (u[2] + w[2]) / 2);
                    }
                    nel = 1;
                } else {
                    /* Six tetrahedra around the diagonal 0-6, each with a positive volume. */
                    static const int tet[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                                  {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
                    static const int ed[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
                    nn = quad ? 10 : 4;
                    for (int t = 0; t < 6; t++) {
                        int v[4][3];
                        for (int q = 0; q < 4; q++)
                            memcpy(v[q], c[tet[t][q]], sizeof v[q]);
                        double d[3][3];
                        for (int q = 0; q < 3; q++)
                            for (int r = 0; r < 3; r++)
                                d[q][r] = v[q + 1][r] - v[0][r];
                        double vol = d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) -
                                     d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                                     d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]);
                        if (vol < 0) {
                            int tmp[3];
                            memcpy(tmp, v[1], sizeof tmp);
                            memcpy(v[1], v[2], sizeof tmp);
                            memcpy(v[2], tmp, sizeof tmp);
                        }
                        for (int q = 0; q < 4; q++)
                            el[t][q] = GID(v[q][0], v[q][1], v[q][2]);
                        for (int q = 0; quad && q < 6; q++) {
                            const int *u = v[ed[q][0]], *w = v[ed[q][1]];
                            el[t][4 + q] =
                                GID((u[0] + w[0]) / 2, (u[1] + w[1]) / 2, (u[2] + w[2]) / 2);
                        }
                    }
                    nel = 6;
                }
                for (int t = 0; t < nel; t++) {
                    fprintf(f, "%d", e++);
                    for (int q = 0; q < nn; q++) {
                        used[el[t][q]] = 1;
                        fprintf(f, "%s%d", q == 15 ? ",\n" : ", ", 1 + el[t][q]);
                    }
                    fprintf(f, "\n");
                }
            }
    ck_assert_int_eq(fclose(f), 0);
    snprintf(p, sizeof p, "%s/%s.inp", dir, job);
    f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "** cantilever of %s elements (tvds import test)\n*NODE, NSET=NALL\n", type);
    for (int g = 0; g < GX * GY * GZ; g++)
        if (used[g])
            fprintf(f, "%d, %.17g, %.17g, %.17g\n", g + 1, (g % GX) * a / (2 * NX),
                    (g / GX % GY) * a / (2 * NY), (g / (GX * GY)) * len / (2 * NZ));
    fprintf(f, "*ELEMENT, TYPE=%s, ELSET=EALL\n*INCLUDE, INPUT=%s_el.inc\n*NSET, NSET=FIX\n", type,
            job);
    for (int g = 0; g < GX * GY; g++)
        if (used[g]) fprintf(f, "%d\n", g + 1);
    fprintf(f, "*NSET, NSET=TIP\n");
    for (int g = GX * GY * (GZ - 1); g < GX * GY * GZ; g++)
        if (used[g]) fprintf(f, "%d\n", g + 1);
    fprintf(f,
            "*MATERIAL, NAME=STEEL\n*ELASTIC\n210e9, 0.3\n*DENSITY\n7800\n"
            "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n*BOUNDARY\nFIX, 1, 3\n"
            "*STEP\n%s*END STEP\n",
            step);
    ck_assert_int_eq(fclose(f), 0);
#undef GID
}

/* C3D20R, C3D10 and C3D4 (CalculiX integrates their mass at the stiffness points: one element's
 * mass has rank 24 of 60, 12 of 30, 3 of 12). This C3D20R mesh has a singular M (rank 576 of
 * 720): `tvds import` refuses it naming the element type and the remedy. The tetrahedral
 * meshes have a positive definite M: imported and reduced, against ccx's own *FREQUENCY. */
START_TEST(test_lowmass_elements)
{
    static const char *const types[3] = {"C3D20R", "C3D10", "C3D4"};
    const char *type = types[_i];
    if (system("command -v ccx >/dev/null 2>&1") != 0) {
        fprintf(stderr, "import: SKIPPED %s against ccx: 'ccx' is not installed\n", type);
        return;
    }
    enum { NF = 6, NM = 40 };
    write_cantilever_typed("freq", type, "*FREQUENCY\n6\n");
    run_ccx("freq");
    write_cantilever_typed("job", type, "*FREQUENCY, SOLVER=MATRIXSTORAGE\n");
    run_ccx("job");
    double fccx[NF], hu[NF];
    ck_assert_int_eq(ccx_freqs("freq", fccx, hu, NF), NF);

    tvds_ctx ctx;
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    ck_assert_msg(import_msg(&m, &info, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_str_eq(info.lowmass_type, type);
    ck_assert_int_eq(info.lowmass_elements, _i == 0 ? 32 : 192);
    tvds_fe_paths names = {"job.mas", "job.sti", "job.dof", NULL, 1};
    tvds_ctx_init(&ctx);
    int rc = tvds_fe_model_check(m, &names, &cc, &ctx);
    ck_assert_msg(rc == (_i == 0 ? TVDS_ERR_NOT_POSDEF : TVDS_OK), "%s: %d %s", type, rc, ctx.msg);
    if (_i == 0) {
        /* Refused by `tvds import` with the cause and the remedy, nothing written. */
        char cmd[1400], err[600];
        const char *pwd = getenv("PWD") ? getenv("PWD") : ".";
        snprintf(err, sizeof err, "%s/err.txt", dir);
        snprintf(cmd, sizeof cmd, "%s/" TVDS_BIN " import calculix %s/job.inp -o %s/full 2>%s", pwd,
                 dir, dir, err);
        ck_assert_int_eq(WEXITSTATUS(system(cmd)), 2);
        char *msg = tvds_test_slurp(err, NULL);
        ck_assert_ptr_nonnull(msg);
        ck_assert_msg(strstr(msg, "job.mas: M is not positive definite") &&
                          strstr(msg, "CalculiX integrates the mass of C3D20R (32 of the 32 "
                                      "elements) at its stiffness points") &&
                          strstr(msg, "mesh with C3D20 or C3D8"),
                      "%s", msg);
        free(msg);
        tvds_fe_model_free(&m, &cc);
        return;
    }

    /* The full model's lowest six (ARPACK, 1e-13): the reference of the truncation error. */
    double ffull[NF];
    ck_assert_msg(tvds_eigs_lowest(m->M, m->K, NF, 0.0, 1e-13, ffull, NULL, &cc, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    int nb, *b = NULL;
    ck_assert_int_eq(tvds_reduce_parse_spec("TIP", m->n, m->dofs, m->nsets, m->sets, &nb, &b, &ctx),
                     TVDS_OK);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = NM;
    tvds_substructure *s = NULL;
    ck_assert_msg(tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, m->nsets, m->sets, &o, &s,
                                 NULL, &cc, &ctx) == TVDS_OK,
                  "%s: %s", type, ctx.msg);
    tvds_free(b);
    int nr = s->n;
    double *A = malloc(sizeof(double) * nr * nr), *B = malloc(sizeof(double) * nr * nr),
           *w = malloc(sizeof(double) * nr);
    memcpy(A, s->K, sizeof(double) * nr * nr);
    memcpy(B, s->M, sizeof(double) * nr * nr);
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', nr, A, nr, B, nr, w), 0);
    double worst = 0.0;
    for (int k = 0; k < NF; k++) {
        double fred = sqrt(w[k]) / (2 * IMP_PI);
        /* Rayleigh-Ritz: never below the full model; from ccx's value by its 7 printed digits
         * and the Craig-Bampton truncation. */
        double e_cb = fred / ffull[k] - 1.0, err = fred / fccx[k] - 1.0;
        ck_assert_msg(e_cb >= -1e-9, "%s mode %d: below the full model by %.3g", type, k + 1, e_cb);
        worst = fmax(worst, fabs(err));
        double tol = hu[k] / fccx[k] + e_cb + 1e-9; /* as in the C3D8 round trip above */
        ck_assert_msg(fabs(err) <= tol,
                      "%s mode %d: tvds %.10g Hz, ccx %.7g Hz, rel. error %.3g > %.3g", type, k + 1,
                      fred, fccx[k], err, tol);
    }
    fprintf(stderr,
            "import: %s cantilever (%d DoFs): reduced (%d modes) vs ccx, first %d "
            "frequencies within %.2g (f1 = %.7g Hz)\n",
            type, m->n, NM, NF, worst, fccx[0]);
    free(A);
    free(B);
    free(w);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&m, &cc);
}
END_TEST

/* ---- The same matrices through the Abaqus and Nastran importers ---------------------------- */

/* Abaqus matrix output lines of A (upper triangle stored), %.17g: the upper triangle with
 * commas, or (lower) the lower triangle with blanks. */
static void write_abaqus(const char *file, const cholmod_sparse *A, const tvds_dof *d, int lower)
{
    FILE *f = fopen(path_of(file), "w");
    ck_assert_ptr_nonnull(f);
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    fprintf(f, "** %s\n", file);
    for (int j = 0; j < (int)A->ncol; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            const tvds_dof *r = &d[Ai[p]], *c = &d[j];
            if (lower)
                fprintf(f, "%ld %d %ld %d %.17g\n", c->node, c->dir + 1, r->node, r->dir + 1,
                        Ax[p]);
            else
                fprintf(f, "%ld,%d, %ld,%d, %.17g\n", r->node, r->dir + 1, c->node, c->dir + 1,
                        Ax[p]);
        }
    ck_assert_int_eq(fclose(f), 0);
}

/* DMIG entries of A: IFO 6 (the stored upper triangle) or 1 (both triangles); TIN 2 in free
 * field with %.17E, TIN 1 in large field with the float written %.8E (9 digits). */
static void write_dmig(FILE *f, const char *name, const cholmod_sparse *A, const tvds_dof *d,
                       int ifo, int tin)
{
    cholmod_sparse *F = ifo == 1 ? cholmod_copy((cholmod_sparse *)A, 0, 1, &cc) : NULL;
    const cholmod_sparse *B = F ? F : A;
    const int *Ap = B->p, *Ai = B->i;
    const double *Ax = B->x;
    fprintf(f, "DMIG    %-8s%-8d%-8d%-8d%-8d\n", name, 0, ifo, tin, 0);
    for (int j = 0; j < (int)B->ncol; j++) {
        if (Ap[j] == Ap[j + 1]) continue;
        if (tin == 2)
            fprintf(f, "DMIG,%s,%ld,%d,", name, d[j].node, d[j].dir + 1);
        else
            fprintf(f, "DMIG*   %-16s%-16ld%-16d%-16s\n", name, d[j].node, d[j].dir + 1, "");
        for (int p = Ap[j], k = 0; p < Ap[j + 1]; p++, k++) {
            const tvds_dof *r = &d[Ai[p]];
            if (tin == 2) /* two terms a line after the first */
                fprintf(f, "%s,%ld,%d,%.17E,%s", k % 2 ? "\n" : "", r->node, r->dir + 1, Ax[p], "");
            else
                fprintf(f, "*       %-16ld%-16d%-16.8E\n", r->node, r->dir + 1,
                        (double)(float)Ax[p]);
        }
        if (tin == 2) fprintf(f, "\n");
    }
    cholmod_free_sparse(&F, &cc);
}

/* GRID entries (free field, %.17E) of the nodes of m. */
static void write_grids(FILE *f, const tvds_fe_model *m)
{
    for (int g = 0; g < m->n; g++)
        if (g == 0 || m->dofs[g].node != m->dofs[g - 1].node)
            fprintf(f, "GRID,%ld,,%.17E,%.17E,%.17E\n", m->dofs[g].node, m->dofs[g].xyz[0],
                    m->dofs[g].xyz[1], m->dofs[g].xyz[2]);
}

/* Dense symmetric copy of an upper triangle. */
static double *dense_of(const cholmod_sparse *A)
{
    int n = (int)A->nrow;
    double *D = calloc((size_t)n * n, sizeof *D);
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    for (int j = 0; j < n; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            D[Ai[p] + (size_t)n * j] = D[j + (size_t)n * Ai[p]] = Ax[p];
    return D;
}

/* b holds a's DoFs (any order) with a's coordinates, and a's M and K, bitwise or (single)
 * rounded to float. */
static void same_model(const tvds_fe_model *a, const tvds_fe_model *b, int single, const char *what)
{
    int n = a->n, *pa = malloc(sizeof(int) * n);
    ck_assert_int_eq(b->n, n);
    for (int i = 0; i < n; i++) {
        pa[i] = -1;
        for (int k = 0; k < n; k++)
            if (a->dofs[k].node == b->dofs[i].node && a->dofs[k].dir == b->dofs[i].dir) pa[i] = k;
        ck_assert_msg(pa[i] >= 0, "%s: DoF %d not in the CalculiX model", what, i);
        ck_assert_msg(memcmp(a->dofs[pa[i]].xyz, b->dofs[i].xyz, sizeof b->dofs[i].xyz) == 0,
                      "%s: coordinates of node %ld differ", what, b->dofs[i].node);
    }
    for (int q = 0; q < 2; q++) {
        double *A = dense_of(q ? a->M : a->K), *B = dense_of(q ? b->M : b->K);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double x = A[pa[i] + (size_t)n * pa[j]], y = B[i + (size_t)n * j];
                if (single) x = (double)(float)x;
                ck_assert_msg(memcmp(&x, &y, sizeof x) == 0,
                              "%s: %c(%d,%d) = %.17g, expected %.17g", what, q ? 'M' : 'K', i + 1,
                              j + 1, y, x);
            }
        free(A);
        free(B);
    }
    free(pa);
}

/* Craig-Bampton reduction of m retaining every DoF of the nodes of set (150 modes): the first
 * NF frequencies of the reduced model (dense dsygv) and the round-off scale of the reduction,
 * n u / rcond(K_ii). */
static void cb_freqs(const tvds_fe_model *m, const tvds_nodeset *set, int nf, double *f,
                     double *round)
{
    int nb = 0, *b = malloc(sizeof(int) * m->n);
    for (int g = 0; g < m->n; g++)
        for (int k = 0; k < set->n; k++)
            if (m->dofs[g].node == set->nodes[k]) b[nb++] = g;
    tvds_reduce_opts o = tvds_reduce_opts_default();
    o.nmodes = 150;
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_reduce_cb(m->M, m->K, m->dofs, nb, b, 0, NULL, 0, NULL, &o, &s, &st, &cc,
                                 &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    int nr = s->n;
    double *A = malloc(sizeof(double) * nr * nr), *B = malloc(sizeof(double) * nr * nr),
           *w = malloc(sizeof(double) * nr);
    memcpy(A, s->K, sizeof(double) * nr * nr);
    memcpy(B, s->M, sizeof(double) * nr * nr);
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', nr, A, nr, B, nr, w), 0);
    for (int k = 0; k < nf; k++)
        f[k] = sqrt(w[k]) / (2 * IMP_PI);
    *round = m->n * 1.1102230246251565e-16 / st.rcond_Kii;
    free(A);
    free(B);
    free(w);
    free(b);
    tvds_substructure_free(&s);
}

START_TEST(test_fe_formats_round_trip)
{
    if (system("command -v ccx >/dev/null 2>&1") != 0) {
        fprintf(stderr, "import: SKIPPED the Abaqus/Nastran round trip: 'ccx' is not installed\n");
        return;
    }
    enum { NF = 10 };
    write_cantilever("job", "*FREQUENCY, SOLVER=MATRIXSTORAGE\n");
    run_ccx("job");
    tvds_ctx ctx;
    tvds_fe_model *a = NULL, *b = NULL;
    ck_assert_msg(import_msg(&a, NULL, &ctx) == TVDS_OK, "%s", ctx.msg);
    int tip = -1;
    for (int q = 0; q < a->nsets; q++)
        if (strcmp(a->sets[q].name, "TIP") == 0) tip = q;
    ck_assert_int_ge(tip, 0);
    double fa[NF], fb[NF], ra, rb;
    cb_freqs(a, &a->sets[tip], NF, fa, &ra);
    /* The first-order change of the frequencies when every term is rounded to float (TIN 1):
     * |df/f| <= u_f/2 (|phi|'|K||phi| / lambda + |phi|'|M||phi|), phi M-normalised modes of
     * the full model. */
    double phi[3 * 9 * 8 * NF], ffull[NF], dsingle[NF];
    ck_assert_int_eq(a->n, 3 * 9 * 8);
    ck_assert_msg(tvds_eigs_lowest(a->M, a->K, NF, 0.0, 1e-13, ffull, phi, &cc, &ctx) == TVDS_OK,
                  "%s", ctx.msg);
    {
        double *K = dense_of(a->K), *M = dense_of(a->M);
        int n = a->n;
        for (int k = 0; k < NF; k++) {
            const double *x = phi + (size_t)n * k;
            double sk = 0, sm = 0, lam = pow(2 * IMP_PI * ffull[k], 2);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    sk += fabs(x[i]) * fabs(K[i + (size_t)n * j]) * fabs(x[j]);
                    sm += fabs(x[i]) * fabs(M[i + (size_t)n * j]) * fabs(x[j]);
                }
            dsingle[k] = 0.5 * 5.9604644775390625e-08 * (sk / lam + sm);
        }
        free(K);
        free(M);
    }

    /* Abaqus: K upper triangle with commas, M lower triangle with blanks, the job's deck. */
    write_abaqus("job_STIF2.mtx", a->K, a->dofs, 0);
    write_abaqus("job_MASS2.mtx", a->M, a->dofs, 1);
    char kp[600], mp[600], ip[600];
    snprintf(kp, sizeof kp, "%s", path_of("job_STIF2.mtx"));
    snprintf(mp, sizeof mp, "%s", path_of("job_MASS2.mtx"));
    snprintf(ip, sizeof ip, "%s", path_of("job.inp"));
    tvds_ccx_info info;
    ck_assert_msg(tvds_import_abaqus(kp, mp, ip, &b, &info, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    same_model(a, b, 0, "abaqus");
    ck_assert_int_eq(b->nsets, a->nsets);
    for (int q = 0; q < a->nsets; q++) {
        ck_assert_str_eq(b->sets[q].name, a->sets[q].name);
        ck_assert_int_eq(b->sets[q].n, a->sets[q].n);
        ck_assert(memcmp(b->sets[q].nodes, a->sets[q].nodes, sizeof(long) * a->sets[q].n) == 0);
    }
    cb_freqs(b, &a->sets[tip], NF, fb, &rb);
    double worst = 0.0;
    for (int k = 0; k < NF; k++) { /* the same matrices in another DoF order: round-off */
        double tol = 2e-12 + fmax(ra, rb), err = fabs(fb[k] / fa[k] - 1.0);
        worst = fmax(worst, err);
        ck_assert_msg(err <= tol, "abaqus mode %d: %.15g Hz vs %.15g Hz (%.3g > %.3g)", k + 1,
                      fb[k], fa[k], err, tol);
    }
    fprintf(stderr,
            "import: Abaqus round trip: M, K bitwise, 10 CB frequencies within %.2g "
            "(round-off bound %.2g)\n",
            worst, 2e-12 + fmax(ra, rb));
    tvds_fe_model_free(&b, &cc);

    /* Nastran: IFO 6 TIN 2 (free field), IFO 1 TIN 2, IFO 6 TIN 1 (large field). */
    static const int forms[3][2] = {{6, 2}, {1, 2}, {6, 1}};
    for (int v = 0; v < 3; v++) {
        int ifo = forms[v][0], tin = forms[v][1];
        FILE *f = fopen(path_of("job.pch"), "w");
        ck_assert_ptr_nonnull(f);
        write_dmig(f, "KAAX", a->K, a->dofs, ifo, tin);
        write_dmig(f, "MAAX", a->M, a->dofs, ifo, tin);
        if (v != 1) write_grids(f, a);
        ck_assert_int_eq(fclose(f), 0);
        if (v == 1) { /* the GRIDs in a bulk data file */
            f = fopen(path_of("job.bdf"), "w");
            fprintf(f, "BEGIN BULK\n");
            write_grids(f, a);
            fprintf(f, "ENDDATA\n");
            ck_assert_int_eq(fclose(f), 0);
        }
        char pp[600], bp[600];
        snprintf(pp, sizeof pp, "%s", path_of("job.pch"));
        snprintf(bp, sizeof bp, "%s", path_of("job.bdf"));
        ck_assert_msg(tvds_import_nastran(pp, NULL, NULL, v == 1 ? bp : NULL, &b, &info, &cc,
                                          &ctx) == TVDS_OK,
                      "%s", ctx.msg);
        char what[64];
        snprintf(what, sizeof what, "nastran IFO %d TIN %d", ifo, tin);
        same_model(a, b, tin == 1, what);
        ck_assert_int_eq(info.nodes, 9 * 8);
        cb_freqs(b, &a->sets[tip], NF, fb, &rb);
        worst = 0.0;
        double wtol = 0.0;
        for (int k = 0; k < NF; k++) {
            /* TIN 1: the first-order change, plus the Craig-Bampton truncation error of each
             * (the reduced models differ by it at most) */
            double tol = 2e-12 + fmax(ra, rb) +
                         (tin == 1 ? 1.01 * dsingle[k] + 2 * fabs(fa[k] / ffull[k] - 1) : 0.0);
            double err = fabs(fb[k] / fa[k] - 1.0);
            worst = fmax(worst, err);
            wtol = fmax(wtol, err / tol);
            ck_assert_msg(err <= tol, "%s mode %d: %.15g Hz vs %.15g Hz (%.3g > %.3g)", what, k + 1,
                          fb[k], fa[k], err, tol);
        }
        fprintf(stderr,
                "import: %s round trip: M, K %s, 10 CB frequencies within %.2g (%.2f "
                "of the tolerance)\n",
                what, tin == 1 ? "= float(CalculiX)" : "bitwise", worst, wtol);
        tvds_fe_model_free(&b, &cc);
    }
    tvds_fe_model_free(&a, &cc);
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
    tcase_add_loop_test(tl, test_lowmass_elements, 0, 3);
    suite_add_tcase(s, tl);
    TCase *tf = tcase_create("import_fe_ccx"); /* Abaqus and Nastran files of a CalculiX job */
    tcase_set_tags(tf, "long");
    tcase_add_checked_fixture(tf, setup, teardown);
    tcase_set_timeout(tf, 60);
    tcase_add_test(tf, test_fe_formats_round_trip);
    suite_add_tcase(s, tf);
    return s;
}
