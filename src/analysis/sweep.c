/* sweep.c — parameter sweeps: a grid of runs of one case, parallel over runs with OpenMP,
 * one result row per run, CSV and squeal-propensity map. */
#include "tvds/tvds_sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/blas_threads.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_run.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_spectrum.h"

tvds_sweep_opts tvds_sweep_opts_default(void)
{
    tvds_sweep_opts o;
    memset(&o, 0, sizeof o);
    o.mode = TVDS_SWEEP_TRANSIENT;
    o.cea_npos = 21;
    o.cea_t_eval = -1.0;
    o.cea_refine = 1;
    o.growth_tol = 2.0 * log(1.05);
    return o;
}

long tvds_sweep_count(const tvds_sweep_axis *ax, int nax)
{
    if (!ax || nax < 1 || nax > TVDS_SWEEP_MAX_AXES) return -1;
    long n = 1;
    for (int i = 0; i < nax; i++) {
        if (ax[i].n < 1 || ax[i].n > 100000) return -1;
        n *= ax[i].n;
        if (n > 100000000L) return -1;
    }
    return n;
}

static int parse_double(const char *s, const char *end, double *v)
{
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *e;
    errno = 0;
    *v = strtod(buf, &e);
    return (*e || errno || !isfinite(*v)) ? -1 : 0;
}

int tvds_sweep_axis_parse(const char *text, tvds_sweep_axis *ax, tvds_ctx *ctx)
{
    if (!text || !ax) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_sweep_axis_parse: NULL");
    const char *eq = strchr(text, '=');
    const char *dot = strchr(text, '.');
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof ax->key || !dot || dot > eq ||
        dot == text || dot + 1 == eq)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "--grid %s: expected section.key=a:b:n (e.g. contact.tip.mu=0.1:0.5:5)",
                          text);
    memcpy(ax->key, text, (size_t)(eq - text));
    ax->key[eq - text] = '\0';
    const char *v = eq + 1, *c1 = strchr(v, ':');
    if (!c1) {
        ax->n = 1;
        if (parse_double(v, v + strlen(v), &ax->a))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--grid %s: '%s' is not a finite number", text,
                              v);
        ax->b = ax->a;
        return TVDS_OK;
    }
    const char *c2 = strchr(c1 + 1, ':');
    char *e;
    long n = c2 ? strtol(c2 + 1, &e, 10) : 0;
    if (!c2 || parse_double(v, c1, &ax->a) || parse_double(c1 + 1, c2, &ax->b) || *e ||
        c2[1] == '\0' || n < 1 || n > 100000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "--grid %s: expected a:b:n with finite a, b and an integer n in "
                          "1..100000",
                          text);
    ax->n = (int)n;
    return TVDS_OK;
}

static double axis_value(const tvds_sweep_axis *a, int i)
{
    return a->n == 1 ? a->a : a->a + (a->b - a->a) * (double)i / (double)(a->n - 1);
}

/* Axis values of run idx (last axis fastest). */
static void grid_point(const tvds_sweep_axis *ax, int nax, long idx, double *p)
{
    for (int k = nax - 1; k >= 0; k--) {
        p[k] = axis_value(&ax[k], (int)(idx % ax[k].n));
        idx /= ax[k].n;
    }
}

static int find_channel(const char *const *names, int n, const char *want)
{
    if (!want) return n > 1 ? 1 : -1;
    size_t lw = strlen(want);
    for (int i = 0; i < n; i++) {
        if (!strcmp(names[i], want)) return i;
        if (!strncmp(names[i], want, lw) && !strncmp(names[i] + lw, " [", 2)) return i;
    }
    return -1;
}

static double rms_about_mean(const double *x, long n)
{
    if (n < 1) return 0.0;
    double s = 0.0, q = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i];
    double mean = s / (double)n;
    for (long i = 0; i < n; i++)
        q += (x[i] - mean) * (x[i] - mean);
    return sqrt(q / (double)n);
}

/* Dominant frequency of x (uniform, step dt): peak of the amplitude spectrum of the
 * detrended, Hann-windowed signal zero-padded to at least 4 n samples (bin df = 1 / (4 n dt)),
 * refined by a parabola through the peak bin and its neighbours; DC excluded. NaN when too
 * short (n < 8) or flat. */
static double dominant_freq(const double *x, long n, double dt, tvds_ctx *ctx)
{
    if (n < 8) return NAN;
    long N = 8;
    while (N < 4 * n && N < (1L << 23))
        N *= 2;
    if (N < n) n = N;
    double *y = tvds_calloc((size_t)N, sizeof *y);
    if (!y) return NAN;
    double mean = 0.0;
    for (long i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    for (long i = 0; i < n; i++)
        y[i] = (x[i] - mean) * tvds_window_value(TVDS_WINDOW_HANN, (int)i, (int)n);
    tvds_stft_options so = tvds_stft_options_default();
    so.window = TVDS_WINDOW_RECT;
    so.nwin = (int)N;
    so.overlap = 0.0;
    so.detrend = 0;
    so.scaling = TVDS_SPEC_AMPLITUDE;
    tvds_stft *st = NULL;
    int rc = tvds_stft_compute(y, N, dt, 0.0, &so, &st, ctx);
    tvds_free(y);
    if (rc != TVDS_OK) return NAN;
    int jb = -1;
    double best = 0.0;
    for (int j = 1; j < st->nfreq; j++)
        if (st->S[j] > best) {
            best = st->S[j];
            jb = j;
        }
    double f = NAN;
    if (jb > 0) {
        f = st->f[jb];
        if (jb + 1 < st->nfreq) {
            double a = st->S[jb - 1], b = st->S[jb], c = st->S[jb + 1];
            double den = a - 2.0 * b + c;
            if (den < 0.0) f += 0.5 * (a - c) / den * st->df;
        }
    }
    tvds_stft_free(&st);
    return f;
}

/* One transient run of model m into row (the model is read by the caller). */
static int run_transient(const tvds_model *m, const tvds_sweep_opts *o, tvds_sweep_row *row,
                         tvds_ctx *ctx)
{
    tvds_data *d = NULL;
    double *xs = NULL;
    int rc = tvds_data_create(m, &d, ctx);
    if (rc) goto done;
    int nch = 0;
    const char *const *names = NULL;
    const double *val = NULL;
    tvds_channels(d, TVDS_GROUP_HISTORY, &nch, &names, &val);
    int ch = find_channel(names, nch, o->channel);
    if (ch < 0) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "sweep: no history channel '%s' in the case",
                        o->channel ? o->channel : "(first)");
        goto done;
    }
    const double h = tvds_data_dt(d), t_end = m->opt.t_end;
    long nsteps = (long)ceil(t_end / h) + 1;
    long ds = m->opt.out_dt > h ? (long)floor(m->opt.out_dt / h + 0.5) : 1;
    if (nsteps / ds > (1L << 21)) ds = nsteps / (1L << 21) + 1;
    long cap = nsteps / ds + 2, ns = 0, k = 0;
    xs = tvds_malloc((size_t)cap * sizeof *xs);
    if (!xs) {
        rc = TVDS_ERR_NOMEM;
        goto done;
    }
    double sumsq = 0.0, peak = 0.0;
    while (tvds_data_time(d) < t_end && k < nsteps + 1) {
        if (o->stop && *o->stop) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "interrupted");
            break;
        }
        if ((rc = tvds_step(m, d, ctx)) < 0) break;
        rc = TVDS_OK;
        double x = val[ch];
        sumsq += x * x;
        if (fabs(x) > peak) peak = fabs(x);
        if (k % ds == 0 && ns < cap) xs[ns++] = x;
        k++;
    }
    row->rms = k > 0 ? sqrt(sumsq / (double)k) : 0.0;
    row->peak = peak;
    if (rc == TVDS_OK && ns >= 8) {
        double r2 = rms_about_mean(xs + ns / 4, ns / 2 - ns / 4);
        double r4 = rms_about_mean(xs + 3 * ns / 4, ns - 3 * ns / 4);
        row->growth =
            (r2 > 0.0 && r4 > 0.0) ? log(r4 / r2) / (0.5 * t_end) : (r4 > 0.0 ? INFINITY : 0.0);
        tvds_ctx fctx;
        tvds_ctx_init(&fctx);
        row->f_dom = dominant_freq(xs + ns / 2, ns - ns / 2, (double)ds * h, &fctx);
        row->unstable = row->growth > o->growth_tol / t_end;
    }
done:
    if (rc) row->unstable = 1;
    row->status = rc;
    tvds_free(xs);
    tvds_data_free(&d);
    return rc;
}

static int run_cea(const tvds_model *m, const tvds_sweep_opts *o, tvds_sweep_row *row,
                   tvds_ctx *ctx)
{
    row->rms = row->peak = NAN;
    double L = 0.0;
    int npos = o->cea_npos > 1 ? o->cea_npos : 2;
    double *s = tvds_malloc((size_t)npos * sizeof *s);
    tvds_cea_result *r = NULL;
    int rc = s ? tvds_cea_surface_length(m, 0, &L, ctx) : TVDS_ERR_NOMEM;
    if (!rc) {
        for (int i = 0; i < npos; i++)
            s[i] = L * (0.05 + 0.9 * i / (npos - 1));
        tvds_cea_options co = tvds_cea_options_default();
        co.nthreads = 1;
        co.stop = o->stop;
        co.t_eval = o->cea_t_eval >= 0.0 ? o->cea_t_eval : 0.5 * m->opt.t_end;
        co.refine = o->cea_refine;
        rc = tvds_cea_run(m, 0, s, npos, &co, &r, ctx);
    }
    if (!rc) {
        double best = -INFINITY, f = NAN;
        for (long k = 0; k < (long)r->npos * r->nbranch; k++)
            if (isfinite(r->re[k]) && r->re[k] > best) {
                best = r->re[k];
                f = r->freq[k];
            }
        row->growth = best;
        row->f_dom = f;
        row->unstable = r->nwin > 0;
    }
    row->status = rc;
    tvds_cea_result_free(&r);
    tvds_free(s);
    return rc;
}

/* Errors of a run that belong to its row (the physics of that grid point) rather than to the
 * sweep's input. */
static int run_error(int rc)
{
    return rc == TVDS_ERR_DIVERGED || rc == TVDS_ERR_SINGULAR || rc == TVDS_ERR_CONTACT_LOST ||
           rc == TVDS_ERR_SOLVER || rc == TVDS_ERR_NOT_POSDEF;
}

int tvds_sweep_run(const char *case_path, const tvds_sweep_axis *ax, int nax,
                   const tvds_sweep_opts *o, long first, long stride, tvds_sweep_row *rows,
                   long *nrows, tvds_ctx *ctx)
{
    tvds_sweep_opts def = tvds_sweep_opts_default();
    if (!o) o = &def;
    long total = tvds_sweep_count(ax, nax);
    if (nrows) *nrows = 0;
    if (!case_path || total < 0 || first < 0 || stride < 1 || !rows || !nrows ||
        (o->nsets > 0 && !o->sets) || o->nsets < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_sweep_run: bad argument");
    long cnt = first < total ? (total - first + stride - 1) / stride : 0;
    int nt = o->nthreads > 0 ? o->nthreads : omp_get_max_threads();
    int err_rc = TVDS_OK;
    long err_idx = LONG_MAX;
    tvds_ctx err_ctx;
    tvds_ctx_init(&err_ctx);
    /* The points are the parallel axis: BLAS on one thread (core/blas_threads.h). */
    int held = tvds_blas_threads_hold();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (long k = 0; k < cnt; k++) {
        long idx = first + k * stride;
        tvds_sweep_row *row = &rows[k];
        memset(row, 0, sizeof *row);
        row->index = -1;
        if ((o->done && o->done[idx]) || (o->stop && *o->stop)) continue;
        row->index = idx;
        row->rms = row->peak = row->f_dom = row->growth = NAN;
        grid_point(ax, nax, idx, row->param);
        double c0 = tvds_bench_thread_cpu();
        /* Overrides: the fixed ones, then this grid point's. */
        char buf[TVDS_SWEEP_MAX_AXES][192];
        const char *ov[64 + TVDS_SWEEP_MAX_AXES];
        int nov = 0;
        for (int i = 0; i < o->nsets && nov < 64; i++)
            ov[nov++] = o->sets[i];
        for (int i = 0; i < nax; i++) {
            snprintf(buf[i], sizeof buf[i], "%s=%.17g", ax[i].key, row->param[i]);
            ov[nov++] = buf[i];
        }
        tvds_ctx c;
        tvds_ctx_init(&c);
        tvds_model *m = NULL;
        int rc = tvds_case_read(case_path, ov, nov, &m, &c);
        if (!rc)
            rc = o->mode == TVDS_SWEEP_CEA ? run_cea(m, o, row, &c) : run_transient(m, o, row, &c);
        if (rc == TVDS_ERR_INTERRUPTED) {
            row->index = -1; /* not finished: a --resume runs it again */
        } else if (rc && !run_error(rc)) {
            row->status = rc;
#pragma omp critical(tvds_sweep_err)
            {
                if (idx < err_idx) {
                    err_idx = idx;
                    err_rc = rc;
                    err_ctx = c;
                }
            }
        }
        tvds_model_free(&m);
        row->cpu_seconds = tvds_bench_thread_cpu() - c0;
        if (row->index >= 0 && (!rc || run_error(rc)) && o->row_done) {
#pragma omp critical(tvds_sweep_row_done)
            o->row_done(o->user, row);
        }
    }
    tvds_blas_threads_restore(held);
    if (err_rc) {
        if (ctx && ctx->status == TVDS_OK) *ctx = err_ctx;
        return err_rc;
    }
    *nrows = cnt;
    if (o->stop && *o->stop) {
        long fin = 0;
        for (long k = 0; k < cnt; k++)
            fin += rows[k].index >= 0;
        return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED,
                          "sweep interrupted: %ld of the %ld runs of this share finished in this "
                          "session",
                          fin, cnt);
    }
    return TVDS_OK;
}

static int cmp_row(const void *a, const void *b)
{
    long x = ((const tvds_sweep_row *)a)->index, y = ((const tvds_sweep_row *)b)->index;
    return (x > y) - (x < y);
}

static void put_num(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f);
    else if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    else
        fprintf(f, "%.17g", v);
}

int tvds_sweep_write_csv(const char *dir, const tvds_sweep_axis *ax, int nax,
                         const tvds_sweep_row *rows, long nrows, tvds_ctx *ctx)
{
    if (!dir || !ax || nax < 1 || nax > TVDS_SWEEP_MAX_AXES || (!rows && nrows > 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_sweep_write_csv: bad argument");
    tvds_sweep_row *s = tvds_malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *s);
    if (!s) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep: out of memory");
    long ns = 0;
    for (long r = 0; r < nrows; r++)
        if (rows[r].index >= 0) s[ns++] = rows[r];
    nrows = ns;
    qsort(s, (size_t)nrows, sizeof *s, cmp_row);
    char path[4200], tmp[4210];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        tvds_free(s);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    }
    fputs("index", f);
    for (int i = 0; i < nax; i++)
        fprintf(f, ",%s", ax[i].key);
    fputs(",status,unstable,rms,peak,f_dom_hz,growth_1_s,cpu_s\n", f);
    for (long r = 0; r < nrows; r++) {
        fprintf(f, "%ld", s[r].index);
        for (int i = 0; i < nax; i++) {
            fputc(',', f);
            put_num(f, s[r].param[i]);
        }
        fprintf(f, ",%s,%d,", tvds_run_status_word(s[r].status), s[r].unstable);
        put_num(f, s[r].rms);
        fputc(',', f);
        put_num(f, s[r].peak);
        fputc(',', f);
        put_num(f, s[r].f_dom);
        fputc(',', f);
        put_num(f, s[r].growth);
        fprintf(f, ",%.6g\n", s[r].cpu_seconds);
    }
    tvds_free(s);
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    if ((fclose(f) != 0) | bad) {
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed: %s", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename: %s", tmp, strerror(errno));
    }
    return TVDS_OK;
}

int tvds_sweep_journal_line(const tvds_sweep_row *r, int nax, char *buf, size_t n)
{
    size_t len = 0;
    int k = snprintf(buf, n, "%ld", r->index);
    len = k > 0 ? (size_t)k : 0;
    double v[TVDS_SWEEP_MAX_AXES + 7];
    int nv = 0;
    for (int i = 0; i < nax; i++)
        v[nv++] = r->param[i];
    v[nv++] = r->status;
    v[nv++] = r->unstable;
    v[nv++] = r->rms;
    v[nv++] = r->peak;
    v[nv++] = r->f_dom;
    v[nv++] = r->growth;
    v[nv++] = r->cpu_seconds;
    for (int i = 0; i < nv && len < n; i++) {
        char num[32];
        tvds_format_double(v[i], num);
        k = snprintf(buf + len, n - len, ",%s", num);
        len += k > 0 ? (size_t)k : 0;
    }
    if (len + 1 < n) {
        buf[len++] = '\n';
        buf[len] = '\0';
    }
    return (int)len;
}

int tvds_sweep_journal_read(const char *path, const char *signature, int nax, long total,
                            tvds_sweep_row **rows, long *nrows, tvds_ctx *ctx)
{
    *rows = NULL;
    *nrows = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return TVDS_OK;
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    tvds_sweep_row *r = tvds_calloc((size_t)(total > 0 ? total : 1), sizeof *r);
    char *seen = tvds_calloc((size_t)(total > 0 ? total : 1), 1);
    char line[1024];
    int rc = TVDS_OK;
    long lineno = 0, n = 0;
    if (!r || !seen) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        int whole = len > 0 && line[len - 1] == '\n';
        if (whole) line[--len] = '\0';
        if (lineno == 1) {
            const char *a = whole ? strstr(line, " inputs=") : NULL,
                       *b = strstr(signature, " inputs=");
            if (whole && strcmp(line, signature) == 0) continue;
            if (a && b && a - line == b - signature &&
                !strncmp(line, signature, (size_t)(a - line)))
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s: the case file or a file it reads changed since this sweep "
                                "began (inputs hash %s, now %s): run without --resume to start "
                                "afresh",
                                path, a + 8, b + 8);
            else
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "%s: written by another sweep (other case, grid or options): "
                                "run without --resume to start afresh",
                                path);
            continue;
        }
        if (!whole) break; /* a line cut by a kill: that run is done again */
        double v[1 + TVDS_SWEEP_MAX_AXES + 7];
        int nv = 0, want = 1 + nax + 7;
        char *p = line, *e;
        while (nv < want) {
            v[nv] = strtod(p, &e);
            if (e == p) break;
            nv++;
            if (*e != ',') break;
            p = e + 1;
        }
        long idx = nv > 0 ? (long)v[0] : -1;
        if (nv != want || *e != '\0' || idx < 0 || idx >= total || v[0] != (double)idx) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: not a sweep journal line", path, lineno);
            break;
        }
        tvds_sweep_row row;
        memset(&row, 0, sizeof row);
        row.index = idx;
        for (int i = 0; i < nax; i++)
            row.param[i] = v[1 + i];
        const double *w = v + 1 + nax;
        row.status = (int)w[0];
        row.unstable = (int)w[1];
        row.rms = w[2];
        row.peak = w[3];
        row.f_dom = w[4];
        row.growth = w[5];
        row.cpu_seconds = w[6];
        r[idx] = row;
        if (!seen[idx]) n++;
        seen[idx] = 1;
    }
    fclose(f);
    if (!rc) {
        long k = 0;
        for (long i = 0; i < total; i++)
            if (seen[i]) r[k++] = r[i];
        *rows = r;
        *nrows = n;
        r = NULL;
    }
    tvds_free(r);
    tvds_free(seen);
    return rc;
}

int tvds_sweep_plot(const char *dir, const tvds_sweep_axis *ax, int nax, const tvds_sweep_row *rows,
                    long nrows, int mode, tvds_ctx *ctx)
{
    if (!dir || !ax || nax < 1 || !rows || nrows < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_sweep_plot: bad argument");
    const int two = nax >= 2 && ax[1].n > 1 && ax[0].n > 1;
    const int n1 = ax[0].n, n2 = two ? ax[1].n : 1;
    /* Worst case (largest growth) over the remaining axes at each (p1, p2). */
    double *z = tvds_malloc((size_t)n1 * n2 * sizeof *z);
    int *u = tvds_calloc((size_t)n1 * n2, sizeof *u);
    if (!z || !u) {
        tvds_free(z);
        tvds_free(u);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep plot: out of memory");
    }
    for (long i = 0; i < (long)n1 * n2; i++)
        z[i] = NAN;
    long inner = 1;
    for (int k = 1; k < nax; k++)
        inner *= ax[k].n;
    long inner2 = inner / (nax >= 2 ? ax[1].n : 1);
    for (long r = 0; r < nrows; r++) {
        long idx = rows[r].index;
        long i1 = idx / inner, i2 = two ? (idx % inner) / inner2 : 0;
        long c = i1 * n2 + i2;
        double g = rows[r].growth;
        if (!isfinite(g)) g = rows[r].status ? NAN : g;
        if (isfinite(g) && (isnan(z[c]) || g > z[c])) z[c] = g;
        if (rows[r].unstable) u[c] = 1;
    }
    char dat[4200], udat[4200], png[4200];
    snprintf(dat, sizeof dat, "%s/squeal_map.dat", dir);
    snprintf(udat, sizeof udat, "%s/squeal_unstable.dat", dir);
    snprintf(png, sizeof png, "%s/squeal_map.png", dir);
    FILE *f = fopen(dat, "w"), *g = fopen(udat, "w");
    if (!f || !g) {
        if (f) fclose(f);
        if (g) fclose(g);
        tvds_free(z);
        tvds_free(u);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create", dat);
    }
    fprintf(g, "# unstable grid points: p1,p2 (or p1,value)\n");
    int nun = 0;
    for (int i = 0; i < n1; i++) {
        double p1 = axis_value(&ax[0], i);
        for (int j = 0; j < n2; j++) {
            double p2 = two ? axis_value(&ax[1], j) : 0.0;
            double v = z[(long)i * n2 + j];
            if (two) {
                fprintf(f, "%.17g,%.17g,", p1, p2);
                put_num(f, v);
                fputc('\n', f);
            } else {
                fprintf(f, "%.17g,", p1);
                put_num(f, v);
                fputc('\n', f);
            }
            if (u[(long)i * n2 + j]) {
                fprintf(g, "%.17g,%.17g\n", p1, two ? p2 : (isfinite(v) ? v : 0.0));
                nun++;
            }
        }
        if (two) fputc('\n', f);
    }
    if (!nun) fprintf(g, "nan,nan\n");
    int bad = ferror(f) | fclose(f);
    bad |= ferror(g) | fclose(g);
    tvds_free(z);
    tvds_free(u);
    if (bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", dat);

    const char *zlabel = mode == TVDS_SWEEP_CEA ? "largest Re(lambda) [1/s]"
                                                : "growth rate of the fluctuation [1/s]";
    tvds_plot_series se[2];
    memset(se, 0, sizeof se);
    se[0].file = dat;
    se[1].file = udat;
    se[1].header_lines = 1;
    se[1].style = TVDS_PLOT_POINTS;
    se[1].title = "unstable";
    se[1].color = "red";
    se[1].point_type = 6;
    se[1].point_size = 1.5;
    se[1].xcol = 1;
    se[1].ycol = 2;
    tvds_plot_panel p = tvds_plot_panel_default();
    p.xlabel = ax[0].key;
    p.grid = 1;
    if (two) {
        se[0].style = TVDS_PLOT_HEATMAP;
        se[0].xcol = 1;
        se[0].ycol = 2;
        se[0].ccol = 3;
        p.ylabel = ax[1].key;
        p.cblabel = zlabel;
        p.title = "squeal propensity";
    } else {
        se[0].style = TVDS_PLOT_LINESPOINTS;
        se[0].xcol = 1;
        se[0].ycol = 2;
        se[0].title = zlabel;
        p.ylabel = zlabel;
        p.title = "squeal propensity";
    }
    p.nseries = 2;
    p.series = se;
    tvds_plot_figure fig;
    memset(&fig, 0, sizeof fig);
    fig.output = png;
    fig.npanels = 1;
    fig.panels = &p;
    return tvds_plot_render(&fig, ctx);
}

/* ---- Inputs hash and journal repair (--resume) ----------------------------------------- */

/* 64-bit FNV-1a: a change of any byte of the inputs changes it (not a cryptographic hash: it
 * tells an edited input from the same one, it does not resist a forgery). */
static void fnv1a(uint64_t *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        *h ^= p[i];
        *h *= 0x100000001b3ULL;
    }
}

/* Hash the name and the bytes of the regular file path; anything else (FIFO, device,
 * directory) is refused by name before a blocking read. */
static int hash_file(uint64_t *h, const char *path, tvds_ctx *ctx)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: not a regular file", path);
    }
    fnv1a(h, path, strlen(path) + 1);
    char buf[65536];
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0)
        fnv1a(h, buf, (size_t)k);
    int e = errno;
    close(fd);
    if (k < 0) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read failed: %s", path, strerror(e));
    return TVDS_OK;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of directory dir, in name order. */
static int hash_dir(uint64_t *h, const char *dir, tvds_ctx *ctx)
{
    DIR *d = opendir(dir);
    if (!d) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = TVDS_OK;
    struct dirent *e;
    while (!rc && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **g = tvds_realloc(names, cap * sizeof *g);
            if (!g) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep: out of memory");
                break;
            }
            names = g;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = tvds_malloc(len))) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep: out of memory");
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (!rc && n) qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; !rc && i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) rc = hash_file(h, names[i], ctx);
    }
    for (size_t i = 0; i < n; i++)
        tvds_free(names[i]);
    tvds_free(names);
    return rc;
}

/* Table files named in the text ("key = table FILE ...", FILE a word that is not a number),
 * relative to base (the case file's directory). */
static int hash_tables(uint64_t *h, const char *text, const char *base, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    for (const char *line = text; !rc && line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[1024];
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = nl ? nl + 1 : NULL;
        char *c = strpbrk(buf, "#;");
        if (c) *c = '\0';
        char *eq = strchr(buf, '=');
        if (!eq) continue;
        char *tok[3], *save = NULL;
        int nt = 0;
        for (char *t = strtok_r(eq + 1, " \t\r,", &save); t && nt < 3;
             t = strtok_r(NULL, " \t\r,", &save))
            tok[nt++] = t;
        char *end;
        if (nt < 2 || strcmp(tok[0], "table") != 0) continue; /* "table FILE [+|- OFFSET]" */
        strtod(tok[1], &end);
        if (end != tok[1] && *end == '\0') continue;
        char path[4200];
        if (tok[1][0] == '/')
            snprintf(path, sizeof path, "%s", tok[1]);
        else
            snprintf(path, sizeof path, "%s/%s", base, tok[1]);
        rc = hash_file(h, path, ctx);
    }
    return rc;
}

int tvds_sweep_inputs_hash(const char *case_path, const char *const *sets, int nsets, char hex[17],
                           tvds_ctx *ctx)
{
    if (!case_path || !hex || nsets < 0 || (nsets > 0 && !sets))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_sweep_inputs_hash: bad argument");
    hex[0] = '\0';
    uint64_t h = 0xcbf29ce484222325ULL;
    int rc = hash_file(&h, case_path, ctx);
    if (rc) return rc;
    for (int i = 0; i < nsets; i++)
        fnv1a(&h, sets[i], strlen(sets[i]) + 1);
    /* The files the case reads: its substructure directories (as the case and the overrides
     * name them) and its table files. */
    tvds_model *m = NULL;
    rc = tvds_case_read(case_path, sets, nsets, &m, ctx);
    for (int i = 0; !rc && i < m->nsub; i++)
        if (m->subs[i] && m->subs[i]->path) rc = hash_dir(&h, m->subs[i]->path, ctx);
    tvds_model_free(&m);
    if (rc) return rc;
    char base[4096];
    snprintf(base, sizeof base, "%s", case_path);
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(base, sizeof base, ".");
    FILE *f = fopen(case_path, "r");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", case_path, strerror(errno));
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4097 > cap) {
            cap = 2 * cap + 8192;
            char *g = tvds_realloc(text, cap);
            if (!g) {
                fclose(f);
                tvds_free(text);
                return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "sweep: out of memory");
            }
            text = g;
        }
        size_t k = fread(text + len, 1, 4096, f);
        len += k;
        if (k < 4096) break;
    }
    fclose(f);
    text[len] = '\0';
    rc = hash_tables(&h, text, base, ctx);
    tvds_free(text);
    for (int i = 0; !rc && i < nsets; i++)
        rc = hash_tables(&h, sets[i], base, ctx);
    if (!rc) snprintf(hex, 17, "%016llx", (unsigned long long)h);
    return rc;
}

int tvds_sweep_journal_trim(const char *path, long *cut, tvds_ctx *ctx)
{
    if (cut) *cut = 0;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return TVDS_OK;
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: not a regular file", path);
    }
    /* Back from the end to the last newline, a block at a time. */
    off_t end = st.st_size, keep = 0;
    char buf[4096];
    while (end > 0) {
        off_t from = end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0;
        ssize_t k = pread(fd, buf, (size_t)(end - from), from);
        if (k != (ssize_t)(end - from)) {
            close(fd);
            return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read failed", path);
        }
        ssize_t i = k - 1;
        while (i >= 0 && buf[i] != '\n')
            i--;
        if (i >= 0) {
            keep = from + i + 1;
            break;
        }
        end = from;
    }
    int rc = TVDS_OK;
    if (keep < st.st_size) {
        if (ftruncate(fd, keep) != 0 || fsync(fd) != 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot cut back the last line: %s", path,
                            strerror(errno));
        else if (cut)
            *cut = (long)(st.st_size - keep);
    }
    close(fd);
    return rc;
}
