/* tvds_sim.h — the time-stepping engine: mutable run data over a constant model.
 *
 * Usage:
 *     tvds_data *d;
 *     if (tvds_data_create(m, &d, &ctx)) ...;          // all buffers sized here, ICs applied
 *     while (tvds_data_time(d) < m->opt.t_end)
 *         if ((rc = tvds_step(m, d, &ctx))) break;      // no allocation inside
 *     tvds_data_free(&d);
 *
 * The engine publishes named output channels in groups (history, contacts, energy) and summary
 * scalars; writers (tvds_output.h) read them. Channel names carry units in brackets,
 * "tip_uy [m]"; column 0 of every group is "t [s]". */
#ifndef TVDS_SIM_H
#define TVDS_SIM_H

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tvds_data tvds_data; /* opaque: state, scratch, statistics */

enum tvds_group {
    TVDS_GROUP_HISTORY = 0, /* probes: u, v, a of DoFs and recovered points */
    TVDS_GROUP_CONTACTS,    /* per contact: lambda_n, lambda_t, state, gap, alpha, segment, s,
                               v_slide, friction power, wear power */
    TVDS_GROUP_ENERGY,      /* kinetic, strain, damping dissipation, friction dissipation,
                               external work, balance error */
    TVDS_GROUP_COUNT
};

/* Contact states as published in the contacts group. */
enum tvds_contact_state { TVDS_OPEN = 0, TVDS_STICK = 1, TVDS_SLIP = 2 };

/* Stable step of central differences for m (smallest over substructures of 2/omega_max,
 * reduced for damping) [s], before the safety factor. */
TVDS_API int tvds_stable_dt(const tvds_model *m, double *dt_crit, tvds_ctx *ctx);

/* Prepare a run: eigenbases, contact-space flexibilities, buffers; apply initial conditions.
 * The step used is m->opt.dt, or dt_safety * stable step when dt_auto. An explicit dt above the
 * stable step fails with TVDS_ERR_UNSTABLE_DT unless allow_unstable_dt. *d is owned by the
 * caller and freed with tvds_data_free. m must outlive d. */
TVDS_API int tvds_data_create(const tvds_model *m, tvds_data **d, tvds_ctx *ctx);
/* Free run data; accepts NULL and clears *d. */
TVDS_API void tvds_data_free(tvds_data **d);

/* Advance one step. On failure (TVDS_ERR_DIVERGED, TVDS_ERR_SINGULAR, TVDS_ERR_CONTACT_LOST,
 * ...) the message names time, step and where, and d keeps the last valid state and channels. */
TVDS_API int tvds_step(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);

TVDS_API double tvds_data_time(const tvds_data *d); /* current time [s] */
TVDS_API double tvds_data_dt(const tvds_data *d);   /* step in use [s] */
TVDS_API long tvds_data_steps(const tvds_data *d);  /* steps taken */
/* Steps whose iterative contact solve stopped before its tolerance (FiLm Gauss-Seidel at
 * film_maxit with [run] nonconverged = warn, active-set iterations at their limit). */
TVDS_API long tvds_data_nonconverged(const tvds_data *d);
/* Point-steps of contact c committed closed (stick or slip) so far: 0 for a contact that never
 * closed (tvds_run reports it as a warning). */
TVDS_API long tvds_contact_closed_steps(const tvds_data *d, int c);
/* Stable step of central differences for this run: substructures and penalty contacts [s]
 * (INFINITY when nothing bounds it). */
TVDS_API double tvds_data_stable_dt(const tvds_data *d);
/* The stepping path substructure i of m gets under its run options (run.path, the integrator,
 * the damping, the structure of M and K; docs/theory.md 9c): "lumped" (physical coordinates,
 * diagonal M, sparse K), "modal" or "physical" (dense M^-1); NULL for a bad index. */
TVDS_API const char *tvds_substructure_path(const tvds_model *m, int i);

/* Channels of a group at the current time: *n names and values. Pointers stay valid for the
 * life of d; values are refreshed by every tvds_step. The values describe the instant
 * t_n = tvds_data_time(d) - tvds_data_dt(d) (column "t [s]"), whose central velocity,
 * acceleration and contact forces the step has just completed; contact gaps are those at
 * tvds_data_time(d) (docs/theory.md, section 13). Before the first step: t_0, u_0, v_0. */
TVDS_API int tvds_channels(const tvds_data *d, int group, int *n, const char *const **names,
                           const double **values);

/* Publication of the probes of the history group (displacement, velocity, acceleration) and
 * of the energies (kinetic, strain, balance error of the energy group; speed: a driver that
 * writes a row every k steps need not compute them at every step). every = 1 (the default
 * after tvds_data_create): every tvds_step computes them. every = k > 1: only the steps whose
 * count (tvds_data_steps after the step) is a multiple of k. every = 0: none. The energies are
 * also evaluated every 1024 steps (the runaway-energy check), and the balance error of the
 * summary is the largest over the evaluated steps. The time column, the
 * element channels, the work integrals of the energy group and the other channels are
 * published at every step in all cases (the work integrals are accumulated at every step).
 * Channels left stale are computed for the last step by tvds_channels_update (also after a
 * failed tvds_step), the same values bit for bit as every = 1 gives. Returns TVDS_OK, or
 * TVDS_ERR_INVALID (d NULL, every < 0). */
TVDS_API int tvds_set_record(tvds_data *d, int every);

/* Bring the probes of the history group, the energies and the summary's balance error up to
 * date with the last successful step (no-op when they are; call it before
 * reading them when tvds_set_record deferred them). m is the model d was created from. No
 * allocation. Returns TVDS_OK or TVDS_ERR_INVALID (NULL argument). */
TVDS_API int tvds_channels_update(const tvds_model *m, tvds_data *d);

/* Summary scalars for summary.json (energy balance error, per-contact window means of friction
 * and wear power, FiLm iterations, ...): *n names and values (the array stays valid for the life
 * of d). The values are those of the last step when this is called: a step does not publish
 * them itself, so call it again after stepping. */
TVDS_API int tvds_summary(const tvds_data *d, int *n, const char *const **names,
                          const double **values);

#ifdef __cplusplus
}
#endif
#endif
