/* spectrum.c — STFT with FFTW (window, overlap, amplitude/PSD scaling) and history CSV input. */
#include "tvds/tvds_spectrum.h"
#include "io/io_impl.h"

#include <errno.h>
#include <sys/types.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TVDS_PI 3.14159265358979323846

tvds_stft_options tvds_stft_options_default(void)
{
    tvds_stft_options o;
    o.window = TVDS_WINDOW_HANN;
    o.nwin = 4096;
    o.overlap = 0.75;
    o.scaling = TVDS_SPEC_AMPLITUDE;
    o.detrend = 0;
    return o;
}

double tvds_window_value(int window, int i, int nwin)
{
    double c = cos(2.0 * TVDS_PI * (double)i / (double)nwin);
    switch (window) {
    case TVDS_WINDOW_HANN:
        return 0.5 * (1.0 - c);
    case TVDS_WINDOW_HAMMING:
        return 0.54 - 0.46 * c;
    default:
        return 1.0;
    }
}

void tvds_stft_free(tvds_stft **s)
{
    if (!s || !*s) return;
    tvds_free((*s)->t);
    tvds_free((*s)->f);
    tvds_free((*s)->S);
    tvds_free(*s);
    *s = NULL;
}

int tvds_stft_compute(const double *x, long n, double dt, double t0, const tvds_stft_options *opt,
                      tvds_stft **out, tvds_ctx *ctx)
{
    if (!out) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: no output pointer");
    *out = NULL;
    tvds_stft_options o = opt ? *opt : tvds_stft_options_default();
    if (!x || !(dt > 0) || !isfinite(dt))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: no signal or sampling step %g <= 0", dt);
    if (o.nwin < 2 || o.nwin > (1 << 26))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: window length %d out of [2, 2^26]", o.nwin);
    if (!(o.overlap >= 0.0 && o.overlap < 1.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: overlap %g out of [0, 1)", o.overlap);
    if (o.window < TVDS_WINDOW_HANN || o.window > TVDS_WINDOW_RECT)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: unknown window %d", o.window);
    if (o.scaling != TVDS_SPEC_AMPLITUDE && o.scaling != TVDS_SPEC_PSD)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: unknown scaling %d", o.scaling);
    if (n < o.nwin)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: %ld samples, fewer than one window of %d",
                          n, o.nwin);
    for (long i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: sample %ld is not finite", i);

    int nwin = o.nwin;
    long hop = lround(nwin * (1.0 - o.overlap));
    if (hop < 1) hop = 1;
    long nframes = 1 + (n - nwin) / hop;
    if (nframes > (1L << 30)) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "stft: too many frames");
    int nfreq = nwin / 2 + 1;
    int rc = TVDS_OK;
    tvds_stft *s = tvds_calloc(1, sizeof *s);
    double *w = tvds_malloc((size_t)nwin * sizeof *w);
    double *buf = tvds_malloc((size_t)nwin * sizeof *buf);
    fftw_complex *spec = tvds_malloc((size_t)nfreq * sizeof *spec);
    fftw_plan plan = NULL;
    if (!s || !w || !buf || !spec) goto nomem;
    s->nframes = (int)nframes;
    s->nfreq = nfreq;
    s->nwin = nwin;
    s->hop = (int)hop;
    s->fs = 1.0 / dt;
    s->df = s->fs / nwin;
    s->scaling = o.scaling;
    s->t = tvds_malloc((size_t)nframes * sizeof *s->t);
    s->f = tvds_malloc((size_t)nfreq * sizeof *s->f);
    s->S = tvds_malloc((size_t)nframes * (size_t)nfreq * sizeof *s->S);
    if (!s->t || !s->f || !s->S) goto nomem;

    double sw = 0.0, sw2 = 0.0;
    for (int i = 0; i < nwin; i++) {
        w[i] = tvds_window_value(o.window, i, nwin);
        sw += w[i];
        sw2 += w[i] * w[i];
    }
    for (int j = 0; j < nfreq; j++)
        s->f[j] = j * s->df;

        /* FFTW's planner is not thread-safe; executing a plan is. One plan serves every frame. */
#pragma omp critical(tvds_fftw_planner)
    plan = fftw_plan_dft_r2c_1d(nwin, buf, spec, FFTW_ESTIMATE);
    if (!plan) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "stft: FFTW could not plan a length-%d transform",
                        nwin);
        goto fail;
    }
    /* FFTW is unnormalised: X_k = sum_i (w x)_i e^{-2 pi i k / N}. The scale factors below
     * turn |X_k| into the amplitude or the PSD documented in tvds_spectrum.h. */
    double amp_scale = 2.0 / sw;
    double psd_scale = 2.0 / (s->fs * sw2);
    for (long k = 0; k < nframes; k++) {
        const double *xf = x + k * hop;
        double mean = 0.0;
        if (o.detrend) {
            for (int i = 0; i < nwin; i++)
                mean += xf[i];
            mean /= nwin;
        }
        for (int i = 0; i < nwin; i++)
            buf[i] = w[i] * (xf[i] - mean);
        fftw_execute(plan);
        double *row = s->S + (size_t)k * nfreq;
        for (int j = 0; j < nfreq; j++) {
            double re = spec[j][0], im = spec[j][1];
            /* DC and (even N) Nyquist have no mirror bin: no factor 2. */
            int single = j == 0 || (nwin % 2 == 0 && j == nfreq - 1);
            if (o.scaling == TVDS_SPEC_AMPLITUDE)
                row[j] = amp_scale * sqrt(re * re + im * im) * (single ? 0.5 : 1.0);
            else
                row[j] = psd_scale * (re * re + im * im) * (single ? 0.5 : 1.0);
        }
        s->t[k] = t0 + ((double)(k * hop) + 0.5 * (nwin - 1)) * dt;
    }
#pragma omp critical(tvds_fftw_planner)
    fftw_destroy_plan(plan);
    tvds_free(w);
    tvds_free(buf);
    tvds_free(spec);
    *out = s;
    return TVDS_OK;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "stft: out of memory (%d x %d)", (int)nframes, nfreq);
fail:
    tvds_stft_free(&s);
    tvds_free(w);
    tvds_free(buf);
    tvds_free(spec);
    return rc;
}

/* ---- History CSV ----------------------------------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Does header cell h name channel c (exactly, or by the name before " [")? */
static int header_matches(const char *h, const char *c)
{
    if (!strcmp(h, c)) return 1;
    const char *br = strchr(h, '[');
    if (!br) return 0;
    size_t len = (size_t)(br - h);
    while (len > 0 && h[len - 1] == ' ')
        len--;
    return strlen(c) == len && !strncmp(h, c, len);
}

int tvds_history_read_channel(const char *path, const char *channel, double **t, double **x,
                              long *n, char **unit, tvds_ctx *ctx)
{
    if (!path || !channel || !t || !x || !n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "history: missing argument");
    *t = *x = NULL;
    *n = 0;
    if (unit) *unit = NULL;
    FILE *f = tvds_input_open(path, "history file", ctx);
    if (!f) return tvds_input_open_error(path, ctx);
    char *line = NULL;
    size_t cap = 0;
    int rc = TVDS_OK;
    long lineno = 0, col = -1, ncols = 0, nrows = 0, rcap = 0;
    double *tt = NULL, *xx = NULL;
    /* Header row. */
    if (getline(&line, &cap, f) < 0) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:1: empty file, expected a header row", path);
        goto done;
    }
    lineno = 1;
    {
        char names[900];
        size_t nn = 0;
        names[0] = '\0';
        char *save = NULL;
        for (char *cell = strtok_r(line, ",", &save); cell; cell = strtok_r(NULL, ",", &save)) {
            char *h = trim(cell);
            if (ncols == 0 && h[0] != 't') {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:1: the first column must be the time 't [s]', found '%s'", path,
                                h);
                goto done;
            }
            if (ncols > 0 && col < 0 && header_matches(h, channel)) {
                col = ncols;
                if (unit) {
                    const char *a = strchr(h, '['), *b = a ? strchr(a, ']') : NULL;
                    size_t ul = (a && b) ? (size_t)(b - a - 1) : 0;
                    *unit = tvds_malloc(ul + 1);
                    if (!*unit) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                        goto done;
                    }
                    if (ul) memcpy(*unit, a + 1, ul);
                    (*unit)[ul] = '\0';
                }
            }
            if (ncols > 0 && nn + strlen(h) + 3 < sizeof names)
                nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s'%s'", nn ? ", " : "", h);
            ncols++;
        }
        if (col < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s:1: no channel '%s' (channels: %s)", path,
                            channel, names);
            goto done;
        }
    }
    ssize_t got;
    while ((got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        /* A last line without its newline is a row cut by a kill (a write stopped by SIGKILL
         * between two pages, docs/reliability.md): its last number may be cut too. */
        if (line[got - 1] != '\n' && feof(f)) break;
        char *p = trim(line);
        if (!*p || *p == '#') continue;
        double tv = NAN, xv = NAN;
        long c = 0;
        char *save = NULL;
        for (char *cell = strtok_r(p, ",", &save); cell && c <= col;
             cell = strtok_r(NULL, ",", &save), c++) {
            if (c != 0 && c != col) continue;
            char *end;
            errno = 0;
            double v = strtod(cell, &end);
            if (end == cell || *trim(end) != '\0' || errno == ERANGE) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: column %ld: '%s' is not a number",
                                path, lineno, c + 1, trim(cell));
                goto done;
            }
            if (c == 0)
                tv = v;
            else
                xv = v;
        }
        if (c <= col) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %ld columns, expected %ld", path, lineno,
                            c, ncols);
            goto done;
        }
        if (!isfinite(tv) || !isfinite(xv)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: non-finite time or '%s' value", path,
                            lineno, channel);
            goto done;
        }
        if (nrows == rcap) {
            long nc = rcap ? 2 * rcap : 4096;
            double *t2 = tvds_realloc(tt, (size_t)nc * sizeof *tt);
            if (!t2) goto nomem;
            tt = t2;
            double *x2 = tvds_realloc(xx, (size_t)nc * sizeof *xx);
            if (!x2) goto nomem;
            xx = x2;
            rcap = nc;
        }
        tt[nrows] = tv;
        xx[nrows] = xv;
        nrows++;
    }
    if (ferror(f)) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
        goto done;
    }
    if (nrows < 2) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: fewer than 2 data rows", path, lineno);
        goto done;
    }
    *t = tt;
    *x = xx;
    *n = nrows;
    tt = xx = NULL;
    goto done;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory at line %ld", path, lineno);
done:
    if (rc != TVDS_OK && unit && *unit) {
        tvds_free(*unit);
        *unit = NULL;
    }
    free(line); /* allocated by getline */
    tvds_free(tt);
    tvds_free(xx);
    fclose(f);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

int tvds_uniform_sampling(const double *t, double **x, long *n, double *dt, int *resampled,
                          tvds_ctx *ctx)
{
    if (!t || !x || !*x || !n || !dt)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "sampling: missing argument");
    if (resampled) *resampled = 0;
    long m = *n;
    if (m < 2) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "sampling: fewer than 2 samples");
    double *d = tvds_malloc((size_t)(m - 1) * sizeof *d);
    if (!d) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sampling: out of memory");
    for (long i = 0; i + 1 < m; i++) {
        d[i] = t[i + 1] - t[i];
        if (!(d[i] > 0)) {
            tvds_free(d);
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "sampling: time does not increase at data row %ld (t = %.17g after "
                              "%.17g)",
                              i + 2, t[i + 1], t[i]);
        }
    }
    qsort(d, (size_t)(m - 1), sizeof *d, cmp_double);
    double h = d[(m - 1) / 2], lo = d[0], hi = d[m - 2];
    tvds_free(d);
    if (hi - h <= 1e-6 * h && h - lo <= 1e-6 * h) {
        *dt = (t[m - 1] - t[0]) / (double)(m - 1);
        return TVDS_OK;
    }
    long m2 = (long)floor((t[m - 1] - t[0]) / h * (1.0 + 1e-12)) + 1;
    double *y = tvds_malloc((size_t)m2 * sizeof *y);
    if (!y) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sampling: out of memory (%ld samples)", m2);
    const double *xo = *x;
    long j = 0;
    for (long k = 0; k < m2; k++) {
        double tk = t[0] + k * h;
        while (j + 2 < m && t[j + 1] <= tk)
            j++;
        double a = (tk - t[j]) / (t[j + 1] - t[j]);
        if (a > 1.0) a = 1.0;
        y[k] = (1.0 - a) * xo[j] + a * xo[j + 1];
    }
    tvds_free(*x);
    *x = y;
    *n = m2;
    *dt = h;
    if (resampled) *resampled = 1;
    return TVDS_OK;
}
