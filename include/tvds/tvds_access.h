/* tvds_access.h — accessors over the library's objects by function call and name, so that a
 * program or a language binding (python/, docs/library.md) reads times, options, channel
 * metadata and CEA results without mirroring any struct layout. Every function here accepts
 * NULL objects (returning 0, NULL, NAN or TVDS_ERR_INVALID as said) and never allocates
 * unless said so. */
#ifndef TVDS_ACCESS_H
#define TVDS_ACCESS_H

#include <signal.h>

#include "tvds/tvds_cea.h"
#include "tvds/tvds_model.h"
#include "tvds/tvds_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Model -------------------------------------------------------------------------------- */

/* Case name ([run] name, else the case file's base name); "" when none. */
TVDS_API const char *tvds_model_name(const tvds_model *m);
/* End time of a run [s]; NAN for NULL m. */
TVDS_API double tvds_model_t_end(const tvds_model *m);
/* Step asked for in the case [s], 0 when dt = auto (the step a run uses: tvds_data_dt). */
TVDS_API double tvds_model_dt(const tvds_model *m);
/* Output sampling interval [s] (0: every step). */
TVDS_API double tvds_model_out_dt(const tvds_model *m);
/* Contact method, enum tvds_method (tvds_method_name gives its name); -1 for NULL m. */
TVDS_API int tvds_model_method(const tvds_model *m);

/* A run option by its case-file key in [run] (docs/case-file.md): method, dt (0 when auto),
 * dt_safety, allow_unstable_dt, t_end, out_dt, window_start, window_end, film_tol,
 * film_maxit, nonconverged (1 error, 0 warn), max_steps, v_stick, path (enum tvds_path),
 * integrator (enum tvds_integrator), f_band. Enumerations and flags as numbers. Returns
 * TVDS_OK, or TVDS_ERR_INVALID naming an unknown key (ctx may be NULL). */
TVDS_API int tvds_model_option(const tvds_model *m, const char *key, double *value, tvds_ctx *ctx);
/* The keys tvds_model_option knows, i = 0, 1, ...; NULL past the last. */
TVDS_API const char *tvds_model_option_key(int i);

/* Substructures, contacts and probes: counts, and names by index (NULL for a bad index). */
TVDS_API int tvds_model_nsub(const tvds_model *m);
TVDS_API const char *tvds_model_sub_name(const tvds_model *m, int i);
TVDS_API int tvds_model_sub_ndof(const tvds_model *m, int i); /* reduced DoFs; -1: bad index */
TVDS_API int tvds_model_ncontact(const tvds_model *m);
TVDS_API const char *tvds_model_contact_name(const tvds_model *m, int i);
/* Index of the contact called name, or -1. */
TVDS_API int tvds_model_find_contact(const tvds_model *m, const char *name);
TVDS_API int tvds_model_nprobe(const tvds_model *m);
TVDS_API const char *tvds_model_probe_name(const tvds_model *m, int i);

/* ---- Channels ----------------------------------------------------------------------------- */

/* "history", "contacts", "energy" for enum tvds_group; NULL for another value. */
TVDS_API const char *tvds_group_name(int group);
/* Number of channels of a group (tvds_channels' *n); -1 for NULL d or a bad group. */
TVDS_API int tvds_channel_count(const tvds_data *d, int group);

/* Split a channel label "NAME [UNIT]" (tvds_sim.h, the CSV headers of docs/outputs.md) into
 * its name and unit: "C.10001.lambda_n [N]" gives "C.10001.lambda_n" and "N"; a label without
 * a trailing bracket gives itself and "". name (name_size bytes) and unit (unit_size bytes)
 * receive NUL-terminated copies, cut to fit; either may be NULL. Returns TVDS_OK, or
 * TVDS_ERR_INVALID when label is NULL or a copy had to be cut. */
TVDS_API int tvds_label_split(const char *label, char *name, size_t name_size, char *unit,
                              size_t unit_size);
/* Name and unit of channel i of a group, apart (tvds_label_split of its label). */
TVDS_API int tvds_channel_info(const tvds_data *d, int group, int i, char *name, size_t name_size,
                               char *unit, size_t unit_size);

/* ---- Run ---------------------------------------------------------------------------------- */

/* tvds_run (tvds_run.h) with its default options and a stop flag: the run ends cleanly
 * (outputs flushed, summary.json status "interrupted", TVDS_ERR_INTERRUPTED) as soon as *stop
 * is nonzero; stop may be NULL. What the run did is in outdir/summary.json. */
TVDS_API int tvds_run_simple(const tvds_model *m, const char *outdir, volatile sig_atomic_t *stop,
                             tvds_ctx *ctx);

/* ---- CEA ---------------------------------------------------------------------------------- */

/* tvds_cea_options on the heap, set to tvds_cea_options_default(); NULL on allocation
 * failure. Free with tvds_cea_options_free (accepts NULL, clears *o). */
TVDS_API tvds_cea_options *tvds_cea_options_create(void);
TVDS_API void tvds_cea_options_free(tvds_cea_options **o);
/* Set an option by its field name in tvds_cea_options (nmodes, nextra, chi, t_eval, slave,
 * fmin_hz, re_tol, solver, shift_hz, nthreads, state, undamped, no_lateral, refine, ds_min,
 * max_pos, zeta_near, gap_rel, mirror); integer fields take value rounded toward zero and
 * refuse a non-integral one. TVDS_ERR_INVALID names an unknown key or a bad value. */
TVDS_API int tvds_cea_options_set(tvds_cea_options *o, const char *key, double value,
                                  tvds_ctx *ctx);
/* Stop flag checked before each position (tvds_cea_options.stop); may be NULL. */
TVDS_API void tvds_cea_options_set_stop(tvds_cea_options *o, volatile sig_atomic_t *stop);
/* The positions `tvds cea` surveys by default for a contact: [0, length of the master
 * surface], or for a face-set master the travel over which the slave stays on it
 * (tvds_cea_path_range at o's slave and t_eval; o may be NULL: defaults). */
TVDS_API int tvds_cea_default_range(const tvds_model *m, int contact, const tvds_cea_options *o,
                                    double *s0, double *s1, tvds_ctx *ctx);

/* Sizes of a result: positions, branches, unstable windows (each may be NULL). */
TVDS_API int tvds_cea_result_size(const tvds_cea_result *r, int *npos, int *nbranch, int *nwin);
/* A result array by its field name: "s", "resid", "lambda_n", "slope" (npos values) or
 * "freq", "re", "zeta", "mac", "anti" (npos x nbranch, position-major). *len (may be NULL)
 * receives its length. NULL for an unknown name or an absent array ("anti" without mirror).
 * The array belongs to r. */
TVDS_API const double *tvds_cea_result_array(const tvds_cea_result *r, const char *name, int *len);
/* One field of every unstable window into out[nwin]: branch, s_start, s_end, f_min, f_max,
 * re_max, s_in, s_out, f_peak, s_peak, t_start, t_end, growth_pred, anti_peak (as in
 * tvds_cea_window). TVDS_ERR_INVALID for an unknown field. */
TVDS_API int tvds_cea_result_windows(const tvds_cea_result *r, const char *field, double *out,
                                     tvds_ctx *ctx);

/* ---- Reduction and import by directory ---------------------------------------------------- */

/* `tvds reduce --model model_dir ... -o outdir` (docs/reduce.md): read the full model in
 * model_dir (M.mtx, K.mtx, dofs.txt, sets.txt if present), keep the boundary DoFs (a spec as
 * --boundary), nmodes fixed-interface modes (0 with f_cut_hz > 0: all below it), recover
 * `recover` (NULL: none), require the face sets `faces` (NULL: none), and write the
 * substructure directory outdir named after its base name. check_mass: prove M positive
 * definite. Errors name their file and line, as the command's. outdir is written as the
 * command writes it: locked (TVDS_ERR_BUSY while another process holds it), staged and
 * committed by its manifest (the old files or the new ones, never a mix). */
TVDS_API int tvds_reduce_dir(const char *model_dir, const char *boundary, const char *recover,
                             const char *faces, int nmodes, double f_cut_hz, int check_mass,
                             const char *outdir, tvds_ctx *ctx);
/* `tvds import calculix inp -o outdir` (docs/formats.md): the job's matrices (JOB.sti,
 * JOB.mas, JOB.dof beside JOB.inp), coordinates, node and face sets, checked, then written
 * as a full-model directory (locked and committed as by tvds_reduce_dir). check_mass: prove
 * M positive definite. */
TVDS_API int tvds_import_calculix_dir(const char *inp, const char *outdir, int check_mass,
                                      tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
