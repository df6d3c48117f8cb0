/* tvds_cea.h — complex eigenvalue analysis along the sliding path: primal assembly of the
 * substructures at each contact position, the locus of the lowest complex eigenvalues, branch
 * tracking by MAC and the unstable windows (docs/cea.md). */
#ifndef TVDS_CEA_H
#define TVDS_CEA_H

#include <signal.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tvds_cea_solver {
    TVDS_CEA_AUTO = 0, /* standard form M_c^-1 (dgeev) when M_c is well conditioned, else QZ */
    TVDS_CEA_QZ,       /* generalized pencil (LAPACK dggev), always */
    TVDS_CEA_STANDARD  /* standard form (LAPACK dgeev); TVDS_ERR_SINGULAR if M_c is singular */
};

/* Options; tvds_cea_options_default() gives the documented defaults. */
typedef struct tvds_cea_options {
    int nmodes;     /* branches: the lowest nmodes oscillating eigenvalues (Im > 0); default 20 */
    int nextra;     /* extra candidates per position offered to the tracker so that a branch
                       can enter from above; default 10 */
    double chi;     /* sliding sign +1 / -1 (relative velocity of the slave along the master
                       tangent T1->T2); 0 (default): from the model's kinematics at t_eval */
    double t_eval;  /* time [s] at which the steady sliding state is taken (damping schedule,
                       slave and rigid-master velocities); < 0 (default): the model's t_end */
    int slave;      /* index into the contact's slave_nodes; default 0 */
    double fmin_hz; /* eigenvalues below this frequency are ignored (rigid-body and
                       non-oscillating ones); < 0 (default): 1e-6 times the system's
                       frequency scale sqrt(tr K / tr M) / (2 pi) */
    double re_tol;  /* a branch is unstable where Re > re_tol [1/s] + 1e-9 |lambda|; default 0 */
    int solver;     /* enum tvds_cea_solver; default TVDS_CEA_AUTO */
    int nthreads;   /* OpenMP threads over positions; 0 (default): OpenMP's default */
    volatile sig_atomic_t *stop; /* nonzero: positions not started are skipped and
                                    tvds_cea_run returns TVDS_ERR_INTERRUPTED; may be NULL */
} tvds_cea_options;

TVDS_API tvds_cea_options tvds_cea_options_default(void);

/* An unstable window: consecutive positions where one branch has Re > threshold. */
typedef struct tvds_cea_window {
    int branch;            /* 0-based branch index */
    double s_start, s_end; /* first and last unstable position [m] */
    double f_min, f_max;   /* frequency range over the window [Hz] */
    double re_max;         /* largest real part [1/s] */
} tvds_cea_window;

/* The locus: npos positions x nbranch branches, position-major ([p * nbranch + b]). */
typedef struct tvds_cea_result {
    int npos, nbranch;
    double *s;        /* npos: positions (curvilinear abscissa along the master surface) [m] */
    double *freq;     /* npos x nbranch: Im(lambda) / (2 pi) [Hz]; NaN where a branch has no mode */
    double *re;       /* npos x nbranch: Re(lambda) [1/s] */
    double *zeta;     /* npos x nbranch: damping ratio -Re / |lambda| */
    double *mac;      /* npos x nbranch: MAC of the match with the previous position (1 at p = 0) */
    double *resid;    /* npos: largest backward error of the eigenpairs kept at each position,
                         |(s^2 M_c + s C_c + K_c) q| / ((|s|^2 |M_c| + |s| |C_c| + |K_c|) |q|) */
    double resid_max; /* largest of resid[]: round-off (~1e-12) when the solve is accurate */
    int nwin;
    tvds_cea_window *win; /* nwin, sorted by branch then position */
    int ndof;             /* DoFs of the uncoupled substructures together */
    int nred;             /* DoFs after primal assembly at the first position */
    double chi;           /* sliding sign used */
} tvds_cea_result;

/* Length [m] of the contact's master surface (undeformed, sum of its segments).
 * TVDS_ERR_INVALID for a rigid master (it has no length) or a bad contact. */
TVDS_API int tvds_cea_surface_length(const tvds_model *m, int contact, double *length,
                                     tvds_ctx *ctx);

/* Complex eigenvalues of the model coupled at each of the npos positions s[] of the slave
 * node of contact `contact` (curvilinear abscissa from the first master node; for a rigid
 * master, s only labels the positions), linearised about steady sliding with the contact's
 * kinetic friction coefficient mu_k. Bilateral constraints, springs and dampers of the model
 * are included; damping is the model's at t_eval. Positions are solved in parallel (OpenMP).
 * opt may be NULL (defaults). *out is owned by the caller (tvds_cea_result_free).
 * Returns TVDS_ERR_INVALID (bad contact, position off the surface, missing DoF, undetermined
 * sliding direction: the message says which), TVDS_ERR_SINGULAR (constraints of different
 * rank for compatibility and equilibrium, or no DoF left), TVDS_ERR_SOLVER (LAPACK failure),
 * TVDS_ERR_NOMEM. */
TVDS_API int tvds_cea_run(const tvds_model *m, int contact, const double *s, int npos,
                          const tvds_cea_options *opt, tvds_cea_result **out, tvds_ctx *ctx);

/* Free a result; accepts NULL and clears *r. */
TVDS_API void tvds_cea_result_free(tvds_cea_result **r);

/* Write dir/locus.csv (position [m], branch, frequency [Hz], real part [1/s], damping ratio,
 * MAC) and dir/unstable.csv (branch, s_start [m], s_end [m], f_min [Hz], f_max [Hz],
 * max real part [1/s]); dir must exist. Returns TVDS_OK or TVDS_ERR_IO. */
TVDS_API int tvds_cea_write_csv(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx);

/* Draw dir/locus.png (real part vs frequency coloured by position) and dir/stability.png
 * (frequency vs position, unstable points highlighted) from the CSV files written by
 * tvds_cea_write_csv. Returns the codes of tvds_plot_render (TVDS_WARN_NO_GNUPLOT when
 * gnuplot is missing). */
TVDS_API int tvds_cea_plot(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
