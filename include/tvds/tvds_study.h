/* tvds_study.h — the beam-on-beam squeal study (docs/squeal.md): models, CEA survey, the paper's
 * procedure for mu, transients across an unstable window, report.md. What `tvds study` runs. */
#ifndef TVDS_STUDY_H
#define TVDS_STUDY_H

#include <signal.h>

#include "tvds/tvds_beams.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_compare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The study's choices (docs/squeal.md). The CEA survey covers s = 30 ... 60 mm of beam 2's
 * edge (C's abscissa from the first master node); each transient starts C so that the window it
 * is meant to cross is entered TVDS_STUDY_T_ENTRY after t = 0, i.e. 50 ms after the damping
 * schedule (0.25 s) ends, and stops TVDS_STUDY_T_AFTER after it has left the window. */
#define TVDS_STUDY_S_LO 0.030
#define TVDS_STUDY_S_HI 0.060
#define TVDS_STUDY_DS   1e-3
/* Smallest spacing of the refinement: every window wider than 0.1 mm is found (the beam's are
 * 0.2 mm and wider). */
#define TVDS_STUDY_DS_MIN  5e-5
#define TVDS_STUDY_T_ENTRY 0.30
#define TVDS_STUDY_T_AFTER 0.08
/* The paper's procedure for mu: the lowest mu of the grid whose predicted growth across the
 * strongest window free of master nodes (the one part (b) crosses) reaches TVDS_STUDY_G_MIN,
 * the burst of the findings (TVDS_BURST_GROWTH: an amplitude ratio of 5, 14 dB). */
#define TVDS_STUDY_MU_LO   0.30
#define TVDS_STUDY_MU_HI   0.70
#define TVDS_STUDY_MU_STEP 0.05
#define TVDS_STUDY_G_MIN   TVDS_BURST_GROWTH

/* Which pair the study runs on: the plane-stress beams (2D) or the solids (3D: the tip line of
 * every slave node of the contact, docs/models.md), and on which mesh; how a CEA reports its
 * positions and is stopped. */
typedef struct tvds_study_geom {
    int dim3;
    int nmodes;                  /* CEA branches; 0: 20 in 2D, 60 in 3D */
    const tvds_bob_params *mesh; /* the pair's parameters (s0 is set by the study); NULL: the
                                    study's mesh (tvds_study_params) */
    const char *mesh_txt;        /* the mesh as the user gave it (`--mesh`), for the report */
    /* NULL, or called after each CEA position solved (tvds_cea_options.progress) */
    void (*positions)(void *user, int done, int total);
    void (*positions_end)(void *user); /* NULL, or called after each CEA and each comparison */
    void *user;                        /* passed to positions and positions_end */
    volatile sig_atomic_t *stop;       /* NULL, or nonzero: stop (the signal's number) */
} tvds_study_geom;

/* The parameters of the study's pair: 2D the study's mesh (docs/models.md, "Mesh
 * convergence"), 3D the study's solid mesh (docs/models.md, "The pair in 3D"). */
TVDS_API tvds_bob_params tvds_study_params(int dim3);

/* Parse one pair's mesh "N1XxN1Y/N2XxN2Y" (2D) or "N1XxN1Y[xN1Z]/N2XxN2Y[xN2Z]" (3D), optionally
 * followed by ":M" fixed-interface modes per beam (*modes, else 0), at *p into *out (the study's
 * parameters with that mesh); advances *p. Returns 0 or -1 on a malformed spec. */
TVDS_API int tvds_study_parse_mesh(const char **p, int dim3, tvds_bob_params *out, int *modes);

/* Generate and reduce the beams with C at x = s0 into mdir, read the case on them with
 * run.t_end = t_end (when > 0) and mu (when > 0) after the user's overrides sets[0 .. nsets-1]
 * ("section.key=value"). The carriage node's id in [constraint drive], [load Fy] and (3D)
 * [constraint lateral] follows beam 1's mesh. *m is the caller's (tvds_model_free). */
TVDS_API int tvds_study_model(const tvds_study_geom *g, const char *case_path,
                              const char *const *sets, int nsets, const char *mdir, double s0,
                              double t_end, double mu, tvds_model **m, tvds_ctx *ctx);

/* End of the model's damping schedule (largest t_hold + t_ramp) [s]. */
TVDS_API double tvds_study_damping_end(const tvds_model *m);

/* The study's CEA over positions s[] (the study's abscissa s = x_C - 1 mm, 2D and 3D alike)
 * with linearisation `state` (enum tvds_cea_state), damped or not, refined down to 0.05 mm,
 * stopped by g->stop; each window's predicted growth along a steady-speed path (C from
 * s[0] - travel(t_damp) to s[npos - 1]). Positions of *out are the study's s. */
TVDS_API int tvds_study_survey(const tvds_study_geom *g, const tvds_model *m, const double *s,
                               int npos, int state, int undamped, int threads, double t_damp,
                               tvds_cea_result **out, tvds_ctx *ctx);

/* The whole study (docs/squeal.md). Defaults: tvds_study_opts_default(). */
typedef struct tvds_study_opts {
    tvds_study_geom geom;
    const char *const *sets; /* case overrides "section.key=value" (not owned), nsets of them */
    int nsets;
    double ds;              /* initial CEA spacing [m] (TVDS_STUDY_DS) */
    double mu;              /* > 0: part (b)'s mu, the procedure skipped; 0: the procedure */
    int transients;         /* 1: parts (a) and (b); 0: the CEA parts only */
    int plots;              /* 1: PNG figures */
    int threads;            /* OpenMP threads of the CEA (0: OpenMP's) */
    tvds_compare_opts a, b; /* methods of parts (a) and (b), their progress, stage and user;
                               the windows, CEA frequency and stop are the study's */
    /* NULL, or one line of progress text (with its newline) */
    void (*note)(void *user, const char *text);
    /* NULL, or a new progress stage named prefix (the CEA's positions are shown under it) */
    void (*stage)(void *user, const char *prefix);
    /* NULL, or the name of a stop signal (for report.md; NULL: "signal") */
    const char *(*signal_name)(int sig);
    void *user; /* passed to note and stage */
} tvds_study_opts;

TVDS_API tvds_study_opts tvds_study_opts_default(void);

/* What a study found, for the command's summary. */
typedef struct tvds_study_result {
    double mu_case;   /* the case's mu */
    int nwin;         /* windows of the survey (preloaded, damped) */
    double max_re;    /* largest real part over them [1/s] (-inf: none) */
    double growth;    /* largest predicted growth over them (NaN: none) */
    double mu_pick;   /* mu of part (b) */
    int mu_given;     /* 1: mu_pick given (opts.mu) */
    int found;        /* 1: a mu of the procedure reaches TVDS_STUDY_G_MIN (or mu given) */
    int ran_a, ran_b; /* 1: part ran to its end; then a, b hold its comparison */
    tvds_compare_result a, b;
    double seconds; /* wall time of the whole study [s] */
} tvds_study_result;

/* Run the study on CASE (two substructures beam1 and beam2, A driven by [constraint drive] and
 * loaded by [load Fy]) into outdir, which it locks (tvds_outdir_open: TVDS_ERR_BUSY when held),
 * clears of an earlier study's outputs and keeps a report.md in that says "running" until it
 * says how the study ended (complete, interrupted with the stage, failed). Returns TVDS_OK,
 * TVDS_ERR_INTERRUPTED when stopped by geom.stop, or the first error. */
TVDS_API int tvds_study_run(const char *case_path, const char *outdir, const tvds_study_opts *o,
                            tvds_study_result *res, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
