/* fuzz_dofs.c — libFuzzer target for the substructure directory reader's text tables.
 * The input is split at lines "@@@" into dofs.txt, sets.txt, recovery.txt and recovery.mtx
 * (missing parts: file absent), written next to a fixed 5-DoF M.mtx and K.mtx (copies of
 * tests/data/substructure/full). Checks: no crash, no leak, the error contract, and an
 * accepted directory writes and reads back to the same substructure. */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "tvds/tvds_io.h"

#ifndef FUZZ_DATA
#define FUZZ_DATA "tests/data/substructure/full"
#endif

static char subdir[256], outdir[256];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(subdir, sizeof subdir, "%s/sub", fuzz_scratch());
    snprintf(outdir, sizeof outdir, "%s/out", fuzz_scratch());
    if (mkdir(subdir, 0700) != 0) abort();
    fuzz_copy(FUZZ_DATA "/M.mtx", subdir, "M.mtx");
    fuzz_copy(FUZZ_DATA "/K.mtx", subdir, "K.mtx");
    return 0;
}

static void put(const char *name, int have, const uint8_t *b, size_t n)
{
    if (have) {
        fuzz_write(subdir, name, b, n);
    } else {
        char path[300];
        snprintf(path, sizeof path, "%s/%s", subdir, name);
        unlink(path);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *b[4];
    size_t n[4];
    int parts = fuzz_split(data, size, b, n, 4);
    /* recovery.mtx is read dense: a huge declared size is by design an allocation of that size */
    if (parts > 3 && fuzz_mm_too_big(b[3], n[3], 100000)) return 0;
    put("dofs.txt", 1, b[0], n[0]);
    put("sets.txt", parts > 1, b[1], parts > 1 ? n[1] : 0);
    put("recovery.txt", parts > 2, b[2], parts > 2 ? n[2] : 0);
    put("recovery.mtx", parts > 3, b[3], parts > 3 ? n[3] : 0);

    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    int rc = tvds_substructure_read(subdir, "fz", &s, &ctx);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (s != NULL), "rc %d but s %p", rc, (void *)s);
    if (rc != TVDS_OK) return 0;
    FUZZ_ASSERT(s->n == 5, "n = %d", s->n);
    FUZZ_ASSERT(tvds_substructure_validate(s, &ctx) == TVDS_OK, "read but invalid: %s", ctx.msg);

    rc = tvds_substructure_write(s, outdir, &ctx);
    FUZZ_ASSERT(rc == TVDS_OK, "cannot write back: %s", ctx.msg);
    tvds_substructure *t = NULL;
    rc = tvds_substructure_read(outdir, "fz", &t, &ctx);
    FUZZ_ASSERT(rc == TVDS_OK, "written copy refused: %s", ctx.msg);
    FUZZ_ASSERT(t->n == s->n && t->nsets == s->nsets && t->nrec == s->nrec &&
                    t->nfsets == s->nfsets,
                "written copy differs: n %d/%d sets %d/%d rec %d/%d face sets %d/%d", t->n, s->n,
                t->nsets, s->nsets, t->nrec, s->nrec, t->nfsets, s->nfsets);
    for (int k = 0; k < s->nfsets; k++) {
        const tvds_faceset *a = &s->fsets[k], *c = &t->fsets[k];
        FUZZ_ASSERT(strcmp(a->name, c->name) == 0 && a->nface == c->nface &&
                        memcmp(a->nn, c->nn, (size_t)a->nface * sizeof(int)) == 0,
                    "face set %d differs after write and read", k + 1);
    }
    for (int k = 0; k < s->n; k++) {
        const tvds_dof *a = &s->dofs[k], *c = &t->dofs[k];
        FUZZ_ASSERT(a->kind == c->kind && a->node == c->node && a->dir == c->dir &&
                        memcmp(a->xyz, c->xyz, sizeof a->xyz) == 0 &&
                        memcmp(&a->freq_hz, &c->freq_hz, sizeof a->freq_hz) == 0,
                    "DoF %d differs after write and read", k + 1);
    }
    for (int k = 0; k < s->nsets; k++) {
        FUZZ_ASSERT(strcmp(s->sets[k].name, t->sets[k].name) == 0 && s->sets[k].n == t->sets[k].n &&
                        memcmp(s->sets[k].nodes, t->sets[k].nodes,
                               (size_t)s->sets[k].n * sizeof(long)) == 0,
                    "set %d differs after write and read", k + 1);
    }
    for (int k = 0; k < s->nrec; k++) {
        const tvds_recovery *a = &s->rec[k], *c = &t->rec[k];
        FUZZ_ASSERT(strcmp(a->name, c->name) == 0 && a->node == c->node && a->dir == c->dir &&
                        memcmp(a->xyz, c->xyz, sizeof a->xyz) == 0 &&
                        memcmp(a->row, c->row, (size_t)s->n * sizeof(double)) == 0,
                    "recovery row %d differs after write and read", k + 1);
    }
    tvds_substructure_free(&t);
    tvds_substructure_free(&s);
    return 0;
}
