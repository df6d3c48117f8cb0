/* compare.c — contact methods side by side: the sequential runs into one output directory,
 * then the analysis (compare_analyse.c) and the report (compare_report.c)
 * (include/tvds/tvds_compare.h, docs/squeal.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/compare_impl.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_output.h"

/* ---- Driver --------------------------------------------------------------------------------- */

/* Remove what an earlier compare wrote into outdir: the report, metrics and figures, and in
 * each method's folder (all methods, not only this run's: a re-run with fewer methods must not
 * leave the others behind) the run's files; the folder goes when nothing else is in it. Only
 * names tvds writes are touched: a user's own files, and folders holding them, stay. */
static int clear_previous(tvds_outdir *od, const char *outdir, tvds_ctx *ctx)
{
    static const char *const top[] = {"report.md",       "report.md.tmp",    "metrics.csv",
                                      "metrics.csv.tmp", "spectrograms.png", "spectrograms.gp",
                                      "contact.png",     "contact.gp"};
    static const char *const per[] = {"history.csv",  "contacts.csv",     "energy.csv",
                                      "summary.json", "summary.json.tmp", "spectrogram.csv"};
    int rc = tvds_outdir_clear(od, top, (int)(sizeof top / sizeof *top), ctx);
    for (int k = 0; !rc && k < TVDS_METHOD_COUNT; k++) {
        const char *mn = tvds_method_name(k);
        char fig[2][96];
        const char *pf[2] = {fig[0], fig[1]};
        snprintf(fig[0], sizeof fig[0], "accel_%s.png", mn);
        snprintf(fig[1], sizeof fig[1], "accel_%s.gp", mn);
        rc = tvds_outdir_clear(od, pf, 2, ctx);
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", outdir, mn);
        if (!rc) rc = tvds_outdir_remove(dir, per, (int)(sizeof per / sizeof *per), ctx);
    }
    return rc;
}

static int compare_run(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                       tvds_compare_result *res, tvds_ctx *ctx);

static int cmp_dbl(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_dbl);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* The methods' CPU cost interleaved in rounds (tvds_bench_interleaved) on the runs' model:
 * per method its median us per step, and its per-round ratio to FiLm (median, min, max). */
static int interleaved_cpu(const tvds_model *m, const int *meth, int n, const tvds_compare_opts *o,
                           tvds_compare_result *res, tvds_ctx *ctx)
{
    int nr = o->cpu_rounds > 64 ? 64 : o->cpu_rounds;
    long ns = o->cpu_steps > 0 ? o->cpu_steps : 16384;
    double us[64 * TVDS_METHOD_COUNT], col[64];
    int rc = tvds_bench_interleaved(m, meth, n, ns, nr, us, ctx);
    if (rc) return rc;
    int ref = -1;
    for (int j = 0; j < n; j++)
        if (meth[j] == TVDS_METHOD_FILM) ref = j;
    for (int j = 0; j < n; j++) {
        tvds_compare_entry *e = &res->e[j];
        for (int k = 0; k < nr; k++)
            col[k] = us[k * n + j];
        e->cpu_us_med = median(col, nr);
        e->cpu_ratio_med = e->cpu_ratio_min = e->cpu_ratio_max = NAN;
        e->cpu_ratio_q1 = e->cpu_ratio_q3 = NAN;
        if (ref < 0) continue;
        for (int k = 0; k < nr; k++)
            col[k] = us[k * n + j] / us[k * n + ref];
        e->cpu_ratio_med = median(col, nr); /* sorts col */
        e->cpu_ratio_min = col[0];
        e->cpu_ratio_max = col[nr - 1];
        e->cpu_ratio_q1 = col[(nr - 1) / 4];
        e->cpu_ratio_q3 = col[nr - 1 - (nr - 1) / 4];
    }
    res->cpu_rounds = nr;
    res->cpu_steps = ns;
    res->cpu_t_span = (double)nr * (double)ns * res->e[0].run.dt;
    return TVDS_OK;
}

int tvds_compare_clear(const char *outdir, tvds_ctx *ctx)
{
    if (!outdir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: NULL argument");
    struct stat st;
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)) return TVDS_OK;
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, ctx);
    if (!rc) rc = clear_previous(od, outdir, ctx);
    tvds_outdir_close(&od);
    if (!rc) rc = tvds_outdir_remove(outdir, NULL, 0, ctx);
    return rc;
}

int tvds_compare_run(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                     tvds_compare_result *res, tvds_ctx *ctx)
{
    if (!m || !outdir || !res) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: NULL argument");
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, ctx);
    if (!rc) rc = clear_previous(od, outdir, ctx);
    if (!rc) rc = compare_run(m, outdir, o, res, ctx);
    tvds_outdir_close(&od);
    return rc;
}

static int compare_run(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                       tvds_compare_result *res, tvds_ctx *ctx)
{
    tvds_compare_opts def = tvds_compare_opts_default();
    if (!o) o = &def;
    if (!m || !outdir || !res) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: NULL argument");
    memset(res, 0, sizeof *res);
    int meth[TVDS_METHOD_COUNT];
    int n = compare_opts_methods(o, meth);
    for (int i = 0; i < n; i++) {
        if (!tvds_method_name(meth[i]))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: unknown method %d", meth[i]);
        for (int j = 0; j < i; j++)
            if (meth[j] == meth[i])
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: method %s given twice",
                                  tvds_method_name(meth[i]));
    }
    int rc = compare_setup_names(m, o, res, ctx);
    if (rc) return rc;
    if ((rc = tvds_mkdir_p(outdir, ctx))) return rc;
    res->n = n;
    for (int i = 0; i < n; i++) {
        if (o->stop && *o->stop) {
            compare_interrupted_report(m, outdir, meth, n, res, i, 0);
            return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "compare: interrupted");
        }
        if (o->stage) o->stage(o->user, meth[i], i, n);
        /* A shallow copy differing only in the method: the model itself stays untouched. */
        tvds_model mm = *m;
        mm.opt.method = meth[i];
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", outdir, tvds_method_name(meth[i]));
        tvds_run_opts ro = tvds_run_opts_default();
        ro.progress = o->progress;
        ro.user = o->user;
        ro.stop = o->stop;
        ro.result = &res->e[i].run;
        ro.align_out = o->align_out;
        tvds_ctx rctx;
        tvds_ctx_init(&rctx);
        res->e[i].method = meth[i];
        res->e[i].status = tvds_run(&mm, dir, &ro, &rctx);
        if (res->e[i].status == TVDS_ERR_INTERRUPTED) {
            compare_interrupted_report(m, outdir, meth, n, res, i, 1);
            return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "compare: interrupted during %s",
                              tvds_method_name(meth[i]));
        }
        if (res->e[i].status == TVDS_ERR_NOMEM || res->e[i].status == TVDS_ERR_IO ||
            res->e[i].status == TVDS_ERR_WRITE || res->e[i].status == TVDS_ERR_BUSY ||
            res->e[i].status == TVDS_ERR_INVALID || res->e[i].status == TVDS_ERR_UNSTABLE_DT)
            return tvds_error_at(ctx, rctx.status, rctx.src_file, rctx.src_line, "%s: %s",
                                 tvds_method_name(meth[i]), rctx.msg);
    }
    if (o->cpu_rounds > 0 && !(o->stop && *o->stop) &&
        (rc = interleaved_cpu(m, meth, n, o, res, ctx)))
        return rc;
    if ((rc = tvds_compare_analyse(m, outdir, o, res, ctx))) return rc;
    return tvds_compare_report(m, outdir, o, res, ctx);
}
