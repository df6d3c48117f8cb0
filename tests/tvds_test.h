/* tvds_test.h — helpers shared by the Check suites: private temporary directories, writing and
 * reading back whole text files, a CHOLMOD workspace fixture. Header-only (static inline), so
 * that the runner's suite list (grep of tests/check_*.c) is not affected. */
#ifndef TVDS_TEST_H
#define TVDS_TEST_H

#include <check.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

/* Create a private directory named prefix + 6 random characters (mkdtemp) into dir[n]; the
 * creation must succeed. */
static inline void tvds_test_mkdtemp(char *dir, size_t n, const char *prefix)
{
    snprintf(dir, n, "%sXXXXXX", prefix);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove dir with everything below it (rm -rf); returns the status of system(), 0 on success. */
static inline int tvds_test_rmtree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* Write text to the file dir/file (dir NULL: file is the whole path), created or truncated; the
 * file must open. */
static inline void tvds_test_write_file(const char *dir, const char *file, const char *text)
{
    char p[1200];
    if (dir)
        snprintf(p, sizeof p, "%s/%s", dir, file);
    else
        snprintf(p, sizeof p, "%s", file);
    FILE *f = fopen(p, "w");
    ck_assert_msg(f != NULL, "cannot write %s", p);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* Whole file as a NUL-terminated malloc'd string (caller frees), NULL when it cannot be opened.
 * *len (may be NULL) receives its length, or -1 when the file could not be read to its end. */
static inline char *tvds_test_slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    if (len) *len = n;
    return buf;
}

/* ---- Round-off bounds of results that go through BLAS and LAPACK ---------------------------
 *
 * A check that compares two computations of the same quantity (two algorithms, two orders of
 * summation, two BLAS kernels: with or without FMA, other blockings) cannot ask for a fixed
 * number of digits: the difference is round-off, and round-off scales with the unit round-off
 * eps = DBL_EPSILON / 2, the number of operations summed, and the condition of the problem.
 * These helpers give those factors; each check says which bound it applies. */

/* ---- Running the command-line tool and looking at what it wrote ---------------------------- */

/* Monotonic clock [s]; a sleep of s seconds. */
static inline double tvds_test_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void tvds_test_sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* `tvds ARGS` through the shell, stdout and stderr into dir/out.txt and dir/err.txt; the exit
 * code (-1 when killed by a signal). */
static inline int tvds_test_sh(const char *dir, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >'%s/out.txt' 2>'%s/err.txt'", TVDS_BIN, args, dir, dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* dir/file read whole (tvds_test_slurp: NULL when it cannot be read); whether dir/file exists. */
static inline char *tvds_test_slurp_in(const char *dir, const char *file)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return tvds_test_slurp(p, NULL);
}

static inline int tvds_test_exists_in(const char *dir, const char *file)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return stat(p, &st) == 0;
}

/* 1-norm condition number kappa_1(A) = |A|_1 |A^-1|_1 of the n x n column-major A (leading
 * dimension n), estimated by LAPACK (dgetrf + dgecon: within a factor 3 in practice, Higham,
 * Accuracy and Stability, 15.3); INFINITY when A is singular or n < 1. A is not changed. */
static inline double tvds_test_cond1(const double *A, int n)
{
    if (n < 1) return INFINITY;
    double *lu = malloc((size_t)n * n * sizeof *lu);
    lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
    ck_assert(lu && ipiv);
    memcpy(lu, A, (size_t)n * n * sizeof *lu);
    double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, lu, n), rcond = 0.0;
    lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, ipiv);
    if (info == 0) info = LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', n, lu, n, anorm, &rcond);
    free(lu);
    free(ipiv);
    return info == 0 && rcond > 0.0 ? 1.0 / rcond : INFINITY;
}

/* Relative difference allowed between two computations of the same well-conditioned result
 * of a dense LAPACK solve or eigenvalue problem of order n (two assemblies of one model that
 * differ by round-off, a rotated or extruded copy, a closed form): each is backward stable
 * within THRESH n ulp, the ratio LAPACK's own test programs accept (THRESH = 30 in dtest.in),
 * whatever the BLAS kernel, and a condition number of order 1 (separated eigenvalues of a
 * nearly normal pencil, |lambda| of the order of the matrix norm; a well-conditioned stiffness)
 * carries that to the result: 2 x 30 n ulp. */
static inline double tvds_test_lapack_rtol(int n)
{
    return 2.0 * 30.0 * (double)n * DBL_EPSILON;
}

#ifdef TVDS_TEST_CHOLMOD
#include <cholmod.h>

#include "tvds/tvds_beams.h"

/* With TVDS_TEST_CHOLMOD defined before the include: a CHOLMOD workspace cc shared by the tests
 * of the file, started and finished by the checked fixture cc_setup / cc_teardown (silent). */
static cholmod_common cc;

static inline void cc_setup(void)
{
    cholmod_start(&cc);
    cc.print = 0;
}

static inline void cc_teardown(void)
{
    cholmod_finish(&cc);
}
/* Beam `which` (1 or 2) of the default beam-on-beam pair with nx elements along its length (0:
 * the default), built with cc; the build must succeed. The caller frees it with
 * tvds_fe_model_free(&m, &cc). */
static inline tvds_fe_model *bob_beam(int which, int nx)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_bob_params p = tvds_bob_default();
    tvds_fe_model *m = NULL;
    if (which == 1) {
        if (nx > 0) p.beam1.nx = nx;
        ck_assert_int_eq(tvds_beam1_build(&p.beam1, p.s0, &m, &cc, &ctx), TVDS_OK);
    } else {
        if (nx > 0) p.beam2.nx = nx;
        ck_assert_int_eq(tvds_beam2_build(&p.beam2, &m, &cc, &ctx), TVDS_OK);
    }
    return m;
}
#endif /* TVDS_TEST_CHOLMOD */

#ifdef TVDS_TEST_ENGINE
#include <math.h>

#include "tvds/tvds_sim.h"

/* With TVDS_TEST_ENGINE defined before the include: the published channels and summary
 * scalars of a tvds_data, by name. */
/* Index of a channel by name in a group; the channel must exist. */
static inline int ch_index(const tvds_data *d, int group, const char *name)
{
    int n;
    const char *const *names;
    const double *v;
    tvds_channels(d, group, &n, &names, &v);
    int k = 0;
    while (k < n && strcmp(names[k], name) != 0)
        k++;
    ck_assert_msg(k < n, "no channel '%s' in group %d", name, group);
    return k;
}

static inline double ch(const tvds_data *d, int group, int k)
{
    int n;
    const char *const *names;
    const double *v;
    tvds_channels(d, group, &n, &names, &v);
    return v[k];
}

static inline double summary(const tvds_data *d, const char *name)
{
    int n;
    const char *const *names;
    const double *v;
    tvds_summary(d, &n, &names, &v);
    for (int k = 0; k < n; k++)
        if (strcmp(names[k], name) == 0) return v[k];
    return NAN;
}
#endif /* TVDS_TEST_ENGINE */

#ifdef TVDS_TEST_POINTS
#include "tvds/tvds_io.h"

/* With TVDS_TEST_POINTS defined before the include: write to dir a substructure `name` of nn
 * physical nodes 1..nn (three DoFs x, y, z each, node k at xyz[3 (k - 1) ...]) with the full
 * symmetric matrices M and K (3 nn x 3 nn) and one node set `set` of nset nodes; the write must
 * succeed. */
static inline void tvds_test_write_points(const char *dir, const char *name, int nn,
                                          const double *xyz, const double *M, const double *K,
                                          const char *set, int nset, const long *set_nodes)
{
    int n = 3 * nn;
    tvds_dof *d = calloc((size_t)n, sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (int k = 0; k < n; k++) {
        d[k].kind = TVDS_DOF_PHYSICAL;
        d[k].node = 1 + k / 3;
        d[k].dir = k % 3;
        memcpy(d[k].xyz, xyz + 3 * (k / 3), sizeof d[k].xyz);
    }
    tvds_nodeset ns = {(char *)set, nset, (long *)set_nodes};
    tvds_substructure s;
    memset(&s, 0, sizeof s);
    s.name = (char *)name;
    s.n = n;
    s.M = (double *)M;
    s.K = (double *)K;
    s.dofs = d;
    s.nsets = 1;
    s.sets = &ns;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_substructure_write(&s, dir, &ctx) == TVDS_OK, "%s", ctx.msg);
    free(d);
}
#endif /* TVDS_TEST_POINTS */

#if defined(TVDS_TEST_ENGINE) && defined(TVDS_SIM_IMPL_H)
/* The round-off one step of run d adds to a comparison of two runs of one model (two solvers,
 * two searches, two orders of summation), in units of u = DBL_EPSILON / 2 relative to the
 * channels' peak: each dot product of the propagation (length at most n, the largest
 * substructure) is within gamma_n ~ n u of the exact one (Higham, Accuracy and Stability, 3.1),
 * the LU solve of the step's n_r contact rows within n_r u kappa_1(W) (ibid., 9.1). A stable,
 * damped run carries a step's error forward without growth, so over the steps these add at
 * most linearly: the bound of the difference is u sum_k (n + n_r kappa_1(W_k)) of the peak. */
static inline double tvds_test_step_roundoff(const tvds_data *d)
{
    int n = 0;
    for (int i = 0; i < d->nsub; i++)
        if (d->sub[i].n > n) n = d->sub[i].n;
    return n + (d->nrow > 0 && d->W_n > 0 ? d->W_n * tvds_test_cond1(d->W, d->W_n) : 0.0);
}
#endif

#endif /* TVDS_TEST_H */
