/* check_spectrum.c — STFT amplitude and PSD scaling, chirp tracking, history CSV input. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tvds/tvds_spectrum.h"
#include "core/test_hooks_impl.h"

#define PI 3.14159265358979323846

/* A sine on a bin centre gives its amplitude at that bin for every window: the amplitude
 * scaling divides by the window's coherent gain sum(w) / N. */
START_TEST(test_sine_peak_amplitude)
{
    const double fs = 1000.0, a = 2.5;
    const int nwin = 1024, kbin = 128; /* f0 = 125 Hz exactly on bin 128 */
    const double f0 = kbin * fs / nwin;
    long n = 8192;
    double *x = malloc((size_t)n * sizeof *x);
    for (long i = 0; i < n; i++)
        x[i] = a * sin(2 * PI * f0 * i / fs + 0.3);
    int windows[3] = {TVDS_WINDOW_HANN, TVDS_WINDOW_HAMMING, TVDS_WINDOW_RECT};
    for (int w = 0; w < 3; w++) {
        tvds_stft_options o = tvds_stft_options_default();
        o.nwin = nwin;
        o.overlap = 0.5;
        o.window = windows[w];
        tvds_stft *s = NULL;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        ck_assert_msg(tvds_stft_compute(x, n, 1.0 / fs, 0.0, &o, &s, &ctx) == TVDS_OK, "%s",
                      ctx.msg);
        ck_assert_int_eq(s->nfreq, nwin / 2 + 1);
        ck_assert_int_eq(s->hop, 512);
        ck_assert_int_eq(s->nframes, 1 + (8192 - 1024) / 512);
        ck_assert_double_eq_tol(s->df, fs / nwin, 1e-12);
        for (int k = 0; k < s->nframes; k++) {
            const double *row = s->S + (size_t)k * s->nfreq;
            int jmax = 0;
            for (int j = 1; j < s->nfreq; j++)
                if (row[j] > row[jmax]) jmax = j;
            ck_assert_int_eq(jmax, kbin);
            ck_assert_double_eq_tol(row[kbin], a, 1e-10 * a);
            ck_assert_double_eq_tol(s->f[jmax], f0, 1e-12);
            /* Frame centre time. */
            ck_assert_double_eq_tol(s->t[k], (k * 512 + 511.5) / fs, 1e-12);
        }
        tvds_stft_free(&s);
        ck_assert_ptr_null(s);
    }
    free(x);
}
END_TEST

/* A linear chirp's peak follows f(t) = f0 + c t at every frame centre, to one bin. */
START_TEST(test_chirp_tracks_frequency)
{
    const double fs = 8000.0, f0 = 500.0, c = 1000.0;
    long n = 16000; /* 2 s: 500 Hz -> 2500 Hz */
    double *x = malloc((size_t)n * sizeof *x);
    for (long i = 0; i < n; i++) {
        double t = i / fs;
        x[i] = sin(2 * PI * (f0 * t + 0.5 * c * t * t));
    }
    tvds_stft_options o = tvds_stft_options_default();
    o.nwin = 512;
    o.overlap = 0.75;
    tvds_stft *s = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert(tvds_stft_compute(x, n, 1.0 / fs, 0.0, &o, &s, &ctx) == TVDS_OK);
    ck_assert_int_gt(s->nframes, 100);
    for (int k = 0; k < s->nframes; k++) {
        const double *row = s->S + (size_t)k * s->nfreq;
        int jmax = 0;
        for (int j = 1; j < s->nfreq; j++)
            if (row[j] > row[jmax]) jmax = j;
        double finst = f0 + c * s->t[k];
        ck_assert_msg(fabs(s->f[jmax] - finst) <= s->df, "frame %d t %g: peak %g, f(t) %g", k,
                      s->t[k], s->f[jmax], finst);
    }
    tvds_stft_free(&s);
    free(x);
}
END_TEST

/* PSD: sum_k P_k df equals the window-weighted mean square of each frame (Parseval, exact to
 * round-off), and a sine of amplitude a has power a^2 / 2. */
START_TEST(test_psd_parseval)
{
    const double fs = 2048.0;
    long n = 4096;
    double *x = malloc((size_t)n * sizeof *x);
    unsigned long long st = 12345;
    for (long i = 0; i < n; i++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = ((double)(st >> 11) / 9007199254740992.0 - 0.5) + 0.7; /* noise + offset */
    }
    int windows[3] = {TVDS_WINDOW_HANN, TVDS_WINDOW_HAMMING, TVDS_WINDOW_RECT};
    for (int w = 0; w < 3; w++)
        for (int nw = 0; nw < 2; nw++) {
            tvds_stft_options o = tvds_stft_options_default();
            o.nwin = nw ? 255 : 256; /* odd length: no Nyquist bin */
            o.window = windows[w];
            o.scaling = TVDS_SPEC_PSD;
            tvds_stft *s = NULL;
            tvds_ctx ctx;
            tvds_ctx_init(&ctx);
            ck_assert(tvds_stft_compute(x, n, 1.0 / fs, 0.0, &o, &s, &ctx) == TVDS_OK);
            for (int k = 0; k < s->nframes; k++) {
                double sum = 0.0, ms = 0.0, sw2 = 0.0;
                for (int j = 0; j < s->nfreq; j++)
                    sum += s->S[(size_t)k * s->nfreq + j] * s->df;
                for (int i = 0; i < o.nwin; i++) {
                    double wv = tvds_window_value(o.window, i, o.nwin);
                    ms += wv * wv * x[(long)k * s->hop + i] * x[(long)k * s->hop + i];
                    sw2 += wv * wv;
                }
                ck_assert_double_eq_tol(sum, ms / sw2, 1e-12 * ms / sw2);
            }
            tvds_stft_free(&s);
        }
    /* Sine on a bin with Hann: power a^2 / 2 exactly (the window's spectrum does not reach
     * the mirror bin). */
    const double a = 0.8;
    for (long i = 0; i < n; i++)
        x[i] = a * sin(2 * PI * 64.0 * i / fs);
    tvds_stft_options o = tvds_stft_options_default();
    o.nwin = 512;
    o.scaling = TVDS_SPEC_PSD;
    tvds_stft *s = NULL;
    ck_assert(tvds_stft_compute(x, n, 1.0 / fs, 0.0, &o, &s, NULL) == TVDS_OK);
    double sum = 0.0;
    for (int j = 0; j < s->nfreq; j++)
        sum += s->S[j] * s->df;
    ck_assert_double_eq_tol(sum, a * a / 2, 1e-12);
    tvds_stft_free(&s);
    free(x);
}
END_TEST

START_TEST(test_stft_errors)
{
    double x[16] = {0};
    tvds_stft *s = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_stft_options o = tvds_stft_options_default();
    o.nwin = 32;
    ck_assert_int_eq(tvds_stft_compute(x, 16, 0.1, 0.0, &o, &s, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_null(s);
    o.nwin = 8;
    o.overlap = 1.0;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_stft_compute(x, 16, 0.1, 0.0, &o, &s, &ctx), TVDS_ERR_INVALID);
    o.overlap = 0.5;
    x[3] = NAN;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_stft_compute(x, 16, 0.1, 0.0, &o, &s, &ctx), TVDS_ERR_INVALID);
    x[3] = 0.0;
    for (int k = 0; k < 20; k++) {
        tvds_alloc_fail_after(k);
        int rc = tvds_stft_compute(x, 16, 0.1, 0.0, &o, &s, NULL);
        tvds_alloc_fail_after(-1);
        if (rc == TVDS_OK) break;
        ck_assert_int_eq(rc, TVDS_ERR_NOMEM);
        ck_assert_ptr_null(s);
    }
    tvds_stft_free(&s);
}
END_TEST

static char *write_tmp(const char *text)
{
    char *path = malloc(64);
    strcpy(path, "/tmp/tvds_spectrum_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

START_TEST(test_history_reader)
{
    char *p = write_tmp("t [s],tip_ay [m/s^2],u [m]\n0,1,10\n0.1,2,20\n0.2,3,30\n0.4,5,50\n");
    double *t = NULL, *x = NULL;
    long n = 0;
    char *unit = NULL;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_msg(tvds_history_read_channel(p, "tip_ay", &t, &x, &n, &unit, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(unit, "m/s^2");
    ck_assert_double_eq(x[3], 5.0);
    /* 0.4 breaks uniform sampling: resampled at the median step 0.1, linear in between. */
    double dt;
    int res = 0;
    ck_assert(tvds_uniform_sampling(t, &x, &n, &dt, &res, &ctx) == TVDS_OK);
    ck_assert_int_eq(res, 1);
    ck_assert_int_eq(n, 5);
    ck_assert_double_eq_tol(dt, 0.1, 1e-15);
    ck_assert_double_eq_tol(x[3], 4.0, 1e-12);
    tvds_free(t);
    tvds_free(x);
    tvds_free(unit);
    /* Full header cell works too; unknown channel lists the channels. */
    ck_assert(tvds_history_read_channel(p, "u [m]", &t, &x, &n, NULL, &ctx) == TVDS_OK);
    ck_assert_double_eq(x[1], 20.0);
    tvds_free(t);
    tvds_free(x);
    ck_assert_int_eq(tvds_history_read_channel(p, "nope", &t, &x, &n, NULL, &ctx),
                     TVDS_ERR_INVALID);
    ck_assert(strstr(ctx.msg, "'tip_ay [m/s^2]'") != NULL);
    unlink(p);
    free(p);
    /* A last line without its newline (a row cut by a kill) is dropped: its 0.3 might be 0.35. */
    p = write_tmp("t [s],a [1]\n0,1\n0.1,2\n0.2,3\n0.3");
    ck_assert_msg(tvds_history_read_channel(p, "a", &t, &x, &n, NULL, &ctx) == TVDS_OK, "%s",
                  ctx.msg);
    ck_assert_int_eq(n, 3);
    tvds_free(t);
    tvds_free(x);
    unlink(p);
    free(p);
    /* A bad number names its line and column. */
    p = write_tmp("t [s],a [1]\n0,1\n0.1,x\n");
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_history_read_channel(p, "a", &t, &x, &n, NULL, &ctx), TVDS_ERR_PARSE);
    ck_assert_msg(strstr(ctx.msg, ":3: column 2") != NULL, "%s", ctx.msg);
    ck_assert_ptr_null(t);
    unlink(p);
    free(p);
    /* Uniform input is kept as is. */
    double tt[4] = {1.0, 1.5, 2.0, 2.5};
    double *xx = tvds_malloc(4 * sizeof *xx);
    for (int i = 0; i < 4; i++)
        xx[i] = i;
    n = 4;
    ck_assert(tvds_uniform_sampling(tt, &xx, &n, &dt, &res, &ctx) == TVDS_OK);
    ck_assert_int_eq(res, 0);
    ck_assert_double_eq_tol(dt, 0.5, 1e-15);
    tt[2] = 1.5;
    ck_assert_int_eq(tvds_uniform_sampling(tt, &xx, &n, &dt, &res, NULL), TVDS_ERR_INVALID);
    tvds_free(xx);
}
END_TEST

Suite *spectrum_suite(void)
{
    Suite *s = suite_create("spectrum");
    TCase *tc = tcase_create("spectrum");
    tcase_add_test(tc, test_sine_peak_amplitude);
    tcase_add_test(tc, test_chirp_tracks_frequency);
    tcase_add_test(tc, test_psd_parseval);
    tcase_add_test(tc, test_stft_errors);
    tcase_add_test(tc, test_history_reader);
    suite_add_tcase(s, tc);
    return s;
}
