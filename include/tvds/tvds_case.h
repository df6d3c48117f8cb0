/* tvds_case.h — case files (INI, docs/case-file.md): parse a case and its substructures into a
 * tvds_model, apply `--set` overrides, and format a model summary for `tvds check`. */
#ifndef TVDS_CASE_H
#define TVDS_CASE_H

#include <stdio.h>

#include "tvds/tvds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read the case file at path and the substructure directories it names (relative to the case
 * file's directory) into a new model.
 *
 * overrides: noverrides strings "section.key=value" (unnamed sections: run, gravity, base) or
 * "type.NAME.key=value" (named sections: "contact.tip.mu=0.2"), applied as if written in the
 * file (replacing the key, or adding it when absent; an unnamed section absent from the file is
 * added). May be NULL when noverrides = 0.
 *
 * Errors: TVDS_ERR_PARSE / TVDS_ERR_INVALID with ctx->msg "case.ini:LINE: what is wrong", or
 * "--set section.key=value: what is wrong" for an override; TVDS_ERR_IO when a file cannot be
 * read; errors of the substructure reader propagate with their own file:line message.
 * On success *m is owned by the caller (tvds_model_free); on failure *m is NULL. */
TVDS_API int tvds_case_read(const char *path, const char *const *overrides, int noverrides,
                            tvds_model **m, tvds_ctx *ctx);

/* Same as tvds_case_read but from text in memory. name_for_errors is used in messages and as
 * the default case name; relative paths in the text are relative to base_dir (NULL: "."). */
TVDS_API int tvds_case_read_string(const char *text, const char *name_for_errors,
                                   const char *base_dir, const char *const *overrides,
                                   int noverrides, tvds_model **m, tvds_ctx *ctx);

/* Parse a time function (docs/case-file.md, "Time functions") into *f, e.g. "0.2",
 * "ramp 0.2 0 0.1", "smooth -0.2 0 0.1 + 0.01", "harmonic 1.5 1 0", "table 0 0 1 2 3 2",
 * "table force.txt". Table files are relative to base_dir (NULL: "."). On error, returns
 * TVDS_ERR_PARSE with a message (without file:line prefix) in msg[msgsize] and leaves *f
 * cleared. *f owns its table (tvds_fn_clear). */
TVDS_API int tvds_fn_parse(const char *text, const char *base_dir, tvds_fn *f, char *msg,
                           size_t msgsize);

/* Format a time function back into the case-file syntax (tables inline). Returns the length
 * that the full text needs, like snprintf. */
TVDS_API int tvds_fn_format(const tvds_fn *f, char *buf, size_t size);

/* Lowest and highest undamped eigenfrequency [Hz] of a substructure's (K, M) pencil
 * (LAPACK dsygvd on copies). Rigid-body modes give fmin = 0. */
TVDS_API int tvds_substructure_freq_range(const tvds_substructure *s, double *fmin_hz,
                                          double *fmax_hz, tvds_ctx *ctx);

/* Write a human-readable summary of m (options, substructures with DoF counts and frequency
 * ranges, contacts, constraints, loads, elements, probes, stable and chosen step) to out.
 * The stable step comes from the engine (tvds_stable_dt) when it is available, otherwise from
 * the undamped estimate 2 / omega_max. Returns TVDS_OK or the first error (ctx); an explicit
 * dt above the stable step without allow_unstable_dt is TVDS_ERR_UNSTABLE_DT (after printing). */
TVDS_API int tvds_model_print(const tvds_model *m, FILE *out, tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
