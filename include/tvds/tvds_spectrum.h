/* tvds_spectrum.h — short-time Fourier transform (spectrograms) of uniformly sampled signals
 * and the history-CSV reader it works from (docs/spectrogram.md). */
#ifndef TVDS_SPECTRUM_H
#define TVDS_SPECTRUM_H

#include "tvds/tvds.h"

#ifdef __cplusplus
extern "C" {
#endif

enum tvds_window {
    TVDS_WINDOW_HANN = 0, /* periodic Hann: w = 0.5 (1 - cos(2 pi i / N)), coherent gain 0.5 */
    TVDS_WINDOW_HAMMING,  /* periodic Hamming: 0.54 - 0.46 cos(2 pi i / N), gain 0.54 */
    TVDS_WINDOW_RECT      /* rectangular, gain 1 */
};

enum tvds_spectrum_scaling {
    /* Single-sided amplitude spectrum corrected for the window's coherent gain:
     * A_k = 2 |X_k| / sum(w) (|X_k| / sum(w) at DC and Nyquist). A sine a sin(2 pi f t) whose
     * frequency falls on a bin gives A = a at that bin; units of the signal. */
    TVDS_SPEC_AMPLITUDE = 0,
    /* Single-sided power spectral density: P_k = 2 |X_k|^2 / (fs sum(w^2)) (no factor 2 at DC
     * and Nyquist); units of the signal squared per Hz. Parseval: sum_k P_k df equals the
     * window-weighted mean square sum((w x)^2) / sum(w^2) of the frame exactly. */
    TVDS_SPEC_PSD
};

/* STFT options; tvds_stft_options_default() gives Hann, 4096 samples, 0.75 overlap,
 * amplitude scaling, no detrending. */
typedef struct tvds_stft_options {
    int window;     /* enum tvds_window */
    int nwin;       /* window (and FFT) length in samples, >= 2 */
    double overlap; /* fraction of a window shared by consecutive frames, in [0, 1) */
    int scaling;    /* enum tvds_spectrum_scaling */
    int detrend;    /* 1: subtract each frame's mean before windowing */
} tvds_stft_options;

TVDS_API tvds_stft_options tvds_stft_options_default(void);

/* A spectrogram: frame-major matrix of nframes x nfreq values. */
typedef struct tvds_stft {
    int nframes;
    int nfreq;     /* nwin / 2 + 1 */
    int nwin, hop; /* samples per frame, samples between frame starts */
    double fs, df; /* sampling frequency [Hz], bin width fs / nwin [Hz] */
    int scaling;   /* enum tvds_spectrum_scaling of S */
    double *t;     /* nframes: time of each frame's centre [s] */
    double *f;     /* nfreq: bin frequencies k df [Hz] */
    double *S;     /* nframes x nfreq, S[k * nfreq + j]: frame k, bin j */
} tvds_stft;

/* STFT of x[0..n-1] sampled every dt seconds from t0, one FFTW r2c plan for all frames.
 * Frames start every hop = max(1, round(nwin (1 - overlap))) samples; the tail that does not
 * fill a frame is dropped. *out is owned by the caller (tvds_stft_free). opt may be NULL
 * (defaults). Returns TVDS_ERR_INVALID (n < nwin, bad options, dt <= 0, non-finite
 * samples), TVDS_ERR_NOMEM, TVDS_ERR_SOLVER (FFTW planning failed). Thread-safe: FFTW's
 * planner is serialised internally. */
TVDS_API int tvds_stft_compute(const double *x, long n, double dt, double t0,
                               const tvds_stft_options *opt, tvds_stft **out, tvds_ctx *ctx);
/* Free a spectrogram; accepts NULL and clears *s. */
TVDS_API void tvds_stft_free(tvds_stft **s);

/* Window value w_i, i in [0, nwin), of the periodic window kind. */
TVDS_API double tvds_window_value(int window, int i, int nwin);

/* Read the time column (the first column, whose header must start with "t") and one channel
 * of a history CSV (header row of names with units in brackets: "t [s],tip_ay [m/s^2]").
 * channel matches a header cell exactly or by its name before " [". Rows with a NaN channel
 * value are rejected. *t and *x (n each) are owned by the caller (tvds_free); *unit (may be
 * NULL) receives the unit between brackets ("" if none), owned by the caller.
 * Returns TVDS_ERR_IO, TVDS_ERR_PARSE ("file:line: ..."), TVDS_ERR_INVALID (unknown channel,
 * with the list of channels), TVDS_ERR_NOMEM. */
TVDS_API int tvds_history_read_channel(const char *path, const char *channel, double **t,
                                       double **x, long *n, char **unit, tvds_ctx *ctx);

/* Bring a sampled signal to uniform sampling. Times must increase strictly. When every step is
 * within 1e-6 relative of the median step, the samples are kept (*resampled = 0) and *dt is
 * the mean step; otherwise the signal is linearly interpolated onto the grid t[0] + k dt with
 * dt the median step (*resampled = 1, *n and x updated in place; x is reallocated).
 * Returns TVDS_ERR_INVALID (fewer than 2 samples, non-increasing times), TVDS_ERR_NOMEM. */
TVDS_API int tvds_uniform_sampling(const double *t, double **x, long *n, double *dt, int *resampled,
                                   tvds_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
