/* cea_io.c — the CEA's output files (CSV, plots). */
#include "analysis/cea_impl.h"

/* ---- Outputs ----------------------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = tvds_malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static FILE *open_csv(const char *dir, const char *stem, const char *tag, char **path, int *rc,
                      tvds_ctx *ctx)
{
    char leaf[256];
    snprintf(leaf, sizeof leaf, "%s%s.csv", stem, tag ? tag : "");
    *path = join(dir, leaf);
    if (!*path) {
        *rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
        return NULL;
    }
    /* Written to path.tmp and renamed over path when complete: a reader, or a process killed
     * at any moment, sees the old file or the new one, never half of one. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", *path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        *rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", *path, strerror(errno));
        tvds_free(*path);
        *path = NULL;
    }
    return f;
}

static int close_csv(FILE *f, char *path, tvds_ctx *ctx)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = TVDS_OK, bad = fflush(f) != 0 || ferror(f);
    if ((fclose(f) != 0) | bad) {
        remove(tmp);
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write error: %s", tmp, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        remove(tmp);
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename: %s", tmp, strerror(errno));
    }
    tvds_free(path);
    return rc;
}

int tvds_cea_write_csv_tag(const tvds_cea_result *r, const char *dir, const char *tag,
                           tvds_ctx *ctx)
{
    if (!r || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nothing to write");
    char *path = NULL;
    int rc = TVDS_OK;
    FILE *f = open_csv(dir, "locus", tag, &path, &rc, ctx);
    if (!f) return rc;
    fputs("position [m],branch,frequency [Hz],real part [1/s],damping ratio,MAC,unstable,"
          "static normal force [N]",
          f);
    fputs(r->anti ? ",antisymmetric share\n" : "\n", f);
    for (int i = 0; i < r->npos; i++)
        for (int b = 0; b < r->nbranch; b++) {
            size_t k = (size_t)i * r->nbranch + b;
            if (!isfinite(r->freq[k])) continue;
            int uns = 0;
            for (int w = 0; w < r->nwin; w++)
                if (r->win[w].branch == b && r->s[i] >= r->win[w].s_start &&
                    r->s[i] <= r->win[w].s_end)
                    uns = 1;
            fprintf(f, "%.17g,%d,%.17g,%.17g,%.17g,%.6f,%d,%.10g", r->s[i], b, r->freq[k], r->re[k],
                    r->zeta[k], r->mac[k], uns, r->lambda_n ? r->lambda_n[i] : 0.0);
            if (r->anti)
                fprintf(f, ",%.6e\n", r->anti[k]);
            else
                fputc('\n', f);
        }
    if ((rc = close_csv(f, path, ctx))) return rc;
    f = open_csv(dir, "unstable", tag, &path, &rc, ctx);
    if (!f) return rc;
    fputs("branch,s_start [m],s_end [m],f_min [Hz],f_max [Hz],max real part [1/s],s_in [m],"
          "s_out [m],f at max Re [Hz],s at max Re [m],t_start [s],t_end [s],predicted growth",
          f);
    fputs(r->anti ? ",antisymmetric share at max Re\n" : "\n", f);
    for (int w = 0; w < r->nwin; w++) {
        const tvds_cea_window *cw = &r->win[w];
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g",
                cw->branch, cw->s_start, cw->s_end, cw->f_min, cw->f_max, cw->re_max, cw->s_in,
                cw->s_out, cw->f_peak, cw->s_peak, cw->t_start, cw->t_end, cw->growth_pred);
        if (r->anti)
            fprintf(f, ",%.6e\n", cw->anti_peak);
        else
            fputc('\n', f);
    }
    return close_csv(f, path, ctx);
}

int tvds_cea_write_csv(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx)
{
    return tvds_cea_write_csv_tag(r, dir, NULL, ctx);
}

int tvds_cea_plot(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx)
{
    if (!r || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nothing to plot");
    char *csv = join(dir, "locus.csv");
    char *png1 = join(dir, "locus.png");
    char *png2 = join(dir, "stability.png");
    int rc = TVDS_OK;
    if (!csv || !png1 || !png2) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
        goto done;
    }
    /* Positions in mm as the tables give them (locus.csv keeps metres); the titles say which
     * locus (damped or undamped) and mu. */
    tvds_plot_series loc = {
        .file = csv, .header_lines = 1, .using = "3:4:($1*1e3)", .style = TVDS_PLOT_SCATTER_COLOR};
    char t1[160], t2[160];
    const char *kind = r->undamped ? "undamped" : "damped";
    snprintf(t1, sizeof t1, "Complex eigenvalue locus (%s, mu = %g)", kind, r->mu);
    snprintf(t2, sizeof t2, "Stability map (%s, mu = %g)", kind, r->mu);
    tvds_plot_refline zero = {.vertical = 0, .value = 0.0, .color = "#888888", .dashed = 1};
    tvds_plot_panel p1 = tvds_plot_panel_default();
    p1.title = t1;
    p1.xlabel = "frequency [Hz]";
    p1.ylabel = "real part [1/s]";
    p1.cblabel = "position [mm]";
    p1.nseries = 1;
    p1.series = &loc;
    p1.nrefs = 1;
    p1.refs = &zero;
    tvds_plot_figure f1 = {
        .output = png1, .width = 1000, .height = 700, .npanels = 1, .panels = &p1};
    rc = tvds_plot_render(&f1, ctx);
    if (rc < 0) goto done; /* a missing gnuplot: still write the second script */
    tvds_plot_series st[2] = {{.file = csv,
                               .header_lines = 1,
                               .using = "($1*1e3):($7 > 0 ? 1/0 : $3)",
                               .style = TVDS_PLOT_POINTS,
                               .color = "#9a9a9a",
                               .point_size = 0.4,
                               .title = "stable"},
                              {.file = csv,
                               .header_lines = 1,
                               .using = "($1*1e3):($7 > 0 ? $3 : 1/0)",
                               .style = TVDS_PLOT_POINTS,
                               .color = "#d62728",
                               .point_size = 0.9,
                               .title = "unstable (real part > 0)"}};
    tvds_plot_panel p2 = tvds_plot_panel_default();
    p2.title = t2;
    p2.xlabel = "position [mm]";
    p2.ylabel = "frequency [Hz]";
    p2.key = "top left opaque box";
    p2.nseries = 2;
    p2.series = st;
    tvds_plot_figure f2 = {
        .output = png2, .width = 1000, .height = 700, .npanels = 1, .panels = &p2};
    int rc2 = tvds_plot_render(&f2, ctx);
    if (rc2 != TVDS_OK) rc = rc2;
done:
    tvds_free(csv);
    tvds_free(png1);
    tvds_free(png2);
    return rc;
}
