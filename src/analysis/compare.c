/* compare.c — contact methods side by side: sequential runs, agreement metrics against FiLm,
 * the Markdown report and its figures (include/tvds/tvds_compare.h, docs/squeal.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "tvds/tvds_compare.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_spectrum.h"

#define CMP_PI 3.14159265358979323846

/* Thresholds of the findings (docs/squeal.md, "Reading the report"). */
#define BURST_GROWTH 5.0  /* envelope growth above which a burst grew in the window */
#define DETECT_RATIO 0.5  /* peak ratio to FiLm from which a method "detects" the bursts */
#define MATCH_RATIO  1.25 /* peak ratio within [1/1.25, 1.25]: amplitude matches FiLm */
#define MATCH_FREQ   0.02 /* relative dominant-frequency difference that still matches */
#define LN_FRACTION  0.1  /* Subs-c's normal-force decrease below this part of Subs-b's: none */

/* ---- Metrics -------------------------------------------------------------------------------- */

double tvds_rms(const double *x, long n)
{
    if (n <= 0 || !x) return 0.0;
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s / (double)n);
}

double tvds_rms_diff(const double *a, const double *b, long n)
{
    if (n <= 0 || !a || !b) return 0.0;
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        double d = a[i] - b[i];
        s += d * d;
    }
    return sqrt(s / (double)n);
}

double tvds_peak_abs(const double *x, long n)
{
    double p = 0.0;
    for (long i = 0; x && i < n; i++)
        if (fabs(x[i]) > p) p = fabs(x[i]);
    return p;
}

double tvds_burst_peak_ratio(const double *x, long nx, const double *ref, long nref)
{
    double pr = tvds_peak_abs(ref, nref);
    if (pr == 0.0) return NAN;
    return tvds_peak_abs(x, nx) / pr;
}

double tvds_envelope_growth(const double *x, long n, int nframes)
{
    if (!x || nframes < 1 || n < nframes) return NAN;
    long len = n / nframes;
    double first = tvds_rms(x, len), best = first;
    for (int k = 1; k < nframes; k++) {
        double r = tvds_rms(x + (long)k * len, len);
        if (r > best) best = r;
    }
    return first > 0.0 ? best / first : NAN;
}

int tvds_dominant_frequency(const double *x, long n, double dt, double fmin, double fmax, double *f,
                            double *amp, tvds_ctx *ctx)
{
    if (!x || !f || n < 8 || !(dt > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "dominant frequency: need >= 8 samples and dt > 0");
    long nfft = 1;
    while (nfft < 8 * n)
        nfft *= 2;
    double fnyq = 0.5 / dt, df = 1.0 / ((double)nfft * dt);
    if (fmax <= 0.0 || fmax > fnyq) fmax = fnyq;
    if (fmin < 0.0) fmin = 0.0;
    long k0 = (long)ceil(fmin / df), k1 = (long)floor(fmax / df);
    if (k0 < 1) k0 = 1; /* DC is the removed mean */
    if (k1 > nfft / 2) k1 = nfft / 2;
    if (k1 < k0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "dominant frequency: empty band [%g, %g] Hz", fmin,
                          fmax);
    double *buf = tvds_calloc((size_t)nfft, sizeof *buf);
    fftw_complex *spec = tvds_malloc((size_t)(nfft / 2 + 1) * sizeof *spec);
    if (!buf || !spec) {
        tvds_free(buf);
        tvds_free(spec);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "dominant frequency: out of memory");
    }
    fftw_plan plan;
#pragma omp critical(tvds_fftw_planner)
    plan = fftw_plan_dft_r2c_1d((int)nfft, buf, spec, FFTW_ESTIMATE);
    if (!plan) {
        tvds_free(buf);
        tvds_free(spec);
        return TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "dominant frequency: FFTW planning failed");
    }
    double mean = 0.0, wsum = 0.0;
    for (long i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (long i = 0; i < n; i++) {
        /* symmetric Hann over the n samples */
        double w = 0.5 * (1.0 - cos(2.0 * CMP_PI * (double)i / (double)(n - 1)));
        buf[i] = w * (x[i] - mean);
        wsum += w;
    }
    fftw_execute(plan);
    long kbest = k0;
    double best = -1.0;
    for (long k = k0; k <= k1; k++) {
        double a = hypot(spec[k][0], spec[k][1]);
        if (a > best) {
            best = a;
            kbest = k;
        }
    }
    double shift = 0.0;
    if (kbest > 0 && kbest < nfft / 2 && best > 0.0) {
        double am = hypot(spec[kbest - 1][0], spec[kbest - 1][1]);
        double ap = hypot(spec[kbest + 1][0], spec[kbest + 1][1]);
        if (am > 0.0 && ap > 0.0) {
            double lm = log(am), l0 = log(best), lp = log(ap);
            double den = lm - 2.0 * l0 + lp;
            if (den < 0.0) shift = 0.5 * (lm - lp) / den;
            if (shift > 0.5) shift = 0.5;
            if (shift < -0.5) shift = -0.5;
        }
    }
    *f = ((double)kbest + shift) * df;
    if (amp) *amp = 2.0 * best / wsum;
#pragma omp critical(tvds_fftw_planner)
    fftw_destroy_plan(plan);
    tvds_free(buf);
    tvds_free(spec);
    return TVDS_OK;
}

/* ---- Options -------------------------------------------------------------------------------- */

tvds_compare_opts tvds_compare_opts_default(void)
{
    tvds_compare_opts o;
    memset(&o, 0, sizeof o);
    o.nmethods = 0;
    o.s_cea0 = 0.0;
    o.s_cea1 = -1.0;
    o.plots = 1;
    return o;
}

static int opts_methods(const tvds_compare_opts *o, int *meth)
{
    if (!o || o->nmethods <= 0) {
        meth[0] = TVDS_METHOD_SUBS_A;
        meth[1] = TVDS_METHOD_SUBS_B;
        meth[2] = TVDS_METHOD_SUBS_C;
        meth[3] = TVDS_METHOD_FILM;
        return 4;
    }
    int n = o->nmethods > TVDS_METHOD_COUNT ? TVDS_METHOD_COUNT : o->nmethods;
    for (int i = 0; i < n; i++)
        meth[i] = o->methods[i];
    return n;
}

/* Channel names and window from the model and the options. */
static int setup_names(const tvds_model *m, const tvds_compare_opts *o, tvds_compare_result *res,
                       tvds_ctx *ctx)
{
    res->accel[0] = res->deflect[0] = res->contact[0] = '\0';
    const char *acc = o->accel, *defl = o->deflect;
    for (int i = 0; !acc && i < m->nprobe; i++)
        if (m->probes[i].kind == TVDS_PROBE_A) acc = m->probes[i].name;
    for (int i = 0; !defl && i < m->nprobe; i++)
        if (m->probes[i].kind == TVDS_PROBE_U) defl = m->probes[i].name;
    if (!acc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "compare: the case has no acceleration probe ([probe] quantity = a)");
    snprintf(res->accel, sizeof res->accel, "%s", acc);
    if (defl) snprintf(res->deflect, sizeof res->deflect, "%s", defl);
    if (m->ncontact > 0) {
        if (o->contact < 0 || o->contact >= m->ncontact)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: contact index %d out of range",
                              o->contact);
        const tvds_contact *c = &m->contacts[o->contact];
        if (c->nslave > 1)
            snprintf(res->contact, sizeof res->contact, "%s.%ld", c->name, c->slave_nodes[0]);
        else
            snprintf(res->contact, sizeof res->contact, "%s", c->name);
    }
    double t0 = o->t0, t1 = o->t1;
    if (!(t1 > t0)) {
        t0 = 0.0;
        for (int s = 0; s < m->nsub; s++) {
            const tvds_damping *d = &m->damping[s];
            if (d->kind == TVDS_DAMP_RAYLEIGH && d->t_hold + d->t_ramp > t0)
                t0 = d->t_hold + d->t_ramp;
        }
        t1 = m->opt.t_end;
        if (!(t1 > t0)) t0 = 0.0;
    }
    if (!(t1 > t0) || t0 < 0.0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: empty metric window [%g, %g] s", t0, t1);
    res->t0 = t0;
    res->t1 = t1;
    res->f_cea = o->f_cea;
    res->s_cea0 = o->s_cea0;
    res->s_cea1 = o->s_cea1;
    return TVDS_OK;
}

/* ---- Reading the outputs back ------------------------------------------------------------- */

typedef struct cmp_signal {
    double *t, *x;
    long n;
} cmp_signal;

static void signal_free(cmp_signal *s)
{
    tvds_free(s->t);
    tvds_free(s->x);
    s->t = s->x = NULL;
    s->n = 0;
}

static int read_sig(const char *outdir, const char *meth, const char *file, const char *chan,
                    cmp_signal *s, tvds_ctx *ctx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", outdir, meth, file);
    s->t = s->x = NULL;
    s->n = 0;
    return tvds_history_read_channel(path, chan, &s->t, &s->x, &s->n, NULL, ctx);
}

/* Index range [*i0, *i1) of the samples with t in [t0, t1]. */
static void window_range(const cmp_signal *s, double t0, double t1, long *i0, long *i1)
{
    long a = 0;
    while (a < s->n && s->t[a] < t0)
        a++;
    long b = a;
    while (b < s->n && s->t[b] <= t1)
        b++;
    *i0 = a;
    *i1 = b;
}

/* Linear interpolation of r at time t (clamped). */
static double interp(const cmp_signal *r, double t, long *hint)
{
    if (r->n == 0) return NAN;
    long k = *hint;
    if (k < 0) k = 0;
    while (k + 1 < r->n && r->t[k + 1] <= t)
        k++;
    while (k > 0 && r->t[k] > t)
        k--;
    *hint = k;
    if (k + 1 >= r->n || t <= r->t[k]) return r->x[k];
    double w = (t - r->t[k]) / (r->t[k + 1] - r->t[k]);
    return (1.0 - w) * r->x[k] + w * r->x[k + 1];
}

static double mean_range(const double *x, long a, long b)
{
    if (b <= a) return NAN;
    double s = 0.0;
    for (long i = a; i < b; i++)
        s += x[i];
    return s / (double)(b - a);
}

/* Spectrogram of the acceleration written as a heat-map file for gnuplot: blocks of
 * "t,f,dB" per frame separated by blank lines, bins up to fmax. */
static int write_spectrogram(const char *path, const cmp_signal *a, int nwin, double fmax,
                             tvds_ctx *ctx)
{
    if (a->n < 2) return TVDS_OK;
    double *x = tvds_malloc((size_t)a->n * sizeof *x);
    if (!x) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    memcpy(x, a->x, (size_t)a->n * sizeof *x);
    long n = a->n;
    double dt;
    int resampled, rc = tvds_uniform_sampling(a->t, &x, &n, &dt, &resampled, ctx);
    if (rc) {
        tvds_free(x);
        return rc;
    }
    tvds_stft_options so = tvds_stft_options_default();
    so.nwin = nwin > 0 ? nwin : 64;
    while (so.nwin > 64 && so.nwin > n / 4)
        so.nwin /= 2;
    if (so.nwin > n) {
        tvds_free(x);
        return TVDS_OK;
    }
    so.overlap = 0.75;
    so.detrend = 1;
    tvds_stft *st = NULL;
    rc = tvds_stft_compute(x, n, dt, a->t[0], &so, &st, ctx);
    tvds_free(x);
    if (rc) return rc;
    FILE *fp = fopen(path, "w");
    if (!fp) {
        tvds_stft_free(&st);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", path);
    }
    fprintf(fp, "# t [s], f [Hz], amplitude [dB re 1 m/s^2]\n");
    for (int k = 0; k < st->nframes; k++) {
        for (int j = 0; j < st->nfreq; j++) {
            if (fmax > 0.0 && st->f[j] > fmax) break;
            double v = st->S[(size_t)k * (size_t)st->nfreq + (size_t)j];
            fprintf(fp, "%.9g,%.9g,%.5g\n", st->t[k], st->f[j], 20.0 * log10(v + 1e-12));
        }
        fprintf(fp, "\n");
    }
    tvds_stft_free(&st);
    if (fclose(fp) != 0) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    return TVDS_OK;
}

int tvds_compare_analyse(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                         tvds_compare_result *res, tvds_ctx *ctx)
{
    tvds_compare_opts def = tvds_compare_opts_default();
    if (!o) o = &def;
    if (!m || !outdir || !res) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: NULL argument");
    int rc = setup_names(m, o, res, ctx);
    if (rc) return rc;
    res->ref = -1;
    for (int i = 0; i < res->n; i++)
        if (res->e[i].method == TVDS_METHOD_FILM) res->ref = i;

    cmp_signal acc[TVDS_METHOD_COUNT];
    memset(acc, 0, sizeof acc);
    for (int i = 0; i < res->n; i++) {
        tvds_compare_entry *e = &res->e[i];
        e->cpu_ratio = e->rms = e->peak = e->growth = e->rms_diff = e->rms_rel = NAN;
        e->peak_ratio = e->f_dom = e->ln_first = e->ln_last = e->ln_min = e->ln_max = NAN;
        e->defl_first = e->defl_last = e->vs_mean = NAN;
        tvds_ctx c2;
        tvds_ctx_init(&c2);
        /* A failed run may have left no file: its metrics stay NaN. */
        if (read_sig(outdir, tvds_method_name(e->method), "history.csv", res->accel, &acc[i],
                     &c2) != TVDS_OK) {
            if (e->status == TVDS_OK) {
                rc = tvds_error_at(ctx, c2.status, c2.src_file, c2.src_line, "%s", c2.msg);
                goto done;
            }
        }
    }
    double fmax_band = o->f_cea > 0.0 ? 3.0 * o->f_cea : 0.0;
    for (int i = 0; i < res->n; i++) {
        tvds_compare_entry *e = &res->e[i];
        const char *mname = tvds_method_name(e->method);
        cmp_signal *a = &acc[i];
        if (res->ref >= 0 && res->e[res->ref].run.cpu_seconds > 0.0)
            e->cpu_ratio = e->run.cpu_seconds / res->e[res->ref].run.cpu_seconds;
        long i0, i1;
        window_range(a, res->t0, res->t1, &i0, &i1);
        long nw = i1 - i0;
        if (nw > 0) {
            e->rms = tvds_rms(a->x + i0, nw);
            e->peak = tvds_peak_abs(a->x + i0, nw);
            e->growth = tvds_envelope_growth(a->x + i0, nw, 20);
        }
        if (nw >= 8) {
            double dt = (a->t[i1 - 1] - a->t[i0]) / (double)(nw - 1);
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            double f;
            if (tvds_dominant_frequency(a->x + i0, nw, dt, 0.0, fmax_band, &f, NULL, &c2) ==
                TVDS_OK)
                e->f_dom = f;
        }
        if (res->ref >= 0 && nw > 0 && acc[res->ref].n > 0) {
            const cmp_signal *r = &acc[res->ref];
            double *d = tvds_malloc((size_t)nw * 2 * sizeof *d);
            if (!d) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
                goto done;
            }
            long hint = 0, nr = 0;
            for (long k = i0; k < i1; k++) {
                if (a->t[k] > r->t[r->n - 1]) break; /* the reference ended early */
                d[nr] = a->x[k];
                d[nw + nr] = interp(r, a->t[k], &hint);
                nr++;
            }
            if (nr > 0) {
                e->rms_diff = tvds_rms_diff(d, d + nw, nr);
                double rr = tvds_rms(d + nw, nr);
                e->rms_rel = rr > 0.0 ? e->rms_diff / rr : NAN;
            }
            tvds_free(d);
            long r0, r1;
            window_range(r, res->t0, res->t1, &r0, &r1);
            if (r1 > r0) e->peak_ratio = tvds_burst_peak_ratio(a->x + i0, nw, r->x + r0, r1 - r0);
        }
        /* Contact channels. */
        if (res->contact[0]) {
            char ch[128];
            cmp_signal ln = {0}, vs = {0};
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            snprintf(ch, sizeof ch, "%s.lambda_n", res->contact);
            if (read_sig(outdir, mname, "contacts.csv", ch, &ln, &c2) == TVDS_OK) {
                long a0, a1;
                window_range(&ln, res->t0, res->t1, &a0, &a1);
                long ne = (a1 - a0) / 10 > 0 ? (a1 - a0) / 10 : 1;
                if (a1 > a0) {
                    e->ln_first = mean_range(ln.x, a0, a0 + ne);
                    e->ln_last = mean_range(ln.x, a1 - ne, a1);
                    e->ln_min = e->ln_max = ln.x[a0];
                    for (long k = a0; k < a1; k++) {
                        if (ln.x[k] < e->ln_min) e->ln_min = ln.x[k];
                        if (ln.x[k] > e->ln_max) e->ln_max = ln.x[k];
                    }
                }
            }
            signal_free(&ln);
            tvds_ctx_init(&c2);
            snprintf(ch, sizeof ch, "%s.v_slide", res->contact);
            if (read_sig(outdir, mname, "contacts.csv", ch, &vs, &c2) == TVDS_OK) {
                long a0, a1;
                window_range(&vs, res->t0, res->t1, &a0, &a1);
                e->vs_mean = mean_range(vs.x, a0, a1);
            }
            signal_free(&vs);
        }
        if (res->deflect[0]) {
            cmp_signal u = {0};
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            if (read_sig(outdir, mname, "history.csv", res->deflect, &u, &c2) == TVDS_OK) {
                long a0, a1;
                window_range(&u, res->t0, res->t1, &a0, &a1);
                long ne = (a1 - a0) / 10 > 0 ? (a1 - a0) / 10 : 1;
                if (a1 > a0) {
                    e->defl_first = mean_range(u.x, a0, a0 + ne);
                    e->defl_last = mean_range(u.x, a1 - ne, a1);
                }
            }
            signal_free(&u);
        }
        /* Spectrogram file for the report's figure. */
        if (a->n > 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/spectrogram.csv", outdir, mname);
            double dts = a->n > 1 ? (a->t[a->n - 1] - a->t[0]) / (double)(a->n - 1) : 1.0;
            int nwin = o->nwin;
            if (nwin <= 0) {
                nwin = 64;
                while (nwin * dts < 0.01)
                    nwin *= 2;
            }
            double fmax = o->fmax_plot > 0.0 ? o->fmax_plot : o->f_cea > 0.0 ? 2.0 * o->f_cea : 0.0;
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            write_spectrogram(path, a, nwin, fmax, &c2); /* a missing figure is not fatal */
        }
    }
done:
    for (int i = 0; i < TVDS_METHOD_COUNT; i++)
        signal_free(&acc[i]);
    return rc;
}

/* ---- Report --------------------------------------------------------------------------------- */

/* 1-based column of channel name in the first line of a CSV file, or 0. */
static int csv_column(const char *path, const char *name)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    char line[65536];
    int col = 0;
    if (fgets(line, sizeof line, fp)) {
        size_t nl = strlen(name);
        int k = 1;
        char *p = line;
        while (*p) {
            char *q = p;
            while (*q && *q != ',' && *q != '\n' && *q != '\r')
                q++;
            size_t len = (size_t)(q - p);
            if ((len == nl && !strncmp(p, name, nl)) ||
                (len > nl + 1 && !strncmp(p, name, nl) && p[nl] == ' ' && p[nl + 1] == '[')) {
                col = k;
                break;
            }
            if (*q != ',') break;
            p = q + 1;
            k++;
        }
    }
    fclose(fp);
    return col;
}

static const char *method_color(int method)
{
    switch (method) {
    case TVDS_METHOD_SUBS_A:
        return "#1f77b4";
    case TVDS_METHOD_SUBS_B:
        return "#d62728";
    case TVDS_METHOD_SUBS_C:
        return "#2ca02c";
    default:
        return "#404040";
    }
}

/* The paper's CPU share of FiLm (Machines 2022, Sections 3.2-3.4). */
static double paper_cpu(int method)
{
    switch (method) {
    case TVDS_METHOD_SUBS_A:
        return 0.68;
    case TVDS_METHOD_SUBS_B:
        return 0.74;
    case TVDS_METHOD_SUBS_C:
        return 0.69;
    default:
        return 1.0;
    }
}

static void fmt_num(char *buf, size_t n, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(buf, n, fmt, v);
    else
        snprintf(buf, n, "–");
}

static int draw_figures(const tvds_model *m, const char *outdir, const tvds_compare_result *res,
                        double fmax_spec, int *drawn, tvds_ctx *ctx)
{
    *drawn = 0;
    int rc = TVDS_OK;
    char file[TVDS_METHOD_COUNT][1024], cfile[TVDS_METHOD_COUNT][1024],
        sfile[TVDS_METHOD_COUNT][1024], title[TVDS_METHOD_COUNT][64], out[1024];
    int acol = 0, lcol = 0, vcol = 0;
    for (int i = 0; i < res->n; i++) {
        const char *mn = tvds_method_name(res->e[i].method);
        snprintf(file[i], sizeof file[i], "%s/%s/history.csv", outdir, mn);
        snprintf(cfile[i], sizeof cfile[i], "%s/%s/contacts.csv", outdir, mn);
        snprintf(sfile[i], sizeof sfile[i], "%s/%s/spectrogram.csv", outdir, mn);
        snprintf(title[i], sizeof title[i], "%s", mn);
        if (!acol) acol = csv_column(file[i], res->accel);
        if (res->contact[0]) {
            char ch[128];
            snprintf(ch, sizeof ch, "%s.lambda_n", res->contact);
            if (!lcol) lcol = csv_column(cfile[i], ch);
            snprintf(ch, sizeof ch, "%s.v_slide", res->contact);
            if (!vcol) vcol = csv_column(cfile[i], ch);
        }
    }
    if (!acol) return TVDS_OK;
    /* Acceleration of each method against FiLm. */
    for (int i = 0; i < res->n; i++) {
        tvds_plot_series s[2];
        memset(s, 0, sizeof s);
        int ns = 0;
        if (res->ref >= 0 && res->ref != i) {
            s[ns].file = file[res->ref];
            s[ns].header_lines = 1;
            s[ns].xcol = 1;
            s[ns].ycol = acol;
            s[ns].title = "film";
            s[ns].color = "#a0a0a0";
            s[ns].line_width = 1.0;
            ns++;
        }
        s[ns].file = file[i];
        s[ns].header_lines = 1;
        s[ns].xcol = 1;
        s[ns].ycol = acol;
        s[ns].title = title[i];
        s[ns].color = method_color(res->e[i].method);
        s[ns].line_width = 1.0;
        ns++;
        char ptitle[256];
        snprintf(ptitle, sizeof ptitle, "%s: %s, %s against FiLm", m->name, res->accel, title[i]);
        tvds_plot_panel p = tvds_plot_panel_default();
        p.title = ptitle;
        p.xlabel = "t [s]";
        p.ylabel = "acceleration [m/s^2]";
        p.grid = 1;
        p.nseries = ns;
        p.series = s;
        p.xmin = res->t0; /* the window: the start-up transient would dwarf it */
        p.xmax = res->t1;
        snprintf(out, sizeof out, "%s/accel_%s.png", outdir, title[i]);
        tvds_plot_figure fig = {out, 1000, 450, NULL, 1, 1, 1, &p};
        rc = tvds_plot_render(&fig, ctx);
        if (rc == TVDS_WARN_NO_GNUPLOT) return TVDS_OK;
        if (rc) return rc;
    }
    /* Spectrograms side by side. */
    {
        tvds_plot_series s[TVDS_METHOD_COUNT];
        tvds_plot_panel p[TVDS_METHOD_COUNT];
        memset(s, 0, sizeof s);
        tvds_plot_refline fl = {0, res->f_cea, "CEA", "#ffffff", 1};
        double fmax_plot = fmax_spec;
        int np = 0;
        for (int i = 0; i < res->n; i++) {
            FILE *fp = fopen(sfile[i], "r");
            if (!fp) continue;
            fclose(fp);
            s[np].file = sfile[i];
            s[np].header_lines = 1;
            s[np].xcol = 1;
            s[np].ycol = 2;
            s[np].ccol = 3;
            s[np].style = TVDS_PLOT_HEATMAP;
            p[np] = tvds_plot_panel_default();
            p[np].title = title[i];
            p[np].xlabel = "t [s]";
            p[np].ylabel = "f [Hz]";
            p[np].cblabel = "dB re 1 m/s^2";
            p[np].key = "off";
            p[np].ymin = 0.0;
            p[np].ymax = fmax_plot;
            p[np].nseries = 1;
            p[np].series = &s[np];
            if (res->f_cea > 0.0) {
                p[np].nrefs = 1;
                p[np].refs = &fl;
            }
            np++;
        }
        if (np > 0) {
            snprintf(out, sizeof out, "%s/spectrograms.png", outdir);
            tvds_plot_figure fig = {
                out, 420 * np + 120, 420, "spectrograms of the acceleration", 1, np, np, p};
            rc = tvds_plot_render(&fig, ctx);
            if (rc == TVDS_WARN_NO_GNUPLOT) return TVDS_OK;
            if (rc) return rc;
        }
    }
    /* Normal force and sliding speed at the contact. */
    if (lcol && vcol) {
        tvds_plot_series sl[TVDS_METHOD_COUNT], sv[TVDS_METHOD_COUNT];
        memset(sl, 0, sizeof sl);
        memset(sv, 0, sizeof sv);
        for (int i = 0; i < res->n; i++) {
            tvds_plot_series b = {0};
            b.file = cfile[i];
            b.header_lines = 1;
            b.xcol = 1;
            b.title = title[i];
            b.color = method_color(res->e[i].method);
            b.line_width = 1.0;
            sl[i] = b;
            sl[i].ycol = lcol;
            sv[i] = b;
            sv[i].ycol = vcol;
        }
        tvds_plot_panel p[2];
        p[0] = tvds_plot_panel_default();
        p[0].title = "normal contact force";
        p[0].xlabel = "t [s]";
        p[0].ylabel = "lambda_n [N]";
        p[0].grid = 1;
        p[0].nseries = res->n;
        p[0].series = sl;
        p[0].xmin = res->t0;
        p[0].xmax = res->t1;
        p[1] = p[0];
        p[1].title = "sliding speed of the slave on the master";
        p[1].ylabel = "v_slide [m/s]";
        p[1].series = sv;
        snprintf(out, sizeof out, "%s/contact.png", outdir);
        tvds_plot_figure fig = {out, 1000, 700, NULL, 2, 1, 2, p};
        rc = tvds_plot_render(&fig, ctx);
        if (rc == TVDS_WARN_NO_GNUPLOT) return TVDS_OK;
        if (rc) return rc;
    }
    *drawn = 1;
    return TVDS_OK;
}

/* One finding of the paper and tvds' verdict. */
enum { F_AGREES = 1, F_DISAGREES = 0, F_NOT_RUN = -1, F_NO_BURST = -2 };

static void finding(FILE *fp, const char *claim, int verdict, const char *numbers)
{
    const char *v = verdict == F_AGREES      ? "**agrees**"
                    : verdict == F_DISAGREES ? "**disagrees**"
                    : verdict == F_NO_BURST  ? "not testable: FiLm shows no burst in this run"
                                             : "not tested (method not run or failed)";
    fprintf(fp, "| %s | %s | %s |\n", claim, v, numbers);
}

int tvds_compare_report(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                        const tvds_compare_result *res, tvds_ctx *ctx)
{
    tvds_compare_opts def = tvds_compare_opts_default();
    if (!o) o = &def;
    char path[1024];
    /* metrics.csv: one row per method, machine-readable. */
    snprintf(path, sizeof path, "%s/metrics.csv", outdir);
    FILE *fp = fopen(path, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", path);
    fprintf(fp, "method,status,steps,dt [s],cpu [s],us/step,cpu ratio to film [-],rms [m/s^2],"
                "peak [m/s^2],growth [-],rms diff [m/s^2],rms diff rel [-],peak ratio [-],"
                "dominant f [Hz],lambda_n first [N],lambda_n last [N],lambda_n min [N],"
                "lambda_n max [N],deflection first [m],deflection last [m],v_slide mean [m/s]\n");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        fprintf(fp,
                "%s,%s,%ld,%.9g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.8g,%.8g,%.8g,"
                "%.8g,%.8g,%.8g,%.8g,%.8g\n",
                tvds_method_name(e->method), tvds_run_status_word(e->status), e->run.steps,
                e->run.dt, e->run.cpu_seconds, e->run.us_per_step, e->cpu_ratio, e->rms, e->peak,
                e->growth, e->rms_diff, e->rms_rel, e->peak_ratio, e->f_dom, e->ln_first,
                e->ln_last, e->ln_min, e->ln_max, e->defl_first, e->defl_last, e->vs_mean);
    }
    if (fclose(fp) != 0) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);

    int drawn = 0;
    if (o->plots) {
        double fmax_spec = o->fmax_plot > 0.0 ? o->fmax_plot : 2.0 * o->f_cea;
        int rc = draw_figures(m, outdir, res, fmax_spec, &drawn, ctx);
        if (rc) return rc;
    }

    snprintf(path, sizeof path, "%s/report.md", outdir);
    fp = fopen(path, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", path);
    const tvds_compare_entry *ref = res->ref >= 0 ? &res->e[res->ref] : NULL;
    fprintf(fp, "# Contact methods compared: %s\n\n", m->name);
    fprintf(fp,
            "Written by `tvds compare` (docs/squeal.md explains every number). Same model, same "
            "step, methods run one after the other in one process.\n\n");
    fprintf(fp, "- case: `%s`\n", m->case_path ? m->case_path : m->name);
    if (res->n > 0)
        fprintf(fp, "- step h = %.6g s, t_end = %.6g s, output every %.6g s\n", res->e[0].run.dt,
                m->opt.t_end, m->opt.out_dt);
    fprintf(
        fp,
        "- metric window [%.6g, %.6g] s (default: from the end of the damping schedule to t_end)\n",
        res->t0, res->t1);
    fprintf(fp, "- compared channel: `%s`; contact: `%s`\n", res->accel,
            res->contact[0] ? res->contact : "none");
    if (res->f_cea > 0.0) {
        fprintf(fp, "- CEA: unstable branch at %.6g Hz", res->f_cea);
        if (res->s_cea1 >= res->s_cea0)
            fprintf(fp, " for s in [%.6g, %.6g] mm", 1e3 * res->s_cea0, 1e3 * res->s_cea1);
        fprintf(fp, "\n");
    }
    fprintf(fp, "\n## CPU time\n\n");
    fprintf(fp, "CPU time of the stepping loop (setup and output writing excluded).\n\n");
    fprintf(fp,
            "| method | status | steps | CPU [s] | µs/step | tvds ratio to FiLm | paper ratio |\n");
    fprintf(fp, "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        char r1[32];
        fmt_num(r1, sizeof r1, "%.1f %%", 100.0 * e->cpu_ratio);
        fprintf(fp, "| %s | %s | %ld | %.3f | %.3f | %s | %.0f %% |\n", tvds_method_name(e->method),
                tvds_run_status_word(e->status), e->run.steps, e->run.cpu_seconds,
                e->run.us_per_step, r1, 100.0 * paper_cpu(e->method));
    }
    fprintf(fp, "\nThe paper's FiLm run took 4 h 15 min 51 s on a 3.5 GHz desktop.\n");

    fprintf(fp, "\n## Acceleration against FiLm (window)\n\n");
    fprintf(fp, "| method | RMS [m/s²] | peak [m/s²] | growth | dominant f [Hz] | RMS diff [m/s²] "
                "| RMS diff / RMS FiLm | burst peak ratio |\n");
    fprintf(fp, "|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        char b[7][32];
        fmt_num(b[0], 32, "%.4g", e->rms);
        fmt_num(b[1], 32, "%.4g", e->peak);
        fmt_num(b[2], 32, "%.3g", e->growth);
        fmt_num(b[3], 32, "%.1f", e->f_dom);
        fmt_num(b[4], 32, "%.4g", e->rms_diff);
        fmt_num(b[5], 32, "%.3f", e->rms_rel);
        fmt_num(b[6], 32, "%.3f", e->peak_ratio);
        fprintf(fp, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", tvds_method_name(e->method),
                b[0], b[1], b[2], b[3], b[4], b[5], b[6]);
    }
    fprintf(fp,
            "\ngrowth = largest RMS of the 20 equal frames of the window / RMS of the first "
            "frame (a burst grew out of the settled state when > %g); burst peak ratio = "
            "peak / FiLm's peak.\n",
            BURST_GROWTH);
    if (res->f_cea > 0.0) {
        fprintf(fp, "\nDominant frequency against the CEA's %.1f Hz:", res->f_cea);
        for (int i = 0; i < res->n; i++)
            if (isfinite(res->e[i].f_dom))
                fprintf(fp, " %s %+.2f %%%s", tvds_method_name(res->e[i].method),
                        100.0 * (res->e[i].f_dom - res->f_cea) / res->f_cea,
                        i + 1 < res->n ? "," : ".");
        fprintf(fp, "\n");
    }
    if (res->contact[0]) {
        fprintf(fp, "\n## Contact `%s`\n\n", res->contact);
        fprintf(fp, "Means over the first and last 10 %% of the window.\n\n");
        fprintf(fp,
                "| method | λ_N first [N] | λ_N last [N] | change | λ_N min…max [N] | "
                "%s first [mm] | %s last [mm] | mean v_slide [mm/s] |\n",
                res->deflect[0] ? res->deflect : "deflection",
                res->deflect[0] ? res->deflect : "deflection");
        fprintf(fp, "|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < res->n; i++) {
            const tvds_compare_entry *e = &res->e[i];
            char b[7][32];
            fmt_num(b[0], 32, "%.5g", e->ln_first);
            fmt_num(b[1], 32, "%.5g", e->ln_last);
            fmt_num(b[2], 32, "%+.2f %%", 100.0 * (e->ln_last - e->ln_first) / fabs(e->ln_first));
            fmt_num(b[3], 32, "%.4g", 1e3 * e->defl_first);
            fmt_num(b[4], 32, "%.4g", 1e3 * e->defl_last);
            fmt_num(b[5], 32, "%.4g", 1e3 * e->vs_mean);
            char mm[64];
            if (isfinite(e->ln_min))
                snprintf(mm, sizeof mm, "%.4g … %.4g", e->ln_min, e->ln_max);
            else
                snprintf(mm, sizeof mm, "–");
            fprintf(fp, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", tvds_method_name(e->method),
                    b[0], b[1], b[2], mm, b[3], b[4], b[5]);
        }
    }

    /* The paper's findings, one by one. */
    fprintf(fp, "\n## The paper's findings against tvds\n\n");
    const tvds_compare_entry *ea = NULL, *eb = NULL, *ec = NULL;
    for (int i = 0; i < res->n; i++) {
        if (res->e[i].method == TVDS_METHOD_SUBS_A) ea = &res->e[i];
        if (res->e[i].method == TVDS_METHOD_SUBS_B) eb = &res->e[i];
        if (res->e[i].method == TVDS_METHOD_SUBS_C) ec = &res->e[i];
    }
    int film_burst = ref && isfinite(ref->growth) && ref->growth > BURST_GROWTH;
    if (!ref) {
        fprintf(fp, "FiLm was not run: no finding can be checked.\n");
    } else {
        fprintf(fp, "FiLm %s in the window (growth %.3g, threshold %g)%s\n\n",
                film_burst ? "shows friction-induced bursts" : "shows **no** burst", ref->growth,
                BURST_GROWTH,
                film_burst ? "."
                           : ": the findings below about bursts cannot be confirmed on "
                             "this run; lengthen it or move it onto an unstable window.");
        fprintf(fp, "| paper | tvds | numbers |\n|---|---|---|\n");
        char num[512];
        /* Subs-a misses the bursts. */
        int nb = film_burst ? 0 : F_NO_BURST;
        if (ea && ea->status == TVDS_OK) {
            int missed = !(ea->peak_ratio >= DETECT_RATIO) || !(ea->growth > BURST_GROWTH);
            snprintf(num, sizeof num,
                     "peak ratio %.3g, growth %.3g (FiLm %.3g), RMS diff %.3g of FiLm's RMS",
                     ea->peak_ratio, ea->growth, ref->growth, ea->rms_rel);
            finding(fp, "Subs-a misses the friction-induced bursts", nb ? nb : missed, num);
        } else {
            finding(fp, "Subs-a misses the friction-induced bursts", F_NOT_RUN, "–");
        }
        /* Subs-b matches FiLm (bursts or not). */
        if (eb && eb->status == TVDS_OK) {
            double fr = fabs(eb->f_dom - ref->f_dom) / ref->f_dom;
            int match = eb->peak_ratio >= 1.0 / MATCH_RATIO && eb->peak_ratio <= MATCH_RATIO &&
                        fr <= MATCH_FREQ;
            snprintf(num, sizeof num,
                     "peak ratio %.4g, dominant f %.1f vs %.1f Hz (%.2f %%), RMS diff %.3g of "
                     "FiLm's RMS",
                     eb->peak_ratio, eb->f_dom, ref->f_dom, 100.0 * fr, eb->rms_rel);
            finding(fp, "Subs-b matches FiLm", match, num);
        } else {
            finding(fp, "Subs-b matches FiLm", F_NOT_RUN, "–");
        }
        /* Subs-c detects the bursts, overestimates them, normal force does not decrease. */
        if (ec && ec->status == TVDS_OK) {
            int det = ec->peak_ratio >= DETECT_RATIO && ec->growth > BURST_GROWTH;
            snprintf(num, sizeof num,
                     "peak ratio %.3g, growth %.3g (FiLm %.3g), RMS diff %.3g of "
                     "FiLm's RMS",
                     ec->peak_ratio, ec->growth, ref->growth, ec->rms_rel);
            finding(fp, "Subs-c detects the bursts", nb ? nb : det, num);
            finding(fp, "Subs-c overestimates the burst amplitude",
                    nb ? nb : ec->peak_ratio > MATCH_RATIO, num);
            double chc = (ec->ln_last - ec->ln_first) / fabs(ec->ln_first);
            double chb = eb ? (eb->ln_last - eb->ln_first) / fabs(eb->ln_first) : NAN;
            snprintf(num, sizeof num,
                     "λ_N change over the window: Subs-c %+.3g %%, Subs-b %+.3g %%; deflection "
                     "%.4g → %.4g mm",
                     100.0 * chc, 100.0 * chb, 1e3 * ec->defl_first, 1e3 * ec->defl_last);
            /* Subs-b's normal force must decrease and Subs-c's by less than a tenth of it. */
            int v = !isfinite(chc) || !isfinite(chb)       ? F_NOT_RUN
                    : chb < 0.0 && chc > LN_FRACTION * chb ? F_AGREES
                                                           : F_DISAGREES;
            finding(fp,
                    "Subs-c's normal force does not decrease with the deflection (Subs-b's does)",
                    v, num);
        } else {
            finding(fp, "Subs-c detects the bursts but overestimates them", F_NOT_RUN, "–");
        }
        double cb = eb ? eb->cpu_ratio : NAN;
        int len = snprintf(num, sizeof num, "tvds, of FiLm's CPU time:");
        for (int i = 0; i < res->n && len > 0 && (size_t)len < sizeof num; i++)
            if (i != res->ref)
                len += snprintf(num + len, sizeof num - (size_t)len, " %s %.1f %%",
                                tvds_method_name(res->e[i].method), 100.0 * res->e[i].cpu_ratio);
        finding(fp, "Subs-b is cheaper than FiLm (74 %)", isfinite(cb) ? cb < 1.0 : F_NOT_RUN, num);
        fprintf(fp,
                "\nThresholds: burst growth > %g; detects: peak ratio ≥ %g; matches: peak ratio "
                "within [%.2f, %.2f] and dominant frequency within %.0f %%; overestimates: peak "
                "ratio > %.2f; normal force: Subs-b's decreases over the window and Subs-c's "
                "decreases by less than %g times as much.\n",
                BURST_GROWTH, DETECT_RATIO, 1.0 / MATCH_RATIO, MATCH_RATIO, 100.0 * MATCH_FREQ,
                MATCH_RATIO, LN_FRACTION);
    }
    fprintf(fp, "\n## Figures\n\n");
    if (drawn) {
        for (int i = 0; i < res->n; i++)
            fprintf(fp, "![%s](accel_%s.png)\n\n", tvds_method_name(res->e[i].method),
                    tvds_method_name(res->e[i].method));
        fprintf(fp, "![spectrograms](spectrograms.png)\n\n![contact](contact.png)\n");
    } else {
        fprintf(fp, "Not drawn (gnuplot missing or plots disabled). The data are in "
                    "`<method>/history.csv`, `<method>/contacts.csv` and "
                    "`<method>/spectrogram.csv`.\n");
    }
    fprintf(fp, "\nPer-method outputs: `<method>/summary.json`, `history.csv`, `contacts.csv`, "
                "`energy.csv`. Machine-readable metrics: `metrics.csv`.\n");
    if (fclose(fp) != 0) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    return TVDS_OK;
}

/* ---- Driver --------------------------------------------------------------------------------- */

/* Remove what an earlier compare wrote into outdir: the report, metrics and figures, and in
 * each method's folder (all methods, not only this run's: a re-run with fewer methods must not
 * leave the others behind) the run's files; the folder goes when nothing else is in it. Only
 * names tvds writes are touched: a user's own files, and folders holding them, stay. */
static int clear_previous(tvds_outdir *od, const char *outdir, tvds_ctx *ctx)
{
    static const char *const top[] = {"report.md",      "report.md.tmp",   "metrics.csv",
                                      "spectrograms.png", "spectrograms.gp", "contact.png",
                                      "contact.gp"};
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
    int n = opts_methods(o, meth);
    for (int i = 0; i < n; i++) {
        if (!tvds_method_name(meth[i]))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: unknown method %d", meth[i]);
        for (int j = 0; j < i; j++)
            if (meth[j] == meth[i])
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: method %s given twice",
                                  tvds_method_name(meth[i]));
    }
    int rc = setup_names(m, o, res, ctx);
    if (rc) return rc;
    if ((rc = tvds_mkdir_p(outdir, ctx))) return rc;
    res->n = n;
    for (int i = 0; i < n; i++) {
        if (o->stop && *o->stop)
            return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "compare: interrupted");
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
        tvds_ctx rctx;
        tvds_ctx_init(&rctx);
        res->e[i].method = meth[i];
        res->e[i].status = tvds_run(&mm, dir, &ro, &rctx);
        if (res->e[i].status == TVDS_ERR_INTERRUPTED)
            return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "compare: interrupted during %s",
                              tvds_method_name(meth[i]));
        if (res->e[i].status == TVDS_ERR_NOMEM || res->e[i].status == TVDS_ERR_IO ||
            res->e[i].status == TVDS_ERR_WRITE || res->e[i].status == TVDS_ERR_BUSY ||
            res->e[i].status == TVDS_ERR_INVALID || res->e[i].status == TVDS_ERR_UNSTABLE_DT)
            return tvds_error_at(ctx, rctx.status, rctx.src_file, rctx.src_line, "%s: %s",
                                 tvds_method_name(meth[i]), rctx.msg);
    }
    if ((rc = tvds_compare_analyse(m, outdir, o, res, ctx))) return rc;
    return tvds_compare_report(m, outdir, o, res, ctx);
}
