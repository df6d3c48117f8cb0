/* fuzz_fe.h — what every FE importer's fuzz target checks of a model it imported: DoFs in
 * ascending node and direction order (where the importer promises it), the model checks under
 * the error contract, and a model that passes them writes a full-model directory that reads
 * back with the same DoFs (node, direction, coordinates), node sets and face sets. */
#ifndef TVDS_FUZZ_FE_H
#define TVDS_FUZZ_FE_H

#include "fuzz_util.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

/* m: the imported model; names: the job's files as the checks name them; outdir: where to
 * write; sorted: check the DoF order; sets: write and read back sets.txt. */
static void fuzz_fe_roundtrip(const tvds_fe_model *m, const tvds_fe_paths *names,
                              const char *outdir, int sorted, int sets, cholmod_common *cc)
{
    if (sorted)
        for (int k = 1; k < m->n; k++)
            FUZZ_ASSERT(
                m->dofs[k - 1].node < m->dofs[k].node ||
                    (m->dofs[k - 1].node == m->dofs[k].node && m->dofs[k - 1].dir < m->dofs[k].dir),
                "DoFs %d and %d out of order", k, k + 1);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_cholmod_ctx(&ctx);
    int rc = tvds_fe_model_check(m, names, cc, &ctx);
    fuzz_check_status(rc, &ctx);
    if (rc == TVDS_OK) {
        rc = tvds_fe_model_write(m, outdir, &ctx);
        FUZZ_ASSERT(rc == TVDS_OK, "cannot write: %s", ctx.msg);
        char mp[320], kp[320], dp[320], sp[320];
        snprintf(mp, sizeof mp, "%s/M.mtx", outdir);
        snprintf(kp, sizeof kp, "%s/K.mtx", outdir);
        snprintf(dp, sizeof dp, "%s/dofs.txt", outdir);
        snprintf(sp, sizeof sp, "%s/sets.txt", outdir);
        tvds_fe_paths p = {mp, kp, dp, sets ? sp : NULL, 1};
        tvds_fe_model *back = NULL;
        rc = tvds_fe_model_read(&p, &back, cc, &ctx);
        FUZZ_ASSERT(rc == TVDS_OK, "written model refused: %s", ctx.msg);
        FUZZ_ASSERT(back->n == m->n, "n %d/%d", back->n, m->n);
        if (sets) {
            FUZZ_ASSERT(back->nsets == m->nsets && back->nfsets == m->nfsets,
                        "sets %d/%d face sets %d/%d", back->nsets, m->nsets, back->nfsets,
                        m->nfsets);
            for (int q = 0; q < m->nfsets; q++)
                FUZZ_ASSERT(
                    back->fsets[q].nface == m->fsets[q].nface &&
                        memcmp(back->fsets[q].nodes, m->fsets[q].nodes,
                               (size_t)m->fsets[q].nface * TVDS_FACE_MAX_NODES * sizeof(long)) == 0,
                    "face set %d differs after write and read", q);
        }
        for (int k = 0; k < m->n; k++)
            FUZZ_ASSERT(back->dofs[k].node == m->dofs[k].node &&
                            back->dofs[k].dir == m->dofs[k].dir &&
                            memcmp(back->dofs[k].xyz, m->dofs[k].xyz, sizeof m->dofs[k].xyz) == 0,
                        "DoF %d differs after write and read", k + 1);
        tvds_fe_model_free(&back, cc);
    }
    tvds_cholmod_ctx(NULL);
}

#endif
