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

/* About which state the coupled system is linearised (docs/cea.md, "Linearisation about the
 * sliding equilibrium"). */
enum tvds_cea_state {
    TVDS_CEA_DEFORMED = 0, /* the preloaded static sliding equilibrium at each position: loads at
                              t_eval, friction, contact normal from the deformed master, alpha
                              from the deformed positions, geometric stiffness of the preload
                              (consistent with subs-b and FiLm) */
    TVDS_CEA_UNDEFORMED    /* the undeformed geometry, no preload (consistent with subs-a) */
};

/* tvds_cea_options.slave: all slave nodes of the contact at once. */
#define TVDS_CEA_ALL_SLAVES (-1)
/* tvds_cea_run's contact: every contact of the model at once, each with all its slave nodes
 * (-1 is no contact). */
#define TVDS_CEA_ALL_CONTACTS (-2)

enum tvds_cea_solver {
    TVDS_CEA_AUTO = 0, /* TVDS_CEA_ARPACK from TVDS_CEA_ARPACK_MIN_DOFS DoFs up (should it fail,
                          the dense path below, tvds_cea_result.arpack_failure saying so), below
                          it the standard form M_c^-1 (dgeev) when M_c is well conditioned, else
                          QZ */
    TVDS_CEA_QZ,       /* generalized pencil (LAPACK dggev), all eigenvalues */
    TVDS_CEA_STANDARD, /* standard form (LAPACK dgeev); TVDS_ERR_SINGULAR if M_c is singular */
    TVDS_CEA_ARPACK    /* shift-invert Arnoldi (ARPACK dnaupd): the lowest nmodes + nextra only;
                          TVDS_ERR_SOLVER if they cannot be enclosed (docs/cea.md) */
};
/* Model size (DoFs of the substructures together) from which TVDS_CEA_AUTO takes ARPACK: the
 * measured crossover of the two paths (docs/cea.md, "Cost"). */
#define TVDS_CEA_ARPACK_MIN_DOFS 200

/* One position as solved, before the tracking: what a resumed CEA needs of it
 * (tvds_cea_options.solved, .known). The arrays belong to the caller (known) or to tvds_cea_run
 * for the duration of the callback (solved). */
typedef struct tvds_cea_solved {
    double s;  /* position [m] */
    int ndof;  /* DoFs of the uncoupled substructures together (u's N) */
    int nred;  /* DoFs after primal assembly */
    int ncand; /* candidate eigenvalues kept */
    double chi, resid, lambda_n, slope;
    int attempts, nops;      /* ARPACK statistics (0 on the dense path) */
    const double *lre, *lim; /* ncand: eigenvalues (real, imaginary part) */
    const double *u;         /* ncand x ndof x 2 (re, im interleaved): mode shapes */
} tvds_cea_solved;

/* Options; tvds_cea_options_default() gives the documented defaults. */
typedef struct tvds_cea_options {
    int nmodes;       /* branches: the lowest nmodes oscillating eigenvalues (Im > 0); default 20 */
    int nextra;       /* extra candidates per position offered to the tracker so that a branch
                         can enter from above; default 10 */
    double chi;       /* sliding sign +1 / -1 (relative velocity of the slave along the master
                         tangent T1->T2); 0 (default): from the model's kinematics at t_eval */
    double t_eval;    /* time [s] at which the steady sliding state is taken (damping schedule,
                         slave and rigid-master velocities); < 0 (default): the model's t_end */
    int slave;        /* index into the contact's slave_nodes; default 0; TVDS_CEA_ALL_SLAVES:
                         every slave node of the contact is active, each with its own normal
                         row and friction term (docs/cea.md, "Several contact nodes"); the
                         position s is the first node's, the others keep their offsets along
                         the undeformed master */
    double fmin_hz;   /* eigenvalues below this frequency are ignored (rigid-body and
                         non-oscillating ones); < 0 (default): 1e-6 times the system's
                         frequency scale sqrt(tr K / tr M) / (2 pi) */
    double re_tol;    /* a branch is unstable where Re > re_tol [1/s] + 1e-9 |lambda|; default 0 */
    int solver;       /* enum tvds_cea_solver; default TVDS_CEA_AUTO */
    double shift_hz;  /* > 0: the ARPACK path with the complex shift sigma = i 2 pi shift_hz
                         (complex LU; for crowded spectra), placed at or below the lowest
                         frequency wanted: it finds the candidates nearest it and guarantees
                         none missed within h of it in frequency (h: the farthest kept one)
                         with |Re| <= 0.25 h (docs/cea.md, "Complex shift"); solver must then
                         be TVDS_CEA_AUTO or TVDS_CEA_ARPACK. 0 (default): the real shift */
    int nthreads;     /* OpenMP threads over positions; 0 (default): OpenMP's default */
    int state;        /* enum tvds_cea_state; default TVDS_CEA_DEFORMED */
    int undamped;     /* 1: leave the damping out (C = 0), the conservative locus; default 0 */
    int no_lateral;   /* 1: in 3D, keep the friction direction frozen against velocity
                         perturbations (no lateral friction damping mu lambda_N / |v_t| b b^T,
                         docs/cea.md "Lateral friction damping"); default 0 */
    int refine;       /* 1 (default): insert positions where a branch's real part nears or
                         crosses the threshold or two branches approach (coalescence), down to
                         a spacing ds_min; 0: the positions given only */
    double ds_min;    /* smallest spacing of the refinement [m]; <= 0 (default): 2.5e-4 times
                         the length of the master surface (0.025 mm on beam 2's 99 mm edge),
                         the extent of a face set along the slave's travel, the span of the
                         positions for a rigid master */
    int max_pos;      /* refinement stops at this many positions in all; default 4000 */
    double zeta_near; /* refinement: a branch "nears" instability where its real part could
                         reach -zeta_near |lambda| inside an interval (extrapolating three times
                         its change over the interval); default 0 */
    double gap_rel;   /* refinement: two branches "approach" where their distance
                         |lambda_a - lambda_b| is a local minimum along the positions below
                         gap_rel |lambda_a|, or could close inside an interval; default 0.05 */
    int mirror;       /* symmetry plane of the model: 0 (default) none; 1, 2, 3: x = 0, y = 0,
                         z = 0. Each kept mode gets its antisymmetric share about it
                         (tvds_cea_result.anti, docs/cea.md "Symmetric and antisymmetric
                         modes"); TVDS_ERR_INVALID when a node has no mirror image */
    volatile sig_atomic_t *stop; /* nonzero: positions not started are skipped, a running
                                    Arnoldi iteration stops at its next operator application,
                                    and tvds_cea_run returns TVDS_ERR_INTERRUPTED with the
                                    positions finished so far (tvds_cea_result.partial); may be
                                    NULL */
    void (*progress)(void *user, int done, int total);    /* called after each position solved,
                                       one call at a time (from any thread): done positions of
                                       total so far (total grows as the refinement adds positions);
                                       may be NULL */
    void *user;                                           /* passed to progress */
    void (*solved)(void *user, const tvds_cea_solved *p); /* called after each position
                                    solved here (not for a known one), one call at a time (from
                                    any thread), with user; may be NULL */
    const tvds_cea_solved *known; /* nknown positions solved earlier with the same model and
                                     options (a resumed CEA): a position equal to one of them
                                     (bitwise) takes its data instead of being solved, so the
                                     locus is the one an uninterrupted CEA gives; may be NULL */
    int nknown;
} tvds_cea_options;

TVDS_API tvds_cea_options tvds_cea_options_default(void);

/* An unstable window: consecutive positions where one branch has Re > threshold. */
typedef struct tvds_cea_window {
    int branch;            /* 0-based branch index */
    double s_start, s_end; /* first and last unstable position [m] */
    double f_min, f_max;   /* frequency range over the window [Hz] */
    double re_max;         /* largest real part [1/s] */
    double s_in, s_out;    /* edges where Re crosses the threshold, interpolated linearly
                              between the last stable and first unstable positions [m] (the
                              grid's end when the window touches it) */
    double f_peak, s_peak; /* frequency [Hz] and position [m] of the largest real part */
    /* Along the slave's path (tvds_cea_growth; NaN before or when the path misses it): */
    double t_start, t_end; /* first entry into / last exit from [s_in, s_out] [s] */
    double growth_pred;    /* predicted amplitude growth exp(integral of Re dt) while inside */
    double anti_peak;      /* antisymmetric share at the largest real part (NaN without
                              tvds_cea_options.mirror) */
} tvds_cea_window;

/* A position the survey could not solve (tvds_cea_result.failed): left out of the locus, the
 * survey going on without it. */
typedef struct tvds_cea_failure {
    double s;         /* position [m] */
    int status;       /* its tvds status (TVDS_ERR_SOLVER, TVDS_ERR_SINGULAR, ...) */
    char reason[256]; /* why, one line (as an error message: "cea: position s = ...: ...") */
} tvds_cea_failure;

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
    double *lambda_n;     /* npos: normal force of the static sliding state [N] (>= 0
                             compressive; 0 for TVDS_CEA_UNDEFORMED; the sum over the nodes
                             for TVDS_CEA_ALL_SLAVES) */
    double *slope;        /* npos: angle of the master segment at the contact in the state
                             linearised about [rad] (undeformed angle for TVDS_CEA_UNDEFORMED) */
    int nrefined;         /* positions added by the refinement */
    int capped;           /* 1 when the refinement stopped at max_pos */
    double ds_min;        /* smallest spacing the refinement could reach [m] */
    int ndof;             /* DoFs of the uncoupled substructures together */
    int nred;             /* DoFs after primal assembly at the first position */
    double chi;           /* sliding sign used */
    int arpack;           /* 1: the eigenvalues came from the shift-invert Arnoldi */
    int arpack_attempts;  /* most Arnoldi runs at one position (1: the first run enclosed the
                             wanted eigenvalues everywhere) */
    double arpack_nops;   /* applications of the shift-inverted operator per position, mean */
    double *anti; /* npos x nbranch, with tvds_cea_options.mirror only (else NULL): antisymmetric
                     share |u_A|^2 / |u|^2 of each branch's mode over the translational physical
                     DoFs, u_A = (u - R u_mirror) / 2; 0 symmetric, 1 antisymmetric; NaN where
                     a branch has no mode */
    int partial;  /* 1: tvds_cea_run was interrupted (TVDS_ERR_INTERRUPTED) and this
                     locus holds only the positions it finished */
    char arpack_failure[256]; /* TVDS_CEA_AUTO only: non-empty when the ARPACK path failed (its
                                 message) and the dense eigenproblem computed the locus instead */
    int nfailed;              /* positions that could not be solved (no static sliding state,
                                 a singular constraint operator, an eigensolver failure) */
    tvds_cea_failure *failed; /* nfailed, in path order; they are not in s[] */
    double mu;                /* the contact's kinetic friction coefficient */
    int undamped;             /* 1: computed without damping (tvds_cea_options.undamped) */
} tvds_cea_result;

/* Length [m] of the contact's master surface (undeformed, sum of its segments).
 * TVDS_ERR_INVALID for a rigid master (it has no length) or a bad contact. */
TVDS_API int tvds_cea_surface_length(const tvds_model *m, int contact, double *length,
                                     tvds_ctx *ctx);

/* Complex eigenvalues of the model coupled at each of the npos positions s[] of the slave
 * node of contact `contact` (TVDS_CEA_ALL_CONTACTS: every contact with all its slave nodes,
 * s the first node's position; -1: no contact) (curvilinear abscissa from the first master node;
 * for a rigid master, s only labels the positions), linearised about steady sliding with the
 * contact's kinetic friction coefficient mu_k. Bilateral constraints, springs and dampers of the
 * model are included; damping is the model's at t_eval. Positions are solved in parallel (OpenMP).
 * opt may be NULL (defaults). *out is owned by the caller (tvds_cea_result_free).
 * Returns TVDS_ERR_INVALID (bad contact, position off the surface, missing DoF, undetermined
 * sliding direction: the message says which), TVDS_ERR_SINGULAR (constraints of different
 * rank for compatibility and equilibrium, or no DoF left), TVDS_ERR_SOLVER (LAPACK failure),
 * TVDS_ERR_NOMEM, TVDS_ERR_INTERRUPTED (opt->stop raised: *out holds the positions finished,
 * tracked and with their windows, (*out)->partial = 1; NULL when none was). A position that
 * cannot be solved does not stop the survey: it is left out of the locus and listed with its
 * status and reason in (*out)->failed (the refinement does not split next to it); the errors
 * above for it are returned only when every position fails (the first one's) or when, under
 * TVDS_CEA_AUTO, the Arnoldi path failed (the survey is then redone dense). */
TVDS_API int tvds_cea_run(const tvds_model *m, int contact, const double *s, int npos,
                          const tvds_cea_options *opt, tvds_cea_result **out, tvds_ctx *ctx);

/* Predicted growth along the slave's path: s(t) = s_initial + (x(t) - x(0)) . t_m, with x(t)
 * the slave's prescribed travel (the contact's slave_kin, else the single-term imposed motions
 * of the slave substructure, as for chi) and t_m the master's undeformed tangent at s_initial,
 * sampled every dt (<= 0: 1e-5 s) on [0, t_end]. For each window, t_start/t_end are the first
 * entry into and last exit from [s_in, s_out] and growth_pred = exp(integral of Re(s(t)) dt over
 * the time inside), Re interpolated linearly in s along the window's branch. Windows the path
 * does not reach keep NaN. Returns TVDS_OK or TVDS_ERR_INVALID. */
TVDS_API int tvds_cea_growth(tvds_cea_result *r, const tvds_model *m, int contact, double s_initial,
                             double t_end, double dt, tvds_ctx *ctx);

/* Slave's curvilinear abscissa on the undeformed master surface of contact `contact` (its
 * closest point; slave node `slave` of the contact); 0 on a face-set master (positions there
 * count from the undeformed placement). TVDS_ERR_INVALID for a rigid master. */
TVDS_API int tvds_cea_slave_abscissa(const tvds_model *m, int contact, int slave, double *s,
                                     tvds_ctx *ctx);

/* Face-set master (docs/cea.md, "Face-set masters"): the positions s (distance travelled by the
 * slave body along its direction of travel, from its undeformed placement) over which slave
 * node `slave` (TVDS_CEA_ALL_SLAVES: every slave node) stays on the face set, the direction of
 * travel taken at t_eval (< 0: the model's t_end, as tvds_cea_options.t_eval); the interval
 * [*s_lo, *s_hi] that contains 0 (up to the 1e-9 margin, in natural coordinates, of a valid
 * projection). TVDS_ERR_INVALID for another master, a node off the face set at s = 0 or no
 * travel. */
TVDS_API int tvds_cea_path_range(const tvds_model *m, int contact, int slave, double t_eval,
                                 double *s_lo, double *s_hi, tvds_ctx *ctx);

/* Free a result; accepts NULL and clears *r. */
TVDS_API void tvds_cea_result_free(tvds_cea_result **r);

/* Write dir/locus.csv (position [m], branch, frequency [Hz], real part [1/s], damping ratio,
 * MAC, unstable, static normal force [N], with r->anti the antisymmetric share) and
 * dir/unstable.csv (branch, s_start [m], s_end [m], f_min [Hz], f_max [Hz], max real part [1/s],
 * then s_in, s_out [m], f at max Re [Hz], s at max Re [m], t_start, t_end [s], predicted growth,
 * with r->anti the antisymmetric share at max Re); dir must exist. tag (NULL or "") is inserted
 * before ".csv" ("_undamped": locus_undamped.csv). Returns TVDS_OK or TVDS_ERR_IO. */
TVDS_API int tvds_cea_write_csv_tag(const tvds_cea_result *r, const char *dir, const char *tag,
                                    tvds_ctx *ctx);
TVDS_API int tvds_cea_write_csv(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx);

/* Mesh convergence of a CEA survey against a reference survey (docs/models.md, "Mesh
 * convergence"). A window of the reference is counted when its largest real part is at least
 * TVDS_CEA_CONV_COUNT times the largest of the reference's windows; the survey converges when
 * every counted window is found (tvds_cea_conv_match) with its frequency at max Re within
 * TVDS_CEA_CONV_DF and its max Re within TVDS_CEA_CONV_DRE (relative), no other window as strong
 * appears, and the static normal force is within TVDS_CEA_CONV_DLAMBDA. */
#define TVDS_CEA_CONV_COUNT   0.10
#define TVDS_CEA_CONV_DF      0.005
#define TVDS_CEA_CONV_DRE     0.10
#define TVDS_CEA_CONV_DLAMBDA 0.005
/* Two windows are one when their frequencies at max Re differ by less than this (relative)
 * and their positions of max Re by less than TVDS_CEA_CONV_MATCH_DS [m]. */
#define TVDS_CEA_CONV_MATCH_DF 0.03
#define TVDS_CEA_CONV_MATCH_DS 1.5e-3

typedef struct tvds_cea_conv {
    int counted;        /* windows of the survey at least as strong as the counting threshold */
    int missing, extra; /* counted windows of the reference not found / of the survey not in
                           the reference */
    double df, dre;     /* worst relative difference of the frequency at max Re and of max Re
                           over the counted windows of the reference found */
    double dlambda;     /* relative difference of the static normal force */
    int strongest;      /* the survey's window with the largest real part (-1: none) */
    int converged;      /* 1 when the criterion above holds */
} tvds_cea_conv;

/* The window of r matching w (frequencies at max Re within TVDS_CEA_CONV_MATCH_DF, positions of
 * max Re within TVDS_CEA_CONV_MATCH_DS; the nearest when several do); -1 when none. */
TVDS_API int tvds_cea_conv_match(const tvds_cea_result *r, const tvds_cea_window *w);
/* Survey c (static normal force lambda_c) against the reference ref (lambda_ref > 0). */
TVDS_API void tvds_cea_conv_compare(const tvds_cea_result *ref, double lambda_ref,
                                    const tvds_cea_result *c, double lambda_c, tvds_cea_conv *out);
/* Largest real part over every position of the branches whose frequency lies in [f_lo, f_hi]
 * [Hz], with the frequency *f and position *s where it occurs (f, s may be NULL); -INFINITY
 * (f, s NaN) when no branch enters the band. A stable branch's value says how far it is from
 * instability: -(alpha + beta omega^2) / 2 for an uncoupled mode under Rayleigh damping. */
TVDS_API double tvds_cea_band_max(const tvds_cea_result *r, double f_lo, double f_hi, double *f,
                                  double *s);

/* Draw dir/locus.png (real part vs frequency coloured by position) and dir/stability.png
 * (frequency vs position, unstable points highlighted) from the CSV files written by
 * tvds_cea_write_csv. Returns the codes of tvds_plot_render (TVDS_WARN_NO_GNUPLOT when
 * gnuplot is missing). */
TVDS_API int tvds_cea_plot(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
