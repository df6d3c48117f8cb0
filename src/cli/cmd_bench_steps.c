/* cmd_bench_steps.c — `tvds bench`'s per-step sections: every contact method on the case (with
 * the modal vs physical path and the CEA per position), cost vs reduced size and vs contact
 * nodes, the 3D plate and beam-on-beam, sweep efficiency, the set-up of large models. */
/* wait4 (the rusage of one child), mkdtemp and gmtime_r are BSD/POSIX extensions of glibc. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd_bench_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_sweep.h"

/* Interleaved rounds of every method (and the floor kernel), then one row per method: tm[k]
 * the medians, flr[] and rat[] the floor and subs-b / floor per round. */
static int method_rounds(btab *t, tvds_model *m, int R, long nseg, tvds_bench_timing *tm,
                         double *flr, double *rat, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    /* Methods interleaved run by run (a change of machine load then affects all of them
     * alike), at least 5 runs each: the ratios to FiLm are the point of this section. The
     * floor kernel (below) runs in the same rounds, after the methods of each: its ratio to
     * subs-b is formed round by round, numerator and denominator under the same conditions. */
    const int Rm = R < 5 ? 5 : R;
    double us[TVDS_METHOD_COUNT][16], it[TVDS_METHOD_COUNT][16];
    int ns = m->nsub < 8 ? m->nsub : 8, nn[8];
    for (int i = 0; i < ns; i++)
        nn[i] = m->subs[i]->n;
    for (int r = 0; r < Rm; r++) {
        for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
            m->opt.method = k;
            m->opt.modal = 1;
            if ((rc = tvds_bench_steps(m, nseg, NULL, 0, &tm[k], ctx))) {
                bench_fail(tvds_method_name(k), rc, ctx);
                return rc;
            }
            us[k][r] = tm[k].us_per_step;
            it[k][r] = tm[k].film_iter_mean;
        }
        /* The floor: the same O(n) passes as one subs-b step, hand-written
         * (tvds_bench_floor). */
        if ((rc = tvds_bench_floor(ns, nn, nseg, 1, &flr[r], ctx))) {
            bench_fail("floor kernel", rc, ctx);
            return rc;
        }
        rat[r] = us[TVDS_METHOD_SUBS_B][r] / flr[r];
    }
    for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
        tm[k].us_per_step = bench_median(us[k], Rm);
        tm[k].film_iter_mean = bench_median(it[k], Rm);
    }
    double nfull = m->opt.t_end / tm[0].dt;
    double film = tm[TVDS_METHOD_FILM].us_per_step;
    for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
        const char *nm = tvds_method_name(k);
        char item[64];
        snprintf(item, sizeof item, "%s us/step", nm);
        bench_add(t, "method", item, tm[k].us_per_step, "us",
                  "median of %d x %ld steps (methods interleaved), dt %.4g s", Rm, nseg, tm[k].dt);
        snprintf(item, sizeof item, "%s steps/s", nm);
        bench_add(t, "method", item, 1e6 / tm[k].us_per_step, "1/s", NULL);
        snprintf(item, sizeof item, "%s full transient", nm);
        bench_add(t, "method", item, nfull * tm[k].us_per_step * 1e-6, "s",
                  "extrapolated: %.0f steps to t_end %g s at the measured rate", nfull,
                  m->opt.t_end);
        if (k == TVDS_METHOD_FILM) {
            bench_add(t, "method", "film iterations/step", tm[k].film_iter_mean, "-", NULL);
        } else {
            snprintf(item, sizeof item, "%s / film", nm);
            bench_add(t, "method", item, tm[k].us_per_step / film, "-", "same run");
        }
    }
    bench_add(t, "method", "setup (tvds_data_create)", tm[0].setup_seconds, "s", "eigenbases etc.");
    return TVDS_OK;
}

/* The floor kernel's rows and subs-b's first 10 ms against it. */
static int floor_rows(btab *t, tvds_model *m, int Rm, long nseg, const tvds_bench_timing *tm,
                      double *flr, double *rat, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    double fl = bench_median(flr, Rm), b = tm[TVDS_METHOD_SUBS_B].us_per_step;
    bench_add(t, "floor", "floor kernel us/step", fl, "us",
              "predictor, 3 dots, 2 corrections, work sums per substructure; median of %d x %ld, "
              "each run after the methods of a round",
              Rm, nseg);
    bench_add(t, "floor", "subs-b / floor", bench_median(rat, Rm), "-",
              "median over the %d rounds of subs-b / floor in the same round (ratio of the "
              "medians: %.4g)",
              Rm, b / fl);
    /* The first 10 ms in ten segments of 4 000 steps, one run: what each phase of the
     * preload ramp costs (tip open, chattering, sliding), and a guard against one phase
     * much slower than the rest (tiny coordinates once made four of them 4-11 x slower,
     * docs/performance.md). */
    double useg[10], lo = 0.0, hi = 0.0;
    tvds_bench_timing ts;
    m->opt.method = TVDS_METHOD_SUBS_B;
    if ((rc = tvds_bench_segments(m, 4000, 10, useg, &ts, ctx))) {
        bench_fail("subs-b segments", rc, ctx);
        return rc;
    }
    char list[96];
    int len = 0;
    for (int k = 0; k < 10; k++) {
        if (k == 0 || useg[k] < lo) lo = useg[k];
        if (k == 0 || useg[k] > hi) hi = useg[k];
        len += snprintf(list + len, sizeof list - (size_t)len, "%s%.2f", k ? " " : "", useg[k]);
        if (len >= (int)sizeof list) break;
    }
    bench_add(t, "floor", "subs-b fastest 1 ms / floor", lo / fl, "-",
              "10 segments of 4000 steps from rest, us/step: %s", list);
    bench_add(t, "floor", "subs-b slowest 1 ms / floor", hi / fl, "-", "same segments");
    return TVDS_OK;
}

/* Exact modal propagation (docs/theory.md 10b): the same steps, then the step of the band
 * of interest (f_band = 11 kHz, above the 10.6 kHz squeal pair) over the whole transient. */
static int exact_rows(btab *t, tvds_model *m, int Rm, long nseg, const tvds_bench_timing *tm,
                      tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    tvds_bench_timing te;
    double ue[16];
    m->opt.method = TVDS_METHOD_SUBS_B;
    m->opt.integrator = TVDS_INTEGRATOR_EXACT;
    int auto0 = m->opt.dt_auto;
    double dt0 = m->opt.dt;
    m->opt.dt_auto = 0;
    m->opt.dt = tm[0].dt;
    for (int r = 0; r < Rm && !rc; r++) {
        rc = tvds_bench_steps(m, nseg, NULL, 0, &te, ctx);
        ue[r] = te.us_per_step;
    }
    double u1 = bench_median(ue, Rm);
    m->opt.dt_auto = 1;
    m->opt.f_band = 11e3;
    for (int r = 0; r < Rm && !rc; r++) {
        rc = tvds_bench_steps(m, nseg, NULL, 0, &te, ctx);
        ue[r] = te.us_per_step;
    }
    m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
    m->opt.dt_auto = auto0;
    m->opt.dt = dt0;
    if (rc) {
        bench_fail("exact integrator", rc, ctx);
        return rc;
    }
    double u2 = bench_median(ue, Rm), ne = m->opt.t_end / te.dt;
    bench_add(t, "exact", "subs-b exact us/step", u1, "us", "integrator = exact, dt %.4g s",
              tm[0].dt);
    bench_add(t, "exact", "exact / central", u1 / tm[TVDS_METHOD_SUBS_B].us_per_step, "-",
              "same steps, same run");
    bench_add(t, "exact", "subs-b exact f_band 11 kHz us/step", u2, "us", "dt = auto = %.4g s",
              te.dt);
    bench_add(t, "exact", "subs-b exact full transient", ne * u2 * 1e-6, "s",
              "extrapolated: %.0f steps to t_end %g s", ne, m->opt.t_end);
    return TVDS_OK;
}

/* The paper-length transient itself, once per integrator (the rows above extrapolate the
 * first 10 ms, the preload ramp, whose steps cost less than the sliding ones): CPU of the
 * stepping loop, recording as a run does; *full_cd, *full_ex: the CPU of each. */
static int full_transients(btab *t, tvds_model *m, const tvds_bench_timing *tm, double *full_cd,
                           double *full_ex, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    tvds_bench_timing tf;
    m->opt.method = TVDS_METHOD_SUBS_B;
    long nst = (long)ceil(m->opt.t_end / tm[0].dt - 1e-9);
    rc = tvds_bench_steps(m, nst, NULL, 0, &tf, ctx);
    if (!rc) {
        *full_cd = tf.loop_cpu_seconds;
        bench_add(t, "method", "subs-b full transient, measured", *full_cd, "s",
                  "%ld steps to t_end %g s, CPU of the stepping loop, one run", tf.steps,
                  m->opt.t_end);
        int auto0 = m->opt.dt_auto;
        m->opt.integrator = TVDS_INTEGRATOR_EXACT;
        m->opt.dt_auto = 1;
        m->opt.f_band = 11e3;
        rc = tvds_bench_steps(m, 0, NULL, 0, &tf, ctx); /* its automatic step */
        double dte = tf.dt;
        if (!rc) rc = tvds_bench_steps(m, (long)ceil(m->opt.t_end / dte - 1e-9), NULL, 0, &tf, ctx);
        m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
        m->opt.dt_auto = auto0;
        if (!rc) {
            *full_ex = tf.loop_cpu_seconds;
            bench_add(t, "exact", "subs-b exact full transient, measured", *full_ex, "s",
                      "%ld steps of %.4g s to t_end %g s, f_band 11 kHz, one run", tf.steps, dte,
                      m->opt.t_end);
        }
    }
    if (rc) {
        bench_fail("full transient", rc, ctx);
        return rc;
    }
    return TVDS_OK;
}

/* Modal vs dense physical path: subs-b, same segment, histories compared. */
static int path_rows(btab *t, tvds_model *m, int R, int quick, tvds_ctx *ctx)
{
    int rc = TVDS_OK;
    const long nh = quick ? 2000 : 20000;
    const int nc = 8;
    double *ha = tvds_malloc((size_t)nh * nc * sizeof *ha);
    double *hb = tvds_malloc((size_t)nh * nc * sizeof *hb);
    if (!ha || !hb) {
        tvds_free(ha);
        tvds_free(hb);
        rc = TVDS_ERR_NOMEM;
        return rc;
    }
    double um[16], up[16];
    tvds_bench_timing a, b;
    m->opt.method = TVDS_METHOD_SUBS_B;
    for (int r = 0; r < R && r < 16 && !rc; r++) {
        m->opt.modal = 1;
        rc = tvds_bench_steps(m, nh, ha, nc, &a, ctx);
        m->opt.modal = 0;
        if (!rc) rc = tvds_bench_steps(m, nh, hb, nc, &b, ctx);
        um[r] = a.us_per_step;
        up[r] = b.us_per_step;
    }
    m->opt.modal = 1;
    if (rc) {
        bench_fail("modal vs physical", rc, ctx);
        tvds_free(ha);
        tvds_free(hb);
        return rc;
    }
    int nch = 0;
    {
        tvds_data *d = NULL;
        if (tvds_data_create(m, &d, ctx) == TVDS_OK)
            tvds_channels(d, TVDS_GROUP_HISTORY, &nch, NULL, NULL);
        tvds_data_free(&d);
    }
    if (nch > nc) nch = nc;
    double worst = 0.0;
    for (int c = 1; c < nch; c++) {
        double peak = 0.0, diff = 0.0;
        for (long k = 0; k < nh; k++) {
            peak = fmax(peak, fabs(ha[k * nc + c]));
            diff = fmax(diff, fabs(ha[k * nc + c] - hb[k * nc + c]));
        }
        if (peak > 0) worst = fmax(worst, diff / peak);
    }
    double mu = bench_median(um, R < 16 ? R : 16), pu = bench_median(up, R < 16 ? R : 16);
    bench_add(t, "path", "subs-b modal us/step", mu, "us", "median of %d x %ld steps", R, nh);
    bench_add(t, "path", "subs-b physical us/step", pu, "us", "dense M^-1, same steps");
    bench_add(t, "path", "physical / modal", pu / mu, "-", NULL);
    bench_add(t, "path", "max rel. history difference", worst, "-",
              "max abs(modal - physical) / peak over %d history channels", nch - 1);
    tvds_free(ha);
    tvds_free(hb);
    return TVDS_OK;
}

/* CEA: seconds per position, one thread. A failure is reported, not fatal: the CEA is optional in
 * the table. */
static void cea_rows(btab *t, tvds_model *m, int R, int quick, tvds_ctx *ctx)
{
    double L = 0.0;
    int rc = tvds_cea_surface_length(m, 0, &L, ctx);
    if (rc) {
        bench_fail("cea", rc, ctx);
        return;
    }
    const int npos = quick ? 4 : 20;
    double s[32], sec[16];
    for (int i = 0; i < npos; i++)
        s[i] = L * (0.1 + 0.8 * i / (npos - 1));
    tvds_cea_options o = tvds_cea_options_default();
    o.nthreads = 1;
    o.t_eval = 0.5 * m->opt.t_end; /* steady sliding, before the drive table ends */

    for (int r = 0; r < R && r < 16; r++) {
        tvds_cea_result *res = NULL;
        double t0 = tvds_bench_now();
        int rc2 = tvds_cea_run(m, 0, s, npos, &o, &res, ctx);
        sec[r] = (tvds_bench_now() - t0) / npos;
        tvds_cea_result_free(&res);
        if (rc2) {
            bench_fail("cea", rc2, ctx);
            return;
        }
    }
    bench_add(t, "cea", "seconds per position", bench_median(sec, R < 16 ? R : 16), "s",
              "1 thread, %d positions, 20 branches", npos);
}

/* The targets of docs/performance.md against the rows above. */
static void target_rows(btab *t, const tvds_model *m, const tvds_bench_timing *tm, double full_cd,
                        double full_ex)
{
    double nfull = m->opt.t_end / tm[0].dt;
    double film = tm[TVDS_METHOD_FILM].us_per_step;
    double b = tm[TVDS_METHOD_SUBS_B].us_per_step;
    bench_add(t, "target", "subs-b <= 2 us/step", b, "us", "%s", b <= 2.0 ? "met" : "missed");
    if (full_cd >= 0.0)
        bench_add(t, "target", "full transient < 60 s (subs-b)", full_cd, "s", "%s",
                  full_cd < 60.0 ? "met (measured)" : "missed (measured)");
    else
        bench_add(t, "target", "full transient < 60 s (subs-b)", nfull * b * 1e-6, "s", "%s",
                  nfull * b * 1e-6 < 60.0 ? "met (extrapolated)" : "missed (extrapolated)");
    if (full_ex >= 0.0)
        bench_add(t, "target", "full transient < 1 s (subs-b, exact, f_band 11 kHz)", full_ex, "s",
                  "%s", full_ex < 1.0 ? "met (measured)" : "missed (measured)");
    bench_add(t, "target", "subs-b no slower than film", b / film, "-", "%s",
              b <= film ? "met" : "missed");
}

int bench_methods(btab *t, const char *case_path, int R, int quick)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(case_path, NULL, 0, &m, &ctx);
    if (rc) return bench_fail(case_path, rc, &ctx);
    const long nseg = quick ? 4000 : 40000;
    const int Rm = R < 5 ? 5 : R;
    tvds_bench_timing tm[TVDS_METHOD_COUNT];
    double flr[16], rat[16], full_cd = -1.0, full_ex = -1.0;
    rc = method_rounds(t, m, R, nseg, tm, flr, rat, &ctx);
    if (!rc) rc = floor_rows(t, m, Rm, nseg, tm, flr, rat, &ctx);
    if (!rc) rc = exact_rows(t, m, Rm, nseg, tm, &ctx);
    /* Not in the quick bench. */
    if (!rc && !quick) rc = full_transients(t, m, tm, &full_cd, &full_ex, &ctx);
    if (!rc) target_rows(t, m, tm, full_cd, full_ex);
    if (!rc) rc = path_rows(t, m, R, quick, &ctx);
    if (!rc) cea_rows(t, m, R, quick, &ctx);
    tvds_model_free(&m);
    return rc;
}

/* us per step of model m (read from path) with subs-b and FiLm, one row each: item "<what>
 * <method> us/step", note "<desc>, n = <DoFs>, median of R segments of N steps<tail>". */
static int bench_two_methods(btab *t, tvds_model *m, const char *path, int R, int quick,
                             const char *what, const char *desc, const char *tail)
{
    static const int methods[2] = {TVDS_METHOD_SUBS_B, TVDS_METHOD_FILM};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int n = 0;
    for (int s = 0; s < m->nsub; s++)
        n += m->subs[s]->n;
    for (int k = 0; k < 2; k++) {
        tvds_bench_timing tm;
        double useg[16];
        long nst = quick ? 2000 : 20000;
        m->opt.method = methods[k];
        int rc = tvds_bench_segments(m, nst, R, useg, &tm, &ctx);
        if (rc) return bench_fail(path, rc, &ctx);
        char item[64];
        snprintf(item, sizeof item, "%s %s us/step", what, tvds_method_name(methods[k]));
        bench_add(t, "3d", item, tm.us_per_step, "us",
                  "%s, n = %d, median of %d segments of %ld steps%s", desc, n, R, nst, tail);
    }
    return TVDS_OK;
}

/* 3D node-to-face contact: a slider on a plate of 8 x 8 faces (tvds_bench_plate_write), per
 * face kind and method. */
int bench_plate(btab *t, const char *dir, int R, int quick)
{
    static const int kinds[2] = {4, 9};
    for (int i = 0; i < 2; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/plate_%d", dir, kinds[i]);
        int rc = tvds_bench_plate_write(sub, 8, kinds[i], cpath, sizeof cpath, &ctx);
        if (rc) return bench_fail("plate model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return bench_fail(cpath, rc, &ctx);
        char what[32];
        snprintf(what, sizeof what, "%d-node faces", kinds[i]);
        rc = bench_two_methods(t, m, cpath, R, quick, what, "plate 8 x 8 faces", "");
        tvds_model_free(&m);
        if (rc) return rc;
    }
    return TVDS_OK;
}

/* The beam-on-beam pair as solids (tvds model beam-on-beam-3d, default mesh) in the shipped
 * case models/beam_on_beam/beam_on_beam_3d.ini: five tip nodes on beam 2's face set, per
 * method. The segments run from rest (the load ramping in, C starting to slide). */
int bench_bob3d(btab *t, const char *dir, int R, int quick)
{
    static const char *case3d = "models/beam_on_beam/beam_on_beam_3d.ini";
    if (access(case3d, R_OK) != 0) return TVDS_OK; /* not run from the source tree */
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    char sub[4200], o[2][4300];
    snprintf(sub, sizeof sub, "%s/bob3d", dir);
    tvds_bob_params p = tvds_bob3d_default();
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return bench_fail("cholmod", rc, &ctx);
    tvds_cholmod_ctx(&ctx);
    rc = tvds_bob3d_write(&p, sub, NULL, &cc, &ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return bench_fail("3D beam-on-beam model", rc, &ctx);
    snprintf(o[0], sizeof o[0], "substructure.beam1.dir=%s/beam1", sub);
    snprintf(o[1], sizeof o[1], "substructure.beam2.dir=%s/beam2", sub);
    const char *ov[2] = {o[0], o[1]};
    tvds_model *m = NULL;
    if ((rc = tvds_case_read(case3d, ov, 2, &m, &ctx))) return bench_fail(case3d, rc, &ctx);
    rc = bench_two_methods(t, m, case3d, R, quick, "beam-on-beam 3D", "5 tip nodes on 196 faces",
                           " from rest");
    tvds_model_free(&m);
    return rc;
}

/* Sweep efficiency on 2 workers (target: >= 90 % of ideal): the same 8-point sweep of the
 * case run in this process on 1 and on 2 OpenMP workers, alternately, R times each; the
 * efficiency is wall(1) / (2 wall(2)) from the medians. The load average before the section is
 * recorded with it: on a machine shared with other jobs the figure says more about the load. */
int bench_sweep(btab *t, const char *case_path, int R, int quick)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2) return TVDS_OK;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_sweep_axis ax;
    int rc = tvds_sweep_axis_parse("substructure.beam2.beta=2e-8:6e-8:8", &ax, &ctx);
    if (rc) return bench_fail("sweep axis", rc, &ctx);
    const char *sets[1] = {quick ? "run.t_end=0.005" : "run.t_end=0.05"};
    tvds_sweep_row rows[8];
    double w[2][16];
    int reps = R < 16 ? R : 16;
    double l0 = bench_load1();
    for (int r = 0; r < reps; r++) {
        for (int k = 0; k < 2; k++) {
            tvds_sweep_opts o = tvds_sweep_opts_default();
            o.sets = sets;
            o.nsets = 1;
            o.nthreads = k + 1;
            long nrows = 0;
            double t0 = tvds_bench_now();
            rc = tvds_sweep_run(case_path, &ax, 1, &o, 0, 1, rows, &nrows, &ctx);
            w[k][r] = tvds_bench_now() - t0;
            if (rc) return bench_fail("sweep", rc, &ctx);
        }
    }
    double l1 = bench_load1();
    double w1 = bench_median(w[0], reps), w2 = bench_median(w[1], reps);
    bench_add(t, "sweep", "8 runs, 1 worker wall", w1, "s", "%s, median of %d", sets[0], reps);
    bench_add(t, "sweep", "8 runs, 2 workers wall", w2, "s", "%s, median of %d", sets[0], reps);
    bench_add(t, "sweep", "efficiency on 2 workers", 100.0 * w1 / (2.0 * w2), "%",
              "wall(1) / (2 wall(2)); target >= 90; load average %.2f before, %.2f after", l0, l1);
    return TVDS_OK;
}

/* Per-step cost vs reduced size n (modal path, subs-b), and physical path for small n. */
int bench_size(btab *t, const char *dir, int R, int quick)
{
    static const int sizes[] = {50, 100, 200, 500, 1000, 2000};
    const int ns = quick ? 3 : 6;
    double xs[8], ys[8];
    int rc = TVDS_OK;
    for (int i = 0; i < ns; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/synthetic_%d", dir, sizes[i]);
        if ((rc = tvds_bench_synthetic_write(sub, sizes[i], cpath, sizeof cpath, &ctx)))
            return bench_fail("synthetic model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return bench_fail(cpath, rc, &ctx);
        int n = 0;
        for (int s = 0; s < m->nsub; s++)
            n += m->subs[s]->n;
        tvds_bench_timing tm;
        long nst = quick ? 2000 : 20000;
        m->opt.method = TVDS_METHOD_SUBS_B;
        m->opt.modal = 1;
        double useg[16];
        if ((rc = tvds_bench_segments(m, nst, R, useg, &tm, &ctx))) {
            tvds_model_free(&m);
            return bench_fail(cpath, rc, &ctx);
        }
        xs[i] = n;
        ys[i] = tm.us_per_step;
        char item[64];
        snprintf(item, sizeof item, "n = %d modal us/step", n);
        bench_add(t, "size", item, tm.us_per_step, "us",
                  "subs-b, median of %d consecutive segments of %ld steps, setup %.3g s", R, nst,
                  tm.setup_seconds);
        if (sizes[i] <= 500) {
            m->opt.modal = 0;
            long np = nst / 4;
            if ((rc = tvds_bench_segments(m, np, R, useg, &tm, &ctx))) {
                tvds_model_free(&m);
                return bench_fail(cpath, rc, &ctx);
            }
            snprintf(item, sizeof item, "n = %d physical us/step", n);
            bench_add(t, "size", item, tm.us_per_step, "us",
                      "dense path, median of %d segments of %ld steps", R, np);
        }
        tvds_model_free(&m);
    }
    /* Least-squares line us = a + b n and its R^2. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < ns; i++) {
        sx += xs[i];
        sy += ys[i];
        sxx += xs[i] * xs[i];
        sxy += xs[i] * ys[i];
    }
    double b = (ns * sxy - sx * sy) / (ns * sxx - sx * sx), a = (sy - b * sx) / ns;
    double ybar = sy / ns, ssr = 0, sst = 0;
    for (int i = 0; i < ns; i++) {
        double e = ys[i] - (a + b * xs[i]);
        ssr += e * e;
        sst += (ys[i] - ybar) * (ys[i] - ybar);
    }
    double r2 = sst > 0 ? 1.0 - ssr / sst : 1.0;
    bench_add(t, "size", "modal fit slope", 1e3 * b, "ns/DoF", "us/step = a + b n, least squares");
    bench_add(t, "size", "modal fit intercept", a, "us", NULL);
    bench_add(t, "size", "modal fit R^2", r2, "-", "n = %g .. %g", xs[0], xs[ns - 1]);
    return TVDS_OK;
}

/* Solve the 3 x 3 system A x = b (Cramer's rule; the normal equations of a quadratic fit). */
static void solve3(double A[3][3], const double b[3], double x[3])
{
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                 A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    for (int k = 0; k < 3; k++) {
        double M[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                M[i][j] = j == k ? b[i] : A[i][j];
        x[k] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
               det;
    }
}

/* Per-step cost against the number m of contact nodes: the 504-DoF synthetic track with a pad
 * of m slave nodes (tvds_bench_synthetic_pad_write), subs-b; least-squares
 * us = a + b m + c m^2 over m = 1 .. 16, and m = 128 against it. */
int bench_contacts(btab *t, const char *dir, int R, int quick)
{
    static const int ms[] = {1, 2, 4, 8, 16, 128};
    const int nm = quick ? 4 : 6;
    double us[8];
    for (int i = 0; i < nm; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/pad_%d", dir, ms[i]);
        int rc = tvds_bench_synthetic_pad_write(sub, 500, ms[i], cpath, sizeof cpath, &ctx);
        if (rc) return bench_fail("synthetic pad model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return bench_fail(cpath, rc, &ctx);
        m->opt.method = TVDS_METHOD_SUBS_B;
        long nst = quick ? 500 : ms[i] >= 128 ? 1000 : 10000;
        tvds_bench_timing tm;
        double useg[16];
        rc = tvds_bench_segments(m, nst, R, useg, &tm, &ctx);
        tvds_model_free(&m);
        if (rc) return bench_fail(cpath, rc, &ctx);
        us[i] = tm.us_per_step;
        char item[64];
        snprintf(item, sizeof item, "m = %d us/step", ms[i]);
        bench_add(
            t, "contacts", item, us[i], "us",
            "504 DoFs, %d slave nodes, subs-b, median of %d x %ld steps, run.path = auto (track "
            "lumped)",
            ms[i], R, nst);
    }
    /* m = 16 on the modal path (run.path = modal), the same steps: what the lumped physical
     * path saves (docs/theory.md 9c). */
    if (nm >= 5) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/pad_%d", dir, ms[4]);
        tvds_model *m = NULL;
        snprintf(cpath, sizeof cpath, "%s/case.ini", sub);
        int rc = tvds_case_read(cpath, NULL, 0, &m, &ctx);
        if (rc) return bench_fail(cpath, rc, &ctx);
        m->opt.method = TVDS_METHOD_SUBS_B;
        m->opt.modal = TVDS_PATH_MODAL;
        tvds_bench_timing tm;
        double useg[16];
        rc = tvds_bench_segments(m, quick ? 500 : 10000, R, useg, &tm, &ctx);
        tvds_model_free(&m);
        if (rc) return bench_fail(cpath, rc, &ctx);
        bench_add(t, "contacts", "m = 16 modal path us/step", tm.us_per_step, "us",
                  "run.path = modal, same model and steps; lumped / modal = %.3g",
                  us[4] / tm.us_per_step);
    }
    int nf = nm < 5 ? nm : 5;
    double A[3][3] = {{0}}, b[3] = {0}, c[3];
    for (int i = 0; i < nf; i++) {
        double p[3] = {1.0, ms[i], (double)ms[i] * ms[i]};
        for (int r = 0; r < 3; r++) {
            b[r] += p[r] * us[i];
            for (int q = 0; q < 3; q++)
                A[r][q] += p[r] * p[q];
        }
    }
    solve3(A, b, c);
    bench_add(t, "contacts", "fit a (us = a + b m + c m^2)", c[0], "us",
              "least squares, m = 1 .. %d: us = %.3g + %.3g m + %.3g m^2", ms[nf - 1], c[0], c[1],
              c[2]);
    bench_add(t, "contacts", "fit b", c[1], "us", NULL);
    bench_add(t, "contacts", "fit c", c[2], "us", NULL);
    /* The straight line over the same points: the law when the contact work is linear in m. */
    double s1 = 0, sm = 0, sy = 0, smm = 0, smy = 0;
    for (int i = 0; i < nf; i++) {
        s1 += 1.0, sm += ms[i], sy += us[i], smm += (double)ms[i] * ms[i], smy += ms[i] * us[i];
    }
    double lb = (s1 * smy - sm * sy) / (s1 * smm - sm * sm), la = (sy - lb * sm) / s1;
    bench_add(t, "contacts", "line a (us = a + b m)", la, "us",
              "least squares, m = 1 .. %d: us = %.3g + %.3g m", ms[nf - 1], la, lb);
    bench_add(t, "contacts", "line b", lb, "us", NULL);
    if (nm == 6) {
        double pred = c[0] + c[1] * 128 + c[2] * 128.0 * 128.0;
        bench_add(t, "contacts", "m = 128 / fit", us[5] / pred, "-", "fit extrapolated: %.4g us",
                  pred);
        bench_add(t, "contacts", "m = 128 / line", us[5] / (la + lb * 128), "-",
                  "line extrapolated: %.4g us", la + lb * 128);
        bench_add(t, "contacts", "exponent m = 16 -> 128", log(us[5] / us[4]) / log(8.0), "-",
                  "log(us(128) / us(16)) / log 8");
    }
    if (nm >= 5)
        bench_add(t, "target", "m = 16 contacts <= 10 us/step", us[4], "us", "%s",
                  us[4] <= 10.0 ? "met" : "missed");
    return TVDS_OK;
}

/* Set-up of large reduced models (opt-in, --large): tvds_data_create of the synthetic track
 * with n = 2000, 3000, 5000 (all n DoFs retained and candidates of the master surface): the
 * eigenbasis (dsygvd, O(n^3)) and the candidate flexibility G (BLAS dsyrk, O(n^3)). */
int bench_setup_large(btab *t, const char *dir)
{
    static const int sizes[] = {2000, 3000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/large_%d", dir, sizes[i]);
        int rc = tvds_bench_synthetic_write(sub, sizes[i], cpath, sizeof cpath, &ctx);
        if (rc) return bench_fail("synthetic model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return bench_fail(cpath, rc, &ctx);
        int n = 0;
        for (int s = 0; s < m->nsub; s++)
            n += m->subs[s]->n;
        tvds_bench_timing tm;
        double c0 = tvds_bench_thread_cpu();
        rc = tvds_bench_steps(m, 10, NULL, 0, &tm, &ctx);
        double cpu = tvds_bench_thread_cpu() - c0;
        tvds_model_free(&m);
        if (rc) return bench_fail(cpath, rc, &ctx);
        char item[64];
        snprintf(item, sizeof item, "n = %d setup wall", n);
        bench_add(t, "setup", item, tm.setup_seconds, "s",
                  "tvds_data_create: eigenbasis + candidate flexibility (%d candidates)", sizes[i]);
        snprintf(item, sizeof item, "n = %d setup CPU", n);
        bench_add(t, "setup", item, cpu, "s",
                  "CPU of the calling thread (BLAS threads not counted)");
    }
    return TVDS_OK;
}
