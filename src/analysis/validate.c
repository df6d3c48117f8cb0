/* validate.c — the validation table: shipped cases with their references and tolerances, the
 * driver that runs the case files through the engine, and the printed table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate_impl.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_sim.h"

/* ==== The table ============================================================================== */

static int law_sdnd100_pen(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 0, 4e7, 1e-4, v);
}
static int law_sdnd100_exact(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_EXACT, 0, 0.0, 1e-6, v);
}
static int law_sdnd100d_pen(double *v)
{
    return tvds_shoe_sdnd100(TVDS_SHOE_PENALTY, 1, 4e7, 1e-4, v);
}
static int law_sdnd104_exact(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_shoe_sdnd104(TVDS_SHOE_EXACT, a0[i], 0.0, 0.0, 1e-6, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}
static int law_sdnd104_pen(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_shoe_sdnd104(TVDS_SHOE_PENALTY, a0[i], 9e6, 3e-5, 1e-4, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}
static int analytic_sdnd104(double *v)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    for (int i = 0; i < 4; i++) {
        int rc = tvds_sdnd104_wear_power(a0[i], 1.0, 0.1, 1.0, 10.0, 4.0, 12.0, &v[i]);
        if (rc) return rc;
    }
    return TVDS_OK;
}

/* Belt oscillator: sample times (stick, slip, slip, stick, second slip) and the closed-form
 * positions there (tvds_belt_closed_form). */
static const double belt_t[4] = {0.3, 0.45, 0.8, 0.95};
static int law_belt(int rigid, double *v)
{
    return tvds_shoe_belt(rigid, 1e6, 2000.0, rigid ? 1e-6 : 1e-5, 4, belt_t, v);
}
static int law_belt_rigid(double *v)
{
    return law_belt(1, v);
}
static int law_belt_elastic(double *v)
{
    return law_belt(0, v);
}
#define QB(lbl, t, ref, tol, kind, ch)                                                             \
    {                                                                                              \
        lbl, kind, ch, t, ref, tol                                                                 \
    }
#define BELT_ROWS(tol, kind, ch)                                                                   \
    4,                                                                                             \
    {                                                                                              \
        QB("x(0.3)", 0.3, 0.02381773291, tol, kind, ch),                                           \
            QB("x(0.45)", 0.45, 0.007973285286, tol, kind, ch),                                    \
            QB("x(0.8)", 0.8, 0.0128761102, tol, kind, ch),                                        \
            QB("x(0.95)", 0.95, 0.024142101, tol, kind, ch)                                        \
    }

#define PI_LIT 3.14159265358979323846
#define Q100(lbl, n, band, tol)                                                                    \
    {                                                                                              \
        lbl, TVDS_VQ_PROBE_AT, "dy", (n)*PI_LIT / 100.0, DY(n, band), tol                          \
    }
#define Q100L(lbl, n, band, tol)                                                                   \
    {                                                                                              \
        lbl, TVDS_VQ_LAW, NULL, 0.0, DY(n, band), tol                                              \
    }
#define SDND100_ROWS(band, tol, tol_last)                                                          \
    4,                                                                                             \
    {                                                                                              \
        Q100("DY(pi/100)", 1, band, tol), Q100("DY(2pi/100)", 2, band, tol),                       \
            Q100("DY(3pi/100)", 3, band, tol), Q100("DY(4pi/100)", 4, band, tol_last)              \
    }
#define SDND100_LAW(band, tol, tol_last)                                                           \
    4,                                                                                             \
    {                                                                                              \
        Q100L("DY(pi/100)", 1, band, tol), Q100L("DY(2pi/100)", 2, band, tol),                     \
            Q100L("DY(3pi/100)", 3, band, tol), Q100L("DY(4pi/100)", 4, band, tol_last)            \
    }

/* SDND104 references (seed table, means over [4, 12] s). */
#define QW(lbl, ref, tol)                                                                          \
    {                                                                                              \
        lbl, TVDS_VQ_WEAR_MEAN, "base", 0.0, ref, tol                                              \
    }
#define QWL(lbl, ref, tol)                                                                         \
    {                                                                                              \
        lbl, TVDS_VQ_LAW, NULL, 0.0, ref, tol                                                      \
    }

static const tvds_vcase cases[] = {
    /* ---- through the engine (case files under models/shoe/) ---- */
    {"sdnd100-a-lagrange",
     "engine",
     "models/shoe/sdnd100a_lagrange.ini",
     {NULL},
     "1 node on a rigid plane, gravity, exact normal and stick constraints",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 1e-3)},
    {"sdnd100-a-penalty",
     "engine",
     "models/shoe/sdnd100a_penalty.ini",
     {NULL},
     "1 node, penalty shock kn = 20, pen0 = 0.5 (F_N = m g), kt = 4e7, dt = 1e-4",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 5e-3)},
    {"sdnd100-b-lagrange",
     "engine",
     "models/shoe/sdnd100b.ini",
     {NULL},
     "2 substructures: shoe node on a blocked 2-node plane substructure (surface master)",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 1e-3)},
    {"sdnd100-c-physical",
     "engine",
     "models/shoe/sdnd100c.ini",
     {NULL},
     "modeling A penalty on the direct physical-coordinate path",
     NULL,
     SDND100_ROWS(BAND, 1e-3, 5e-3)},
    {"sdnd100-d-lagrange",
     "engine",
     "models/shoe/sdnd100d_lagrange.ini",
     {NULL},
     "one-way friction mu_axis = 0.1 0 (mu along x only), exact constraints",
     NULL,
     SDND100_ROWS(BAND_D, 1e-3, 1e-3)},
    {"sdnd100-d-penalty",
     "engine",
     "models/shoe/sdnd100d_penalty.ini",
     {NULL},
     "one-way friction, penalty shock",
     NULL,
     SDND100_ROWS(BAND_D, 1e-3, 5e-3)},
    {"sdnd104-a0=15",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 15 1 0", NULL},
     "slip-slip; exact stick, relative frame, window [4, 12] s",
     NULL,
     1,
     {QW("mean wear power [W]", W15, 1e-4)}},
    {"sdnd104-a0=1.5",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 1.5 1 0", NULL},
     "stick-slip; exact stick",
     NULL,
     1,
     {QW("mean wear power [W]", W1_5, 1e-4)}},
    {"sdnd104-a0=1.01",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 1.01 1 0", NULL},
     "stick-slip, short slips; exact stick",
     NULL,
     1,
     {QW("mean wear power [W]", W1_01, 1e-4)}},
    {"sdnd104-a0=0.99",
     "engine",
     "models/shoe/sdnd104.ini",
     {"base.acc=harmonic 0.99 1 0", NULL},
     "permanent stick: wear must be exactly 0",
     NULL,
     1,
     {QW("mean wear power [W]", 0.0, 0.0)}},
    {"sdnd104-pen-a0=15",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 15 1 0", NULL},
     "penalty kt = 9e6, dt = 1e-4 (Code_Aster's settings)",
     NULL,
     1,
     {QW("mean wear power [W]", W15, 5e-4)}},
    {"sdnd104-pen-a0=1.5",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 1.5 1 0", NULL},
     "penalty",
     NULL,
     1,
     {QW("mean wear power [W]", W1_5, 5e-4)}},
    {"sdnd104-pen-a0=1.01",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 1.01 1 0", NULL},
     "penalty",
     NULL,
     1,
     {QW("mean wear power [W]", W1_01, 5e-3)}},
    {"sdnd104-pen-a0=0.99",
     "engine",
     "models/shoe/sdnd104_penalty.ini",
     {"base.acc=harmonic 0.99 1 0", NULL},
     "penalty: elastic stick, no anchor slip",
     NULL,
     1,
     {QW("mean wear power [W]", 0.0, 0.0)}},
    {"ef-belt-elastic",
     "engine",
     "models/shoe/ef_belt.ini",
     {NULL},
     "ElasticFriction k = 1e6, b = 2000 between a mass and a driven belt (constraint)",
     NULL,
     BELT_ROWS(1e-3, TVDS_VQ_PROBE_AT, "x")},
    {"disc-stick-slip",
     "engine",
     "models/shoe/disc_stick_slip.ini",
     {NULL},
     "shoe on a rigid disc turning at V / r (r = 100 m): the belt closed form, exact stick",
     NULL,
     /* Stick and slip start on steps: |error| <= 3 V h = 3e-6 m, 3.8e-4 of x(0.45). */
     BELT_ROWS(5e-4, TVDS_VQ_PROBE_AT, "y")},
    /* ---- law level: one-DoF integrators over src/engine/friction_laws.c ---- */
    {"law:ef-belt-rigid",
     "law",
     NULL,
     {NULL},
     "rigid ElasticFriction through the stick-row protocol, dt = 1e-6",
     law_belt_rigid,
     BELT_ROWS(1e-4, TVDS_VQ_LAW, NULL)},
    {"law:ef-belt-elastic",
     "law",
     NULL,
     {NULL},
     "ElasticFriction k = 1e6, b = 2000 through the engine hook form, dt = 1e-5",
     law_belt_elastic,
     BELT_ROWS(1e-3, TVDS_VQ_LAW, NULL)},
    {"law:sdnd100-penalty",
     "law",
     NULL,
     {NULL},
     "penalty law, 2 tangents, kt = 4e7, dt = 1e-4",
     law_sdnd100_pen,
     SDND100_LAW(BAND, 1e-3, 5e-3)},
    {"law:sdnd100-exact",
     "law",
     NULL,
     {NULL},
     "rigid stick-slip element, dt = 1e-6",
     law_sdnd100_exact,
     SDND100_LAW(BAND, 1e-3, 1e-3)},
    {"law:sdnd100-d-penalty",
     "law",
     NULL,
     {NULL},
     "one-way penalty law, kt = 4e7, dt = 1e-4",
     law_sdnd100d_pen,
     SDND100_LAW(BAND_D, 1e-3, 5e-3)},
    {"law:sdnd104-analytic",
     "law",
     NULL,
     {NULL},
     "closed-form arcs and exact events (tvds_sdnd104_wear_power)",
     analytic_sdnd104,
     4,
     {QWL("P(a0=15)", W15, 1e-8), QWL("P(a0=1.5)", W1_5, 1e-7), QWL("P(a0=1.01)", W1_01, 1e-6),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
    {"law:sdnd104-exact",
     "law",
     NULL,
     {NULL},
     "rigid stick-slip element, no spring to the base, dt = 1e-6",
     law_sdnd104_exact,
     4,
     {QWL("P(a0=15)", W15, 1e-4), QWL("P(a0=1.5)", W1_5, 1e-4), QWL("P(a0=1.01)", W1_01, 1e-4),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
    {"law:sdnd104-penalty",
     "law",
     NULL,
     {NULL},
     "penalty law kt = 9e6, spring 3e-5 to the base, dt = 1e-4 (Code_Aster's)",
     law_sdnd104_pen,
     4,
     {QWL("P(a0=15)", W15, 5e-4), QWL("P(a0=1.5)", W1_5, 5e-4), QWL("P(a0=1.01)", W1_01, 5e-3),
      QWL("P(a0=0.99)", 0.0, 0.0)}},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

const tvds_vcase *tvds_validate_cases(int *n)
{
    *n = NCASES;
    return cases;
}

/* ==== Running an engine case ================================================================= */

int validate_find_channel(const char *const *names, int n, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix);
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], prefix, lp) != 0) continue;
        if (!suffix || strcmp(names[i] + lp, suffix) == 0) return i;
    }
    return -1;
}

/* Run one case through the engine and extract its quantities into values[]. */
static int run_engine_case(const tvds_vcase *c, const tvds_validate_opts *o, double *values,
                           char *msg, size_t msgsize)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", o && o->root ? o->root : ".", c->case_file);
    const char *sets[3 + 8];
    int nsets = 0;
    while (nsets < 3 && c->sets[nsets]) {
        sets[nsets] = c->sets[nsets];
        nsets++;
    }
    for (int i = 0; o && o->sets && i < o->nsets && i < 8; i++)
        sets[nsets++] = o->sets[i];
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    tvds_data *d = NULL;
    double *hist[TVDS_VQ_MAX] = {NULL};
    int chan[TVDS_VQ_MAX];
    long nmax = 0, ns = 0;
    double *times = NULL;
    int rc = tvds_case_read(path, sets, nsets, &m, &ctx);
    if (!rc) rc = tvds_data_create(m, &d, &ctx);
    if (!rc) {
        double h = tvds_data_dt(d);
        nmax = (long)ceil(m->opt.t_end / h) + 4;
        times = tvds_malloc((size_t)nmax * sizeof *times);
        if (!times) rc = TVDS_ERR_NOMEM;
    }
    /* History channels of the probes the quantities name. */
    int nh = 0;
    const char *const *hn = NULL;
    const double *hv = NULL;
    if (!rc) rc = tvds_channels(d, TVDS_GROUP_HISTORY, &nh, &hn, &hv);
    for (int q = 0; !rc && q < c->nq; q++) {
        chan[q] = -1;
        if (c->q[q].kind != TVDS_VQ_PROBE_AT) continue;
        char pre[256];
        snprintf(pre, sizeof pre, "%s [", c->q[q].channel);
        chan[q] = validate_find_channel(hn, nh, pre, NULL);
        if (chan[q] < 0) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: no probe '%s'", path, c->q[q].channel);
            break;
        }
        hist[q] = tvds_malloc((size_t)nmax * sizeof(double));
        if (!hist[q]) rc = TVDS_ERR_NOMEM;
    }
    if (!rc) {
        times[ns] = tvds_data_time(d);
        for (int q = 0; q < c->nq; q++)
            if (hist[q]) hist[q][ns] = hv[chan[q]];
        ns++;
        while (!rc && tvds_data_time(d) < m->opt.t_end * (1.0 - 1e-12)) {
            rc = tvds_step(m, d, &ctx);
            if (rc || ns >= nmax) break;
            times[ns] = tvds_data_time(d);
            for (int q = 0; q < c->nq; q++)
                if (hist[q]) hist[q][ns] = hv[chan[q]];
            ns++;
        }
    }
    for (int q = 0; !rc && q < c->nq; q++) {
        const tvds_vquantity *Q = &c->q[q];
        if (Q->kind == TVDS_VQ_PROBE_AT) {
            if (ns < 3 || Q->t > times[ns - 1] || Q->t < times[0]) {
                rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: t = %g s outside the run", path, Q->t);
                break;
            }
            /* Uniform steps from times[0]: quadratic interpolation on the nearest samples. */
            double h = tvds_data_dt(d);
            values[q] = validate_interp3(hist[q], (int)ns, h, Q->t - times[0]);
        } else if (Q->kind == TVDS_VQ_WEAR_MEAN) {
            int n = 0;
            const char *const *sn = NULL;
            const double *sv = NULL;
            rc = tvds_summary(d, &n, &sn, &sv);
            if (rc) break;
            char pre[256];
            snprintf(pre, sizeof pre, "%s.", Q->channel);
            int k = validate_find_channel(sn, n, pre, "mean p_wear [W]");
            if (k < 0) {
                rc = TVDS_ERROR(&ctx, TVDS_ERR_INVALID, "%s: no summary '%s.mean p_wear [W]'", path,
                                Q->channel);
                break;
            }
            values[q] = sv[k];
        }
    }
    if (rc) snprintf(msg, msgsize, "%.190s", ctx.msg[0] ? ctx.msg : tvds_strerror(rc));
    for (int q = 0; q < TVDS_VQ_MAX; q++)
        tvds_free(hist[q]);
    tvds_free(times);
    tvds_data_free(&d);
    tvds_model_free(&m);
    return rc;
}

static int selected(const tvds_vcase *c, const tvds_validate_opts *o)
{
    if (!o) return 1;
    if (o->filter) {
        /* Comma-separated alternatives: "lagrange,law:" selects either. */
        int any = 0;
        const char *p = o->filter;
        while (!any) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char tok[128];
            if (len >= sizeof tok) len = sizeof tok - 1;
            memcpy(tok, p, len);
            tok[len] = '\0';
            if (len > 0 && strstr(c->name, tok)) any = 1;
            if (!e) break;
            p = e + 1;
        }
        if (!any) return 0;
    }
    if (o->group && strcmp(o->group, c->group) != 0) return 0;
    return 1;
}

int tvds_validate_run(const tvds_validate_opts *o, tvds_vresult **res, int *nres, tvds_ctx *ctx)
{
    int total = 0;
    for (int i = 0; i < NCASES; i++)
        if (selected(&cases[i], o)) total += cases[i].nq;
    *res = NULL;
    *nres = 0;
    tvds_vresult *r = tvds_calloc((size_t)(total > 0 ? total : 1), sizeof *r);
    if (!r) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    int k = 0;
    for (int i = 0; i < NCASES; i++) {
        const tvds_vcase *c = &cases[i];
        if (!selected(c, o)) continue;
        double values[TVDS_VQ_MAX] = {0};
        char msg[200] = "";
        int rc;
        if (c->law)
            rc = c->law(values);
        else
            rc = run_engine_case(c, o, values, msg, sizeof msg);
        if (rc && !msg[0]) snprintf(msg, sizeof msg, "%s", tvds_strerror(rc));
        for (int q = 0; q < c->nq; q++, k++) {
            tvds_vresult *x = &r[k];
            const tvds_vquantity *Q = &c->q[q];
            x->c = c;
            x->q = q;
            if (rc) {
                x->status = TVDS_V_ERROR;
                x->computed = NAN;
                x->relerr = NAN;
                snprintf(x->msg, sizeof x->msg, "%s", msg);
                continue;
            }
            x->computed = values[q];
            x->relerr = Q->ref != 0.0 ? fabs(values[q] - Q->ref) / fabs(Q->ref) : fabs(values[q]);
            x->status = x->relerr <= Q->tol ? TVDS_V_PASS : TVDS_V_FAIL;
            if (!isfinite(values[q])) x->status = TVDS_V_FAIL;
        }
    }
    *res = r;
    *nres = k;
    return TVDS_OK;
}

static const char *verdict(int s)
{
    return s == TVDS_V_PASS ? "PASS" : s == TVDS_V_FAIL ? "FAIL" : "ERROR";
}

int tvds_validate_print(FILE *out, const tvds_vresult *res, int nres, int markdown)
{
    int bad = 0;
    if (markdown) {
        fprintf(out, "| case | quantity | reference | computed | rel. error | tolerance | "
                     "verdict |\n|---|---|---|---|---|---|---|\n");
    } else {
        fprintf(out, "%-22s %-20s %15s %15s %10s %9s  %s\n", "case", "quantity", "reference",
                "computed", "rel.err", "tol", "verdict");
    }
    for (int i = 0; i < nres; i++) {
        const tvds_vresult *r = &res[i];
        const tvds_vquantity *Q = &r->c->q[r->q];
        char comp[32], err[32], tol[32];
        if (r->status == TVDS_V_ERROR) {
            snprintf(comp, sizeof comp, "-");
            snprintf(err, sizeof err, "-");
        } else {
            snprintf(comp, sizeof comp, "%.9g", r->computed);
            snprintf(err, sizeof err, "%.2e", r->relerr);
        }
        if (Q->ref == 0.0 && Q->tol == 0.0)
            snprintf(tol, sizeof tol, "exact 0");
        else
            snprintf(tol, sizeof tol, "%.0e", Q->tol);
        if (r->status != TVDS_V_PASS) bad++;
        if (markdown)
            fprintf(out, "| %s | %s | %.9g | %s | %s | %s | %s%s%s |\n", r->c->name, Q->label,
                    Q->ref, comp, err, tol, verdict(r->status), r->msg[0] ? ": " : "", r->msg);
        else
            fprintf(out, "%-22s %-20s %15.9g %15s %10s %9s  %s%s%s\n", r->c->name, Q->label, Q->ref,
                    comp, err, tol, verdict(r->status), r->msg[0] ? "  " : "", r->msg);
    }
    return bad;
}
