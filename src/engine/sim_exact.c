/* sim_exact.c — exact propagation of the uncoupled damped modal oscillators, written as central
 * differences with a per-mode mass and damping (docs/theory.md 10b). */
#include <math.h>
#include <string.h>

#include "engine/sim_impl.h"

void sim_exact_coeffs(double w2, double c, double h, double *a1, double *a2, double *bh,
                      double *chat)
{
    /* Roots s1, s2 of s^2 + c s + w2: the free recurrence x_{n+1} = a1 x_n - a2 x_{n-1} has
     * a1 = e^{s1 h} + e^{s2 h}, a2 = e^{-c h}. q = (1 - e^{s1 h})(1 - e^{s2 h}) = 1 - a1 + a2,
     * evaluated without cancellation (expm1) since it is O((w h)^2) for the low modes. */
    double sg = 0.5 * c, q, e2 = -expm1(-c * h); /* e2 = 1 - a2 */
    *a2 = exp(-c * h);
    if (sg * sg < w2) {
        double w = sqrt(w2), wd = sqrt((w - sg) * (w + sg)), x = -sg * h, y = wd * h;
        double ex = exp(x), em = expm1(x), sy = sin(y), cy = cos(y), s2 = sin(0.5 * y);
        double re = em * cy - 2.0 * s2 * s2, im = ex * sy; /* e^{s h} - 1 */
        q = re * re + im * im;
        *a1 = 2.0 * ex * cy;
    } else {
        double sd = sqrt((sg - sqrt(w2)) * (sg + sqrt(w2)));
        double s2r = -sg - sd, s1r = sg + sd > 0.0 ? -w2 / (sg + sd) : 0.0;
        q = expm1(s1r * h) * expm1(s2r * h);
        *a1 = exp(s1r * h) + exp(s2r * h);
    }
    double b; /* one-step response to a force at t_n, exact for a constant force */
    if (w2 > 0.0)
        b = q / w2;
    else if (c > 0.0)
        b = h * e2 / c; /* free mass with damping: exact drift under a constant force */
    else
        b = h * h;
    *bh = b / (h * h);
    *chat = b > 0.0 ? e2 * h / b : 0.0;
}

void sim_exact_free(sim_sub *s)
{
    tvds_free(s->bh);
    tvds_free(s->chat);
    tvds_free(s->mhat);
    if (s->Yx != s->Y) tvds_free(s->Yx);
    s->bh = s->chat = s->mhat = NULL;
    s->Yx = s->Y;
}

int sim_exact_setup(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h;
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        if (!s->modal) continue; /* the dense path stays central differences */
        const tvds_damping *dp = m->damping ? &m->damping[i] : NULL;
        int n = s->n;
        /* Damping in the propagator: the smallest of the schedule's values, so that the
         * explicit remainder (backward velocity, as central differences) only adds
         * dissipation. */
        double ar = 0.0, br = 0.0, da = 0.0, db = 0.0;
        if (dp && s->damp_kind == TVDS_DAMP_RAYLEIGH) {
            ar = dp->alpha, br = dp->beta;
            if (dp->t_hold > 0.0 || dp->t_ramp > 0.0) {
                ar = fmin(dp->alpha, dp->alpha0), br = fmin(dp->beta, dp->beta0);
                da = fmax(dp->alpha, dp->alpha0) - ar, db = fmax(dp->beta, dp->beta0) - br;
            }
        }
        s->a_ref = ar, s->b_ref = br;
        s->bh = tvds_calloc((size_t)n, sizeof(double));
        s->chat = tvds_calloc((size_t)n, sizeof(double));
        s->mhat = tvds_calloc((size_t)n, sizeof(double));
        s->Yx = tvds_calloc((size_t)n * n, sizeof(double));
        if (!s->bh || !s->chat || !s->mhat || !s->Yx) {
            if (!s->Yx) s->Yx = s->Y;
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory (exact modal propagation)");
        }
        for (int k = 0; k < n; k++) {
            double a1, a2;
            sim_exact_coeffs(s->w2[k], ar + br * s->w2[k], h, &a1, &a2, &s->bh[k], &s->chat[k]);
            if (!(s->bh[k] > 0.0)) /* undamped, w h a multiple of 2 pi: forces cannot move it */
                return TVDS_ERROR(ctx, TVDS_ERR_UNSTABLE_DT,
                                  "substructure '%s': the undamped mode at %.6g Hz has w dt a "
                                  "multiple of 2 pi at dt = %g s (exact modal propagation): "
                                  "change dt",
                                  m->subs[i]->name ? m->subs[i]->name : "?",
                                  sqrt(s->w2[k]) / 6.283185307179586, h);
            s->mhat[k] = 1.0 / s->bh[k];
            /* Explicit remainder e = b dc / h on the backward velocity: the recurrence
             * z^2 - (a1 - e) z + (a2 - e) is stable iff 2 e < 1 + a1 + a2 (e >= 0). */
            double e = s->bh[k] * h * (da + db * s->w2[k]);
            if (e > 0.0 && !(2.0 * e < 1.0 + a1 + a2))
                return TVDS_ERROR(ctx, TVDS_ERR_UNSTABLE_DT,
                                  "substructure '%s': the damping schedule's change (alpha %g "
                                  "1/s, beta %g s) is unstable as an explicit term at dt = %g s "
                                  "for the mode at %.6g Hz (exact modal propagation)",
                                  m->subs[i]->name ? m->subs[i]->name : "?", da, db, h,
                                  sqrt(s->w2[k]) / 6.283185307179586);
        }
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                s->Yx[k + (size_t)j * n] = s->bh[k] * s->Y[k + (size_t)j * n];
        /* W = h^2 B_C G B_E^T with G the one-step flexibility on the candidates. */
        int rc = sim_cand_flex(s, s->bh, ctx);
        if (rc) return rc;
        rc = sim_cand_comp(m->subs[i], s, 1, ctx);
        if (rc) return rc;
    }
    return TVDS_OK;
}
