/* cea_track.c — the CEA's mode tracking (MAC), mirror symmetry, refinement tests and unstable
 * windows. */
#include "analysis/cea_impl.h"

/* ---- Tracking ---------------------------------------------------------------------------- */

/* MAC of complex vectors a, b (N complex, interleaved). */
static double mac(const double *a, const double *b, int N)
{
    double sr = 0.0, si = 0.0, na = 0.0, nb = 0.0;
    for (int i = 0; i < N; i++) {
        double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        sr += ar * br + ai * bi; /* conj(a) . b */
        si += ar * bi - ai * br;
        na += ar * ar + ai * ai;
        nb += br * br + bi * bi;
    }
    if (!(na > 0) || !(nb > 0)) return 0.0;
    return (sr * sr + si * si) / (na * nb);
}

/* ---- Mirror symmetry (docs/cea.md, "Symmetric and antisymmetric modes") ------------------ */

typedef struct mirror_dof {
    int g, sub, dir;
    long node;
    double x[3];
} mirror_dof;

static int mirror_cmp(const void *a, const void *b)
{
    double xa = ((const mirror_dof *)a)->x[0], xb = ((const mirror_dof *)b)->x[0];
    return (xa > xb) - (xa < xb);
}

void cea_mirror_free(cea_mirror *mr)
{
    tvds_free(mr->dof);
    tvds_free(mr->mir);
    tvds_free(mr->sg);
    memset(mr, 0, sizeof *mr);
}

/* The mirror partner of every translational DoF about the plane x_{plane-1} = 0, matched
 * within 1e-6 of the model's size (the diagonal of its bounding box), preferably in the same
 * substructure (a node on the plane is its own image; two symmetric substructures may also be
 * each other's image). */
int cea_mirror_build(const tvds_model *m, int plane, cea_mirror *mr, tvds_ctx *ctx)
{
    memset(mr, 0, sizeof *mr);
    int n = 0, N = 0;
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        for (int d = 0; d < s->n; d++)
            n += s->dofs[d].kind == TVDS_DOF_PHYSICAL && s->dofs[d].dir >= TVDS_DIR_X &&
                 s->dofs[d].dir <= TVDS_DIR_Z;
    }
    if (n == 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: mirror plane: the model has no translational physical DoF");
    mirror_dof *e = tvds_malloc((size_t)n * sizeof *e);
    mr->dof = tvds_malloc((size_t)n * sizeof(int));
    mr->mir = tvds_malloc((size_t)n * sizeof(int));
    mr->sg = tvds_malloc((size_t)n * sizeof(double));
    if (!e || !mr->dof || !mr->mir || !mr->sg) {
        tvds_free(e);
        cea_mirror_free(mr);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int k = 0;
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        for (int d = 0; d < s->n; d++) {
            const tvds_dof *q = &s->dofs[d];
            if (q->kind != TVDS_DOF_PHYSICAL || q->dir < TVDS_DIR_X || q->dir > TVDS_DIR_Z)
                continue;
            e[k] = (mirror_dof){.g = N + d, .sub = i, .dir = q->dir, .node = q->node};
            for (int c = 0; c < 3; c++) {
                e[k].x[c] = q->xyz[c];
                lo[c] = fmin(lo[c], q->xyz[c]);
                hi[c] = fmax(hi[c], q->xyz[c]);
            }
            k++;
        }
        N += s->n;
    }
    double tol = 1e-6 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                             (hi[2] - lo[2]) * (hi[2] - lo[2]));
    int pc = plane - 1;
    qsort(e, (size_t)n, sizeof *e, mirror_cmp);
    for (int i = 0; i < n; i++) {
        double T[3] = {e[i].x[0], e[i].x[1], e[i].x[2]};
        T[pc] = -T[pc];
        int a = 0, b = n; /* the first entry with x >= T[0] - tol */
        while (a < b) {
            int h = a + (b - a) / 2;
            if (e[h].x[0] < T[0] - tol)
                a = h + 1;
            else
                b = h;
        }
        int best = -1;
        double bd = INFINITY;
        for (int pass = 0; pass < 2 && best < 0; pass++)
            for (int j = a; j < n && e[j].x[0] <= T[0] + tol; j++) {
                if (e[j].dir != e[i].dir || (pass == 0 && e[j].sub != e[i].sub)) continue;
                double dist = fmax(fabs(e[j].x[0] - T[0]),
                                   fmax(fabs(e[j].x[1] - T[1]), fabs(e[j].x[2] - T[2])));
                if (dist <= tol && dist < bd) {
                    bd = dist;
                    best = j;
                }
            }
        if (best < 0) {
            const tvds_substructure *s = m->subs[e[i].sub];
            int rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "cea: mirror plane %c = 0: node %ld of substructure '%s' at "
                                "(%g, %g, %g) m has no mirror image (no %c DoF within "
                                "%.3g m of (%g, %g, %g)): the model is not symmetric about it",
                                "xyz"[pc], e[i].node, s->name ? s->name : "?", e[i].x[0], e[i].x[1],
                                e[i].x[2], "xyz"[e[i].dir], tol, T[0], T[1], T[2]);
            tvds_free(e);
            cea_mirror_free(mr);
            return rc;
        }
        mr->dof[i] = e[i].g;
        mr->mir[i] = e[best].g;
        mr->sg[i] = e[i].dir == pc ? -1.0 : 1.0;
    }
    mr->n = n;
    tvds_free(e);
    return TVDS_OK;
}

/* Antisymmetric share |u_A|^2 / |u|^2 of the complex shape u (N x 2, re/im interleaved) over
 * the translational DoFs, u_A = (u - R u_mirror) / 2 (NaN for a shape without them). */
static double mirror_share(const cea_mirror *mr, const double *u)
{
    double a = 0.0, t = 0.0;
    for (int i = 0; i < mr->n; i++) {
        const double *x = u + 2 * (size_t)mr->dof[i], *y = u + 2 * (size_t)mr->mir[i];
        double dr = 0.5 * (x[0] - mr->sg[i] * y[0]), di = 0.5 * (x[1] - mr->sg[i] * y[1]);
        a += dr * dr + di * di;
        t += x[0] * x[0] + x[1] * x[1];
    }
    return t > 0.0 ? a / t : NAN;
}

void tvds_cea_result_free(tvds_cea_result **r)
{
    if (!r || !*r) return;
    tvds_free((*r)->s);
    tvds_free((*r)->freq);
    tvds_free((*r)->re);
    tvds_free((*r)->zeta);
    tvds_free((*r)->mac);
    tvds_free((*r)->resid);
    tvds_free((*r)->lambda_n);
    tvds_free((*r)->slope);
    tvds_free((*r)->win);
    tvds_free((*r)->anti);
    tvds_free((*r)->failed);
    tvds_free(*r);
    *r = NULL;
}

static double unstable_threshold(const tvds_cea_options *o, double re, double im)
{
    return o->re_tol + 1e-9 * hypot(re, im);
}

/* Follow the branches along the positions P[0..npos-1] (path order) by MAC: the lowest nb
 * candidates at the first position, then a greedy assignment by decreasing MAC (ties, as at a
 * coalescence, by the nearest eigenvalue). Fills freq, re, zeta, mac (npos x nb) and, with a
 * mirror plane mr, the antisymmetric shares anti. */
int cea_track(cea_pos *const *P, int npos, int nb, int ncand, int N, double *freq, double *re,
              double *zeta, double *macv, const cea_mirror *mr, double *anti)
{
    int *cur = tvds_malloc((size_t)nb * sizeof(int)); /* candidate of branch b at p-1 */
    int *nxt = tvds_malloc((size_t)nb * sizeof(int));
    double *macm = tvds_malloc((size_t)nb * ncand * sizeof(double));
    int *taken = tvds_malloc((size_t)ncand * sizeof(int));
    if (!cur || !nxt || !macm || !taken) {
        tvds_free(cur);
        tvds_free(nxt);
        tvds_free(macm);
        tvds_free(taken);
        return TVDS_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++)
        cur[b] = b < P[0]->ncand ? b : -1;
    for (int i = 0; i < npos; i++) {
        const cea_pos *Pi = P[i];
        if (i > 0) {
            const cea_pos *Q = P[i - 1];
            for (int b = 0; b < nb; b++)
                for (int c = 0; c < Pi->ncand; c++)
                    macm[(size_t)b * ncand + c] = cur[b] < 0 ? -1.0
                                                             : mac(Q->u + (size_t)cur[b] * 2 * N,
                                                                   Pi->u + (size_t)c * 2 * N, N);
            for (int c = 0; c < ncand; c++)
                taken[c] = 0;
            for (int b = 0; b < nb; b++)
                nxt[b] = -1;
            for (int step = 0; step < nb; step++) {
                int bb = -1, cc = -1;
                double best = -2.0, bestd = 0.0;
                for (int b = 0; b < nb; b++) {
                    if (nxt[b] >= 0 || cur[b] < 0) continue;
                    for (int c = 0; c < Pi->ncand; c++) {
                        if (taken[c]) continue;
                        double v = macm[(size_t)b * ncand + c];
                        double d = hypot(Pi->lre[c] - Q->lre[cur[b]], Pi->lim[c] - Q->lim[cur[b]]);
                        if (v > best + 1e-9 || (fabs(v - best) <= 1e-9 && d < bestd)) {
                            best = v;
                            bestd = d;
                            bb = b;
                            cc = c;
                        }
                    }
                }
                if (bb < 0) break;
                nxt[bb] = cc;
                taken[cc] = 1;
                macv[(size_t)i * nb + bb] = best;
            }
            for (int b = 0; b < nb; b++) {
                cur[b] = nxt[b];
                if (nxt[b] < 0) macv[(size_t)i * nb + b] = NAN;
            }
        } else {
            for (int b = 0; b < nb; b++)
                macv[b] = 1.0;
        }
        for (int b = 0; b < nb; b++) {
            size_t k = (size_t)i * nb + b;
            if (cur[b] < 0) {
                freq[k] = re[k] = zeta[k] = NAN;
                if (anti) anti[k] = NAN;
                continue;
            }
            if (anti) anti[k] = mirror_share(mr, Pi->u + (size_t)cur[b] * 2 * N);
            double lr = Pi->lre[cur[b]], li = Pi->lim[cur[b]];
            freq[k] = li / (2.0 * TVDS_PI);
            re[k] = lr;
            zeta[k] = -lr / hypot(lr, li);
        }
    }
    tvds_free(cur);
    tvds_free(nxt);
    tvds_free(macm);
    tvds_free(taken);
    return TVDS_OK;
}

/* Distance |lambda_b - lambda_c| at position i (NaN when a branch has no mode there). */
static double pair_gap(int nb, const double *freq, const double *re, int i, int b, int c)
{
    size_t kb = (size_t)i * nb + b, kc = (size_t)i * nb + c;
    return hypot(re[kb] - re[kc], 2 * TVDS_PI * (freq[kb] - freq[kc]));
}

/* Whether the interval between positions i and i + 1 (of npos) needs a position in its middle
 * (docs/cea.md, "Refinement"):
 *  - a branch changes stability between the two ends;
 *  - a clearly damped branch could come within zeta_near |lambda| of zero inside (its real
 *    part at the higher end plus three times its change over the interval);
 *  - two branches could meet inside: the sum of their distances at the ends is below twice
 *    the change of their difference over the interval (a crossing or coalescence between the
 *    ends), or their
 *    distance is a local minimum along the positions at one end and below gap_rel |lambda|
 *    (they approach and recede within one interval). */
int cea_needs_split(const tvds_cea_options *o, int nb, int npos, const double *freq,
                    const double *re, int i)
{
    const double *f0 = freq + (size_t)i * nb, *f1 = f0 + nb, *r0 = re + (size_t)i * nb,
                 *r1 = r0 + nb;
    for (int b = 0; b < nb; b++) {
        if (!isfinite(f0[b]) || !isfinite(f1[b])) continue;
        double w0 = 2 * TVDS_PI * f0[b], w1 = 2 * TVDS_PI * f1[b];
        double l0 = hypot(r0[b], w0), l1 = hypot(r1[b], w1);
        int u0 = r0[b] > unstable_threshold(o, r0[b], w0);
        int u1 = r1[b] > unstable_threshold(o, r1[b], w1);
        if (u0 != u1) return 1;
        double rmax = r0[b] > r1[b] ? r0[b] : r1[b], dre = fabs(r1[b] - r0[b]);
        double l = l0 > l1 ? l0 : l1;
        /* Clearly damped (not a conservative zero) but could reach -zeta_near |lambda| inside
         * with three times its change over the interval. */
        if (!u0 && rmax < -1e-8 * l && rmax + 3 * dre > -o->zeta_near * l) return 1;
        for (int c = b + 1; c < nb; c++) {
            if (!isfinite(f0[c]) || !isfinite(f1[c])) continue;
            double d0 = pair_gap(nb, freq, re, i, b, c), d1 = pair_gap(nb, freq, re, i + 1, b, c);
            /* Their difference D = lambda_b - lambda_c moves by |D1 - D0|; if it went through
             * zero on a straight line, d0 + d1 = |D1 - D0|. */
            double dD = hypot((r1[b] - r1[c]) - (r0[b] - r0[c]),
                              2 * TVDS_PI * ((f1[b] - f1[c]) - (f0[b] - f0[c])));
            if (d0 + d1 <= 2 * dD) return 1;
            double dmin = d0 < d1 ? d0 : d1;
            if (!(dmin < o->gap_rel * l)) continue;
            double dm = i > 0 ? pair_gap(nb, freq, re, i - 1, b, c) : INFINITY;
            double dp = i + 2 < npos ? pair_gap(nb, freq, re, i + 2, b, c) : INFINITY;
            if (!isfinite(dm)) dm = INFINITY;
            if (!isfinite(dp)) dp = INFINITY;
            if ((d0 <= dm && d0 <= d1) || (d1 <= d0 && d1 <= dp)) return 1;
        }
    }
    return 0;
}

/* Whether some branch is unstable at both ends of the interval (i, i + 1) with a real part
 * that changes by more than 5 % of the larger one (the growth integral needs it resolved). */
int cea_interval_unstable(const tvds_cea_options *o, int nb, const double *freq, const double *re,
                          int i)
{
    for (int b = 0; b < nb; b++) {
        size_t k0 = (size_t)i * nb + b, k1 = k0 + nb;
        if (!isfinite(re[k0]) || !isfinite(re[k1])) continue;
        if (re[k0] > unstable_threshold(o, re[k0], 2 * TVDS_PI * freq[k0]) &&
            re[k1] > unstable_threshold(o, re[k1], 2 * TVDS_PI * freq[k1]) &&
            fabs(re[k1] - re[k0]) > 0.05 * fmax(re[k0], re[k1]))
            return 1;
    }
    return 0;
}

/* Linear interpolation of the position where y crosses 0 between (s0, y0) and (s1, y1). */
static double cross_at(double s0, double y0, double s1, double y1)
{
    if (!isfinite(y0) || !isfinite(y1) || y0 == y1) return 0.5 * (s0 + s1);
    double a = y0 / (y0 - y1);
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    return s0 + a * (s1 - s0);
}

int cea_find_windows(tvds_cea_result *res, const tvds_cea_options *o)
{
    int cap = 0, nb = res->nbranch, npos = res->npos;
    const double *s = res->s;
    for (int b = 0; b < nb; b++) {
        int open = 0;
        for (int i = 0; i < npos; i++) {
            size_t k = (size_t)i * nb + b;
            double w = 2 * TVDS_PI * res->freq[k];
            double y = isfinite(res->re[k]) ? res->re[k] - unstable_threshold(o, res->re[k], w)
                                            : -INFINITY;
            int uns = y > 0;
            if (uns && !open) {
                if (res->nwin == cap) {
                    int nc2 = cap ? 2 * cap : 8;
                    tvds_cea_window *w2 = tvds_realloc(res->win, (size_t)nc2 * sizeof *w2);
                    if (!w2) return TVDS_ERR_NOMEM;
                    res->win = w2;
                    cap = nc2;
                }
                tvds_cea_window *cw = &res->win[res->nwin++];
                cw->branch = b;
                cw->s_start = cw->s_end = s[i];
                cw->f_min = cw->f_max = cw->f_peak = res->freq[k];
                cw->re_max = res->re[k];
                cw->s_peak = s[i];
                cw->anti_peak = res->anti ? res->anti[k] : NAN;
                cw->s_in = s[i];
                if (i > 0) {
                    size_t kp = (size_t)(i - 1) * nb + b;
                    double yp = isfinite(res->re[kp])
                                    ? res->re[kp] - unstable_threshold(o, res->re[kp],
                                                                       2 * TVDS_PI * res->freq[kp])
                                    : NAN;
                    cw->s_in = isfinite(yp) ? cross_at(s[i - 1], yp, s[i], y) : s[i];
                }
                cw->s_out = s[i];
                cw->t_start = cw->t_end = cw->growth_pred = NAN;
                open = 1;
            } else if (uns) {
                tvds_cea_window *cw = &res->win[res->nwin - 1];
                cw->s_end = cw->s_out = s[i];
                if (res->freq[k] < cw->f_min) cw->f_min = res->freq[k];
                if (res->freq[k] > cw->f_max) cw->f_max = res->freq[k];
                if (res->re[k] > cw->re_max) {
                    cw->re_max = res->re[k];
                    cw->f_peak = res->freq[k];
                    cw->s_peak = s[i];
                    cw->anti_peak = res->anti ? res->anti[k] : NAN;
                }
            } else if (open) {
                tvds_cea_window *cw = &res->win[res->nwin - 1];
                size_t kp = (size_t)(i - 1) * nb + b;
                double yp =
                    res->re[kp] - unstable_threshold(o, res->re[kp], 2 * TVDS_PI * res->freq[kp]);
                cw->s_out = isfinite(y) ? cross_at(s[i - 1], yp, s[i], y) : s[i - 1];
                open = 0;
            }
        }
    }
    return TVDS_OK;
}
