/* cmd_convergence.c — `tvds study --convergence [--3d]`: mesh convergence of what the squeal
 * study reports (unstable windows, their frequencies, growth rates and predicted growth, the
 * static normal force), on the plane-stress pair or on the solids. Each mesh runs the study's
 * own model generation and CEA survey (cmd_study.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_study.h"

#define CONV_MAX_MESH 16
/* Default meshes: beam 1 nx x ny / beam 2 nx x ny, coarse to fine; the last is the reference. */
#define CONV_MESHES "50x1/50x1,50x2/50x2,50x2/50x4,100x2/50x4"
/* 3D (nx x ny x nz per beam; docs/models.md, "Mesh convergence of the solids"): from the
 * generator's default mesh, beam 2 through its thickness, beam 1 along its length, beam 2
 * through its thickness again; the CEA's size is the same on all four (beam 2 retains its upper
 * face, whose nodes do not change). */
#define CONV_MESHES_3D "40x2x4/50x2x4,40x2x4/50x4x4,80x2x4/50x4x4,80x2x4/50x8x4"

/* Frequency bands whose least stable branch each mesh reports (max Re, also when stable). 2D:
 * the 6.9 kHz coupling, which one element through the thickness misses. 3D: the frequencies of
 * the 2D and 3D windows (3.52, 5.71, 6.90, 10.57 kHz) +-3 %, the largest in-plane stiffening of
 * the solids over plane stress measured on the first four bending modes (docs/models.md). */
typedef struct conv_band {
    double f_lo, f_hi;
    const char *name;
} conv_band;
static const conv_band BANDS_2D[] = {{6000.0, 8000.0, "6–8 kHz"}};
static const conv_band BANDS_3D[] = {{3520 * 0.97, 3520 * 1.03, "3.5 kHz"},
                                     {5710 * 0.97, 5710 * 1.03, "5.7 kHz"},
                                     {6900 * 0.97, 6900 * 1.03, "6.9 kHz"},
                                     {10570 * 0.97, 10570 * 1.03, "10.6 kHz"}};
#define CONV_MAX_BAND 4

typedef struct conv_mesh {
    tvds_bob_params p;
    int modes; /* fixed-interface modes per beam (0: the generator's) */
    tvds_cea_result *r;
    double lambda_n; /* static normal force at the middle of the range [N] */
    double band_re[CONV_MAX_BAND], band_f[CONV_MAX_BAND], band_s[CONV_MAX_BAND];
    double seconds; /* wall time of generation + CEA */
} conv_mesh;

static void conv_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds study --convergence [--3d] CASE -o DIR [--meshes LIST] [--s0 A --s1 B] "
        "[options]\n"
        "\n"
        "Mesh convergence of the beam-on-beam squeal analysis (docs/models.md): for each mesh\n"
        "the FE models are generated and reduced (DIR/m<k>/model), CASE is read on them and\n"
        "the study's CEA survey (linearised about the preloaded sliding state, damped, with\n"
        "refinement; the positions s of 'tvds study', in 3D s = x_C - 1 mm) runs over s in\n"
        "[A, B] (DIR/m<k>/locus.csv, unstable.csv). Per mesh: the unstable windows (position,\n"
        "frequency at the largest real part, largest real part, predicted growth at the steady\n"
        "speed), the largest real part of the branches in the bands of the study's couplings\n"
        "(2D 6-8 kHz; 3D 3.52, 5.71, 6.90 and 10.57 kHz +-3 %%, also when stable) and the\n"
        "static normal force. The last mesh is the reference; a mesh is converged when every\n"
        "window of the reference with max Re >= 10 %% of the largest is found within 0.5 %% in\n"
        "frequency and 10 %% in max Re, no other such window appears, and the normal force is\n"
        "within 0.5 %%. Writes DIR/convergence.csv and DIR/convergence.md. CASE must drive A\n"
        "by [constraint drive], load it by [load Fy] and, in 3D, hold it across the width by\n"
        "[constraint lateral] (their DoFs are renamed to A's node id of each mesh).\n"
        "\n"
        "options:\n"
        "  --3d             the pair as solids (tvds model beam-on-beam-3d; CASE\n"
        "                   models/beam_on_beam/beam_on_beam_3d.ini): the CEA of 'tvds study\n"
        "                   --3d' (every node of the tip line, 60 branches)\n"
        "  --meshes LIST    comma-separated 'N1XxN1Y/N2XxN2Y' (2D) or 'N1XxN1YxN1Z/N2XxN2YxN2Z'\n"
        "                   (3D; nz may be left out: 4), beam 1 / beam 2 elements along x,\n"
        "                   through the thickness (and across the width), each optionally\n"
        "                   followed by ':M', M fixed-interface modes per beam (default 20);\n"
        "                   default 2D %s,\n"
        "                   3D %s\n"
        "  --s0 A, --s1 B   CEA range of s [m] (default 0.03, 0.06)\n"
        "  --ds D           spacing of the initial CEA grid [m] (default 1e-3; refined to 0.05 "
        "mm)\n"
        "  --modes M        CEA branches (default 20; 60 with --3d)\n"
        "  --model-set K=V  model parameter for every mesh (as 'tvds model beam-on-beam --set',\n"
        "                   e.g. beam1.a_support=pin); repeatable\n"
        "  --threads N      OpenMP threads of the CEA\n"
        "  --set S.K=V      override a case key (repeatable)\n"
        "  -q, --quiet      no progress on stderr\n"
        "\n"
        "Progress (one line per mesh) goes to stderr. Ctrl-C, SIGTERM or SIGHUP stop the CEA\n"
        "at the next position; convergence.md then says so and lists the meshes finished\n"
        "(exit 3).\n",
        CONV_MESHES, CONV_MESHES_3D);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_meshes(const char *txt, int dim3, conv_mesh *ms, int *n)
{
    *n = 0;
    const char *p = txt;
    while (*p) {
        if (*n >= CONV_MAX_MESH) return -1;
        conv_mesh *m = &ms[*n];
        memset(m, 0, sizeof *m);
        if (tvds_study_parse_mesh(&p, dim3, &m->p, &m->modes)) return -1;
        (*n)++;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return *n > 0 ? 0 : -1;
}

static void mesh_name(const conv_mesh *m, int dim3, char *out, size_t n)
{
    const tvds_beam_params *a = &m->p.beam1, *b = &m->p.beam2;
    int k = dim3 ? snprintf(out, n, "%dx%dx%d / %dx%dx%d", a->nx, a->ny, a->nz, b->nx, b->ny, b->nz)
                 : snprintf(out, n, "%dx%d / %dx%d", a->nx, a->ny, b->nx, b->ny);
    if (m->modes > 0 && k > 0 && (size_t)k < n)
        snprintf(out + k, n - (size_t)k, ", %d modes", m->modes);
}

/* Generate, reduce, read and analyse one mesh by the study's own path. */
static int conv_one(const tvds_study_geom *g0, const char *case_path, const tvds_cli_sets *sets,
                    const tvds_cli_sets *msets, const char *outdir, int k, conv_mesh *cm,
                    const double *pos, int npos, int threads, const conv_band *bands, int nband,
                    tvds_ctx *ctx)
{
    double t0 = now_s();
    char mdir[2100];
    snprintf(mdir, sizeof mdir, "%s/m%d", outdir, k);
    int rc = tvds_mkdir_p(mdir, ctx);
    if (rc) return rc;
    snprintf(mdir, sizeof mdir, "%s/m%d/model", outdir, k);
    for (int i = 0; i < msets->n; i++)
        if ((rc = tvds_bob_set(&cm->p, msets->v[i], ctx))) return rc;
    tvds_study_geom g = *g0;
    g.mesh = &cm->p;
    tvds_model *m = NULL;
    rc = tvds_study_model(&g, case_path, sets->v, sets->n, mdir, cm->p.s0, 0.0, 0.0, &m, ctx);
    if (!rc)
        rc = tvds_study_survey(&g, m, pos, npos, TVDS_CEA_DEFORMED, 0, threads,
                               tvds_study_damping_end(m), &cm->r, ctx);
    tvds_model_free(&m);
    if (rc) return rc;
    const tvds_cea_result *r = cm->r;
    double smid = 0.5 * (pos[0] + pos[npos - 1]), best = INFINITY;
    for (int i = 0; i < r->npos; i++)
        if (fabs(r->s[i] - smid) < best) {
            best = fabs(r->s[i] - smid);
            cm->lambda_n = r->lambda_n[i];
        }
    for (int b = 0; b < nband; b++)
        cm->band_re[b] =
            tvds_cea_band_max(r, bands[b].f_lo, bands[b].f_hi, &cm->band_f[b], &cm->band_s[b]);
    char sub[2100];
    snprintf(sub, sizeof sub, "%s/m%d", outdir, k);
    rc = tvds_cea_write_csv(r, sub, ctx);
    cm->seconds = now_s() - t0;
    return rc;
}

static const char *family(double anti)
{
    return !isfinite(anti) ? ""
           : anti < 0.01   ? "in-plane"
           : anti > 0.99   ? "lateral/torsional"
                           : "mixed";
}

/* Every window of the meshes finished, one table (convergence.md) and one CSV row each. */
static void windows_tables(FILE *fm, FILE *fc, const conv_mesh *ms, int nm, int dim3,
                           const conv_band *bands, int nband)
{
    fprintf(fc, "mesh,beam1 nx,beam1 ny,beam1 nz,beam2 nx,beam2 ny,beam2 nz,modes1,modes2,"
                "reduced DoFs,positions,static lambda_n [N]");
    for (int b = 0; b < nband; b++)
        fprintf(fc, ",max Re %s [1/s],f at max Re %s [Hz],s at max Re %s [m]", bands[b].name,
                bands[b].name, bands[b].name);
    fprintf(fc, ",branch,s_in [m],s_out [m],f at max Re [Hz],max Re [1/s],predicted growth,"
                "antisymmetric share\n");
    fprintf(fm,
            "\n### Windows per mesh\n\n| mesh | branch | s [mm] | width [mm] | f at max Re "
            "[Hz] | max Re [1/s] | G |%s\n|---|---|---|---|---|---|---|%s\n",
            dim3 ? " family |" : "", dim3 ? "---|" : "");
    for (int k = 0; k < nm; k++) {
        const conv_mesh *c = &ms[k];
        const tvds_cea_result *r = c->r;
        char name[96];
        mesh_name(c, dim3, name, sizeof name);
        char head[1024];
        int n = snprintf(head, sizeof head, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.8g", k,
                         c->p.beam1.nx, c->p.beam1.ny, dim3 ? c->p.beam1.nz : 0, c->p.beam2.nx,
                         c->p.beam2.ny, dim3 ? c->p.beam2.nz : 0, c->p.modes1, c->p.modes2, r->nred,
                         r->npos, c->lambda_n);
        for (int b = 0; b < nband && n > 0 && (size_t)n < sizeof head; b++)
            n += snprintf(head + n, sizeof head - (size_t)n, ",%.6g,%.6g,%.6g", c->band_re[b],
                          c->band_f[b], c->band_s[b]);
        if (r->nwin == 0) {
            fprintf(fc, "%s,,,,,,,\n", head);
            fprintf(fm, "| %s | – | no window | | | | |%s\n", name, dim3 ? " |" : "");
        }
        for (int w = 0; w < r->nwin; w++) {
            const tvds_cea_window *cw = &r->win[w];
            fprintf(fc, "%s,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g\n", head, cw->branch, cw->s_in,
                    cw->s_out, cw->f_peak, cw->re_max, cw->growth_pred, cw->anti_peak);
            fprintf(fm, "| %s | %d | %.2f – %.2f | %.2f | %.0f | %.4g | %.3g |", name, cw->branch,
                    1e3 * cw->s_in, 1e3 * cw->s_out, 1e3 * (cw->s_out - cw->s_in), cw->f_peak,
                    cw->re_max, cw->growth_pred);
            if (dim3) fprintf(fm, " %s |", family(cw->anti_peak));
            fprintf(fm, "\n");
        }
    }
}

/* convergence.md and convergence.csv of the nm meshes finished out of ntot (nm < ntot: the
 * study was interrupted, no reference, no comparison). Returns the coarsest converged mesh
 * (the reference when none is), -1 when the files cannot be written. */
static int conv_tables(const char *outdir, const conv_mesh *ms, int nm, int ntot, int dim3,
                       const conv_band *bands, int nband, double s0, double s1, double ds,
                       const char *stopped)
{
    char path[2100];
    snprintf(path, sizeof path, "%s/convergence.csv", outdir);
    FILE *fc = fopen(path, "w");
    snprintf(path, sizeof path, "%s/convergence.md", outdir);
    FILE *fm = fopen(path, "w");
    if (!fc || !fm) {
        if (fc) fclose(fc);
        if (fm) fclose(fm);
        return -1;
    }
    fprintf(fm, "# Mesh convergence of the %s squeal study\n\n",
            dim3 ? "3D (solids)" : "plane-stress");
    if (nm < ntot)
        fprintf(fm,
                "Status: **interrupted** (%s) during mesh %d of %d: no reference, no "
                "comparison; the meshes finished are listed.\n\n",
                stopped, nm + 1, ntot);
    fprintf(fm,
            "CEA about the preloaded sliding state, damped, s = %.4g … %.4g mm (initial grid "
            "%.3g mm, refined to 0.05 mm)%s. G: predicted growth while C crosses the window at "
            "the steady speed.\n",
            1e3 * s0, 1e3 * s1, 1e3 * ds,
            dim3 ? ", every node of the tip line, s = x_C − 1 mm (the 2D study's axis)" : "");
    int pick = nm - 1;
    if (nm == ntot) {
        const conv_mesh *ref = &ms[nm - 1];
        double remax = 0.0;
        for (int w = 0; w < ref->r->nwin; w++)
            if (ref->r->win[w].re_max > remax) remax = ref->r->win[w].re_max;
        fprintf(fm,
                "\nReference: the last mesh. Windows counted: max Re ≥ %.0f %% of the reference's "
                "largest (%.3g 1/s).\n\n| mesh (beam 1 / beam 2) | reduced DoFs | windows | "
                "worst Δf | worst Δ max Re | missing / extra | static λ_N [N] |",
                100 * TVDS_CEA_CONV_COUNT, remax);
        for (int b = 0; b < nband; b++)
            fprintf(fm, " max Re %s [1/s] (f [Hz], s [mm]) |", bands[b].name);
        fprintf(fm, " strongest window: s [mm], f [Hz], max Re [1/s] | converged | wall [s] |\n|");
        for (int b = 0; b < 10 + nband; b++)
            fprintf(fm, "---|");
        fprintf(fm, "\n");
        for (int k = 0; k < nm; k++) {
            const tvds_cea_result *c = ms[k].r;
            tvds_cea_conv cv;
            tvds_cea_conv_compare(ref->r, ref->lambda_n, c, ms[k].lambda_n, &cv);
            if (cv.converged && pick == nm - 1 && k < nm - 1) pick = k;
            char sw[160] = "none", name[96];
            mesh_name(&ms[k], dim3, name, sizeof name);
            if (cv.strongest >= 0) {
                const tvds_cea_window *w = &c->win[cv.strongest];
                snprintf(sw, sizeof sw, "%.2f–%.2f, %.0f, %.3g", 1e3 * w->s_in, 1e3 * w->s_out,
                         w->f_peak, w->re_max);
            }
            fprintf(fm, "| %s | %d | %d (%d counted) | %.2f %% | %.1f %% | %d / %d | %.6g |", name,
                    c->nred, c->nwin, cv.counted, 100 * cv.df, 100 * cv.dre, cv.missing, cv.extra,
                    ms[k].lambda_n);
            for (int b = 0; b < nband; b++)
                if (isfinite(ms[k].band_re[b]))
                    fprintf(fm, " %.3g (%.0f, %.2f) |", ms[k].band_re[b], ms[k].band_f[b],
                            1e3 * ms[k].band_s[b]);
                else
                    fprintf(fm, " no branch |");
            fprintf(fm, " %s | %s | %.0f |\n", sw,
                    k == nm - 1 ? "reference" : (cv.converged ? "yes" : "no"), ms[k].seconds);
        }
        char name[96];
        mesh_name(&ms[pick], dim3, name, sizeof name);
        fprintf(fm,
                "\nCriterion: every counted window of the reference found within %.1f %% in "
                "frequency and %.0f %% in max Re, no extra counted window, static λ_N within "
                "%.1f %% (windows matched within %.0f %% in frequency and %.1f mm in the position "
                "of max Re). Coarsest mesh meeting it: **%s**.\n",
                100 * TVDS_CEA_CONV_DF, 100 * TVDS_CEA_CONV_DRE, 100 * TVDS_CEA_CONV_DLAMBDA,
                100 * TVDS_CEA_CONV_MATCH_DF, 1e3 * TVDS_CEA_CONV_MATCH_DS, name);
    }
    windows_tables(fm, fc, ms, nm, dim3, bands, nband);
    int bad = (fclose(fc) != 0) | (fclose(fm) != 0);
    return bad ? -1 : pick;
}

int tvds_cmd_study_convergence(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *meshes = NULL, *val;
    double s0 = 0.030, s1 = 0.060, ds = 1e-3, v;
    int quiet = 0, threads = 0, code = 2, r, nm = 0, dim3 = 0, nmodes = 0;
    tvds_cli_sets sets = {0}, msets = {0};
    conv_mesh ms[CONV_MAX_MESH];
    double *pos = NULL;
    memset(ms, 0, sizeof ms);
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--3d", NULL, NULL, &dim3, 1},
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
                   (r = tvds_cli_opt_value(argc, argv, &i, "--modes", NULL, &val)) != 0 ||
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
            else if (strstr(opt, "--modes")) {
                if (v < 1 || v > 500 || v != floor(v)) {
                    tvds_cli_usage_error("study: --modes '%s' is not a count 1..500", val);
                    goto out;
                }
                nmodes = (int)v;
            } else
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
    if (!meshes) meshes = dim3 ? CONV_MESHES_3D : CONV_MESHES;
    if (parse_meshes(meshes, dim3, ms, &nm)) {
        tvds_cli_usage_error("study: bad --meshes '%s' (expected %s,...)", meshes,
                             dim3 ? "N1XxN1YxN1Z/N2XxN2YxN2Z[:M]" : "N1XxN1Y/N2XxN2Y[:M]");
        goto out;
    }
    if (!(s1 > s0) || !(ds > 0)) {
        tvds_cli_usage_error("study: need --s0 < --s1 and --ds > 0");
        goto out;
    }
    const conv_band *bands = dim3 ? BANDS_3D : BANDS_2D;
    int nband = dim3 ? (int)(sizeof BANDS_3D / sizeof *BANDS_3D)
                     : (int)(sizeof BANDS_2D / sizeof *BANDS_2D);
    int npos = (int)ceil((s1 - s0) / ds) + 1;
    if (!(pos = malloc((size_t)npos * sizeof *pos))) {
        code = tvds_cli_usage_error("study: out of memory");
        goto out;
    }
    for (int i = 0; i < npos; i++)
        pos[i] = s0 + (s1 - s0) * i / (npos - 1);
    tvds_study_geom geom = {dim3, nmodes, NULL, NULL, NULL, NULL, NULL, tvds_cli_stop_flag()};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    volatile sig_atomic_t *stop = tvds_cli_stop_flag();
    tvds_cli_sigint(1);
    int rc = tvds_mkdir_p(outdir, &ctx), done = 0;
    for (int k = 0; k < nm && !rc; k++) {
        char name[96];
        mesh_name(&ms[k], dim3, name, sizeof name);
        if (!quiet)
            fprintf(stderr, "convergence: mesh %d/%d: beam 1 / beam 2 %s ...\n", k + 1, nm, name);
        ms[k].p.s0 = 0.020; /* C's placement; the CEA does not depend on it */
        rc = conv_one(&geom, case_path, &sets, &msets, outdir, k, &ms[k], pos, npos, threads, bands,
                      nband, &ctx);
        if (!rc) {
            done++;
            if (!quiet)
                fprintf(stderr,
                        "convergence:   %d positions, %d reduced DoFs, %d windows, static "
                        "normal force %.6g N, %.1f s\n",
                        ms[k].r->npos, ms[k].r->nred, ms[k].r->nwin, ms[k].lambda_n, ms[k].seconds);
        }
    }
    if (rc == TVDS_ERR_INTERRUPTED && done > 0)
        conv_tables(outdir, ms, done, nm, dim3, bands, nband, s0, s1, ds,
                    tvds_cli_signal_name((int)*stop));
    if (rc) {
        code = tvds_cli_report(rc, &ctx);
        tvds_cli_sigint(0);
        goto out;
    }
    tvds_cli_sigint(0);
    int pick = conv_tables(outdir, ms, nm, nm, dim3, bands, nband, s0, s1, ds, NULL);
    if (pick < 0) {
        code = tvds_cli_usage_error("study: cannot write into %s", outdir);
        goto out;
    }
    char name[96];
    mesh_name(&ms[pick], dim3, name, sizeof name);
    if (!quiet)
        fprintf(stderr, "convergence: %s/convergence.md, %s/convergence.csv\n", outdir, outdir);
    printf("coarsest converged mesh (beam 1 / beam 2): %s\n", name);
    code = 0;
out:
    free(pos);
    for (int k = 0; k < CONV_MAX_MESH; k++)
        tvds_cea_result_free(&ms[k].r);
    tvds_cli_sets_free(&sets);
    tvds_cli_sets_free(&msets);
    return code;
}
