/* jobs.c — the reduction and the CalculiX import of `tvds reduce` / `tvds import` as single
 * library calls over directories (tvds_access.h), for programs and bindings that do not hold a
 * cholmod_common of their own. */
#include <stdio.h>
#include <string.h>

#include "tvds/tvds_access.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"

/* path = dir/file into buf; TVDS_ERR_INVALID when it does not fit. */
static int join(char *buf, size_t size, const char *dir, const char *file, tvds_ctx *ctx)
{
    int k = snprintf(buf, size, "%s/%s", dir, file);
    if (k < 0 || (size_t)k >= size)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: path too long", dir);
    return TVDS_OK;
}

static int file_exists(const char *p)
{
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* Write a substructure (s) or a full model (m) into outdir as the commands do: the directory
 * locked while it is written (TVDS_ERR_BUSY when another process holds it), the files staged
 * and committed by a manifest, so that readers see the old files or the new ones, never a mix
 * (docs/reliability.md). */
static int commit_write(const tvds_substructure *s, const tvds_fe_model *m, const char *outdir,
                        tvds_ctx *ctx)
{
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, ctx);
    if (rc) return rc;
    char stage[4200];
    const char *const *owned;
    int nowned = s ? tvds_substructure_files(&owned) : tvds_fe_model_files(&owned);
    rc = tvds_commit_begin(outdir, stage, sizeof stage, ctx);
    if (!rc) rc = s ? tvds_substructure_write(s, stage, ctx) : tvds_fe_model_write(m, stage, ctx);
    if (!rc) rc = tvds_commit_end(outdir, owned, nowned, ctx);
    if (rc) tvds_commit_abort(outdir);
    tvds_outdir_close(&od);
    return rc;
}

int tvds_reduce_dir(const char *model_dir, const char *boundary, const char *recover,
                    const char *faces, int nmodes, double f_cut_hz, int check_mass,
                    const char *outdir, tvds_ctx *ctx)
{
    if (!model_dir || !boundary || !outdir)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: the model directory, the boundary and the output directory "
                          "are required");
    if (nmodes < 0 || (nmodes == 0 && !(f_cut_hz > 0)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "reduce: need nmodes >= 1, or nmodes = 0 with f_cut_hz > 0");
    char mpath[4096], kpath[4096], dpath[4096], spath[4096];
    int rc = join(mpath, sizeof mpath, model_dir, "M.mtx", ctx);
    if (!rc) rc = join(kpath, sizeof kpath, model_dir, "K.mtx", ctx);
    if (!rc) rc = join(dpath, sizeof dpath, model_dir, "dofs.txt", ctx);
    if (!rc) rc = join(spath, sizeof spath, model_dir, "sets.txt", ctx);
    if (rc) return rc;
    int have_sets = file_exists(spath);
    if (faces && !have_sets)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: faces need a sets file (%s)", spath);

    cholmod_common cc;
    if ((rc = tvds_cholmod_start(&cc)) != TVDS_OK)
        return TVDS_ERROR(ctx, rc, "reduce: cannot start CHOLMOD");
    tvds_cholmod_ctx(ctx);
    tvds_fe_model *fe = NULL;
    tvds_substructure *s = NULL;
    tvds_reduce_stats st;
    memset(&st, 0, sizeof st);
    tvds_reduce_opts opt = tvds_reduce_opts_default();
    opt.nmodes = nmodes;
    opt.f_cut_hz = f_cut_hz;
    opt.m_name = mpath;
    opt.k_name = kpath;
    tvds_fe_paths paths = {mpath, kpath, dpath, have_sets ? spath : NULL, check_mass != 0};
    tvds_reduce_spec spec = {boundary, recover, faces, spath};
    rc = tvds_fe_model_read(&paths, &fe, &cc, ctx);
    if (!rc) rc = tvds_reduce_fe(fe, &spec, &opt, &s, &st, &cc, ctx);
    if (!rc) { /* the substructure is named after its directory */
        const char *base = strrchr(outdir, '/');
        base = base && base[1] ? base + 1 : outdir;
        char *nm = tvds_strdup(base);
        if (!nm) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            tvds_free(s->name);
            s->name = nm;
        }
    }
    if (!rc) rc = tvds_substructure_validate(s, ctx);
    if (!rc) rc = commit_write(s, NULL, outdir, ctx);
    tvds_substructure_free(&s);
    tvds_fe_model_free(&fe, &cc);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    return rc;
}

int tvds_import_calculix_dir(const char *inp, const char *outdir, int check_mass, tvds_ctx *ctx)
{
    if (!inp || !outdir)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "import: JOB.inp and the output directory are "
                          "required");
    size_t l = strlen(inp);
    if (l < 5 || strcmp(inp + l - 4, ".inp") != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "import: %s: expected a JOB.inp file", inp);
    char mas[4096], sti[4096], dof[4096];
    if (l + 1 > sizeof mas) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: path too long", inp);
    snprintf(mas, sizeof mas, "%.*s.mas", (int)(l - 4), inp);
    snprintf(sti, sizeof sti, "%.*s.sti", (int)(l - 4), inp);
    snprintf(dof, sizeof dof, "%.*s.dof", (int)(l - 4), inp);

    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return TVDS_ERROR(ctx, rc, "import: cannot start CHOLMOD");
    tvds_cholmod_ctx(ctx);
    tvds_fe_model *m = NULL;
    tvds_ccx_info info;
    rc = tvds_import_calculix(inp, &m, &info, &cc, ctx);
    /* Checked in memory, with the job's own file names, before anything is written. */
    tvds_fe_paths names = {mas, sti, dof, NULL, check_mass != 0};
    if (!rc) rc = tvds_fe_model_check(m, &names, &cc, ctx);
    if (!rc) rc = commit_write(NULL, m, outdir, ctx);
    tvds_fe_model_free(&m, &cc);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    return rc;
}
