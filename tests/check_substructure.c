/* check_substructure.c — substructure directories: reading, every validation error, round trip. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "tvds_test.h"
#include "core/test_hooks_impl.h"

#define DATA "tests/data/substructure/"

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- Good directories --------------------------------------------------------------------- */

START_TEST(test_read_shoe)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    ck_assert_int_eq(tvds_substructure_read(DATA "shoe", NULL, &s, &ctx), TVDS_OK);
    ck_assert_str_eq(s->name, "shoe");
    ck_assert_int_eq(s->n, 3);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            ck_assert(s->M[i + 3 * j] == (i == j ? 1.0 : 0.0));
            ck_assert(s->K[i + 3 * j] == (i == j ? 1e4 : 0.0));
        }
    ck_assert_ptr_null(s->C);
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(s->dofs[k].kind, TVDS_DOF_PHYSICAL);
        ck_assert_int_eq(s->dofs[k].node, 1);
        ck_assert_int_eq(s->dofs[k].dir, k);
    }
    ck_assert_int_eq(s->nsets, 1);
    ck_assert_str_eq(s->sets[0].name, "shoe");
    ck_assert_int_eq(s->sets[0].n, 1);
    ck_assert_int_eq(s->nrec, 0);
    /* omega0 = sqrt(k/m) = 100 rad/s, the SDND100 value. */
    ck_assert_double_eq_tol(sqrt(s->K[0] / s->M[0]), 100.0, 1e-12);
    tvds_substructure_free(&s);
    ck_assert_ptr_null(s);
    tvds_substructure_free(&s); /* NULL is fine */
}
END_TEST

START_TEST(test_read_full)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    ck_assert_int_eq(tvds_substructure_read(DATA "full/", "bar", &s, &ctx), TVDS_OK);
    ck_assert_str_eq(s->name, "bar");
    ck_assert_int_eq(s->n, 5);
    /* Symmetric file expanded: M(2,5) = M(5,2) = 0.125. */
    ck_assert(s->M[1 + 5 * 4] == 0.125 && s->M[4 + 5 * 1] == 0.125);
    ck_assert(s->K[0 + 5 * 2] == -1000.0 && s->K[2 + 5 * 0] == -1000.0);
    ck_assert_ptr_nonnull(s->C);
    ck_assert(s->C[0] == 0.5 && s->C[24] == 2.0 && s->C[1] == 0.0);
    ck_assert_int_eq(s->dofs[2].node, 2);
    ck_assert(s->dofs[2].xyz[0] == 0.1);
    ck_assert_int_eq(s->dofs[4].kind, TVDS_DOF_MODAL);
    ck_assert_int_eq(s->dofs[4].node, 1);
    ck_assert_int_eq(s->dofs[4].dir, TVDS_DIR_NONE);
    /* The mode's frequency matches its stiffness: omega^2 = K/M = 1e6. */
    double w = 2.0 * 3.14159265358979323846 * s->dofs[4].freq_hz;
    ck_assert_double_eq_tol(w * w, s->K[24] / s->M[24], 1e-9 * 1e6);
    /* The continued set and the commented one. */
    ck_assert_int_eq(s->nsets, 2);
    ck_assert_str_eq(s->sets[0].name, "top");
    ck_assert_int_eq(s->sets[0].n, 2);
    ck_assert_int_eq(s->sets[0].nodes[0], 1);
    ck_assert_int_eq(s->sets[0].nodes[1], 2);
    ck_assert_str_eq(s->sets[1].name, "tip");
    ck_assert_int_eq(s->sets[1].n, 1);
    ck_assert_int_eq(tvds_substructure_find_set(s, "tip"), 1);
    ck_assert_int_eq(tvds_substructure_find_dof(s, 2, TVDS_DIR_Y), 3);
    /* Recovery: the mid-point moves by the mean of the nodes' uy. */
    ck_assert_int_eq(s->nrec, 1);
    ck_assert_str_eq(s->rec[0].name, "mid");
    ck_assert_int_eq(s->rec[0].dir, TVDS_DIR_Y);
    double u[5] = {0.3, 1e-3, -0.2, 3e-3, 7.0}, up = 0.0;
    for (int j = 0; j < 5; j++)
        up += s->rec[0].row[j] * u[j];
    ck_assert_double_eq_tol(up, 2e-3, 1e-18);
    tvds_substructure_free(&s);
}
END_TEST

static void assert_same_sub(const tvds_substructure *a, const tvds_substructure *b)
{
    ck_assert_int_eq(a->n, b->n);
    size_t nn = (size_t)a->n * (size_t)a->n;
    for (size_t k = 0; k < nn; k++) {
        ck_assert(same_bits(a->M[k], b->M[k]));
        ck_assert(same_bits(a->K[k], b->K[k]));
    }
    ck_assert_int_eq(a->C != NULL, b->C != NULL);
    if (a->C)
        for (size_t k = 0; k < nn; k++)
            ck_assert(same_bits(a->C[k], b->C[k]));
    for (int k = 0; k < a->n; k++) {
        ck_assert_int_eq(a->dofs[k].kind, b->dofs[k].kind);
        ck_assert_int_eq(a->dofs[k].node, b->dofs[k].node);
        ck_assert_int_eq(a->dofs[k].dir, b->dofs[k].dir);
        for (int c = 0; c < 3; c++)
            ck_assert(same_bits(a->dofs[k].xyz[c], b->dofs[k].xyz[c]));
        if (a->dofs[k].kind == TVDS_DOF_MODAL)
            ck_assert(same_bits(a->dofs[k].freq_hz, b->dofs[k].freq_hz));
    }
    ck_assert_int_eq(a->nsets, b->nsets);
    for (int k = 0; k < a->nsets; k++) {
        ck_assert_str_eq(a->sets[k].name, b->sets[k].name);
        ck_assert_int_eq(a->sets[k].n, b->sets[k].n);
        for (int i = 0; i < a->sets[k].n; i++)
            ck_assert_int_eq(a->sets[k].nodes[i], b->sets[k].nodes[i]);
    }
    ck_assert_int_eq(a->nrec, b->nrec);
    for (int k = 0; k < a->nrec; k++) {
        ck_assert_str_eq(a->rec[k].name, b->rec[k].name);
        ck_assert_int_eq(a->rec[k].node, b->rec[k].node);
        ck_assert_int_eq(a->rec[k].dir, b->rec[k].dir);
        for (int c = 0; c < 3; c++)
            ck_assert(same_bits(a->rec[k].xyz[c], b->rec[k].xyz[c]));
        for (int j = 0; j < a->n; j++)
            ck_assert(same_bits(a->rec[k].row[j], b->rec[k].row[j]));
    }
}

START_TEST(test_roundtrip_full)
{
    char dir[64], sub[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    snprintf(sub, sizeof sub, "%s/bar", dir);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *a = NULL, *b = NULL;
    ck_assert_int_eq(tvds_substructure_read(DATA "full", NULL, &a, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_write(a, sub, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_read(sub, NULL, &b, &ctx), TVDS_OK);
    ck_assert_str_eq(b->name, "bar");
    assert_same_sub(a, b);
    tvds_substructure_free(&b);
    /* Writing again over the directory without C and recovery removes the stale files. */
    tvds_free(a->C);
    a->C = NULL;
    for (int k = 0; k < a->nrec; k++) {
        tvds_free(a->rec[k].name);
        tvds_free(a->rec[k].row);
    }
    a->nrec = 0;
    ck_assert_int_eq(tvds_substructure_write(a, sub, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_read(sub, NULL, &b, &ctx), TVDS_OK);
    assert_same_sub(a, b);
    tvds_substructure_free(&b);
    tvds_substructure_free(&a);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* Write sub as dir's new version through a stage and a manifest (as `tvds reduce` does);
 * fail_after >= 0 stops the commit after that many renames, as a kill would. */
static int commit_sub(const tvds_substructure *sub, const char *dir, long fail_after, tvds_ctx *ctx)
{
    char stage[4200];
    const char *const *owned;
    int nowned = tvds_substructure_files(&owned);
    int rc = tvds_commit_begin(dir, stage, sizeof stage, ctx);
    if (!rc) rc = tvds_substructure_write(sub, stage, ctx);
    tvds_commit_fail_after(fail_after);
    if (!rc) rc = tvds_commit_end(dir, owned, nowned, ctx);
    tvds_commit_fail_after(-1);
    return rc;
}

/* A writer stopped between two files (killed, power cut) never leaves a directory that reads
 * as a substructure made of both versions: after every number of renames, the directory reads
 * as all old, all new (files identical in both count as either), or is refused by its
 * manifest. Before (files replaced in place, no manifest), the directory with the new C.mtx and
 * the old K.mtx and M.mtx of the same size was read without a word. */
START_TEST(test_commit_stopped_between_files)
{
    char dir[64], sub[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    snprintf(sub, sizeof sub, "%s/s", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *a = NULL, *b = NULL, *r = NULL;
    ck_assert_int_eq(tvds_substructure_read(DATA "full", "s", &a, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_read(DATA "full", "s", &b, &ctx), TVDS_OK);
    /* The new version: same sizes, every matrix scaled (still symmetric and definite). */
    size_t nn = (size_t)b->n * (size_t)b->n;
    for (size_t k = 0; k < nn; k++) {
        b->M[k] *= 2.0;
        b->K[k] *= 3.0;
        if (b->C) b->C[k] *= 5.0;
    }
    ck_assert_ptr_nonnull(b->C);
    int refused = 0, old = 0, new = 0;
    for (long k = 0; k <= 8; k++) {
        tvds_ctx_init(&ctx);
        ck_assert_msg(commit_sub(a, sub, -1, &ctx) == TVDS_OK, "%s", ctx.msg);
        tvds_ctx_init(&ctx);
        int rc = commit_sub(b, sub, k, &ctx);
        ck_assert_int_eq(rc, k < 7 ? TVDS_ERR_WRITE : TVDS_OK); /* 7 files */
        tvds_ctx_init(&ctx);
        rc = tvds_substructure_read(sub, NULL, &r, &ctx);
        if (rc) {
            ck_assert_int_eq(rc, TVDS_ERR_INVALID);
            ck_assert_msg(strstr(ctx.msg, "manifest.txt"), "%s", ctx.msg);
            refused++;
            continue;
        }
        const tvds_substructure *w = r->M[0] == a->M[0] ? a : b;
        ck_assert_msg(!memcmp(r->M, w->M, nn * sizeof *r->M) &&
                          !memcmp(r->K, w->K, nn * sizeof *r->K) &&
                          !memcmp(r->C, w->C, nn * sizeof *r->C),
                      "after %ld renames: a substructure made of two versions was read", k);
        old += w == a;
        new += w == b;
        tvds_substructure_free(&r);
    }
    /* Sorted renames: C.mtx, K.mtx, M.mtx first, so stops after 0, 1 and 2 renames (new
     * manifest, some old matrices) are the refused ones; the other files are the same bytes
     * in both versions. */
    ck_assert_int_eq(refused, 3);
    ck_assert_int_eq(old, 0);
    ck_assert_int_eq(new, 6);
    /* Stopped before the commit point (new version staged, manifest not yet renamed): the old
     * version, whole; the stage is ignored by the reader and removed by the next write. */
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(commit_sub(a, sub, -1, &ctx), TVDS_OK);
    char stage[4200];
    ck_assert_int_eq(tvds_commit_begin(sub, stage, sizeof stage, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_write(b, stage, &ctx), TVDS_OK);
    ck_assert_msg(tvds_substructure_read(sub, NULL, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert(!memcmp(r->K, a->K, nn * sizeof *r->K) && !memcmp(r->C, a->C, nn * sizeof *r->C));
    tvds_substructure_free(&r);
    /* A directory edited by hand after its commit is refused until its manifest goes. */
    char p[200];
    snprintf(p, sizeof p, "%s/K.mtx", sub);
    FILE *f = fopen(p, "a");
    ck_assert_ptr_nonnull(f);
    fputs("% edited\n", f);
    fclose(f);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_read(sub, NULL, &r, &ctx), TVDS_ERR_INVALID);
    ck_assert_msg(strstr(ctx.msg, "K.mtx: not the file manifest.txt lists"), "%s", ctx.msg);
    snprintf(p, sizeof p, "%s/manifest.txt", sub);
    ck_assert_int_eq(unlink(p), 0);
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_substructure_read(sub, NULL, &r, &ctx) == TVDS_OK, "%s", ctx.msg);
    tvds_substructure_free(&r);
    tvds_substructure_free(&a);
    tvds_substructure_free(&b);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* Face sets: read, kept in file order per name, written and read back unchanged; mixed face
 * kinds in one set. */
START_TEST(test_faceset_roundtrip)
{
    char dir[64], a_dir[128], b_dir[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    snprintf(a_dir, sizeof a_dir, "%s/plate", dir);
    snprintf(b_dir, sizeof b_dir, "%s/copy", dir);
    ck_assert_int_eq(mkdir(a_dir, 0777), 0);
    /* Six nodes of a 2 x 1 patch in z = 0, ux uy uz each: M = I, K = 1e3 I. */
    char dofs[1024] = "", mm[2][2048];
    for (int k = 0; k < 6; k++)
        for (int a = 0; a < 3; a++) {
            char line[80];
            snprintf(line, sizeof line, "%d u%c %g %g 0\n", k + 1, "xyz"[a], 0.1 * (k % 3),
                     0.1 * (k / 3));
            strcat(dofs, line);
        }
    for (int w = 0; w < 2; w++) {
        snprintf(mm[w], sizeof mm[w],
                 "%%%%MatrixMarket matrix coordinate real symmetric\n18 18 18\n");
        for (int k = 1; k <= 18; k++) {
            char line[64];
            snprintf(line, sizeof line, "%d %d %g\n", k, k, w ? 1e3 : 1.0);
            strcat(mm[w], line);
        }
    }
    tvds_test_write_file(a_dir, "dofs.txt", dofs);
    tvds_test_write_file(a_dir, "M.mtx", mm[0]);
    tvds_test_write_file(a_dir, "K.mtx", mm[1]);
    tvds_test_write_file(a_dir, "sets.txt",
                         "set edge 1 2 3\n"
                         "face top 1 2 5 4   # a quadrilateral\n"
                         "face side 1 2 4\n"
                         "face top 2 3 6\n"
                         "face top 3 6 5\n");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *a = NULL, *b = NULL;
    ck_assert_msg(tvds_substructure_read(a_dir, NULL, &a, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(a->nsets, 1);
    ck_assert_int_eq(a->nfsets, 2);
    int top = tvds_substructure_find_faceset(a, "top");
    ck_assert_int_eq(top, 0);
    ck_assert_int_eq(tvds_substructure_find_faceset(a, "side"), 1);
    ck_assert_int_eq(tvds_substructure_find_faceset(a, "edge"), -1);
    const tvds_faceset *fs = &a->fsets[top];
    ck_assert_int_eq(fs->nface, 3);
    ck_assert_int_eq(fs->nn[0], 4);
    ck_assert_int_eq(fs->nn[1], 3);
    ck_assert_int_eq(fs->nodes[TVDS_FACE_MAX_NODES * 2 + 2], 5);
    ck_assert_int_eq(tvds_substructure_write(a, b_dir, &ctx), TVDS_OK);
    ck_assert_msg(tvds_substructure_read(b_dir, NULL, &b, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(b->nfsets, a->nfsets);
    for (int k = 0; k < a->nfsets; k++) {
        ck_assert_str_eq(b->fsets[k].name, a->fsets[k].name);
        ck_assert_int_eq(b->fsets[k].nface, a->fsets[k].nface);
        for (int f = 0; f < a->fsets[k].nface; f++) {
            ck_assert_int_eq(b->fsets[k].nn[f], a->fsets[k].nn[f]);
            for (int q = 0; q < a->fsets[k].nn[f]; q++)
                ck_assert_int_eq(b->fsets[k].nodes[TVDS_FACE_MAX_NODES * f + q],
                                 a->fsets[k].nodes[TVDS_FACE_MAX_NODES * f + q]);
        }
    }
    tvds_substructure_free(&a);
    tvds_substructure_free(&b);
    (void)tvds_test_rmtree(dir);
}
END_TEST

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A random substructure: M = A'A + n I (positive definite), K = B'B (semidefinite, rank n-2),
 * K made asymmetric by one ulp in one entry (within tolerance, so written as general). */
static tvds_substructure *random_sub(int n)
{
    tvds_substructure *s = tvds_calloc(1, sizeof *s);
    s->name = tvds_strdup("rand");
    s->n = n;
    size_t nn = (size_t)n;
    s->M = tvds_calloc(nn * nn, sizeof(double));
    s->K = tvds_calloc(nn * nn, sizeof(double));
    s->dofs = tvds_calloc(nn, sizeof *s->dofs);
    double *A = malloc(nn * nn * sizeof *A), *B = malloc(nn * nn * sizeof *B);
    for (size_t k = 0; k < nn * nn; k++) {
        A[k] = urand() - 0.5;
        B[k] = (k % nn) < nn - 2 ? 1e3 * (urand() - 0.5) : 0.0; /* last two rows of B zero */
    }
    for (size_t j = 0; j < nn; j++)
        for (size_t i = 0; i <= j; i++) {
            double m = 0.0, k = 0.0;
            for (size_t r = 0; r < nn; r++) {
                m += A[r + i * nn] * A[r + j * nn];
                k += B[r + i * nn] * B[r + j * nn];
            }
            if (i == j) m += (double)n;
            s->M[i + j * nn] = s->M[j + i * nn] = m;
            s->K[i + j * nn] = s->K[j + i * nn] = k;
        }
    s->K[1] = nextafter(s->K[1], 1e300);
    for (int k = 0; k < n; k++) {
        tvds_dof *d = &s->dofs[k];
        if (k < n - 2) {
            d->kind = TVDS_DOF_PHYSICAL;
            d->node = 100 + k / 3;
            d->dir = k % 3;
            d->xyz[0] = 0.1 * (k / 3);
            d->xyz[1] = (k / 3) % 2 ? -0.0 : 1e-310;
            d->xyz[2] = 1.0 / 3.0 * (k / 3);
        } else {
            d->kind = TVDS_DOF_MODAL;
            d->node = k - (n - 2) + 1;
            d->dir = TVDS_DIR_NONE;
            d->freq_hz = 1000.0 / 7.0 * (k + 1);
        }
    }
    s->nsets = 1;
    s->sets = tvds_calloc(1, sizeof *s->sets);
    s->sets[0].name = tvds_strdup("surface");
    s->sets[0].n = (n - 2) / 3;
    s->sets[0].nodes = tvds_calloc((size_t)s->sets[0].n, sizeof(long));
    for (int i = 0; i < s->sets[0].n; i++)
        s->sets[0].nodes[i] = 100 + s->sets[0].n - 1 - i;
    s->nrec = 2;
    s->rec = tvds_calloc(2, sizeof *s->rec);
    for (int r = 0; r < 2; r++) {
        s->rec[r].name = tvds_strdup(r ? "tip" : "root");
        s->rec[r].node = r ? 0 : 7;
        s->rec[r].dir = r ? TVDS_DIR_RZ : TVDS_DIR_X;
        s->rec[r].xyz[0] = 0.075 * r;
        s->rec[r].row = tvds_calloc(nn, sizeof(double));
        for (int j = 0; j < n; j += 2)
            s->rec[r].row[j] = urand() - 0.5;
    }
    free(A);
    free(B);
    return s;
}

START_TEST(test_roundtrip_random_bits)
{
    char dir[64];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *a = random_sub(62), *b = NULL;
    ck_assert_int_eq(tvds_substructure_validate(a, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_write(a, dir, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_substructure_read(dir, "rand", &b, &ctx), TVDS_OK);
    assert_same_sub(a, b);
    tvds_substructure_free(&a);
    tvds_substructure_free(&b);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* ---- Rejections --------------------------------------------------------------------------- */

START_TEST(test_m_indefinite_on_disk)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = (tvds_substructure *)&ctx;
    ck_assert_int_eq(tvds_substructure_read(DATA "bad_m_indefinite", NULL, &s, &ctx),
                     TVDS_ERR_NOT_POSDEF);
    ck_assert_ptr_null(s);
    /* [[1,2],[2,1]] breaks down at its second column: 1 - 2^2 < 0. */
    ck_assert_str_eq(ctx.msg,
                     DATA "bad_m_indefinite/M.mtx: substructure 'bad_m_indefinite': M is "
                          "not positive definite: its Cholesky factorization (LL', natural "
                          "order) breaks down at DoF 2 (node 1 uy)");
}
END_TEST

static const char *const SHOE_M = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n"
                                  "1 1 1\n2 2 1\n3 3 1\n";
static const char *const SHOE_K = "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n"
                                  "1 1 1e4\n2 2 1e4\n3 3 1e4\n";
static const char *const SHOE_DOFS = "1 ux 0 0 0\n1 uy 0 0 0\n1 uz 0 0 0\n";

typedef struct sub_case {
    const char *file, *text; /* replaces that file of the shoe */
    const char *file2, *text2;
    int status;
    const char *msg; /* expected after "<tmpdir>/case/" */
} sub_case;

static const sub_case sub_cases[] = {
    /* K asymmetric by far more than 1e-10 max|K|. */
    {"K.mtx",
     "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1e4\n2 2 1e4\n3 3 1e4\n1 2 5\n",
     NULL, NULL, TVDS_ERR_INVALID,
     "K.mtx: substructure 'case': K is not symmetric: K(2,1) = 0 but K(1,2) = 5"},
    /* Asymmetry of 0.5e-10 max|K| is rounding of an export: accepted. */
    {"K.mtx",
     "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1e4\n2 2 1e4\n3 3 1e4\n1 2 5\n"
     "2 1 5.0000005\n",
     NULL, NULL, TVDS_OK, ""},
    /* M asymmetric. */
    {"M.mtx",
     "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n3 3 1\n3 1 0.1\n", NULL,
     NULL, TVDS_ERR_INVALID, "M.mtx: substructure 'case': M is not symmetric"},
    /* K with eigenvalue -1e4 (M = I): breaks down at DoF 2. */
    {"K.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1e4\n2 1 2e4\n2 2 1e4\n"
     "3 3 1e4\n",
     NULL, NULL, TVDS_ERR_NOT_POSDEF,
     "K.mtx: substructure 'case': K is not positive semidefinite: K + 0.0001 M is not positive "
     "definite (breakdown at DoF 2 (node 1 uy))"},
    /* Eigenvalue -1e-2: beyond the shift 1e-8 * 1e4 = 1e-4. */
    {"K.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1e4\n2 1 -10000.01\n2 2 1e4\n"
     "3 3 1e4\n",
     NULL, NULL, TVDS_ERR_NOT_POSDEF, "K.mtx: substructure 'case': K is not positive semidefinite"},
    /* Eigenvalue -1e-8 (round-off of a rigid-body mode): within the shift, accepted. */
    {"K.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1e4\n2 1 -10000.00000001\n"
     "2 2 1e4\n3 3 1e4\n",
     NULL, NULL, TVDS_OK, ""},
    /* Negative diagonal. */
    {"K.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1e4\n2 2 1e4\n3 3 -1\n",
     NULL, NULL, TVDS_ERR_NOT_POSDEF,
     "K.mtx: substructure 'case': K is not positive semidefinite: negative diagonal K(3,3) = -1 "
     "at DoF 3 (node 1 uz)"},
    /* Zero K is semidefinite (a free mass). */
    {"K.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 0\n", NULL, NULL, TVDS_OK, ""},
    /* M with a zero pivot. */
    {"M.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n2 2 1\n", NULL, NULL,
     TVDS_ERR_NOT_POSDEF,
     "M.mtx: substructure 'case': M is not positive definite: its Cholesky factorization (LL', "
     "natural order) breaks down at DoF 3 (node 1 uz)"},
    /* Sizes. */
    {"K.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 2 1\n", NULL, NULL,
     TVDS_ERR_INVALID, "K.mtx: substructure 'case': K is 2 x 2 but M.mtx is 3 x 3"},
    {"M.mtx", "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1\n2 2 1\n", NULL, NULL,
     TVDS_ERR_INVALID, "M.mtx: substructure 'case': M.mtx is 3 x 2, not square"},
    {"C.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\n", NULL, NULL,
     TVDS_ERR_INVALID, "C.mtx: substructure 'case': C is 4 x 4 but M.mtx is 3 x 3"},
    {"dofs.txt", "1 ux 0 0 0\n1 uy 0 0 0\n# end\n", NULL, NULL, TVDS_ERR_INVALID,
     "dofs.txt:2: substructure 'case': 2 DoFs listed but M.mtx is 3 x 3"},
    {"dofs.txt", "1 ux 0 0 0\n1 uy 0 0 0\n1 uz 0 0 0\n2 ux 0 0 0\n", NULL, NULL, TVDS_ERR_INVALID,
     "dofs.txt:4: substructure 'case': more DoFs than the 3 of M.mtx"},
    /* The DoF table. */
    {"dofs.txt", "1 ux 0 0 0\n\n1 uy 0 0 0  # comment\n1 ux 0 0 0\n", NULL, NULL, TVDS_ERR_INVALID,
     "dofs.txt:4: substructure 'case': node 1 ux listed twice (first on line 1)"},
    {"dofs.txt", "1 ux 0 0 0\nmode 1 10\nmode 1 12\n", NULL, NULL, TVDS_ERR_INVALID,
     "dofs.txt:3: substructure 'case': mode 1 listed twice (first on line 2)"},
    {"dofs.txt", "1 ux 0 0 0\n1 uw 0 0 0\n1 uz 0 0 0\n", NULL, NULL, TVDS_ERR_PARSE,
     "dofs.txt:2: substructure 'case': direction 'uw' is not one of ux uy uz rx ry rz"},
    {"dofs.txt", "1 ux 0 0 0\n1 uy 0 0\n1 uz 0 0 0\n", NULL, NULL, TVDS_ERR_PARSE,
     "dofs.txt:2: substructure 'case': a physical DoF line is"},
    {"dofs.txt", "1 ux 0 0 0\n1 uy 0 nan 0\n1 uz 0 0 0\n", NULL, NULL, TVDS_ERR_PARSE,
     "dofs.txt:2: substructure 'case': coordinate y 'nan' is not a finite number"},
    {"dofs.txt", "1 ux 0 0 0\n0 uy 0 0 0\n1 uz 0 0 0\n", NULL, NULL, TVDS_ERR_PARSE,
     "dofs.txt:2: substructure 'case': node '0' is not an integer >= 1"},
    {"dofs.txt", "1 ux 0 0 0\nmode 0 5\n1 uz 0 0 0\n", NULL, NULL, TVDS_ERR_PARSE,
     "dofs.txt:2: substructure 'case': mode number '0' is not an integer >= 1"},
    {"dofs.txt", "1 ux 0 0 0\n1 uy 0 0 0\n1 uz 0 0.5 0\n", NULL, NULL, TVDS_ERR_INVALID,
     "dofs.txt:3: substructure 'case': node 1 uz has coordinates (0, 0.5, 0) but node 1 ux on "
     "line 1 has (0, 0, 0): the DoFs of a node share its coordinates"},
    /* Node sets. */
    {"sets.txt", "# sets\nset top 1\nset bottom 1 \\\n  7\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:4: substructure 'case': set 'bottom' names node 7, which has no DoF in the DoF "
     "table"},
    {"sets.txt", "set top 1\nset top 1\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:2: substructure 'case': set 'top' is defined twice (first on line 1)"},
    {"sets.txt", "set top 1 1\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': set 'top' lists node 1 twice"},
    {"sets.txt", "set top\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': set 'top' is empty"},
    {"sets.txt", "set top 1 \\\n", NULL, NULL, TVDS_ERR_PARSE,
     "sets.txt:1: substructure 'case': file ends after a continuation '\\'"},
    {"sets.txt", "top 1\n", NULL, NULL, TVDS_ERR_PARSE,
     "sets.txt:1: substructure 'case': expected 'set <name> <node>...' or 'face <name> "
     "<node>...', found 'top'"},
    /* Face sets. */
    {"sets.txt", "face top 1 2\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': face set 'top': a face has 3, 4, 6, 8 or 9 nodes, not 2"},
    {"sets.txt", "face top 1 2 3 4 5 6 7 8 9 10\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': face set 'top': a face has 3, 4, 6, 8 or 9 nodes, not 10 "
     "or more"},
    {"sets.txt", "face top 1 2 1\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': face set 'top': a face lists node 1 twice"},
    {"sets.txt", "face top 1 2 x\n", NULL, NULL, TVDS_ERR_PARSE,
     "sets.txt:1: substructure 'case': face set 'top': node 'x' is not an integer >= 1"},
    {"sets.txt", "face top 1 2 3 \\\n", NULL, NULL, TVDS_ERR_PARSE,
     "sets.txt:1: substructure 'case': a face line cannot continue"},
    {"sets.txt", "set top 1\nface top 1 2 3\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:2: substructure 'case': 'top' is already a node set"},
    {"sets.txt", "face top 1 2 3\nset top 1\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:2: substructure 'case': 'top' is already a face set"},
    {"sets.txt", "face top 1 2 3\n", NULL, NULL, TVDS_ERR_INVALID,
     "sets.txt:1: substructure 'case': face set 'top': node 2 has no ux in the DoF table"},
    {"sets.txt", "set top 1 x\n", NULL, NULL, TVDS_ERR_PARSE,
     "sets.txt:1: substructure 'case': set 'top': node 'x' is not an integer >= 1"},
    /* Matrix Market errors carry the substructure's name. */
    {"K.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1e4\n2 2 nan\n3 3 1\n",
     NULL, NULL, TVDS_ERR_PARSE, "K.mtx:4: value 'nan' is not finite (substructure 'case')"},
    /* Recovery rows. */
    {"recovery.txt", "tip 0 uy 0 0 0\n", NULL, NULL, TVDS_ERR_INVALID,
     "recovery.mtx: substructure 'case': recovery rows need both recovery.txt and recovery.mtx"},
    {"recovery.txt", "tip 0 uy 0 0 0\n", "recovery.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 2 1\n1 2 1\n", TVDS_ERR_INVALID,
     "recovery.mtx: substructure 'case': recovery matrix is 1 x 2, expected <rows> x 3"},
    {"recovery.txt", "tip 0 uy 0 0 0\n", "recovery.mtx",
     "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 2 1\n", TVDS_ERR_INVALID,
     "recovery.txt:1: substructure 'case': 1 recovery rows named but recovery.mtx has 2"},
    {"recovery.txt", "tip 0 uq 0 0 0\n", "recovery.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 3 1\n1 2 1\n", TVDS_ERR_PARSE,
     "recovery.txt:1: substructure 'case': direction 'uq' is not one of"},
    {"recovery.txt", "tip 0 uy 0 0 0\n", "recovery.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 3 1\n1 2 1\n", TVDS_OK, ""},
};

#define NSUB ((int)(sizeof sub_cases / sizeof sub_cases[0]))

START_TEST(test_validation_errors)
{
    const sub_case *c = &sub_cases[_i];
    char dir[64], sub[128];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    snprintf(sub, sizeof sub, "%s/case", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    tvds_test_write_file(sub, "M.mtx", SHOE_M);
    tvds_test_write_file(sub, "K.mtx", SHOE_K);
    tvds_test_write_file(sub, "dofs.txt", SHOE_DOFS);
    tvds_test_write_file(sub, c->file, c->text);
    if (c->file2) tvds_test_write_file(sub, c->file2, c->text2);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    int rc = tvds_substructure_read(sub, NULL, &s, &ctx);
    if (rc != c->status) ck_abort_msg("status %d, expected %d: %s", rc, c->status, ctx.msg);
    if (c->status == TVDS_OK) {
        ck_assert_ptr_nonnull(s);
        tvds_substructure_free(&s);
    } else {
        ck_assert_ptr_null(s);
        char want[512];
        snprintf(want, sizeof want, "%s/%s", sub, c->msg);
        if (strncmp(ctx.msg, want, strlen(want)) != 0)
            ck_abort_msg("message\n  '%s'\ndoes not start with\n  '%s'", ctx.msg, want);
    }
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* Inputs the full-model reader of `tvds reduce` once accepted and a substructure's reader
 * refused: both now read dofs.txt and sets.txt with one reader and refuse them alike, with
 * the same message but for the substructure's name. */
typedef struct shared_case {
    const char *file;
    const char *text;
    size_t len; /* bytes of text (it may hold a NUL) */
} shared_case;

#define SHARED(file, lit)                                                                          \
    {                                                                                              \
        file, lit, sizeof lit - 1                                                                  \
    }
static const shared_case shared_cases[] = {
    SHARED("dofs.txt", "1 ux 0x1p-2 0 0\n1 uy 0x1p-2 0 0\n1 uz 0x1p-2 0 0\n"), /* hexadecimal */
    SHARED("dofs.txt", "1 x 0 0 0\n1 y 0 0 0\n1 z 0 0 0\n"),          /* short directions */
    SHARED("dofs.txt", "1 ux 0 0 0\n1 uy 0 0 0\0junk\n1 uz 0 0 0\n"), /* a NUL byte */
    SHARED("dofs.txt", "2305843009213693952 ux 0 0 0\n2305843009213693952 uy 0 0 0\n"
                       "2305843009213693952 uz 0 0 0\n"), /* node id beyond LONG_MAX / 8 */
    SHARED("sets.txt", "set top 1\n  \\\n"),              /* a lone continuation */
    SHARED("sets.txt", "set top 1 \\\n"),                 /* file ends after '\' */
};
#define NSHARED ((int)(sizeof shared_cases / sizeof shared_cases[0]))

START_TEST(test_one_reader_per_format)
{
    const shared_case *c = &shared_cases[_i];
    char dir[64], sub[128], dofs[160], sets[160];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    snprintf(sub, sizeof sub, "%s/case", dir);
    ck_assert_int_eq(mkdir(sub, 0777), 0);
    tvds_test_write_file(sub, "M.mtx", SHOE_M);
    tvds_test_write_file(sub, "K.mtx", SHOE_K);
    tvds_test_write_file(sub, "dofs.txt", SHOE_DOFS);
    tvds_test_write_file(sub, "sets.txt", "set top 1\n");
    char p[200];
    snprintf(p, sizeof p, "%s/%s", sub, c->file);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(c->text, 1, c->len, f), c->len);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(dofs, sizeof dofs, "%s/dofs.txt", sub);
    snprintf(sets, sizeof sets, "%s/sets.txt", sub);

    tvds_ctx cs, cf;
    tvds_ctx_init(&cs);
    tvds_ctx_init(&cf);
    tvds_substructure *s = NULL;
    int rs = tvds_substructure_read(sub, NULL, &s, &cs);
    int n = 0, ns = 0;
    tvds_dof *d = NULL;
    tvds_nodeset *ss = NULL;
    int rf = tvds_fe_dofs_read(dofs, sets, &n, &d, &ns, &ss, &cf);
    tvds_substructure_free(&s);
    tvds_free(d);
    tvds_fe_sets_free(ns, &ss);
    ck_assert_msg(rs != TVDS_OK && rs == rf,
                  "substructure reader %d, full-model reader %d:\n  %s\n  %s", rs, rf, cs.msg,
                  cf.msg);
    /* The substructure's message names it; otherwise the two are the same. */
    char want[sizeof cs.msg];
    const char *own = strstr(cs.msg, "substructure 'case': ");
    if (own)
        snprintf(want, sizeof want, "%.*s%s", (int)(own - cs.msg), cs.msg,
                 own + strlen("substructure 'case': "));
    else
        snprintf(want, sizeof want, "%s", cs.msg);
    ck_assert_str_eq(want, cf.msg);
    (void)tvds_test_rmtree(dir);
}
END_TEST

START_TEST(test_missing_files)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    ck_assert_int_eq(tvds_substructure_read(DATA "no_such_dir", NULL, &s, &ctx), TVDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "no_such_dir: not a substructure directory"));
    char dir[64];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_sub_");
    tvds_test_write_file(dir, "M.mtx", SHOE_M);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_read(dir, "x", &s, &ctx), TVDS_ERR_IO);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "/K.mtx: cannot open"));
    ck_assert_ptr_nonnull(strstr(ctx.msg, "(substructure 'x')"));
    ck_assert_ptr_null(s);
    (void)tvds_test_rmtree(dir);
}
END_TEST

/* Validation of a substructure built in memory (no directory): messages name the parts. */
START_TEST(test_validate_in_memory)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_validate(NULL, &ctx), TVDS_ERR_INVALID);
    tvds_substructure *s = random_sub(8);
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_validate(s, &ctx), TVDS_OK);
    /* Unknown node in a set. */
    s->sets[0].nodes[0] = 999;
    ck_assert_int_eq(tvds_substructure_validate(s, &ctx), TVDS_ERR_INVALID);
    ck_assert_str_eq(ctx.msg, "sets.txt: substructure 'rand': set 'surface' names node 999, "
                              "which has no DoF in the DoF table");
    s->sets[0].nodes[0] = 100;
    /* M made indefinite by flipping the sign of its last diagonal entry. */
    double keep = s->M[63];
    s->M[63] = -keep;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_validate(s, &ctx), TVDS_ERR_NOT_POSDEF);
    ck_assert_str_eq(ctx.msg, "M.mtx: substructure 'rand': M is not positive definite: its "
                              "Cholesky factorization (LL', natural order) breaks down at DoF 8 "
                              "(mode 2)");
    s->M[63] = keep;
    /* Non-finite entry. */
    s->K[5] = NAN;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_substructure_validate(s, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "K has a non-finite entry at DoF 6"));
    tvds_substructure_free(&s);
}
END_TEST

/* Every allocation of the reader may fail: NOMEM, nothing returned, nothing leaked (ASan). */
START_TEST(test_alloc_failures)
{
    int ok = 0;
    for (long k = 0; k < 400 && !ok; k++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_substructure *s = NULL;
        tvds_alloc_fail_after(k);
        int rc = tvds_substructure_read(DATA "full", NULL, &s, &ctx);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) {
            ok = 1;
            tvds_substructure_free(&s);
        } else {
            ck_assert_int_eq(rc, TVDS_ERR_NOMEM);
            ck_assert_ptr_null(s);
        }
    }
    ck_assert(ok);
}
END_TEST

Suite *substructure_suite(void)
{
    Suite *s = suite_create("substructure");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, test_read_shoe);
    tcase_add_test(tc, test_read_full);
    tcase_add_test(tc, test_missing_files);
    tcase_add_test(tc, test_alloc_failures);
    suite_add_tcase(s, tc);
    tc = tcase_create("roundtrip");
    tcase_add_test(tc, test_roundtrip_full);
    tcase_add_test(tc, test_faceset_roundtrip);
    tcase_add_test(tc, test_roundtrip_random_bits);
    tcase_add_test(tc, test_commit_stopped_between_files);
    suite_add_tcase(s, tc);
    tc = tcase_create("validate");
    tcase_add_test(tc, test_m_indefinite_on_disk);
    tcase_add_loop_test(tc, test_validation_errors, 0, NSUB);
    tcase_add_test(tc, test_validate_in_memory);
    tcase_add_loop_test(tc, test_one_reader_per_format, 0, NSHARED);
    suite_add_tcase(s, tc);
    return s;
}
