/* accuracy.c — accuracy metrics of a beam-on-beam run against a reference run (used by
 * bench/accuracy.sh, docs/performance.md "A step chosen for accuracy").
 *
 * usage: accuracy REF_DIR RUN_DIR T0 T1 [PRE0 PRE1 WIN1 FREF]...
 *
 * From history.csv (channel T_ay) and contacts.csv (C.lambda_n) of both runs:
 * - dominant frequency of T_ay over [T0, T1] in 1-20 kHz (tvds_dominant_frequency);
 * - mean lambda_N over [T0, T1];
 * - per unstable window (PRE0 PRE1 WIN1 FREF): the amplitude A(t) of the FREF component over
 *   1 ms frames; growth = ln(max A over [PRE1, WIN1] / mean A over [PRE0, PRE1]), the growth of
 *   the squeal pair across the window; and the dominant frequency over [PRE1, WIN1].
 * Prints one line per metric: name, reference, run, relative difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tvds/tvds.h"
#include "tvds/tvds_compare.h"
#include "tvds/tvds_spectrum.h"

static const double TWO_PI = 6.283185307179586;

typedef struct run {
    double *t, *a, *tc, *ln;
    long n, nc;
} run;

static long first_at(const double *t, long n, double v)
{
    long i = 0;
    while (i < n && t[i] < v)
        i++;
    return i;
}

static int load(const char *dir, run *r, tvds_ctx *ctx)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/history.csv", dir);
    int rc = tvds_history_read_channel(p, "T_ay", &r->t, &r->a, &r->n, NULL, ctx);
    if (rc) return rc;
    snprintf(p, sizeof p, "%s/contacts.csv", dir);
    return tvds_history_read_channel(p, "C.lambda_n", &r->tc, &r->ln, &r->nc, NULL, ctx);
}

static double sample_dt(const run *r, long i0, long i1)
{
    return (r->t[i1 - 1] - r->t[i0]) / (double)(i1 - 1 - i0);
}

static double f_dom(const run *r, double t0, double t1, double fmin, double fmax, tvds_ctx *ctx)
{
    long i0 = first_at(r->t, r->n, t0), i1 = first_at(r->t, r->n, t1);
    double f = NAN;
    if (i1 - i0 < 8 || tvds_dominant_frequency(r->a + i0, i1 - i0, sample_dt(r, i0, i1), fmin, fmax,
                                               &f, NULL, ctx))
        return NAN;
    return f;
}

static double mean_ln(const run *r, double t0, double t1)
{
    long j0 = first_at(r->tc, r->nc, t0), j1 = first_at(r->tc, r->nc, t1);
    double s = 0.0;
    for (long j = j0; j < j1; j++)
        s += r->ln[j];
    return j1 > j0 ? s / (double)(j1 - j0) : NAN;
}

/* Amplitude of the fref component of T_ay over the 1 ms frame starting at sample q. */
static double frame_amp(const run *r, long q, long L, double fref)
{
    double c = 0.0, s = 0.0;
    for (long j = q; j < q + L && j < r->n; j++) {
        c += r->a[j] * cos(TWO_PI * fref * r->t[j]);
        s += r->a[j] * sin(TWO_PI * fref * r->t[j]);
    }
    return 2.0 * sqrt(c * c + s * s) / (double)L;
}

static double growth(const run *r, double pre0, double pre1, double win1, double fref)
{
    long i0 = first_at(r->t, r->n, pre0), i1 = first_at(r->t, r->n, pre1),
         i2 = first_at(r->t, r->n, win1);
    if (i2 - i0 < 16) return NAN;
    long L = (long)(1e-3 / sample_dt(r, i0, i2) + 0.5);
    double pre = 0.0, top = 0.0;
    long np = 0;
    for (long q = i0; q + L <= i1; q += L, np++)
        pre += frame_amp(r, q, L, fref);
    for (long q = i1; q + L <= i2; q += L) {
        double a = frame_amp(r, q, L, fref);
        if (a > top) top = a;
    }
    return np > 0 && pre > 0.0 ? log(top / (pre / (double)np)) : NAN;
}

static void line(const char *name, double ref, double v)
{
    printf("%-34s %16.9g %16.9g %+11.3e\n", name, ref, v, (v - ref) / fabs(ref));
}

int main(int argc, char **argv)
{
    if (argc < 5 || (argc - 5) % 4 != 0) {
        fprintf(stderr, "usage: accuracy REF_DIR RUN_DIR T0 T1 [PRE0 PRE1 WIN1 FREF]...\n");
        return 2;
    }
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    run ref = {0}, r = {0};
    if (load(argv[1], &ref, &ctx) || load(argv[2], &r, &ctx)) {
        fprintf(stderr, "accuracy: %s\n", ctx.msg);
        return 2;
    }
    double t0 = atof(argv[3]), t1 = atof(argv[4]);
    printf("%-34s %16s %16s %11s\n", "metric", "reference", "run", "rel. diff");
    line("dominant frequency [Hz]", f_dom(&ref, t0, t1, 1e3, 2e4, &ctx),
         f_dom(&r, t0, t1, 1e3, 2e4, &ctx));
    line("mean lambda_N [N]", mean_ln(&ref, t0, t1), mean_ln(&r, t0, t1));
    for (int k = 5; k + 3 < argc; k += 4) {
        double p0 = atof(argv[k]), p1 = atof(argv[k + 1]), w1 = atof(argv[k + 2]),
               fr = atof(argv[k + 3]);
        char nm[80];
        snprintf(nm, sizeof nm, "growth %g-%g s [-]", p1, w1);
        line(nm, growth(&ref, p0, p1, w1, fr), growth(&r, p0, p1, w1, fr));
        snprintf(nm, sizeof nm, "burst frequency %g-%g s [Hz]", p1, w1);
        line(nm, f_dom(&ref, p1, w1, 2e3, 2e4, &ctx), f_dom(&r, p1, w1, 2e3, 2e4, &ctx));
    }
    tvds_free(ref.t), tvds_free(ref.a), tvds_free(ref.tc), tvds_free(ref.ln);
    tvds_free(r.t), tvds_free(r.a), tvds_free(r.tc), tvds_free(r.ln);
    return 0;
}
