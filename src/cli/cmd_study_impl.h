/* cmd_study_impl.h — the squeal study's models and CEA survey, shared by `tvds study` and its
 * mesh convergence study `tvds study --convergence` (cmd_convergence.c). */
#ifndef TVDS_CMD_STUDY_IMPL_H
#define TVDS_CMD_STUDY_IMPL_H

#include "cli/cli.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_cea.h"

/* Which pair the study runs on: the plane-stress beams (2D) or the solids (3D: the tip line of
 * every slave node of the contact, docs/models.md), and on which mesh. */
typedef struct tvds_study_geom {
    int dim3;
    int nmodes;                  /* CEA branches; 0: 20 in 2D, 60 in 3D (cmd_study.c) */
    const tvds_bob_params *mesh; /* the pair's parameters (s0 is set by the study); NULL: the
                                    study's mesh (tvds_study_params) */
    const char *mesh_txt;        /* the mesh as the user gave it (`--mesh`), for the report */
    tvds_cli_progress *progress; /* NULL, or the CEA's positions shown on it */
} tvds_study_geom;

/* The parameters of the study's pair: 2D the study's mesh (docs/models.md, "Mesh
 * convergence"), 3D the study's solid mesh (docs/models.md, "The pair in 3D"). */
tvds_bob_params tvds_study_params(int dim3);

/* Parse one pair's mesh "N1XxN1Y/N2XxN2Y" (2D) or "N1XxN1Y[xN1Z]/N2XxN2Y[xN2Z]" (3D), optionally
 * followed by ":M" fixed-interface modes per beam (*modes, else 0), at *p into *out (the study's
 * parameters with that mesh); advances *p. Returns 0 or -1 on a malformed spec. */
int tvds_study_parse_mesh(const char **p, int dim3, tvds_bob_params *out, int *modes);

/* Generate and reduce the beams with C at x = s0 into mdir, read the case on them with
 * run.t_end = t_end (when > 0) and mu (when > 0) after the user's overrides. The carriage
 * node's id in [constraint drive], [load Fy] and (3D) [constraint lateral] follows beam 1's
 * mesh. */
int tvds_study_model(const tvds_study_geom *g, const char *case_path, const tvds_cli_sets *sets,
                     const char *mdir, double s0, double t_end, double mu, tvds_model **m,
                     tvds_ctx *ctx);

/* End of the model's damping schedule (largest t_hold + t_ramp) [s]. */
double tvds_study_damping_end(const tvds_model *m);

/* The study's CEA over positions s[] (the study's abscissa s = x_C - 1 mm, 2D and 3D alike)
 * with linearisation `state` (enum tvds_cea_state), damped or not, refined down to 0.05 mm,
 * stopped by the CLI's stop flag; each window's predicted growth along a steady-speed path
 * (C from s[0] - travel(t_damp) to s[npos - 1]). Positions of *out are the study's s. */
int tvds_study_survey(const tvds_study_geom *g, const tvds_model *m, const double *s, int npos,
                      int state, int undamped, int threads, double t_damp, tvds_cea_result **out,
                      tvds_ctx *ctx);

#endif
