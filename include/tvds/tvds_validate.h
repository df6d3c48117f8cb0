/* tvds_validate.h — the shipped validation cases (SDND100 friction shoe release, SDND104 wear
 * power): their analytic references, law-level checks and the driver behind `tvds validate`
 * (docs/validation.md). */
#ifndef TVDS_VALIDATE_H
#define TVDS_VALIDATE_H

#include <stdio.h>

#include "tvds/tvds.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Analytic references -------------------------------------------------------------------- */

/* SDND100: displacement of the released Coulomb oscillator m r'' + k r = -mu m g sign(r') at its
 * n-th extremum t_n = n pi / omega0 (n >= 0; n = 0 gives r0), with r0 > 0 and zero initial
 * speed: r_n = (-1)^n (r0 - 2 n mu m g / k) while the motion goes on; once an extremum falls
 * inside the stick band |r| <= mu m g / k the shoe stays there. [m] */
TVDS_API double tvds_sdnd100_extremum(double r0, double mu, double m, double g, double k, int n);

/* SDND104: exact mean Archard wear power (1/(t1-t0)) * integral over [t0, t1] of m g |v_r| of a
 * rigid mass on a base with acceleration a0 sin(2 pi f t), Coulomb coefficient mu, starting
 * stuck at t = 0 (docs/validation.md gives the piecewise closed form this evaluates: slip arcs
 * v_r(t) = -s mu g (t - ts) + (a0/w)(cos wt - cos w ts), stick while |a0 sin wt| <= mu g,
 * events located to round-off by bisection). *P in W. Returns TVDS_OK or TVDS_ERR_INVALID. */
TVDS_API int tvds_sdnd104_wear_power(double a0, double freq, double mu, double m, double g,
                                     double t0, double t1, double *P);

/* ---- Law-level shoes: one-DoF integrators over src/engine/friction_laws.c ------------------- */

enum tvds_shoe_law { TVDS_SHOE_PENALTY = 0, TVDS_SHOE_EXACT = 1 };

/* SDND100 as a one-DoF oscillator along theta = 45 deg (m = 1, k = 1e4, g = 10, r0 = 0.85 mm),
 * central differences with step h over [0, 4 pi / 100 + 4h]. law PENALTY: the penalty shock law
 * with kn = 20, pen0 = 0.5, kt (Code_Aster's 4e5 leaves a series-compliance error of order
 * mu m g / (kt r)), isotropic in the (x, y) plane, or one-way
 * (mu only along x) when one_way. law EXACT: rigid stick-slip element (true stick), mu / sqrt(2)
 * for one_way. dy[4]: DY = r cos 45 at t = k pi / 100, k = 1..4 (3-point interpolation). */
TVDS_API int tvds_shoe_sdnd100(int law, int one_way, double kt, double h, double dy[4]);

/* SDND104 as a one-DoF mass in the base frame (m = 1, mu = 0.1, g = 10, base a0 sin 2 pi t,
 * spring ks [N/m] to the base: 3e-5 in Code_Aster's model, 0 for the ideal one), step h, mean
 * wear power over [4, 12] s. PENALTY: kt tangential stiffness, wear F_N |w| with w the slip
 * rate of the anchor (zero while sticking); EXACT: rigid stick-slip element. */
TVDS_API int tvds_shoe_sdnd104(int law, double a0, double kt, double ks, double h, double *P);

/* Belt-driven stick-slip oscillator through an ElasticFriction element (docs/validation.md):
 * mass m = 1 kg on a spring K = 100 N/m to ground, dragged by a belt at V = 0.1 m/s through an
 * element with Fst = 2 N, Fsl = 1 N; compliant (k, b) or rigid (rigid = 1: the stick-row
 * protocol). Central differences with step h from stuck at t = 0; x[i] = mass displacement at
 * t[i] (3-point interpolation), nt <= 8, t[i] <= 2 s. */
TVDS_API int tvds_shoe_belt(int rigid, double k, double b, double h, int nt, const double *t,
                            double *x);

/* Closed form of the same oscillator with a rigid element: stick x = V t until K x = Fst,
 * slip arcs x = Fsl/K + A cos(w s) + (V/w) sin(w s) (A = (Fst - Fsl)/K, w = sqrt(K/m)) of
 * duration (2 pi - 2 atan(A w / V))/w, sticks of 2A/V. [m] */
TVDS_API double tvds_belt_closed_form(double t);

/* ---- The validation table ------------------------------------------------------------------- */

enum tvds_vq_kind {
    TVDS_VQ_PROBE_AT = 0, /* history channel of probe `channel` at time t (3-point interpolation
                             of the per-step values) */
    TVDS_VQ_WEAR_MEAN,    /* summary: window mean of the wear power of contact `channel` */
    TVDS_VQ_LAW           /* value k of the case's law function */
};

typedef struct tvds_vquantity {
    const char *label;   /* "DY(pi/100)" */
    int kind;            /* enum tvds_vq_kind */
    const char *channel; /* probe or contact name */
    double t;            /* TVDS_VQ_PROBE_AT: time [s] */
    double ref;          /* reference value */
    double tol;          /* relative tolerance; ref = 0: absolute bound, 0 = exactly 0 */
} tvds_vquantity;

#define TVDS_VQ_MAX 4

typedef struct tvds_vcase {
    const char *name;      /* "sdnd100-a-lagrange" */
    const char *group;     /* "engine" (case file through the engine) or "law" */
    const char *case_file; /* engine: path relative to the repository root */
    const char *sets[3];   /* engine: --set overrides, NULL-terminated */
    const char *what;      /* one line: how it is modelled */
    /* law: fills values[0..nq-1]; returns a status */
    int (*law)(double *values);
    int nq;
    tvds_vquantity q[TVDS_VQ_MAX];
} tvds_vcase;

/* The shipped cases, *n of them (static storage). */
TVDS_API const tvds_vcase *tvds_validate_cases(int *n);

enum tvds_vstatus { TVDS_V_PASS = 0, TVDS_V_FAIL, TVDS_V_ERROR };

typedef struct tvds_vresult {
    const tvds_vcase *c;
    int q; /* quantity index in c->q */
    double computed;
    double relerr; /* |computed - ref| / |ref|, or |computed| when ref = 0 */
    int status;    /* enum tvds_vstatus */
    char msg[200]; /* ERROR: why (engine message) */
} tvds_vresult;

typedef struct tvds_validate_opts {
    const char *root;        /* directory the case files are relative to; NULL: "." */
    const char *filter;      /* run only cases whose name contains this, or one of its
                                comma-separated parts ("lagrange,law:"); NULL: all */
    const char *group;       /* "engine" or "law" only; NULL: both */
    const char *const *sets; /* extra --set overrides applied to every engine case after its
                                own (e.g. "run.dt=1e-5"); may be NULL */
    int nsets;               /* at most 8 */
} tvds_validate_opts;

/* Run the selected cases. *res (tvds_malloc, caller frees with tvds_free) receives one row per
 * quantity, *nres rows. A case that cannot be read or run gives ERROR rows with the message;
 * the function itself fails only on allocation failure. */
TVDS_API int tvds_validate_run(const tvds_validate_opts *o, tvds_vresult **res, int *nres,
                               tvds_ctx *ctx);

/* Print the table: case, quantity, reference, computed, relative error, tolerance, verdict.
 * markdown = 1: a Markdown table (docs/validation.md). Returns the number of non-PASS rows. */
TVDS_API int tvds_validate_print(FILE *out, const tvds_vresult *res, int nres, int markdown);

/* ---- Figures (`tvds validate --plots DIR`, docs/validation.md) ----------------------------- */

/* Run the Lagrange SDND100 cases A and D, SDND104 (a0 = 15, 1.5, 1.01, 0.99) and the
 * ElasticFriction belt through the engine (case files relative to o->root, o->sets applied
 * after each case's own; o may be NULL) and draw, into dir (created if missing):
 * sdnd100a.png, sdnd100d.png (DY, VY and the DY error against the analytic piecewise
 * solution, reference extrema at n pi/100 s), sdnd104_velocity.png, sdnd104_wear.png (relative
 * velocity and cumulative mean wear power against the exact solution), ef_belt.png (x(t) against
 * the closed form; from the one-DoF hook-form integrator when the engine cannot run the case).
 * The plotted data go to DIR/<figure>.csv (decimated) and the gnuplot scripts to DIR/<figure>.gp.
 * Returns TVDS_OK, TVDS_WARN_NO_GNUPLOT (positive: data and scripts written, no PNG),
 * or an error code (engine failure of an SDND case, TVDS_ERR_IO) with ctx->msg. */
TVDS_API int tvds_validate_plots(const char *dir, const tvds_validate_opts *o, tvds_ctx *ctx);

/* Print the Markdown image links and captions of those figures, the images referenced as
 * reldir/<figure>.png (reldir relative to the Markdown file). */
TVDS_API void tvds_validate_print_figures(FILE *out, const char *reldir);

#ifdef __cplusplus
}
#endif
#endif
