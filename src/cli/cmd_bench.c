/* cmd_bench.c — `tvds bench`: per-step cost of every contact method, modal vs physical path,
 * CEA, reduction of a large model and per-step cost vs reduced size; one table (CSV + Markdown). */
/* wait4 (the rusage of one child) is a BSD/glibc extension. */
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

#include "cli/cli.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_bench.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_reduce.h"
#include "tvds/tvds_sim.h"
#include "tvds/tvds_sweep.h"

static void bench_help(FILE *out)
{
    fprintf(out,
            "usage: tvds bench [-o DIR] [--case CASE] [--repeats R] [--quick] [--large]\n"
            "                  [--reduce-sizes N,N,...]\n"
            "                  [--only reduce|contacts|cea-nodes|sweep|bob3d]\n"
            "                  [--cea-dofs N] [--cea-solvers dense,arpack,complex]\n"
            "                  [--scipy-limit S]\n"
            "\n"
            "Benchmarks of tvds on this machine (docs/performance.md). Every figure is the median\n"
            "of R runs (default 3). Prints one table and writes DIR/bench.csv and DIR/bench.md\n"
            "(default DIR bench/results):\n"
            "  - per contact method on the beam-on-beam case (default\n"
            "    models/beam_on_beam/beam_on_beam.ini, the study's case, or when it is missing\n"
            "    bench/cases/beam_on_beam.ini): us per step, steps per second, CPU of the full\n"
            "    transient (extrapolated from a measured segment, and for subs-b measured once\n"
            "    with central differences and with exact propagation; not with --quick), FiLm\n"
            "    iterations per step, ratio to FiLm;\n"
            "  - modal vs dense physical path (time ratio, max relative history difference);\n"
            "  - CEA seconds per position;\n"
            "  - 'tvds reduce' wall time and peak memory on a generated 3D solid (beam 2 as\n"
            "    8-node hexahedra, 'tvds model block') at each size of --reduce-sizes\n"
            "    (default 1e4,1e5), beside the same reduction by scipy (bench/cb_scipy.py)\n"
            "    where python3-scipy is installed;\n"
            "  - per-step cost vs the number m of contact nodes (504-DoF track, m = 1 .. 16 and\n"
            "    128): quadratic and straight-line fits, the target m = 16 <= 10 us;\n"
            "  - per-step cost vs reduced size n (synthetic track, one sliding contact): linear\n"
            "    fit, slope and R^2;\n"
            "  - 3D node-to-face contact: us per step of a slider on a plate of 8 x 8 faces\n"
            "    (4-node and 9-node faces), subs-b and FiLm;\n"
            "  - the 3D beam-on-beam (models/beam_on_beam/beam_on_beam_3d.ini on the default\n"
            "    'tvds model beam-on-beam-3d' pair): us per step, subs-b and FiLm;\n"
            "  - sweep efficiency: 8 runs of the case on 1 and on 2 OpenMP workers, with the\n"
            "    load average (target >= 90 %% of ideal).\n"
            "\n"
            "options:\n"
            "  --case CASE     beam-on-beam case to time\n"
            "  --repeats R     runs per figure (median), default 3 (methods: at least 5)\n"
            "  --quick         short segments, small models (a smoke run, not a benchmark)\n"
            "  --large         also the set-up of reduced models of n = 2000, 3000, 5000\n"
            "                  (eigenbasis and flexibilities; a few minutes)\n"
            "  --reduce-sizes L  comma-separated DoF counts of the reduction rows (1e6 takes\n"
            "                  minutes: 'make bench BENCH_SIZES=1e4,1e5,1e6')\n"
            "  --only S        run one section only: 'reduce' (the reduction rows),\n"
            "                  'contacts' (per-step cost vs the number of contact nodes) or\n"
            "                  'cea-nodes' (the multi-node CEA rows; 600 DoFs unless --cea-dofs)\n"
            "                  or 'sweep' (sweep efficiency on 2 workers) or 'bob3d' (the 3D\n"
            "                  beam-on-beam rows)\n"
            "  --cea-dofs N    also time the CEA with 1, 10, 100 contact nodes on a generated\n"
            "                  chain of N DoFs, dense eigenanalysis (~N^3; 2000 takes minutes,\n"
            "                  left out above 2500) beside the shift-invert Arnoldi with\n"
            "                  its real shift and with a complex shift\n"
            "  --cea-solvers L the solvers of those rows, comma-separated: dense, arpack,\n"
            "                  complex (default all three)\n"
            "  --scipy-limit S stop scipy after S seconds (default 1800)\n"
            "  -o, --output D  output directory (created)\n"
            "  -h, --help      this help\n");
}

/* ---- Result table --------------------------------------------------------------------------- */

typedef struct brow {
    char section[32], item[64], unit[24], note[160];
    double value;
} brow;

typedef struct btab {
    brow r[128];
    int n;
} btab;

static void add(btab *t, const char *section, const char *item, double value, const char *unit,
                const char *fmt, ...) TVDS_PRINTF(6, 7);

static void add(btab *t, const char *section, const char *item, double value, const char *unit,
                const char *fmt, ...)
{
    if (t->n >= (int)(sizeof t->r / sizeof t->r[0])) return;
    brow *r = &t->r[t->n++];
    snprintf(r->section, sizeof r->section, "%s", section);
    snprintf(r->item, sizeof r->item, "%s", item);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->value = value;
    r->note[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->note, sizeof r->note, fmt, ap);
        va_end(ap);
    }
    printf("%-10s %-34s %14.6g %-10s %s\n", r->section, r->item, r->value, r->unit, r->note);
    fflush(stdout);
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int write_outputs(const btab *t, const char *dir, const char *machine, const char *case_path)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/bench.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "section,item,value,unit,note\n");
    for (int i = 0; i < t->n; i++) {
        const brow *r = &t->r[i];
        csv_field(f, r->section);
        fputc(',', f);
        csv_field(f, r->item);
        fprintf(f, ",%.9g,", r->value);
        csv_field(f, r->unit);
        fputc(',', f);
        csv_field(f, r->note);
        fputc('\n', f);
    }
    if (ferror(f) | fclose(f)) return -1;
    snprintf(path, sizeof path, "%s/bench.md", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f,
            "Machine: %s\n\nCase: %s\n\n| section | item | value | unit | note |\n"
            "|---|---|---|---|---|\n",
            machine, case_path);
    for (int i = 0; i < t->n; i++) {
        const brow *r = &t->r[i];
        fprintf(f, "| %s | %s | %.4g | %s | %s |\n", r->section, r->item, r->value, r->unit,
                r->note);
    }
    if (ferror(f) | fclose(f)) return -1;
    return 0;
}

/* ---- Helpers -------------------------------------------------------------------------------- */

/* Remove a directory tree that bench wrote (regular files and directories only). */
static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char sub[4400];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void machine_string(char *buf, size_t size)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    p[strcspn(p, "\n")] = '\0';
                    snprintf(model, sizeof model, "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tmv);
    snprintf(buf, size, "%s, %ld logical cores, tvds %s, %s", model, ncpu, TVDS_VERSION, date);
}

static int fail(const char *what, int rc, const tvds_ctx *ctx)
{
    fprintf(stderr, "tvds: bench: %s: %s\n", what, ctx->msg[0] ? ctx->msg : tvds_strerror(rc));
    return rc;
}

/* ---- Sections ------------------------------------------------------------------------------- */

static int bench_methods(btab *t, const char *case_path, int R, int quick)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    int rc = tvds_case_read(case_path, NULL, 0, &m, &ctx);
    if (rc) return fail(case_path, rc, &ctx);
    const long nseg = quick ? 4000 : 40000;
    tvds_bench_timing tm[TVDS_METHOD_COUNT];
    /* Methods interleaved run by run (a change of machine load then affects all of them
     * alike), at least 5 runs each: the ratios to FiLm are the point of this section. The
     * floor kernel (below) runs in the same rounds, after the methods of each: its ratio to
     * subs-b is formed round by round, numerator and denominator under the same conditions. */
    const int Rm = R < 5 ? 5 : R;
    double us[TVDS_METHOD_COUNT][16], it[TVDS_METHOD_COUNT][16], flr[16], rat[16];
    int ns = m->nsub < 8 ? m->nsub : 8, nn[8];
    for (int i = 0; i < ns; i++)
        nn[i] = m->subs[i]->n;
    for (int r = 0; r < Rm; r++) {
        for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
            m->opt.method = k;
            m->opt.modal = 1;
            if ((rc = tvds_bench_steps(m, nseg, NULL, 0, &tm[k], &ctx))) {
                fail(tvds_method_name(k), rc, &ctx);
                goto done;
            }
            us[k][r] = tm[k].us_per_step;
            it[k][r] = tm[k].film_iter_mean;
        }
        /* The floor: the same O(n) passes as one subs-b step, hand-written
         * (tvds_bench_floor). */
        if ((rc = tvds_bench_floor(ns, nn, nseg, 1, &flr[r], &ctx))) {
            fail("floor kernel", rc, &ctx);
            goto done;
        }
        rat[r] = us[TVDS_METHOD_SUBS_B][r] / flr[r];
    }
    for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
        tm[k].us_per_step = median(us[k], Rm);
        tm[k].film_iter_mean = median(it[k], Rm);
    }
    double nfull = m->opt.t_end / tm[0].dt;
    double film = tm[TVDS_METHOD_FILM].us_per_step;
    for (int k = 0; k < TVDS_METHOD_COUNT; k++) {
        const char *nm = tvds_method_name(k);
        char item[64];
        snprintf(item, sizeof item, "%s us/step", nm);
        add(t, "method", item, tm[k].us_per_step, "us",
            "median of %d x %ld steps (methods interleaved), dt %.4g s", Rm, nseg, tm[k].dt);
        snprintf(item, sizeof item, "%s steps/s", nm);
        add(t, "method", item, 1e6 / tm[k].us_per_step, "1/s", NULL);
        snprintf(item, sizeof item, "%s full transient", nm);
        add(t, "method", item, nfull * tm[k].us_per_step * 1e-6, "s",
            "extrapolated: %.0f steps to t_end %g s at the measured rate", nfull, m->opt.t_end);
        if (k == TVDS_METHOD_FILM) {
            add(t, "method", "film iterations/step", tm[k].film_iter_mean, "-", NULL);
        } else {
            snprintf(item, sizeof item, "%s / film", nm);
            add(t, "method", item, tm[k].us_per_step / film, "-", "same run");
        }
    }
    add(t, "method", "setup (tvds_data_create)", tm[0].setup_seconds, "s", "eigenbases etc.");
    {
        double fl = median(flr, Rm), b = tm[TVDS_METHOD_SUBS_B].us_per_step;
        add(t, "floor", "floor kernel us/step", fl, "us",
            "predictor, 3 dots, 2 corrections, work sums per substructure; median of %d x %ld, "
            "each run after the methods of a round",
            Rm, nseg);
        add(t, "floor", "subs-b / floor", median(rat, Rm), "-",
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
        if ((rc = tvds_bench_segments(m, 4000, 10, useg, &ts, &ctx))) {
            fail("subs-b segments", rc, &ctx);
            goto done;
        }
        char list[96];
        int len = 0;
        for (int k = 0; k < 10; k++) {
            if (k == 0 || useg[k] < lo) lo = useg[k];
            if (k == 0 || useg[k] > hi) hi = useg[k];
            len += snprintf(list + len, sizeof list - (size_t)len, "%s%.2f", k ? " " : "",
                            useg[k]);
            if (len >= (int)sizeof list) break;
        }
        add(t, "floor", "subs-b fastest 1 ms / floor", lo / fl, "-",
            "10 segments of 4000 steps from rest, us/step: %s", list);
        add(t, "floor", "subs-b slowest 1 ms / floor", hi / fl, "-", "same segments");
    }
    /* Exact modal propagation (docs/theory.md 10b): the same steps, then the step of the band
     * of interest (f_band = 11 kHz, above the 10.6 kHz squeal pair) over the whole transient. */
    {
        tvds_bench_timing te;
        double ue[16];
        m->opt.method = TVDS_METHOD_SUBS_B;
        m->opt.integrator = TVDS_INTEGRATOR_EXACT;
        int auto0 = m->opt.dt_auto;
        double dt0 = m->opt.dt;
        m->opt.dt_auto = 0;
        m->opt.dt = tm[0].dt;
        for (int r = 0; r < Rm && !rc; r++) {
            rc = tvds_bench_steps(m, nseg, NULL, 0, &te, &ctx);
            ue[r] = te.us_per_step;
        }
        double u1 = median(ue, Rm);
        m->opt.dt_auto = 1;
        m->opt.f_band = 11e3;
        for (int r = 0; r < Rm && !rc; r++) {
            rc = tvds_bench_steps(m, nseg, NULL, 0, &te, &ctx);
            ue[r] = te.us_per_step;
        }
        m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
        m->opt.dt_auto = auto0;
        m->opt.dt = dt0;
        if (rc) {
            fail("exact integrator", rc, &ctx);
            goto done;
        }
        double u2 = median(ue, Rm), ne = m->opt.t_end / te.dt;
        add(t, "exact", "subs-b exact us/step", u1, "us", "integrator = exact, dt %.4g s",
            tm[0].dt);
        add(t, "exact", "exact / central", u1 / tm[TVDS_METHOD_SUBS_B].us_per_step, "-",
            "same steps, same run");
        add(t, "exact", "subs-b exact f_band 11 kHz us/step", u2, "us", "dt = auto = %.4g s",
            te.dt);
        add(t, "exact", "subs-b exact full transient", ne * u2 * 1e-6, "s",
            "extrapolated: %.0f steps to t_end %g s", ne, m->opt.t_end);
    }
    /* The paper-length transient itself, once per integrator (the rows above extrapolate the
     * first 10 ms, the preload ramp, whose steps cost less than the sliding ones): CPU of the
     * stepping loop, recording as a run does. Not in the quick bench. */
    double full_cd = -1.0, full_ex = -1.0;
    if (!quick) {
        tvds_bench_timing tf;
        m->opt.method = TVDS_METHOD_SUBS_B;
        long nst = (long)ceil(m->opt.t_end / tm[0].dt - 1e-9);
        rc = tvds_bench_steps(m, nst, NULL, 0, &tf, &ctx);
        if (!rc) {
            full_cd = tf.loop_cpu_seconds;
            add(t, "method", "subs-b full transient, measured", full_cd, "s",
                "%ld steps to t_end %g s, CPU of the stepping loop, one run", tf.steps,
                m->opt.t_end);
            int auto0 = m->opt.dt_auto;
            m->opt.integrator = TVDS_INTEGRATOR_EXACT;
            m->opt.dt_auto = 1;
            m->opt.f_band = 11e3;
            rc = tvds_bench_steps(m, 0, NULL, 0, &tf, &ctx); /* its automatic step */
            double dte = tf.dt;
            if (!rc) rc = tvds_bench_steps(m, (long)ceil(m->opt.t_end / dte - 1e-9), NULL, 0, &tf,
                                           &ctx);
            m->opt.integrator = TVDS_INTEGRATOR_CENTRAL;
            m->opt.dt_auto = auto0;
            if (!rc) {
                full_ex = tf.loop_cpu_seconds;
                add(t, "exact", "subs-b exact full transient, measured", full_ex, "s",
                    "%ld steps of %.4g s to t_end %g s, f_band 11 kHz, one run", tf.steps, dte,
                    m->opt.t_end);
            }
        }
        if (rc) {
            fail("full transient", rc, &ctx);
            goto done;
        }
    }
    {
        double b = tm[TVDS_METHOD_SUBS_B].us_per_step;
        add(t, "target", "subs-b <= 2 us/step", b, "us", "%s", b <= 2.0 ? "met" : "missed");
        if (full_cd >= 0.0)
            add(t, "target", "full transient < 60 s (subs-b)", full_cd, "s", "%s",
                full_cd < 60.0 ? "met (measured)" : "missed (measured)");
        else
            add(t, "target", "full transient < 60 s (subs-b)", nfull * b * 1e-6, "s", "%s",
                nfull * b * 1e-6 < 60.0 ? "met (extrapolated)" : "missed (extrapolated)");
        if (full_ex >= 0.0)
            add(t, "target", "full transient < 1 s (subs-b, exact, f_band 11 kHz)", full_ex, "s",
                "%s", full_ex < 1.0 ? "met (measured)" : "missed (measured)");
        add(t, "target", "subs-b no slower than film", b / film, "-", "%s",
            b <= film ? "met" : "missed");
    }

    /* Modal vs dense physical path: subs-b, same segment, histories compared. */
    {
        const long nh = quick ? 2000 : 20000;
        const int nc = 8;
        double *ha = tvds_malloc((size_t)nh * nc * sizeof *ha);
        double *hb = tvds_malloc((size_t)nh * nc * sizeof *hb);
        if (!ha || !hb) {
            tvds_free(ha);
            tvds_free(hb);
            rc = TVDS_ERR_NOMEM;
            goto done;
        }
        double um[16], up[16];
        tvds_bench_timing a, b;
        m->opt.method = TVDS_METHOD_SUBS_B;
        for (int r = 0; r < R && r < 16 && !rc; r++) {
            m->opt.modal = 1;
            rc = tvds_bench_steps(m, nh, ha, nc, &a, &ctx);
            m->opt.modal = 0;
            if (!rc) rc = tvds_bench_steps(m, nh, hb, nc, &b, &ctx);
            um[r] = a.us_per_step;
            up[r] = b.us_per_step;
        }
        m->opt.modal = 1;
        if (rc) {
            fail("modal vs physical", rc, &ctx);
            tvds_free(ha);
            tvds_free(hb);
            goto done;
        }
        int nch = 0;
        {
            tvds_data *d = NULL;
            if (tvds_data_create(m, &d, &ctx) == TVDS_OK)
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
        double mu = median(um, R < 16 ? R : 16), pu = median(up, R < 16 ? R : 16);
        add(t, "path", "subs-b modal us/step", mu, "us", "median of %d x %ld steps", R, nh);
        add(t, "path", "subs-b physical us/step", pu, "us", "dense M^-1, same steps");
        add(t, "path", "physical / modal", pu / mu, "-", NULL);
        add(t, "path", "max rel. history difference", worst, "-",
            "max abs(modal - physical) / peak over %d history channels", nch - 1);
        tvds_free(ha);
        tvds_free(hb);
    }

    /* CEA: seconds per position, one thread. */
    {
        double L = 0.0;
        if ((rc = tvds_cea_surface_length(m, 0, &L, &ctx))) {
            fail("cea", rc, &ctx);
            rc = TVDS_OK; /* CEA is optional in the table */
            goto done;
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
            int rc2 = tvds_cea_run(m, 0, s, npos, &o, &res, &ctx);
            sec[r] = (tvds_bench_now() - t0) / npos;
            tvds_cea_result_free(&res);
            if (rc2) {
                fail("cea", rc2, &ctx);
                goto done;
            }
        }
        add(t, "cea", "seconds per position", median(sec, R < 16 ? R : 16), "s",
            "1 thread, %d positions, 20 branches", npos);
    }
done:
    tvds_model_free(&m);
    return rc;
}

/* Multi-node CEA (opt-in, --cea-dofs N): seconds per position with m = 1, 10, 100 active
 * contact nodes on tvds_bench_cea_chain(N, m), about the preloaded state, the dense
 * eigenproblem (standard form, dgeev), the shift-invert Arnoldi (ARPACK) with its real shift and
 * with the complex shift at the chain's ground-spring frequency (the bottom of its spectrum,
 * tvds_bench_cea_chain) side by side in the same run; the dense one is left out above
 * CEA_DENSE_MAX DoFs, where one position takes a quarter of an hour and 3 GB more
 * (docs/cea.md, "Cost"). which: bit k runs solver k (1 dense, 2 real shift, 4 complex). */
#define CEA_DENSE_MAX 2500
static double load1(void);
static int bench_cea_nodes(btab *t, int N, int R, int which)
{
    static const char *const kname[3] = {"dense", "arpack", "arpack complex shift"};
    const int counts[3] = {1, 10, 100};
    double l0 = load1();
    int reps = R < 16 ? R : 16;
    for (int q = 0; q < 3; q++) {
        if (counts[q] > N / 4) break;
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        tvds_model *m = tvds_bench_cea_chain(N, counts[q]);
        if (!m) return TVDS_ERR_NOMEM;
        tvds_cea_options o = tvds_cea_options_default();
        o.nthreads = 1;
        o.refine = 0;
        o.t_eval = 0.5;
        o.slave = TVDS_CEA_ALL_SLAVES;
        double s[2] = {0.0, 1.0}, sec[3] = {NAN, NAN, NAN}, cpu[3] = {NAN, NAN, NAN};
        tvds_cea_result *keep[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++) {
            if (!(which & (1 << k)) || (k == 0 && N > CEA_DENSE_MAX)) continue;
            o.solver = k == 0 ? TVDS_CEA_STANDARD : TVDS_CEA_ARPACK;
            o.shift_hz = k == 2 ? TVDS_BENCH_CEA_CHAIN_FG : 0.0;
            double v[16], c[16];
            for (int r = 0; r < reps; r++) {
                tvds_cea_result *res = NULL;
                double t0 = tvds_bench_now(), c0 = tvds_bench_thread_cpu();
                int rc = tvds_cea_run(m, 0, s, 2, &o, &res, &ctx);
                v[r] = (tvds_bench_now() - t0) / 2;
                c[r] = (tvds_bench_thread_cpu() - c0) / 2;
                if (rc) {
                    fail("cea-nodes", rc, &ctx);
                    tvds_model_free(&m);
                    for (int j = 0; j < 3; j++)
                        tvds_cea_result_free(&keep[j]);
                    return rc;
                }
                if (r == 0)
                    keep[k] = res;
                else
                    tvds_cea_result_free(&res);
            }
            sec[k] = median(v, reps);
            cpu[k] = median(c, reps);
        }
        char item[64];
        for (int k = 0; k < 3; k++) {
            if (!(which & (1 << k))) continue;
            snprintf(item, sizeof item, "%d nodes: %s, s per position", counts[q], kname[k]);
            if (!keep[k]) {
                add(t, "cea-nodes", item, NAN, "s", "not run above %d DoFs", CEA_DENSE_MAX);
            } else if (k == 0) {
                add(t, "cea-nodes", item, sec[0], "s",
                    "%d DoFs, 1 thread, 20 branches, dgeev; CPU %.3g s", N, cpu[0]);
            } else {
                add(t, "cea-nodes", item, sec[k], "s",
                    "%d DoFs, %.0f operator applications, %d run(s); CPU %.3g s", N,
                    keep[k]->arpack_nops, keep[k]->arpack_attempts, cpu[k]);
            }
        }
        /* Against the dense result, else the real shift's: time ratio and the largest relative
         * frequency difference. */
        for (int k = 1; k < 3; k++) {
            int ref = keep[0] ? 0 : (k == 2 && keep[1] ? 1 : -1);
            if (!keep[k] || ref < 0) continue;
            int nb = keep[ref]->nbranch < keep[k]->nbranch ? keep[ref]->nbranch : keep[k]->nbranch;
            double dev = 0.0;
            for (int i2 = 0; i2 < keep[ref]->npos * nb; i2++) {
                double d = fabs(keep[k]->freq[i2] - keep[ref]->freq[i2]) / keep[ref]->freq[i2];
                if (!(d <= dev)) dev = d;
            }
            snprintf(item, sizeof item, "%d nodes: %s / %s time", counts[q],
                     ref ? "arpack" : "dense", k == 2 ? "complex shift" : "arpack");
            add(t, "cea-nodes", item, sec[ref] / sec[k], "x",
                "same run (CPU ratio %.3g); largest relative frequency difference %.1e",
                cpu[ref] / cpu[k], dev);
        }
        for (int k = 0; k < 3; k++)
            tvds_cea_result_free(&keep[k]);
        tvds_model_free(&m);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        add(t, "cea-nodes", "peak RSS of the bench process", (double)ru.ru_maxrss / 1048576.0,
            "GiB", "%s",
            N > CEA_DENSE_MAX || !(which & 1) ? "arpack only" : "dense workspace included");
    add(t, "cea-nodes", "load average after", load1(), "", "%.2f before", l0);
    return TVDS_OK;
}

/* Run argv as a child (stdout to log) with an address-space limit (bytes, 0: none) and a wall
 * limit (s); *wall, *maxrss_kib (of that child alone, wait4) on return. 0 ok, 1 failed, 2 timed
 * out (the child is killed). */
static int run_child(char *const argv[], const char *log, double limit_bytes, double limit_s,
                     double *wall, double *cpu, long *maxrss_kib)
{
    double t0 = tvds_bench_now();
    fflush(stdout); /* or the child would write the parent's pending output again */
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        if (!freopen(log, "w", stdout)) _exit(127);
        if (limit_bytes > 0) {
            struct rlimit rl = {(rlim_t)limit_bytes, (rlim_t)limit_bytes};
            setrlimit(RLIMIT_AS, &rl);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st = 0, timed_out = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        pid_t w = wait4(pid, &st, WNOHANG, &ru);
        if (w == pid) break;
        if (w < 0) return 1;
        if (limit_s > 0 && tvds_bench_now() - t0 > limit_s && !timed_out) {
            kill(pid, SIGKILL);
            timed_out = 1;
        }
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    *wall = tvds_bench_now() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    *maxrss_kib = ru.ru_maxrss;
    if (timed_out) return 2;
    return (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 0 : 1;
}

static double load1(void)
{
    double l = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1.0;
        fclose(f);
    }
    return l;
}

/* The python with scipy: Debian's /usr/bin/python3 first (another python3 may come first on
 * PATH without it), NULL when none imports scipy. */
static const char *scipy_python(void)
{
    static const char *const cand[] = {"/usr/bin/python3", "python3"};
    for (int i = 0; i < 2; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import scipy.sparse.linalg' >/dev/null 2>&1", cand[i]);
        if (system(cmd) == 0) return cand[i];
    }
    return NULL;
}

/* Max relative difference between the modal frequencies of the tvds output (dofs.txt of the
 * reduced substructure) and scipy's "f=" list. */
static double freq_agreement(const char *red, const char *scipy_log)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_substructure *s = NULL;
    if (tvds_substructure_read(red, NULL, &s, &ctx) != TVDS_OK) return -1.0;
    double worst = -1.0;
    FILE *f = fopen(scipy_log, "r");
    char line[8192];
    const char *fp = NULL;
    while (f && fgets(line, sizeof line, f))
        if ((fp = strstr(line, " f="))) break;
    if (f) fclose(f);
    if (fp) {
        char *p = (char *)fp + 3, *end;
        for (int k = 0; k < s->n; k++) {
            if (s->dofs[k].kind != TVDS_DOF_MODAL) continue;
            double v = strtod(p, &end);
            if (end == p) break;
            worst = fmax(worst, fabs(s->dofs[k].freq_hz / v - 1.0));
            p = *end == ',' ? end + 1 : end;
        }
    }
    tvds_substructure_free(&s);
    return worst;
}

/* Echo the stage lines of a child's log ('tvds reduce --verbose'), which the table leaves out. */
static void print_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        fputs(line, stdout);
    if (f) fclose(f);
}

/* `tvds reduce` of the generated 3D solid (beam 2 as hexahedra, `tvds model block`) at each
 * size, boundary = the 10 x 10-node patch (300 DoFs), 20 modes, as a child process; beside it
 * the same reduction by scipy (bench/cb_scipy.py) when scipy is installed. */
static int bench_reduce(btab *t, const char *dir, const char *sizes, double scipy_limit_s)
{
    char self[4096];
    ssize_t ls = readlink("/proc/self/exe", self, sizeof self - 1);
    if (ls <= 0) return TVDS_ERR_IO;
    self[ls] = '\0';
    const char *py = scipy_python();
    const char *script = access("bench/cb_scipy.py", R_OK) == 0 ? "bench/cb_scipy.py" : NULL;
    if (!py || !script)
        printf("reduce: scipy comparison skipped: %s\n",
               !script ? "bench/cb_scipy.py not found (run from the source tree)"
                       : "no python3 with scipy (Debian python3-scipy; 'make bench' installs it)");
    /* scipy's memory is capped below the machine's so that a fill-in it cannot hold fails
     * in its own process (MemoryError) instead of pushing the machine into swap. */
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double cap = phys > 0 ? 0.5 * phys : 0;
    char *list = tvds_strdup(sizes), *save = NULL;
    if (!list) return TVDS_ERR_NOMEM;
    int rc = TVDS_OK;
    for (char *it = strtok_r(list, ",", &save); it && !rc; it = strtok_r(NULL, ",", &save)) {
        double want;
        if (tvds_cli_parse_double(it, &want) || want < 1e3 || want > 1e8) {
            fprintf(stderr, "tvds: bench: --reduce-sizes: '%s' is not a size in 1e3 .. 1e8\n", it);
            rc = TVDS_ERR_INVALID;
            break;
        }
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        cholmod_common cc;
        if (tvds_cholmod_start(&cc) != TVDS_OK) {
            rc = TVDS_ERR_SOLVER;
            break;
        }
        tvds_block_params bp = tvds_block_default();
        tvds_block_size_for(&bp, want);
        tvds_fe_model *fe = NULL;
        char full[4200], red[4200], logp[4200], slog[4200], nm[16];
        snprintf(full, sizeof full, "%s/block_%s", dir, it);
        snprintf(red, sizeof red, "%s/block_%s_cb", dir, it);
        snprintf(logp, sizeof logp, "%s/reduce_%s.log", dir, it);
        snprintf(slog, sizeof slog, "%s/scipy_%s.log", dir, it);
        double tg = tvds_bench_now();
        rc = tvds_block_build(&bp, &fe, &cc, &ctx);
        if (!rc) rc = tvds_fe_model_write(fe, full, &ctx);
        int n = fe ? fe->n : 0;
        tvds_fe_model_free(&fe, &cc);
        cholmod_finish(&cc);
        if (rc) {
            fail("reduce model", rc, &ctx);
            break;
        }
        tg = tvds_bench_now() - tg;
        double la = load1(), wall = 0, swall = 0, cpu = 0, scpu = 0;
        long rss = 0, srss = 0;
        char *targv[] = {self,      "reduce", "--model", full, "--boundary", "patch",
                         "--modes", "20",     "-o",      red,  "--verbose",  NULL};
        if (run_child(targv, logp, 0, 0, &wall, &cpu, &rss) != 0) {
            fprintf(stderr, "tvds: bench: 'tvds reduce' failed (log %s)\n", logp);
            rc = TVDS_ERR_SOLVER;
            break;
        }
        snprintf(nm, sizeof nm, "n=%.3g", (double)n);
        char item[64];
        snprintf(item, sizeof item, "%s tvds reduce wall", nm);
        add(t, "reduce", item, wall, "s",
            "block %dx%dx%d hex8, %d DoFs, 300 boundary + 20 modes, whole command, CPU %.1f s; "
            "load %.2f",
            bp.nx, bp.ny, bp.nz, n, cpu, la);
        snprintf(item, sizeof item, "%s tvds reduce peak memory", nm);
        add(t, "reduce", item, rss / 1024.0, "MiB", "max RSS of the child (wait4)");
        if (py && script) {
            char *sargv[] = {(char *)py, (char *)script, full, "patch", "20", NULL};
            int sr = run_child(sargv, slog, cap, scipy_limit_s, &swall, &scpu, &srss);
            snprintf(item, sizeof item, "%s scipy wall", nm);
            if (sr == 0) {
                double agree = freq_agreement(red, slog);
                add(t, "reduce", item, swall, "s",
                    "bench/cb_scipy.py: splu + eigsh shift-invert, same model, CPU %.1f s; "
                    "load %.2f",
                    scpu, load1());
                snprintf(item, sizeof item, "%s scipy peak memory", nm);
                add(t, "reduce", item, srss / 1024.0, "MiB", "max RSS of the child (wait4)");
                snprintf(item, sizeof item, "%s tvds / scipy wall", nm);
                add(t, "reduce", item, wall / swall, "-", "%s",
                    wall < swall ? "tvds faster" : "scipy faster");
                snprintf(item, sizeof item, "%s max rel. freq. difference", nm);
                add(t, "reduce", item, agree, "-", "20 fixed-interface modes, tvds vs scipy");
            } else {
                add(t, "reduce", item, swall, "s", "%s (log %s)",
                    sr == 2 ? "stopped at the time limit" : "failed (memory cap or error)", slog);
            }
        }
        printf("reduce: generated %d DoFs in %.1f s\n", n, tg);
        print_log(logp);
        rm_tree(full);
        rm_tree(red);
    }
    tvds_free(list);
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
        if (rc) return fail(path, rc, &ctx);
        char item[64];
        snprintf(item, sizeof item, "%s %s us/step", what, tvds_method_name(methods[k]));
        add(t, "3d", item, tm.us_per_step, "us", "%s, n = %d, median of %d segments of %ld steps%s",
            desc, n, R, nst, tail);
    }
    return TVDS_OK;
}

/* 3D node-to-face contact: a slider on a plate of 8 x 8 faces (tvds_bench_plate_write), per
 * face kind and method. */
static int bench_plate(btab *t, const char *dir, int R, int quick)
{
    static const int kinds[2] = {4, 9};
    for (int i = 0; i < 2; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/plate_%d", dir, kinds[i]);
        int rc = tvds_bench_plate_write(sub, 8, kinds[i], cpath, sizeof cpath, &ctx);
        if (rc) return fail("plate model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return fail(cpath, rc, &ctx);
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
static int bench_bob3d(btab *t, const char *dir, int R, int quick)
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
    if (rc) return fail("cholmod", rc, &ctx);
    tvds_cholmod_ctx(&ctx);
    rc = tvds_bob3d_write(&p, sub, NULL, &cc, &ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return fail("3D beam-on-beam model", rc, &ctx);
    snprintf(o[0], sizeof o[0], "substructure.beam1.dir=%s/beam1", sub);
    snprintf(o[1], sizeof o[1], "substructure.beam2.dir=%s/beam2", sub);
    const char *ov[2] = {o[0], o[1]};
    tvds_model *m = NULL;
    if ((rc = tvds_case_read(case3d, ov, 2, &m, &ctx))) return fail(case3d, rc, &ctx);
    rc = bench_two_methods(t, m, case3d, R, quick, "beam-on-beam 3D", "5 tip nodes on 196 faces",
                           " from rest");
    tvds_model_free(&m);
    return rc;
}

/* Sweep efficiency on 2 workers (target: >= 90 % of ideal): the same 8-point sweep of the
 * case run in this process on 1 and on 2 OpenMP workers, alternately, R times each; the
 * efficiency is wall(1) / (2 wall(2)) from the medians. The load average before the section is
 * recorded with it: on a machine shared with other jobs the figure says more about the load. */
static int bench_sweep(btab *t, const char *case_path, int R, int quick)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2) return TVDS_OK;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_sweep_axis ax;
    int rc = tvds_sweep_axis_parse("substructure.beam2.beta=2e-8:6e-8:8", &ax, &ctx);
    if (rc) return fail("sweep axis", rc, &ctx);
    const char *sets[1] = {quick ? "run.t_end=0.005" : "run.t_end=0.05"};
    tvds_sweep_row rows[8];
    double w[2][16];
    int reps = R < 16 ? R : 16;
    double l0 = load1();
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
            if (rc) return fail("sweep", rc, &ctx);
        }
    }
    double l1 = load1();
    double w1 = median(w[0], reps), w2 = median(w[1], reps);
    add(t, "sweep", "8 runs, 1 worker wall", w1, "s", "%s, median of %d", sets[0], reps);
    add(t, "sweep", "8 runs, 2 workers wall", w2, "s", "%s, median of %d", sets[0], reps);
    add(t, "sweep", "efficiency on 2 workers", 100.0 * w1 / (2.0 * w2), "%",
        "wall(1) / (2 wall(2)); target >= 90; load average %.2f before, %.2f after", l0, l1);
    return TVDS_OK;
}

/* Per-step cost vs reduced size n (modal path, subs-b), and physical path for small n. */
static int bench_size(btab *t, const char *dir, int R, int quick)
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
            return fail("synthetic model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return fail(cpath, rc, &ctx);
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
            return fail(cpath, rc, &ctx);
        }
        xs[i] = n;
        ys[i] = tm.us_per_step;
        char item[64];
        snprintf(item, sizeof item, "n = %d modal us/step", n);
        add(t, "size", item, tm.us_per_step, "us",
            "subs-b, median of %d consecutive segments of %ld steps, setup %.3g s", R, nst,
            tm.setup_seconds);
        if (sizes[i] <= 500) {
            m->opt.modal = 0;
            long np = nst / 4;
            if ((rc = tvds_bench_segments(m, np, R, useg, &tm, &ctx))) {
                tvds_model_free(&m);
                return fail(cpath, rc, &ctx);
            }
            snprintf(item, sizeof item, "n = %d physical us/step", n);
            add(t, "size", item, tm.us_per_step, "us",
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
    add(t, "size", "modal fit slope", 1e3 * b, "ns/DoF", "us/step = a + b n, least squares");
    add(t, "size", "modal fit intercept", a, "us", NULL);
    add(t, "size", "modal fit R^2", r2, "-", "n = %g .. %g", xs[0], xs[ns - 1]);
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
static int bench_contacts(btab *t, const char *dir, int R, int quick)
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
        if (rc) return fail("synthetic pad model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return fail(cpath, rc, &ctx);
        m->opt.method = TVDS_METHOD_SUBS_B;
        long nst = quick ? 500 : ms[i] >= 128 ? 1000 : 10000;
        tvds_bench_timing tm;
        double useg[16];
        rc = tvds_bench_segments(m, nst, R, useg, &tm, &ctx);
        tvds_model_free(&m);
        if (rc) return fail(cpath, rc, &ctx);
        us[i] = tm.us_per_step;
        char item[64];
        snprintf(item, sizeof item, "m = %d us/step", ms[i]);
        add(t, "contacts", item, us[i], "us",
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
        if (rc) return fail(cpath, rc, &ctx);
        m->opt.method = TVDS_METHOD_SUBS_B;
        m->opt.modal = TVDS_PATH_MODAL;
        tvds_bench_timing tm;
        double useg[16];
        rc = tvds_bench_segments(m, quick ? 500 : 10000, R, useg, &tm, &ctx);
        tvds_model_free(&m);
        if (rc) return fail(cpath, rc, &ctx);
        add(t, "contacts", "m = 16 modal path us/step", tm.us_per_step, "us",
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
    add(t, "contacts", "fit a (us = a + b m + c m^2)", c[0], "us",
        "least squares, m = 1 .. %d: us = %.3g + %.3g m + %.3g m^2", ms[nf - 1], c[0], c[1], c[2]);
    add(t, "contacts", "fit b", c[1], "us", NULL);
    add(t, "contacts", "fit c", c[2], "us", NULL);
    /* The straight line over the same points: the law when the contact work is linear in m. */
    double s1 = 0, sm = 0, sy = 0, smm = 0, smy = 0;
    for (int i = 0; i < nf; i++) {
        s1 += 1.0, sm += ms[i], sy += us[i], smm += (double)ms[i] * ms[i], smy += ms[i] * us[i];
    }
    double lb = (s1 * smy - sm * sy) / (s1 * smm - sm * sm), la = (sy - lb * sm) / s1;
    add(t, "contacts", "line a (us = a + b m)", la, "us",
        "least squares, m = 1 .. %d: us = %.3g + %.3g m", ms[nf - 1], la, lb);
    add(t, "contacts", "line b", lb, "us", NULL);
    if (nm == 6) {
        double pred = c[0] + c[1] * 128 + c[2] * 128.0 * 128.0;
        add(t, "contacts", "m = 128 / fit", us[5] / pred, "-", "fit extrapolated: %.4g us", pred);
        add(t, "contacts", "m = 128 / line", us[5] / (la + lb * 128), "-",
            "line extrapolated: %.4g us", la + lb * 128);
        add(t, "contacts", "exponent m = 16 -> 128", log(us[5] / us[4]) / log(8.0), "-",
            "log(us(128) / us(16)) / log 8");
    }
    if (nm >= 5)
        add(t, "target", "m = 16 contacts <= 10 us/step", us[4], "us", "%s",
            us[4] <= 10.0 ? "met" : "missed");
    return TVDS_OK;
}

/* Set-up of large reduced models (opt-in, --large): tvds_data_create of the synthetic track
 * with n = 2000, 3000, 5000 (all n DoFs retained and candidates of the master surface): the
 * eigenbasis (dsygvd, O(n^3)) and the candidate flexibility G (BLAS dsyrk, O(n^3)). */
static int bench_setup_large(btab *t, const char *dir)
{
    static const int sizes[] = {2000, 3000, 5000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        tvds_ctx ctx;
        tvds_ctx_init(&ctx);
        char sub[4200], cpath[4300];
        snprintf(sub, sizeof sub, "%s/large_%d", dir, sizes[i]);
        int rc = tvds_bench_synthetic_write(sub, sizes[i], cpath, sizeof cpath, &ctx);
        if (rc) return fail("synthetic model", rc, &ctx);
        tvds_model *m = NULL;
        if ((rc = tvds_case_read(cpath, NULL, 0, &m, &ctx))) return fail(cpath, rc, &ctx);
        int n = 0;
        for (int s = 0; s < m->nsub; s++)
            n += m->subs[s]->n;
        tvds_bench_timing tm;
        double c0 = tvds_bench_thread_cpu();
        rc = tvds_bench_steps(m, 10, NULL, 0, &tm, &ctx);
        double cpu = tvds_bench_thread_cpu() - c0;
        tvds_model_free(&m);
        if (rc) return fail(cpath, rc, &ctx);
        char item[64];
        snprintf(item, sizeof item, "n = %d setup wall", n);
        add(t, "setup", item, tm.setup_seconds, "s",
            "tvds_data_create: eigenbasis + candidate flexibility (%d candidates)", sizes[i]);
        snprintf(item, sizeof item, "n = %d setup CPU", n);
        add(t, "setup", item, cpu, "s", "CPU of the calling thread (BLAS threads not counted)");
    }
    return TVDS_OK;
}

int tvds_cmd_bench(int argc, char **argv)
{
    /* The study's case when it is there, else the bench's own copy of the same model. */
    const char *outdir = "bench/results", *val;
    const char *case_path = access("models/beam_on_beam/beam_on_beam.ini", R_OK) == 0
                                ? "models/beam_on_beam/beam_on_beam.ini"
                                : "bench/cases/beam_on_beam.ini";
    int R = 3, quick = 0, large = 0, cea_dofs = 0, cea_which = 7;
    const char *rsizes = NULL, *only = NULL, *cea_solvers = NULL;
    double scipy_limit = 1800.0;
    const tvds_cli_opt opts[] = {{"--quick", NULL, NULL, &quick, 1},
                                 {"--large", NULL, NULL, &large, 1},
                                 {"--reduce-sizes", NULL, &rsizes, NULL, 0},
                                 {"--only", NULL, &only, NULL, 0},
                                 {"--cea-solvers", NULL, &cea_solvers, NULL, 0},
                                 {"--output", "-o", &outdir, NULL, 0},
                                 {"--case", NULL, &case_path, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (tvds_cli_is_help(a)) {
            bench_help(stdout);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) return 2;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--repeats", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_int(val, &R) || R < 1 || R > 15)
                return tvds_cli_usage_error("bench: --repeats %s: need an integer in 1..15", val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--cea-dofs", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_int(val, &cea_dofs) || cea_dofs < 8 || cea_dofs > 10000)
                return tvds_cli_usage_error("bench: --cea-dofs %s: need an integer in 8..10000",
                                            val);
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--scipy-limit", NULL, &val)) != 0) {
            if (r < 0) return 2;
            if (tvds_cli_parse_double(val, &scipy_limit) || scipy_limit <= 0)
                return tvds_cli_usage_error("bench: --scipy-limit %s: need seconds > 0", val);
        } else {
            return tvds_cli_usage_error("bench: unexpected argument '%s' (see 'tvds bench "
                                        "--help')",
                                        a);
        }
    }
    if (cea_solvers) {
        cea_which = 0;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", cea_solvers);
        for (char *sv = NULL, *tok = strtok_r(buf, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
            if (strcmp(tok, "dense") == 0)
                cea_which |= 1;
            else if (strcmp(tok, "arpack") == 0)
                cea_which |= 2;
            else if (strcmp(tok, "complex") == 0)
                cea_which |= 4;
            else
                return tvds_cli_usage_error("bench: --cea-solvers %s: expected a comma-separated "
                                            "list of dense, arpack, complex",
                                            cea_solvers);
        }
        if (!cea_which)
            return tvds_cli_usage_error("bench: --cea-solvers: name at least one solver");
    }
    /* A case that cannot be read is one error line before anything runs. */
    tvds_ctx ctx;
    tvds_model *m = NULL;
    tvds_cli_sets none = {0};
    int code = tvds_cli_read_case(case_path, &none, &m, &ctx);
    tvds_model_free(&m);
    if (code) return code;
    if ((code = tvds_mkdir_p(outdir, &ctx)) != 0) return tvds_cli_report(code, &ctx);
    /* Generated models (the 1e5-DoF solid is ~180 MB, 1e6 2 GB) go to a temporary directory. */
    const char *tmp = getenv("TMPDIR");
    char work[1024];
    snprintf(work, sizeof work, "%s/tvds_bench_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work))
        return tvds_cli_usage_error("bench: cannot create a directory in %s: %s",
                                    tmp && *tmp ? tmp : "/tmp", strerror(errno));
    char machine[512];
    machine_string(machine, sizeof machine);
    printf("tvds bench on %s%s\ncase %s\n", machine, quick ? " (--quick: smoke run)" : "",
           case_path);
    printf("%-10s %-34s %14s %-10s %s\n", "section", "item", "value", "unit", "note");
    btab *t = calloc(1, sizeof *t);
    if (!t) return 1;
    double t0 = tvds_bench_now();
    int only_contacts = only && strcmp(only, "contacts") == 0;
    int only_cea = only && strcmp(only, "cea-nodes") == 0;
    int only_sweep = only && strcmp(only, "sweep") == 0;
    int only_bob3d = only && strcmp(only, "bob3d") == 0;
    if (only && strcmp(only, "reduce") != 0 && !only_contacts && !only_cea && !only_sweep &&
        !only_bob3d) {
        free(t);
        rm_tree(work);
        return tvds_cli_usage_error("bench: --only %s: the sections that run alone are "
                                    "'reduce', 'contacts', 'cea-nodes', 'sweep' and 'bob3d'",
                                    only);
    }
    if (only_cea && !cea_dofs) cea_dofs = 600;
    if (!rsizes) rsizes = quick ? "1e4" : "1e4,1e5";
    int rc = only ? TVDS_OK : bench_methods(t, case_path, R, quick);
    if (!rc && !only_contacts && !only_cea && !only_sweep && !only_bob3d)
        rc = bench_reduce(t, work, rsizes, scipy_limit);
    if (!rc && !only) rc = bench_size(t, work, R, quick);
    if (!rc && (!only || only_contacts)) rc = bench_contacts(t, work, R, quick);
    if (!rc && !only) rc = bench_plate(t, work, R, quick);
    if (!rc && (!only || only_bob3d)) rc = bench_bob3d(t, work, R, quick);
    if (!rc && (!only || only_sweep)) rc = bench_sweep(t, case_path, R, quick);
    if (!rc && !only && large) rc = bench_setup_large(t, work);
    if (!rc && cea_dofs) rc = bench_cea_nodes(t, cea_dofs, R, cea_which);
    rm_tree(work);
    add(t, "bench", "total wall time", tvds_bench_now() - t0, "s", NULL);
    int wr = write_outputs(t, outdir, machine, case_path);
    free(t);
    if (wr) return tvds_cli_usage_error("bench: cannot write %s/bench.csv or bench.md", outdir);
    printf("wrote %s/bench.csv and %s/bench.md\n", outdir, outdir);
    return rc ? tvds_status_exit_code(rc) : 0;
}
