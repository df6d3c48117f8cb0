/* compare.c — contact methods side by side: sequential runs, agreement metrics against FiLm,
 * the Markdown report and its figures (include/tvds/tvds_compare.h, docs/squeal.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fftw3.h>

#include "engine/contact/face.h"
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
/* Band-envelope metrics (docs/burst-metrics.md). */
#define BAND_REL   0.05    /* default -3 dB half-width of the band / branch frequency */
#define MASK_TAUS  4.0     /* default masked half-span around a node crossing, in kernel widths */
#define BAND_BURST 1.5     /* FiLm's band growth above which the window shows a burst */
#define DETECT_LOG 0.5     /* detects: ln G at least this part of FiLm's ln G */
#define KICK_FMIN  15000.0 /* lower edge of the band of the node-crossing kicks [Hz] */
#define KICK_NEAR  1e-3    /* half-span around a crossing searched for its kick [s] */
#define KICK_FAR   3e-3    /* quiet samples: farther than this from every crossing [s] */

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

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

/* ---- Band envelope and growth across a window (docs/burst-metrics.md) ---------------------- */

int tvds_band_envelope(const double *x, long n, double dt, double fc, double half_hz, double *env,
                       tvds_ctx *ctx)
{
    if (!x || !env || n < 8 || !(dt > 0.0) || !(fc > 0.0) || !(half_hz > 0.0) ||
        !(fc + half_hz <= 0.5 / dt))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "band envelope: need >= 8 samples, dt > 0 and 0 < fc - hw < fc + hw <= "
                          "Nyquist (fc %g Hz, half-width %g Hz, Nyquist %g Hz)",
                          fc, half_hz, dt > 0.0 ? 0.5 / dt : 0.0);
    /* Gaussian band: H(f) = exp(-(f - fc)^2 / (2 sf^2)) is -3 dB at fc +- half_hz; its impulse
     * response is a Gaussian of standard deviation tau = 1 / (2 pi sf) in time. Zero padding by
     * 8 tau keeps the circular convolution from wrapping the end of the record onto its start
     * (the kernel is below 1e-13 of its peak beyond 8 tau). */
    double sf = half_hz / sqrt(log(2.0));
    double tau = 1.0 / (2.0 * CMP_PI * sf);
    long pad = (long)ceil(8.0 * tau / dt) + 1;
    long nfft = 1;
    while (nfft < n + pad)
        nfft *= 2;
    double *buf = tvds_calloc((size_t)nfft, sizeof *buf);
    fftw_complex *spec = tvds_malloc((size_t)(nfft / 2 + 1) * sizeof *spec);
    fftw_complex *z = tvds_malloc((size_t)nfft * sizeof *z);
    if (!buf || !spec || !z) {
        tvds_free(buf);
        tvds_free(spec);
        tvds_free(z);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "band envelope: out of memory");
    }
    fftw_plan fwd, inv;
#pragma omp critical(tvds_fftw_planner)
    {
        fwd = fftw_plan_dft_r2c_1d((int)nfft, buf, spec, FFTW_ESTIMATE);
        inv = fftw_plan_dft_1d((int)nfft, z, z, FFTW_BACKWARD, FFTW_ESTIMATE);
    }
    int rc = TVDS_OK;
    if (!fwd || !inv) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "band envelope: FFTW planning failed");
        goto done;
    }
    double mean = 0.0;
    for (long i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (long i = 0; i < n; i++)
        buf[i] = x[i] - mean;
    fftw_execute(fwd);
    /* Analytic signal of the band-passed record: positive frequencies doubled, negative ones
     * dropped; FFTW's transforms are unnormalised, hence the 1 / nfft. */
    double df = 1.0 / ((double)nfft * dt), scale = 1.0 / (double)nfft;
    for (long k = 0; k < nfft; k++)
        z[k][0] = z[k][1] = 0.0;
    for (long k = 1; k <= nfft / 2; k++) {
        double u = ((double)k * df - fc) / sf;
        double h = (k == nfft / 2 ? 1.0 : 2.0) * exp(-0.5 * u * u) * scale;
        z[k][0] = h * spec[k][0];
        z[k][1] = h * spec[k][1];
    }
    fftw_execute(inv);
    for (long i = 0; i < n; i++)
        env[i] = hypot(z[i][0], z[i][1]);
done :
#pragma omp critical(tvds_fftw_planner)
{
    if (fwd) fftw_destroy_plan(fwd);
    if (inv) fftw_destroy_plan(inv);
}
    tvds_free(buf);
    tvds_free(spec);
    tvds_free(z);
    return rc;
}

/* Envelope at time tc: exp of the least-squares line through ln(env) over the unmasked samples
 * in [tc - span, tc], evaluated at tc. One-sided, so that the entry is read on the settled
 * state before the window and the exit on the growth inside it, not across the corner of ln E
 * there; exact for an exponential envelope; the fit averages the beats of the band's content.
 * NaN with fewer than 3 such samples. */
static double envelope_fit(const double *t, const double *env, const unsigned char *mask, long n,
                           double tc, double span, double *rms)
{
    if (rms) *rms = NAN;
    if (n < 2 || tc < t[0] || tc > t[n - 1]) return NAN;
    long lo = 0, hi = n - 1; /* t[lo] <= tc <= t[hi], hi = lo + 1 at the end */
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (t[mid] <= tc)
            lo = mid;
        else
            hi = mid;
    }
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, y0 = 0.0, y1 = 0.0, yy = 0.0;
    for (long k = lo; k >= 0 && t[k] >= tc - span; k--) {
        if ((mask && mask[k]) || !(env[k] > 0.0)) continue;
        double u = t[k] - tc, y = log(env[k]);
        s0 += 1.0;
        s1 += u;
        s2 += u * u;
        y0 += y;
        y1 += u * y;
        yy += y * y;
    }
    double det = s0 * s2 - s1 * s1;
    if (s0 < 3.0 || !(det > 0.0)) return NAN;
    double a = (s2 * y0 - s1 * y1) / det, b = (s0 * y1 - s1 * y0) / det;
    if (rms) {
        /* residual sum of squares of the line: sum (y - a - b u)^2 */
        double r2 = yy - 2.0 * a * y0 - 2.0 * b * y1 + a * a * s0 + 2.0 * a * b * s1 + b * b * s2;
        *rms = sqrt(r2 > 0.0 ? r2 / s0 : 0.0);
    }
    return exp(a); /* intercept at u = 0 */
}

static double envelope_at(const double *t, const double *env, const unsigned char *mask, long n,
                          double tc, double span)
{
    return envelope_fit(t, env, mask, n, tc, span, NULL);
}

void tvds_envelope_window_growth(const double *t, const double *env, const unsigned char *mask,
                                 long n, double t0, double t1, double span, double after,
                                 double *exit_ratio, double *peak_ratio)
{
    if (exit_ratio) *exit_ratio = NAN;
    if (peak_ratio) *peak_ratio = NAN;
    if (!t || !env || n < 3 || !(t1 > t0)) return;
    double e0 = envelope_at(t, env, mask, n, t0, span);
    if (!(e0 > 0.0)) return;
    if (exit_ratio) *exit_ratio = envelope_at(t, env, mask, n, t1, span) / e0;
    if (peak_ratio) {
        double best = -1.0;
        for (long k = 0; k < n && t[k] <= t1 + after; k++)
            if (t[k] >= t0 && (!mask || !mask[k]) && env[k] > best) best = env[k];
        if (best >= 0.0) *peak_ratio = best / e0;
    }
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

/* Unstable windows from the options (or the one-window shorthand f_cea, s_cea0, s_cea1). Times
 * that are not finite are found later from the contact's position channel, except on a face set
 * (faces: the reported contact's master is one), whose position channel holds natural
 * coordinates: there a window needs its times, a position along a face set being no path
 * abscissa (docs/burst-metrics.md, "Window times"). */
static int setup_windows(const tvds_compare_opts *o, int faces, tvds_compare_result *res,
                         tvds_ctx *ctx)
{
    res->nwindows = 0;
    res->mask_half = o->mask_half;
    double rel = o->band_rel > 0.0 ? o->band_rel : BAND_REL;
    if (!(rel < 0.5))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: band half-width %g of f is too wide",
                          rel);
    if (o->nwindows > 0) {
        if (!o->windows || o->nwindows > TVDS_COMPARE_MAX_WINDOWS)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "compare: %d windows given (at most %d, array required)", o->nwindows,
                              TVDS_COMPARE_MAX_WINDOWS);
        for (int w = 0; w < o->nwindows; w++) {
            const tvds_growth_window *g = &o->windows[w];
            if (!(g->f_hz > 0.0))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "compare: window %d: frequency %g Hz is not positive", w + 1,
                                  g->f_hz);
            if (isfinite(g->t0) && isfinite(g->t1) && !(g->t1 > g->t0))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "compare: window %d: exit time %g s not after entry %g s", w + 1,
                                  g->t1, g->t0);
            if (!(isfinite(g->t0) && isfinite(g->t1)) && !(g->s1 > g->s0))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "compare: window %d: neither times nor positions given", w + 1);
            res->windows[w] = *g;
        }
        res->nwindows = o->nwindows;
    } else if (o->f_cea > 0.0) {
        tvds_growth_window *g = &res->windows[0];
        g->branch = -1;
        g->f_hz = o->f_cea;
        g->s0 = o->s_cea0;
        g->s1 = o->s_cea1;
        g->t0 = g->t1 = NAN;
        if (!(o->s_cea1 > o->s_cea0)) { /* no positions: the metric window */
            g->t0 = res->t0;
            g->t1 = res->t1;
        }
        g->growth_pred = NAN;
        res->nwindows = 1;
    }
    for (int w = 0; w < res->nwindows; w++) {
        const tvds_growth_window *g = &res->windows[w];
        if (faces && !(isfinite(g->t0) && isfinite(g->t1)))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "compare: window %d (s = %.6g ... %.6g mm) is given by position "
                              "only: on a face-set master a position is no path abscissa (tvds "
                              "cea counts the slave's travel from its placement, tvds study --3d "
                              "x_C - 1 mm), so the run gives no times for it; give its entry and "
                              "exit times",
                              w + 1, 1e3 * g->s0, 1e3 * g->s1);
        res->band_half[w] = rel * g->f_hz;
        res->ncross_window[w] = 0;
    }
    return TVDS_OK;
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
        res->nslave = c->nslave;
        res->nnode = c->nslave > 1 ? c->nslave : 0;
        if (res->nnode > TVDS_COMPARE_MAX_NODES) res->nnode = TVDS_COMPARE_MAX_NODES;
        for (int k = 0; k < res->nnode; k++)
            res->node[k] = c->slave_nodes[k];
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
    int faces = m->ncontact > 0 && m->contacts[o->contact].master_kind == TVDS_MASTER_FACES;
    return setup_windows(o, faces, res, ctx);
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

/* Kernel width tau = 1 / (2 pi sf) of the band of window w (tvds_band_envelope). */
static double band_tau(const tvds_compare_result *res, int w)
{
    double sf = res->band_half[w] / sqrt(log(2.0));
    return 1.0 / (2.0 * CMP_PI * sf);
}

static double window_mask_half(const tvds_compare_result *res, int w)
{
    if (res->mask_half < 0.0) return 0.0;
    return res->mask_half > 0.0 ? res->mask_half : MASK_TAUS * band_tau(res, w);
}

double tvds_compare_mask_half(double f_hz, double band_rel)
{
    if (!(f_hz > 0.0)) return 0.0;
    double sf = (band_rel > 0.0 ? band_rel : BAND_REL) * f_hz / sqrt(log(2.0));
    return MASK_TAUS / (2.0 * CMP_PI * sf);
}

double tvds_compare_window_node(const tvds_cea_window *w, const double *S, int ns, double v,
                                double band_rel, double ds_extra)
{
    if (!w || !S || ns < 1) return NAN;
    double lo = w->s_in < w->s_out ? w->s_in : w->s_out;
    double hi = w->s_in < w->s_out ? w->s_out : w->s_in;
    double margin = fabs(v) * tvds_compare_mask_half(w->f_peak, band_rel) + fabs(ds_extra);
    for (int k = 0; k < ns; k++)
        if (S[k] >= lo - margin && S[k] <= hi + margin) return S[k];
    return NAN;
}

int tvds_compare_clean_window(const tvds_cea_result *r, const double *S, int ns, double v,
                              double band_rel, double ds_extra)
{
    int best = -1;
    for (int w = 0; r && w < r->nwin; w++)
        if (isfinite(r->win[w].growth_pred) &&
            isnan(tvds_compare_window_node(&r->win[w], S, ns, v, band_rel, ds_extra)) &&
            (best < 0 || r->win[w].growth_pred > r->win[best].growth_pred))
            best = w;
    return best;
}

int tvds_compare_master_abscissae(const tvds_model *m, int ic, double **S, int *ns, tvds_ctx *ctx)
{
    *S = NULL;
    *ns = 0;
    if (ic < 0 || ic >= m->ncontact) return TVDS_OK;
    const tvds_contact *c = &m->contacts[ic];
    if (c->master_kind == TVDS_MASTER_RIGID || c->dim != 2 || c->master_sub < 0 ||
        c->master_sub >= m->nsub || c->nmaster < 2)
        return TVDS_OK;
    const tvds_substructure *sub = m->subs[c->master_sub];
    double *a = tvds_malloc((size_t)c->nmaster * sizeof *a);
    if (!a) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    double prev[2] = {0.0, 0.0}, L = 0.0;
    for (int k = 0; k < c->nmaster; k++) {
        int d = tvds_substructure_find_dof(sub, c->master_nodes[k], TVDS_DIR_X);
        if (d < 0) d = tvds_substructure_find_dof(sub, c->master_nodes[k], TVDS_DIR_Y);
        if (d < 0) {
            tvds_free(a);
            return TVDS_OK; /* no coordinates: nothing to mask */
        }
        if (k) L += hypot(sub->dofs[d].xyz[0] - prev[0], sub->dofs[d].xyz[1] - prev[1]);
        prev[0] = sub->dofs[d].xyz[0];
        prev[1] = sub->dofs[d].xyz[1];
        a[k] = L;
    }
    *S = a;
    *ns = c->nmaster;
    return TVDS_OK;
}

/* Append t to the growing array *out (*cnt used of *cap). */
static int push_time(double **out, long *cnt, long *cap, double t)
{
    if (*cnt == *cap) {
        double *nw = tvds_malloc((size_t)(2 * *cap) * sizeof *nw);
        if (!nw) return TVDS_ERR_NOMEM;
        memcpy(nw, *out, (size_t)*cnt * sizeof *nw);
        tvds_free(*out);
        *out = nw;
        *cap *= 2;
    }
    (*out)[(*cnt)++] = t;
    return TVDS_OK;
}

/* Times at which the position s(t) passes a master-node abscissa (linear interpolation between
 * samples): *tc (owned by the caller), *nc. */
static int node_crossings(const cmp_signal *s, const double *S, int ns, double **tc, long *nc,
                          tvds_ctx *ctx)
{
    *tc = NULL;
    *nc = 0;
    if (!S || ns < 1 || s->n < 2) return TVDS_OK;
    long cap = 64, cnt = 0;
    double *out = tvds_malloc((size_t)cap * sizeof *out);
    if (!out) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    for (long k = 0; k + 1 < s->n; k++) {
        double a = s->x[k], b = s->x[k + 1];
        if (!isfinite(a) || !isfinite(b) || a == b) continue;
        double lo = a < b ? a : b, hi = a < b ? b : a;
        /* abscissae in (lo, hi]: first index with S > lo */
        int j0 = 0, j1 = ns;
        while (j0 < j1) {
            int mid = (j0 + j1) / 2;
            if (S[mid] > lo)
                j1 = mid;
            else
                j0 = mid + 1;
        }
        for (int j = j0; j < ns && S[j] <= hi; j++)
            if (push_time(&out, &cnt, &cap,
                          s->t[k] + (S[j] - a) / (b - a) * (s->t[k + 1] - s->t[k]))) {
                tvds_free(out);
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
            }
    }
    *tc = out;
    *nc = cnt;
    return TVDS_OK;
}

/* Depth of the natural coordinates (a, b) inside a face of nn nodes, in units of the
 * reference triangle's leg (a quadrilateral's reference side is 2). */
static double face_depth(int nn, double a, double b)
{
    if (face_is_tri(nn)) {
        double d = a < b ? a : b;
        return d < 1.0 - a - b ? d : 1.0 - a - b;
    }
    return 0.5 * (1.0 - (fabs(a) > fabs(b) ? fabs(a) : fabs(b)));
}

/* Face-edge crossings of a face-set contact (docs/burst-metrics.md, "Masks"): the times at
 * which a slave node in contact (state stick or slip at either sample) moves onto another face,
 * from its channels segment (the face), alpha and s (its natural coordinates) in the run's
 * contacts.csv, interpolated between the two samples by the node's depths inside the face it
 * left and the one it entered (exact at constant speed across faces of equal size). Every slave
 * node is followed; crossings of several nodes within one output step count once. Sorted *tc
 * (owned by the caller), *nc. A node without its channels is skipped. */
static int face_crossings(const tvds_model *m, int ic, const char *outdir, const char *meth,
                          double **tc, long *nc, tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    long cap = 64, cnt = 0;
    double *out = tvds_malloc((size_t)cap * sizeof *out), step = INFINITY;
    *tc = NULL;
    *nc = 0;
    if (!out) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    for (int q = 0; q < c->nslave; q++) {
        static const char *const chn[4] = {"segment", "alpha", "s", "state"};
        cmp_signal sg[4];
        memset(sg, 0, sizeof sg);
        int ok = 1;
        for (int j = 0; j < 4 && ok; j++) {
            char ch[160];
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            if (c->nslave > 1)
                snprintf(ch, sizeof ch, "%s.%ld.%s", c->name, c->slave_nodes[q], chn[j]);
            else
                snprintf(ch, sizeof ch, "%s.%s", c->name, chn[j]);
            ok = read_sig(outdir, meth, "contacts.csv", ch, &sg[j], &c2) == TVDS_OK &&
                 sg[j].n == sg[0].n;
        }
        for (long k = 0; ok && k + 1 < sg[0].n; k++) {
            double fa = sg[0].x[k], fb = sg[0].x[k + 1], dt = sg[0].t[k + 1] - sg[0].t[k];
            if (dt > 0.0 && dt < step) step = dt;
            if (!(fa >= 0.0 && fb >= 0.0 && fa < c->nface && fb < c->nface) || fa == fb) continue;
            if (!(sg[3].x[k] > 0.0 || sg[3].x[k + 1] > 0.0)) continue; /* open: no kick */
            double da = face_depth(c->face_nn[(int)fa], sg[1].x[k], sg[2].x[k]);
            double db = face_depth(c->face_nn[(int)fb], sg[1].x[k + 1], sg[2].x[k + 1]);
            double r = da + db > 0.0 ? da / (da + db) : 0.5;
            if (push_time(&out, &cnt, &cap, sg[0].t[k] + r * dt)) ok = -1;
        }
        for (int j = 0; j < 4; j++)
            signal_free(&sg[j]);
        if (ok < 0) {
            tvds_free(out);
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
        }
    }
    qsort(out, (size_t)cnt, sizeof *out, cmp_double);
    long u = 0;
    for (long k = 0; k < cnt; k++)
        if (u == 0 || !(out[k] - out[u - 1] < step)) out[u++] = out[k];
    *tc = out;
    *nc = u;
    return TVDS_OK;
}

/* Entry and exit times of the position window [s0, s1] along s(t): the first passage of the
 * entry end (s0 when s increases over the record, s1 otherwise) and the first passage of the
 * other end after it. NaN when not crossed. */
static void path_times(const cmp_signal *s, double s0, double s1, double *t0, double *t1)
{
    *t0 = *t1 = NAN;
    if (s->n < 2) return;
    int up = s->x[s->n - 1] >= s->x[0];
    double se = up ? s0 : s1, sx = up ? s1 : s0;
    long k = 0;
    for (; k + 1 < s->n; k++) {
        double a = s->x[k], b = s->x[k + 1];
        if ((a - se) * (b - se) <= 0.0 && a != b) {
            *t0 = s->t[k] + (se - a) / (b - a) * (s->t[k + 1] - s->t[k]);
            break;
        }
    }
    for (; k + 1 < s->n && isfinite(*t0); k++) {
        double a = s->x[k], b = s->x[k + 1];
        if ((a - sx) * (b - sx) <= 0.0 && a != b) {
            *t1 = s->t[k] + (sx - a) / (b - a) * (s->t[k + 1] - s->t[k]);
            break;
        }
    }
}

/* Node-crossing kicks: the envelope of x in the band from KICK_FMIN to 0.98 Nyquist (Gaussian
 * band, tvds_band_envelope); for each crossing in [t0, t1] its largest value within
 * +-KICK_NEAR of the crossing over the median of the quiet samples of [t0, t1] (farther than
 * KICK_FAR from every crossing). *ratio: geometric mean over the crossings; *level: the quiet
 * median. NaN when the band does not fit below Nyquist or nothing to measure. env: n scratch. */
static int kick_metric(const double *t, const double *x, long n, double dt, const double *tc,
                       long nc, double t0, double t1, double *env, double *ratio, double *level,
                       tvds_ctx *ctx)
{
    *ratio = *level = NAN;
    double fhi = 0.98 * 0.5 / dt;
    if (!(fhi > KICK_FMIN)) return TVDS_OK;
    tvds_ctx c2;
    tvds_ctx_init(&c2);
    if (tvds_band_envelope(x, n, dt, 0.5 * (KICK_FMIN + fhi), 0.5 * (fhi - KICK_FMIN), env, &c2))
        return TVDS_OK; /* record too short */
    double *q = tvds_malloc((size_t)n * sizeof *q);
    if (!q) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    long nq = 0, j = 0;
    for (long k = 0; k < n; k++) {
        if (t[k] < t0 || t[k] > t1) continue;
        while (j + 1 < nc && tc[j + 1] <= t[k])
            j++; /* tc[j] is the last crossing at or before t[k] (or the first) */
        double dmin = fabs(t[k] - tc[j]);
        if (j + 1 < nc && fabs(tc[j + 1] - t[k]) < dmin) dmin = fabs(tc[j + 1] - t[k]);
        if (dmin > KICK_FAR) q[nq++] = env[k];
    }
    if (nq > 0) {
        qsort(q, (size_t)nq, sizeof *q, cmp_double);
        *level = q[nq / 2];
    }
    tvds_free(q);
    if (!(*level > 0.0)) return TVDS_OK;
    double slog = 0.0;
    int cnt = 0;
    for (long c = 0; c < nc; c++) {
        if (tc[c] < t0 || tc[c] > t1) continue;
        long k0 = (long)floor((tc[c] - KICK_NEAR - t[0]) / dt);
        long k1 = (long)ceil((tc[c] + KICK_NEAR - t[0]) / dt);
        if (k0 < 0) k0 = 0;
        if (k1 > n - 1) k1 = n - 1;
        double pk = 0.0;
        for (long k = k0; k <= k1; k++)
            if (env[k] > pk) pk = env[k];
        if (pk > 0.0) {
            slog += log(pk / *level);
            cnt++;
        }
    }
    if (cnt > 0) *ratio = exp(slog / cnt);
    return TVDS_OK;
}

/* Band envelopes of one method's acceleration for every window: growths into e, and
 * outdir/<method>/envelope.csv (t, then per window the envelope and its mask). */
static int band_growths(const char *outdir, const char *mname, const cmp_signal *a,
                        const double *tc, long nc, tvds_compare_result *res, tvds_compare_entry *e,
                        tvds_ctx *ctx)
{
    int nw = res->nwindows;
    if (a->n < 8 || (nw == 0 && nc == 0)) return TVDS_OK;
    long n = a->n;
    double dt;
    int resampled;
    double *x = tvds_malloc((size_t)n * sizeof *x);
    if (!x) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    memcpy(x, a->x, (size_t)n * sizeof *x);
    int rc = tvds_uniform_sampling(a->t, &x, &n, &dt, &resampled, ctx);
    if (rc) {
        tvds_free(x);
        return rc;
    }
    double *t = tvds_malloc((size_t)n * sizeof *t);
    double *env = tvds_malloc((size_t)n * (size_t)(nw > 0 ? nw : 1) * sizeof *env);
    unsigned char *mask = tvds_calloc((size_t)n * (size_t)(nw > 0 ? nw : 1), 1);
    if (!t || !env || !mask) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
        goto done;
    }
    for (long k = 0; k < n; k++)
        t[k] = a->t[0] + (double)k * dt;
    if (nc > 0) {
        rc = kick_metric(t, x, n, dt, tc, nc, res->t0, res->t1, env, &e->kick_ratio, &e->hf_level,
                         ctx);
        if (rc) goto done;
    }
    for (int w = 0; w < nw; w++) {
        const tvds_growth_window *g = &res->windows[w];
        double *ew = env + (size_t)w * (size_t)n;
        unsigned char *mw = mask + (size_t)w * (size_t)n;
        tvds_ctx c2;
        tvds_ctx_init(&c2);
        if (tvds_band_envelope(x, n, dt, g->f_hz, res->band_half[w], ew, &c2) != TVDS_OK) {
            for (long k = 0; k < n; k++)
                ew[k] = NAN;
            continue; /* band above Nyquist or record too short: NaN growth */
        }
        double tau = band_tau(res, w), mh = window_mask_half(res, w);
        /* The record's ends (the kernel is cut there) and the node crossings. */
        for (long k = 0; k < n; k++)
            if (t[k] < t[0] + 4.0 * tau || t[k] > t[n - 1] - 4.0 * tau) mw[k] = 1;
        for (long j = 0; j < nc && mh > 0.0; j++) {
            long k0 = (long)floor((tc[j] - mh - t[0]) / dt),
                 k1 = (long)ceil((tc[j] + mh - t[0]) / dt);
            if (k0 < 0) k0 = 0;
            if (k1 > n - 1) k1 = n - 1;
            for (long k = k0; k <= k1; k++)
                if (fabs(t[k] - tc[j]) <= mh) mw[k] = 1;
        }
        if (isfinite(g->t0) && isfinite(g->t1)) {
            double span = 2.0 * mh > 8.0 * tau ? 2.0 * mh : 8.0 * tau;
            double after = 0.25 * (g->t1 - g->t0) + 4.0 * tau;
            /* A node crossing after the exit kicks the band too (its ring outlasts the mask):
             * the peak is searched only up to the first one. */
            for (long j = 0; j < nc; j++)
                if (tc[j] > g->t1 && tc[j] - mh - g->t1 < after)
                    after = tc[j] - mh - g->t1 > 0.0 ? tc[j] - mh - g->t1 : 0.0;
            tvds_envelope_window_growth(t, ew, mw, n, g->t0, g->t1, span, after, &e->growth_exit[w],
                                        &e->growth_peak[w]);
            double sc;
            envelope_fit(t, ew, mw, n, g->t0, span, &sc);
            e->growth_scatter[w] = exp(sc);
        }
    }
    if (nw > 0) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/envelope.csv", outdir, mname);
        FILE *fp = fopen(path, "w");
        if (!fp) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", path);
            goto done;
        }
        fprintf(fp, "t [s]");
        for (int w = 0; w < nw; w++)
            fprintf(fp, ",band%d %.6g Hz [%s],band%d masked [-]", w + 1, res->windows[w].f_hz,
                    "m/s^2", w + 1);
        fprintf(fp, "\n");
        for (long k = 0; k < n; k++) {
            fprintf(fp, "%.9g", t[k]);
            for (int w = 0; w < nw; w++)
                fprintf(fp, ",%.6g,%d", env[(size_t)w * (size_t)n + (size_t)k],
                        mask[(size_t)w * (size_t)n + (size_t)k]);
            fprintf(fp, "\n");
        }
        if (fclose(fp) != 0) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    }
done:
    tvds_free(x);
    tvds_free(t);
    tvds_free(env);
    tvds_free(mask);
    return rc;
}

/* Per slave node of a contact of several nodes (res->node[]) over the metric window: share of
 * the samples in contact (state stick or slip), mean lambda_N and mean v_slide of method mname's
 * contacts.csv into e; NaN where a node's channel is missing. */
static void node_stats(const tvds_model *m, const char *outdir, const char *mname, int ic,
                       const tvds_compare_result *res, tvds_compare_entry *e)
{
    static const char *const chn[3] = {"state", "lambda_n", "v_slide"};
    for (int k = 0; k < res->nnode; k++) {
        double *out[3] = {&e->node_contact[k], &e->node_ln_mean[k], &e->node_vs_mean[k]};
        for (int j = 0; j < 3; j++) {
            char ch[160];
            cmp_signal sg = {0};
            tvds_ctx c2;
            tvds_ctx_init(&c2);
            *out[j] = NAN;
            snprintf(ch, sizeof ch, "%s.%ld.%s", m->contacts[ic].name, res->node[k], chn[j]);
            if (read_sig(outdir, mname, "contacts.csv", ch, &sg, &c2) == TVDS_OK) {
                long a0, a1;
                window_range(&sg, res->t0, res->t1, &a0, &a1);
                if (j == 0 && a1 > a0) {
                    long in = 0;
                    for (long i = a0; i < a1; i++)
                        in += sg.x[i] > 0.0;
                    *out[j] = (double)in / (double)(a1 - a0);
                } else if (a1 > a0)
                    *out[j] = mean_range(sg.x, a0, a1);
            }
            signal_free(&sg);
        }
    }
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
        e->kick_ratio = e->hf_level = e->ln_mean = NAN;
        for (int k = 0; k < TVDS_COMPARE_MAX_NODES; k++)
            e->node_contact[k] = e->node_ln_mean[k] = e->node_vs_mean[k] = NAN;
        for (int w = 0; w < TVDS_COMPARE_MAX_WINDOWS; w++)
            e->growth_exit[w] = e->growth_peak[w] = e->growth_scatter[w] = NAN;
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
    /* Band envelopes across the unstable windows: node crossings (face-edge crossings on a
     * face set) from each run's own contact position, window times (when only positions are
     * given) from the reference run's. */
    if (res->contact[0]) {
        /* A face set's position channel holds natural coordinates, not a path abscissa. */
        int faces = m->contacts[o->contact].master_kind == TVDS_MASTER_FACES;
        double *S = NULL;
        int ns = 0;
        if ((rc = tvds_compare_master_abscissae(m, o->contact, &S, &ns, ctx))) goto done;
        int have_times = 0;
        res->ncross = 0;
        for (int pass = 0; pass < 2 && rc == TVDS_OK; pass++) {
            /* pass 0: the reference run first (window times, crossing count), then the rest */
            for (int ii = 0; ii < res->n; ii++) {
                int i = pass == 0 ? (res->ref >= 0 ? res->ref : 0) : ii;
                if (pass == 0 && ii > 0) break;
                if (pass == 1 && i == (res->ref >= 0 ? res->ref : 0)) continue;
                cmp_signal sp = {0};
                double *tc = NULL;
                long nc = 0;
                if (res->contact[0] && acc[i].n > 0 && !faces) {
                    char ch[128];
                    tvds_ctx c2;
                    tvds_ctx_init(&c2);
                    snprintf(ch, sizeof ch, "%s.s", res->contact);
                    if (read_sig(outdir, tvds_method_name(res->e[i].method), "contacts.csv", ch,
                                 &sp, &c2) != TVDS_OK)
                        signal_free(&sp);
                    /* Samples without a master point (segment -1: before the first contact,
                     * or lifted off) carry s = 0, not a position: a jump from there to the
                     * first contact would count every node in between as crossed. */
                    cmp_signal sg = {0};
                    snprintf(ch, sizeof ch, "%s.segment", res->contact);
                    if (sp.n > 0 &&
                        read_sig(outdir, tvds_method_name(res->e[i].method), "contacts.csv", ch,
                                 &sg, &c2) == TVDS_OK &&
                        sg.n == sp.n) {
                        long k2 = 0;
                        for (long k = 0; k < sp.n; k++)
                            if (sg.x[k] >= 0.0) {
                                sp.t[k2] = sp.t[k];
                                sp.x[k2++] = sp.x[k];
                            }
                        sp.n = k2;
                    }
                    signal_free(&sg);
                }
                if (!have_times) {
                    have_times = 1;
                    for (int w = 0; w < res->nwindows; w++) {
                        tvds_growth_window *g = &res->windows[w];
                        if (!(isfinite(g->t0) && isfinite(g->t1)))
                            path_times(&sp, g->s0, g->s1, &g->t0, &g->t1);
                    }
                }
                if (faces)
                    rc = acc[i].n > 0
                             ? face_crossings(m, o->contact, outdir,
                                              tvds_method_name(res->e[i].method), &tc, &nc, ctx)
                             : TVDS_OK;
                else
                    rc = node_crossings(&sp, S, ns, &tc, &nc, ctx);
                if (rc == TVDS_OK && pass == 0) {
                    res->ncross = (int)nc;
                    for (int w = 0; w < res->nwindows; w++)
                        for (long j = 0; j < nc; j++)
                            if (tc[j] >= res->windows[w].t0 && tc[j] <= res->windows[w].t1)
                                res->ncross_window[w]++;
                }
                if (rc == TVDS_OK)
                    rc = band_growths(outdir, tvds_method_name(res->e[i].method), &acc[i], tc, nc,
                                      res, &res->e[i], ctx);
                tvds_free(tc);
                signal_free(&sp);
                if (rc) break;
            }
        }
        tvds_free(S);
        if (rc) goto done;
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
                    e->ln_mean = mean_range(ln.x, a0, a1);
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
            node_stats(m, outdir, mname, o->contact, res, e);
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

/* growth.csv: one row per window and method, predicted against measured growth. */
static int write_growth_csv(const char *outdir, const tvds_compare_result *res, tvds_ctx *ctx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/growth.csv", outdir);
    FILE *fp = fopen(path, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", path);
    fprintf(fp, "window,branch,f [Hz],band half-width [Hz],s0 [m],s1 [m],t0 [s],t1 [s],"
                "node crossings [-],growth predicted [-],method,growth peak [-],"
                "growth exit [-],entry scatter [-]\n");
    for (int w = 0; w < res->nwindows; w++) {
        const tvds_growth_window *g = &res->windows[w];
        for (int i = 0; i < res->n; i++)
            fprintf(fp, "%d,%d,%.9g,%.6g,%.9g,%.9g,%.9g,%.9g,%d,%.6g,%s,%.6g,%.6g,%.4g\n", w + 1,
                    g->branch, g->f_hz, res->band_half[w], g->s0, g->s1, g->t0, g->t1,
                    res->ncross_window[w], g->growth_pred, tvds_method_name(res->e[i].method),
                    res->e[i].growth_peak[w], res->e[i].growth_exit[w],
                    res->e[i].growth_scatter[w]);
    }
    if (fclose(fp) != 0) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    return TVDS_OK;
}

/* Figure: band envelopes of every method around each window (at most 4 panels). */
static int draw_envelopes(const tvds_model *m, const char *outdir, const tvds_compare_result *res,
                          int *drawn, tvds_ctx *ctx)
{
    *drawn = 0;
    enum { NP = 4 };
    tvds_plot_panel p[NP];
    tvds_plot_series s[NP][TVDS_METHOD_COUNT];
    tvds_plot_refline r[NP][2];
    char file[TVDS_METHOD_COUNT][1024], use[NP][64], title[NP][128], out[1024];
    memset(s, 0, sizeof s);
    memset(r, 0, sizeof r);
    int np = 0;
    for (int i = 0; i < res->n; i++)
        snprintf(file[i], sizeof file[i], "%s/%s/envelope.csv", outdir,
                 tvds_method_name(res->e[i].method));
    for (int w = 0; w < res->nwindows && np < NP; w++) {
        const tvds_growth_window *g = &res->windows[w];
        if (!(isfinite(g->t0) && isfinite(g->t1))) continue;
        /* masked samples as gaps */
        snprintf(use[np], sizeof use[np], "1:($%d>0?1/0:$%d)", 3 + 2 * w, 2 + 2 * w);
        int ns = 0;
        for (int i = 0; i < res->n; i++) {
            FILE *fp = fopen(file[i], "r");
            if (!fp) continue;
            fclose(fp);
            s[np][ns].file = file[i];
            s[np][ns].header_lines = 1;
            s[np][ns].using = use[np];
            s[np][ns].title = tvds_method_name(res->e[i].method);
            s[np][ns].color = method_color(res->e[i].method);
            s[np][ns].line_width = 1.2;
            ns++;
        }
        if (ns == 0) continue;
        double T = g->t1 - g->t0;
        r[np][0] = (tvds_plot_refline){1, g->t0, "entry", "#808080", 1};
        r[np][1] = (tvds_plot_refline){1, g->t1, "exit", "#808080", 1};
        snprintf(title[np], sizeof title[np], "%s: band %.0f +- %.0f Hz, window %d", m->name,
                 g->f_hz, res->band_half[w], w + 1);
        p[np] = tvds_plot_panel_default();
        p[np].title = title[np];
        p[np].xlabel = "t [s]";
        p[np].ylabel = "band envelope [m/s^2]";
        p[np].logy = 1;
        p[np].grid = 1;
        p[np].xmin = g->t0 - T;
        p[np].xmax = g->t1 + T;
        p[np].nseries = ns;
        p[np].series = s[np];
        p[np].nrefs = 2;
        p[np].refs = r[np];
        np++;
    }
    if (np == 0) return TVDS_OK;
    snprintf(out, sizeof out, "%s/envelopes.png", outdir);
    tvds_plot_figure fig = {
        out, 1000, 380 * np + 60, "band envelopes across the unstable windows", np, 1, np, p};
    int rc = tvds_plot_render(&fig, ctx);
    if (rc == TVDS_WARN_NO_GNUPLOT) return TVDS_OK;
    if (rc) return rc;
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

/* The report's table of every slave node of a contact of several nodes: per node and method,
 * the share of the window in contact, mean lambda_N and mean v_slide; per method the sum of the
 * nodes' mean lambda_N (the contact's normal force). */
static void report_nodes(FILE *fp, const char *cname, const tvds_compare_result *res)
{
    fprintf(fp,
            "\nEvery slave node of contact `%s` (%d nodes%s; the table above is node %ld's), over "
            "the window: share of the samples in contact (stick or slip), mean λ_N, mean "
            "v_slide; Σ: the sum of the nodes' mean λ_N.\n\n",
            cname, res->nslave, res->nnode < res->nslave ? ", the first ones listed" : "",
            res->node[0]);
    fprintf(fp, "| node | method | in contact | mean λ_N [N] | mean v_slide [mm/s] |\n");
    fprintf(fp, "|---|---|---|---|---|\n");
    for (int k = 0; k < res->nnode; k++)
        for (int i = 0; i < res->n; i++) {
            const tvds_compare_entry *e = &res->e[i];
            char b[3][32];
            fmt_num(b[0], 32, "%.1f %%", 100.0 * e->node_contact[k]);
            fmt_num(b[1], 32, "%.6g", e->node_ln_mean[k]);
            fmt_num(b[2], 32, "%.4g", 1e3 * e->node_vs_mean[k]);
            fprintf(fp, "| %ld | %s | %s | %s | %s |\n", res->node[k], tvds_method_name(e->method),
                    b[0], b[1], b[2]);
        }
    for (int i = 0; i < res->n; i++) {
        double sum = 0.0;
        for (int k = 0; k < res->nnode; k++)
            sum += res->e[i].node_ln_mean[k];
        char b[32];
        fmt_num(b, sizeof b, "%.6g", sum);
        fprintf(fp, "| Σ | %s | | %s | |\n", tvds_method_name(res->e[i].method), b);
    }
}

/* Close fp, written to tmp, and rename it over path: readers and a killed process see the old
 * file or the new one, never a part. */
static int close_rename(FILE *fp, const char *tmp, const char *path, tvds_ctx *ctx)
{
    int bad = fflush(fp) != 0 || ferror(fp);
    if ((fclose(fp) != 0) | bad || rename(tmp, path) != 0) {
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed", path);
    }
    return TVDS_OK;
}

int tvds_compare_report(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                        const tvds_compare_result *res, tvds_ctx *ctx)
{
    tvds_compare_opts def = tvds_compare_opts_default();
    if (!o) o = &def;
    /* What a crossing is: a master node (2D surface) or a face edge (face set). */
    int fx = m && o->contact >= 0 && o->contact < m->ncontact &&
             m->contacts[o->contact].master_kind == TVDS_MASTER_FACES;
    char path[1024], tmp[1040];
    /* metrics.csv: one row per method, machine-readable. */
    snprintf(path, sizeof path, "%s/metrics.csv", outdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", tmp);
    fprintf(fp, "method,status,steps,dt [s],cpu [s],us/step,cpu ratio to film [-],rms [m/s^2],"
                "peak [m/s^2],growth [-],rms diff [m/s^2],rms diff rel [-],peak ratio [-],"
                "dominant f [Hz],lambda_n first [N],lambda_n last [N],lambda_n min [N],"
                "lambda_n max [N],deflection first [m],deflection last [m],v_slide mean [m/s],"
                "node kick ratio [-],hf level [m/s^2],lambda_n mean [N]\n");
    for (int i = 0; i < res->n; i++) {
        const tvds_compare_entry *e = &res->e[i];
        fprintf(fp,
                "%s,%s,%ld,%.9g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.8g,%.8g,%.8g,"
                "%.8g,%.8g,%.8g,%.8g,%.8g,%.6g,%.6g,%.9g\n",
                tvds_method_name(e->method), tvds_run_status_word(e->status), e->run.steps,
                e->run.dt, e->run.cpu_seconds, e->run.us_per_step, e->cpu_ratio, e->rms, e->peak,
                e->growth, e->rms_diff, e->rms_rel, e->peak_ratio, e->f_dom, e->ln_first,
                e->ln_last, e->ln_min, e->ln_max, e->defl_first, e->defl_last, e->vs_mean,
                e->kick_ratio, e->hf_level, e->ln_mean);
    }
    int wrc = close_rename(fp, tmp, path, ctx);
    if (wrc) return wrc;
    if (res->nwindows > 0) {
        int rc = write_growth_csv(outdir, res, ctx);
        if (rc) return rc;
    }

    int drawn = 0, env_drawn = 0;
    if (o->plots) {
        double fmax_spec = o->fmax_plot > 0.0 ? o->fmax_plot : 2.0 * o->f_cea;
        int rc = draw_figures(m, outdir, res, fmax_spec, &drawn, ctx);
        if (rc) return rc;
        if (drawn && res->nwindows > 0) {
            rc = draw_envelopes(m, outdir, res, &env_drawn, ctx);
            if (rc) return rc;
        }
    }

    snprintf(path, sizeof path, "%s/report.md", outdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fp = fopen(tmp, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", tmp);
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
    if (res->nwindows > 0) {
        fprintf(fp, "\n## Growth across the unstable windows (band envelope)\n\n");
        fprintf(fp,
                "Envelope of `%s` in a Gaussian band around each window's frequency (analytic "
                "signal by FFT), samples within ±%.3g ms of a %s crossing masked "
                "(%d crossings in the record). Measured growth G = max envelope over [t0, t1 + "
                "T/4 + 4τ] (cut at the first node crossing after t1) / envelope at t0 "
                "(docs/burst-metrics.md); in brackets E(t1)/E(t0); ×/÷ the scatter of the "
                "envelope about its fit at the entry, exp(RMS of ln E − line), the factor within "
                "which E(t0) is known. A node crossing inside a "
                "window adds its kick to the growth measured there. "
                "Predicted: exp(∫ Re λ dt) from the CEA.\n\n",
                res->accel, 1e3 * window_mask_half(res, 0), fx ? "face-edge" : "master-node",
                res->ncross);
        fprintf(fp, "| window | f [Hz] | s [mm] | t [s] | node crossings | predicted G |");
        for (int i = 0; i < res->n; i++)
            fprintf(fp, " %s G |", tvds_method_name(res->e[i].method));
        fprintf(fp, "\n|---|---|---|---|---|---|");
        for (int i = 0; i < res->n; i++)
            fprintf(fp, "---|");
        fprintf(fp, "\n");
        for (int w = 0; w < res->nwindows; w++) {
            const tvds_growth_window *g = &res->windows[w];
            char sp[64], tp[64], gp[32];
            if (g->s1 > g->s0)
                snprintf(sp, sizeof sp, "%.3f … %.3f", 1e3 * g->s0, 1e3 * g->s1);
            else
                snprintf(sp, sizeof sp, "–");
            if (isfinite(g->t0) && isfinite(g->t1))
                snprintf(tp, sizeof tp, "%.4f … %.4f", g->t0, g->t1);
            else
                snprintf(tp, sizeof tp, "not crossed");
            fmt_num(gp, sizeof gp, "%.3g", g->growth_pred);
            fprintf(fp, "| %d | %.1f ± %.0f | %s | %s | %d | %s |", w + 1, g->f_hz,
                    res->band_half[w], sp, tp, res->ncross_window[w], gp);
            for (int i = 0; i < res->n; i++) {
                char a[32], b[32], c[32];
                fmt_num(a, sizeof a, "%.3g", res->e[i].growth_peak[w]);
                fmt_num(b, sizeof b, "%.3g", res->e[i].growth_exit[w]);
                fmt_num(c, sizeof c, "%.2f", res->e[i].growth_scatter[w]);
                fprintf(fp, " %s (%s) ×/÷%s |", a, b, c);
            }
            fprintf(fp, "\n");
        }
        fprintf(fp, "\nMachine-readable: `growth.csv`; envelopes: `<method>/envelope.csv`%s.\n",
                env_drawn ? ", figure `envelopes.png`" : "");
        if (env_drawn) fprintf(fp, "\n![band envelopes](envelopes.png)\n");
    }
    if (res->contact[0]) {
        fprintf(fp, "\n## Contact `%s`\n\n", res->contact);
        fprintf(fp, "Means over the first and last 10 %% of the window, and over all of it.\n\n");
        fprintf(fp,
                "| method | λ_N first [N] | λ_N last [N] | change | λ_N min…max [N] | "
                "%s first [mm] | %s last [mm] | mean v_slide [mm/s] | mean λ_N [N] |\n",
                res->deflect[0] ? res->deflect : "deflection",
                res->deflect[0] ? res->deflect : "deflection");
        fprintf(fp, "|---|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < res->n; i++) {
            const tvds_compare_entry *e = &res->e[i];
            char b[7][32];
            fmt_num(b[6], 32, "%.7g", e->ln_mean);
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
            fprintf(fp, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                    tvds_method_name(e->method), b[0], b[1], b[2], mm, b[3], b[4], b[5], b[6]);
        }
        if (res->nnode > 0) report_nodes(fp, m->contacts[o->contact].name, res);
    }

    {
        int any = 0;
        for (int i = 0; i < res->n; i++)
            any |= isfinite(res->e[i].kick_ratio);
        if (any) {
            fprintf(fp,
                    "\n%s crossings (%d in the record): envelope of `%s` above %.0f kHz "
                    "within %.0f ms of each crossing in the window, over its median farther than "
                    "%.0f ms from every crossing (geometric mean over the crossings):",
                    fx ? "Face-edge" : "Master-node", res->ncross, res->accel, 1e-3 * KICK_FMIN,
                    1e3 * KICK_NEAR, 1e3 * KICK_FAR);
            for (int i = 0; i < res->n; i++) {
                char b[2][32];
                fmt_num(b[0], 32, "%.3g", res->e[i].kick_ratio);
                fmt_num(b[1], 32, "%.3g", res->e[i].hf_level);
                fprintf(fp, " %s ×%s (quiet level %s m/s²)%s", tvds_method_name(res->e[i].method),
                        b[0], b[1], i + 1 < res->n ? "," : ".\n");
            }
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
    /* With unstable windows the burst findings are judged on the band-envelope growth of the
     * window where FiLm's grows most; without, on the raw signal (growth and peak ratio). */
    int jw = -1;
    /* Windows with a node crossing inside carry its kick: judged only when no other is. */
    for (int pass = 0; pass < 2 && jw < 0; pass++)
        for (int w = 0; ref && w < res->nwindows; w++)
            if (isfinite(ref->growth_peak[w]) && (pass == 1 || res->ncross_window[w] == 0) &&
                (jw < 0 || ref->growth_peak[w] > ref->growth_peak[jw]))
                jw = w;
    int film_burst = jw >= 0 ? ref->growth_peak[jw] > BAND_BURST
                             : ref && isfinite(ref->growth) && ref->growth > BURST_GROWTH;
    if (!ref) {
        fprintf(fp, "FiLm was not run: no finding can be checked.\n");
    } else {
        char gpred[32];
        fmt_num(gpred, sizeof gpred, "%.3g", jw >= 0 ? res->windows[jw].growth_pred : NAN);
        if (jw >= 0) {
            const tvds_growth_window *g = &res->windows[jw];
            fprintf(fp,
                    "Judged on the band envelope of window %d (%.0f Hz, t = %.4f … %.4f s, %d "
                    "node crossing(s) inside), where FiLm's grows most among the windows without "
                    "node crossings (if any): FiLm %s (growth %.3g, "
                    "threshold %g; CEA prediction %s)%s\n\n",
                    jw + 1, g->f_hz, g->t0, g->t1, res->ncross_window[jw],
                    film_burst ? "shows a friction-induced burst" : "shows **no** burst",
                    ref->growth_peak[jw], BAND_BURST, gpred,
                    film_burst ? "."
                               : ": the findings below about bursts cannot be confirmed "
                                 "on this run.");
        } else {
            fprintf(fp, "FiLm %s in the window (growth %.3g, threshold %g)%s\n\n",
                    film_burst ? "shows friction-induced bursts" : "shows **no** burst",
                    ref->growth, BURST_GROWTH,
                    film_burst ? "."
                               : ": the findings below about bursts cannot be confirmed on "
                                 "this run; lengthen it or move it onto an unstable window.");
        }
        fprintf(fp, "| paper | tvds | numbers |\n|---|---|---|\n");
        char num[512];
        int nb = film_burst ? 0 : F_NO_BURST;
        double gF = jw >= 0 ? ref->growth_peak[jw] : NAN;
        /* Subs-a misses the bursts. */
        if (ea && ea->status == TVDS_OK) {
            int missed;
            if (jw >= 0) {
                double gA = ea->growth_peak[jw];
                missed = !(log(gA) >= DETECT_LOG * log(gF));
                snprintf(num, sizeof num, "band growth %.3g (FiLm %.3g, CEA %s); ln G ratio %.3g",
                         gA, gF, gpred, log(gA) / log(gF));
            } else {
                missed = !(ea->peak_ratio >= DETECT_RATIO) || !(ea->growth > BURST_GROWTH);
                snprintf(num, sizeof num,
                         "peak ratio %.3g, growth %.3g (FiLm %.3g), RMS diff %.3g of FiLm's RMS",
                         ea->peak_ratio, ea->growth, ref->growth, ea->rms_rel);
            }
            finding(fp, "Subs-a misses the friction-induced bursts", nb ? nb : missed, num);
        } else {
            finding(fp, "Subs-a misses the friction-induced bursts", F_NOT_RUN, "–");
        }
        /* Subs-b matches FiLm (bursts or not). */
        if (eb && eb->status == TVDS_OK) {
            int match;
            double fr = fabs(eb->f_dom - ref->f_dom) / ref->f_dom;
            if (jw >= 0) {
                double q = eb->growth_peak[jw] / gF;
                match = q >= 1.0 / MATCH_RATIO && q <= MATCH_RATIO;
                snprintf(num, sizeof num,
                         "band growth %.3g vs FiLm %.3g (ratio %.3g); RMS diff %.3g of FiLm's RMS",
                         eb->growth_peak[jw], gF, q, eb->rms_rel);
            } else {
                match = eb->peak_ratio >= 1.0 / MATCH_RATIO && eb->peak_ratio <= MATCH_RATIO &&
                        fr <= MATCH_FREQ;
                snprintf(num, sizeof num,
                         "peak ratio %.4g, dominant f %.1f vs %.1f Hz (%.2f %%), RMS diff %.3g of "
                         "FiLm's RMS",
                         eb->peak_ratio, eb->f_dom, ref->f_dom, 100.0 * fr, eb->rms_rel);
            }
            finding(fp, "Subs-b matches FiLm", match, num);
        } else {
            finding(fp, "Subs-b matches FiLm", F_NOT_RUN, "–");
        }
        /* Subs-c detects the bursts, overestimates them, normal force does not decrease. */
        if (ec && ec->status == TVDS_OK) {
            int det, over;
            if (jw >= 0) {
                double gC = ec->growth_peak[jw];
                det = log(gC) >= DETECT_LOG * log(gF);
                over = gC / gF > MATCH_RATIO;
                snprintf(num, sizeof num, "band growth %.3g vs FiLm %.3g (ratio %.3g, CEA %s)", gC,
                         gF, gC / gF, gpred);
            } else {
                det = ec->peak_ratio >= DETECT_RATIO && ec->growth > BURST_GROWTH;
                over = ec->peak_ratio > MATCH_RATIO;
                snprintf(num, sizeof num,
                         "peak ratio %.3g, growth %.3g (FiLm %.3g), RMS diff %.3g of "
                         "FiLm's RMS",
                         ec->peak_ratio, ec->growth, ref->growth, ec->rms_rel);
            }
            finding(fp, "Subs-c detects the bursts", nb ? nb : det, num);
            finding(fp, "Subs-c overestimates the burst amplitude", nb ? nb : over, num);
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
        if (jw >= 0)
            fprintf(fp,
                    "\nThresholds (band envelope, docs/burst-metrics.md): burst when FiLm's "
                    "growth G > %g; a method detects the burst when ln G ≥ %g ln G_FiLm, misses "
                    "it otherwise; matches FiLm when G / G_FiLm is within [%.2f, %.2f]; "
                    "overestimates when G / G_FiLm > %.2f; normal force: Subs-b's decreases over "
                    "the metric window and Subs-c's decreases by less than %g times as much.\n",
                    BAND_BURST, DETECT_LOG, 1.0 / MATCH_RATIO, MATCH_RATIO, MATCH_RATIO,
                    LN_FRACTION);
        else
            fprintf(fp,
                    "\nThresholds: burst growth > %g; detects: peak ratio ≥ %g; matches: peak "
                    "ratio within [%.2f, %.2f] and dominant frequency within %.0f %%; "
                    "overestimates: peak ratio > %.2f; normal force: Subs-b's decreases over the "
                    "window and Subs-c's decreases by less than %g times as much. No unstable "
                    "window was given: the burst findings rest on the raw signal, which low "
                    "modes and node-crossing kicks dominate (docs/burst-metrics.md).\n",
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
    return close_rename(fp, tmp, path, ctx);
}

/* report.md of a compare stopped by a signal: methods before upto ran to their end, method upto
 * was stopped when running (its folder's summary.json says "interrupted"), the others did not
 * start. */
static void interrupted_report(const tvds_model *m, const char *outdir, const int *meth, int n,
                               const tvds_compare_result *res, int upto, int running)
{
    char path[1024], tmp[1040];
    snprintf(path, sizeof path, "%s/report.md", outdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) return;
    fprintf(fp,
            "# Contact methods compared: %s (interrupted)\n\nStatus: **interrupted** by a stop "
            "signal; no comparison was made. The method folders:\n\n| method | run |\n|---|---|\n",
            m->name ? m->name : "case");
    for (int i = 0; i < n; i++)
        fprintf(fp, "| %s | %s |\n", tvds_method_name(meth[i]),
                i < upto               ? tvds_run_status_word(res->e[i].status)
                : i == upto && running ? "interrupted (outputs whole up to the stop)"
                                       : "not started");
    tvds_ctx c;
    tvds_ctx_init(&c);
    (void)close_rename(fp, tmp, path, &c);
}

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
        if (o->stop && *o->stop) {
            interrupted_report(m, outdir, meth, n, res, i, 0);
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
        tvds_ctx rctx;
        tvds_ctx_init(&rctx);
        res->e[i].method = meth[i];
        res->e[i].status = tvds_run(&mm, dir, &ro, &rctx);
        if (res->e[i].status == TVDS_ERR_INTERRUPTED) {
            interrupted_report(m, outdir, meth, n, res, i, 1);
            return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "compare: interrupted during %s",
                              tvds_method_name(meth[i]));
        }
        if (res->e[i].status == TVDS_ERR_NOMEM || res->e[i].status == TVDS_ERR_IO ||
            res->e[i].status == TVDS_ERR_WRITE || res->e[i].status == TVDS_ERR_BUSY ||
            res->e[i].status == TVDS_ERR_INVALID || res->e[i].status == TVDS_ERR_UNSTABLE_DT)
            return tvds_error_at(ctx, rctx.status, rctx.src_file, rctx.src_line, "%s: %s",
                                 tvds_method_name(meth[i]), rctx.msg);
    }
    if ((rc = tvds_compare_analyse(m, outdir, o, res, ctx))) return rc;
    return tvds_compare_report(m, outdir, o, res, ctx);
}
