/* compare_impl.h — what the comparison's files share (compare.c, compare_analyse.c,
 * compare_report.c, signal_metrics.c): the thresholds of the findings and internal helpers. */
#ifndef TVDS_COMPARE_IMPL_H
#define TVDS_COMPARE_IMPL_H

#include "tvds/tvds_compare.h"

#define CMP_PI 3.14159265358979323846

/* Thresholds of the findings (docs/squeal.md, "Reading the report"). */
#define BURST_GROWTH TVDS_BURST_GROWTH /* envelope growth above which a burst grew */
#define DETECT_RATIO 0.5  /* peak ratio to FiLm from which a method "detects" the bursts */
#define MATCH_RATIO  1.25 /* peak ratio within [1/1.25, 1.25]: amplitude matches FiLm */
#define MATCH_FREQ   0.02 /* relative dominant-frequency difference that still matches */
#define LN_FRACTION  0.1  /* Subs-c's normal-force decrease below this part of Subs-b's: none */
/* CPU ratio to FiLm agreeing with the paper's: within this of it (absolute), plus half the spread
 * of the interleaved rounds. The paper's code and machine are not tvds': 0.10 (a tenth of FiLm's
 * cost) separates "cheaper by about a quarter" from "as costly" and from "half as costly". */
#define CPU_TOL 0.10
/* Band-envelope metrics (docs/burst-metrics.md). */
#define BAND_REL      0.05 /* default -3 dB half-width of the band / branch frequency */
#define MASK_TAUS     4.0  /* default masked half-span around a node crossing, in kernel widths */
#define BAND_BURST    TVDS_BURST_GROWTH /* FiLm's band growth above which a window shows a burst */
#define DETECT_LOG    0.5               /* detects: ln G at least this part of FiLm's ln G */
#define SPEC_RANGE_DB 60.0    /* colour range of the spectrograms below their common top [dB] */
#define KICK_FMIN     15000.0 /* lower edge of the band of the node-crossing kicks [Hz] */
#define KICK_NEAR     1e-3    /* half-span around a crossing searched for its kick [s] */
#define KICK_FAR      3e-3    /* quiet samples: farther than this from every crossing [s] */

/* signal_metrics.c: qsort's order of doubles, ascending. */
int compare_cmp_double(const void *a, const void *b);

/* signal_metrics.c: the envelope at tc, exp of the least-squares line through ln env over the
 * unmasked samples in [tc - span, tc] (NaN with fewer than 3 such samples); *rms (when not
 * NULL) the RMS residual of ln env about the line. */
double compare_envelope_fit(const double *t, const double *env, const unsigned char *mask, long n,
                            double tc, double span, double *rms);

/* compare_analyse.c: the methods of a comparison (all when none given) into meth; returns their
 * number. */
int compare_opts_methods(const tvds_compare_opts *o, int *meth);

/* compare_analyse.c: the channel names and windows of res from the model and the options. */
int compare_setup_names(const tvds_model *m, const tvds_compare_opts *o, tvds_compare_result *res,
                        tvds_ctx *ctx);

/* compare_analyse.c: the masked half-span around a node crossing for growth window w [s]. */
double compare_window_mask_half(const tvds_compare_result *res, int w);

/* compare_report.c: report.md of a compare stopped by a signal: methods before upto ran to their
 * end, method upto was stopped when running (running = 1), the others did not start. */
void compare_interrupted_report(const tvds_model *m, const char *outdir, const int *meth, int n,
                                const tvds_compare_result *res, int upto, int running);

#endif
