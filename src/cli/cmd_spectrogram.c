/* cmd_spectrogram.c — `tvds spectrogram`: STFT of one channel of a history CSV, CSV + PNG. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_spectrum.h"

static void spectrogram_help(FILE *out)
{
    fprintf(out,
            "usage: tvds spectrogram HISTORY.csv --channel NAME [options] -o DIR\n"
            "\n"
            "Short-time Fourier transform of one channel of a history CSV (header row of names\n"
            "with units, time 't [s]' first; non-uniform sampling is linearly resampled at the\n"
            "median step). Writes DIR/spectrogram.csv (t [s], f [Hz], value; one block per\n"
            "frame, blocks separated by a blank line) and DIR/spectrogram.png (dB colour map).\n"
            "\n"
            "options:\n"
            "  --channel NAME      column to analyse (name with or without its '[unit]')\n"
            "  --window N          window length in samples (default 4096)\n"
            "  --overlap R         overlap of consecutive windows, 0 <= R < 1 (default 0.75)\n"
            "  --window-type W     hann (default), hamming or rect\n"
            "  --scaling S         amplitude (default: single-sided, corrected for the window's\n"
            "                      coherent gain) or psd (single-sided, unit^2/Hz)\n"
            "  --fmax F            highest frequency written and drawn [Hz] (default Nyquist)\n"
            "  --locus FILE        unstable.csv of 'tvds cea': mark its unstable frequencies\n"
            "  --detrend           subtract each frame's mean\n"
            "  --range DB          colour range below the maximum [dB] (default 80)\n"
            "  -o, --output DIR    output directory (created; default: the history's directory)\n"
            "  -h, --help          this help\n"
            "\n"
            "exit codes: 0 success (a missing gnuplot is a warning), 2 bad input.\n"
            "\n"
            "example:\n"
            "  tvds run models/beam_on_beam/beam_on_beam.ini -o out/beam\n"
            "  tvds cea models/beam_on_beam/beam_on_beam.ini -o out/beam/cea\n"
            "  tvds spectrogram out/beam/history.csv --channel T_ay --fmax 15000 \\\n"
            "       --locus out/beam/cea/unstable.csv -o out/beam\n");
}

/* Unstable windows of a locus file: branch, s_start, s_end, f_min, f_max, re_max. */
static int read_unstable(const char *path, double **fmin, double **fmax, int **branch, int *n)
{
    *fmin = *fmax = NULL;
    *branch = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tvds: %s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    char line[1024];
    int lineno = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (lineno == 1 || line[0] == '#' || line[0] == '\n') continue;
        int b;
        double s0, s1, f0, f1, re;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf", &b, &s0, &s1, &f0, &f1, &re) != 6) {
            fprintf(stderr, "tvds: %s:%d: expected branch,s_start,s_end,f_min,f_max,re_max\n", path,
                    lineno);
            fclose(f);
            return 2;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            double *a = tvds_realloc(*fmin, (size_t)cap * sizeof(double));
            if (a) *fmin = a;
            double *c = tvds_realloc(*fmax, (size_t)cap * sizeof(double));
            if (c) *fmax = c;
            int *d = tvds_realloc(*branch, (size_t)cap * sizeof(int));
            if (d) *branch = d;
            if (!a || !c || !d) {
                fclose(f);
                return 1;
            }
        }
        (*fmin)[*n] = f0;
        (*fmax)[*n] = f1;
        (*branch)[*n] = b;
        (*n)++;
    }
    fclose(f);
    return 0;
}

typedef struct {
    const char *hist, *channel, *outdir, *locus;
    tvds_stft_options so;
    double fmax, range_db;
    char dirbuf[4096];
} spectrogram_args;

/* Options and operands: 0 to go on, -1 after --help, else a usage error's exit code. */
static int spectrogram_parse(int argc, char **argv, spectrogram_args *a)
{
    const char *val;
    int r;
    a->hist = a->channel = a->outdir = a->locus = NULL;
    a->so = tvds_stft_options_default();
    a->fmax = 0.0;
    a->range_db = 80.0;
    const tvds_cli_opt opts[] = {{"--channel", NULL, &a->channel, NULL, 0},
                                 {"--output", "-o", &a->outdir, NULL, 0},
                                 {"--locus", NULL, &a->locus, NULL, 0},
                                 {"--detrend", NULL, NULL, &a->so.detrend, 1},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        double v;
        if (tvds_cli_is_help(arg)) {
            spectrogram_help(stdout);
            return -1;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--window", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 2 || v > (1 << 26) || v != floor(v))
                return tvds_cli_usage_error("spectrogram: --window %s: expected an integer >= 2",
                                            val);
            a->so.nwin = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--overlap", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v < 0 || v >= 1)
                return tvds_cli_usage_error("spectrogram: --overlap %s: expected 0 <= R < 1", val);
            a->so.overlap = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--fmax", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v <= 0)
                return tvds_cli_usage_error("spectrogram: --fmax %s: expected a frequency > 0",
                                            val);
            a->fmax = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--range", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &v) || v <= 0)
                return tvds_cli_usage_error("spectrogram: --range %s: expected dB > 0", val);
            a->range_db = v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--window-type", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "hann"))
                a->so.window = TVDS_WINDOW_HANN;
            else if (!strcmp(val, "hamming"))
                a->so.window = TVDS_WINDOW_HAMMING;
            else if (!strcmp(val, "rect"))
                a->so.window = TVDS_WINDOW_RECT;
            else
                return tvds_cli_usage_error(
                    "spectrogram: --window-type %s: expected hann, hamming or rect", val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--scaling", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (!strcmp(val, "amplitude"))
                a->so.scaling = TVDS_SPEC_AMPLITUDE;
            else if (!strcmp(val, "psd"))
                a->so.scaling = TVDS_SPEC_PSD;
            else
                return tvds_cli_usage_error("spectrogram: --scaling %s: expected amplitude or psd",
                                            val);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return tvds_cli_usage_error(
                "spectrogram: unknown option '%s' (see 'tvds spectrogram --help')", arg);
        } else if (!a->hist) {
            a->hist = arg;
        } else {
            return tvds_cli_usage_error("spectrogram: more than one history file ('%s', '%s')",
                                        a->hist, arg);
        }
    }
    if (!a->hist) return tvds_cli_usage_error("spectrogram: missing HISTORY.csv (see --help)");
    if (!a->channel) return tvds_cli_usage_error("spectrogram: missing --channel NAME");

    if (!a->outdir) {
        const char *sl = strrchr(a->hist, '/');
        size_t n = sl ? (size_t)(sl - a->hist) : 1;
        if (n >= sizeof a->dirbuf) n = sizeof a->dirbuf - 1;
        memcpy(a->dirbuf, sl ? a->hist : ".", n);
        a->dirbuf[n] = '\0';
        a->outdir = a->dirbuf;
    }
    return 0;
}

/* spectrogram.csv: one block per frame, up to bin jmax; *smax the largest value written. */
static int spectrogram_write_csv(const char *csv, const tvds_stft *st, int jmax, int psd,
                                 const char *unit, double *smax)
{
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tvds: %s: cannot write: %s\n", csv, strerror(errno));
        return 2;
    }
    if (psd)
        fprintf(f, "t [s],f [Hz],psd [(%s)^2/Hz]\n", unit && *unit ? unit : "1");
    else
        fprintf(f, "t [s],f [Hz],amplitude [%s]\n", unit && *unit ? unit : "1");
    for (int k = 0; k < st->nframes; k++) {
        if (k) fputc('\n', f);
        for (int j = 0; j < jmax; j++) {
            double v = st->S[(size_t)k * st->nfreq + j];
            if (v > *smax) *smax = v;
            fprintf(f, "%.9g,%.9g,%.9g\n", st->t[k], st->f[j], v);
        }
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "tvds: %s: write error\n", csv);
        return 2;
    }
    return 0;
}

/* spectrogram.png: the heat map in dB, with the CEA's unstable frequencies (--locus) as lines.
 * Returns 0 with the renderer's code in *prc, else the exit code. */
static int spectrogram_plot(const spectrogram_args *a, const tvds_stft *st, int jmax, double smax,
                            const char *unit, const char *csv, const char *png,
                            const double *fmin_u, const double *fmax_u, const int *br_u, int nu,
                            int *prc, tvds_ctx *ctx)
{
    int psd = a->so.scaling == TVDS_SPEC_PSD;
    /* Colour map in dB: 20 log10 of amplitudes, 10 log10 of PSDs. */
    double top = smax > 0 ? (psd ? 10.0 : 20.0) * log10(smax) : 0.0;
    char using[64], cblabel[128];
    snprintf(using, sizeof using, "1:2:(%s*log10($3 > 0 ? $3 : 1e-300))", psd ? "10" : "20");
    if (psd)
        snprintf(cblabel, sizeof cblabel, "PSD [dB re 1 (%s)^2/Hz]", unit && *unit ? unit : "1");
    else
        snprintf(cblabel, sizeof cblabel, "amplitude [dB re 1 %s]", unit && *unit ? unit : "");
    tvds_plot_series se = {
        .file = csv, .header_lines = 1, .using = using, .style = TVDS_PLOT_HEATMAP};
    tvds_plot_refline *refs = NULL;
    char(*labels)[64] = NULL;
    int nref = 0;
    if (nu > 0) {
        refs = tvds_calloc((size_t)nu * 2, sizeof *refs);
        labels = tvds_calloc((size_t)nu, sizeof *labels);
        if (!refs || !labels) {
            tvds_free(refs);
            tvds_free(labels);
            return tvds_cli_report(TVDS_ERR_NOMEM, NULL);
        }
        double ftop = a->fmax > 0 ? a->fmax : st->f[st->nfreq - 1];
        for (int u = 0; u < nu; u++) {
            if (fmin_u[u] > ftop) continue;
            snprintf(labels[u], sizeof labels[u], "CEA unstable, branch %d", br_u[u]);
            refs[nref++] = (tvds_plot_refline){
                .value = fmin_u[u], .label = labels[u], .color = "#ff3030", .dashed = 1};
            if (fmax_u[u] - fmin_u[u] > 1e-3 * fmax_u[u] && fmax_u[u] <= ftop)
                refs[nref++] =
                    (tvds_plot_refline){.value = fmax_u[u], .color = "#ff3030", .dashed = 1};
        }
    }
    tvds_plot_panel pa = tvds_plot_panel_default();
    char title[512];
    snprintf(title, sizeof title, "%s: %s (%s window, %d samples, overlap %.2f)", a->hist,
             a->channel,
             a->so.window == TVDS_WINDOW_HANN      ? "Hann"
             : a->so.window == TVDS_WINDOW_HAMMING ? "Hamming"
                                                   : "rect",
             a->so.nwin, a->so.overlap);
    pa.title = title;
    pa.xlabel = "t [s]";
    pa.ylabel = "f [Hz]";
    pa.cblabel = cblabel;
    pa.grid = 0;
    pa.xmin = st->t[0];
    pa.xmax = st->t[st->nframes - 1];
    pa.ymin = 0.0;
    pa.ymax = st->f[jmax - 1];
    pa.cbmin = top - a->range_db;
    pa.cbmax = top;
    pa.nseries = 1;
    pa.series = &se;
    pa.nrefs = nref;
    pa.refs = refs;
    tvds_plot_figure fig = {
        .output = png, .width = 1200, .height = 700, .npanels = 1, .panels = &pa};
    *prc = tvds_plot_render(&fig, ctx);
    tvds_free(refs);
    tvds_free(labels);
    return 0;
}

int tvds_cmd_spectrogram(int argc, char **argv)
{
    spectrogram_args a;
    int pr = spectrogram_parse(argc, argv, &a);
    if (pr) return pr < 0 ? 0 : pr;
    const char *hist = a.hist, *channel = a.channel, *outdir = a.outdir, *locus = a.locus;
    const tvds_stft_options so = a.so;
    const double fmax = a.fmax;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double *t = NULL, *x = NULL, *fmin_u = NULL, *fmax_u = NULL;
    int *br_u = NULL, nu = 0;
    char *unit = NULL;
    long n = 0;
    tvds_stft *st = NULL;
    char *csv = NULL, *png = NULL;
    int rc = tvds_history_read_channel(hist, channel, &t, &x, &n, &unit, &ctx);
    if (rc) goto report;
    double dt;
    int resampled = 0;
    rc = tvds_uniform_sampling(t, &x, &n, &dt, &resampled, &ctx);
    if (rc) { /* name the file the samples came from */
        tvds_ctx fctx;
        tvds_ctx_init(&fctx);
        tvds_error_at(&fctx, rc, ctx.src_file, ctx.src_line, "%s: %s", hist, ctx.msg);
        ctx = fctx;
        goto report;
    }
    if (resampled)
        fprintf(stderr, "tvds: warning: %s is not uniformly sampled; resampled at dt = %.6g s\n",
                hist, dt);
    if (n < so.nwin) {
        fprintf(stderr, "tvds: %s: %ld samples, fewer than one window of %d (use --window)\n", hist,
                n, so.nwin);
        rc = 2;
        goto out;
    }
    rc = tvds_stft_compute(x, n, dt, t[0], &so, &st, &ctx);
    if (rc) goto report;
    if (locus && (rc = read_unstable(locus, &fmin_u, &fmax_u, &br_u, &nu)) != 0) goto out;
    if ((rc = tvds_mkdir_p(outdir, &ctx)) != 0) goto report;
    size_t ld = strlen(outdir);
    csv = tvds_malloc(ld + 32);
    png = tvds_malloc(ld + 32);
    if (!csv || !png) {
        rc = tvds_cli_report(TVDS_ERR_NOMEM, NULL);
        goto out;
    }
    snprintf(csv, ld + 32, "%s/spectrogram.csv", outdir);
    snprintf(png, ld + 32, "%s/spectrogram.png", outdir);
    int jmax = st->nfreq;
    if (fmax > 0)
        while (jmax > 1 && st->f[jmax - 1] > fmax)
            jmax--;
    int psd = so.scaling == TVDS_SPEC_PSD;
    double smax = 0.0;
    if ((rc = spectrogram_write_csv(csv, st, jmax, psd, unit, &smax)) != 0) goto out;
    int prc = TVDS_OK;
    rc = spectrogram_plot(&a, st, jmax, smax, unit, csv, png, fmin_u, fmax_u, br_u, nu, &prc, &ctx);
    if (rc) goto out;
    printf("spectrogram: %s [%s], %ld samples at %.6g Hz, %d frames x %d bins (df = %.6g Hz)\n",
           channel, unit ? unit : "", n, 1.0 / dt, st->nframes, jmax, st->df);
    printf("  %s\n", csv);
    if (prc == TVDS_WARN_NO_GNUPLOT) {
        fprintf(stderr, "tvds: warning: %s\n", ctx.msg);
    } else if (prc != TVDS_OK) {
        rc = prc;
        goto report;
    } else {
        printf("  %s\n", png);
    }
    rc = 0;
    goto out;
report:
    rc = tvds_cli_report(rc, &ctx);
out:
    tvds_free(t);
    tvds_free(x);
    tvds_free(unit);
    tvds_free(fmin_u);
    tvds_free(fmax_u);
    tvds_free(br_u);
    tvds_free(csv);
    tvds_free(png);
    tvds_stft_free(&st);
    return rc;
}
