/* check_mmio.c — strict Matrix Market reader/writer: every rejection, round trips, CHOLMOD hooks.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvds/tvds_io.h"
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

#define DATA "tests/data/mmio/"

/* A private temporary directory under /tmp, removed with its files at the end of a test. */
static char tmpdir[64];

static void tmp_setup(void)
{
    tvds_test_mkdtemp(tmpdir, sizeof tmpdir, "/tmp/tvds_mmio_");
}

static void tmp_path(char *buf, size_t n, const char *file)
{
    snprintf(buf, n, "%s/%s", tmpdir, file);
}

static void tmp_remove(const char *file)
{
    char p[128];
    tmp_path(p, sizeof p, file);
    unlink(p);
}

/* Deterministic generator (xorshift64*), so that failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Random finite double from random bits: every exponent, subnormals included. */
static double rng_double_bits(void)
{
    for (;;) {
        uint64_t u = rng_next();
        double x;
        memcpy(&x, &u, sizeof x);
        if (isfinite(x)) return x;
    }
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- Rejections --------------------------------------------------------------------------- */

typedef struct bad_case {
    const char *file;
    int status;
    const char *msg; /* expected to follow "tests/data/mmio/<file>" */
} bad_case;

static const bad_case bad_cases[] = {
    {"empty.mtx", TVDS_ERR_PARSE, ":1: empty file"},
    {"bad_banner.mtx", TVDS_ERR_PARSE,
     ":1: not a Matrix Market file: the first line must start with '%%MatrixMarket', found "
     "'%%MatrixMarkt'"},
    {"bad_banner_short.mtx", TVDS_ERR_PARSE, ":1: incomplete banner: the symmetry is missing"},
    {"bad_format.mtx", TVDS_ERR_PARSE, ":1: unknown format 'cordinate'"},
    {"bad_field.mtx", TVDS_ERR_PARSE, ":1: unknown field 'reel'"},
    {"bad_symmetry.mtx", TVDS_ERR_PARSE, ":1: unknown symmetry 'symetric'"},
    {"unsupported_complex.mtx", TVDS_ERR_PARSE, ":1: unsupported field 'complex'"},
    {"unsupported_pattern.mtx", TVDS_ERR_PARSE, ":1: unsupported field 'pattern'"},
    {"unsupported_hermitian.mtx", TVDS_ERR_PARSE, ":1: unsupported symmetry 'hermitian'"},
    {"unsupported_skew.mtx", TVDS_ERR_PARSE, ":1: unsupported symmetry 'skew-symmetric'"},
    {"size_missing.mtx", TVDS_ERR_PARSE, ":2: file ends before the size line"},
    {"size_nonnumeric.mtx", TVDS_ERR_PARSE, ":2: size line: column count 'two' is not an integer"},
    {"size_negative.mtx", TVDS_ERR_PARSE, ":3: size line: negative column count -2"},
    {"size_nonsquare_sym.mtx", TVDS_ERR_PARSE,
     ":2: a symmetric matrix must be square, the size line says 2 x 3"},
    {"size_too_many.mtx", TVDS_ERR_PARSE, ":2: size line has more than 3 fields"},
    {"size_too_few.mtx", TVDS_ERR_PARSE, ":2: size line has 2 fields, expected 3"},
    {"index_zero.mtx", TVDS_ERR_PARSE, ":4: row index 0: Matrix Market indices start at 1"},
    {"index_range.mtx", TVDS_ERR_PARSE, ":4: column index 3 out of range 1..2"},
    {"sym_both_triangles.mtx", TVDS_ERR_PARSE,
     ":6: entry (1,2) and its mirror (2,1) on line 4 are both given"},
    {"duplicate.mtx", TVDS_ERR_PARSE, ":5: duplicate entry (2,3), first given on line 4"},
    {"truncated.mtx", TVDS_ERR_PARSE, ":5: file ends after 3 of the 4 entries"},
    {"truncated_midline.mtx", TVDS_ERR_PARSE, ":6: entry has 2 fields, expected 3"},
    {"too_many.mtx", TVDS_ERR_PARSE, ":5: more entries than the 2 the size line declares"},
    {"nan.mtx", TVDS_ERR_PARSE, ":4: value 'NaN' is not finite"},
    {"inf.mtx", TVDS_ERR_PARSE, ":3: value '-inf' is not finite"},
    {"overflow.mtx", TVDS_ERR_PARSE, ":4: value '1e400' overflows a double"},
    {"nonnumeric.mtx", TVDS_ERR_PARSE, ":3: value '1.5x' is not a number"},
    {"hexfloat.mtx", TVDS_ERR_PARSE, ":3: value '0x1p3' is not a number"},
    {"trailing.mtx", TVDS_ERR_PARSE, ":4: trailing text 'junk' after the value"},
    {"integer_not_int.mtx", TVDS_ERR_PARSE, ":4: value '1.5' is not an integer"},
    {"array_trailing.mtx", TVDS_ERR_PARSE, ":5: trailing text '4' after the value"},
    {"array_truncated.mtx", TVDS_ERR_PARSE, ":4: file ends after 2 of the 3 entries"},
    {"size_too_many_entries.mtx", TVDS_ERR_PARSE,
     ":2: size line declares 10 entries, more than the 3 positions of a symmetric 2 x 2 matrix"},
    {"size_too_large.mtx", TVDS_ERR_PARSE,
     ":2: size line: row count '99999999999' is too large (limit 2147483647)"},
    {"unsupported_object.mtx", TVDS_ERR_PARSE, ":1: unsupported object 'vector'"},
    {"bad_banner_long.mtx", TVDS_ERR_PARSE, ":1: unexpected text after the banner's symmetry"},
    {"index_nonint.mtx", TVDS_ERR_PARSE, ":3: row index '1.0' is not an integer"},
    {"nul_byte.mtx", TVDS_ERR_PARSE, ":4: NUL byte (binary data) in the file"},
    {"does_not_exist.mtx", TVDS_ERR_IO, ": cannot open"},
};

#define NBAD ((int)(sizeof bad_cases / sizeof bad_cases[0]))

static void expect_msg(const tvds_ctx *ctx, const char *file, const char *tail)
{
    char want[512];
    snprintf(want, sizeof want, "%s%s%s", DATA, file, tail);
    if (strncmp(ctx->msg, want, strlen(want)) != 0)
        ck_abort_msg("message\n  '%s'\ndoes not start with\n  '%s'", ctx->msg, want);
}

START_TEST(test_rejections_sparse)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    snprintf(path, sizeof path, "%s%s", DATA, c->file);
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    cholmod_sparse *A = (cholmod_sparse *)&cc; /* must be cleared */
    int rc = tvds_mm_read(path, &A, &cc, &ctx);
    ck_assert_int_eq(rc, c->status);
    ck_assert_int_eq(ctx.status, c->status);
    ck_assert_ptr_null(A);
    expect_msg(&ctx, c->file, c->msg);
    ck_assert_ptr_null(strchr(ctx.msg, '\n'));
    cholmod_finish(&cc);
}
END_TEST

START_TEST(test_rejections_dense)
{
    const bad_case *c = &bad_cases[_i];
    char path[256];
    snprintf(path, sizeof path, "%s%s", DATA, c->file);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m = -1, n = -1;
    double *A = (double *)&m;
    int rc = tvds_mm_read_dense(path, &m, &n, &A, NULL, &ctx);
    ck_assert_int_eq(rc, c->status);
    ck_assert_ptr_null(A);
    expect_msg(&ctx, c->file, c->msg);
}
END_TEST

/* Lines of any length: a comment of 1 MB, then an entry with 5000 leading blanks. */
START_TEST(test_long_lines)
{
    tmp_setup();
    char path[128];
    tmp_path(path, sizeof path, "long.mtx");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("%%MatrixMarket matrix coordinate real general\n%", f);
    for (int k = 0; k < 1 << 20; k++)
        fputc('x', f);
    fputs("\n1 1 1\n", f);
    for (int k = 0; k < 5000; k++)
        fputc(' ', f);
    fputs("1 1 0.25\n", f);
    fclose(f);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m, n;
    double *A = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(path, &m, &n, &A, NULL, &ctx), TVDS_OK);
    ck_assert_int_eq(m, 1);
    ck_assert(A[0] == 0.25);
    tvds_free(A);
    tmp_remove("long.mtx");
    rmdir(tmpdir);
}
END_TEST

/* ---- Accepted files ----------------------------------------------------------------------- */

START_TEST(test_general_coordinate)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m, n, sym = -1;
    double *A = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(DATA "good_general.mtx", &m, &n, &A, &sym, &ctx), TVDS_OK);
    ck_assert_int_eq(m, 3);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(sym, 0);
    const double want[9] = {2.5, -1, 0, 0, 0, 0, 0.1, 0, 1e-300};
    for (int k = 0; k < 9; k++)
        ck_assert(same_bits(A[k], want[k]));
    tvds_free(A);
}
END_TEST

/* Lower-triangle symmetric file: dense form has both triangles, sparse form the upper one. */
START_TEST(test_symmetric_expansion)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m, n, sym = -1;
    double *A = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(DATA "good_symmetric.mtx", &m, &n, &A, &sym, &ctx),
                     TVDS_OK);
    ck_assert_int_eq(sym, 1);
    const double want[9] = {4, -1, 0, -1, 0, -2, 0, -2, 5};
    for (int k = 0; k < 9; k++)
        ck_assert(A[k] == want[k]);
    tvds_free(A);

    cholmod_common cc;
    tvds_cholmod_start(&cc);
    cholmod_sparse *S = NULL;
    ck_assert_int_eq(tvds_mm_read(DATA "good_symmetric.mtx", &S, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(S->stype, 1);
    ck_assert_int_eq((int)S->nrow, 3);
    ck_assert_int_eq((int)cholmod_nnz(S, &cc), 4);
    const int *Sp = S->p, *Si = S->i;
    const double *Sx = S->x;
    /* Column by column, rows ascending: (1,1)=4 | (1,2)=-1 | (2,3)=-2 (3,3)=5. */
    ck_assert_int_eq(Sp[1], 1);
    ck_assert_int_eq(Sp[2], 2);
    ck_assert_int_eq(Si[1], 0);
    ck_assert(Sx[1] == -1);
    ck_assert_int_eq(Si[2], 1);
    ck_assert(Sx[2] == -2);
    for (int j = 0; j < 3; j++)
        for (int p = Sp[j]; p < Sp[j + 1]; p++)
            ck_assert_int_le(Si[p], j);
    cholmod_free_sparse(&S, &cc);

    /* Upper-triangle entries alone are accepted as the same matrix. */
    ck_assert_int_eq(tvds_mm_read(DATA "good_symmetric_upper.mtx", &S, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(S->stype, 1);
    Sp = S->p;
    Si = S->i;
    Sx = S->x;
    ck_assert_int_eq(Sp[2] - Sp[1], 1);
    ck_assert_int_eq(Si[Sp[1]], 0);
    ck_assert(Sx[Sp[1]] == -1);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
}
END_TEST

START_TEST(test_array_formats)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m, n, sym;
    double *A = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(DATA "good_array.mtx", &m, &n, &A, &sym, &ctx), TVDS_OK);
    ck_assert_int_eq(m, 2);
    ck_assert_int_eq(n, 3);
    for (int k = 0; k < 6; k++)
        ck_assert(A[k] == k + 1); /* column-major as in the file */
    tvds_free(A);
    ck_assert_int_eq(tvds_mm_read_dense(DATA "good_array_sym.mtx", &m, &n, &A, &sym, &ctx),
                     TVDS_OK);
    ck_assert_int_eq(sym, 1);
    /* Lower triangle by columns: (1,1)=1 (2,1)=2 (3,1)=3 (2,2)=4 (3,2)=5 (3,3)=6. */
    const double want[9] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    for (int k = 0; k < 9; k++)
        ck_assert(A[k] == want[k]);
    tvds_free(A);

    cholmod_common cc;
    tvds_cholmod_start(&cc);
    cholmod_sparse *S = NULL;
    ck_assert_int_eq(tvds_mm_read(DATA "good_array_sym.mtx", &S, &cc, &ctx), TVDS_OK);
    ck_assert_int_eq(S->stype, 1);
    ck_assert_int_eq((int)cholmod_nnz(S, &cc), 6);
    cholmod_dense *D = cholmod_sparse_to_dense(S, &cc);
    const double *Dx = D->x;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i <= j; i++)
            ck_assert(Dx[i + 3 * j] == want[i + 3 * j]);
    cholmod_free_dense(&D, &cc);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    ck_assert_int_eq(ctx.status, TVDS_OK);
}
END_TEST

START_TEST(test_integer_crlf)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int m, n;
    double *A = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(DATA "good_integer_crlf.mtx", &m, &n, &A, NULL, &ctx),
                     TVDS_OK);
    ck_assert(A[0] == 7 && A[1] == 0 && A[2] == 0 && A[3] == -3);
    tvds_free(A);
}
END_TEST

/* ---- Round trips -------------------------------------------------------------------------- */

/* Dense: awkward values come back bit for bit, -0.0 included. */
START_TEST(test_dense_roundtrip_bits)
{
    tmp_setup();
    char path[128];
    tmp_path(path, sizeof path, "dense.mtx");
    const int m = 23, n = 17;
    double *A = malloc(sizeof(double) * m * n);
    const double special[] = {0.1,
                              -0.0,
                              0.0,
                              1e308,
                              -1e308,
                              DBL_MAX,
                              DBL_MIN,
                              -DBL_MIN,
                              4.9406564584124654e-324,
                              2.2250738585072009e-308,
                              1.0 / 3,
                              -2.0 / 3,
                              1e-310,
                              123456789012345678.0};
    int ns = (int)(sizeof special / sizeof special[0]);
    for (int k = 0; k < m * n; k++)
        A[k] = k < ns ? special[k] : rng_double_bits();
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_mm_write_dense(path, m, n, A, 0, "round trip\nsecond line", &ctx),
                     TVDS_OK);
    int mm, nn, sym;
    double *B = NULL;
    ck_assert_int_eq(tvds_mm_read_dense(path, &mm, &nn, &B, &sym, &ctx), TVDS_OK);
    ck_assert_int_eq(mm, m);
    ck_assert_int_eq(nn, n);
    ck_assert_int_eq(sym, 0);
    for (int k = 0; k < m * n; k++)
        if (!same_bits(A[k], B[k])) ck_abort_msg("entry %d: %a read back as %a", k, A[k], B[k]);
    tvds_free(B);

    /* Symmetric: lower triangle written, both triangles read back. */
    double *S = malloc(sizeof(double) * n * n);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++)
            S[i + j * n] = S[j + i * n] = rng_double_bits();
    S[1] = S[n] = -0.0;
    ck_assert_int_eq(tvds_mm_write_dense(path, n, n, S, 1, NULL, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_mm_read_dense(path, &mm, &nn, &B, &sym, &ctx), TVDS_OK);
    ck_assert_int_eq(sym, 1);
    for (int k = 0; k < n * n; k++)
        ck_assert(same_bits(S[k], B[k]));
    tvds_free(B);
    /* A matrix that is not exactly symmetric is refused as symmetric. */
    S[2] = nextafter(S[2], 1e300);
    ck_assert_int_eq(tvds_mm_write_dense(path, n, n, S, 1, NULL, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "not exactly symmetric: (3,1)"));
    free(S);
    free(A);
    tmp_remove("dense.mtx");
    rmdir(tmpdir);
}
END_TEST

/* Random sparse matrix with sorted, packed columns and no duplicates. */
static cholmod_sparse *random_sparse(int n, int per_col, int stype, cholmod_common *cc)
{
    cholmod_sparse *A =
        cholmod_allocate_sparse(n, n, (size_t)n * per_col, 1, 1, stype, CHOLMOD_REAL, cc);
    int *Ap = A->p, *Ai = A->i;
    double *Ax = A->x;
    int p = 0;
    for (int j = 0; j < n; j++) {
        Ap[j] = p;
        int lo = stype > 0 ? 0 : 0, hi = stype > 0 ? j + 1 : n;
        int step = (hi - lo) / per_col;
        if (step < 1) step = 1;
        int r = lo + (int)(rng_next() % (uint64_t)step);
        for (int c = 0; c < per_col && r < hi; c++, r += step) {
            Ai[p] = r;
            Ax[p] = (rng_next() & 1) ? rng_double_bits() : (double)(rng_next() % 1000) / 10.0;
            p++;
        }
    }
    Ap[n] = p;
    return A;
}

static void assert_same_sparse(const cholmod_sparse *A, const cholmod_sparse *B)
{
    ck_assert_int_eq((int)A->ncol, (int)B->ncol);
    ck_assert_int_eq(A->stype, B->stype);
    const int *Ap = A->p, *Ai = A->i, *Bp = B->p, *Bi = B->i;
    const double *Ax = A->x, *Bx = B->x;
    for (size_t j = 0; j <= A->ncol; j++)
        ck_assert_int_eq(Ap[j], Bp[j]);
    for (int p = 0; p < Ap[A->ncol]; p++) {
        ck_assert_int_eq(Ai[p], Bi[p]);
        if (!same_bits(Ax[p], Bx[p])) ck_abort_msg("entry %d: %a vs %a", p, Ax[p], Bx[p]);
    }
}

START_TEST(test_sparse_roundtrip_bits)
{
    tmp_setup();
    char path[128];
    tmp_path(path, sizeof path, "sparse.mtx");
    cholmod_common cc;
    tvds_cholmod_start(&cc);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int stype = 0; stype <= 1; stype++) {
        cholmod_sparse *A = random_sparse(2000, 20, stype, &cc), *B = NULL;
        ck_assert_int_eq(tvds_mm_write(path, A, "random", &ctx), TVDS_OK);
        ck_assert_int_eq(tvds_mm_read(path, &B, &cc, &ctx), TVDS_OK);
        assert_same_sparse(A, B);
        cholmod_free_sparse(&B, &cc);
        /* The same matrix as stype = -1 (lower) reads back as the upper form. */
        if (stype == 1) {
            cholmod_sparse *L = cholmod_transpose(A, 1, &cc);
            ck_assert_int_eq(L->stype, -1);
            ck_assert_int_eq(tvds_mm_write(path, L, NULL, &ctx), TVDS_OK);
            ck_assert_int_eq(tvds_mm_read(path, &B, &cc, &ctx), TVDS_OK);
            assert_same_sparse(A, B);
            cholmod_free_sparse(&B, &cc);
            cholmod_free_sparse(&L, &cc);
        }
        cholmod_free_sparse(&A, &cc);
    }
    cholmod_finish(&cc);
    ck_assert_int_eq(ctx.status, TVDS_OK);
    tmp_remove("sparse.mtx");
    rmdir(tmpdir);
}
END_TEST

/* ---- Allocation failures and CHOLMOD routing ---------------------------------------------- */

/* Every allocation of the reader may fail: the error is NOMEM and nothing leaks (ASan). */
START_TEST(test_alloc_failures)
{
    const char *files[] = {DATA "good_general.mtx", DATA "good_symmetric.mtx",
                           DATA "good_array_sym.mtx"};
    for (int f = 0; f < 3; f++) {
        for (long k = 0; k < 100; k++) {
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            int m, n;
            double *A = NULL;
            tvds_alloc_fail_after(k);
            int rc = tvds_mm_read_dense(files[f], &m, &n, &A, NULL, &ctx);
            tvds_alloc_fail_after(-1);
            if (rc == TVDS_OK) {
                tvds_free(A);
                break; /* k is past the last allocation */
            }
            ck_assert_int_eq(rc, TVDS_ERR_NOMEM);
            ck_assert_ptr_null(A);
        }
    }
}
END_TEST

START_TEST(test_cholmod_errors_routed)
{
    cholmod_common cc;
    ck_assert_int_eq(tvds_cholmod_start(&cc), TVDS_OK);
    ck_assert_int_eq(cc.print, 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    /* An invalid xtype is a CHOLMOD error: it lands in ctx, not on stdout. */
    cholmod_dense *X = cholmod_allocate_dense(2, 2, 2, 12345, &cc);
    ck_assert_ptr_null(X);
    ck_assert_int_eq(ctx.status, TVDS_ERR_SOLVER);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "CHOLMOD error"));
    tvds_cholmod_ctx(NULL);
    tvds_ctx_init(&ctx);
    X = cholmod_allocate_dense(2, 2, 2, 12345, &cc);
    ck_assert_int_eq(ctx.status, TVDS_OK); /* no current context: nothing recorded */

    /* LL' reports an indefinite matrix: eigenvalues 3, -1, 1. */
    cholmod_sparse *A = cholmod_allocate_sparse(3, 3, 4, 1, 1, 1, CHOLMOD_REAL, &cc);
    int *Ap = A->p, *Ai = A->i;
    double *Ax = A->x;
    Ap[0] = 0, Ap[1] = 1, Ap[2] = 3, Ap[3] = 4;
    Ai[0] = 0, Ax[0] = 1;
    Ai[1] = 0, Ax[1] = 2;
    Ai[2] = 1, Ax[2] = 1;
    Ai[3] = 2, Ax[3] = 1;
    cholmod_factor *L = cholmod_analyze(A, &cc);
    cholmod_factorize(A, L, &cc);
    ck_assert_int_eq(cc.status, CHOLMOD_NOT_POSDEF);
    ck_assert_int_lt((int)L->minor, 3);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&A, &cc);
    cholmod_finish(&cc);
}
END_TEST

Suite *mmio_suite(void)
{
    Suite *s = suite_create("mmio");
    TCase *tc = tcase_create("reject");
    tcase_add_loop_test(tc, test_rejections_sparse, 0, NBAD);
    tcase_add_loop_test(tc, test_rejections_dense, 0, NBAD);
    tcase_add_test(tc, test_alloc_failures);
    tcase_add_test(tc, test_cholmod_errors_routed);
    suite_add_tcase(s, tc);
    tc = tcase_create("accept");
    tcase_add_test(tc, test_general_coordinate);
    tcase_add_test(tc, test_symmetric_expansion);
    tcase_add_test(tc, test_array_formats);
    tcase_add_test(tc, test_integer_crlf);
    tcase_add_test(tc, test_long_lines);
    suite_add_tcase(s, tc);
    tc = tcase_create("roundtrip");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_dense_roundtrip_bits);
    tcase_add_test(tc, test_sparse_roundtrip_bits);
    suite_add_tcase(s, tc);
    return s;
}
