/* cea.c — complex eigenvalue analysis along the sliding path by primal assembly (docs/cea.md): the
 * driver. */
#include "analysis/cea_impl.h"

tvds_cea_options tvds_cea_options_default(void)
{
    tvds_cea_options o;
    memset(&o, 0, sizeof o);
    o.nmodes = 20;
    o.nextra = 10;
    o.chi = 0.0;
    o.t_eval = -1.0;
    o.slave = 0;
    o.fmin_hz = -1.0;
    o.re_tol = 0.0;
    o.solver = TVDS_CEA_AUTO;
    o.nthreads = 0;
    o.state = TVDS_CEA_DEFORMED;
    o.undamped = 0;
    o.refine = 1;
    o.ds_min = 0.0;
    o.max_pos = 4000;
    o.zeta_near = 0.0;
    o.gap_rel = 0.05;
    return o;
}

int tvds_cea_surface_length(const tvds_model *m, int contact, double *length, tvds_ctx *ctx)
{
    if (!m || !length || contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: bad contact index %d", contact);
    const tvds_contact *c = &m->contacts[contact];
    if (c->master_kind == TVDS_MASTER_RIGID || c->dim != 2 || c->master_sub < 0 ||
        c->master_sub >= m->nsub)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s' has no 2D master surface (rigid or 3D master): give "
                          "positions",
                          c->name ? c->name : "?");
    const tvds_substructure *s = m->subs[c->master_sub];
    double L = 0.0, prev[2] = {0, 0};
    for (int k = 0; k < c->nmaster; k++) {
        int d = tvds_substructure_find_dof(s, c->master_nodes[k], TVDS_DIR_X);
        if (d < 0) d = tvds_substructure_find_dof(s, c->master_nodes[k], TVDS_DIR_Y);
        if (d < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': master node %ld unknown",
                              c->name ? c->name : "?", c->master_nodes[k]);
        if (k) L += hypot(s->dofs[d].xyz[0] - prev[0], s->dofs[d].xyz[1] - prev[1]);
        prev[0] = s->dofs[d].xyz[0];
        prev[1] = s->dofs[d].xyz[1];
    }
    *length = L;
    return TVDS_OK;
}

/* The positions are the parallel axis: BLAS runs on one thread while the CEA runs
 * (core/blas_threads.h) and gets its own count back afterwards. */
static int cea_run(const tvds_model *m, int contact, const double *s, int npos,
                   const tvds_cea_options *opt, int dense, int *arpack_failed,
                   tvds_cea_result **out, tvds_ctx *ctx);

int tvds_cea_run(const tvds_model *m, int contact, const double *s, int npos,
                 const tvds_cea_options *opt, tvds_cea_result **out, tvds_ctx *ctx)
{
    int held = tvds_blas_threads_hold();
    int failed = 0;
    int rc = cea_run(m, contact, s, npos, opt, 0, &failed, out, ctx);
    /* auto: an ARPACK failure (no enclosure, iteration limit) falls back to the dense path. */
    if (rc == TVDS_ERR_SOLVER && failed && (!opt || opt->solver == TVDS_CEA_AUTO)) {
        char msg[sizeof(*out)->arpack_failure];
        snprintf(msg, sizeof msg, "%.*s", (int)sizeof msg - 1, ctx ? ctx->msg : "ARPACK failed");
        if (ctx) tvds_ctx_init(ctx);
        rc = cea_run(m, contact, s, npos, opt, 1, &failed, out, ctx);
        if (rc == TVDS_OK) memcpy((*out)->arpack_failure, msg, sizeof msg);
    }
    tvds_blas_threads_restore(held);
    return rc;
}

/* The known position at s (bitwise), or NULL. */
static const tvds_cea_solved *find_known(const tvds_cea_options *o, int N, double s)
{
    for (int k = 0; o->known && k < o->nknown; k++)
        if (o->known[k].s == s && o->known[k].ndof == N) return &o->known[k];
    return NULL;
}

/* A known position into a pool entry (its u, lre, lim buffers allocated for ncand >= kn->ncand
 * candidates, as the solve would fill them). */
static void take_known(const tvds_cea_solved *kn, int N, cea_pos *out)
{
    out->err = TVDS_OK;
    out->info = 0;
    out->nred = kn->nred;
    out->chi = kn->chi;
    out->ncand = kn->ncand;
    out->resid = kn->resid;
    out->lambda_n = kn->lambda_n;
    out->slope = kn->slope;
    memset(&out->eig, 0, sizeof out->eig);
    out->eig.attempts = kn->attempts;
    out->eig.nops = kn->nops;
    memcpy(out->lre, kn->lre, (size_t)kn->ncand * sizeof *out->lre);
    memcpy(out->lim, kn->lim, (size_t)kn->ncand * sizeof *out->lim);
    memcpy(out->u, kn->u, (size_t)kn->ncand * N * 2 * sizeof *out->u);
}

static void give_solved(const tvds_cea_options *o, double s, int N, const cea_pos *ps)
{
    tvds_cea_solved v = {.s = s,
                         .ndof = N,
                         .nred = ps->nred,
                         .ncand = ps->ncand,
                         .chi = ps->chi,
                         .resid = ps->resid,
                         .lambda_n = ps->lambda_n,
                         .slope = ps->slope,
                         .attempts = ps->eig.attempts,
                         .nops = ps->eig.nops,
                         .lre = ps->lre,
                         .lim = ps->lim,
                         .u = ps->u};
    o->solved(o->user, &v);
}

/* The options' values, checked before any set-up. */
static int check_options(const tvds_cea_options *o, int npos, const double *s, tvds_ctx *ctx)
{
    if (npos < 1 || !s) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: no positions");
    if (o->nmodes < 1 || o->nmodes > 100000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nmodes %d out of range", o->nmodes);
    if (o->chi != 0.0 && o->chi != 1.0 && o->chi != -1.0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: chi must be -1, 0 (auto) or +1, not %g",
                          o->chi);
    if (o->solver < TVDS_CEA_AUTO || o->solver > TVDS_CEA_ARPACK)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: unknown solver %d", o->solver);
    if (!(o->shift_hz >= 0.0 && o->shift_hz < INFINITY) ||
        (o->shift_hz > 0.0 && o->solver != TVDS_CEA_AUTO && o->solver != TVDS_CEA_ARPACK))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: complex shift %g Hz: expected a finite frequency >= 0, with the "
                          "ARPACK solver",
                          o->shift_hz);
    if (o->state != TVDS_CEA_DEFORMED && o->state != TVDS_CEA_UNDEFORMED)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: unknown linearisation state %d", o->state);
    if (o->mirror < 0 || o->mirror > 3)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: mirror plane %d: expected 0 (none), 1, 2 or 3 (x, y or z = 0)",
                          o->mirror);
    return TVDS_OK;
}

/* Every position given: finite, each active node on its master (face sets: on a face, with a
 * sliding direction; 2D node masters: within the surface's length). */
static int check_positions(const cea_problem *p, const double *s, int npos, tvds_ctx *ctx)
{
    for (int i = 0; i < npos; i++) {
        /* Every active node's abscissa s + act_ds on the surface. */
        double lo = 0.0, hi = 0.0;
        for (int a = 0; p->has_contact && a < p->nact; a++) {
            if (p->act_ds[a] < lo) lo = p->act_ds[a];
            if (p->act_ds[a] > hi) hi = p->act_ds[a];
        }
        for (int j = -1; j < p->nextra && isfinite(s[i]); j++) {
            /* Face-set masters: every node's closest point on a face, and its sliding
             * direction. */
            const cea_problem *x = j < 0 ? p : &p->extra[j];
            for (int a = 0; a < x->nact; a++) {
                cea_geom gf;
                memset(&gf, 0, sizeof gf);
                int e = cea_node_geometry(x, a, s[i], &gf);
                if (e)
                    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                      e == 1 ? "cea: position %d (s = %g m) puts slave node %d of "
                                               "contact %d off its face set"
                                             : "cea: position %d (s = %g m): slave node %d of "
                                               "contact %d: no sliding direction (the relative "
                                               "velocity is normal to the master) or a face "
                                               "without normal",
                                      i, s[i], a, j + 2);
            }
        }
        for (int j = 0; j < p->nextra && isfinite(s[i]); j++) {
            const cea_problem *x = &p->extra[j];
            for (int a = 0; x->ms.length > 0 && a < x->nact; a++) {
                double sa = s[i] + x->act_ds[a], L = x->ms.length;
                if (sa < -1e-12 * L || sa > L * (1 + 1e-12))
                    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                      "cea: position %d (s = %g m) puts node %d of contact %d at "
                                      "%g m, off its master surface [0, %g]",
                                      i, s[i], a, j + 1, sa, L);
            }
        }
        if (!isfinite(s[i]) ||
            (p->has_contact && p->ms.length > 0 &&
             (s[i] + lo < -1e-12 * p->ms.length || s[i] + hi > p->ms.length * (1 + 1e-12))))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: position %d (s = %g m) is off the master surface [0, %g]", i,
                              s[i], p->has_contact ? p->ms.length : 0.0);
    }
    return TVDS_OK;
}

/* A survey of positions: the per-thread workspaces, the pool of positions in order of
 * computation (pool[0 .. ncomp - 1] solved), the path order P, S (nord positions; P2, S2 the
 * merge's buffers), the tracked branches (nb, arrays of cap_pos x nb) and the result. */
typedef struct cea_survey {
    int N, ncand, cap_pos, nthreads, nw, ncomp, nord, nb, arpack, refine;
    size_t per;     /* doubles of one position's buffers */
    double ds_min;  /* smallest spacing of the refinement [m] */
    cea_work *work; /* nthreads */
    cea_pos *pool;  /* cap_pos, in order of computation */
    cea_pos **P, **P2;
    double *S, *S2;
    double *fq, *rr, *zz, *mc, *an;
    int nfailed; /* positions that failed (cap_pos: failed) */
    tvds_cea_failure *failed;
    tvds_cea_result *res;
} cea_survey;

static void survey_free(cea_survey *v)
{
    if (v->work)
        for (int t = 0; t < v->nw; t++)
            cea_work_free(&v->work[t]);
    tvds_free(v->work);
    if (v->pool)
        for (int i = 0; i < v->cap_pos; i++)
            tvds_free(v->pool[i].u);
    tvds_free(v->pool);
    tvds_free(v->P);
    tvds_free(v->P2);
    tvds_free(v->S);
    tvds_free(v->S2);
    tvds_free(v->fq);
    tvds_free(v->rr);
    tvds_free(v->zz);
    tvds_free(v->mc);
    tvds_free(v->an);
    tvds_free(v->failed);
    tvds_cea_result_free(&v->res);
    memset(v, 0, sizeof *v);
}

/* Sizes, refinement spacing, solver and buffers of the survey of the npos positions s (in path
 * order, solved first). dense: 1 keeps TVDS_CEA_AUTO off the ARPACK path. Returns 0, or -1
 * when out of memory. */
static int survey_alloc(cea_survey *v, cea_problem *p, const tvds_cea_options *o, const double *s,
                        int npos, int dense)
{
    memset(v, 0, sizeof *v);
    double smin = s[0], smax = s[0];
    for (int i = 1; i < npos; i++) {
        if (s[i] < smin) smin = s[i];
        if (s[i] > smax) smax = s[i];
    }
    /* Default smallest spacing: 2.5e-4 of the master surface (of the span of the positions
     * for a rigid master). */
    double span = p->has_contact && p->ms.extent > 0 ? p->ms.extent : smax - smin;
    v->ds_min = o->ds_min > 0 ? o->ds_min : 2.5e-4 * span;
    v->refine = o->refine && npos > 1 && v->ds_min > 0;
    v->cap_pos = v->refine ? (o->max_pos > npos ? o->max_pos : npos) : npos;
    v->N = p->N, v->ncand = p->ncand;
    int N = v->N, nact = p->nact_all > 1 ? p->nact_all : 1;
    int rows_cap = p->nbil + nact, nnz_cap = p->bil_nnz + 6 * nact;
    for (int j = -1; j < p->nextra; j++) {
        const cea_problem *x = j < 0 ? p : &p->extra[j];
        if (!x->ms.rigid) nnz_cap += (x->ms.ncomp * (1 + SIM_MASTER_MAX_NODES) - 6) * x->nact;
    }
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = o->nthreads > 0 ? o->nthreads : omp_get_max_threads();
#endif
    if (nthreads > v->cap_pos) nthreads = v->cap_pos;
    if (nthreads < 1) nthreads = 1;
    v->nthreads = nthreads;
    v->per = (size_t)v->ncand * (2 + 2 * (size_t)N);
    v->work = tvds_calloc((size_t)nthreads, sizeof *v->work);
    v->pool = tvds_calloc((size_t)v->cap_pos, sizeof *v->pool); /* in order of computation */
    v->P = tvds_calloc((size_t)v->cap_pos, sizeof *v->P);       /* in path order */
    v->P2 = tvds_calloc((size_t)v->cap_pos, sizeof *v->P2);
    v->S = tvds_malloc((size_t)v->cap_pos * sizeof *v->S);
    v->S2 = tvds_malloc((size_t)v->cap_pos * sizeof *v->S2);
    v->res = tvds_calloc(1, sizeof *v->res);
    v->failed = tvds_calloc((size_t)v->cap_pos, sizeof *v->failed);
    if (!v->work || !v->pool || !v->P || !v->P2 || !v->S || !v->S2 || !v->res || !v->failed)
        return -1;
    /* auto: the shift-invert Arnoldi above the size where it is measured faster than the dense
     * eigenproblem (docs/cea.md, "Cost"); only then are the dense 2N x 2N arrays left out. */
    if (p->solver == TVDS_CEA_AUTO && !dense && (N >= TVDS_CEA_ARPACK_MIN_DOFS || p->wshift > 0.0))
        p->solver = TVDS_CEA_ARPACK;
    v->arpack = p->solver == TVDS_CEA_ARPACK ? (p->wshift > 0.0 ? 2 : 1) : 0;
    for (; v->nw < nthreads; v->nw++)
        if (cea_work_alloc(&v->work[v->nw], N, rows_cap, nnz_cap, nact, v->ncand, v->arpack))
            return -1;
    for (int i = 0; i < npos; i++) {
        v->S[i] = s[i];
        v->P[i] = &v->pool[i];
    }
    v->nord = npos;
    return 0;
}

/* Solves the nnew positions pool_s added last (pool[base ..]), in parallel; known positions
 * are taken as they are. *nsolved counts the positions done (progress). Returns 0, or -1 when
 * out of memory. */
static int survey_solve(cea_survey *v, const cea_problem *p, const tvds_cea_options *o, int base,
                        int nnew, const double *pool_s, int *nsolved)
{
    int N = v->N;
    cea_pos *pool = v->pool;
    for (int i = base; i < base + nnew; i++) {
        pool[i].u = tvds_malloc(v->per * sizeof(double));
        if (!pool[i].u) return -1;
        pool[i].lre = pool[i].u + 2 * (size_t)v->ncand * N;
        pool[i].lim = pool[i].lre + v->ncand;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(v->nthreads)
#endif
    for (int i = 0; i < nnew; i++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        if (o->stop && *o->stop) {
            pool[base + i].err = TVDS_ERR_INTERRUPTED;
            continue;
        }
        const tvds_cea_solved *kn = find_known(o, N, pool_s[i]);
        if (kn) {
            take_known(kn, N, &pool[base + i]);
        } else {
            cea_solve_position(p, pool_s[i], &v->work[tid], &pool[base + i]);
            if (o->solved && pool[base + i].err == TVDS_OK) {
#ifdef _OPENMP
#pragma omp critical(tvds_cea_solved)
#endif
                give_solved(o, pool_s[i], N, &pool[base + i]);
            }
        }
        if (o->progress) {
#ifdef _OPENMP
#pragma omp critical(tvds_cea_progress)
#endif
            o->progress(o->user, ++*nsolved, base + nnew);
        }
    }
    return 0;
}

/* After a stop: keeps the positions finished (in path order); the others, and a position whose
 * Arnoldi run was stopped half way, are dropped. Returns the error (TVDS_ERR_INTERRUPTED);
 * *keep is 0 when nothing is left to track. */
static int survey_stopped(cea_survey *v, int round, int base, int nnew, int *keep, tvds_ctx *ctx)
{
    int done = 0, k = 0;
    for (int i = 0; i < base + nnew; i++)
        done += v->pool[i].err == TVDS_OK;
    for (int i = 0; i < v->nord; i++)
        if (v->P[i]->err == TVDS_OK) {
            v->P[k] = v->P[i];
            v->S[k] = v->S[i];
            k++;
        }
    v->ncomp += nnew;
    int rc =
        TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED, "cea: interrupted after %d of %d positions%s", done,
                   base + nnew, k > 0 ? " (the finished ones are kept)" : " (none finished)");
    *keep = !(k == 0 || (round == 0 && v->P[0]->ncand < 1));
    if (!*keep) return rc;
    if (round > 0) v->res->nrefined -= v->nord - k;
    v->nord = k;
    return rc;
}

/* The error of a failed position ps at si (arpack: the Arnoldi path was used; *arpack_failed
 * set when it is the one that failed). */
static int position_error(const cea_pos *ps, double si, int arpack, int *arpack_failed,
                          tvds_ctx *ctx)
{
    if (ps->err == TVDS_ERR_INVALID && !(arpack && ps->info == -4))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: position s = %g puts a slave node off its face set", si);
    if (ps->err == TVDS_ERR_CONTACT_LOST)
        return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                          "cea: position s = %g: no sliding contact: every slave node's "
                          "multiplier pulls (the load lifts the slave off the master here)",
                          si);
    if (ps->err == TVDS_ERR_SINGULAR)
        return TVDS_ERROR(ctx, TVDS_ERR_SINGULAR, "cea: position s = %g: %s", si,
                          ps->info == -2 ? "no static sliding state (the loaded "
                                           "structure is a mechanism)"
                          : ps->info < 0 ? "reduced mass matrix is singular"
                          : ps->info == 0
                              ? "the constraints leave no DoF"
                              : "compatibility and equilibrium constraints have different "
                                "ranks (friction makes B_E rank deficient)");
    if (arpack && ps->info != -2) {
        *arpack_failed = 1;
        return TVDS_ERROR(ctx, ps->err,
                          "cea: position s = %g: ARPACK %s (code %d, %d Ritz values of a "
                          "problem of order %d; --solver standard computes them all)",
                          si,
                          ps->info == -3   ? "did not enclose the wanted eigenvalues"
                          : ps->info == -4 ? "needs a larger problem"
                          : ps->info == 1  ? "reached its iteration limit"
                                           : "failed",
                          ps->info, ps->eig.nev, 2 * ps->nred);
    }
    return TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "cea: position s = %g: %s %d", si,
                      ps->info == -2 ? "static sliding state did not converge, "
                                       "code"
                                     : "LAPACK info",
                      ps->info);
}

/* The positions of this round that failed (pool[base .. base + nnew - 1], at pool_s): each is
 * recorded with its status and reason and taken out of the path order, the survey going on
 * without it. An Arnoldi failure under TVDS_CEA_AUTO (dense 0) is returned instead (the survey
 * is redone dense), as is the first failure when no position is left. Returns 0 or the error
 * (in ctx). */
static int survey_failures(cea_survey *v, int base, int nnew, const double *pool_s, int round,
                           int autodense, int *arpack_failed, tvds_ctx *ctx)
{
    int nbad = 0;
    for (int i = base; i < base + nnew; i++) {
        const cea_pos *ps = &v->pool[i];
        if (ps->err == TVDS_OK || ps->err == TVDS_ERR_INTERRUPTED) continue;
        if (ps->err == TVDS_ERR_NOMEM)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory at position s = %g",
                              pool_s[i - base]);
        tvds_ctx pc;
        tvds_ctx_init(&pc);
        int af = 0, e = position_error(ps, pool_s[i - base], v->arpack, &af, &pc);
        if (af && autodense) {
            *arpack_failed |= af;
            return position_error(ps, pool_s[i - base], v->arpack, &af, ctx);
        }
        tvds_cea_failure *f = &v->failed[v->nfailed++];
        f->s = pool_s[i - base];
        f->status = e;
        size_t len = strlen(pc.msg);
        if (len >= sizeof f->reason) len = sizeof f->reason - 1;
        memcpy(f->reason, pc.msg, len);
        f->reason[len] = '\0';
        nbad++;
    }
    if (!nbad) return TVDS_OK;
    int k = 0;
    for (int i = 0; i < v->nord; i++) {
        int e = v->P[i]->err;
        if (e == TVDS_OK || e == TVDS_ERR_INTERRUPTED) {
            v->P[k] = v->P[i];
            v->S[k] = v->S[i];
            k++;
        } else if (k > 0) {
            v->P[k - 1]->gap_after = 1; /* not split again across the failed position */
        }
    }
    if (round > 0) v->res->nrefined -= v->nord - k;
    v->nord = k;
    if (k == 0)
        return TVDS_ERROR(ctx, v->failed[0].status, "%s (every one of the %d positions failed)",
                          v->failed[0].reason, v->nfailed);
    return TVDS_OK;
}

/* Round 0: the branches tracked (the lowest nmodes oscillating eigenvalues of the first
 * position) and their arrays. Returns 0, TVDS_ERR_NOMEM (no message) or the error. */
static int survey_branches(cea_survey *v, const cea_problem *p, const tvds_cea_options *o,
                           const double *s, int has_mirror, tvds_ctx *ctx)
{
    v->nb = o->nmodes < v->P[0]->ncand ? o->nmodes : v->P[0]->ncand;
    if (v->nb < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: no oscillating eigenvalue above %g Hz at s = %g", p->fmin_hz, s[0]);
    size_t tot = (size_t)v->cap_pos * v->nb;
    v->fq = tvds_malloc(tot * sizeof *v->fq);
    v->rr = tvds_malloc(tot * sizeof *v->rr);
    v->zz = tvds_malloc(tot * sizeof *v->zz);
    v->mc = tvds_malloc(tot * sizeof *v->mc);
    if (has_mirror) v->an = tvds_malloc(tot * sizeof *v->an);
    if (!v->fq || !v->rr || !v->zz || !v->mc || (has_mirror && !v->an)) return TVDS_ERR_NOMEM;
    return 0;
}

/* Intervals to split, in path order: where a window could hide, inside windows down to 2 to 4
 * ds_min, never across a position that failed. Their midpoints go to the pool's end (S2, *nnew
 * of them) and into the path order. Returns 1 when positions were added, 0 when none, -1 when
 * out of memory. */
static int survey_refine(cea_survey *v, const tvds_cea_options *o, int round, int *nnew)
{
    int nord = v->nord, nb = v->nb;
    int add = 0, n2 = 0;
    double *news = tvds_malloc((size_t)nord * sizeof *news);
    if (!news) return -1;
    int *split = tvds_calloc((size_t)nord, sizeof *split);
    if (!split) {
        tvds_free(news);
        return -1;
    }
    for (int i = 0; i + 1 < nord; i++) {
        double h = fabs(v->S[i + 1] - v->S[i]);
        if (h < 2 * v->ds_min || v->P[i]->gap_after) continue;
        if (cea_needs_split(o, nb, nord, v->fq, v->rr, i)) split[i] = 1;
        /* Inside a window, positions every 2 to 4 ds_min for the growth integral. */
        if (h >= 4 * v->ds_min && cea_interval_unstable(o, nb, v->fq, v->rr, i)) split[i] = 1;
    }
    for (int i = 0; i + 1 < nord; i++)
        if (split[i]) add++;
    /* The pool holds the positions solved and those that failed (ncomp = nord without
     * failures). */
    if (add > v->cap_pos - v->ncomp) {
        v->res->capped = 1;
        add = v->cap_pos - v->ncomp;
    }
    if (getenv("TVDS_CEA_DEBUG"))
        fprintf(stderr, "cea: round %d: %d positions, %d intervals to split\n", round, nord, add);
    if (add == 0) {
        tvds_free(news);
        tvds_free(split);
        return 0;
    }
    /* Merge: old positions with the midpoints of the first `add` split intervals. */
    int made = 0;
    for (int i = 0; i < nord; i++) {
        v->P2[n2] = v->P[i];
        v->S2[n2] = v->S[i];
        n2++;
        if (i + 1 < nord && split[i] && made < add) {
            news[made] = 0.5 * (v->S[i] + v->S[i + 1]);
            v->P2[n2] = &v->pool[v->ncomp + made];
            v->S2[n2] = news[made];
            n2++;
            made++;
        }
    }
    memcpy(v->P, v->P2, (size_t)n2 * sizeof *v->P);
    memcpy(v->S, v->S2, (size_t)n2 * sizeof *v->S);
    v->nord = n2;
    memcpy(v->S2, news, (size_t)made * sizeof *v->S2);
    *nnew = made;
    v->res->nrefined += made;
    tvds_free(news);
    tvds_free(split);
    return 1;
}

/* The result of the tracked positions: positions, branches, per-position data, windows.
 * Returns 0, or -1 when out of memory. */
static int survey_result(cea_survey *v, const tvds_cea_options *o, int stopped)
{
    tvds_cea_result *res = v->res;
    int nord = v->nord;
    cea_pos **P = v->P;
    res->npos = nord;
    res->partial = stopped;
    res->nbranch = v->nb;
    res->ndof = v->N;
    res->nred = P[0]->nred;
    res->chi = P[0]->chi;
    res->ds_min = v->refine ? v->ds_min : 0.0;
    res->s = tvds_malloc((size_t)nord * sizeof(double));
    res->resid = tvds_malloc((size_t)nord * sizeof(double));
    res->lambda_n = tvds_malloc((size_t)nord * sizeof(double));
    res->slope = tvds_malloc((size_t)nord * sizeof(double));
    if (!res->s || !res->resid || !res->lambda_n || !res->slope) return -1;
    res->freq = v->fq;
    res->re = v->rr;
    res->zeta = v->zz;
    res->mac = v->mc;
    res->anti = v->an;
    v->fq = v->rr = v->zz = v->mc = v->an = NULL;
    res->arpack = v->arpack;
    for (int i = 0; i < nord; i++) {
        res->s[i] = v->S[i];
        if (P[i]->eig.attempts > res->arpack_attempts) res->arpack_attempts = P[i]->eig.attempts;
        res->arpack_nops += (double)P[i]->eig.nops / nord;
        res->resid[i] = P[i]->resid;
        res->lambda_n[i] = P[i]->lambda_n;
        res->slope[i] = P[i]->slope;
        if (P[i]->resid > res->resid_max) res->resid_max = P[i]->resid;
    }
    if (v->nfailed) {
        /* In path order: the direction of the given positions (refined ones fall between). */
        int asc = v->nfailed < 2 || v->S[nord - 1] >= v->S[0];
        for (int i = 1; i < v->nfailed; i++)
            for (int j = i; j > 0 && ((v->failed[j].s < v->failed[j - 1].s) == asc); j--) {
                tvds_cea_failure t = v->failed[j];
                v->failed[j] = v->failed[j - 1];
                v->failed[j - 1] = t;
            }
        res->nfailed = v->nfailed;
        res->failed = v->failed;
        v->failed = NULL;
    }
    if (cea_find_windows(res, o)) return -1;
    return 0;
}

/* dense: 1 keeps TVDS_CEA_AUTO off the ARPACK path; *arpack_failed is set when an ARPACK run
 * failed. The positions are solved in rounds: the given ones, then the midpoints the
 * refinement asks for, each round tracked anew over the path. */
static int cea_run(const tvds_model *m, int contact, const double *s, int npos,
                   const tvds_cea_options *opt, int dense, int *arpack_failed,
                   tvds_cea_result **out, tvds_ctx *ctx)
{
    if (!out) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: no output pointer");
    *out = NULL;
    tvds_cea_options o = opt ? *opt : tvds_cea_options_default();
    int rc = check_options(&o, npos, s, ctx);
    if (rc) return rc;
    cea_problem p;
    rc = cea_setup(m, contact, &o, &p, ctx);
    if (!rc) rc = check_positions(&p, s, npos, ctx);
    if (rc) {
        cea_problem_free(&p);
        return rc;
    }
    p.stop = o.stop;
    cea_mirror mr;
    if (o.mirror) {
        rc = cea_mirror_build(m, o.mirror, &mr, ctx);
        if (rc) {
            cea_problem_free(&p);
            return rc;
        }
    } else {
        memset(&mr, 0, sizeof mr);
    }
    cea_survey v;
    if (survey_alloc(&v, &p, &o, s, npos, dense)) goto nomem;
    int nnew = npos, stopped = 0, nsolved = 0;
    for (int round = 0;; round++) {
        /* Solve the positions added last (pool[ncomp .. ncomp + nnew - 1]). */
        double *pool_s = v.S2; /* positions of the new pool entries */
        if (round == 0)
            for (int i = 0; i < npos; i++)
                pool_s[i] = s[i];
        int base = v.ncomp;
        if (survey_solve(&v, &p, &o, base, nnew, pool_s, &nsolved)) goto nomem;
        rc = survey_failures(&v, base, nnew, pool_s, round, !dense && o.solver == TVDS_CEA_AUTO,
                             arpack_failed, ctx);
        if (rc) {
            v.ncomp += nnew;
            goto fail;
        }
        if (o.stop && *o.stop) {
            int keep = 0;
            rc = survey_stopped(&v, round, base, nnew, &keep, ctx);
            if (!keep) goto fail;
            stopped = 1;
        }
        if (!stopped) v.ncomp += nnew;
        if (round == 0) {
            rc = survey_branches(&v, &p, &o, s, mr.n > 0, ctx);
            if (rc == TVDS_ERR_NOMEM) goto nomem;
            if (rc) goto fail;
        }
        if (cea_track(v.P, v.nord, v.nb, v.ncand, v.N, v.fq, v.rr, v.zz, v.mc, &mr, v.an))
            goto nomem;
        if (!v.refine || stopped) break;
        int more = survey_refine(&v, &o, round, &nnew);
        if (more < 0) goto nomem;
        if (!more) break;
    }
    if (survey_result(&v, &o, stopped)) goto nomem;
    v.res->mu = p.mu;
    v.res->undamped = o.undamped;
    *out = v.res;
    v.res = NULL;
    survey_free(&v);
    cea_problem_free(&p);
    cea_mirror_free(&mr);
    return stopped ? TVDS_ERR_INTERRUPTED : TVDS_OK;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs, %d positions)", v.N, npos);
fail:
    survey_free(&v);
    cea_problem_free(&p);
    cea_mirror_free(&mr);
    return rc;
}

/* Prescribed travel of the slave at time t relative to t = 0 (the contact's slave_kin, else
 * single-term imposed motions of the slave substructure), minus the rigid master's motion. */
static void slave_travel(const tvds_model *m, const tvds_contact *c, double t, double d[3])
{
    d[0] = d[1] = d[2] = 0.0;
    int nk = c->dim == 3 ? 3 : 2;
    for (int k = 0; k < nk; k++)
        d[k] = tvds_fn_eval(&c->slave_kin[k], t) - tvds_fn_eval(&c->slave_kin[k], 0.0);
    if (d[0] == 0.0 && d[1] == 0.0 && d[2] == 0.0) {
        for (int b = 0; b < m->nbil; b++) {
            const tvds_bilateral *bl = &m->bil[b];
            if (bl->nterms != 1 || bl->terms[0].sub != c->slave_sub || bl->terms[0].coef == 0.0)
                continue;
            int dir = m->subs[bl->terms[0].sub]->dofs[bl->terms[0].dof].dir;
            if (dir == TVDS_DIR_X || dir == TVDS_DIR_Y || (dir == TVDS_DIR_Z && nk == 3))
                d[dir] += (tvds_fn_eval(&bl->value, t) - tvds_fn_eval(&bl->value, 0.0)) /
                          bl->terms[0].coef;
        }
    }
}

int tvds_cea_path_range(const tvds_model *m, int contact, int slave, double t_eval, double *s_lo,
                        double *s_hi, tvds_ctx *ctx)
{
    if (!m || !s_lo || !s_hi || contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: bad contact index %d", contact);
    const tvds_contact *c = &m->contacts[contact];
    if (c->master_kind != TVDS_MASTER_FACES)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s' has no face-set master",
                          c->name ? c->name : "?");
    tvds_cea_options o = tvds_cea_options_default();
    o.slave = slave;
    o.t_eval = t_eval;
    o.state = TVDS_CEA_UNDEFORMED;
    cea_problem p;
    int rc = cea_setup(m, contact, &o, &p, ctx);
    if (rc) {
        cea_problem_free(&p);
        return rc;
    }
    /* All active nodes on the face set at s? */
    cea_geom g;
    double lim[2] = {0.0, 0.0};
    for (int a = 0; a < p.nact; a++) {
        memset(&g, 0, sizeof g);
        if (cea_node_geometry(&p, a, 0.0, &g) == 1) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "cea: contact '%s': slave node %ld is off the face set at its "
                            "undeformed position",
                            c->name ? c->name : "?",
                            c->slave_nodes[p.nact > 1 || slave < 0 ? a : slave]);
            cea_problem_free(&p);
            return rc;
        }
    }
    /* From 0 outward in steps of an eighth of the largest face until a node is off, then
     * bisection to 1e-12 of the face size; at most the extent of the face set. */
    double lo3[3] = {INFINITY, INFINITY, INFINITY}, hi3[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int q = 0; q < p.ms.nmaster; q++)
        for (int k = 0; k < 3; k++) {
            lo3[k] = fmin(lo3[k], p.ms.fX[3 * q + k]);
            hi3[k] = fmax(hi3[k], p.ms.fX[3 * q + k]);
        }
    double ext = hypot(hypot(hi3[0] - lo3[0], hi3[1] - lo3[1]), hi3[2] - lo3[2]);
    double h = p.ms.fsize / 8;
    for (int dir = 0; dir < 2; dir++) {
        double sg = dir ? 1.0 : -1.0, in = 0.0, out = NAN;
        for (double x = h; x <= 2 * ext + h; x += h) {
            int on = 1;
            for (int a = 0; a < p.nact && on; a++)
                on = cea_node_geometry(&p, a, sg * x, &g) != 1;
            if (!on) {
                out = x;
                break;
            }
            in = x;
        }
        if (!isnan(out))
            while (out - in > 1e-12 * p.ms.fsize) {
                double mid = 0.5 * (in + out);
                int on = 1;
                for (int a = 0; a < p.nact && on; a++)
                    on = cea_node_geometry(&p, a, sg * mid, &g) != 1;
                if (on)
                    in = mid;
                else
                    out = mid;
            }
        lim[dir] = sg * in;
    }
    *s_lo = lim[0];
    *s_hi = lim[1];
    cea_problem_free(&p);
    return TVDS_OK;
}

/* Real part of branch b at abscissa x by linear interpolation (positions sorted either way). */
static double re_at(const tvds_cea_result *r, int b, double x)
{
    int n = r->npos, asc = r->s[n - 1] >= r->s[0];
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if ((r->s[mid] <= x) == asc)
            lo = mid;
        else
            hi = mid;
    }
    double s0 = r->s[lo], s1 = r->s[hi];
    double y0 = r->re[(size_t)lo * r->nbranch + b], y1 = r->re[(size_t)hi * r->nbranch + b];
    if (s1 == s0) return y0;
    double a = (x - s0) / (s1 - s0);
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    return y0 + a * (y1 - y0);
}

int tvds_cea_growth(tvds_cea_result *r, const tvds_model *m, int contact, double s_initial,
                    double t_end, double dt, tvds_ctx *ctx)
{
    if (!r || !m || contact < 0 || contact >= m->ncontact || !(t_end > 0) || r->npos < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: growth needs a result, a contact and "
                          "t_end > 0");
    const tvds_contact *c = &m->contacts[contact];
    /* Master tangent at s_initial (undeformed); rigid master: its t1. */
    double tm[3] = {1.0, 0.0, 0.0};
    if (c->master_kind == TVDS_MASTER_FACES) {
        /* Positions are distances along the slave's direction of travel at t_end. */
        double d0[3], d1[3], hh = 1e-6 * t_end, v[3], vl = 0.0;
        slave_travel(m, c, t_end - hh, d0);
        slave_travel(m, c, t_end, d1);
        for (int k = 0; k < 3; k++) {
            v[k] = d1[k] - d0[k];
            vl += v[k] * v[k];
        }
        if (!(vl > 0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: the slave does not travel at t_end");
        for (int k = 0; k < 3; k++)
            tm[k] = v[k] / sqrt(vl);
    } else if (c->master_kind == TVDS_MASTER_RIGID) {
        double tn = hypot(c->rigid_t1[0], c->rigid_t1[1]);
        if (tn > 0) tm[0] = c->rigid_t1[0] / tn, tm[1] = c->rigid_t1[1] / tn;
    } else {
        const tvds_substructure *ms = m->subs[c->master_sub];
        double acc = 0.0;
        for (int i = 0; i + 1 < c->nmaster; i++) {
            int a = tvds_substructure_find_dof(ms, c->master_nodes[i], TVDS_DIR_X);
            int b = tvds_substructure_find_dof(ms, c->master_nodes[i + 1], TVDS_DIR_X);
            if (a < 0 || b < 0) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: master node");
            double dx = ms->dofs[b].xyz[0] - ms->dofs[a].xyz[0];
            double dy = ms->dofs[b].xyz[1] - ms->dofs[a].xyz[1], len = hypot(dx, dy);
            if (i == 0 || s_initial >= acc) tm[0] = dx / len, tm[1] = dy / len;
            acc += len;
        }
    }
    if (!(dt > 0)) dt = 1e-5;
    long nt = (long)ceil(t_end / dt);
    if (nt > 100000000L) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: growth: too many steps");
    for (int w = 0; w < r->nwin; w++) {
        tvds_cea_window *cw = &r->win[w];
        double lo = cw->s_in < cw->s_out ? cw->s_in : cw->s_out;
        double hi = cw->s_in < cw->s_out ? cw->s_out : cw->s_in;
        double integ = 0.0, ta = NAN, tb = NAN;
        /* Midpoint rule on the intervals [t_k, t_k+1] whose midpoint lies inside. */
        for (long k = 0; k < nt; k++) {
            double ta_k = k * dt, tb_k = k + 1 < nt ? (k + 1) * dt : t_end, d[3];
            double tm_k = 0.5 * (ta_k + tb_k);
            slave_travel(m, c, tm_k, d);
            double sp = s_initial + d[0] * tm[0] + d[1] * tm[1];
            if (c->master_kind == TVDS_MASTER_FACES) sp += d[2] * tm[2];
            if (sp < lo || sp > hi) continue;
            if (!isfinite(ta)) ta = ta_k;
            tb = tb_k;
            integ += re_at(r, cw->branch, sp) * (tb_k - ta_k);
        }
        cw->t_start = ta;
        cw->t_end = tb;
        cw->growth_pred = isfinite(ta) ? exp(integ) : NAN;
    }
    return TVDS_OK;
}
