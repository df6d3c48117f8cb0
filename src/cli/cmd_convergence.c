/* cmd_convergence.c — `tvds study --convergence`: mesh convergence of what the squeal study
 * reports (unstable windows, their frequencies and growth rates, the static normal force). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

#define CONV_MAX_MESH 16
/* Default meshes: beam 1 nx x ny / beam 2 nx x ny, coarse to fine; the last is the reference. */
#define CONV_MESHES "50x1/50x1,50x2/50x2,50x2/50x4,100x2/50x4"

typedef struct conv_mesh {
    int n1x, n1y, n2x, n2y;
    tvds_cea_result *r;
    double lambda_n; /* static normal force at the middle of the range [N] */
    double re7;      /* largest real part of the branches between 6 and 8 kHz [1/s] */
    double seconds;  /* wall time of generation + CEA */
    int nred;
} conv_mesh;

static void conv_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds study --convergence CASE -o DIR [--meshes LIST] [--s0 A --s1 B] "
        "[options]\n"
        "\n"
        "Mesh convergence of the beam-on-beam squeal analysis (docs/models.md): for each mesh\n"
        "the FE models are generated and reduced (DIR/m<k>/model), CASE is read on them and\n"
        "the CEA (linearised about the preloaded sliding state, damped, with refinement) runs\n"
        "over s in [A, B] on beam 2's edge. Per mesh: the unstable windows (position, frequency\n"
        "at the largest real part, largest real part), the largest real part of the 6-8 kHz\n"
        "branches and the static normal force. The last mesh is the reference; a mesh is\n"
        "converged when every window of the reference with max Re >= 10 %% of the largest is\n"
        "found within 0.5 %% in frequency and 10 %% in max Re, no other such window appears,\n"
        "and the normal force is within 0.5 %%. Writes DIR/convergence.csv and\n"
        "DIR/convergence.md. CASE must drive A by [constraint drive] and load it by [load Fy]\n"
        "(their DoFs are renamed to A's node id of each mesh).\n"
        "\n"
        "options:\n"
        "  --meshes LIST    comma-separated 'N1XxN1Y/N2XxN2Y' (beam 1 / beam 2 elements along x\n"
        "                   thickness; default %s)\n"
        "  --s0 A, --s1 B   CEA range of the abscissa on beam 2's edge [m] (default 0.03, 0.06)\n"
        "  --ds D           spacing of the initial CEA grid [m] (default 1e-3; refined to 0.05 "
        "mm)\n"
        "  --model-set K=V  model parameter for every mesh (as 'tvds model beam-on-beam --set',\n"
        "                   e.g. beam1.a_support=pin); repeatable\n"
        "  --threads N      OpenMP threads of the CEA\n"
        "  --set S.K=V      override a case key (repeatable)\n"
        "  -q, --quiet      no progress on stderr\n",
        CONV_MESHES);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_meshes(const char *txt, conv_mesh *ms, int *n)
{
    *n = 0;
    const char *p = txt;
    while (*p) {
        if (*n >= CONV_MAX_MESH) return -1;
        conv_mesh *m = &ms[*n];
        memset(m, 0, sizeof *m);
        int used = 0;
        if (sscanf(p, "%dx%d/%dx%d%n", &m->n1x, &m->n1y, &m->n2x, &m->n2y, &used) != 4 ||
            m->n1x < 1 || m->n1y < 1 || m->n2x < 1 || m->n2y < 1)
            return -1;
        (*n)++;
        p += used;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return *n > 0 ? 0 : -1;
}

/* Generate, reduce, read and analyse one mesh. */
static int conv_one(const char *case_path, const tvds_cli_sets *sets, const tvds_cli_sets *msets,
                    const char *outdir, int k, conv_mesh *cm, double s0, double s1, double ds,
                    int threads, tvds_ctx *ctx)
{
    double t0 = now_s();
    char mdir[1024], am[2200], ovr[2][2400];
    snprintf(mdir, sizeof mdir, "%s/m%d", outdir, k);
    int rc = tvds_mkdir_p(mdir, ctx);
    if (rc) return rc;
    snprintf(mdir, sizeof mdir, "%s/m%d/model", outdir, k);
    tvds_bob_params p = tvds_bob_default();
    p.beam1.nx = cm->n1x;
    p.beam1.ny = cm->n1y;
    p.beam2.nx = cm->n2x;
    p.beam2.ny = cm->n2y;
    for (int i = 0; i < msets->n; i++)
        if ((rc = tvds_bob_set(&p, msets->v[i], ctx))) return rc;
    cholmod_common cc;
    if ((rc = tvds_cholmod_start(&cc))) return rc;
    tvds_cholmod_ctx(ctx);
    rc = tvds_bob_write(&p, mdir, NULL, &cc, ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return rc;
    if (mdir[0] == '/')
        snprintf(am, sizeof am, "%s", mdir);
    else {
        char cwd[1024];
        if (!getcwd(cwd, sizeof cwd)) return TVDS_ERROR(ctx, TVDS_ERR_IO, "getcwd failed");
        snprintf(am, sizeof am, "%s/%s", cwd, mdir);
    }
    snprintf(ovr[0], sizeof ovr[0], "substructure.beam1.dir=%s/beam1", am);
    snprintf(ovr[1], sizeof ovr[1], "substructure.beam2.dir=%s/beam2", am);
    /* A's carriage node id is the last grid id + 1: it moves with beam 1's mesh. */
    long a_id = (long)(2 * cm->n1x + 1) * (2 * cm->n1y + 1) + 1;
    char ovr_a[2][128];
    snprintf(ovr_a[0], sizeof ovr_a[0], "constraint.drive.terms=beam1:%ld:ux", a_id);
    snprintf(ovr_a[1], sizeof ovr_a[1], "load.Fy.dof=beam1:%ld:uy", a_id);
    const char **all = malloc((size_t)(sets->n + 4) * sizeof *all);
    if (!all) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    all[0] = ovr[0];
    all[1] = ovr[1];
    all[2] = ovr_a[0];
    all[3] = ovr_a[1];
    for (int i = 0; i < sets->n; i++)
        all[4 + i] = sets->v[i];
    tvds_model *m = NULL;
    rc = tvds_case_read(case_path, all, sets->n + 4, &m, ctx);
    free(all);
    if (rc) return rc;
    int npos = (int)ceil((s1 - s0) / ds) + 1;
    double *s = malloc((size_t)npos * sizeof *s);
    if (!s) {
        tvds_model_free(&m);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < npos; i++)
        s[i] = s0 + (s1 - s0) * i / (npos - 1);
    tvds_cea_options o = tvds_cea_options_default();
    o.nthreads = threads;
    o.ds_min = 5e-5; /* windows wider than 0.1 mm: the study's are 0.2 mm and wider */
    rc = tvds_cea_run(m, 0, s, npos, &o, &cm->r, ctx);
    free(s);
    tvds_model_free(&m);
    if (rc) return rc;
    const tvds_cea_result *r = cm->r;
    double smid = 0.5 * (s0 + s1), best = INFINITY;
    cm->re7 = -INFINITY;
    for (int i = 0; i < r->npos; i++) {
        if (fabs(r->s[i] - smid) < best) {
            best = fabs(r->s[i] - smid);
            cm->lambda_n = r->lambda_n[i];
        }
        for (int b = 0; b < r->nbranch; b++) {
            size_t q = (size_t)i * r->nbranch + b;
            if (r->freq[q] >= 6000 && r->freq[q] <= 8000 && r->re[q] > cm->re7) cm->re7 = r->re[q];
        }
    }
    cm->nred = r->nred;
    char sub[2100];
    snprintf(sub, sizeof sub, "%s/m%d", outdir, k);
    rc = tvds_cea_write_csv(r, sub, ctx);
    cm->seconds = now_s() - t0;
    return rc;
}

/* Window of mesh c matching window w of the reference (frequency within 3 %, largest real part
 * within 1.5 mm); -1 when none. */
static int match(const tvds_cea_result *c, const tvds_cea_window *w)
{
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < c->nwin; j++) {
        const tvds_cea_window *v = &c->win[j];
        double df = fabs(v->f_peak - w->f_peak) / w->f_peak, dsp = fabs(v->s_peak - w->s_peak);
        if (df < 0.03 && dsp < 1.5e-3 && df + dsp < bd) {
            bd = df + dsp;
            best = j;
        }
    }
    return best;
}

int tvds_cmd_study_convergence(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *meshes = CONV_MESHES, *val;
    double s0 = 0.030, s1 = 0.060, ds = 1e-3, v;
    int quiet = 0, threads = 0, code = 2, r, nm = 0;
    tvds_cli_sets sets = {0}, msets = {0};
    conv_mesh ms[CONV_MAX_MESH];
    memset(ms, 0, sizeof ms);
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--out", "-o", &outdir, NULL, 0},
                                 {"--meshes", NULL, &meshes, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--convergence")) continue;
        if (tvds_cli_is_help(a)) {
            conv_help(stdout);
            code = 0;
            goto out;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) goto out;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--model-set", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_sets_add(&msets, val)) goto out;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--s0", NULL, &val)) != 0 ||
                   (r = tvds_cli_opt_value(argc, argv, &i, "--s1", NULL, &val)) != 0 ||
                   (r = tvds_cli_opt_value(argc, argv, &i, "--ds", NULL, &val)) != 0 ||
                   (r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            const char *opt = argv[i - 1];
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 0) {
                if (r > 0) tvds_cli_usage_error("study: %s '%s' is not a number >= 0", opt, val);
                goto out;
            }
            if (strstr(opt, "--s0"))
                s0 = v;
            else if (strstr(opt, "--s1"))
                s1 = v;
            else if (strstr(opt, "--ds"))
                ds = v;
            else
                threads = (int)v;
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "study", &sets, &case_path)) != 0) {
            code = r;
            goto out;
        }
    }
    if (!case_path || !outdir) {
        tvds_cli_usage_error("study --convergence: need CASE and -o DIR");
        goto out;
    }
    if (parse_meshes(meshes, ms, &nm)) {
        tvds_cli_usage_error("study: bad --meshes '%s' (expected N1XxN1Y/N2XxN2Y,...)", meshes);
        goto out;
    }
    if (!(s1 > s0) || !(ds > 0)) {
        tvds_cli_usage_error("study: need --s0 < --s1 and --ds > 0");
        goto out;
    }
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc = tvds_mkdir_p(outdir, &ctx);
    for (int k = 0; k < nm && !rc; k++) {
        if (!quiet)
            fprintf(stderr, "convergence: mesh %d/%d: beam 1 %dx%d, beam 2 %dx%d ...\n", k + 1, nm,
                    ms[k].n1x, ms[k].n1y, ms[k].n2x, ms[k].n2y);
        rc = conv_one(case_path, &sets, &msets, outdir, k, &ms[k], s0, s1, ds, threads, &ctx);
        if (!rc && !quiet)
            fprintf(stderr, "convergence:   %d positions, %d windows, %.1f s\n", ms[k].r->npos,
                    ms[k].r->nwin, ms[k].seconds);
    }
    if (rc) {
        code = tvds_cli_report(rc, &ctx);
        goto out;
    }
    /* Tables. */
    char path[2100];
    snprintf(path, sizeof path, "%s/convergence.csv", outdir);
    FILE *fc = fopen(path, "w");
    snprintf(path, sizeof path, "%s/convergence.md", outdir);
    FILE *fm = fopen(path, "w");
    if (!fc || !fm) {
        if (fc) fclose(fc);
        if (fm) fclose(fm);
        code = tvds_cli_usage_error("study: cannot write into %s", outdir);
        goto out;
    }
    fprintf(fc, "mesh,beam1 nx,beam1 ny,beam2 nx,beam2 ny,reduced DoFs,static lambda_n [N],"
                "max Re 6-8 kHz [1/s],branch,s_in [m],s_out [m],f at max Re [Hz],max Re [1/s]\n");
    for (int k = 0; k < nm; k++) {
        const tvds_cea_result *res = ms[k].r;
        if (res->nwin == 0)
            fprintf(fc, "%d,%d,%d,%d,%d,%d,%.8g,%.6g,,,,,\n", k, ms[k].n1x, ms[k].n1y, ms[k].n2x,
                    ms[k].n2y, ms[k].nred, ms[k].lambda_n, ms[k].re7);
        for (int w = 0; w < res->nwin; w++)
            fprintf(fc, "%d,%d,%d,%d,%d,%d,%.8g,%.6g,%d,%.6g,%.6g,%.6g,%.6g\n", k, ms[k].n1x,
                    ms[k].n1y, ms[k].n2x, ms[k].n2y, ms[k].nred, ms[k].lambda_n, ms[k].re7,
                    res->win[w].branch, res->win[w].s_in, res->win[w].s_out, res->win[w].f_peak,
                    res->win[w].re_max);
    }
    const conv_mesh *ref = &ms[nm - 1];
    double remax = 0.0;
    for (int w = 0; w < ref->r->nwin; w++)
        if (ref->r->win[w].re_max > remax) remax = ref->r->win[w].re_max;
    fprintf(fm,
            "CEA about the preloaded sliding state, damped, s = %.4g … %.4g mm (initial grid "
            "%.3g mm, refined to %.3g mm). Reference: the last mesh. Windows counted: max Re ≥ "
            "10 %% of the reference's largest (%.3g 1/s).\n\n",
            1e3 * s0, 1e3 * s1, 1e3 * ds, 1e3 * ref->r->ds_min, remax);
    fprintf(fm, "| mesh (beam 1 / beam 2) | reduced DoFs | windows | worst Δf | worst Δ max Re | "
                "missing / extra | static λ_N [N] | max Re 6–8 kHz [1/s] | strongest window: s "
                "[mm], f [Hz], max Re [1/s] | converged | wall [s] |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
    int pick = nm - 1;
    for (int k = 0; k < nm; k++) {
        const tvds_cea_result *c = ms[k].r;
        double dfw = 0.0, drw = 0.0;
        int missing = 0, extra = 0, nsig = 0;
        for (int w = 0; w < ref->r->nwin; w++) {
            const tvds_cea_window *rw = &ref->r->win[w];
            if (rw->re_max < 0.1 * remax) continue;
            int j = match(c, rw);
            if (j < 0) {
                missing++;
                continue;
            }
            double df = fabs(c->win[j].f_peak - rw->f_peak) / rw->f_peak;
            double dr = fabs(c->win[j].re_max - rw->re_max) / rw->re_max;
            if (df > dfw) dfw = df;
            if (dr > drw) drw = dr;
        }
        int strongest = -1;
        for (int j = 0; j < c->nwin; j++) {
            if (strongest < 0 || c->win[j].re_max > c->win[strongest].re_max) strongest = j;
            if (c->win[j].re_max < 0.1 * remax) continue;
            nsig++;
            if (match(ref->r, &c->win[j]) < 0) extra++;
        }
        double dl = fabs(ms[k].lambda_n - ref->lambda_n) / ref->lambda_n;
        int ok = missing == 0 && extra == 0 && dfw <= 0.005 && drw <= 0.10 && dl <= 0.005;
        if (ok && pick == nm - 1 && k < nm - 1) pick = k;
        char sw[160] = "none";
        if (strongest >= 0)
            snprintf(sw, sizeof sw, "%.2f–%.2f, %.0f, %.3g", 1e3 * c->win[strongest].s_in,
                     1e3 * c->win[strongest].s_out, c->win[strongest].f_peak,
                     c->win[strongest].re_max);
        fprintf(fm,
                "| %dx%d / %dx%d | %d | %d (%d counted) | %.2f %% | %.1f %% | %d / %d | %.6g | "
                "%.3g | %s | %s | %.0f |\n",
                ms[k].n1x, ms[k].n1y, ms[k].n2x, ms[k].n2y, ms[k].nred, c->nwin, nsig, 100 * dfw,
                100 * drw, missing, extra, ms[k].lambda_n, ms[k].re7, sw,
                k == nm - 1 ? "reference" : (ok ? "yes" : "no"), ms[k].seconds);
    }
    fprintf(fm,
            "\nCriterion: every counted window of the reference found within 0.5 %% in frequency "
            "and 10 %% in max Re, no extra counted window, static λ_N within 0.5 %%. Coarsest "
            "mesh meeting it: **%dx%d / %dx%d**.\n",
            ms[pick].n1x, ms[pick].n1y, ms[pick].n2x, ms[pick].n2y);
    fclose(fc);
    fclose(fm);
    if (!quiet) {
        fprintf(stderr, "convergence: %s/convergence.md, %s/convergence.csv\n", outdir, outdir);
        printf("coarsest converged mesh: beam 1 %dx%d, beam 2 %dx%d\n", ms[pick].n1x, ms[pick].n1y,
               ms[pick].n2x, ms[pick].n2y);
    }
    code = 0;
out:
    for (int k = 0; k < CONV_MAX_MESH; k++)
        tvds_cea_result_free(&ms[k].r);
    tvds_cli_sets_free(&sets);
    tvds_cli_sets_free(&msets);
    return code;
}
