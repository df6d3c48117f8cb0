/* validate_plots.c — figures of tvds validate --plots: engine runs against the exact solutions
 * (SDND100, SDND104, belt) through gnuplot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate_impl.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_plot.h"
#include "tvds/tvds_sim.h"

/* ==== Figures (tvds validate --plots) ======================================================== */

/* SDND100 analytic motion along theta: half cycles of the harmonic oscillator (omega0 = 100
 * rad/s) about the shifted equilibria c = sign(r_n) band, from rest at r_n at t_n = n pi/omega0;
 * the shoe stays at the first extremum with |r_n| <= band. */
static void sdnd100_motion(double t, double band, double *r, double *v)
{
    const double w = 100.0;
    double rn = R0, tn = 0.0;
    for (;;) {
        if (fabs(rn) <= band) {
            *r = rn;
            *v = 0.0;
            return;
        }
        double c = rn > 0.0 ? band : -band, tend = tn + V_PI / w;
        if (t <= tend) {
            *r = c + (rn - c) * cos(w * (t - tn));
            *v = -w * (rn - c) * sin(w * (t - tn));
            return;
        }
        rn = 2.0 * c - rn;
        tn = tend;
    }
}

/* SDND104 exact solution sampled at increasing times ts[0..nt-1]: relative velocity vr and the
 * cumulative mean wear power pc = (1/(t - 4)) integral over [4, t] of m g |v_r| (NAN for
 * t <= 4). The same events and arcs as tvds_sdnd104_wear_power (m = 1, mu = 0.1, g = 10,
 * f = 1 Hz). */
static void sdnd104_sample(double a0, int nt, const double *ts, double *vr, double *pc)
{
    const double m = 1.0, g = 10.0, mug = 1.0, w = 2.0 * V_PI, T = 1.0, t0 = 4.0;
    double eta = mug / a0, E = 0.0;
    int j = 0;
    if (eta >= 1.0) {
        for (j = 0; j < nt; j++) {
            vr[j] = 0.0;
            pc[j] = ts[j] > t0 ? 0.0 : NAN;
        }
        return;
    }
    double as = asin(eta), scan = T / 20000.0, tmax = ts[nt - 1];
    double t = 0.0, s = 0.0;
    int sticking = 1;
    while (j < nt) {
        if (sticking) {
            double kk = ceil((w * t - as) / V_PI);
            double te = (as + kk * V_PI) / w;
            if (te < t) te = t;
            for (; j < nt && ts[j] < te; j++) {
                vr[j] = 0.0;
                pc[j] = ts[j] > t0 ? E / (ts[j] - t0) : NAN;
            }
            t = te;
            s = sin(w * t) > 0.0 ? -1.0 : 1.0;
            sticking = 0;
            continue;
        }
        arc A = {t, s, a0, w, mug};
        double te = validate_arc_end(&A, scan, tmax + 2.0 * T), a = t > t0 ? t : t0;
        for (; j < nt && ts[j] < te; j++) {
            vr[j] = validate_arc_v(&A, ts[j]);
            double Ej = E;
            if (ts[j] > a)
                Ej += m * g * fmax(0.0, s * (validate_arc_x(&A, ts[j]) - validate_arc_x(&A, a)));
            pc[j] = ts[j] > t0 ? Ej / (ts[j] - t0) : NAN;
        }
        if (te > a) E += m * g * fmax(0.0, s * (validate_arc_x(&A, te) - validate_arc_x(&A, a)));
        t = te;
        if (fabs(a0 * sin(w * t)) <= mug)
            sticking = 1;
        else
            s = sin(w * t) > 0.0 ? -1.0 : 1.0;
    }
}

/* Per-step record of an engine run: the time channel and up to 2 named channels. */
typedef struct vrec {
    long n;
    double h;
    double *t, *y[2];
} vrec;

static void vrec_free(vrec *r)
{
    tvds_free(r->t);
    for (int k = 0; k < 2; k++)
        tvds_free(r->y[k]);
    memset(r, 0, sizeof *r);
}

/* Run case_file (relative to o->root) with the overrides sets[] then o->sets, recording at every
 * step the channels whose names start with pre[k] in group grp[k] (k < nch <= 2). */
static int record_case(const char *case_file, const char *const *sets, const tvds_validate_opts *o,
                       int nch, const int *grp, const char *const *pre, vrec *r, tvds_ctx *ctx)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", o && o->root ? o->root : ".", case_file);
    const char *all[3 + 8];
    int ns = 0;
    while (sets && ns < 3 && sets[ns]) {
        all[ns] = sets[ns];
        ns++;
    }
    for (int i = 0; o && o->sets && i < o->nsets && i < 8; i++)
        all[ns++] = o->sets[i];
    memset(r, 0, sizeof *r);
    tvds_model *m = NULL;
    tvds_data *d = NULL;
    const double *val[2] = {NULL, NULL}, *tv = NULL;
    int ch[2] = {-1, -1};
    long nmax = 0;
    int rc = tvds_case_read(path, all, ns, &m, ctx);
    if (!rc) rc = tvds_data_create(m, &d, ctx);
    if (!rc) {
        r->h = tvds_data_dt(d);
        nmax = (long)ceil(m->opt.t_end / r->h) + 4;
        r->t = tvds_malloc((size_t)nmax * sizeof(double));
        if (!r->t) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    }
    for (int k = 0; !rc && k < nch; k++) {
        int n = 0;
        const char *const *names = NULL;
        rc = tvds_channels(d, grp[k], &n, &names, &val[k]);
        if (rc) break;
        if (grp[k] == TVDS_GROUP_HISTORY) tv = val[k]; /* channel 0: "t [s]" */
        ch[k] = validate_find_channel(names, n, pre[k], NULL);
        if (ch[k] < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: no channel '%s...'", path, pre[k]);
            break;
        }
        r->y[k] = tvds_malloc((size_t)nmax * sizeof(double));
        if (!r->y[k]) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
    }
    if (!rc && !tv) rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "validate: no history channel");
    /* The channels describe t_n = time - dt after a step and t_0 before the first one (the
     * first step publishes t_0 again): a sample is stored when its time advances. */
    while (!rc && r->n < nmax) {
        if (r->n == 0 || tv[0] > r->t[r->n - 1]) {
            r->t[r->n] = tv[0];
            for (int k = 0; k < nch; k++)
                r->y[k][r->n] = val[k][ch[k]];
            r->n++;
        }
        if (tvds_data_time(d) >= m->opt.t_end * (1.0 - 1e-12)) break;
        rc = tvds_step(m, d, ctx);
    }
    tvds_data_free(&d);
    tvds_model_free(&m);
    if (rc) vrec_free(r);
    return rc;
}

typedef struct vfig {
    const char *file, *caption;
} vfig;

static const vfig figures[] = {
    {"sdnd100a.png",
     "SDND100 modeling A (`sdnd100a_lagrange.ini`, dt = 1e-5 s, run to 0.3 s): DY and VY of the "
     "shoe from tvds against the analytic piecewise solution (half cycles about "
     "±μmg/k, stop at the first extremum inside the stick band), the reference "
     "extrema at nπ/100 s marked; bottom: tvds − analytic."},
    {"sdnd100d.png", "SDND100 modeling D (`sdnd100d_lagrange.ini`, one-way friction: the same "
                     "problem with μ/√2 along θ), as above."},
    {"sdnd104_velocity.png", "SDND104 (`sdnd104.ini`, exact stick, dt = 1e-5 s): velocity of "
                             "the mass relative to the base, tvds against the exact piecewise "
                             "solution, for a0 = 15 (slip-slip), 1.5 and 1.01 (stick-slip) "
                             "and 0.99 m/s² (permanent stick)."},
    {"sdnd104_wear.png", "SDND104: cumulative mean wear power (1/(t − 4)) ∫₄ᵗ F_N |v_r| dt, tvds "
                         "against the exact solution; the dashed line is the reference (the "
                         "value at t = 12 s)."},
    {"ef_belt.png", "ElasticFriction belt oscillator (`ef_belt.ini`, k = 1e6 N/m, b = 2000 N s/m, "
                    "dt = 1e-5 s): mass displacement x(t) against the closed form of the rigid "
                    "element; bottom: tvds − closed form."},
};
#define NFIGS ((int)(sizeof figures / sizeof figures[0]))

void tvds_validate_print_figures(FILE *out, const char *reldir)
{
    for (int i = 0; i < NFIGS; i++)
        fprintf(out, "![%s](%s/%s)\n\n*%s*\n\n", figures[i].file, reldir, figures[i].file,
                figures[i].caption);
}

static int close_csv(FILE *f, const char *path, tvds_ctx *ctx)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
    return TVDS_OK;
}

/* Keep the worst render status: errors (< 0) first, then the gnuplot warning. */
static int render(const tvds_plot_figure *fig, int *warn, tvds_ctx *ctx)
{
    int rc = tvds_plot_render(fig, ctx);
    if (rc > 0) {
        *warn = rc;
        rc = TVDS_OK;
    }
    return rc;
}

#define C_TVDS "#1f4e9c"
#define C_REF  "#f28e2b"
#define C_PT   "#c0392b"

/* SDND100 figure for one case file: DY, VY and the DY error. */
static int plot_sdnd100(const char *dir, const char *stem, const char *case_file, double band,
                        const char *title, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    vrec r;
    const int grp[1] = {TVDS_GROUP_HISTORY};
    const char *pre[1] = {"dy ["};
    /* Over (0, 0.3 s) as the seed's figures: the shoe's final stick is visible. */
    const char *sets[2] = {"run.t_end=0.3", NULL};
    int rc = record_case(case_file, sets, o, 1, grp, pre, &r, ctx);
    if (rc) return rc;
    char data[1024], pts[1024], png[1024];
    FILE *f;
    snprintf(data, sizeof data, "%s/%s.csv", dir, stem);
    snprintf(pts, sizeof pts, "%s/%s_ref.csv", dir, stem);
    snprintf(png, sizeof png, "%s/%s.png", dir, stem);
    f = fopen(data, "w");
    if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data);
    if (!rc) {
        /* Every 20th step; VY from the central difference of DY (the scheme's velocity at t_n). */
        fprintf(f, "t [s],DY tvds [mm],VY tvds [mm/s],DY analytic [mm],VY analytic [mm/s],"
                   "DY error [mm]\n");
        for (long i = 1; i + 1 < r.n; i += 20) {
            double rr, vv, t = r.t[i];
            sdnd100_motion(t, band, &rr, &vv);
            double vy = (r.y[0][i + 1] - r.y[0][i - 1]) / (r.t[i + 1] - r.t[i - 1]);
            fprintf(f, "%.6g,%.8g,%.8g,%.8g,%.8g,%.6g\n", t, 1e3 * r.y[0][i], 1e3 * vy,
                    1e3 * rr * COS45, 1e3 * vv * COS45, 1e3 * (r.y[0][i] - rr * COS45));
        }
        rc = close_csv(f, data, ctx);
    }
    if (!rc && (f = fopen(pts, "w")) == NULL) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s", pts);
    if (!rc) {
        fprintf(f, "t [s],DY [mm],VY [mm/s]\n");
        for (int n = 0; n <= 9; n++)                        /* the extrema before 0.3 s */
            fprintf(f, "%.10g,%.10g,0\n", n * V_PI / 100.0, /* mu = band k / (m g) */
                    1e3 * COS45 * tvds_sdnd100_extremum(R0, band * 1e3, 1.0, 10.0, 1e4, n));
        rc = close_csv(f, pts, ctx);
    }
    vrec_free(&r);
    if (rc) return rc;
    tvds_plot_series s[3][3];
    tvds_plot_panel p[3];
    static const char *const yl[3] = {"DY [mm]", "VY [mm/s]", "DY tvds - analytic [mm]"};
    static const char *const pt[3] = {"displacement DY", "velocity VY", "error of tvds on DY"};
    for (int k = 0; k < 3; k++) {
        memset(s[k], 0, sizeof s[k]);
        p[k] = tvds_plot_panel_default();
        p[k].title = pt[k];
        p[k].xlabel = "t [s]";
        p[k].ylabel = yl[k];
        p[k].grid = 1;
        p[k].xmin = 0.0;
        p[k].xmax = 0.3;
        p[k].series = s[k];
        if (k < 2) {
            s[k][0] = (tvds_plot_series){data,       1,     1,   4 + k, 0, NULL, TVDS_PLOT_LINES,
                                         "analytic", C_REF, 5.0, 0,     0};
            s[k][1] = (tvds_plot_series){data,   1,      1,   2 + k, 0, NULL, TVDS_PLOT_LINES,
                                         "tvds", C_TVDS, 1.5, 0,     0};
            s[k][2] = (tvds_plot_series){
                pts,  1, 1,   2 + k, 0, NULL, TVDS_PLOT_POINTS, "reference extrema at nπ/100 s",
                C_PT, 0, 1.6, 7};
            p[k].nseries = 3;
        } else {
            s[k][0] = (tvds_plot_series){data, 1,      1,   6, 0, NULL, TVDS_PLOT_LINES,
                                         NULL, C_TVDS, 1.2, 0, 0};
            p[k].nseries = 1;
            p[k].key = "off";
        }
    }
    p[0].key = "top right";
    tvds_plot_figure fig = {png, 900, 900, title, 3, 1, 3, p};
    return render(&fig, warn, ctx);
}

/* SDND104 figures: relative velocity and cumulative mean wear power for the four amplitudes. */
static int plot_sdnd104(const char *dir, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    static const double a0[4] = {15.0, 1.5, 1.01, 0.99};
    static const char *const acc[4] = {"base.acc=harmonic 15 1 0", "base.acc=harmonic 1.5 1 0",
                                       "base.acc=harmonic 1.01 1 0", "base.acc=harmonic 0.99 1 0"};
    static const char *const ttl[4] = {"a0 = 15 m/s² (slip-slip)", "a0 = 1.5 m/s² (stick-slip)",
                                       "a0 = 1.01 m/s² (stick-slip, short slips)",
                                       "a0 = 0.99 m/s² (permanent stick)"};
    static const double pref[4] = {W15, W1_5, W1_01, 0.0};
    char data[4][1024], png[2][1024];
    int rc = TVDS_OK;
    for (int c = 0; c < 4 && !rc; c++) {
        vrec r;
        const int grp[2] = {TVDS_GROUP_HISTORY, TVDS_GROUP_CONTACTS};
        const char *pre[2] = {"v [", "base.p_wear"};
        const char *sets[2] = {acc[c], NULL};
        rc = record_case("models/shoe/sdnd104.ini", sets, o, 2, grp, pre, &r, ctx);
        if (rc) break;
        /* Exact solution and output every 4e-3 s (250 samples per period). */
        long every = (long)llround(4e-3 / r.h);
        if (every < 1) every = 1;
        int nt = (int)(r.n / every) + 1;
        double *ts = tvds_malloc((size_t)nt * 3 * sizeof(double));
        if (!ts) {
            vrec_free(&r);
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
            break;
        }
        double *vr = ts + nt, *pc = ts + 2 * nt;
        nt = 0;
        for (long i = 0; i < r.n; i += every)
            ts[nt++] = r.t[i];
        sdnd104_sample(a0[c], nt, ts, vr, pc);
        snprintf(data[c], sizeof data[c], "%s/sdnd104_a%d.csv", dir, c);
        FILE *f = fopen(data[c], "w");
        if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data[c]);
        if (!rc) {
            fprintf(f, "t [s],v_r tvds [m/s],v_r exact [m/s],P tvds [W],P exact [W]\n");
            /* Cumulative wear F_N |w| of the steps at t_n >= 4 s, rectangle rule. */
            double E = 0.0;
            int j = 0;
            for (long i = 0; i < r.n; i++) {
                if (r.t[i] >= 4.0) E += r.y[1][i] * r.h;
                if (i % every) continue;
                double t = r.t[i];
                if (t > 4.0)
                    fprintf(f, "%.6g,%.8g,%.8g,%.8g,%.8g\n", t, r.y[0][i], vr[j], E / (t - 4.0),
                            pc[j]);
                else
                    fprintf(f, "%.6g,%.8g,%.8g,,\n", t, r.y[0][i], vr[j]);
                j++;
            }
            rc = close_csv(f, data[c], ctx);
        }
        tvds_free(ts);
        vrec_free(&r);
    }
    if (rc) return rc;
    tvds_plot_series s[2][4][2];
    tvds_plot_panel p[2][4];
    tvds_plot_refline ref[4];
    for (int c = 0; c < 4; c++) {
        for (int g = 0; g < 2; g++) {
            tvds_plot_panel *P = &p[g][c];
            *P = tvds_plot_panel_default();
            P->title = ttl[c];
            P->xlabel = "t [s]";
            P->ylabel = g == 0 ? "v_r [m/s]" : "mean wear power over [4 s, t] [W]";
            P->grid = 1;
            /* Velocity: the whole run for the slip-slip transient, three periods of the
             * window otherwise (the stick phases stay visible). */
            P->xmin = g == 0 && c == 0 ? 0.0 : 4.0;
            P->xmax = g == 0 && c > 0 ? 7.0 : 12.0;
            P->key = c == 0 ? "bottom right" : "off";
            s[g][c][0] = (tvds_plot_series){
                data[c], 1, 1, g == 0 ? 3 : 5, 0, NULL, TVDS_PLOT_LINES, "exact", C_REF, 5.0, 0, 0};
            s[g][c][1] = (tvds_plot_series){
                data[c], 1, 1, g == 0 ? 2 : 4, 0, NULL, TVDS_PLOT_LINES, "tvds", C_TVDS, 1.2, 0, 0};
            P->nseries = 2;
            P->series = s[g][c];
        }
        ref[c] = (tvds_plot_refline){0, pref[c], "reference", "black", 1};
        p[1][c].nrefs = 1;
        p[1][c].refs = &ref[c];
        if (c == 3) {
            p[0][c].ymin = p[1][c].ymin = -1.0;
            p[0][c].ymax = p[1][c].ymax = 1.0;
        }
    }
    p[1][0].key = "bottom right";
    snprintf(png[0], sizeof png[0], "%s/sdnd104_velocity.png", dir);
    snprintf(png[1], sizeof png[1], "%s/sdnd104_wear.png", dir);
    tvds_plot_figure f0 = {
        png[0],
        1100,
        800,
        "SDND104: velocity of the mass relative to the base (base acceleration a0 sin 2πt, "
        "μ = 0.1, g = 10 m/s²)",
        2,
        2,
        4,
        p[0]};
    tvds_plot_figure f1 = {png[1], 1100, 800, "SDND104: cumulative mean wear power F_N |v_r|",
                           2,      2,    4,   p[1]};
    rc = render(&f0, warn, ctx);
    if (!rc) rc = render(&f1, warn, ctx);
    return rc;
}

/* ElasticFriction belt figure: x(t) from the engine (or, while the engine cannot run the
 * element, from the one-DoF hook-form integrator) against the closed form. */
static int plot_belt(const char *dir, const tvds_validate_opts *o, int *warn, tvds_ctx *ctx)
{
    vrec r;
    const int grp[1] = {TVDS_GROUP_HISTORY};
    const char *pre[1] = {"x ["};
    tvds_ctx c2;
    tvds_ctx_init(&c2);
    const char *who = "tvds (engine, ef_belt.ini)";
    int rc = record_case("models/shoe/ef_belt.ini", NULL, o, 1, grp, pre, &r, &c2);
    if (rc) {
        /* Fallback: the same element and parameters through the engine's hook form. */
        who = "tvds one-DoF hook form (engine run failed)";
        memset(&r, 0, sizeof r);
        r.h = 1e-5;
        r.n = (long)llround(1.0 / r.h) + 1;
        r.t = tvds_malloc((size_t)r.n * sizeof(double));
        r.y[0] = tvds_malloc((size_t)r.n * sizeof(double));
        if (!r.t || !r.y[0]) {
            vrec_free(&r);
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "validate: out of memory");
        }
        for (long i = 0; i < r.n; i++)
            r.t[i] = i * r.h;
        rc = validate_belt_sim(0, 1e6, 2000.0, r.h, (int)r.n, r.y[0]);
        if (rc) {
            vrec_free(&r);
            return TVDS_ERROR(ctx, rc, "validate: belt oscillator failed");
        }
    }
    char data[1024], png[1024];
    snprintf(data, sizeof data, "%s/ef_belt.csv", dir);
    snprintf(png, sizeof png, "%s/ef_belt.png", dir);
    FILE *f = fopen(data, "w");
    if (!f) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", data);
    if (!rc) {
        long every = (long)llround(5e-4 / r.h);
        if (every < 1) every = 1;
        fprintf(f, "t [s],x tvds [mm],x closed form [mm],error [mm]\n");
        for (long i = 0; i < r.n; i += every) {
            double xc = tvds_belt_closed_form(r.t[i]);
            fprintf(f, "%.6g,%.8g,%.8g,%.6g\n", r.t[i], 1e3 * r.y[0][i], 1e3 * xc,
                    1e3 * (r.y[0][i] - xc));
        }
        rc = close_csv(f, data, ctx);
    }
    vrec_free(&r);
    if (rc) return rc;
    tvds_plot_series s[2][2];
    tvds_plot_panel p[2];
    memset(s, 0, sizeof s);
    for (int k = 0; k < 2; k++) {
        p[k] = tvds_plot_panel_default();
        p[k].xlabel = "t [s]";
        p[k].grid = 1;
        p[k].xmin = 0.0;
        p[k].xmax = 1.0;
        p[k].series = s[k];
    }
    p[0].title = "mass displacement";
    p[0].ylabel = "x [mm]";
    p[0].key = "bottom right";
    s[0][0] = (tvds_plot_series){
        data, 1, 1, 3, 0, NULL, TVDS_PLOT_LINES, "closed form (rigid element)", C_REF, 5.0, 0, 0};
    s[0][1] = (tvds_plot_series){data, 1, 1, 2, 0, NULL, TVDS_PLOT_LINES, who, C_TVDS, 1.5, 0, 0};
    p[0].nseries = 2;
    p[1].title = "difference: contact compliance (k = 1e6 N/m) and time step";
    p[1].ylabel = "x tvds - closed form [mm]";
    p[1].key = "off";
    s[1][0] = (tvds_plot_series){data, 1, 1, 4, 0, NULL, TVDS_PLOT_LINES, NULL, C_TVDS, 1.2, 0, 0};
    p[1].nseries = 1;
    tvds_plot_figure fig = {png,
                            900,
                            750,
                            "ElasticFriction: mass dragged by a belt at 0.1 m/s (Fst = 2 N, "
                            "Fsl = 1 N, K = 100 N/m)",
                            2,
                            1,
                            2,
                            p};
    return render(&fig, warn, ctx);
}

int tvds_validate_plots(const char *dir, const tvds_validate_opts *o, tvds_ctx *ctx)
{
    if (!dir || !dir[0]) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "validate: no plot directory");
    int warn = 0;
    int rc = tvds_mkdir_p(dir, ctx);
    if (!rc)
        rc = plot_sdnd100(
            dir, "sdnd100a", "models/shoe/sdnd100a_lagrange.ini", BAND,
            "SDND100 modeling A: release of a friction shoe (m = 1 kg, k = 1e4 N/m, μ = 0.1, "
            "r0 = 0.85 mm along 45°; exact stick)",
            o, &warn, ctx);
    if (!rc)
        rc = plot_sdnd100(dir, "sdnd100d", "models/shoe/sdnd100d_lagrange.ini", BAND_D,
                          "SDND100 modeling D: one-way friction (μ = 0.1 along x, 0 along y; exact "
                          "stick)",
                          o, &warn, ctx);
    if (!rc) rc = plot_sdnd104(dir, o, &warn, ctx);
    if (!rc) rc = plot_belt(dir, o, &warn, ctx);
    return rc ? rc : warn;
}
