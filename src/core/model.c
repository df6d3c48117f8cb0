/* model.c — lifetime of the constant model, time functions, damping schedules, method names. */
#include "tvds/tvds_model.h"

#include <math.h>
#include <string.h>

static const double TWO_PI = 6.283185307179586476925286766559;

/* ---- Time functions ----------------------------------------------------------------------- */

/* Cycloidal ramp s(x) = x - sin(2 pi x)/(2 pi) and its derivatives (in x). */
static double smooth_ramp(double x, int order)
{
    if (x <= 0.0 || x >= 1.0) {
        if (order == 0) return x <= 0.0 ? 0.0 : 1.0;
        return 0.0;
    }
    switch (order) {
    case 0:
        return x - sin(TWO_PI * x) / TWO_PI;
    case 1:
        return 1.0 - cos(TWO_PI * x);
    default:
        return TWO_PI * sin(TWO_PI * x);
    }
}

/* hint: NULL, or the segment lo of the last call (kept up to date). */
static double table_eval(const tvds_fn *f, double t, int order, int *hint)
{
    int n = f->ntab;
    if (n <= 0) return order == 0 ? 0.0 : 0.0;
    if (t <= f->tab_t[0]) return order == 0 ? f->tab_v[0] : 0.0;
    if (t >= f->tab_t[n - 1]) return order == 0 ? f->tab_v[n - 1] : 0.0;
    /* The segment with tab_t[lo] <= t < tab_t[lo + 1] (the table is strictly increasing: one
     * such segment): the hint's or the next one, else a binary search. */
    int lo = 0, hi = n - 1, h = hint ? *hint : -1;
    if (h >= 0 && h + 1 < n - 1 && f->tab_t[h + 1] <= t && t < f->tab_t[h + 2]) h++;
    if (h >= 0 && h < n - 1 && f->tab_t[h] <= t && t < f->tab_t[h + 1]) {
        lo = h;
        hi = h + 1;
    }
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (f->tab_t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (hint) *hint = lo;
    double dt = f->tab_t[hi] - f->tab_t[lo];
    double slope = (f->tab_v[hi] - f->tab_v[lo]) / dt;
    if (order == 0) return f->tab_v[lo] + slope * (t - f->tab_t[lo]);
    return order == 1 ? slope : 0.0;
}

static double fn_value(const tvds_fn *f, double t, int order, int *hint)
{
    double base = 0.0;
    switch (f->kind) {
    case TVDS_FN_CONST:
        base = order == 0 ? f->amp : 0.0;
        break;
    case TVDS_FN_RAMP: {
        double T = f->t1 - f->t0;
        if (T <= 0.0) {
            base = order == 0 ? (t >= f->t0 ? f->amp : 0.0) : 0.0;
        } else {
            double x = (t - f->t0) / T;
            if (order == 0)
                base = f->amp * (x <= 0.0 ? 0.0 : x >= 1.0 ? 1.0 : x);
            else if (order == 1)
                base = (x > 0.0 && x < 1.0) ? f->amp / T : 0.0;
            else
                base = 0.0;
        }
        break;
    }
    case TVDS_FN_SMOOTH_RAMP: {
        double T = f->t1 - f->t0;
        if (T <= 0.0) {
            base = order == 0 ? (t >= f->t0 ? f->amp : 0.0) : 0.0;
        } else {
            double x = (t - f->t0) / T;
            /* T^order: pow only for order 2 (T^0 and T^1 are exact without the call, which
             * the run makes at every step); no division by T^0 = 1 (exact, and a division's
             * latency less on the step's path). */
            if (order == 0)
                base = f->amp * smooth_ramp(x, 0);
            else
                base = f->amp * smooth_ramp(x, order) / (order == 1 ? T : pow(T, order));
        }
        break;
    }
    case TVDS_FN_HARMONIC: {
        double w = TWO_PI * f->freq, arg = w * t + f->phase;
        if (order == 0)
            base = f->amp * sin(arg);
        else if (order == 1)
            base = f->amp * w * cos(arg);
        else
            base = -f->amp * w * w * sin(arg);
        break;
    }
    case TVDS_FN_TABLE:
        base = table_eval(f, t, order, hint);
        break;
    default:
        base = 0.0;
    }
    return order == 0 ? base + f->offset : base;
}

double tvds_fn_eval(const tvds_fn *f, double t)
{
    return f ? fn_value(f, t, 0, NULL) : 0.0;
}

double tvds_fn_eval_hint(const tvds_fn *f, double t, int *hint)
{
    return f ? fn_value(f, t, 0, hint) : 0.0;
}

double tvds_fn_deriv(const tvds_fn *f, double t, int order)
{
    if (!f) return 0.0;
    if (order <= 0) return fn_value(f, t, 0, NULL);
    return fn_value(f, t, order > 2 ? 2 : order, NULL);
}

/* Antiderivative of the kind's base value (without offset), zero at -infinity for the ramps
 * and the table's constant start taken from its first point: only differences are used. */
static double fn_antideriv(const tvds_fn *f, double t)
{
    switch (f->kind) {
    case TVDS_FN_CONST:
        return f->amp * t;
    case TVDS_FN_RAMP:
    case TVDS_FN_SMOOTH_RAMP: {
        double T = f->t1 - f->t0;
        if (t <= f->t0) return 0.0;
        if (T <= 0.0) return f->amp * (t - f->t0);
        if (t >= f->t1) return f->amp * (0.5 * T + (t - f->t1));
        double x = (t - f->t0) / T;
        if (f->kind == TVDS_FN_RAMP) return f->amp * 0.5 * T * x * x;
        /* s(x) = x - sin(2 pi x) / (2 pi): integral T (x^2 / 2 + (cos(2 pi x) - 1) / (4 pi^2)). */
        return f->amp * T * (0.5 * x * x + (cos(TWO_PI * x) - 1.0) / (TWO_PI * TWO_PI));
    }
    case TVDS_FN_HARMONIC: {
        double w = TWO_PI * f->freq;
        if (w == 0.0) return f->amp * sin(f->phase) * t;
        return -f->amp * cos(w * t + f->phase) / w;
    }
    case TVDS_FN_TABLE: {
        int n = f->ntab;
        if (n <= 0) return 0.0;
        const double *x = f->tab_t, *v = f->tab_v;
        if (t <= x[0]) return v[0] * (t - x[0]);
        double acc = 0.0;
        for (int i = 0; i + 1 < n; i++) {
            if (t <= x[i + 1]) {
                double slope = (v[i + 1] - v[i]) / (x[i + 1] - x[i]), dx = t - x[i];
                return acc + v[i] * dx + 0.5 * slope * dx * dx;
            }
            acc += 0.5 * (v[i] + v[i + 1]) * (x[i + 1] - x[i]);
        }
        return acc + v[n - 1] * (t - x[n - 1]);
    }
    default:
        return 0.0;
    }
}

double tvds_fn_integral(const tvds_fn *f, double ta, double tb)
{
    if (!f) return 0.0;
    return fn_antideriv(f, tb) - fn_antideriv(f, ta) + f->offset * (tb - ta);
}

void tvds_fn_clear(tvds_fn *f)
{
    if (!f) return;
    tvds_free(f->tab_t);
    tvds_free(f->tab_v);
    memset(f, 0, sizeof *f);
}

/* ---- Damping schedule --------------------------------------------------------------------- */

void tvds_damping_at(const tvds_damping *d, double t, double *alpha, double *beta)
{
    double a = d->alpha, b = d->beta;
    if (d->t_hold > 0.0 || d->t_ramp > 0.0) {
        double w; /* weight of the final values */
        if (t <= d->t_hold)
            w = 0.0;
        else if (d->t_ramp <= 0.0 || t >= d->t_hold + d->t_ramp)
            w = 1.0;
        else
            w = smooth_ramp((t - d->t_hold) / d->t_ramp, 0);
        /* (1-w) a0 + w a: exact at both ends of the transition. */
        a = (1.0 - w) * d->alpha0 + w * d->alpha;
        b = (1.0 - w) * d->beta0 + w * d->beta;
    }
    if (alpha) *alpha = a;
    if (beta) *beta = b;
}

/* ---- Methods and options ------------------------------------------------------------------ */

static const char *const method_names[TVDS_METHOD_COUNT] = {"subs-a", "subs-b", "subs-c", "film"};

const char *tvds_method_name(int method)
{
    return (method >= 0 && method < TVDS_METHOD_COUNT) ? method_names[method] : NULL;
}

int tvds_method_from_name(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < TVDS_METHOD_COUNT; i++)
        if (strcmp(name, method_names[i]) == 0) return i;
    return -1;
}

tvds_options tvds_options_default(void)
{
    tvds_options o;
    memset(&o, 0, sizeof o);
    o.method = TVDS_METHOD_SUBS_B;
    o.dt = 0.0;
    o.dt_auto = 1;
    o.dt_safety = 0.9;
    o.allow_unstable_dt = 0;
    o.t_end = 0.0;
    o.out_dt = 0.0;
    o.win_t0 = 0.0;
    o.win_t1 = 0.0;
    o.film_tol = 1e-10;
    o.film_maxit = 100;
    o.nonconverged_error = 1;
    o.max_steps = 100000000L;
    o.v_stick = 1e-9;
    o.modal = TVDS_PATH_AUTO;
    o.integrator = TVDS_INTEGRATOR_CENTRAL;
    o.f_band = 0.0;
    o.search = TVDS_SEARCH_WALK;
    o.reuse_off = 0;
    return o;
}

/* ---- Lifetime ----------------------------------------------------------------------------- */

tvds_model *tvds_model_create(void)
{
    tvds_model *m = tvds_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->opt = tvds_options_default();
    m->gravity_fn.kind = TVDS_FN_CONST;
    m->gravity_fn.amp = 1.0;
    return m;
}

void tvds_substructure_free(tvds_substructure **ps)
{
    if (!ps || !*ps) return;
    tvds_substructure *s = *ps;
    tvds_free(s->name);
    tvds_free(s->path);
    tvds_free(s->M);
    tvds_free(s->K);
    tvds_free(s->C);
    tvds_free(s->dofs);
    for (int i = 0; i < s->nsets; i++) {
        tvds_free(s->sets[i].name);
        tvds_free(s->sets[i].nodes);
    }
    tvds_free(s->sets);
    for (int i = 0; i < s->nfsets; i++) {
        tvds_free(s->fsets[i].name);
        tvds_free(s->fsets[i].nn);
        tvds_free(s->fsets[i].nodes);
    }
    tvds_free(s->fsets);
    for (int i = 0; i < s->nrec; i++) {
        tvds_free(s->rec[i].name);
        tvds_free(s->rec[i].row);
    }
    tvds_free(s->rec);
    tvds_free(s);
    *ps = NULL;
}

void tvds_model_free(tvds_model **pm)
{
    if (!pm || !*pm) return;
    tvds_model *m = *pm;
    tvds_free(m->name);
    tvds_free(m->case_path);
    for (int i = 0; i < m->nsub; i++)
        if (m->subs) tvds_substructure_free(&m->subs[i]);
    tvds_free(m->subs);
    tvds_free(m->damping);
    for (int i = 0; i < m->nbil; i++) {
        tvds_free(m->bil[i].name);
        tvds_free(m->bil[i].terms);
        tvds_fn_clear(&m->bil[i].value);
    }
    tvds_free(m->bil);
    for (int i = 0; i < m->ncontact; i++) {
        tvds_contact *c = &m->contacts[i];
        tvds_free(c->name);
        tvds_free(c->slave_nodes);
        tvds_free(c->master_nodes);
        tvds_free(c->face_nn);
        tvds_free(c->face_node);
        for (int k = 0; k < 3; k++) {
            tvds_fn_clear(&c->rigid_motion[k]);
            tvds_fn_clear(&c->slave_kin[k]);
        }
        tvds_fn_clear(&c->omega);
    }
    tvds_free(m->contacts);
    for (int i = 0; i < m->nel; i++) {
        tvds_free(m->elements[i].name);
        tvds_fn_clear(&m->elements[i].Fst);
        tvds_fn_clear(&m->elements[i].Fsl);
    }
    tvds_free(m->elements);
    for (int i = 0; i < m->nload; i++) {
        tvds_free(m->loads[i].name);
        tvds_fn_clear(&m->loads[i].fn);
    }
    tvds_free(m->loads);
    tvds_fn_clear(&m->gravity_fn);
    tvds_fn_clear(&m->base_acc);
    tvds_free(m->ics);
    for (int i = 0; i < m->nprobe; i++)
        tvds_free(m->probes[i].name);
    tvds_free(m->probes);
    tvds_free(m);
    *pm = NULL;
}

int tvds_substructure_find_dof(const tvds_substructure *s, long node, int dir)
{
    for (int i = 0; i < s->n; i++)
        if (s->dofs[i].kind == TVDS_DOF_PHYSICAL && s->dofs[i].node == node &&
            s->dofs[i].dir == dir)
            return i;
    return -1;
}

int tvds_substructure_find_set(const tvds_substructure *s, const char *name)
{
    for (int i = 0; i < s->nsets; i++)
        if (strcmp(s->sets[i].name, name) == 0) return i;
    return -1;
}

int tvds_substructure_find_faceset(const tvds_substructure *s, const char *name)
{
    for (int i = 0; i < s->nfsets; i++)
        if (strcmp(s->fsets[i].name, name) == 0) return i;
    return -1;
}

int tvds_model_find_sub(const tvds_model *m, const char *name)
{
    for (int i = 0; i < m->nsub; i++)
        if (m->subs[i] && m->subs[i]->name && strcmp(m->subs[i]->name, name) == 0) return i;
    return -1;
}
