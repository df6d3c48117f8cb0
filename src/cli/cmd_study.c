/* cmd_study.c — `tvds study`: the beam-on-beam squeal study behind `make run`: generate and
 * reduce the model, CEA along the sliding path, transients over an unstable window, report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_compare_impl.h"
#include "cli/cmd_study_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_compare.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"

/* The study's choices (docs/squeal.md). The CEA survey covers s = 30 ... 60 mm of beam 2's
 * edge (C's abscissa from the first master node); each transient starts C so that the window it
 * is meant to cross is entered STUDY_T_ENTRY after t = 0, i.e. 50 ms after the damping schedule
 * (0.25 s) ends, and stops STUDY_T_AFTER after it has left the window. */
#define STUDY_S_LO 0.030
#define STUDY_S_HI 0.060
#define STUDY_DS   1e-3
/* Smallest spacing of the refinement: every window wider than 0.1 mm is found (the beam's are
 * 0.2 mm and wider). */
#define STUDY_DS_MIN  5e-5
#define STUDY_T_ENTRY 0.30
#define STUDY_T_AFTER 0.08
/* The paper's procedure for mu: the lowest mu of the grid whose predicted growth across some
 * window of the path exceeds STUDY_G_MIN (an amplitude ratio of 5, 14 dB). */
#define STUDY_MU_LO   0.30
#define STUDY_MU_HI   0.70
#define STUDY_MU_STEP 0.05
#define STUDY_G_MIN   5.0

static void study_help(FILE *out)
{
    fprintf(
        out,
        "usage: tvds study CASE -o DIR [options]\n"
        "       tvds study --3d CASE3D -o DIR [options]   (the pair as solids)\n"
        "       tvds study --convergence [--3d] CASE -o DIR [options]   (mesh convergence;\n"
        "                                                      see --convergence --help)\n"
        "\n"
        "The beam-on-beam squeal study (docs/squeal.md), what `make run` runs:\n"
        "  1. beam-on-beam FE models, Craig-Bampton reduction (DIR/model/), CASE read on them;\n"
        "  2. CEA survey over s = %g ... %g mm at the case's mu: linearised about the\n"
        "     preloaded sliding state (damped and undamped) and about the undeformed geometry\n"
        "     (DIR/cea/), predicted growth of each window crossed at the steady speed;\n"
        "  3. the paper's procedure for mu: CEA at mu = %g, %g, ... %g until a window's\n"
        "     predicted growth exceeds %g (DIR/cea_mu<MU>/);\n"
        "  4. (a) the paper's values: subs-b and FiLm across the strongest window without a\n"
        "     master node (its crossing kicks the band) at the case's mu (DIR/a/); (b) the\n"
        "     chosen mu: the methods across its strongest node-free window (DIR/b/);\n"
        "     each run starts C so that the window is entered at t = %g s and ends %g s after\n"
        "     leaving it; predicted growth per window beside the measured one;\n"
        "  5. DIR/report.md: the whole study with every departure from the paper.\n"
        "\n"
        "options:\n"
        "  -o, --out DIR     output directory (required)\n"
        "  --methods LIST    methods of part (b) (default subs-a,subs-b,subs-c,film)\n"
        "  --methods-a LIST  methods of part (a) (default subs-b,film)\n"
        "  --mu MU           skip the procedure: use this mu for part (b)\n"
        "  --no-transients   CEA parts only\n"
        "  --3d              the pair as solids (tvds model beam-on-beam-3d, mesh of its\n"
        "                    convergence study: beam 1 80x2x4, beam 2 50x8x4;\n"
        "                    CASE models/beam_on_beam/beam_on_beam_3d.ini): the same steps,\n"
        "                    the CEA with every node of the tip line, positions on the same\n"
        "                    axis as the 2D study, s = x_C - 1 mm (docs/squeal.md, \"The\n"
        "                    study in 3D\"); 60 CEA branches\n"
        "  --mesh B1/B2      the pair's mesh, beam 1 / beam 2 elements along x, through the\n"
        "                    thickness (and across the width in 3D), optionally ':M' fixed-\n"
        "                    interface modes per beam: 'N1XxN1Y/N2XxN2Y' or\n"
        "                    'N1XxN1YxN1Z/N2XxN2YxN2Z' (default: the study's mesh, from\n"
        "                    'tvds study --convergence')\n"
        "  --ds D            initial CEA spacing [m] (default %g; refined automatically)\n"
        "  --threads N       OpenMP threads of the CEA (default: OpenMP's)\n"
        "  --modes M         CEA branches (default 20; 60 with --3d, whose lateral and\n"
        "                    torsional modes fill the band below the 2D couplings)\n"
        "  --no-plots        no PNG figures\n"
        "  --set S.K=V       override a case key (repeatable)\n"
        "  -q, --quiet       no progress on stderr\n"
        "  -h, --help        this help\n"
        "\n"
        "CASE must name two substructures beam1 and beam2, drive A by [constraint drive] and\n"
        "load it by [load Fy] (models/beam_on_beam/beam_on_beam.ini). Progress goes to\n"
        "stderr; the summary to stdout.\n"
        "Each CEA shows its positions done/total, rate and time left after 2 s (in place\n"
        "on a terminal, else a line every 10 s). DIR belongs to one study at a time\n"
        "(DIR/.lock: a second study into DIR exits 2). A study first removes the previous\n"
        "one's report.md, cea/, cea_mu*/, a/ and b/ outputs and writes a report.md saying\n"
        "\"running\". Ctrl-C, SIGTERM or SIGHUP stop the study within about a second (exit\n"
        "3); report.md then says it was interrupted, in which stage, and which folders are\n"
        "complete, incomplete or not written.\n"
        "\n"
        "exit codes: 0 success, 2 bad input or DIR in use, 3 solver failure or interrupted,\n"
        "1 internal.\n",
        1e3 * STUDY_S_LO, 1e3 * STUDY_S_HI, STUDY_MU_LO, STUDY_MU_LO + STUDY_MU_STEP, STUDY_MU_HI,
        STUDY_G_MIN, STUDY_T_ENTRY, STUDY_T_AFTER, STUDY_DS);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Absolute path of dir (relative to the working directory). */
static int abs_path(const char *dir, char *out, size_t n)
{
    if (dir[0] == '/') return snprintf(out, n, "%s", dir) < (int)n ? 0 : -1;
    char cwd[2048];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(out, n, "%s/%s", cwd, dir) < (int)n ? 0 : -1;
}

/* The study's mesh (docs/models.md, "Mesh convergence"): elements along x through the
 * thickness of beam 1 and beam 2. */
#define STUDY_MESH1_NX 100
#define STUDY_MESH1_NY 2
#define STUDY_MESH2_NX 50
#define STUDY_MESH2_NY 4

static tvds_bob_params study_mesh(void)
{
    tvds_bob_params p = tvds_bob_default();
    p.beam1.nx = STUDY_MESH1_NX;
    p.beam1.ny = STUDY_MESH1_NY;
    p.beam2.nx = STUDY_MESH2_NX;
    p.beam2.ny = STUDY_MESH2_NY;
    return p;
}

/* The study's positions s are the 2D model's abscissa along beam 2's upper edge from its first
 * free node, s = x_C - STUDY_X0 (docs/squeal.md). The 3D study keeps them, so that its windows
 * and the 2D ones are read on one axis; there the CEA's positions are the tip line's travel from
 * its placement (docs/cea.md, "Face-set masters") and are shifted to and from s here. */
#define STUDY_X0 0.001
/* Branches of the 3D CEA (tvds_cea_options.nmodes; 2D: the default 20). */
#define STUDY_MODES_3D 60

/* The 3D study's mesh (docs/models.md, "Mesh convergence of the 3D pair"): the reference of the
 * 3D convergence study, elements along x, through the thickness and across the width. Its CEA
 * costs what the generator's default mesh costs (same retained face); its stable step is 0.87
 * times the default's (beam 1's shorter elements). */
#define STUDY_MESH3D_1NX 80
#define STUDY_MESH3D_1NY 2
#define STUDY_MESH3D_1NZ 4
#define STUDY_MESH3D_2NX 50
#define STUDY_MESH3D_2NY 8
#define STUDY_MESH3D_2NZ 4

tvds_bob_params tvds_study_params(int dim3)
{
    if (!dim3) return study_mesh();
    tvds_bob_params p = tvds_bob3d_default();
    p.beam1.nx = STUDY_MESH3D_1NX;
    p.beam1.ny = STUDY_MESH3D_1NY;
    p.beam1.nz = STUDY_MESH3D_1NZ;
    p.beam2.nx = STUDY_MESH3D_2NX;
    p.beam2.ny = STUDY_MESH3D_2NY;
    p.beam2.nz = STUDY_MESH3D_2NZ;
    return p;
}

/* "NXxNY" (2D) or "NXxNYxNZ" (3D) of one beam's mesh into out (n >= 32); returns out. */
static const char *beam_mesh_name(const tvds_beam_params *b, int dim3, char *out, size_t n)
{
    if (dim3)
        snprintf(out, n, "%dx%dx%d", b->nx, b->ny, b->nz);
    else
        snprintf(out, n, "%dx%d", b->nx, b->ny);
    return out;
}

/* One beam's "NXxNY" (2D) or "NXxNY[xNZ]" (3D) at *p; advances *p. */
static int parse_beam_mesh(const char **p, tvds_beam_params *b, int dim3)
{
    int used = 0, nx, ny, nz;
    if (sscanf(*p, "%dx%d%n", &nx, &ny, &used) != 2 || nx < 1 || ny < 1) return -1;
    *p += used;
    if (dim3 && **p == 'x') {
        if (sscanf(*p, "x%d%n", &nz, &used) != 1 || nz < 1) return -1;
        *p += used;
        b->nz = nz;
    }
    b->nx = nx;
    b->ny = ny;
    return 0;
}

int tvds_study_parse_mesh(const char **p, int dim3, tvds_bob_params *out, int *modes)
{
    tvds_bob_params q = tvds_study_params(dim3);
    *modes = 0;
    if (parse_beam_mesh(p, &q.beam1, dim3) || *(*p)++ != '/' || parse_beam_mesh(p, &q.beam2, dim3))
        return -1;
    if (**p == ':') {
        int used = 0;
        if (sscanf(*p, ":%d%n", modes, &used) != 1 || *modes < 1) return -1;
        *p += used;
        q.modes1 = q.modes2 = *modes;
    }
    *out = q;
    return 0;
}

int tvds_study_model(const tvds_study_geom *g, const char *case_path, const tvds_cli_sets *sets,
                     const char *mdir, double s0, double t_end, double mu, tvds_model **m,
                     tvds_ctx *ctx)
{
    tvds_bob_params p = g->mesh ? *g->mesh : tvds_study_params(g->dim3);
    p.s0 = s0;
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return rc;
    tvds_cholmod_ctx(ctx);
    rc = g->dim3 ? tvds_bob3d_write(&p, mdir, NULL, &cc, ctx)
                 : tvds_bob_write(&p, mdir, NULL, &cc, ctx);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    if (rc) return rc;
    char am[2048], ovr[3][2200];
    if (abs_path(mdir, am, sizeof am))
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "study: path of %s too long", mdir);
    snprintf(ovr[0], sizeof ovr[0], "substructure.beam1.dir=%s/beam1", am);
    snprintf(ovr[1], sizeof ovr[1], "substructure.beam2.dir=%s/beam2", am);
    snprintf(ovr[2], sizeof ovr[2], "run.t_end=%.17g", t_end > 0 ? t_end : 1.0);
    /* A's carriage node id is the last grid id + 1: it moves with beam 1's mesh (9-node
     * quadrilaterals in 2D, 8-node hexahedra in 3D), and so do the 3D case's [constraint
     * lateral] (A held across the width). */
    long a_id = g->dim3 ? (long)(p.beam1.nx + 1) * (p.beam1.ny + 1) * (p.beam1.nz + 1) + 1
                        : (long)(2 * p.beam1.nx + 1) * (2 * p.beam1.ny + 1) + 1;
    char ovr_a[3][128];
    snprintf(ovr_a[0], sizeof ovr_a[0], "constraint.drive.terms=beam1:%ld:ux", a_id);
    snprintf(ovr_a[1], sizeof ovr_a[1], "load.Fy.dof=beam1:%ld:uy", a_id);
    snprintf(ovr_a[2], sizeof ovr_a[2], "constraint.lateral.terms=beam1:%ld:uz", a_id);
    const char **all = malloc((size_t)(sets->n + 6) * sizeof *all);
    if (!all) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    int k = 0;
    all[k++] = ovr[0];
    all[k++] = ovr[1];
    all[k++] = ovr_a[0];
    all[k++] = ovr_a[1];
    if (g->dim3) all[k++] = ovr_a[2];
    if (t_end > 0) all[k++] = ovr[2];
    for (int i = 0; i < sets->n; i++)
        all[k++] = sets->v[i];
    rc = tvds_case_read(case_path, all, k, m, ctx);
    free(all);
    if (rc) return rc;
    if ((*m)->ncontact < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "study: %s has no contact", case_path);
    int faces = (*m)->contacts[0].master_kind == TVDS_MASTER_FACES;
    if (faces != g->dim3)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          g->dim3 ? "study --3d: %s: the contact's master is not a face set "
                                    "(models/beam_on_beam/beam_on_beam_3d.ini is the 3D case)"
                                  : "study: %s: the contact's master is a face set; the 3D "
                                    "pair is 'tvds study --3d'",
                          case_path);
    if (mu > 0) (*m)->contacts[0].mu_k = (*m)->contacts[0].mu_s = mu;
    return TVDS_OK;
}

/* End of the damping schedule (largest t_hold + t_ramp) [s]. */
double tvds_study_damping_end(const tvds_model *m)
{
    double t = 0.0;
    for (int s = 0; s < m->nsub; s++)
        if (m->damping && m->damping[s].kind == TVDS_DAMP_RAYLEIGH &&
            m->damping[s].t_hold + m->damping[s].t_ramp > t)
            t = m->damping[s].t_hold + m->damping[s].t_ramp;
    return t;
}

/* Slave travel along x at time t (Subs-a kinematics, the carriage motion). */
static double travel(const tvds_model *m, double t)
{
    const tvds_fn *kin = &m->contacts[0].slave_kin[0];
    return fabs(tvds_fn_eval(kin, t) - tvds_fn_eval(kin, 0.0));
}

/* Time at which the travel reaches d (bisection; travel is nondecreasing). */
static double time_at_travel(const tvds_model *m, double d)
{
    double a = 0.0, b = 1.0;
    while (travel(m, b) < d && b < 1e6)
        b *= 2;
    for (int i = 0; i < 200; i++) {
        double c = 0.5 * (a + b);
        if (travel(m, c) < d)
            a = c;
        else
            b = c;
    }
    return 0.5 * (a + b);
}

/* The study's abscissa s of C (its first slave node) in model m. 2D: the CEA's abscissa along
 * the master edge. 3D: x_C - STUDY_X0, the 2D value of the same x. */
static int study_abscissa(const tvds_study_geom *g, const tvds_model *m, double *s, tvds_ctx *ctx)
{
    if (!g->dim3) return tvds_cea_slave_abscissa(m, 0, 0, s, ctx);
    const tvds_contact *c = &m->contacts[0];
    const tvds_substructure *sub = m->subs[c->slave_sub];
    int d = tvds_substructure_find_dof(sub, c->slave_nodes[0], TVDS_DIR_X);
    if (d < 0) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "study: slave node without an x DoF");
    *s = sub->dofs[d].xyz[0] - STUDY_X0;
    return TVDS_OK;
}

/* Shift a CEA result's positions (and its windows') by ds. */
static void shift_positions(tvds_cea_result *r, double ds)
{
    for (int i = 0; i < r->npos; i++)
        r->s[i] += ds;
    for (int w = 0; w < r->nwin; w++) {
        tvds_cea_window *cw = &r->win[w];
        cw->s_start += ds, cw->s_end += ds, cw->s_in += ds, cw->s_out += ds, cw->s_peak += ds;
    }
}

/* The CEA at the study's positions s[] (every slave node of the 3D tip line), its windows' growth
 * along the path from s_initial at t = 0 to t_end, positions of the result in the study's s. */
static int study_cea(const tvds_study_geom *g, const tvds_model *m, const double *s, int npos,
                     tvds_cea_options co, double s_initial, double t_end, tvds_cea_result **out,
                     tvds_ctx *ctx)
{
    double off = 0.0; /* study s = CEA position + off */
    int rc = TVDS_OK;
    double *q = NULL;
    if (g->dim3) {
        if ((rc = study_abscissa(g, m, &off, ctx))) return rc;
        co.slave = TVDS_CEA_ALL_SLAVES;
        co.mirror = 3; /* the pair is symmetric about its mid-width plane z = 0 */
        /* The solids add lateral and torsional modes: the 20 lowest branches of the 2D study
         * reach only 5.6 kHz in 3D (measured), below the 2D couplings at 6.9 and 10.6 kHz. */
        co.nmodes = STUDY_MODES_3D;
        if (!(q = malloc((size_t)npos * sizeof *q)))
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
        for (int i = 0; i < npos; i++)
            q[i] = s[i] - off;
    }
    if (g->nmodes > 0) co.nmodes = g->nmodes;
    if (g->progress) {
        co.progress = tvds_cli_progress_positions;
        co.user = g->progress;
    }
    rc = tvds_cea_run(m, 0, q ? q : s, npos, &co, out, ctx);
    if (g->progress) tvds_cli_progress_clear(g->progress);
    free(q);
    if (rc == TVDS_ERR_INTERRUPTED && *out) {
        /* The positions finished before the stop: in the study's abscissa, growth left NaN. */
        shift_positions(*out, off);
        return rc;
    }
    if (!rc) rc = tvds_cea_growth(*out, m, 0, s_initial - off, t_end, 1e-5, ctx);
    if (!rc) shift_positions(*out, off);
    return rc;
}

/* CEA over positions s[] of the survey with the given linearisation; predicted growth along a
 * steady-speed path: C starts at s_lo - travel(t_damp) and slides to s_hi. */
int tvds_study_survey(const tvds_study_geom *g, const tvds_model *m, const double *s, int npos,
                      int state, int undamped, int threads, double t_damp, tvds_cea_result **out,
                      tvds_ctx *ctx)
{
    tvds_cea_options co = tvds_cea_options_default();
    co.stop = tvds_cli_stop_flag();
    co.nthreads = threads;
    co.state = state;
    co.undamped = undamped;
    co.ds_min = STUDY_DS_MIN;
    double s_ini = s[0] - travel(m, t_damp);
    double t_end = time_at_travel(m, s[npos - 1] - s_ini) + 1e-3;
    return study_cea(g, m, s, npos, co, s_ini, t_end, out, ctx);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The study's abscissae of beam 2's master nodes, which a window must not hold (target): 2D the
 * edge nodes (tvds_compare_master_abscissae); 3D the lines of face nodes across the width, one
 * per x (the tip line crosses a face edge there), as s = x - STUDY_X0. */
static int master_abscissae(const tvds_study_geom *g, const tvds_model *m, double **S, int *ns,
                            tvds_ctx *ctx)
{
    if (!g->dim3) return tvds_compare_master_abscissae(m, 0, S, ns, ctx);
    *S = NULL;
    *ns = 0;
    const tvds_contact *c = &m->contacts[0];
    const tvds_substructure *sub = m->subs[c->master_sub];
    double *x = tvds_malloc((size_t)(c->nmaster > 0 ? c->nmaster : 1) * sizeof *x);
    if (!x) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    int n = 0;
    for (int q = 0; q < c->nmaster; q++) {
        int d = tvds_substructure_find_dof(sub, c->master_nodes[q], TVDS_DIR_X);
        if (d >= 0) x[n++] = sub->dofs[d].xyz[0] - STUDY_X0;
    }
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || x[i] - x[u - 1] > 1e-9) x[u++] = x[i];
    *S = x;
    *ns = u;
    return TVDS_OK;
}

static int strongest(const tvds_cea_result *r)
{
    int best = -1;
    for (int w = 0; w < r->nwin; w++)
        if (isfinite(r->win[w].growth_pred) &&
            (best < 0 || r->win[w].growth_pred > r->win[best].growth_pred))
            best = w;
    return best;
}

/* Master-node abscissae of the study's contact (beam 2's edge nodes), for the choice of the
 * window a transient crosses. */
typedef struct study_nodes {
    double *S;
    int ns;
    double v; /* steady sliding speed [m/s] */
} study_nodes;

/* The window a transient studies: the strongest one without a master node inside it or within
 * the masked span around a node crossing (tvds_compare_window_node: the kick of the crossing
 * seeds the band envelope, so the growth measured there is not the instability's). The span is
 * widened by the CEA's position resolution STUDY_DS_MIN, to which the window edges are known. */
static int target(const tvds_cea_result *r, const study_nodes *nd)
{
    return tvds_compare_clean_window(r, nd->S, nd->ns, nd->v, 0.0, STUDY_DS_MIN);
}

static double window_node(const tvds_cea_result *r, int w, const study_nodes *nd)
{
    return w >= 0 ? tvds_compare_window_node(&r->win[w], nd->S, nd->ns, nd->v, 0.0, STUDY_DS_MIN)
                  : NAN;
}

static void windows_table(FILE *fp, const tvds_cea_result *r, int mark, int mark2, double v_mm_s)
{
    if (r->nwin == 0) {
        fprintf(fp, "No unstable window.\n");
        return;
    }
    /* 3D: the mode family about the mirror plane z = 0 (docs/cea.md, "Symmetric and
     * antisymmetric modes"); 2D results have no share and no column. */
    int fam = isfinite(r->win[0].anti_peak);
    fprintf(fp,
            "| branch | s_in … s_out [mm] | width [mm] | f at max Re [Hz] | max Re [1/s] | "
            "predicted growth at %.0f mm/s |%s\n|---|---|---|---|---|---|%s\n",
            v_mm_s, fam ? " antisymmetric share at max Re (family) |" : "", fam ? "---|" : "");
    for (int w = 0; w < r->nwin; w++) {
        const tvds_cea_window *cw = &r->win[w];
        fprintf(fp, "| %d | %.3f … %.3f | %.3f | %.0f | %.4g | %.3g |", cw->branch, 1e3 * cw->s_in,
                1e3 * cw->s_out, 1e3 * fabs(cw->s_out - cw->s_in), cw->f_peak, cw->re_max,
                cw->growth_pred);
        if (fam)
            fprintf(fp, " %.2g (%s) |", cw->anti_peak,
                    !isfinite(cw->anti_peak) ? "?"
                    : cw->anti_peak < 0.01   ? "in-plane"
                    : cw->anti_peak > 0.99   ? "lateral/torsional"
                                             : "mixed");
        fprintf(fp, "%s\n",
                w == mark    ? " ← strongest"
                : w == mark2 ? " ← strongest without a master node (studied)"
                             : "");
    }
}

static double max_re(const tvds_cea_result *r)
{
    double v = -INFINITY;
    for (int w = 0; w < r->nwin; w++)
        if (r->win[w].re_max > v) v = r->win[w].re_max;
    return v;
}

/* One transient part: the model regenerated with C placed so that window target of r is entered
 * at STUDY_T_ENTRY, its CEA windows recomputed along the actual path, the comparison run. */
typedef struct study_part {
    const char *name; /* "a" or "b" */
    double mu;
    double s0_x; /* x of C at t = 0 [m] */
    double s_a;  /* C's abscissa at t = 0 [m] */
    double t_end;
    double t_damp;        /* end of the damping schedule [s] */
    tvds_cea_window tw;   /* the window studied (of the CEA it was chosen from) */
    tvds_cea_window tall; /* the strongest window of that CEA */
    double node_all;      /* master node inside tall (NaN: tall is the window studied) */
    int clean;            /* 1: tw has no master node (0: no node-free window, tw = tall) */
    tvds_cea_result *cea; /* along the actual path (owned) */
    tvds_compare_result res;
    tvds_growth_window gw[TVDS_COMPARE_MAX_WINDOWS]; /* windows passed to the comparison */
    int ran;
    double seconds;
} study_part;

/* The CEA windows crossed by a part's path, for the band-envelope growth of the comparison. */
static void pass_windows(tvds_compare_opts *o, study_part *pt)
{
    int n = 0;
    for (int w = 0; w < pt->cea->nwin && n < TVDS_COMPARE_MAX_WINDOWS; w++) {
        const tvds_cea_window *cw = &pt->cea->win[w];
        if (!isfinite(cw->t_start)) continue;
        tvds_growth_window *g = &pt->gw[n++];
        g->branch = cw->branch;
        g->f_hz = cw->f_peak;
        g->s0 = cw->s_in;
        g->s1 = cw->s_out;
        g->t0 = cw->t_start;
        g->t1 = cw->t_end;
        g->growth_pred = cw->growth_pred;
    }
    o->nwindows = n;
    o->windows = pt->gw;
}

/* Measured growth of each window by each method (from the comparison), into the report. */
static void part_measured(FILE *fp, const study_part *pt)
{
    if (!pt->ran) return;
    const tvds_compare_result *r = &pt->res;
    if (r->nwindows == 0) {
        fprintf(fp, "\nNo window crossed: nothing to measure.\n");
        return;
    }
    fprintf(fp,
            "\nPredicted (CEA) against measured growth of the band envelope around each "
            "window's frequency (node crossings masked; `%s/report.md` and "
            "docs/burst-metrics.md for the metric): E(t1)/E(t0), in brackets the largest "
            "envelope after entry over E(t0).\n\n| f [Hz] | crossed t [s] | predicted |",
            pt->name);
    for (int k = 0; k < r->n; k++)
        fprintf(fp, " %s |", tvds_method_name(r->e[k].method));
    fprintf(fp, "\n|---|---|---|");
    for (int k = 0; k < r->n; k++)
        fprintf(fp, "---|");
    fprintf(fp, "\n");
    int nan_seen = 0;
    for (int w = 0; w < r->nwindows; w++) {
        const tvds_growth_window *g = &r->windows[w];
        fprintf(fp, "| %.0f | %.4f … %.4f | %.3g |", g->f_hz, g->t0, g->t1, g->growth_pred);
        for (int k = 0; k < r->n; k++) {
            double ge = r->e[k].growth_exit[w], gp = r->e[k].growth_peak[w];
            if (!isfinite(ge) || !isfinite(gp)) nan_seen = 1;
            if (isfinite(ge))
                fprintf(fp, " %.3g", ge);
            else
                fprintf(fp, " –");
            if (isfinite(gp))
                fprintf(fp, " (%.3g) |", gp);
            else
                fprintf(fp, " (–) |");
        }
        fprintf(fp, "\n");
    }
    if (nan_seen)
        fprintf(fp, "\n–: the band envelope is not defined there (the window reaches an end of "
                    "the record, or the envelope is zero at entry).\n");
}

static int run_part(const tvds_study_geom *g, const char *case_path, const tvds_cli_sets *sets,
                    const char *outdir, const tvds_cea_result *sv, const study_nodes *nd,
                    tvds_compare_opts o, int threads, int quiet, tvds_cli_progress *pg,
                    study_part *pt, tvds_ctx *ctx)
{
    double t0 = now_s();
    int wt = target(sv, nd), wall = strongest(sv);
    pt->clean = wt >= 0;
    if (wt < 0) wt = wall;
    pt->tw = sv->win[wt];
    pt->tall = sv->win[wall];
    pt->node_all = wall != wt ? window_node(sv, wall, nd) : NAN;
    char dir[2048], mdir[2100];
    snprintf(dir, sizeof dir, "%s/%s", outdir, pt->name);
    int rc = tvds_mkdir_p(dir, ctx);
    if (rc) return rc;
    snprintf(mdir, sizeof mdir, "%s/model", dir);
    /* The abscissa s and the x of C differ by the first master node's x (1 mm): take it from a
     * model with C at the default position. */
    tvds_model *m = NULL;
    rc = tvds_study_model(g, case_path, sets, mdir, 0.020, 1.0, pt->mu, &m, ctx);
    double s_ref = 0.0;
    if (!rc) rc = study_abscissa(g, m, &s_ref, ctx);
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    double x_minus_s = 0.020 - s_ref;
    const tvds_cea_window *tw = &pt->tw;
    double s_start = tw->s_in - travel(m, STUDY_T_ENTRY);
    double t_exit = time_at_travel(m, tw->s_out - s_start);
    pt->t_end = t_exit + STUDY_T_AFTER;
    pt->t_damp = tvds_study_damping_end(m);
    pt->s0_x = s_start + x_minus_s;
    tvds_model_free(&m);
    rc = tvds_study_model(g, case_path, sets, mdir, pt->s0_x, pt->t_end, pt->mu, &m, ctx);
    if (!rc) rc = study_abscissa(g, m, &pt->s_a, ctx);
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    /* CEA along the run's own path. */
    double s1 = pt->s_a + travel(m, pt->t_end) + 2.5e-4, s0 = pt->s_a - 2.5e-4;
    int npos = (int)ceil((s1 - s0) / STUDY_DS) + 1;
    double *pos = malloc((size_t)npos * sizeof *pos);
    if (!pos) {
        tvds_model_free(&m);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    }
    for (int i = 0; i < npos; i++)
        pos[i] = s0 + (s1 - s0) * i / (npos - 1);
    tvds_cea_options co = tvds_cea_options_default();
    co.nthreads = threads;
    co.ds_min = STUDY_DS_MIN;
    co.stop = tvds_cli_stop_flag();
    rc = study_cea(g, m, pos, npos, co, pt->s_a, pt->t_end, &pt->cea, ctx);
    free(pos);
    char cdir[2100];
    snprintf(cdir, sizeof cdir, "%s/cea", dir);
    if (!rc) rc = tvds_mkdir_p(cdir, ctx);
    if (!rc) rc = tvds_cea_write_csv(pt->cea, cdir, ctx);
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    if (!quiet)
        fprintf(stderr,
                "study:       (%s) mu = %g, C from x = %.3f mm, t_end = %.3f s: window %.2f ... "
                "%.2f mm entered at %.3f s\n",
                pt->name, pt->mu, 1e3 * pt->s0_x, pt->t_end, 1e3 * tw->s_in, 1e3 * tw->s_out,
                STUDY_T_ENTRY);
    /* The window studied, as the run's own CEA finds it (overlapping it, nearest in frequency),
     * gives the comparison's CEA frequency. */
    int wb = -1;
    for (int w = 0; w < pt->cea->nwin; w++) {
        const tvds_cea_window *cw = &pt->cea->win[w];
        if (isfinite(cw->growth_pred) && cw->s_in <= tw->s_out && cw->s_out >= tw->s_in &&
            (wb < 0 || fabs(cw->f_peak - tw->f_peak) < fabs(pt->cea->win[wb].f_peak - tw->f_peak)))
            wb = w;
    }
    if (wb >= 0) {
        o.f_cea = pt->cea->win[wb].f_peak;
        o.s_cea0 = pt->cea->win[wb].s_in;
        o.s_cea1 = pt->cea->win[wb].s_out;
    }
    pass_windows(&o, pt);
    o.progress = tvds_cli_progress_show;
    o.stage = tvds_cli_compare_stage;
    o.user = pg;
    o.stop = tvds_cli_stop_flag();
    rc = tvds_compare_run(m, dir, &o, &pt->res, ctx);
    tvds_cli_progress_clear(pg);
    tvds_model_free(&m);
    if (rc < 0) return rc;
    pt->ran = 1;
    pt->seconds = now_s() - t0;
    return TVDS_OK;
}

static void part_report(FILE *fp, const study_part *pt, const char *title)
{
    fprintf(fp, "\n## %s\n\n", title);
    if (!pt->cea) {
        fprintf(fp, "Not run.\n");
        return;
    }
    fprintf(fp,
            "μ = %g; C starts at x = %.3f mm (s = %.3f mm) and the run ends at t = %.3f s "
            "(model and CEA in `%s/`, comparison report [%s/report.md](%s/report.md)).\n\n",
            pt->mu, 1e3 * pt->s0_x, 1e3 * pt->s_a, pt->t_end, pt->name, pt->name, pt->name);
    double mh = tvds_compare_mask_half(pt->tw.f_peak, 0.0);
    fprintf(fp,
            "Window studied (entered at t = %.2f s): branch %d, s = %.3f … %.3f mm, %.0f Hz, "
            "predicted growth %.3g at the steady speed",
            STUDY_T_ENTRY, pt->tw.branch, 1e3 * pt->tw.s_in, 1e3 * pt->tw.s_out, pt->tw.f_peak,
            pt->tw.growth_pred);
    if (!pt->clean)
        fprintf(fp, ": no window of this μ is free of master nodes, so the strongest is studied "
                    "and its growth includes a node-crossing kick.\n\n");
    else if (isnan(pt->node_all))
        fprintf(fp,
                ", the strongest window, with no master node inside it (nor within ±%.2f ms "
                "× the sliding speed + %.2f mm of its edges).\n\n",
                1e3 * mh, 1e3 * STUDY_DS_MIN);
    else
        fprintf(fp,
                ", the strongest window with no master node inside it nor within ±%.2f ms (the "
                "masked span ±4τ of its band) × the sliding speed + %.2f mm (the CEA's position "
                "resolution) of its edges. The strongest window overall, s = %.3f … %.3f mm "
                "(predicted growth %.3g), is not studied: its master-node crossing at s = %.3f mm "
                "kicks the band broadband and seeds the envelope, so the growth measured there is "
                "not the instability's.\n\n",
                1e3 * mh, 1e3 * STUDY_DS_MIN, 1e3 * pt->tall.s_in, 1e3 * pt->tall.s_out,
                pt->tall.growth_pred, 1e3 * pt->node_all);
    fprintf(fp, "Windows of the CEA (about the preloaded sliding state, damped) on the run's "
                "path:\n\n| branch | s_in … s_out [mm] | f at max Re [Hz] | max Re [1/s] | "
                "crossed t [s] | predicted growth |\n|---|---|---|---|---|---|\n");
    for (int w = 0; w < pt->cea->nwin; w++) {
        const tvds_cea_window *cw = &pt->cea->win[w];
        fprintf(fp, "| %d | %.3f … %.3f | %.0f | %.4g | ", cw->branch, 1e3 * cw->s_in,
                1e3 * cw->s_out, cw->f_peak, cw->re_max);
        if (isfinite(cw->t_start))
            fprintf(fp, "%.4f … %.4f | %.3g%s |\n", cw->t_start, cw->t_end, cw->growth_pred,
                    cw->t_end < pt->t_damp ? " (crossed under the high damping: less)" : "");
        else
            fprintf(fp, "not crossed | – |\n");
    }
    part_measured(fp, pt);
}

static void study_report(FILE *fp, const tvds_study_geom *g, const char *case_path, double mu_case,
                         double t_damp, double v_ss, const tvds_cea_result *cd,
                         const tvds_cea_result *cu, const tvds_cea_result *cx, int wa, int nmu,
                         const double *mu_tab, const int *nw_tab, const double *re_tab,
                         const double *g_tab, int found, double mu_pick, int mu_given,
                         const tvds_cea_result *cmu, const study_nodes *nd, const study_part *pa,
                         const study_part *pb)
{
    fprintf(fp,
            "# Beam-on-beam squeal study%s\n\nCase `%s` (the paper's Table 1–2 values, "
            "docs/models.md), regenerated models (`model/`). Command: `tvds study %s%s%s%s%s -o "
            "DIR`.\n",
            g->dim3 ? " in 3D (both beams as solids)" : "", case_path, g->dim3 ? "--3d " : "",
            g->mesh_txt ? "--mesh " : "", g->mesh_txt ? g->mesh_txt : "", g->mesh_txt ? " " : "",
            case_path);
    tvds_bob_params mp = g->mesh ? *g->mesh : tvds_study_params(g->dim3);
    if (g->mesh)
        fprintf(fp,
                "\nMesh given by `--mesh`: beam 1 %s, beam 2 %s elements (the study's own "
                "mesh is the reference of `tvds study --convergence%s`, docs/models.md).\n",
                beam_mesh_name(&mp.beam1, g->dim3, (char[32]){0}, 32),
                beam_mesh_name(&mp.beam2, g->dim3, (char[32]){0}, 32), g->dim3 ? " --3d" : "");
    if (g->dim3)
        fprintf(fp,
                "\nThe pair as 8-node hexahedra with incompatible modes (`tvds model "
                "beam-on-beam-3d`, beam 1 %dx%dx%d, beam 2 %dx%dx%d elements along x, through "
                "the thickness and across the width), the tip C a line "
                "of slave nodes across beam 1's width, every one of them in the CEA. Positions "
                "s = x_C − %g mm, the 2D study's abscissa of the same x. Beam 2's face nodes lie "
                "on lines every %.3g mm of x (2D: edge nodes every 1 mm). The measured growth "
                "masks each slave node's crossings of face edges (`tvds compare`).\n",
                mp.beam1.nx, mp.beam1.ny, mp.beam1.nz, mp.beam2.nx, mp.beam2.ny, mp.beam2.nz,
                1e3 * STUDY_X0, 1e3 * mp.beam2.length / mp.beam2.nx);
    fprintf(fp,
            "\n## Departures from the paper\n\n"
            "- Mesh, retained DoFs, step, start position, duration: not given by the paper; tvds' "
            "choices are in docs/models.md (mesh from `tvds study --convergence`), the step is "
            "0.9 × the stability limit (`dt = auto`).\n"
            "- Each transient starts C where the window it studies is entered %.2f s after t = 0 "
            "(%.2f s after the damping schedule ends at %g s) and stops %.2f s after it leaves "
            "it; the paper's runs are long (hours of CPU) and their start is not given.\n"
            "- Part (b) uses the μ of the paper's own procedure (below) rather than 0.30; the "
            "paper chose μ so that instabilities arise (Section 3.1).\n"
            "- Each transient crosses the strongest window of its μ that holds no master node of "
            "beam 2 (%s every %.3g mm): a node crossing kicks the response broadband and seeds "
            "the band envelope, so a window holding one does not measure the instability's "
            "growth. The paper does not separate the two.\n"
            "- The locus of Fig. 4 is drawn undamped in the paper; tvds gives both.\n",
            STUDY_T_ENTRY, STUDY_T_ENTRY - t_damp, t_damp, STUDY_T_AFTER,
            g->dim3 ? "face lines" : "nodes",
            1e3 * mp.beam2.length / (g->dim3 ? mp.beam2.nx : 2 * mp.beam2.nx));
    fprintf(fp, "\n## CEA survey at μ = %g, s = %g … %g mm\n\n", mu_case, 1e3 * STUDY_S_LO,
            1e3 * STUDY_S_HI);
    fprintf(fp,
            "Predicted growth G = exp(∫ Re λ dt) while C crosses a window at the steady "
            "speed %.4g mm/s. Positions refined automatically down to 0.05 mm (%d, %d and %d "
            "positions); static normal force %.5g … %.5g N.\n\n",
            1e3 * v_ss, cd->npos, cu->npos, cx->npos, cd->lambda_n[0], cd->lambda_n[cd->npos - 1]);
    fprintf(fp, "**About the preloaded sliding state, damped** (`cea/unstable.csv`):\n\n");
    windows_table(fp, cd, strongest(cd), wa, 1e3 * v_ss);
    fprintf(fp, "\n**About the preloaded sliding state, undamped** (the paper's Fig. 4; "
                "`cea/unstable_undamped.csv`):\n\n");
    windows_table(fp, cu, strongest(cu), -1, 1e3 * v_ss);
    fprintf(fp, "\n**About the undeformed geometry, damped** (subs-a-consistent; "
                "`cea/unstable_undeformed.csv`):\n\n");
    windows_table(fp, cx, strongest(cx), -1, 1e3 * v_ss);
    fprintf(fp, "\n![stability](cea/stability.png)\n");
    fprintf(fp, "\n## The paper's procedure for μ\n\n");
    if (mu_given)
        fprintf(fp, "μ = %g given on the command line (`--mu`).\n", mu_pick);
    else {
        fprintf(fp,
                "CEA (preloaded, damped) at μ = %g, %g, … until some window's predicted "
                "growth reaches %g (an amplitude ratio of %g, %.0f dB):\n\n| μ | windows | max "
                "Re [1/s] | largest predicted growth |\n|---|---|---|---|\n",
                STUDY_MU_LO, STUDY_MU_LO + STUDY_MU_STEP, STUDY_G_MIN, STUDY_G_MIN,
                20 * log10(STUDY_G_MIN));
        for (int k = 0; k < nmu; k++)
            if (nw_tab[k] > 0)
                fprintf(fp, "| %.2f | %d | %.4g | %.3g |\n", mu_tab[k], nw_tab[k], re_tab[k],
                        g_tab[k]);
            else
                fprintf(fp, "| %.2f | 0 | – | – |\n", mu_tab[k]);
        if (found)
            fprintf(fp,
                    "\nChosen: **μ = %.2f**, the lowest μ of the grid whose strongest window "
                    "reaches the threshold.\n",
                    mu_pick);
        else
            fprintf(fp, "\nNo μ up to %g reaches it: part (b) is not run.\n", STUDY_MU_HI);
    }
    if (found && cmu) {
        fprintf(fp, "\nWindows at μ = %.2f:\n\n", mu_pick);
        windows_table(fp, cmu, strongest(cmu), target(cmu, nd), 1e3 * v_ss);
    }
    part_report(fp, pa, "(a) The paper's values");
    if (pa->cea && wa >= 0 && cd->win[wa].growth_pred < STUDY_G_MIN)
        fprintf(fp,
                "\nWhy no burst is expected at μ = %g: the window studied is %.3f mm wide and "
                "its largest real part is %.3g 1/s; crossed at %.4g mm/s (%.1f ms) it predicts an "
                "amplitude ratio of %.3g, below the %g of a visible burst (∫ Re dt = %.3g against "
                "ln %g = %.3g).\n",
                mu_case, 1e3 * fabs(cd->win[wa].s_out - cd->win[wa].s_in), cd->win[wa].re_max,
                1e3 * v_ss, 1e3 * fabs(cd->win[wa].s_out - cd->win[wa].s_in) / v_ss,
                cd->win[wa].growth_pred, STUDY_G_MIN, log(cd->win[wa].growth_pred), STUDY_G_MIN,
                log(STUDY_G_MIN));
    part_report(fp, pb, "(b) The μ of the paper's procedure: all methods");
}

/* The study's stages and the folders they write (report.md's "Outputs" table). */
enum { ST_MODEL, ST_CEA, ST_MU, ST_A, ST_B, ST_N };
enum { SS_NOT_RUN = 0, SS_RUNNING, SS_DONE, SS_SKIPPED };
static const char *const stage_names[ST_N] = {"models", "CEA survey", "procedure for mu",
                                              "part (a) transients", "part (b) transients"};
static const char *const stage_dirs[ST_N] = {"model/", "cea/", "cea_mu<MU>/", "a/", "b/"};

/* The table of report.md: which folder holds this study's outputs, whole or not. */
static void stage_table(FILE *fp, const int *st)
{
    fputs("\n## Outputs of this study\n\n| stage | folder | state |\n|---|---|---|\n", fp);
    for (int k = 0; k < ST_N; k++) {
        const char *w = st[k] == SS_DONE      ? "complete"
                        : st[k] == SS_RUNNING ? "**incomplete**: stopped in this stage (what it "
                                                "holds is partial)"
                        : st[k] == SS_SKIPPED ? "not needed (nothing written)"
                        : k == ST_MODEL       ? "not written"
                                              : "not written (an earlier study's outputs were "
                                                "removed at the start)";
        fprintf(fp, "| %s | `%s` | %s |\n", stage_names[k], stage_dirs[k], w);
    }
}

/* report.md replaced whole (temporary file, then rename) by a short one: the study's status, the
 * message and the stage table. */
static void status_report(const char *outdir, const char *title, const char *status,
                          const char *msg, const int *st)
{
    char rp[2100], tp[2110];
    snprintf(rp, sizeof rp, "%s/report.md", outdir);
    snprintf(tp, sizeof tp, "%s.tmp", rp);
    FILE *fp = fopen(tp, "w");
    if (!fp) return;
    fprintf(fp, "# %s\n\nStatus: %s\n", title, status);
    if (msg && *msg) fprintf(fp, "\n%s\n", msg);
    stage_table(fp, st);
    if ((fclose(fp) != 0) | (rename(tp, rp) != 0)) remove(tp);
}

/* Remove what an earlier study wrote (report.md, the CEA folders, the transients' folders), so
 * that nothing of it can be taken for this study's. Names tvds writes only: a user's files,
 * and the folders holding them, stay. model/ is rewritten by the first stage. */
static int clear_stale(tvds_outdir *od, const char *outdir, tvds_ctx *ctx)
{
    static const char *const top[] = {"report.md", "report.md.tmp"};
    static const char *const cea[] = {"locus.csv",
                                      "unstable.csv",
                                      "locus_undamped.csv",
                                      "unstable_undamped.csv",
                                      "locus_undeformed.csv",
                                      "unstable_undeformed.csv",
                                      "locus.png",
                                      "stability.png",
                                      "locus.gp",
                                      "stability.gp",
                                      "locus.csv.tmp",
                                      "unstable.csv.tmp",
                                      "locus_undamped.csv.tmp",
                                      "unstable_undamped.csv.tmp",
                                      "locus_undeformed.csv.tmp",
                                      "unstable_undeformed.csv.tmp"};
    static const char *const subs[] = {"beam1", "beam2", "beam1_full", "beam2_full"};
    static const char *const mfiles[] = {"M.mtx",        "K.mtx",     "C.mtx",
                                         "dofs.txt",     "sets.txt",  "recovery.txt",
                                         "recovery.mtx", "nodes.txt", "case.ini"};
    char d[2300], e[2400];
    int rc = tvds_outdir_clear(od, top, 2, ctx);
    const int ncea = (int)(sizeof cea / sizeof *cea), nm = (int)(sizeof mfiles / sizeof *mfiles);
    snprintf(d, sizeof d, "%s/cea", outdir);
    if (!rc) rc = tvds_outdir_remove(d, cea, ncea, ctx);
    for (int k = 0; !rc; k++) {
        double mu = STUDY_MU_LO + k * STUDY_MU_STEP;
        if (mu > STUDY_MU_HI + 1e-9) break;
        snprintf(d, sizeof d, "%s/cea_mu%.2f", outdir, mu);
        rc = tvds_outdir_remove(d, cea, ncea, ctx);
    }
    for (int k = 0; !rc && k < 2; k++) {
        const char *part = k ? "b" : "a";
        snprintf(d, sizeof d, "%s/%s/cea", outdir, part);
        rc = tvds_outdir_remove(d, cea, ncea, ctx);
        for (int j = 0; !rc && j < 4; j++) {
            snprintf(e, sizeof e, "%s/%s/model/%s", outdir, part, subs[j]);
            rc = tvds_outdir_remove(e, mfiles, nm, ctx);
        }
        snprintf(d, sizeof d, "%s/%s/model", outdir, part);
        if (!rc) rc = tvds_outdir_remove(d, NULL, 0, ctx);
        snprintf(d, sizeof d, "%s/%s", outdir, part);
        if (!rc) rc = tvds_compare_clear(d, ctx);
    }
    return rc;
}

int tvds_cmd_study(int argc, char **argv)
{
    const char *case_path = NULL, *outdir = NULL, *val, *mesh_txt = NULL;
    double ds = STUDY_DS, mu_user = 0.0, v;
    tvds_bob_params mesh_p;
    int quiet = 0, threads = 0, plots = 1, code = 2, r, notrans = 0;
    tvds_study_geom geom = {0};
    tvds_cli_sets sets = {0};
    tvds_compare_opts oa = tvds_compare_opts_default(), ob = tvds_compare_opts_default();
    oa.nmethods = 2;
    oa.methods[0] = TVDS_METHOD_SUBS_B;
    oa.methods[1] = TVDS_METHOD_FILM;
    ob.nmethods = 4;
    ob.methods[0] = TVDS_METHOD_SUBS_A;
    ob.methods[1] = TVDS_METHOD_SUBS_B;
    ob.methods[2] = TVDS_METHOD_SUBS_C;
    ob.methods[3] = TVDS_METHOD_FILM;
    const tvds_cli_opt opts[] = {{"--quiet", "-q", NULL, &quiet, 1},
                                 {"--no-plots", NULL, NULL, &plots, 0},
                                 {"--no-transients", NULL, NULL, &notrans, 1},
                                 {"--3d", NULL, NULL, &geom.dim3, 1},
                                 {"--out", "-o", &outdir, NULL, 0},
                                 {NULL, NULL, NULL, NULL, 0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tvds_cli_is_help(a)) {
            study_help(stdout);
            tvds_cli_sets_free(&sets);
            return 0;
        } else if ((r = tvds_cli_opt_table(argc, argv, &i, opts)) != 0) {
            if (r < 0) goto usage_fail;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--ds", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &ds) || ds <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --ds '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mu", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &mu_user) || mu_user <= 0) {
                if (r > 0) tvds_cli_usage_error("study: --mu '%s' is not a positive number", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--mesh", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            mesh_txt = val;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--modes", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 1 || v > 500 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("study: --modes '%s' is not a count 1..500", val);
                goto usage_fail;
            }
            geom.nmodes = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--threads", NULL, &val)) != 0) {
            if (r < 0 || tvds_cli_parse_double(val, &v) || v < 0 || v != floor(v)) {
                if (r > 0) tvds_cli_usage_error("study: --threads '%s' is not a count", val);
                goto usage_fail;
            }
            threads = (int)v;
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, &ob)) {
                tvds_cli_usage_error("study: bad --methods '%s'", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_opt_value(argc, argv, &i, "--methods-a", NULL, &val)) != 0) {
            if (r < 0) goto usage_fail;
            if (tvds_cli_parse_methods(val, &oa)) {
                tvds_cli_usage_error("study: bad --methods-a '%s'", val);
                goto usage_fail;
            }
        } else if ((r = tvds_cli_case_or_set(argc, argv, &i, "study", &sets, &case_path)) != 0) {
            code = r;
            goto usage_fail;
        }
    }
    if (!case_path || !outdir) {
        tvds_cli_usage_error("study: need CASE and -o DIR (see 'tvds study --help')");
        goto usage_fail;
    }
    if (mesh_txt) {
        const char *mp = mesh_txt;
        int mm = 0;
        if (tvds_study_parse_mesh(&mp, geom.dim3, &mesh_p, &mm) || *mp) {
            tvds_cli_usage_error(geom.dim3
                                     ? "study: bad --mesh '%s' (want N1XxN1YxN1Z/N2XxN2YxN2Z, "
                                       "e.g. 80x2x4/50x8x4)"
                                     : "study: bad --mesh '%s' (want N1XxN1Y/N2XxN2Y, e.g. "
                                       "100x2/50x4)",
                                 mesh_txt);
            goto usage_fail;
        }
        geom.mesh = &mesh_p;
        geom.mesh_txt = mesh_txt;
    }
    FILE *cf = fopen(case_path, "r");
    if (!cf) {
        tvds_cli_usage_error("%s: cannot open: %s", case_path, strerror(errno));
        goto usage_fail;
    }
    fclose(cf);

    double t_start = now_s(), t_cea = 0, t_mu = 0;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    int rc;
    code = 0;
    /* Ctrl-C, SIGTERM, SIGHUP: every stage stops cleanly (the CEA between positions, the runs
     * between steps) and report.md says where the study was interrupted. */
    const char *stage = "model";
    volatile sig_atomic_t *stop = tvds_cli_stop_flag();
    tvds_cli_sigint(1);
    tvds_model *m = NULL;
    tvds_cea_result *cd = NULL, *cu = NULL, *cx = NULL, *cmu = NULL;
    const tvds_cea_result *chosen = NULL; /* the CEA of the chosen mu (cd or cmu) */
    double *pos = NULL;
    double mu_tab[32], g_tab[32], re_tab[32];
    int nw_tab[32], nmu = 0;
    study_part pa, pb;
    study_nodes nodes = {NULL, 0, 0.0};
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    pa.name = "a";
    pb.name = "b";
    char mdir[2048], cdir[2048];
    tvds_cli_progress pg;
    tvds_cli_progress_init(&pg, quiet, "study");
    oa.plots = ob.plots = plots;
    int st[ST_N] = {0};
    tvds_outdir *od = NULL;

    /* DIR belongs to this study (a second one refuses at once); what an earlier study left
     * there goes, and report.md says "running" until it says how this one ended. */
    if ((rc = tvds_outdir_open(outdir, &od, &ctx))) {
        code = tvds_cli_report(rc, &ctx);
        goto done;
    }
    if ((rc = clear_stale(od, outdir, &ctx))) goto fail;
    status_report(outdir, "Beam-on-beam study: running", "**running**", NULL, st);

    /* 1. Model (C at the default x = 20 mm: the CEA does not depend on where C starts). */
    st[ST_MODEL] = SS_RUNNING;
    snprintf(mdir, sizeof mdir, "%s/model", outdir);
    if ((rc = tvds_study_model(&geom, case_path, &sets, mdir, 0.020, 0.0, 0.0, &m, &ctx)))
        goto fail;
    st[ST_MODEL] = SS_DONE;
    if (*stop) goto interrupted;
    double mu_case = m->contacts[0].mu_k, t_damp = tvds_study_damping_end(m);
    double v_ss = fabs(tvds_fn_deriv(&m->contacts[0].slave_kin[0], t_damp, 1));
    nodes.v = v_ss;
    if ((rc = master_abscissae(&geom, m, &nodes.S, &nodes.ns, &ctx))) goto fail;
    if (!quiet)
        fprintf(stderr,
                "study: [1/4] beam-on-beam models -> %s (%.2f s); mu = %g, damping "
                "schedule ends at %g s, steady speed %.4g mm/s\n",
                mdir, now_s() - t_start, mu_case, t_damp, 1e3 * v_ss);

    /* 2. CEA survey at the case's mu. */
    int npos = (int)ceil((STUDY_S_HI - STUDY_S_LO) / ds) + 1;
    pos = malloc((size_t)npos * sizeof *pos);
    if (!pos) {
        rc = TVDS_ERROR(&ctx, TVDS_ERR_NOMEM, "study: out of memory");
        goto fail;
    }
    for (int i = 0; i < npos; i++)
        pos[i] = STUDY_S_LO + (STUDY_S_HI - STUDY_S_LO) * i / (npos - 1);
    double tc = now_s();
    stage = "CEA survey";
    st[ST_CEA] = SS_RUNNING;
    geom.progress = &pg;
    if (!quiet)
        fprintf(stderr,
                "study: [2/4] CEA survey, s = %g ... %g mm (%d positions + refinement), "
                "deformed damped / undamped, undeformed damped\n",
                1e3 * STUDY_S_LO, 1e3 * STUDY_S_HI, npos);
    tvds_cli_progress_init(&pg, quiet, "study: CEA deformed");
    if ((rc = tvds_study_survey(&geom, m, pos, npos, TVDS_CEA_DEFORMED, 0, threads, t_damp, &cd,
                                &ctx)))
        goto fail;
    tvds_cli_progress_init(&pg, quiet, "study: CEA undamped");
    if ((rc = tvds_study_survey(&geom, m, pos, npos, TVDS_CEA_DEFORMED, 1, threads, t_damp, &cu,
                                &ctx)))
        goto fail;
    tvds_cli_progress_init(&pg, quiet, "study: CEA undeformed");
    if ((rc = tvds_study_survey(&geom, m, pos, npos, TVDS_CEA_UNDEFORMED, 0, threads, t_damp, &cx,
                                &ctx)))
        goto fail;
    snprintf(cdir, sizeof cdir, "%s/cea", outdir);
    if ((rc = tvds_mkdir_p(cdir, &ctx))) goto fail;
    if ((rc = tvds_cea_write_csv(cd, cdir, &ctx))) goto fail;
    if ((rc = tvds_cea_write_csv_tag(cu, cdir, "_undamped", &ctx))) goto fail;
    if ((rc = tvds_cea_write_csv_tag(cx, cdir, "_undeformed", &ctx))) goto fail;
    if (plots) {
        tvds_ctx pc;
        tvds_ctx_init(&pc);
        tvds_cea_plot(cd, cdir, &pc);
    }
    t_cea = now_s() - tc;
    st[ST_CEA] = SS_DONE;
    int wa = target(cd, &nodes);
    if (wa < 0) wa = strongest(cd);
    if (!quiet)
        fprintf(stderr,
                "study:       deformed: %d window(s), max Re %.4g 1/s; undamped: %d, max Re %.4g; "
                "undeformed: %d, max Re %.4g (%.1f s)\n",
                cd->nwin, max_re(cd), cu->nwin, max_re(cu), cx->nwin, max_re(cx), t_cea);

    /* 3. The paper's procedure for mu. */
    double tm = now_s(), mu_pick = mu_user;
    stage = "procedure for mu";
    st[ST_MU] = SS_RUNNING;
    int found = 0;
    if (mu_user <= 0) {
        for (int k = 0; nmu < 32; k++) {
            double mu = STUDY_MU_LO + k * STUDY_MU_STEP;
            if (mu > STUDY_MU_HI + 1e-9) break;
            const tvds_cea_result *cur = cd; /* the survey is this mu's CEA */
            if (fabs(mu - mu_case) > 1e-12) {
                m->contacts[0].mu_k = m->contacts[0].mu_s = mu;
                tvds_cea_result_free(&cmu);
                char pfx[64];
                snprintf(pfx, sizeof pfx, "study: CEA mu = %.2f", mu);
                tvds_cli_progress_init(&pg, quiet, pfx);
                if ((rc = tvds_study_survey(&geom, m, pos, npos, TVDS_CEA_DEFORMED, 0, threads,
                                            t_damp, &cmu, &ctx)))
                    goto fail;
                cur = cmu;
            }
            int w = strongest(cur);
            mu_tab[nmu] = mu;
            nw_tab[nmu] = cur->nwin;
            re_tab[nmu] = max_re(cur);
            g_tab[nmu] = w >= 0 ? cur->win[w].growth_pred : NAN;
            if (!quiet)
                fprintf(stderr,
                        "study: [3/4] mu = %.2f: %d window(s), max Re %.4g 1/s, largest "
                        "predicted growth %.3g\n",
                        mu, cur->nwin, re_tab[nmu], g_tab[nmu]);
            nmu++;
            if (w >= 0 && cur->win[w].growth_pred >= STUDY_G_MIN) {
                mu_pick = mu;
                found = 1;
                chosen = cur;
                char sub[2200];
                snprintf(sub, sizeof sub, "%s/cea_mu%.2f", outdir, mu);
                if (!(rc = tvds_mkdir_p(sub, &ctx))) rc = tvds_cea_write_csv(cur, sub, &ctx);
                if (rc) goto fail;
                break;
            }
        }
    } else {
        m->contacts[0].mu_k = m->contacts[0].mu_s = mu_user;
        if ((rc = tvds_study_survey(&geom, m, pos, npos, TVDS_CEA_DEFORMED, 0, threads, t_damp,
                                    &cmu, &ctx)))
            goto fail;
        found = strongest(cmu) >= 0;
        chosen = cmu;
    }
    m->contacts[0].mu_k = m->contacts[0].mu_s = mu_case;
    t_mu = now_s() - tm;
    st[ST_MU] = SS_DONE;
    geom.progress = NULL;
    tvds_cli_progress_init(&pg, quiet, "study");
    if (!found && !quiet)
        fprintf(stderr,
                "study:       no mu up to %g gives a predicted growth of %g: part (b) "
                "skipped\n",
                STUDY_MU_HI, STUDY_G_MIN);

    /* 4. Transients. */
    if (!notrans) {
        stage = "transients";
        if (!quiet) fprintf(stderr, "study: [4/4] transients\n");
        st[ST_A] = wa >= 0 ? SS_RUNNING : SS_SKIPPED;
        if (wa >= 0) {
            pa.mu = mu_case;
            if ((rc = run_part(&geom, case_path, &sets, outdir, cd, &nodes, oa, threads, quiet, &pg,
                               &pa, &ctx)))
                goto fail;
            st[ST_A] = SS_DONE;
        }
        st[ST_B] = found ? SS_RUNNING : SS_SKIPPED;
        if (found) {
            pb.mu = mu_pick;
            if ((rc = run_part(&geom, case_path, &sets, outdir, chosen, &nodes, ob, threads, quiet,
                               &pg, &pb, &ctx)))
                goto fail;
            st[ST_B] = SS_DONE;
        }
    } else {
        st[ST_A] = st[ST_B] = SS_SKIPPED;
    }

    /* 5. The report. */
    {
        char path[2100], tpath[2110];
        snprintf(path, sizeof path, "%s/report.md", outdir);
        snprintf(tpath, sizeof tpath, "%s.tmp", path);
        FILE *fp = fopen(tpath, "w");
        if (!fp) {
            rc = TVDS_ERROR(&ctx, TVDS_ERR_IO, "%s: cannot write", tpath);
            goto fail;
        }
        study_report(fp, &geom, case_path, mu_case, t_damp, v_ss, cd, cu, cx, wa, nmu, mu_tab,
                     nw_tab, re_tab, g_tab, found, mu_pick, mu_user > 0, chosen, &nodes, &pa, &pb);
        fprintf(fp,
                "\n## Wall time\n\n| stage | wall [s] |\n|---|---|\n| CEA survey (3 loci) | %.1f "
                "|\n| procedure for mu | %.1f |\n| part (a) | %.1f |\n| part (b) | %.1f |\n| "
                "total | %.1f |\n",
                t_cea, t_mu, pa.seconds, pb.seconds, now_s() - t_start);
        stage_table(fp, st);
        if ((fclose(fp) != 0) | (rename(tpath, path) != 0)) {
            remove(tpath);
            rc = TVDS_ERROR(&ctx, TVDS_ERR_WRITE, "%s: write failed", path);
            goto fail;
        }
        if (!quiet) fprintf(stderr, "study: report %s\n", path);
    }
    if (cd->nwin > 0)
        printf("study: mu = %g (paper): %d window(s) on s = %g ... %g mm, max Re %.4g 1/s, "
               "largest predicted growth %.3g\n",
               mu_case, cd->nwin, 1e3 * STUDY_S_LO, 1e3 * STUDY_S_HI, max_re(cd),
               strongest(cd) >= 0 ? cd->win[strongest(cd)].growth_pred : NAN);
    else
        printf("study: mu = %g (paper): no window on s = %g ... %g mm\n", mu_case, 1e3 * STUDY_S_LO,
               1e3 * STUDY_S_HI);
    if (mu_user > 0)
        printf("study: mu of part (b): %g (--mu)\n", mu_pick);
    else if (found)
        printf("study: procedure for mu: mu = %g (lowest with predicted growth >= %g)\n", mu_pick,
               STUDY_G_MIN);
    else
        printf("study: procedure for mu: no mu up to %g gives a predicted growth of %g\n",
               STUDY_MU_HI, STUDY_G_MIN);
    if (pa.ran) tvds_cli_compare_print(&pa.res, outdir);
    if (pb.ran) tvds_cli_compare_print(&pb.res, outdir);
    if (!quiet) fprintf(stderr, "study: done in %.1f s\n", now_s() - t_start);
    goto done;

interrupted:
    if (*stop && rc == TVDS_OK)
        rc = TVDS_ERROR(&ctx, TVDS_ERR_INTERRUPTED, "study: interrupted after the %s stage", stage);
fail:
    tvds_cli_progress_clear(&pg);
    if (rc == TVDS_ERR_INTERRUPTED) {
        /* The study's summary: report.md replaced (whole) by the reason it stopped and the
         * state of each stage's folder. */
        char status[160], msg[sizeof ctx.msg + 300];
        snprintf(status, sizeof status, "**interrupted** (%s) during the %s stage, after %.1f s.",
                 tvds_cli_signal_name((int)*stop), stage, now_s() - t_start);
        snprintf(msg, sizeof msg,
                 "%s\n\nThe folders marked complete below are whole (for the transients, each "
                 "method's summary.json says \"interrupted\" for the run that was stopped); run "
                 "the study again to complete it.",
                 ctx.msg);
        if (st[ST_CEA] == SS_RUNNING) {
            /* Keep the loci finished or begun, each holding the positions solved. */
            tvds_ctx wc;
            tvds_ctx_init(&wc);
            snprintf(cdir, sizeof cdir, "%s/cea", outdir);
            int w = tvds_mkdir_p(cdir, &wc);
            if (!w && cd) w = tvds_cea_write_csv(cd, cdir, &wc);
            if (!w && cu) w = tvds_cea_write_csv_tag(cu, cdir, "_undamped", &wc);
            if (!w && cx) w = tvds_cea_write_csv_tag(cx, cdir, "_undeformed", &wc);
            size_t l = strlen(msg);
            snprintf(msg + l, sizeof msg - l,
                     "\n\n`cea/` holds the loci the survey finished or began: %s%s%s (a locus "
                     "begun holds only the positions solved before the stop: %d, %d, %d).",
                     cd ? "locus.csv" : "none", cu ? ", locus_undamped.csv" : "",
                     cx ? ", locus_undeformed.csv" : "", cd ? cd->npos : 0, cu ? cu->npos : 0,
                     cx ? cx->npos : 0);
        }
        status_report(outdir, "Beam-on-beam study: interrupted", status, msg, st);
    } else if (rc != TVDS_ERR_BUSY && !(geom.dim3 && !strcmp(stage, "CEA survey"))) {
        char status[160];
        snprintf(status, sizeof status, "**failed** (%s) during the %s stage.",
                 tvds_status_name(rc), stage);
        status_report(outdir, "Beam-on-beam study: failed", status, ctx.msg, st);
    } else if (geom.dim3 && !strcmp(stage, "CEA survey")) {
        /* The 3D study needs the CEA with several slave nodes on a face-set master: say so
         * in report.md beside the models it did generate. */
        char rp[2100];
        snprintf(rp, sizeof rp, "%s/report.md", outdir);
        FILE *fp = fopen(rp, "w");
        if (fp) {
            fprintf(fp,
                    "# Beam-on-beam study in 3D: stopped at the CEA survey\n\n%s\n\nThe 3D "
                    "models are in `model/` (the case `%s` runs on them with `tvds run`); the "
                    "CEA survey, the windows and the transients across them need the CEA of the "
                    "tip line (every slave node) on beam 2's face set about the preloaded "
                    "state.\n",
                    ctx.msg, case_path);
            double off = 0.0;
            tvds_ctx oc;
            tvds_ctx_init(&oc);
            if (m && study_abscissa(&geom, m, &off, &oc) == TVDS_OK)
                fprintf(fp,
                        "\nA position in a CEA message is the tip line's travel from its "
                        "placement; the study's s (x_C - %g mm) is that travel + %.4g mm.\n",
                        1e3 * STUDY_X0, 1e3 * off);
            fclose(fp);
        }
    }
    code = tvds_cli_report(rc, &ctx);
done:
    tvds_cli_sigint(0);
    tvds_outdir_close(&od);
    free(pos);
    tvds_free(nodes.S);
    tvds_cea_result_free(&cd);
    tvds_cea_result_free(&cu);
    tvds_cea_result_free(&cx);
    tvds_cea_result_free(&cmu);
    tvds_cea_result_free(&pa.cea);
    tvds_cea_result_free(&pb.cea);
    tvds_model_free(&m);
    tvds_cli_sets_free(&sets);
    return code;

usage_fail:
    tvds_cli_sets_free(&sets);
    return code;
}
