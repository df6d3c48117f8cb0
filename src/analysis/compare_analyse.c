/* compare_analyse.c — the comparison's analysis: options, windows and channel names, the
 * methods' outputs read back, agreement metrics against FiLm, band growth per CEA window, node
 * crossings and their kicks (include/tvds/tvds_compare.h, docs/burst-metrics.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "analysis/compare_impl.h"
#include "engine/contact/face.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_spectrum.h"

/* ---- Options -------------------------------------------------------------------------------- */

tvds_compare_opts tvds_compare_opts_default(void)
{
    tvds_compare_opts o;
    memset(&o, 0, sizeof o);
    o.nmethods = 0;
    o.s_cea0 = 0.0;
    o.s_cea1 = -1.0;
    o.plots = 1;
    o.align_out = 1;
    o.judge_window = -1;
    return o;
}

int compare_opts_methods(const tvds_compare_opts *o, int *meth)
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
int compare_setup_names(const tvds_model *m, const tvds_compare_opts *o, tvds_compare_result *res,
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

double compare_window_mask_half(const tvds_compare_result *res, int w)
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
    qsort(out, (size_t)cnt, sizeof *out, compare_cmp_double);
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
        qsort(q, (size_t)nq, sizeof *q, compare_cmp_double);
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
        double tau = band_tau(res, w), mh = compare_window_mask_half(res, w);
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
            compare_envelope_fit(t, ew, mw, n, g->t0, span, &sc);
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

/* Band envelopes across the unstable windows: node crossings (face-edge crossings on a
 * face set) from each run's own contact position, window times (when only positions are
 * given) from the reference run's. */
static int window_growths(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                          const cmp_signal *acc, tvds_compare_result *res, tvds_ctx *ctx)
{
    /* A face set's position channel holds natural coordinates, not a path abscissa. */
    int faces = m->contacts[o->contact].master_kind == TVDS_MASTER_FACES;
    double *S = NULL;
    int ns = 0;
    int rc = tvds_compare_master_abscissae(m, o->contact, &S, &ns, ctx);
    if (rc) return rc;
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
                if (read_sig(outdir, tvds_method_name(res->e[i].method), "contacts.csv", ch, &sp,
                             &c2) != TVDS_OK)
                    signal_free(&sp);
                /* Samples without a master point (segment -1: before the first contact,
                 * or lifted off) carry s = 0, not a position: a jump from there to the
                 * first contact would count every node in between as crossed. */
                cmp_signal sg = {0};
                snprintf(ch, sizeof ch, "%s.segment", res->contact);
                if (sp.n > 0 &&
                    read_sig(outdir, tvds_method_name(res->e[i].method), "contacts.csv", ch, &sg,
                             &c2) == TVDS_OK &&
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
                         ? face_crossings(m, o->contact, outdir, tvds_method_name(res->e[i].method),
                                          &tc, &nc, ctx)
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
                rc = band_growths(outdir, tvds_method_name(res->e[i].method), &acc[i], tc, nc, res,
                                  &res->e[i], ctx);
            tvds_free(tc);
            signal_free(&sp);
            if (rc) break;
        }
    }
    tvds_free(S);
    return rc;
}

/* The number after key in outdir/mname/summary.json (NaN when absent). */
static double summary_number(const char *outdir, const char *mname, const char *key)
{
    char path[1100], text[16384];
    snprintf(path, sizeof path, "%s/%s/summary.json", outdir, mname);
    FILE *fp = fopen(path, "r");
    if (!fp) return NAN;
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    const char *p = strstr(text, key);
    if (!p) return NAN;
    char *end;
    double v = strtod(p + strlen(key), &end);
    return end == p + strlen(key) ? NAN : v;
}

/* Whether the rows of a are uniform in time (tvds_uniform_sampling's test: every interval
 * within 1e-6 of the median), and that median: e->resampled, e->row_dt. */
static int row_sampling(const cmp_signal *a, tvds_compare_entry *e, tvds_ctx *ctx)
{
    if (a->n < 2) return TVDS_OK;
    long n = a->n;
    double *x = tvds_malloc((size_t)n * sizeof *x);
    if (!x) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "compare: out of memory");
    memcpy(x, a->x, (size_t)n * sizeof *x);
    double h;
    int rc = tvds_uniform_sampling(a->t, &x, &n, &h, &e->resampled, ctx);
    tvds_free(x);
    if (!rc) e->row_dt = h;
    return rc;
}

int tvds_compare_analyse(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                         tvds_compare_result *res, tvds_ctx *ctx)
{
    tvds_compare_opts def = tvds_compare_opts_default();
    if (!o) o = &def;
    if (!m || !outdir || !res) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "compare: NULL argument");
    int rc = compare_setup_names(m, o, res, ctx);
    if (rc) return rc;
    res->judge_window = o->judge_window;
    res->ref = -1;
    for (int i = 0; i < res->n; i++)
        if (res->e[i].method == TVDS_METHOD_FILM) res->ref = i;

    cmp_signal acc[TVDS_METHOD_COUNT];
    memset(acc, 0, sizeof acc);
    for (int i = 0; i < res->n; i++) {
        tvds_compare_entry *e = &res->e[i];
        e->cpu_ratio = e->rms = e->peak = e->growth = e->rms_diff = e->rms_rel = NAN;
        e->peak_ratio = e->f_dom = e->f_near_cea = e->ln_first = e->ln_last = e->ln_min =
            e->ln_max = NAN;
        e->defl_first = e->defl_last = e->vs_mean = NAN;
        e->kick_ratio = e->hf_level = e->ln_mean = NAN;
        for (int k = 0; k < TVDS_COMPARE_MAX_NODES; k++)
            e->node_contact[k] = e->node_ln_mean[k] = e->node_vs_mean[k] = NAN;
        for (int w = 0; w < TVDS_COMPARE_MAX_WINDOWS; w++)
            e->growth_exit[w] = e->growth_peak[w] = e->growth_scatter[w] = NAN;
        e->resampled = 0;
        e->row_dt = e->slip_share = NAN;
        e->energy_error =
            summary_number(outdir, tvds_method_name(e->method), "\"energy balance error [-]\":");
        tvds_ctx c2;
        tvds_ctx_init(&c2);
        /* A failed run may have left no file: its metrics stay NaN. */
        if (read_sig(outdir, tvds_method_name(e->method), "history.csv", res->accel, &acc[i],
                     &c2) != TVDS_OK) {
            if (e->status == TVDS_OK) {
                rc = tvds_error_at(ctx, c2.status, c2.src_file, c2.src_line, "%s", c2.msg);
                goto done;
            }
        } else if ((rc = row_sampling(&acc[i], e, ctx))) {
            goto done;
        }
    }
    if (res->contact[0] && (rc = window_growths(m, outdir, o, acc, res, ctx))) goto done;
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
            /* The line the CEA speaks of: the strongest near its frequency. */
            if (o->f_cea > 0.0 && 1.1 * o->f_cea < 0.5 / dt &&
                tvds_dominant_frequency(a->x + i0, nw, dt, 0.9 * o->f_cea, 1.1 * o->f_cea, &f, NULL,
                                        &c2) == TVDS_OK)
                e->f_near_cea = f;
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
            cmp_signal st = {0};
            tvds_ctx_init(&c2);
            snprintf(ch, sizeof ch, "%s.state", res->contact);
            if (read_sig(outdir, mname, "contacts.csv", ch, &st, &c2) == TVDS_OK) {
                long a0, a1, slip = 0;
                window_range(&st, res->t0, res->t1, &a0, &a1);
                for (long k = a0; k < a1; k++)
                    slip += st.x[k] == 2.0;
                if (a1 > a0) e->slip_share = (double)slip / (double)(a1 - a0);
            }
            signal_free(&st);
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
                /* Frames of half the shortest window crossed (a growth inside it shows over
                 * two frames at least), else about 10 ms; at least 64 samples. */
                double span = INFINITY;
                for (int w = 0; w < res->nwindows; w++) {
                    double T = res->windows[w].t1 - res->windows[w].t0;
                    if (T > 0.0 && 0.5 * T < span) span = 0.5 * T;
                }
                nwin = 64;
                if (isfinite(span))
                    while (2 * nwin * dts <= span)
                        nwin *= 2;
                else
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
