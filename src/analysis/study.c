/* study.c — the beam-on-beam squeal study (include/tvds/tvds_study.h, docs/squeal.md): the
 * models, the CEA survey, the paper's procedure for mu, transients across a node-free unstable
 * window, report.md. Progress goes to the caller's callbacks; `tvds study` (cli/cmd_study.c)
 * prints it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/study_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_compare.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "tvds/tvds_study.h"

/* One line of progress to the caller (o->note), formatted. */
static void study_note(const tvds_study_opts *o, const char *fmt, ...)
{
    if (!o->note) return;
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    o->note(o->user, text);
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

int tvds_study_model(const tvds_study_geom *g, const char *case_path, const char *const *sets,
                     int nsets, const char *mdir, double s0, double t_end, double mu,
                     tvds_model **m, tvds_ctx *ctx)
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
    const char **all = malloc((size_t)(nsets + 6) * sizeof *all);
    if (!all) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    int k = 0;
    all[k++] = ovr[0];
    all[k++] = ovr[1];
    all[k++] = ovr_a[0];
    all[k++] = ovr_a[1];
    if (g->dim3) all[k++] = ovr_a[2];
    if (t_end > 0) all[k++] = ovr[2];
    for (int i = 0; i < nsets; i++)
        all[k++] = sets[i];
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
    if (g->positions) {
        co.progress = g->positions;
        co.user = g->user;
    }
    rc = tvds_cea_run(m, 0, q ? q : s, npos, &co, out, ctx);
    if (g->positions && g->positions_end) g->positions_end(g->user);
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
    co.stop = g->stop;
    co.nthreads = threads;
    co.state = state;
    co.undamped = undamped;
    co.ds_min = TVDS_STUDY_DS_MIN;
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

/* The CEA windows crossed by a part's path, for the band-envelope growth of the comparison. */
static void pass_windows(tvds_compare_opts *o, study_part *pt, int wb)
{
    int n = 0;
    o->judge_window = -1;
    for (int w = 0; w < pt->cea->nwin && n < TVDS_COMPARE_MAX_WINDOWS; w++) {
        const tvds_cea_window *cw = &pt->cea->win[w];
        if (!isfinite(cw->t_start)) continue;
        if (w == wb) o->judge_window = n; /* the findings on the window studied */
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

static int run_part(const tvds_study_opts *so, const tvds_study_geom *g, const char *case_path,
                    const char *outdir, const tvds_cea_result *sv, const study_nodes *nd,
                    tvds_compare_opts o, study_part *pt, tvds_ctx *ctx)
{
    const char *const *sets = so->sets;
    int nsets = so->nsets, threads = so->threads;
    double t0 = now_s();
    int wt = study_target(sv, nd), wall = study_strongest(sv);
    pt->clean = wt >= 0;
    if (wt < 0) wt = wall;
    pt->tw = sv->win[wt];
    pt->tall = sv->win[wall];
    pt->node_all = wall != wt ? study_window_node(sv, wall, nd) : NAN;
    char dir[2048], mdir[2100];
    snprintf(dir, sizeof dir, "%s/%s", outdir, pt->name);
    int rc = tvds_mkdir_p(dir, ctx);
    if (rc) return rc;
    snprintf(mdir, sizeof mdir, "%s/model", dir);
    /* The abscissa s and the x of C differ by the first master node's x (1 mm): take it from a
     * model with C at the default position. */
    tvds_model *m = NULL;
    rc = tvds_study_model(g, case_path, sets, nsets, mdir, 0.020, 1.0, pt->mu, &m, ctx);
    double s_ref = 0.0;
    if (!rc) rc = study_abscissa(g, m, &s_ref, ctx);
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    double x_minus_s = 0.020 - s_ref;
    const tvds_cea_window *tw = &pt->tw;
    double s_start = tw->s_in - travel(m, TVDS_STUDY_T_ENTRY);
    double t_exit = time_at_travel(m, tw->s_out - s_start);
    pt->t_end = t_exit + TVDS_STUDY_T_AFTER;
    pt->t_damp = tvds_study_damping_end(m);
    pt->s0_x = s_start + x_minus_s;
    tvds_model_free(&m);
    rc = tvds_study_model(g, case_path, sets, nsets, mdir, pt->s0_x, pt->t_end, pt->mu, &m, ctx);
    if (!rc) rc = study_abscissa(g, m, &pt->s_a, ctx);
    if (rc) {
        tvds_model_free(&m);
        return rc;
    }
    /* CEA along the run's own path. */
    double s1 = pt->s_a + travel(m, pt->t_end) + 2.5e-4, s0 = pt->s_a - 2.5e-4;
    int npos = (int)ceil((s1 - s0) / TVDS_STUDY_DS) + 1;
    double *pos = malloc((size_t)npos * sizeof *pos);
    if (!pos) {
        tvds_model_free(&m);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    }
    for (int i = 0; i < npos; i++)
        pos[i] = s0 + (s1 - s0) * i / (npos - 1);
    tvds_cea_options co = tvds_cea_options_default();
    co.nthreads = threads;
    co.ds_min = TVDS_STUDY_DS_MIN;
    co.stop = g->stop;
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
    study_note(so,
               "study:       (%s) mu = %g, C from x = %.3f mm, t_end = %.3f s: window %.2f ... "
               "%.2f mm entered at %.3f s\n",
               pt->name, pt->mu, 1e3 * pt->s0_x, pt->t_end, 1e3 * tw->s_in, 1e3 * tw->s_out,
               TVDS_STUDY_T_ENTRY);
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
    pass_windows(&o, pt, wb);
    /* The solids' step costs tens of times the beams': shorter interleaved rounds. */
    if (g->dim3 && o.cpu_steps == 0) o.cpu_steps = 1024;
    o.stop = g->stop;
    rc = tvds_compare_run(m, dir, &o, &pt->res, ctx);
    if (g->positions_end) g->positions_end(g->user);
    tvds_model_free(&m);
    if (rc < 0) return rc;
    pt->ran = 1;
    pt->seconds = now_s() - t0;
    return TVDS_OK;
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
        double mu = TVDS_STUDY_MU_LO + k * TVDS_STUDY_MU_STEP;
        if (mu > TVDS_STUDY_MU_HI + 1e-9) break;
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

/* ---- The study's stages ---------------------------------------------------------------------- */

static void study_stage(const tvds_study_opts *o, const char *prefix)
{
    if (o->stage) o->stage(o->user, prefix);
}

tvds_study_opts tvds_study_opts_default(void)
{
    tvds_study_opts o;
    memset(&o, 0, sizeof o);
    o.ds = TVDS_STUDY_DS;
    o.transients = 1;
    o.plots = 1;
    o.a = tvds_compare_opts_default();
    o.a.nmethods = 2;
    o.a.methods[0] = TVDS_METHOD_SUBS_B;
    o.a.methods[1] = TVDS_METHOD_FILM;
    o.b = tvds_compare_opts_default();
    o.b.nmethods = 4;
    o.b.methods[0] = TVDS_METHOD_SUBS_A;
    o.b.methods[1] = TVDS_METHOD_SUBS_B;
    o.b.methods[2] = TVDS_METHOD_SUBS_C;
    o.b.methods[3] = TVDS_METHOD_FILM;
    /* The CPU verdict from interleaved rounds (docs/squeal.md, "CPU time"). */
    o.a.cpu_rounds = o.b.cpu_rounds = 16;
    return o;
}

/* Everything one study holds between its stages. */
typedef struct study_state {
    const tvds_study_opts *o;
    tvds_study_geom geom; /* o->geom; positions shown during the survey and the procedure only */
    const char *case_path, *outdir;
    const char *stage; /* the stage running, for the messages */
    int st[ST_N];      /* state of each stage's folder (SS_*) */
    double t_start, t_cea, t_mu;
    tvds_model *m;
    double mu_case, t_damp, v_ss;
    study_nodes nodes;
    double *pos;
    int npos;
    tvds_cea_result *cd, *cu, *cx, *cmu;
    const tvds_cea_result *chosen; /* the CEA of the chosen mu (cd or cmu) */
    int wa;                        /* window of part (a) in cd */
    double mu_tab[32], g_tab[32], re_tab[32];
    int nw_tab[32], nmu;
    int found;
    double mu_pick;
    study_part pa, pb;
} study_state;

/* 1. Model (C at the default x = 20 mm: the CEA does not depend on where C starts). */
static int stage_models(study_state *S, tvds_ctx *ctx)
{
    const tvds_study_opts *o = S->o;
    char mdir[2048];
    S->st[ST_MODEL] = SS_RUNNING;
    snprintf(mdir, sizeof mdir, "%s/model", S->outdir);
    int rc = tvds_study_model(&S->geom, S->case_path, o->sets, o->nsets, mdir, 0.020, 0.0, 0.0,
                              &S->m, ctx);
    if (rc) return rc;
    S->st[ST_MODEL] = SS_DONE;
    if (S->geom.stop && *S->geom.stop)
        return TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "study: interrupted after the %s stage",
                          S->stage);
    tvds_model *m = S->m;
    S->mu_case = m->contacts[0].mu_k;
    S->t_damp = tvds_study_damping_end(m);
    S->v_ss = fabs(tvds_fn_deriv(&m->contacts[0].slave_kin[0], S->t_damp, 1));
    S->nodes.v = S->v_ss;
    if ((rc = master_abscissae(&S->geom, m, &S->nodes.S, &S->nodes.ns, ctx))) return rc;
    study_note(o,
               "study: [1/4] beam-on-beam models -> %s (%.2f s); mu = %g, damping "
               "schedule ends at %g s, steady speed %.4g mm/s\n",
               mdir, now_s() - S->t_start, S->mu_case, S->t_damp, 1e3 * S->v_ss);
    return TVDS_OK;
}

/* 2. CEA survey at the case's mu: preloaded damped and undamped, undeformed damped. */
static int stage_survey(study_state *S, tvds_ctx *ctx)
{
    const tvds_study_opts *o = S->o;
    int npos = (int)ceil((TVDS_STUDY_S_HI - TVDS_STUDY_S_LO) / o->ds) + 1;
    S->pos = malloc((size_t)npos * sizeof *S->pos);
    if (!S->pos) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    S->npos = npos;
    for (int i = 0; i < npos; i++)
        S->pos[i] = TVDS_STUDY_S_LO + (TVDS_STUDY_S_HI - TVDS_STUDY_S_LO) * i / (npos - 1);
    double tc = now_s();
    S->stage = "CEA survey";
    S->st[ST_CEA] = SS_RUNNING;
    study_note(o,
               "study: [2/4] CEA survey, s = %g ... %g mm (%d positions + refinement), "
               "deformed damped / undamped, undeformed damped\n",
               1e3 * TVDS_STUDY_S_LO, 1e3 * TVDS_STUDY_S_HI, npos);
    int rc;
    study_stage(o, "study: CEA deformed");
    if ((rc = tvds_study_survey(&S->geom, S->m, S->pos, npos, TVDS_CEA_DEFORMED, 0, o->threads,
                                S->t_damp, &S->cd, ctx)))
        return rc;
    study_stage(o, "study: CEA undamped");
    if ((rc = tvds_study_survey(&S->geom, S->m, S->pos, npos, TVDS_CEA_DEFORMED, 1, o->threads,
                                S->t_damp, &S->cu, ctx)))
        return rc;
    study_stage(o, "study: CEA undeformed");
    if ((rc = tvds_study_survey(&S->geom, S->m, S->pos, npos, TVDS_CEA_UNDEFORMED, 0, o->threads,
                                S->t_damp, &S->cx, ctx)))
        return rc;
    char cdir[2048];
    snprintf(cdir, sizeof cdir, "%s/cea", S->outdir);
    if ((rc = tvds_mkdir_p(cdir, ctx))) return rc;
    if ((rc = tvds_cea_write_csv(S->cd, cdir, ctx))) return rc;
    if ((rc = tvds_cea_write_csv_tag(S->cu, cdir, "_undamped", ctx))) return rc;
    if ((rc = tvds_cea_write_csv_tag(S->cx, cdir, "_undeformed", ctx))) return rc;
    if (o->plots) {
        tvds_ctx pc;
        tvds_ctx_init(&pc);
        tvds_cea_plot(S->cd, cdir, &pc);
    }
    S->t_cea = now_s() - tc;
    S->st[ST_CEA] = SS_DONE;
    S->wa = study_target(S->cd, &S->nodes);
    if (S->wa < 0) S->wa = study_strongest(S->cd);
    study_note(o,
               "study:       deformed: %d window(s), max Re %.4g 1/s; undamped: %d, max Re %.4g; "
               "undeformed: %d, max Re %.4g (%.1f s)\n",
               S->cd->nwin, study_max_re(S->cd), S->cu->nwin, study_max_re(S->cu), S->cx->nwin,
               study_max_re(S->cx), S->t_cea);
    return TVDS_OK;
}

/* 3. The paper's procedure for mu: the grid's CEAs until the strongest node-free window of one
 * reaches TVDS_STUDY_G_MIN (a burst, TVDS_BURST_GROWTH), or the
 * CEA of the mu given. */
static int stage_mu(study_state *S, tvds_ctx *ctx)
{
    const tvds_study_opts *o = S->o;
    tvds_model *m = S->m;
    double tm = now_s();
    int rc = TVDS_OK;
    S->mu_pick = o->mu;
    S->stage = "procedure for mu";
    S->st[ST_MU] = SS_RUNNING;
    if (o->mu <= 0) {
        for (int k = 0; S->nmu < 32; k++) {
            double mu = TVDS_STUDY_MU_LO + k * TVDS_STUDY_MU_STEP;
            if (mu > TVDS_STUDY_MU_HI + 1e-9) break;
            const tvds_cea_result *cur = S->cd; /* the survey is this mu's CEA */
            if (fabs(mu - S->mu_case) > 1e-12) {
                m->contacts[0].mu_k = m->contacts[0].mu_s = mu;
                tvds_cea_result_free(&S->cmu);
                char pfx[64];
                snprintf(pfx, sizeof pfx, "study: CEA mu = %.2f", mu);
                study_stage(o, pfx);
                if ((rc = tvds_study_survey(&S->geom, m, S->pos, S->npos, TVDS_CEA_DEFORMED, 0,
                                            o->threads, S->t_damp, &S->cmu, ctx)))
                    return rc;
                cur = S->cmu;
            }
            /* The window part (b) would cross: the strongest node-free one (a node crossing
             * seeds the band, so only there is the growth the instability's), else the
             * strongest. The burst it must predict is the one the findings test. */
            int w = study_target(cur, &S->nodes), k_ = S->nmu;
            if (w < 0) w = study_strongest(cur);
            S->mu_tab[k_] = mu;
            S->nw_tab[k_] = cur->nwin;
            S->re_tab[k_] = study_max_re(cur);
            S->g_tab[k_] = w >= 0 ? cur->win[w].growth_pred : NAN;
            study_note(o,
                       "study: [3/4] mu = %.2f: %d window(s), max Re %.4g 1/s, predicted "
                       "growth of the strongest node-free window %.3g\n",
                       mu, cur->nwin, S->re_tab[k_], S->g_tab[k_]);
            S->nmu++;
            if (w >= 0 && cur->win[w].growth_pred >= TVDS_STUDY_G_MIN) {
                S->mu_pick = mu;
                S->found = 1;
                S->chosen = cur;
                char sub[2200];
                snprintf(sub, sizeof sub, "%s/cea_mu%.2f", S->outdir, mu);
                if (!(rc = tvds_mkdir_p(sub, ctx))) rc = tvds_cea_write_csv(cur, sub, ctx);
                if (rc) return rc;
                break;
            }
        }
    } else {
        m->contacts[0].mu_k = m->contacts[0].mu_s = o->mu;
        if ((rc = tvds_study_survey(&S->geom, m, S->pos, S->npos, TVDS_CEA_DEFORMED, 0, o->threads,
                                    S->t_damp, &S->cmu, ctx)))
            return rc;
        S->found = study_strongest(S->cmu) >= 0;
        S->chosen = S->cmu;
    }
    m->contacts[0].mu_k = m->contacts[0].mu_s = S->mu_case;
    S->t_mu = now_s() - tm;
    S->st[ST_MU] = SS_DONE;
    S->geom.positions = NULL;
    study_stage(o, "study");
    if (!S->found)
        study_note(o,
                   "study:       no mu up to %g gives a predicted growth of %g: part (b) "
                   "skipped\n",
                   TVDS_STUDY_MU_HI, TVDS_STUDY_G_MIN);
    return TVDS_OK;
}

/* 4. Transients: part (a) at the case's mu, part (b) at the chosen one. */
static int stage_transients(study_state *S, tvds_ctx *ctx)
{
    const tvds_study_opts *o = S->o;
    int rc;
    if (!o->transients) {
        S->st[ST_A] = S->st[ST_B] = SS_SKIPPED;
        return TVDS_OK;
    }
    S->stage = "transients";
    study_note(o, "study: [4/4] transients\n");
    S->st[ST_A] = S->wa >= 0 ? SS_RUNNING : SS_SKIPPED;
    if (S->wa >= 0) {
        S->pa.mu = S->mu_case;
        if ((rc = run_part(o, &S->geom, S->case_path, S->outdir, S->cd, &S->nodes, o->a, &S->pa,
                           ctx)))
            return rc;
        S->st[ST_A] = SS_DONE;
    }
    S->st[ST_B] = S->found ? SS_RUNNING : SS_SKIPPED;
    if (S->found) {
        S->pb.mu = S->mu_pick;
        if ((rc = run_part(o, &S->geom, S->case_path, S->outdir, S->chosen, &S->nodes, o->b, &S->pb,
                           ctx)))
            return rc;
        S->st[ST_B] = SS_DONE;
    }
    return TVDS_OK;
}

/* 5. report.md: the whole study, its wall times and the stage table. */
static int stage_report(study_state *S, tvds_ctx *ctx)
{
    char path[2100], tpath[2110];
    snprintf(path, sizeof path, "%s/report.md", S->outdir);
    snprintf(tpath, sizeof tpath, "%s.tmp", path);
    FILE *fp = fopen(tpath, "w");
    if (!fp) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write", tpath);
    tvds_bob_params mp = S->geom.mesh ? *S->geom.mesh : tvds_study_params(S->geom.dim3);
    study_report(fp, &S->geom, &mp, S->case_path, S->mu_case, S->t_damp, S->v_ss, S->cd, S->cu,
                 S->cx, S->wa, S->nmu, S->mu_tab, S->nw_tab, S->re_tab, S->g_tab, S->found,
                 S->mu_pick, S->o->mu > 0, S->chosen, &S->nodes, &S->pa, &S->pb);
    fprintf(fp,
            "\n## Wall time\n\n| stage | wall [s] |\n|---|---|\n| CEA survey (3 loci) | %.1f "
            "|\n| procedure for mu | %.1f |\n| part (a) | %.1f |\n| part (b) | %.1f |\n| "
            "total | %.1f |\n",
            S->t_cea, S->t_mu, S->pa.seconds, S->pb.seconds, now_s() - S->t_start);
    study_stage_table(fp, S->st);
    if ((fclose(fp) != 0) | (rename(tpath, path) != 0)) {
        remove(tpath);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write failed", path);
    }
    study_note(S->o, "study: report %s\n", path);
    return TVDS_OK;
}

/* report.md after a study that did not end: interrupted (the stage, the signal, which folders
 * are whole; the loci the survey finished or began kept), failed, or (3D) stopped at the
 * survey, whose CEA of the tip line on a face set the models may not support. */
static void stage_failed(study_state *S, int rc, const tvds_ctx *ctx)
{
    const tvds_study_opts *o = S->o;
    const char *outdir = S->outdir;
    if (rc == TVDS_ERR_INTERRUPTED) {
        /* The study's summary: report.md replaced (whole) by the reason it stopped and the
         * state of each stage's folder. */
        char status[160], msg[sizeof ctx->msg + 300];
        int sig = S->geom.stop ? (int)*S->geom.stop : 0;
        snprintf(status, sizeof status, "**interrupted** (%s) during the %s stage, after %.1f s.",
                 o->signal_name ? o->signal_name(sig) : "signal", S->stage, now_s() - S->t_start);
        snprintf(msg, sizeof msg,
                 "%s\n\nThe folders marked complete below are whole (for the transients, each "
                 "method's summary.json says \"interrupted\" for the run that was stopped); run "
                 "the study again to complete it.",
                 ctx->msg);
        if (S->st[ST_CEA] == SS_RUNNING) {
            /* Keep the loci finished or begun, each holding the positions solved. */
            const tvds_cea_result *cd = S->cd, *cu = S->cu, *cx = S->cx;
            char cdir[2048];
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
        study_status_report(outdir, "Beam-on-beam study: interrupted", status, msg, S->st);
    } else if (rc != TVDS_ERR_BUSY && !(S->geom.dim3 && !strcmp(S->stage, "CEA survey"))) {
        char status[160];
        snprintf(status, sizeof status, "**failed** (%s) during the %s stage.",
                 tvds_status_name(rc), S->stage);
        study_status_report(outdir, "Beam-on-beam study: failed", status, ctx->msg, S->st);
    } else if (S->geom.dim3 && !strcmp(S->stage, "CEA survey")) {
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
                    ctx->msg, S->case_path);
            double off = 0.0;
            tvds_ctx oc;
            tvds_ctx_init(&oc);
            if (S->m && study_abscissa(&S->geom, S->m, &off, &oc) == TVDS_OK)
                fprintf(fp,
                        "\nA position in a CEA message is the tip line's travel from its "
                        "placement; the study's s (x_C - %g mm) is that travel + %.4g mm.\n",
                        1e3 * STUDY_X0, 1e3 * off);
            fclose(fp);
        }
    }
}

/* The stages in order; a stop between two of them is an interruption after the first. */
static int study_stages(study_state *S, tvds_ctx *ctx)
{
    int rc = stage_models(S, ctx);
    if (!rc) rc = stage_survey(S, ctx);
    if (!rc) rc = stage_mu(S, ctx);
    if (!rc) rc = stage_transients(S, ctx);
    if (!rc) rc = stage_report(S, ctx);
    return rc;
}

int tvds_study_run(const char *case_path, const char *outdir, const tvds_study_opts *o,
                   tvds_study_result *res, tvds_ctx *ctx)
{
    if (!case_path || !outdir || !o || !res)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "study: NULL argument");
    memset(res, 0, sizeof *res);
    study_state *S = calloc(1, sizeof *S);
    if (!S) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "study: out of memory");
    S->o = o;
    S->geom = o->geom;
    S->case_path = case_path;
    S->outdir = outdir;
    S->stage = "model";
    S->t_start = now_s();
    S->pa.name = "a";
    S->pb.name = "b";
    S->wa = -1;
    /* DIR belongs to this study (a second one refuses at once); what an earlier study left
     * there goes, and report.md says "running" until it says how this one ended. */
    tvds_outdir *od = NULL;
    int rc = tvds_outdir_open(outdir, &od, ctx);
    if (!rc) {
        rc = clear_stale(od, outdir, ctx);
        if (!rc) {
            study_status_report(outdir, "Beam-on-beam study: running", "**running**", NULL, S->st);
            rc = study_stages(S, ctx);
        }
        if (rc) stage_failed(S, rc, ctx);
    }
    if (!rc) {
        const tvds_cea_result *cd = S->cd;
        int w = study_strongest(cd);
        res->mu_case = S->mu_case;
        res->nwin = cd->nwin;
        res->max_re = study_max_re(cd);
        res->growth = w >= 0 ? cd->win[w].growth_pred : NAN;
        res->mu_pick = S->mu_pick;
        res->mu_given = o->mu > 0;
        res->found = S->found;
        res->ran_a = S->pa.ran;
        res->ran_b = S->pb.ran;
        res->a = S->pa.res;
        res->b = S->pb.res;
    }
    res->seconds = now_s() - S->t_start;
    tvds_outdir_close(&od);
    free(S->pos);
    tvds_free(S->nodes.S);
    tvds_cea_result_free(&S->cd);
    tvds_cea_result_free(&S->cu);
    tvds_cea_result_free(&S->cx);
    tvds_cea_result_free(&S->cmu);
    tvds_cea_result_free(&S->pa.cea);
    tvds_cea_result_free(&S->pb.cea);
    tvds_model_free(&S->m);
    free(S);
    return rc;
}
