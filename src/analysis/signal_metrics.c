/* signal_metrics.c — metrics of a sampled signal: RMS, peaks, envelope growth, dominant
 * frequency, band envelopes and their growth across a window (include/tvds/tvds_compare.h,
 * docs/burst-metrics.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "analysis/compare_impl.h"

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

int compare_cmp_double(const void *a, const void *b)
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
double compare_envelope_fit(const double *t, const double *env, const unsigned char *mask, long n,
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
    return compare_envelope_fit(t, env, mask, n, tc, span, NULL);
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
