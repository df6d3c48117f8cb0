/* fuzz_nastran.c — libFuzzer target for the Nastran DMIG importer (tvds import nastran). The
 * input is split at a line "@@@" into job.pch and job.bdf (missing part: an empty file). Checks:
 * no crash, no leak, the error contract; DoFs in ascending node and component order; an
 * imported model that passes the checks writes a full-model directory that reads back with the
 * same DoFs and matrices' sizes. */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_fe.h"

static char jobdir[256], outdir[256], pch[300], bdf[300];
static cholmod_common cc;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(jobdir, sizeof jobdir, "%s/job", fuzz_scratch());
    snprintf(outdir, sizeof outdir, "%s/out", fuzz_scratch());
    snprintf(pch, sizeof pch, "%s/job.pch", jobdir);
    snprintf(bdf, sizeof bdf, "%s/job.bdf", jobdir);
    if (mkdir(jobdir, 0700) != 0) abort();
    if (tvds_cholmod_start(&cc) != TVDS_OK) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *b[2];
    size_t n[2];
    int parts = fuzz_split(data, size, b, n, 2);
    fuzz_write(jobdir, "job.pch", b[0], n[0]);
    fuzz_write(jobdir, "job.bdf", parts > 1 ? b[1] : (const uint8_t *)"", parts > 1 ? n[1] : 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    tvds_fe_model *m = NULL;
    int rc = tvds_import_nastran(pch, NULL, NULL, bdf, &m, NULL, &cc, &ctx);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (m != NULL), "rc %d but m %p", rc, (void *)m);
    if (rc != TVDS_OK) {
        tvds_cholmod_ctx(NULL);
        return 0;
    }
    FUZZ_ASSERT(m->K->stype == 1 && m->M->stype == 1, "matrices not stored as upper triangles");
    tvds_fe_paths names_ = {pch, pch, pch, NULL, 1};
    fuzz_fe_roundtrip(m, &names_, outdir, 1, 0, &cc);
    tvds_fe_model_free(&m, &cc);
    return 0;
}
