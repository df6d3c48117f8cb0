/* sim_record.c — published channels (probes, contacts, energies) and summary scalars, the
 * energy bookkeeping of central differences and the runaway-energy check. */
#include <cblas.h>
#include <float.h>
#include <math.h>

#include "engine/elements_impl.h"
#include "engine/sim_impl.h"

/* Element channels from d->el_res (history group, after the probes). */
static void publish_elements(const tvds_model *m, tvds_data *d)
{
    double *hv = d->chval[TVDS_GROUP_HISTORY] + d->el_ch0;
    for (int e = 0, j = 0; e < m->nel; e++) {
        if (m->elements[e].kind != TVDS_EL_ELASTIC_FRICTION) continue;
        for (int k = 0; k < TVDS_EL_NRES; k++)
            hv[TVDS_EL_NRES * j + k] = d->el_res[(size_t)e * TVDS_EL_NRES + k];
        j++;
    }
}

static double dotn(const double *a, const double *b, int n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

/* prow[p] . x of state buffer which (0 x, 1 x_new, 2 x_prev, 4 x_old), cached by buffer
 * version: a value computed for x_new is reused as x and x_prev by the next two steps. */
static double probe_dot(tvds_data *d, int p, int sub, int which)
{
    const sim_sub *s = &d->sub[sub];
    long v = which == 4 ? s->ver_old : s->ver[which];
    double *pd = d->pdot + 3 * p;
    long *pv = d->pdotv + 3 * p;
    int old = 0;
    for (int q = 0; q < 3; q++) {
        if (pv[q] == v) return pd[q];
        if (pv[q] < pv[old]) old = q;
    }
    const double *x = which == 0 ? s->x : which == 1 ? s->x_new : which == 2 ? s->x_prev : s->x_old;
    int k = d->pone[p];
    pd[old] = k >= 0 ? d->prow[p][k] * x[k] : dotn(d->prow[p], x, s->n);
    pv[old] = v;
    return pd[old];
}

/* v^T M v (modal: |v|^2) and a^T K b (modal: sum w2 a b) in coordinates. */
static double mass_norm(const tvds_model *m, sim_sub *s, int i, const double *v)
{
    if (s->modal) return dotn(v, v, s->n);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s->n, s->n, 1.0, m->subs[i]->M, s->n, v, 1, 0.0,
                s->tmp, 1);
    return dotn(s->tmp, v, s->n);
}

static double stiff_prod(const tvds_model *m, sim_sub *s, int i, const double *a, const double *b)
{
    int n = s->n;
    if (s->modal) {
        double e = 0.0;
        for (int k = 0; k < n; k++)
            e += s->w2[k] * a[k] * b[k];
        return e;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, m->subs[i]->K, n, a, 1, 0.0, s->tmp, 1);
    return dotn(s->tmp, b, n);
}

/* Central-difference energy between t_n and t_{n+1}: 1/2 v_{n+1/2}^T M v_{n+1/2} (kinetic)
 * and 1/2 u_n^T K u_{n+1} (strain) — exactly conserved by the scheme in free vibration. */
/* Central-difference energy of substructure i between (xa, xb) = (x_{n-1}, x_n) (next = 0) or
 * (x_n, x_{n+1}) (next = 1), added to *ek, *es. With w (may be NULL, modal path only) the same
 * pass adds the work of fext, fel, fdamp over the central increment (x_{n+1} - x_{n-1})/2 to
 * w[0..2]. */
static void sub_energy(const tvds_model *m, tvds_data *d, int i, int next, double *ek, double *es,
                       double *w)
{
    sim_sub *s = &d->sub[i];
    const double *restrict xa = next ? s->x : s->x_prev, *restrict xb = next ? s->x_new : s->x;
    int n = s->n;
    if ((s->modal || s->lumped) && !ek) {
        /* The work terms alone (a step whose energy is not sampled): one pass over four
         * streams. A non-finite x_new makes them NaN (0 * inf as well). */
        const double *restrict xp = s->x_prev, *restrict fe = s->fext, *restrict fl = s->fel,
                               *restrict fd = s->fdamp;
        double we = 0.0, wl = 0.0, wd = 0.0;
        if (next && s->modal && !d->fel_used && s->work_ver == s->ver[1]) {
            /* Summed by the corrector's pass over the final x_new (sim_correct). */
            w[0] += s->work[0];
            w[2] += s->work[1];
            return;
        }
        if (d->fel_used) {
#pragma omp simd reduction(+ : we, wl, wd)
            for (int j = 0; j < n; j++) {
                double dx = 0.5 * (xb[j] - xp[j]);
                we += fe[j] * dx;
                wl += fl[j] * dx;
                wd += fd[j] * dx;
            }
        } else if (s->fext_kind == 0) {
            /* fext is 0: no external work (wd still turns a non-finite x_new into NaN). */
#pragma omp simd reduction(+ : wd)
            for (int j = 0; j < n; j++)
                wd += fd[j] * (0.5 * (xb[j] - xp[j]));
        } else {
#pragma omp simd reduction(+ : we, wd)
            for (int j = 0; j < n; j++) {
                double dx = 0.5 * (xb[j] - xp[j]);
                we += fe[j] * dx;
                wd += fd[j] * dx;
            }
        }
        w[0] += we;
        w[1] += wl;
        w[2] += wd;
        return;
    }
    if (s->lumped) {
        /* K xa by the sparse product (K x_n: the predictor's, when still in cpush), then
         * v^T M v, xb^T K xa and the work terms in one pass. */
        double *restrict kxa = s->cpush;
        if (!(next && s->kx_ver == s->ver[0])) {
            sim_lumped_kx(s, xa, NULL, kxa, NULL);
            s->kx_ver = next ? s->ver[0] : -1;
        }
        const double *restrict xp = s->x_prev, *restrict fe = s->fext, *restrict fl = s->fel,
                               *restrict fd = s->fdamp, *restrict md = s->mdiag;
        double rh = 1.0 / d->h, k0 = 0.0, s0 = 0.0, we = 0.0, wl = 0.0, wd = 0.0;
#pragma omp simd reduction(+ : k0, s0, we, wl, wd)
        for (int j = 0; j < n; j++) {
            double v0 = (xb[j] - xa[j]) * rh, dx = 0.5 * (xb[j] - xp[j]);
            k0 += md[j] * v0 * v0;
            s0 += kxa[j] * xb[j];
            we += fe[j] * dx;
            wl += fl[j] * dx;
            wd += fd[j] * dx;
        }
        if (w) {
            w[0] += we;
            w[1] += wl;
            w[2] += wd;
        }
        *ek += 0.5 * k0;
        *es += 0.5 * s0;
        return;
    }
    if (s->modal) {
        /* Fused: |v|^2 and sum w2 xa xb in one pass. */
        const double *restrict w2 = s->w2;
        double rh = 1.0 / d->h, k0 = 0.0, s0 = 0.0;
        if (s->bh) {
            /* Exact modal propagation: central differences with the modal mass 1/bh, whose
             * energy and work terms are those below with that mass (docs/theory.md). */
            const double *restrict xp = s->x_prev, *restrict fe = s->fext, *restrict fl = s->fel,
                                   *restrict fd = s->fdamp, *restrict mh = s->mhat;
            double we = 0.0, wl = 0.0, wd = 0.0;
#pragma omp simd reduction(+ : k0, s0, we, wl, wd)
            for (int j = 0; j < n; j++) {
                double v0 = (xb[j] - xa[j]) * rh, dx = 0.5 * (xb[j] - xp[j]);
                k0 += mh[j] * v0 * v0;
                s0 += w2[j] * xa[j] * xb[j];
                we += fe[j] * dx;
                wl += fl[j] * dx;
                wd += fd[j] * dx;
            }
            if (w) {
                w[0] += we;
                w[1] += wl;
                w[2] += wd;
            }
        } else if (w) {
            const double *restrict xp = s->x_prev, *restrict fe = s->fext, *restrict fl = s->fel,
                                   *restrict fd = s->fdamp;
            double we = 0.0, wl = 0.0, wd = 0.0;
            if (d->fel_used) {
#pragma omp simd reduction(+ : k0, s0, we, wl, wd)
                for (int j = 0; j < n; j++) {
                    double v0 = (xb[j] - xa[j]) * rh, dx = 0.5 * (xb[j] - xp[j]);
                    k0 += v0 * v0;
                    s0 += w2[j] * xa[j] * xb[j];
                    we += fe[j] * dx;
                    wl += fl[j] * dx;
                    wd += fd[j] * dx;
                }
            } else { /* fel = 0 */
#pragma omp simd reduction(+ : k0, s0, we, wd)
                for (int j = 0; j < n; j++) {
                    double v0 = (xb[j] - xa[j]) * rh, dx = 0.5 * (xb[j] - xp[j]);
                    k0 += v0 * v0;
                    s0 += w2[j] * xa[j] * xb[j];
                    we += fe[j] * dx;
                    wd += fd[j] * dx;
                }
            }
            w[0] += we;
            w[1] += wl;
            w[2] += wd;
        } else {
#pragma omp simd reduction(+ : k0, s0)
            for (int j = 0; j < n; j++) {
                double v0 = (xb[j] - xa[j]) * rh;
                k0 += v0 * v0;
                s0 += w2[j] * xa[j] * xb[j];
            }
        }
        *ek += 0.5 * k0;
        *es += 0.5 * s0;
        return;
    }
    for (int j = 0; j < n; j++)
        s->cpush[j] = (xb[j] - xa[j]) / d->h;
    *ek += 0.5 * mass_norm(m, s, i, s->cpush);
    *es += 0.5 * stiff_prod(m, s, i, xa, xb);
}

/* Central-difference energy between t_n and t_{n+1}: 1/2 v_{n+1/2}^T M v_{n+1/2} (kinetic)
 * and 1/2 u_n^T K u_{n+1} (strain) — exactly conserved by the scheme in free vibration. */
static void cd_energy(const tvds_model *m, tvds_data *d, int next, double *ek, double *es)
{
    *ek = *es = 0.0;
    for (int i = 0; i < d->nsub; i++)
        sub_energy(m, d, i, next, ek, es, NULL);
}

void sim_publish_summary(tvds_data *d)
{
    double *v = d->sumval;
    v[SM_STEPS] = (double)d->sum_step;
    v[SM_DT] = d->h;
    v[SM_T] = d->t0 + (double)d->sum_step * d->h;
    v[SM_BAL] = d->e_max > 0.0 ? d->bal_err_max / d->e_max : 0.0;
    v[SM_EMAX] = d->e_max;
    v[SM_FILM_MEAN] = d->film_steps > 0 ? (double)d->film_iter_sum / (double)d->film_steps : 0.0;
    v[SM_FILM_MAX] = (double)d->film_iter_max;
    v[SM_AS_MAX] = (double)d->as_iter_max;
    v[SM_AS_NC] = (double)d->as_nonconv;
    v[SM_FILM_NC] = (double)d->film_nonconv;
    v[SM_REDUNDANT] = (double)d->n_redundant;
    v[SM_FILM_FIN] = (double)d->film_finished;
    v[SM_AS_LEAST] = (double)d->as_least;
    /* The bound: the step-size term plus the round-off of the sums over the steps: 1024 ulps
     * of the energy scale per step (the step's energy and work terms, a few tens of sums of
     * a few tens of ulps each: docs/theory.md 12), and 64 of every work term put in. */
    double hb = 0.0;
    if (d->e_max > 0.0)
        hb = (d->w_hbound + 1024.0 * DBL_EPSILON * (double)(d->sum_step + 1) * d->e_max +
              64.0 * DBL_EPSILON * d->inputs_abs) /
             d->e_max;
    v[SM_BAL_BOUND] = hb;
    v[SM_BAL_OVER] = v[SM_BAL] > hb ? 1.0 : 0.0;
    /* Per contact, the sum over its points in their order: one pass over the points. */
    for (int c = 0; c < d->nctc; c++)
        v[SM_N + 2 * c] = v[SM_N + 2 * c + 1] = 0.0;
    for (int i = 0; i < d->ncp; i++) {
        const sim_cp *p = &d->cp[i];
        if (p->nwin == 0) continue;
        v[SM_N + 2 * p->contact] += p->sum_pf / (double)p->nwin;
        v[SM_N + 2 * p->contact + 1] += p->sum_pw / (double)p->nwin;
    }
}

/* Probes at t_n from the state buffers holding x_{n-1}, x_n, x_{n+1}: b[0], b[1], b[2]
 * (during sim_record: x_prev 2, x 0, x_new 1; after the rotation: x_old 4, x_prev 2, x 0).
 * kinds: 1 the velocity and acceleration probes, 2 the displacement probes, 3 all. */
static void publish_probes(tvds_data *d, const tvds_model *m, double t, const int b[3], int kinds)
{
    double *hv = d->chval[TVDS_GROUP_HISTORY];
    hv[0] = t;
    for (int p = 0; p < m->nprobe; p++) {
        const tvds_probe *P = &m->probes[p];
        int sb = P->sub;
        double val;
        if (!(kinds & (P->kind == TVDS_PROBE_U ? 2 : 1))) continue;
        if (P->kind == TVDS_PROBE_V)
            val = (probe_dot(d, p, sb, b[2]) - probe_dot(d, p, sb, b[0])) / (2.0 * d->h);
        else if (P->kind == TVDS_PROBE_A)
            val = (probe_dot(d, p, sb, b[2]) - 2.0 * probe_dot(d, p, sb, b[1]) +
                   probe_dot(d, p, sb, b[0])) /
                  (d->h * d->h);
        else
            val = probe_dot(d, p, sb, b[1]);
        hv[1 + p] = val;
    }
    if (kinds == 3) d->probes_stale = 0;
}

/* Energy E = ek + es at t_{n+1/2} of the last recorded step with the work sums accumulated
 * up to it: the balance error, its maximum, the energy scale, and the energy channels. */
static void energy_balance(tvds_data *d, double ek, double es)
{
    double etot = ek + es;
    d->e_kin = ek;
    d->e_strain = es;
    d->bal_err = etot + d->w_damp + d->w_fric - d->e0 - d->w_ext - d->w_el - d->w_imp;
    if (fabs(d->bal_err) > d->bal_err_max) d->bal_err_max = fabs(d->bal_err);
    double sc = fabs(etot), win = fabs(d->w_ext) + fabs(d->w_imp) + fabs(d->w_el);
    if (fabs(d->e0) > sc) sc = fabs(d->e0);
    if (win > sc) sc = win;
    if (sc > d->e_max) d->e_max = sc;
    double *ev = d->chval[TVDS_GROUP_ENERGY];
    ev[1 + EN_KIN] = ek;
    ev[1 + EN_STRAIN] = es;
    ev[1 + EN_BAL] = d->bal_err;
}

int tvds_set_record(tvds_data *d, int every)
{
    if (!d || every < 0) return TVDS_ERR_INVALID;
    d->rec_every = every;
    d->rec_phase = every > 1 ? (int)(d->step % every) : 0;
    return TVDS_OK;
}

int tvds_channels_update(const tvds_model *m, tvds_data *d)
{
    if (!m || !d) return TVDS_ERR_INVALID;
    if (d->energy_stale) {
        /* E_{n+1/2} of the last step from x_n, x_{n+1}, which the rotation left in x_prev
         * and x (a failed step does not rotate: the skipped energy is still the last one). */
        double ek = 0.0, es = 0.0;
        cd_energy(m, d, 0, &ek, &es);
        energy_balance(d, ek, es);
        /* The summary's balance figures (the rest of it is that of the last step). */
        d->sumval[SM_BAL] = d->e_max > 0.0 ? d->bal_err_max / d->e_max : 0.0;
        d->sumval[SM_EMAX] = d->e_max;
        d->energy_stale = 0;
    }
    if (!d->probes_stale) return TVDS_OK;
    /* x_{n-1}, x_n and x_{n+1} of the last successful step are in x_old, x_prev and x (a
     * failed step writes x_new only). */
    static const int rotated[3] = {4, 2, 0};
    publish_probes(d, m, d->t_pub, rotated, 3);
    return TVDS_OK;
}

void sim_record_initial(const tvds_model *m, tvds_data *d)
{
    /* E at t_{-1/2}: the reference of the balance. */
    double ek = 0.0, es = 0.0;
    cd_energy(m, d, 0, &ek, &es);
    d->e0 = ek + es;
    d->e_kin = ek;
    d->e_strain = es;
    d->e_max = fabs(d->e0);
    d->inputs_abs = 0.0;
    d->w_hbound = 0.0;
    d->t_pub = d->t0;
    /* Probes at t_0 with u0 and v0 (x_new holds nothing meaningful yet: use x and x_prev). */
    double *hv = d->chval[TVDS_GROUP_HISTORY];
    hv[0] = d->t0;
    for (int p = 0; p < m->nprobe; p++) {
        const tvds_probe *P = &m->probes[p];
        const sim_sub *s = &d->sub[P->sub];
        const double *r = d->prow[p];
        if (P->kind == TVDS_PROBE_U)
            hv[1 + p] = dotn(r, s->x, s->n);
        else if (P->kind == TVDS_PROBE_V)
            hv[1 + p] = (dotn(r, s->x, s->n) - dotn(r, s->x_prev, s->n)) / d->h;
        else
            hv[1 + p] = 0.0;
    }
    publish_elements(m, d);
    d->chval[TVDS_GROUP_CONTACTS][0] = d->t0;
    d->chval[TVDS_GROUP_ENERGY][0] = d->t0;
    d->chval[TVDS_GROUP_ENERGY][1 + EN_KIN] = ek;
    d->chval[TVDS_GROUP_ENERGY][1 + EN_STRAIN] = es;
    for (int i = 0; i < d->ncp; i++) {
        const sim_cp *c = &d->cp[i];
        double *o = d->chval[TVDS_GROUP_CONTACTS] + 1 + CC_N * i;
        o[CC_STATE] = c->state;
        o[CC_SEG] = -1.0;
        if (c->pen) {
            /* The penalty law was evaluated at t_0 (its forces act on step 0). */
            o[CC_LAMN] = c->lam_n;
            o[CC_LAMT] = c->ft[0];
            o[CC_GAP] = c->gap;
            o[CC_SEG] = c->seg;
            o[CC_S] = c->s;
            o[CC_VSLIDE] = c->vt[0];
        }
    }
    d->sum_step = d->step;
    sim_publish_summary(d);
    d->summary_stale = 0;
}

/* TVDS_ERR_DIVERGED naming the first non-finite coordinate of substructure i after the
 * constraint correction, or TVDS_OK when x_{n+1} is finite (an overflow of the energy sums
 * is then left to the runaway-energy check). */
static int nonfinite_state(const tvds_model *m, const tvds_data *d, int i, tvds_ctx *ctx)
{
    const sim_sub *s = &d->sub[i];
    double t = d->t0 + (double)d->step * d->h;
    for (int k = 0; k < s->n; k++)
        if (!isfinite(s->x_new[k]))
            return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                              "t = %.9g s, step %ld: non-finite state in substructure '%s' "
                              "(coordinate %d) after the constraint correction",
                              t, d->step, m->subs[i]->name ? m->subs[i]->name : "?", k);
    return TVDS_OK;
}

int sim_record(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h, tn = d->t0 + (double)d->step * h;
    /* Work of the forces at t_n over the central increment dx = (x_{n+1} - x_{n-1}) / 2. */
    double dWext = 0.0, dWel = 0.0, dDamp = 0.0, dWimp = 0.0, dDf = 0.0, dWn = 0.0, dHb = 0.0;
    /* Energies at t_{n+1/2}, fused with the work loop on the modal path, at the steps whose
     * displacement channels are published (tvds_set_record) and every SIM_ENERGY_EVERY steps
     * (the runaway-energy guard); the work terms at every step. tvds_channels_update
     * evaluates a skipped step's energy (docs/theory.md 12). */
    long done = d->step + 1; /* steps completed with this one */
    int all = d->rec_every == 1 || (d->rec_every > 1 && d->rec_phase == d->rec_every - 1);
    int energy_now = all || done % SIM_ENERGY_EVERY == 0;
    double ek = 0.0, es = 0.0;
    for (int i = 0; i < d->nsub; i++) {
        const sim_sub *s = &d->sub[i];
        if (!energy_now && s->modal && !d->fel_used && s->work_ver == s->ver[1]) {
            /* The work sums the corrector's (or the predictor's) pass left with the final
             * x_new (sub_energy's first case, without the call). */
            dWext += s->work[0];
            dDamp += s->work[1];
            if (!isfinite(s->work[0] + s->work[1])) {
                int rc = nonfinite_state(m, d, i, ctx);
                if (rc) return rc;
            }
            continue;
        }
        if (s->modal || s->lumped) {
            double w[3] = {0.0, 0.0, 0.0}, ek0 = ek, es0 = es;
            sub_energy(m, d, i, 1, energy_now ? &ek : NULL, &es, w);
            dWext += w[0];
            dWel += w[1];
            dDamp += w[2];
            /* The kinetic energy sums (x_{n+1} - x_n)^2, the work terms the increments
             * x_{n+1} - x_{n-1}: not finite when x_{n+1} is not. */
            if (!isfinite(ek - ek0) || !isfinite(es - es0) || !isfinite(w[0] + w[1] + w[2])) {
                int rc = nonfinite_state(m, d, i, ctx);
                if (rc) return rc;
            }
            continue;
        }
        const double *restrict xn = s->x_new, *restrict xp = s->x_prev, *restrict fe = s->fext,
                               *restrict fl = s->fel, *restrict fd = s->fdamp;
        double we = 0.0, wl = 0.0, wd = 0.0;
        int n = s->n;
#pragma omp simd reduction(+ : we, wl, wd)
        for (int k = 0; k < n; k++) {
            double dx = 0.5 * (xn[k] - xp[k]);
            we += fe[k] * dx;
            wl += fl[k] * dx;
            wd += fd[k] * dx;
        }
        dWext += we;
        dWel += wl;
        dDamp += wd;
        double ek0 = ek, es0 = es;
        if (energy_now) sub_energy(m, d, i, 1, &ek, &es, NULL);
        if (!isfinite(ek - ek0) || !isfinite(es - es0) || !isfinite(we + wl + wd)) {
            int rc = nonfinite_state(m, d, i, ctx);
            if (rc) return rc;
        }
    }
    /* Bilateral constraints: work of imposed motions. */
    for (int r = 0; r < d->nrow; r++) {
        const sim_row *R = &d->row[r];
        if (R->kind != 0) continue;
        double du = 0.0;
        for (int e = R->off; e < R->off + R->ne; e++) {
            du += d->p_be[e] * 0.5 *
                  (sim_u(d, d->p_sub[e], d->p_dof[e], 1) - sim_u(d, d->p_sub[e], d->p_dof[e], 2));
        }
        dWimp += -d->lam[r] * du;
    }
    /* Contact points. */
    int inwin = m->opt.win_t1 > m->opt.win_t0
                    ? (tn >= m->opt.win_t0 - 1e-12 * h && tn <= m->opt.win_t1 + 1e-12 * h)
                    : 1;
    double dEl = 0.0; /* dissipation in the laws over this step */
    for (int e = 0; e < m->nel; e++)
        dEl += d->el_res[(size_t)e * TVDS_EL_NRES + TVDS_EL_PL] * h;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        if (c->pen) {
            /* Penalty: the force at t_n is an explicit force whose work is in the element
             * work (fel); the law gives the friction and wear powers. */
            dEl += c->p_fric * h;
            continue;
        }
        /* Work of the contact force F on the slave (reactions on the master included) over
         * the central increment, relative to the (rigid) master's own motion; the motion of a
         * rigid master does the work F . dPc (imposed). */
        double F[3] = {0, 0, 0}, vt2 = 0.0, pf = 0.0, wcp = 0.0, fdp = 0.0;
        for (int a = 0; a < 3; a++) {
            F[a] = c->lam_n * c->n[a];
            for (int k = 0; k < c->ntan; k++)
                F[a] += c->ft[k] * c->t[k][a];
            fdp += F[a] * c->dPc[a];
        }
        /* Relative displacement per axis at t_{n+1} (r1) and its increments from t_n (dr) and
         * from t_{n-1} (the latter where a force works), one pass over the entries. */
        int fw = F[0] != 0.0 || F[1] != 0.0 || F[2] != 0.0;
        double r1[3] = {0, 0, 0}, dr[3] = {0, 0, 0}, dr2[3] = {0, 0, 0};
        const double *u1 = sim_cp_eu(d, c, 1), *u0 = sim_cp_eu(d, c, 0);
        long vp[2] = {0, 0};
        if (fw) sim_cp_vers(d, c, 2, vp);
        /* x_prev's entries as the last record kept them (the same values as sim_u's). */
        int kept = fw && vp[0] != -3 && c->e_upv[0] == vp[0] && c->e_upv[1] == vp[1] &&
                   c->ne <= c->ne_up && !d->check.reuse_off;
        for (int e = 0; e < c->ne; e++) {
            if (c->e_dof[e] < 0) continue;
            int a = c->e_dir[e];
            double w = c->e_w[e];
            r1[a] += w * u1[e];
            dr[a] += w * (u1[e] - u0[e]);
            if (fw)
                dr2[a] += w * (u1[e] - (kept ? c->e_up[e] : sim_u(d, c->e_sub[e], c->e_dof[e], 2)));
        }
        if (fw) {
            /* x_n, the next record's x_prev. */
            for (int e = 0; e < c->ne; e++)
                c->e_up[e] = u0[e];
            sim_cp_vers(d, c, 0, c->e_upv);
            c->ne_up = c->ne;
        }
        if (fw) {
            double fdd = 0.0; /* F . (rel_{n+1} - 2 rel_n + rel_{n-1}) */
            for (int a = 0; a < 3; a++) {
                if (F[a] != 0.0) wcp += F[a] * (0.5 * dr2[a] - c->dPc[a]);
                fdd += F[a] * (2.0 * dr[a] - dr2[a]);
            }
            dHb += 0.5 * fabs(fdd);
        }
        /* Sliding velocity over [t_n, t_{n+1}], the interval whose direction the stick/slip
         * logic makes consistent with the friction force: friction power >= 0. */
        for (int k = 0; k < c->ntan; k++) {
            double dv = 0.0;
            for (int a = 0; a < 3; a++)
                dv += c->t[k][a] * (dr[a] - c->dP[a]);
            c->vt[k] = dv / h;
            vt2 += c->vt[k] * c->vt[k];
            pf -= c->ft[k] * c->vt[k];
        }
        /* A stuck point does not slide: no dissipation, no wear. */
        int stuck = c->state == TVDS_STICK;
        if (stuck) pf = 0.0;
        /* What the contact force did beyond the friction dissipation is constraint work
         * (impacts, geometry updates, the velocity change within a step): docs/theory.md. */
        dWn += wcp + pf * h;
        dWimp += fdp;
        dDf += pf * h;
        c->p_fric = pf;
        c->p_wear = stuck ? 0.0 : c->lam_n * sqrt(vt2);
        c->gap = c->g0 + (c->n[0] * r1[0] + c->n[1] * r1[1] + c->n[2] * r1[2]);
    }
    double w_ext = d->w_ext + dWext, w_el = d->w_el + dWel, w_imp = d->w_imp + dWimp;
    double w_damp = d->w_damp + dDamp, w_fric = d->w_fric + dDf;
    double inputs = d->inputs_abs + fabs(dWext) + fabs(dWel) + fabs(dWimp);
    double etot = ek + es;
    if (energy_now && (!isfinite(etot) || (etot > 1e3 * (fabs(d->e0) + inputs) && etot > 1e-300))) {
        return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                          "t = %.9g s, step %ld: runaway energy %.6g J against %.6g J put in "
                          "(step too large or unstable coupling)",
                          tn, d->step, etot, fabs(d->e0) + inputs);
    }
    d->w_ext = w_ext;
    d->w_el = w_el;
    d->w_imp = w_imp;
    d->w_damp = w_damp;
    d->w_fric = w_fric;
    d->w_norm += dWn;
    d->w_hbound += dHb;
    d->w_eldiss += dEl;
    d->inputs_abs = inputs;
    d->energy_stale = !energy_now;
    if (energy_now) energy_balance(d, ek, es);
    double *cv = d->chval[TVDS_GROUP_CONTACTS];
    cv[0] = tn;
    for (int i = 0; i < d->ncp; i++) {
        sim_cp *c = &d->cp[i];
        double vt2 = 0.0;
        for (int k = 0; k < c->ntan; k++)
            vt2 += c->vt[k] * c->vt[k];
        if (inwin) {
            c->sum_pf += c->p_fric;
            c->sum_pw += c->p_wear;
            c->nwin++;
        }
        double *o = cv + 1 + CC_N * i;
        o[CC_LAMN] = c->lam_n;
        o[CC_LAMT] = c->ft[0];
        o[CC_STATE] = c->state;
        o[CC_GAP] = c->gap;
        o[CC_ALPHA] = c->alpha;
        o[CC_SEG] = c->seg;
        o[CC_S] = c->s;
        o[CC_VSLIDE] = c->ntan == 1 ? c->vt[0] : sqrt(vt2);
        o[CC_PF] = c->p_fric;
        o[CC_PW] = c->p_wear;
    }
    double *ev = d->chval[TVDS_GROUP_ENERGY];
    ev[0] = tn;
    ev[1 + EN_DAMP] = w_damp;
    ev[1 + EN_FRIC] = w_fric;
    ev[1 + EN_EXT] = w_ext + w_imp;
    ev[1 + EN_EL] = w_el;
    ev[1 + EN_NORM] = d->w_norm;
    ev[1 + EN_ELDISS] = d->w_eldiss;
    /* Probes as tvds_set_record says; between samples the time column only (the buffers keep
     * x_{n-1}, x_n and x_{n+1} for tvds_channels_update). */
    static const int current[3] = {2, 0, 1};
    if (all)
        publish_probes(d, m, tn, current, 3);
    else
        d->chval[TVDS_GROUP_HISTORY][0] = tn;
    if (!all && d->nprobe > 0) d->probes_stale = 1;
    publish_elements(m, d);
    d->t_pub = tn;
    d->sum_step = d->step; /* the summary's step: that of the published channels */
    d->summary_stale = 1;  /* published by tvds_summary */
    return TVDS_OK;
}
