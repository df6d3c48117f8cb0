/* validate_impl.h — shared by src/analysis/validate*.c: constants and reference parameters of
 * the validation cases, the SDND104 slip arcs, and the helpers the table, the shoes and the
 * figures share. */
#ifndef TVDS_VALIDATE_IMPL_H
#define TVDS_VALIDATE_IMPL_H

#include "tvds/tvds_validate.h"

#define V_PI  3.14159265358979323846
#define COS45 0.70710678118654752440

/* SDND100 analytic extrema, DY = r cos 45 (docs/validation.md). */
#define R0          0.85e-3
#define BAND        1e-4               /* mu m g / k */
#define BAND_D      (1e-4 * COS45_LIT) /* one-way: mu / sqrt(2) */
#define COS45_LIT   0.70710678118654752440
#define DY(n, band) ((((n) % 2) ? -1.0 : 1.0) * (R0 - 2.0 * (n) * (band)) * COS45_LIT)

/* SDND104 mean wear powers (analytic, a0 = 15, 1.5, 1.01) [W]. */
#define W15   15.26709959
#define W1_5  0.40906245
#define W1_01 2.261641e-4

/* Belt-driven oscillator (ElasticFriction element, docs/validation.md). */
#define BELT_M   1.0
#define BELT_K   100.0
#define BELT_V   0.1
#define BELT_FST 2.0
#define BELT_FSL 1.0

/* SDND104 slip arc starting at rest relative to the base at ts, sliding in direction s:
 * v(t) = -s mu g (t - ts) + (a0/w)(cos wt - cos w ts) and its integral from ts. */
typedef struct arc {
    double ts, s, a0, w, mug;
} arc;

/* ---- validate_exact.c ---- */
double validate_arc_v(const arc *A, double t);
double validate_arc_x(const arc *A, double t);
double validate_arc_end(const arc *A, double scan, double tlim);

/* ---- validate_shoes.c ---- */
double validate_interp3(const double *y, int n, double h, double t);
int validate_belt_sim(int rigid, double k, double b, double h, int n, double *xs);

/* ---- validate.c ---- */
int validate_find_channel(const char *const *names, int n, const char *prefix, const char *suffix);

#endif
