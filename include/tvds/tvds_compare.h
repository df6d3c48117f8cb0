/* tvds_compare.h — run several contact methods on the same model and step, measure their CPU
 * times in one process and compare their transients against FiLm (docs/squeal.md). */
#ifndef TVDS_COMPARE_H
#define TVDS_COMPARE_H

#include <signal.h>

#include "tvds/tvds_cea.h"
#include "tvds/tvds_model.h"
#include "tvds/tvds_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Agreement metrics on sampled signals ------------------------------------------------ */

/* Root mean square of x[0..n-1]; 0 when n <= 0. */
TVDS_API double tvds_rms(const double *x, long n);

/* Root mean square of the difference a - b over n samples (same sampling); 0 when n <= 0. */
TVDS_API double tvds_rms_diff(const double *a, const double *b, long n);

/* Largest |x| over n samples; 0 when n <= 0. */
TVDS_API double tvds_peak_abs(const double *x, long n);

/* Burst peak ratio: max |x| / max |ref| over n samples each. NaN when ref is identically 0. */
TVDS_API double tvds_burst_peak_ratio(const double *x, long nx, const double *ref, long nref);

/* Envelope growth: x[0..n-1] cut into nframes equal frames (the tail dropped); the largest frame
 * RMS divided by the first frame's. About 1 for a steady or decaying signal, large when a burst
 * grows out of a quiet start. NaN when n < nframes or the first frame is zero. */
TVDS_API double tvds_envelope_growth(const double *x, long n, int nframes);

/* Dominant frequency [Hz] of x[0..n-1] sampled every dt seconds: the mean is removed, a Hann
 * window applied, the signal zero-padded to at least 8 n points (a power of two) and the largest
 * amplitude bin in [fmin, fmax] (fmax <= 0: Nyquist) refined by a parabola through the log
 * amplitudes of the three bins around it. *amp receives the window-corrected amplitude of that
 * peak (units of x; may be NULL). Returns TVDS_ERR_INVALID (n < 8, dt <= 0, empty band),
 * TVDS_ERR_NOMEM, TVDS_ERR_SOLVER (FFTW planning failed). */
TVDS_API int tvds_dominant_frequency(const double *x, long n, double dt, double fmin, double fmax,
                                     double *f, double *amp, tvds_ctx *ctx);

/* ---- Band envelope and growth across unstable windows (docs/burst-metrics.md) ------------- */

/* Most windows one comparison measures. */
#define TVDS_COMPARE_MAX_WINDOWS 32
/* A burst, everywhere (the findings of tvds compare, the study's procedure for mu): an
 * amplitude growth above 5 (14 dB) across a window, band-envelope G = E_max / E(t0), or the
 * raw signal's envelope growth when no window is given (docs/burst-metrics.md). */
#define TVDS_BURST_GROWTH 5.0
/* Most slave nodes of the reported contact given one by one. */
#define TVDS_COMPARE_MAX_NODES 32

/* One unstable window of a complex eigenvalue analysis crossed by the sliding path: band centre,
 * positions, entry and exit times, predicted growth. */
typedef struct tvds_growth_window {
    int branch;         /* branch index in the CEA (labels only); -1 when unknown */
    double f_hz;        /* frequency of the unstable branch in the window: band centre [Hz] */
    double s0, s1;      /* contact positions at entry and exit [m] (labels; s1 < s0: unknown) */
    double t0, t1;      /* times at which the path enters and leaves the window [s] */
    double growth_pred; /* predicted amplitude ratio exp(integral of Re(lambda) dt) over [t0, t1]
                           (NaN if unknown) */
} tvds_growth_window;

/* Envelope of x[0..n-1] (uniform step dt) in a band around fc: the analytic signal of x
 * filtered by a Gaussian band-pass H(f) = exp(-(f - fc)^2 / (2 sf^2)), sf = half_hz / sqrt(ln 2)
 * (half_hz is the -3 dB half-width), computed with FFTW on a zero-padded copy (mean removed);
 * env[0..n-1] receives |z(t)| in the units of x. The first and last 4 / (2 pi sf) seconds are
 * edge-affected (docs/burst-metrics.md). Returns TVDS_ERR_INVALID (n < 8, dt <= 0, fc <= 0,
 * half_hz <= 0, fc + half_hz above Nyquist), TVDS_ERR_NOMEM, TVDS_ERR_SOLVER. */
TVDS_API int tvds_band_envelope(const double *x, long n, double dt, double fc, double half_hz,
                                double *env, tvds_ctx *ctx);

/* Growth of an envelope env[0..n-1] sampled at t[] across [t0, t1]: the envelope E(tc) at a
 * time is exp of a least-squares line through ln(env) over the unmasked samples in
 * [tc - span, tc], evaluated at tc (one-sided; exact for an exponential). *exit_ratio =
 * E(t1) / E(t0); *peak_ratio = max over unmasked samples in [t0, t1 + after] of env / E(t0).
 * mask[k] != 0 excludes sample k (NULL: none). Either output may be NULL; each is NaN when
 * fewer than 3 unmasked samples lie in a fitting span or when E(t0) is not positive. */
TVDS_API void tvds_envelope_window_growth(const double *t, const double *env,
                                          const unsigned char *mask, long n, double t0, double t1,
                                          double span, double after, double *exit_ratio,
                                          double *peak_ratio);

/* ---- Master-node crossings ---------------------------------------------------------------- */

/* Undeformed arc length of each master node of contact ic of m, from the first one (the abscissa
 * s of contacts.csv and of the CEA): *S (*ns values, tvds_malloc, the caller frees with
 * tvds_free), or *S = NULL, *ns = 0 for a rigid or 3D master or nodes without coordinates.
 * Returns TVDS_ERR_NOMEM. */
TVDS_API int tvds_compare_master_abscissae(const tvds_model *m, int ic, double **S, int *ns,
                                           tvds_ctx *ctx);

/* Default half-span [s] masked around each master-node crossing for a band at f_hz of relative
 * -3 dB half-width band_rel (0 = the default 0.05): 4 kernel widths 4 / (2 pi sf),
 * sf = band_rel f_hz / sqrt(ln 2) (docs/burst-metrics.md). 0 when f_hz <= 0. */
TVDS_API double tvds_compare_mask_half(double f_hz, double band_rel);

/* The first master-node abscissa S[k] that lies in the CEA window w widened on both sides by the
 * masked span at its frequency travelled at speed v (v * tvds_compare_mask_half(f_peak,
 * band_rel)) plus ds_extra [m]; NaN when none (a node-free window). */
TVDS_API double tvds_compare_window_node(const tvds_cea_window *w, const double *S, int ns,
                                         double v, double band_rel, double ds_extra);

/* Index of the window of r with the largest finite predicted growth among those without a
 * master node (tvds_compare_window_node); -1 when there is none. S = NULL or ns = 0: the
 * strongest window. */
TVDS_API int tvds_compare_clean_window(const tvds_cea_result *r, const double *S, int ns, double v,
                                       double band_rel, double ds_extra);

/* ---- Comparison run ----------------------------------------------------------------------- */

/* Called before each method starts (index of the method in the run order, method count). */
typedef void (*tvds_compare_stage_fn)(void *user, int method, int index, int count);

typedef struct tvds_compare_opts {
    int nmethods;                   /* methods to run, in this order; 0 = all four */
    int methods[TVDS_METHOD_COUNT]; /* enum tvds_method */
    const char *accel;     /* history channel compared (name without unit); NULL = the first
                              acceleration probe of the model */
    const char *deflect;   /* optional displacement probe shown with the normal force; NULL = the
                              first displacement probe (none if the model has none) */
    int contact;           /* contact whose normal force and sliding speed are reported; 0 */
    double t0, t1;         /* metric window [s]; t1 <= t0 (default): from the end of the damping
                              schedule (largest t_hold + t_ramp) to t_end */
    double f_cea;          /* unstable frequency from a CEA [Hz] (report and band); 0 = none */
    double s_cea0, s_cea1; /* unstable positions from the CEA [m] (report only); s1 < s0: none */
    /* Unstable windows whose growth is measured (not owned; copied into the result). With
       nwindows = 0 and f_cea > 0, one window at f_cea over the metric window [t0, t1] (or the
       times at which the contact crosses s_cea0, s_cea1 when given). */
    int nwindows; /* <= TVDS_COMPARE_MAX_WINDOWS */
    const tvds_growth_window *windows;
    int judge_window; /* windows[] index on which the burst findings are judged; -1 (default):
                         the window where FiLm's G is largest among those without a node
                         crossing inside */
    double band_rel;  /* -3 dB half-width of the band / f_hz; 0 = 0.05 */
    double mask_half; /* half-width of the span masked around each master-node crossing [s];
                         0 = 4 band time constants (tvds_compare_mask_half),
                         < 0 = no masking */
    int nwin;         /* spectrogram window [samples]; 0 = about 10 ms of samples (>= 64) */
    double fmax_plot; /* upper frequency of the spectrograms [Hz]; 0 = 2 f_cea or Nyquist */
    int plots;        /* 1 (default): draw the PNGs with gnuplot */
    int cpu_rounds;   /* > 0: after the runs, the methods' CPU cost interleaved
                         (tvds_bench_interleaved): cpu_rounds rounds of cpu_steps steps each per
                         method, the ratios to FiLm per round; 0 (default): not measured */
    long cpu_steps;   /* steps per method and round; 0 = 16384 */
    int align_out;    /* 1 (default): each run writes its rows every round(out_dt / dt) steps
                         (tvds_run_opts.align_out), so every metric sees uniform samples; 0: at
                         the first step after each multiple of out_dt (irregular unless out_dt
                         is a multiple of dt: the metrics then interpolate, entry.resampled) */
    /* Progress: passed to every tvds_run (progress, user, stop) and the stage callback. */
    tvds_progress_fn progress;
    tvds_compare_stage_fn stage;
    void *user;
    volatile sig_atomic_t *stop;
} tvds_compare_opts;

/* Defaults: all four methods (subs-a, subs-b, subs-c, film), first acceleration probe, contact
 * 0, automatic window, no CEA, plots on, no callbacks. */
TVDS_API tvds_compare_opts tvds_compare_opts_default(void);

/* What one method gave. Metrics are over the window [t0, t1] of the result; "ref" is FiLm. */
typedef struct tvds_compare_entry {
    int method;          /* enum tvds_method */
    int status;          /* return code of its tvds_run */
    tvds_run_result run; /* steps, dt, cpu_seconds, us_per_step... */
    double cpu_ratio;    /* cpu_seconds / FiLm's (NaN without FiLm) */
    double rms;          /* RMS of the acceleration over the window [m/s^2] */
    double peak;         /* max |acceleration| over the window [m/s^2] */
    double growth;       /* tvds_envelope_growth over 20 frames of the window: > 5 means a burst
                            grew out of the settled state */
    double rms_diff;     /* RMS(a - a_FiLm) over the window [m/s^2] (NaN without FiLm) */
    double rms_rel;      /* rms_diff / RMS(a_FiLm) */
    double peak_ratio;   /* burst peak ratio against FiLm */
    double f_dom;        /* dominant frequency of the acceleration over the window [Hz] */
    double f_near_cea;   /* its strongest line within +-10 % of f_cea [Hz] (NaN without f_cea) */
    double ln_first, ln_last;     /* mean normal force over the first and last 10 % of the window
                                     [N] */
    double ln_min, ln_max;        /* over the window [N] */
    double defl_first, defl_last; /* mean deflection probe over the same spans [m] (NaN without) */
    double vs_mean;               /* mean sliding speed over the window [m/s] */
    double ln_mean;               /* mean normal force over the window [N] */
    /* Per unstable window w of the result: measured band-envelope growth (NaN if not
       measurable): E(t1)/E(t0) and max E over [t0, t1 + after]/E(t0) (docs/burst-metrics.md). */
    double growth_exit[TVDS_COMPARE_MAX_WINDOWS];
    double growth_peak[TVDS_COMPARE_MAX_WINDOWS];
    /* exp(RMS residual of ln E about its fit at the entry): the factor within which E(t0), and
       so each growth, is known (about 1 for a smooth envelope, large on beating noise) */
    double growth_scatter[TVDS_COMPARE_MAX_WINDOWS];
    /* Master-node crossing kicks in the metric window (surface masters): envelope of the
       acceleration above 15 kHz, its peak within 1 ms of each crossing over its median farther
       than 3 ms from every crossing (geometric mean over the crossings), and that median. */
    double kick_ratio;
    double hf_level; /* [m/s^2] */
    /* Per slave node k of the reported contact (tvds_compare_result.node[k]; a contact of
       several nodes) over the metric window: share of the samples in contact (stick or slip),
       mean normal force [N] and mean sliding speed [m/s] (NaN without the node's channels). */
    double node_contact[TVDS_COMPARE_MAX_NODES];
    double node_ln_mean[TVDS_COMPARE_MAX_NODES];
    double node_vs_mean[TVDS_COMPARE_MAX_NODES];
    /* 1: the history rows are not uniform in time (steps between rows differ): every metric
       interpolates them linearly onto a uniform grid, which attenuates a band at f by up to
       1 - cos(pi f h), h the row interval (21 % at 10.57 kHz and 50 kHz sampling) */
    int resampled;
    double row_dt;     /* median interval between history rows [s] */
    double slip_share; /* share of the metric window's samples the reported contact slips
                          (state 2; NaN without its state channel): 1 = never stuck, never
                          separated */
    /* Interleaved timing (tvds_compare_opts.cpu_rounds): median CPU us per step over the
       rounds, and the per-round ratio to FiLm's: median, quartiles, min and max over the
       rounds (NaN when not measured) */
    double cpu_us_med, cpu_ratio_med, cpu_ratio_min, cpu_ratio_max;
    double cpu_ratio_q1, cpu_ratio_q3;
    double energy_error; /* the run's "energy balance error [-]" (summary.json; NaN without) */
} tvds_compare_entry;

typedef struct tvds_compare_result {
    int n;                                   /* entries */
    tvds_compare_entry e[TVDS_METHOD_COUNT]; /* in run order */
    int ref;                                 /* index of FiLm in e[], or -1 */
    double t0, t1;                           /* metric window used [s] */
    double f_cea, s_cea0, s_cea1;            /* as given */
    int nwindows;                            /* unstable windows measured */
    tvds_growth_window windows[TVDS_COMPARE_MAX_WINDOWS];
    double band_half[TVDS_COMPARE_MAX_WINDOWS];  /* -3 dB half-width used per window [Hz] */
    double mask_half;                            /* masked half-span around node crossings [s] */
    int ncross;                                  /* master-node crossings (face-edge crossings
                                                    of any slave node on a face set) found in
                                                    the record (reference run, or the first
                                                    with a position) */
    int ncross_window[TVDS_COMPARE_MAX_WINDOWS]; /* of them within [t0, t1] of each window */
    char accel[64], deflect[64], contact[64];    /* channel and contact names used (contact:
                                                    its first slave node's channels when it
                                                    has several) */
    int nslave;                                  /* slave nodes of the reported contact */
    int nnode;                                   /* of them given one by one: 0 for a one-node
                                                    contact, else min(nslave,
                                                    TVDS_COMPARE_MAX_NODES) */
    long node[TVDS_COMPARE_MAX_NODES];           /* their ids */
    int judge_window;                            /* tvds_compare_opts.judge_window */
    int cpu_rounds;                              /* interleaved timing: rounds (0: none) */
    long cpu_steps;                              /* steps per method and round */
    double cpu_t_span;                           /* simulated time the rounds cover [s] */
} tvds_compare_result;

/* Run each method of o on m (same model, same step) one after the other in this process, the
 * outputs of method M going to outdir/M/ (tvds_run), then read the histories back, compute the
 * metrics into *res and write outdir/report.md, outdir/metrics.csv and (o->plots) the figures
 * outdir/accel_<M>.png (acceleration against FiLm), outdir/spectrograms.png and
 * outdir/contact.png (normal force, sliding speed). m is not modified (each run uses a shallow
 * copy with its method set). o may be NULL (defaults).
 * A method whose run fails (divergence...) is kept in the report with its status; the function
 * then still returns TVDS_OK. Returns TVDS_ERR_INVALID (no acceleration probe, bad contact or
 * window), TVDS_ERR_INTERRUPTED (*o->stop set), TVDS_ERR_IO, TVDS_ERR_NOMEM. A missing gnuplot
 * is not an error (the report says the figures are missing). */
TVDS_API int tvds_compare_run(const tvds_model *m, const char *outdir, const tvds_compare_opts *o,
                              tvds_compare_result *res, tvds_ctx *ctx);

/* Remove what an earlier tvds_compare_run wrote into outdir (report, metrics, figures, each
 * method's run files), holding outdir's lock meanwhile (TVDS_ERR_BUSY when another process owns
 * it); folders left empty go, outdir included; a user's own files stay. A missing outdir is
 * fine. */
TVDS_API int tvds_compare_clear(const char *outdir, tvds_ctx *ctx);

/* Metrics of method outputs already written in outdir/<method>/ (history.csv, contacts.csv),
 * and the spectrogram files outdir/<method>/spectrogram.csv. res->n and, for each entry,
 * method, status and run (CPU figures, as returned by tvds_run or read back from summary.json)
 * must be set; every other field is filled. A method whose run failed and left no history keeps
 * NaN metrics. Returns TVDS_ERR_INVALID (no acceleration probe, bad contact or window), the
 * reader's errors for a successful run whose history cannot be read, TVDS_ERR_NOMEM. */
TVDS_API int tvds_compare_analyse(const tvds_model *m, const char *outdir,
                                  const tvds_compare_opts *o, tvds_compare_result *res,
                                  tvds_ctx *ctx);

/* Write outdir/report.md (and metrics.csv, figures when o->plots) from res. */
TVDS_API int tvds_compare_report(const tvds_model *m, const char *outdir,
                                 const tvds_compare_opts *o, const tvds_compare_result *res,
                                 tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
