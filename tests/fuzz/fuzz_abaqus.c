/* fuzz_abaqus.c — libFuzzer target for the Abaqus importer (tvds import abaqus). The input is
 * split at lines "@@@" into job.inp, job_STIF2.mtx and job_MASS2.mtx (missing parts: empty
 * files). Checks: no crash, no leak, the error contract; an imported model that passes the
 * checks writes a full-model directory that reads back with the same DoFs and sets. */
#include <string.h>
#include <sys/stat.h>

#include "fuzz_fe.h"

static char jobdir[256], outdir[256], inp[300], kp[300], mp[300];
static cholmod_common cc;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(jobdir, sizeof jobdir, "%s/job", fuzz_scratch());
    snprintf(outdir, sizeof outdir, "%s/out", fuzz_scratch());
    snprintf(inp, sizeof inp, "%s/job.inp", jobdir);
    snprintf(kp, sizeof kp, "%s/job_STIF2.mtx", jobdir);
    snprintf(mp, sizeof mp, "%s/job_MASS2.mtx", jobdir);
    if (mkdir(jobdir, 0700) != 0) abort();
    if (tvds_cholmod_start(&cc) != TVDS_OK) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[3] = {"job.inp", "job_STIF2.mtx", "job_MASS2.mtx"};
    const uint8_t *b[3];
    size_t n[3];
    int parts = fuzz_split(data, size, b, n, 3);
    for (int k = 0; k < 3; k++)
        fuzz_write(jobdir, names[k], k < parts ? b[k] : (const uint8_t *)"", k < parts ? n[k] : 0);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    tvds_fe_model *m = NULL;
    int rc = tvds_import_abaqus(kp, mp, inp, &m, NULL, &cc, &ctx);
    fuzz_check_status(rc, &ctx);
    FUZZ_ASSERT((rc == TVDS_OK) == (m != NULL), "rc %d but m %p", rc, (void *)m);
    if (rc != TVDS_OK) {
        tvds_cholmod_ctx(NULL);
        return 0;
    }
    tvds_fe_paths names_ = {mp, kp, inp, NULL, 1};
    fuzz_fe_roundtrip(m, &names_, outdir, 1, 1, &cc);
    tvds_fe_model_free(&m, &cc);
    return 0;
}
