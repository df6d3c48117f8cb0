/* fuzz_mm.c — libFuzzer target for the strict Matrix Market reader (tvds_mm_read,
 * tvds_mm_read_dense): no crash, no leak, the error contract, and for accepted files the
 * sparse and dense readings agree and a written copy reads back bit for bit. */
#include <string.h>

#include "fuzz_util.h"
#include "tvds/tvds_io.h"

/* Dense comparisons only for matrices this small (a valid file may declare a huge empty one). */
#define FUZZ_MM_DENSE_MAX 4096
/* Declared dimensions above this are skipped (fuzz_mm_too_big). */
#define FUZZ_MM_DIM_MAX 100000

static cholmod_common cc;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_scratch();
    if (tvds_cholmod_start(&cc) != TVDS_OK) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fuzz_mm_too_big(data, size, FUZZ_MM_DIM_MAX)) return 0;
    const char *p = fuzz_write(NULL, "f.mtx", data, size);
    char path[256];
    snprintf(path, sizeof path, "%s", p);

    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    cholmod_sparse *A = NULL;
    int rc = tvds_mm_read(path, &A, &cc, &ctx);
    tvds_cholmod_ctx(NULL);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (A != NULL), "rc %d but A %p", rc, (void *)A);
    if (rc != TVDS_OK) {
        FUZZ_ASSERT(rc == TVDS_ERR_PARSE || rc == TVDS_ERR_NOMEM, "status %d for bad text: %s", rc,
                    ctx.msg);
        /* The message names the file. */
        FUZZ_ASSERT(strncmp(ctx.msg, path, strlen(path)) == 0, "message without path: %s", ctx.msg);
        return 0;
    }
    FUZZ_ASSERT(cholmod_check_sparse(A, &cc), "CHOLMOD rejects the matrix read");
    FUZZ_ASSERT(A->stype == 0 || A->stype == 1, "stype %d", A->stype);

    size_t nr = A->nrow, nc = A->ncol;
    if (nr * nc <= FUZZ_MM_DENSE_MAX || nr == 0 || nc == 0) {
        int r = 0, c = 0, sym = -1;
        double *D = NULL;
        tvds_ctx_init(&ctx);
        rc = tvds_mm_read_dense(path, &r, &c, &D, &sym, &ctx);
        FUZZ_ASSERT(rc == TVDS_OK, "sparse read accepted, dense read refused: %s", ctx.msg);
        FUZZ_ASSERT((size_t)r == nr && (size_t)c == nc, "sizes differ");
        FUZZ_ASSERT(sym == (A->stype != 0), "symmetry differs");
        /* Every sparse entry is in the dense matrix (both triangles when symmetric). */
        const int *Ap = A->p, *Ai = A->i;
        const double *Ax = A->x;
        size_t nzd = 0;
        for (size_t k = 0; k < nr * nc; k++)
            nzd += D[k] != 0.0;
        size_t nzs = 0;
        for (size_t j = 0; j < nc; j++)
            for (int q = Ap[j]; q < Ap[j + 1]; q++) {
                size_t i = (size_t)Ai[q];
                FUZZ_ASSERT(!(A->stype && i > j), "entry below the diagonal in an upper matrix");
                FUZZ_ASSERT(memcmp(&D[i + j * nr], &Ax[q], sizeof(double)) == 0,
                            "dense and sparse differ at (%zu,%zu)", i + 1, j + 1);
                if (A->stype)
                    FUZZ_ASSERT(memcmp(&D[j + i * nr], &Ax[q], sizeof(double)) == 0,
                                "dense not symmetric at (%zu,%zu)", i + 1, j + 1);
                nzs += (Ax[q] != 0.0) * ((A->stype && i != j) ? 2 : 1);
            }
        FUZZ_ASSERT(nzs == nzd, "%zu nonzeros in the dense form, %zu in the sparse", nzd, nzs);

        /* Round trip: the dense writer's file reads back bit for bit. */
        if (r > 0 && c > 0) {
            char out[256];
            snprintf(out, sizeof out, "%s/out.mtx", fuzz_scratch());
            tvds_ctx_init(&ctx);
            rc = tvds_mm_write_dense(out, r, c, D, sym && r == c, NULL, &ctx);
            FUZZ_ASSERT(rc == TVDS_OK, "cannot write back: %s", ctx.msg);
            int r2 = 0, c2 = 0, sym2 = -1;
            double *D2 = NULL;
            rc = tvds_mm_read_dense(out, &r2, &c2, &D2, &sym2, &ctx);
            FUZZ_ASSERT(rc == TVDS_OK, "written copy refused: %s", ctx.msg);
            FUZZ_ASSERT(r2 == r && c2 == c, "written copy has another size");
            for (size_t k = 0; k < nr * nc; k++)
                FUZZ_ASSERT(memcmp(&D[k], &D2[k], sizeof(double)) == 0,
                            "written copy differs at %zu: %.17g vs %.17g", k, D[k], D2[k]);
            tvds_free(D2);
        }
        tvds_free(D);
    }
    cholmod_free_sparse(&A, &cc);
    return 0;
}
