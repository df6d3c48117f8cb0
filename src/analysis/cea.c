/* cea.c — complex eigenvalue analysis along the sliding path by primal assembly (docs/cea.md). */
#include "tvds/tvds_cea.h"

#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "engine/contact/hermite.h"
#include "tvds/tvds_plot.h"

#define TVDS_PI 3.14159265358979323846

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
    return o;
}

/* ---- Problem description shared (read-only) by every position ------------------------- */

/* Sparse constraint rows: row r has entries ptr[r] .. ptr[r+1]-1, the same pattern for B_C and
 * B_E (they differ only by the friction term). */
typedef struct cea_rows {
    int nrows, nnz;
    int *ptr;   /* nrows + 1 */
    int *col;   /* nnz, global DoF */
    double *bc; /* nnz */
    double *be; /* nnz */
} cea_rows;

typedef struct cea_problem {
    int N;             /* global DoFs */
    double *M, *K, *C; /* N x N column-major */
    int has_c;
    /* Bilateral constraint rows (B_C = B_E). */
    int nbil, bil_nnz;
    int *bil_ptr, *bil_col;
    double *bil_val;
    /* Contact (contact >= 0). */
    int has_contact;
    int rigid;
    int slave_dof[2]; /* global DoFs x, y of the slave node */
    int nmaster;
    int smooth;        /* 1: C1 master curve (engine/contact/hermite.h) */
    int *master_dof;   /* nmaster x 2: global x, y DoFs */
    double *master_xy; /* nmaster x 2: undeformed coordinates [m] */
    double *cum;       /* nmaster: curvilinear abscissa of each master node [m] */
    double rigid_n[2], rigid_t[2];
    double mu;
    double v_rel[2];  /* sliding velocity of the slave relative to the master [m/s] */
    double chi_fixed; /* user's chi, 0 = from v_rel */
    double fmin_hz;
    int solver;
    int ncand; /* candidates kept per position */
} cea_problem;

/* Per-thread workspace, sized once. */
typedef struct cea_work {
    int rows_cap, nnz_cap, p_cap;
    cea_rows rows;
    int *J;                                    /* p_cap: columns touched by the constraints */
    int *isj;                                  /* N: position in J or -1 */
    int *F;                                    /* N: free DoFs */
    double *BJ;                                /* rows_cap x p_cap */
    double *VT;                                /* p_cap x p_cap */
    double *sv;                                /* p_cap */
    double *superb;                            /* p_cap */
    double *ZC, *ZE;                           /* p_cap x p_cap: null-space bases on J */
    double *T;                                 /* N x N */
    double *Mc, *Kc, *Cc;                      /* N x N (nr x nr used) */
    double *A, *B, *VR;                        /* 2N x 2N */
    double *ar, *ai, *beta;                    /* 2N */
    double *lscale, *rscale, *rconde, *rcondv; /* 2N: dggevx balancing and condition numbers */
    double *yr, *yi;                           /* N: residual of an eigenpair */
    int *ipiv;                                 /* 2N */
    int *order;                                /* 2N */
} cea_work;

/* Per-position result before tracking. */
typedef struct cea_pos {
    int err;  /* tvds status */
    int info; /* LAPACK info or detail */
    int nred;
    double chi;
    int ncand;
    double *lre, *lim; /* ncand */
    double resid;      /* largest backward error of the kept eigenpairs */
    double *u;         /* ncand x N x 2 (re, im interleaved): physical mode shapes */
} cea_pos;

static void rows_free(cea_rows *r)
{
    tvds_free(r->ptr);
    tvds_free(r->col);
    tvds_free(r->bc);
    tvds_free(r->be);
    memset(r, 0, sizeof *r);
}

static void problem_free(cea_problem *p)
{
    tvds_free(p->M);
    tvds_free(p->K);
    tvds_free(p->C);
    tvds_free(p->bil_ptr);
    tvds_free(p->bil_col);
    tvds_free(p->bil_val);
    tvds_free(p->master_dof);
    tvds_free(p->master_xy);
    tvds_free(p->cum);
    memset(p, 0, sizeof *p);
}

static void work_free(cea_work *w)
{
    if (!w) return;
    rows_free(&w->rows);
    void *ptrs[] = {w->J,      w->isj,    w->F,      w->BJ,     w->VT,   w->sv,   w->superb,
                    w->ZC,     w->ZE,     w->T,      w->Mc,     w->Kc,   w->Cc,   w->A,
                    w->B,      w->VR,     w->ar,     w->ai,     w->beta, w->ipiv, w->order,
                    w->lscale, w->rscale, w->rconde, w->rcondv, w->yr,   w->yi};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        tvds_free(ptrs[i]);
    memset(w, 0, sizeof *w);
}

static int work_alloc(cea_work *w, int N, int rows_cap, int nnz_cap)
{
    memset(w, 0, sizeof *w);
    int p_cap = nnz_cap < N ? nnz_cap : N;
    if (p_cap < 1) p_cap = 1;
    w->rows_cap = rows_cap;
    w->nnz_cap = nnz_cap;
    w->p_cap = p_cap;
    size_t n2 = (size_t)N * N, s2 = (size_t)4 * N * N;
    w->rows.ptr = tvds_malloc((size_t)(rows_cap + 1) * sizeof(int));
    w->rows.col = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(int));
    w->rows.bc = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(double));
    w->rows.be = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(double));
    w->J = tvds_malloc((size_t)(nnz_cap + 1) * sizeof(int)); /* before deduplication */
    w->isj = tvds_malloc((size_t)N * sizeof(int));
    w->F = tvds_malloc((size_t)N * sizeof(int));
    w->BJ = tvds_malloc((size_t)(rows_cap > 0 ? rows_cap : 1) * p_cap * sizeof(double));
    w->VT = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->sv = tvds_malloc((size_t)p_cap * sizeof(double));
    w->superb = tvds_malloc((size_t)p_cap * sizeof(double));
    w->ZC = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->ZE = tvds_malloc((size_t)p_cap * p_cap * sizeof(double));
    w->T = tvds_malloc(n2 * sizeof(double));
    w->Mc = tvds_malloc(n2 * sizeof(double));
    w->Kc = tvds_malloc(n2 * sizeof(double));
    w->Cc = tvds_malloc(n2 * sizeof(double));
    w->A = tvds_malloc(s2 * sizeof(double));
    w->B = tvds_malloc(s2 * sizeof(double));
    w->VR = tvds_malloc(s2 * sizeof(double));
    w->ar = tvds_malloc((size_t)2 * N * sizeof(double));
    w->ai = tvds_malloc((size_t)2 * N * sizeof(double));
    w->beta = tvds_malloc((size_t)2 * N * sizeof(double));
    w->lscale = tvds_malloc((size_t)2 * N * sizeof(double));
    w->rscale = tvds_malloc((size_t)2 * N * sizeof(double));
    w->rconde = tvds_malloc((size_t)2 * N * sizeof(double));
    w->rcondv = tvds_malloc((size_t)2 * N * sizeof(double));
    w->yr = tvds_malloc((size_t)N * sizeof(double));
    w->yi = tvds_malloc((size_t)N * sizeof(double));
    w->ipiv = tvds_malloc((size_t)2 * N * sizeof(int));
    w->order = tvds_malloc((size_t)2 * N * sizeof(int));
    w->rows.nrows = 0;
    if (!w->rows.ptr || !w->rows.col || !w->rows.bc || !w->rows.be || !w->J || !w->isj || !w->F ||
        !w->BJ || !w->VT || !w->sv || !w->superb || !w->ZC || !w->ZE || !w->T || !w->Mc || !w->Kc ||
        !w->Cc || !w->A || !w->B || !w->VR || !w->ar || !w->ai || !w->beta || !w->ipiv ||
        !w->order || !w->lscale || !w->rscale || !w->rconde || !w->rcondv || !w->yr || !w->yi) {
        work_free(w);
        return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

/* ---- Setup ----------------------------------------------------------------------------- */

static int find_xy(const tvds_model *m, int sub, long node, int dof[2], double xy[2],
                   const char *what, const char *cname, const int *off, tvds_ctx *ctx)
{
    const tvds_substructure *s = m->subs[sub];
    for (int k = 0; k < 2; k++) {
        int d = tvds_substructure_find_dof(s, node, k == 0 ? TVDS_DIR_X : TVDS_DIR_Y);
        if (d < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': %s node %ld has no %c DoF in substructure '%s'",
                              cname, what, node, k == 0 ? 'x' : 'y', s->name ? s->name : "?");
        dof[k] = off[sub] + d;
        if (xy) xy[k] = s->dofs[d].xyz[k];
    }
    return TVDS_OK;
}

static int setup(const tvds_model *m, int contact, const tvds_cea_options *o, cea_problem *p,
                 tvds_ctx *ctx)
{
    memset(p, 0, sizeof *p);
    if (!m || m->nsub < 1 || !m->subs) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: empty model");
    if (contact < -1 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact index %d out of [0, %d)", contact,
                          m->ncontact);
    double t_eval = o->t_eval >= 0 ? o->t_eval : (m->opt.t_end > 0 ? m->opt.t_end : 1e30);
    int off[m->nsub + 1];
    off[0] = 0;
    for (int i = 0; i < m->nsub; i++) {
        if (!m->subs[i] || m->subs[i]->n < 1 || !m->subs[i]->M || !m->subs[i]->K)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: substructure %d is empty", i);
        off[i + 1] = off[i] + m->subs[i]->n;
    }
    int N = off[m->nsub];
    if (N > 20000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: %d DoFs: too many for dense eigenanalysis",
                          N);
    p->N = N;
    size_t n2 = (size_t)N * N;
    p->M = tvds_calloc(n2, sizeof(double));
    p->K = tvds_calloc(n2, sizeof(double));
    p->C = tvds_calloc(n2, sizeof(double));
    if (!p->M || !p->K || !p->C) goto nomem;
    /* Block-diagonal M, K, C of the free substructures. */
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        double al = 0.0, be = 0.0;
        int kind = m->damping ? m->damping[i].kind : (s->C ? TVDS_DAMP_MATRIX : TVDS_DAMP_NONE);
        if (kind == TVDS_DAMP_RAYLEIGH) tvds_damping_at(&m->damping[i], t_eval, &al, &be);
        for (int c = 0; c < s->n; c++)
            for (int r = 0; r < s->n; r++) {
                size_t g = (size_t)(off[i] + c) * N + (size_t)(off[i] + r);
                size_t l = (size_t)c * s->n + r;
                p->M[g] = s->M[l];
                p->K[g] = s->K[l];
                if (kind == TVDS_DAMP_RAYLEIGH)
                    p->C[g] = al * s->M[l] + be * s->K[l];
                else if (kind == TVDS_DAMP_MATRIX && s->C)
                    p->C[g] = s->C[l];
            }
    }
    /* Springs and dampers; friction elements have no linear part about steady sliding. */
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *el = &m->elements[e];
        if (el->kind != TVDS_EL_SPRING && el->kind != TVDS_EL_DAMPER) continue;
        int g[2], ng = 0;
        double sg[2] = {1.0, -1.0};
        for (int k = 0; k < 2; k++) {
            if (el->sub[k] < 0) continue;
            if (el->sub[k] >= m->nsub || el->dof[k] < 0 || el->dof[k] >= m->subs[el->sub[k]]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: element '%s': bad DoF",
                                  el->name ? el->name : "?");
            sg[ng] = k == 0 ? 1.0 : -1.0;
            g[ng++] = off[el->sub[k]] + el->dof[k];
        }
        double *X = el->kind == TVDS_EL_SPRING ? p->K : p->C;
        double v = el->kind == TVDS_EL_SPRING ? el->k : el->b;
        for (int a = 0; a < ng; a++)
            for (int b = 0; b < ng; b++)
                X[(size_t)g[b] * N + g[a]] += sg[a] * sg[b] * v;
    }
    for (size_t i = 0; i < n2; i++)
        if (p->C[i] != 0.0) p->has_c = 1;

    /* Bilateral constraints: rows of both B_C and B_E (their perturbation is zero). */
    int nnz = 0;
    for (int b = 0; b < m->nbil; b++)
        nnz += m->bil[b].nterms;
    p->nbil = m->nbil;
    p->bil_nnz = nnz;
    p->bil_ptr = tvds_malloc((size_t)(m->nbil + 1) * sizeof(int));
    p->bil_col = tvds_malloc((size_t)(nnz + 1) * sizeof(int));
    p->bil_val = tvds_malloc((size_t)(nnz + 1) * sizeof(double));
    if (!p->bil_ptr || !p->bil_col || !p->bil_val) goto nomem;
    nnz = 0;
    for (int b = 0; b < m->nbil; b++) {
        p->bil_ptr[b] = nnz;
        for (int k = 0; k < m->bil[b].nterms; k++) {
            const tvds_term *t = &m->bil[b].terms[k];
            if (t->sub < 0 || t->sub >= m->nsub || t->dof < 0 || t->dof >= m->subs[t->sub]->n)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: constraint '%s': bad DoF",
                                  m->bil[b].name ? m->bil[b].name : "?");
            p->bil_col[nnz] = off[t->sub] + t->dof;
            p->bil_val[nnz] = t->coef;
            nnz++;
        }
    }
    p->bil_ptr[m->nbil] = nnz;

    /* Frequency scale of the whole system for the rigid-body filter. */
    double trk = 0.0, trm = 0.0;
    for (int i = 0; i < N; i++) {
        trk += fabs(p->K[(size_t)i * N + i]);
        trm += fabs(p->M[(size_t)i * N + i]);
    }
    p->fmin_hz = o->fmin_hz >= 0 ? o->fmin_hz : 1e-6 * sqrt(trk / trm) / (2.0 * TVDS_PI);
    p->solver = o->solver;
    p->chi_fixed = o->chi;
    p->ncand = o->nmodes + (o->nextra > 0 ? o->nextra : 0);

    if (contact < 0) return TVDS_OK;
    const tvds_contact *c = &m->contacts[contact];
    const char *cname = c->name ? c->name : "?";
    if (c->dim != 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': only 2D contacts (dim = 2)",
                          cname);
    if (o->slave < 0 || o->slave >= c->nslave)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': slave index %d out of [0, %d)",
                          cname, o->slave, c->nslave);
    if (c->slave_sub < 0 || c->slave_sub >= m->nsub)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': bad slave substructure",
                          cname);
    p->has_contact = 1;
    p->mu = c->mu_k;
    int rc = find_xy(m, c->slave_sub, c->slave_nodes[o->slave], p->slave_dof, NULL, "slave", cname,
                     off, ctx);
    if (rc) return rc;
    /* Sliding velocity of the slave: its prescribed kinematics (Subs-a), or else single-term
     * imposed motions of its own DoFs (the drive of the slave body). */
    double vs[2] = {0.0, 0.0}, vm[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++)
        vs[k] = tvds_fn_deriv(&c->slave_kin[k], t_eval, 1);
    if (vs[0] == 0.0 && vs[1] == 0.0) {
        for (int b = 0; b < m->nbil; b++) {
            const tvds_bilateral *bl = &m->bil[b];
            if (bl->nterms != 1 || bl->terms[0].sub != c->slave_sub || bl->terms[0].coef == 0.0)
                continue;
            int dir = m->subs[bl->terms[0].sub]->dofs[bl->terms[0].dof].dir;
            if (dir == TVDS_DIR_X || dir == TVDS_DIR_Y)
                vs[dir] += tvds_fn_deriv(&bl->value, t_eval, 1) / bl->terms[0].coef;
        }
    }
    if (c->master_kind == TVDS_MASTER_RIGID) {
        p->rigid = 1;
        double nn = hypot(c->rigid_normal[0], c->rigid_normal[1]);
        double tn = hypot(c->rigid_t1[0], c->rigid_t1[1]);
        if (!(nn > 0) || !(tn > 0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': rigid master without normal or tangent", cname);
        for (int k = 0; k < 2; k++) {
            p->rigid_n[k] = c->rigid_normal[k] / nn;
            p->rigid_t[k] = c->rigid_t1[k] / tn;
            vm[k] = tvds_fn_deriv(&c->rigid_motion[k], t_eval, 1);
        }
    } else {
        if (c->master_sub < 0 || c->master_sub >= m->nsub || c->nmaster < 2)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': master surface needs a substructure and >= 2 "
                              "nodes",
                              cname);
        p->nmaster = c->nmaster;
        p->smooth = c->master_kind == TVDS_MASTER_SURFACE_C1;
        p->master_dof = tvds_malloc((size_t)2 * c->nmaster * sizeof(int));
        p->master_xy = tvds_malloc((size_t)2 * c->nmaster * sizeof(double));
        p->cum = tvds_malloc((size_t)c->nmaster * sizeof(double));
        if (!p->master_dof || !p->master_xy || !p->cum) goto nomem;
        for (int k = 0; k < c->nmaster; k++) {
            rc = find_xy(m, c->master_sub, c->master_nodes[k], p->master_dof + 2 * k,
                         p->master_xy + 2 * k, "master", cname, off, ctx);
            if (rc) return rc;
            if (k == 0) {
                p->cum[0] = 0.0;
            } else {
                double len = hypot(p->master_xy[2 * k] - p->master_xy[2 * k - 2],
                                   p->master_xy[2 * k + 1] - p->master_xy[2 * k - 1]);
                if (!(len > 0))
                    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                      "cea: contact '%s': master nodes %ld and %ld coincide", cname,
                                      c->master_nodes[k - 1], c->master_nodes[k]);
                p->cum[k] = p->cum[k - 1] + len;
            }
        }
    }
    p->v_rel[0] = vs[0] - vm[0];
    p->v_rel[1] = vs[1] - vm[1];
    if (p->chi_fixed == 0.0 && p->mu != 0.0 && p->v_rel[0] == 0.0 && p->v_rel[1] == 0.0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': no sliding velocity at t = %g (slave_kin, imposed "
                          "motions of the slave substructure and rigid master motion are all at "
                          "rest): give the sliding sign chi",
                          cname, t_eval);
    return TVDS_OK;
nomem:
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs)", N);
}

/* Contact geometry at abscissa s: normal, tangent, segment and alpha (undeformed surface). */
static void contact_geometry(const cea_problem *p, double s, int *seg, double *alpha, double n[2],
                             double t[2], double wgt[2])
{
    if (p->rigid) {
        *seg = -1;
        *alpha = 0.0;
        n[0] = p->rigid_n[0], n[1] = p->rigid_n[1];
        t[0] = p->rigid_t[0], t[1] = p->rigid_t[1];
        return;
    }
    int k = 0;
    while (k < p->nmaster - 2 && s > p->cum[k + 1])
        k++;
    double len = p->cum[k + 1] - p->cum[k];
    double a = (s - p->cum[k]) / len;
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    *seg = k;
    *alpha = a;
    wgt[0] = 1.0 - a;
    wgt[1] = a;
    if (p->smooth) {
        /* C1 master (master_c1_impl.h): the same curve and weights as the engine, xi = a. */
        const double *xy = p->master_xy;
        tvds_c1_seg sg;
        tvds_c1_segment(k > 0 ? xy + 2 * k - 2 : NULL, xy + 2 * k, xy + 2 * k + 2,
                        k + 2 < p->nmaster ? xy + 2 * k + 4 : NULL, &sg);
        tvds_c1_frame(&sg, a, t, n);
        tvds_c1_weights(a, wgt);
        return;
    }
    /* t = (cos gamma, sin gamma) along T1 -> T2, n = (-sin gamma, cos gamma) (docs/theory.md). */
    t[0] = (p->master_xy[2 * k + 2] - p->master_xy[2 * k]) / len;
    t[1] = (p->master_xy[2 * k + 3] - p->master_xy[2 * k + 1]) / len;
    n[0] = -t[1];
    n[1] = t[0];
}

/* Rows of B_C and B_E at position s into w->rows; returns chi used. */
static double build_rows(const cea_problem *p, double s, cea_work *w)
{
    cea_rows *r = &w->rows;
    int nz = 0;
    for (int b = 0; b < p->nbil; b++) {
        r->ptr[b] = nz;
        for (int k = p->bil_ptr[b]; k < p->bil_ptr[b + 1]; k++) {
            r->col[nz] = p->bil_col[k];
            r->bc[nz] = r->be[nz] = p->bil_val[k];
            nz++;
        }
    }
    r->nrows = p->nbil;
    double chi = p->chi_fixed;
    if (p->has_contact) {
        int seg;
        double a, n[2], t[2], wgt[2];
        contact_geometry(p, s, &seg, &a, n, t, wgt);
        if (chi == 0.0) {
            double vt = p->v_rel[0] * t[0] + p->v_rel[1] * t[1];
            chi = vt > 0 ? 1.0 : (vt < 0 ? -1.0 : 0.0);
        }
        double e[2] = {n[0] - chi * p->mu * t[0], n[1] - chi * p->mu * t[1]};
        r->ptr[r->nrows] = nz;
        /* Slave C: +n (compatibility), n - chi mu t (equilibrium). */
        for (int k = 0; k < 2; k++) {
            r->col[nz] = p->slave_dof[k];
            r->bc[nz] = n[k];
            r->be[nz] = e[k];
            nz++;
        }
        if (!p->rigid) {
            for (int node = 0; node < 2; node++)
                for (int k = 0; k < 2; k++) {
                    r->col[nz] = p->master_dof[2 * (seg + node) + k];
                    r->bc[nz] = -wgt[node] * n[k];
                    r->be[nz] = -wgt[node] * e[k];
                    nz++;
                }
        }
        r->nrows++;
    }
    r->ptr[r->nrows] = nz;
    r->nnz = nz;
    return chi;
}

static int cmp_int(const void *a, const void *b)
{
    int u = *(const int *)a, v = *(const int *)b;
    return (u > v) - (u < v);
}

/* Null-space basis Z (p x (p - rank)) of the rows restricted to J, by SVD. */
static int null_space(cea_work *w, int p, int use_e, double *Z, int *rank)
{
    const cea_rows *r = &w->rows;
    int nr = r->nrows;
    *rank = 0;
    if (nr == 0) {
        for (int j = 0; j < p * p; j++)
            Z[j] = 0.0;
        for (int j = 0; j < p; j++)
            Z[(size_t)j * p + j] = 1.0;
        return 0;
    }
    memset(w->BJ, 0, (size_t)nr * p * sizeof(double));
    for (int i = 0; i < nr; i++)
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++)
            w->BJ[(size_t)w->isj[r->col[k]] * nr + i] += use_e ? r->be[k] : r->bc[k];
    double dummy = 0.0;
    /* Full V^T: its last p - rank rows span the null space. */
    int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', nr, p, w->BJ, nr, w->sv, &dummy, 1, w->VT,
                              p, w->superb);
    if (info != 0) return info;
    int ns = nr < p ? nr : p, rk = 0;
    double tol = 1e-12 * (ns > 0 ? w->sv[0] : 0.0) * (nr > p ? nr : p);
    for (int i = 0; i < ns; i++)
        if (w->sv[i] > tol) rk++;
    *rank = rk;
    for (int c = 0; c < p - rk; c++)
        for (int j = 0; j < p; j++)
            Z[(size_t)c * p + j] = w->VT[(size_t)j * p + (rk + c)];
    return 0;
}

/* X_c = L_E^T X L_C (nr x nr) with L = [e_F | Z on J]. */
static void project(const cea_problem *p, cea_work *w, const double *X, int nf, int nz, int pj,
                    double *Xc)
{
    int N = p->N, nr = nf + nz;
    double *T = w->T; /* N x nr: X L_C */
    for (int c = 0; c < nf; c++)
        memcpy(T + (size_t)c * N, X + (size_t)w->F[c] * N, N * sizeof *T);
    for (int z = 0; z < nz; z++) {
        double *tc = T + (size_t)(nf + z) * N;
        memset(tc, 0, N * sizeof *tc);
        for (int j = 0; j < pj; j++) {
            double zz = w->ZC[(size_t)z * pj + j];
            if (zz == 0.0) continue;
            const double *xc = X + (size_t)w->J[j] * N;
            for (int i = 0; i < N; i++)
                tc[i] += zz * xc[i];
        }
    }
    for (int c = 0; c < nr; c++) {
        const double *tc = T + (size_t)c * N;
        double *out = Xc + (size_t)c * nr;
        for (int r = 0; r < nf; r++)
            out[r] = tc[w->F[r]];
        for (int z = 0; z < nz; z++) {
            double acc = 0.0;
            for (int j = 0; j < pj; j++)
                acc += w->ZE[(size_t)z * pj + j] * tc[w->J[j]];
            out[nf + z] = acc;
        }
    }
}

/* Backward error of the eigenpair (s, q) of the reduced quadratic problem:
 * |(s^2 M_c + s C_c + K_c) q| / ((|s|^2 |M_c| + |s| |C_c| + |K_c|) |q|), 2-norm and Frobenius
 * norms; round-off level (1e-13) for an accurate pair. */
static double backward_error(cea_work *w, int nr, double sr, double si, const double *qr,
                             const double *qi, double fk, double fm, double fc)
{
    double s2r = sr * sr - si * si, s2i = 2 * sr * si;
    double *yr = w->yr, *yi = w->yi;
    for (int r = 0; r < nr; r++)
        yr[r] = yi[r] = 0.0;
    for (int c = 0; c < nr; c++) {
        /* column c of s^2 M + s C + K, times q_c */
        double ar, ai, qcr = qr[c], qci = qi[c];
        const double *mc = w->Mc + (size_t)c * nr, *cc = w->Cc + (size_t)c * nr,
                     *kc = w->Kc + (size_t)c * nr;
        for (int r = 0; r < nr; r++) {
            ar = s2r * mc[r] + sr * cc[r] + kc[r];
            ai = s2i * mc[r] + si * cc[r];
            yr[r] += ar * qcr - ai * qci;
            yi[r] += ar * qci + ai * qcr;
        }
    }
    double ny = 0.0, nq = 0.0;
    for (int r = 0; r < nr; r++) {
        ny += yr[r] * yr[r] + yi[r] * yi[r];
        nq += qr[r] * qr[r] + qi[r] * qi[r];
    }
    double a2 = sr * sr + si * si;
    double den = (a2 * fm + sqrt(a2) * fc + fk) * sqrt(nq);
    return den > 0 ? sqrt(ny) / den : 0.0;
}

/* Eigen-solution at one position into *out. */
static void solve_position(const cea_problem *p, double s, cea_work *w, cea_pos *out)
{
    int N = p->N;
    out->err = TVDS_OK;
    out->info = 0;
    out->ncand = 0;
    out->chi = build_rows(p, s, w);
    const cea_rows *r = &w->rows;
    /* Columns touched by the constraints. */
    int pj = 0;
    for (int k = 0; k < r->nnz; k++)
        w->J[pj++] = r->col[k];
    qsort(w->J, (size_t)pj, sizeof(int), cmp_int);
    int u = 0;
    for (int k = 0; k < pj; k++)
        if (u == 0 || w->J[k] != w->J[u - 1]) w->J[u++] = w->J[k];
    pj = u;
    for (int i = 0; i < N; i++)
        w->isj[i] = -1;
    for (int j = 0; j < pj; j++)
        w->isj[w->J[j]] = j;
    int nf = 0;
    for (int i = 0; i < N; i++)
        if (w->isj[i] < 0) w->F[nf++] = i;
    int rc_, re_;
    int info = null_space(w, pj, 0, w->ZC, &rc_);
    if (!info) info = null_space(w, pj, 1, w->ZE, &re_);
    if (info) {
        out->err = TVDS_ERR_SOLVER;
        out->info = info;
        return;
    }
    if (rc_ != re_) {
        out->err = TVDS_ERR_SINGULAR;
        out->info = rc_ * 1000 + re_;
        return;
    }
    int nz = pj - rc_, nr = nf + nz;
    out->nred = nr;
    if (nr < 1) {
        out->err = TVDS_ERR_SINGULAR;
        return;
    }
    project(p, w, p->M, nf, nz, pj, w->Mc);
    project(p, w, p->K, nf, nz, pj, w->Kc);
    if (p->has_c)
        project(p, w, p->C, nf, nz, pj, w->Cc);
    else
        memset(w->Cc, 0, (size_t)nr * nr * sizeof(double));

    /* State space x = [q; q' / w0]: A x = s B x, A = [[0, w0 I], [-K / w0, -C]],
     * B = [[I, 0], [0, M]]. The frequency scale w0 = sqrt(|K|_1 / |M|_1) balances the blocks
     * (w0 = 1 is the textbook form; its blocks differ by |K| / |M| ~ w^2, which costs digits). */
    int n2 = 2 * nr;
    int standard = 0;
    double nk = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', nr, nr, w->Kc, nr);
    double nm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', nr, nr, w->Mc, nr);
    double w0 = nk > 0 && nm > 0 ? sqrt(nk / nm) : 1.0;
    if (p->solver != TVDS_CEA_QZ) {
        /* Standard form A' = [[0, w0 I], [-M^-1 K / w0, -M^-1 C]] when M_c is well
         * conditioned. */
        memcpy(w->B, w->Mc, (size_t)nr * nr * sizeof(double));
        double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', nr, nr, w->B, nr), rcond = 0.0;
        int inf2 = LAPACKE_dgetrf(LAPACK_COL_MAJOR, nr, nr, w->B, nr, w->ipiv);
        if (inf2 == 0) inf2 = LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', nr, w->B, nr, anorm, &rcond);
        if (inf2 == 0 && rcond > 1e-12) {
            standard = 1;
            /* RHS [K C] (nr x 2nr) into the lower half of A, then solve. */
            double *R = w->VR; /* scratch nr x 2nr */
            memcpy(R, w->Kc, (size_t)nr * nr * sizeof(double));
            memcpy(R + (size_t)nr * nr, w->Cc, (size_t)nr * nr * sizeof(double));
            LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', nr, n2, w->B, nr, w->ipiv, R, nr);
            memset(w->A, 0, (size_t)n2 * n2 * sizeof(double));
            for (int i = 0; i < nr; i++)
                w->A[(size_t)(nr + i) * n2 + i] = w0;
            for (int c = 0; c < n2; c++)
                for (int i = 0; i < nr; i++)
                    w->A[(size_t)c * n2 + nr + i] = -R[(size_t)c * nr + i] / (c < nr ? w0 : 1.0);
        } else if (p->solver == TVDS_CEA_STANDARD) {
            out->err = TVDS_ERR_SINGULAR;
            out->info = -1;
            return;
        }
    }
    double dummy[1];
    if (standard) {
        info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->ar, w->ai, dummy, 1,
                             w->VR, n2);
        for (int i = 0; i < n2; i++)
            w->beta[i] = 1.0;
    } else {
        memset(w->A, 0, (size_t)n2 * n2 * sizeof(double));
        memset(w->B, 0, (size_t)n2 * n2 * sizeof(double));
        for (int i = 0; i < nr; i++) {
            w->A[(size_t)(nr + i) * n2 + i] = w0;
            w->B[(size_t)i * n2 + i] = 1.0;
        }
        for (int c = 0; c < nr; c++)
            for (int i = 0; i < nr; i++) {
                w->A[(size_t)c * n2 + nr + i] = -w->Kc[(size_t)c * nr + i] / w0;
                w->A[(size_t)(nr + c) * n2 + nr + i] = -w->Cc[(size_t)c * nr + i];
                w->B[(size_t)(nr + c) * n2 + nr + i] = w->Mc[(size_t)c * nr + i];
            }
        /* ldvl >= 1 even without left vectors (LAPACKE checks it). */
        info = LAPACKE_dggev(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->B, n2, w->ar, w->ai,
                             w->beta, dummy, 1, w->VR, n2);
    }
    if (info != 0) {
        out->err = TVDS_ERR_SOLVER;
        out->info = info;
        return;
    }
    /* Oscillating eigenvalues (Im > 0 above fmin), finite (beta = 0: infinite eigenvalue). */
    double wmin = 2.0 * TVDS_PI * p->fmin_hz;
    int nc = 0;
    for (int i = 0; i < n2; i++) {
        double b = w->beta[i];
        if (b == 0.0 || !(fabs(b) > 1e-13 * hypot(w->ar[i], w->ai[i]))) continue;
        /* LAPACK stores a complex pair with the positive imaginary part first; only that one
         * is kept (the vector is columns i, i+1 as re, im). */
        if (!(w->ai[i] > 0.0) || !(b > 0.0) || i + 1 >= n2) continue;
        double im = w->ai[i] / b;
        if (!(im > wmin)) continue;
        w->order[nc++] = i;
    }
    /* Sort by frequency (insertion sort: few hundred entries); equal frequencies (a
     * coalesced flutter pair) by decreasing real part, so that the order does not depend on
     * round-off. */
    for (int a = 1; a < nc; a++) {
        int key = w->order[a];
        double ki = w->ai[key] / w->beta[key], kr = w->ar[key] / w->beta[key];
        int b = a - 1;
        while (b >= 0) {
            int o = w->order[b];
            double oi = w->ai[o] / w->beta[o], orr = w->ar[o] / w->beta[o];
            double tol = 1e-9 * (fabs(oi) + fabs(ki));
            if (!(oi > ki + tol || (fabs(oi - ki) <= tol && orr < kr))) break;
            w->order[b + 1] = w->order[b];
            b--;
        }
        w->order[b + 1] = key;
    }
    if (nc > p->ncand) nc = p->ncand;
    out->ncand = nc;
    out->resid = 0.0;
    double fk = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', nr, nr, w->Kc, nr);
    double fm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', nr, nr, w->Mc, nr);
    double fc = LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', nr, nr, w->Cc, nr);
    for (int c = 0; c < nc; c++) {
        int i = w->order[c];
        out->lre[c] = w->ar[i] / w->beta[i];
        out->lim[c] = w->ai[i] / w->beta[i];
        /* Physical mode shape u = L_C q, q = first nr entries of the state vector. */
        const double *vre = w->VR + (size_t)i * n2, *vim = w->VR + (size_t)(i + 1) * n2;
        double be = backward_error(w, nr, out->lre[c], out->lim[c], vre, vim, fk, fm, fc);
        if (!(be <= out->resid)) out->resid = be;
        double *uc = out->u + (size_t)c * N * 2;
        memset(uc, 0, (size_t)N * 2 * sizeof(double));
        for (int f = 0; f < nf; f++) {
            uc[2 * w->F[f]] = vre[f];
            uc[2 * w->F[f] + 1] = vim[f];
        }
        for (int z = 0; z < nz; z++)
            for (int j = 0; j < pj; j++) {
                double zz = w->ZC[(size_t)z * pj + j];
                uc[2 * w->J[j]] += zz * vre[nf + z];
                uc[2 * w->J[j] + 1] += zz * vim[nf + z];
            }
    }
}

/* ---- Tracking ---------------------------------------------------------------------------- */

/* MAC of complex vectors a, b (N complex, interleaved). */
static double mac(const double *a, const double *b, int N)
{
    double sr = 0.0, si = 0.0, na = 0.0, nb = 0.0;
    for (int i = 0; i < N; i++) {
        double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        sr += ar * br + ai * bi; /* conj(a) . b */
        si += ar * bi - ai * br;
        na += ar * ar + ai * ai;
        nb += br * br + bi * bi;
    }
    if (!(na > 0) || !(nb > 0)) return 0.0;
    return (sr * sr + si * si) / (na * nb);
}

int tvds_cea_surface_length(const tvds_model *m, int contact, double *length, tvds_ctx *ctx)
{
    if (!m || !length || contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: bad contact index %d", contact);
    const tvds_contact *c = &m->contacts[contact];
    if (c->master_kind == TVDS_MASTER_RIGID || c->master_sub < 0 || c->master_sub >= m->nsub)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s' has no master surface (rigid master): give positions",
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

void tvds_cea_result_free(tvds_cea_result **r)
{
    if (!r || !*r) return;
    tvds_free((*r)->s);
    tvds_free((*r)->freq);
    tvds_free((*r)->re);
    tvds_free((*r)->zeta);
    tvds_free((*r)->mac);
    tvds_free((*r)->resid);
    tvds_free((*r)->win);
    tvds_free(*r);
    *r = NULL;
}

static double unstable_threshold(const tvds_cea_options *o, double re, double im)
{
    return o->re_tol + 1e-9 * hypot(re, im);
}

int tvds_cea_run(const tvds_model *m, int contact, const double *s, int npos,
                 const tvds_cea_options *opt, tvds_cea_result **out, tvds_ctx *ctx)
{
    if (!out) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: no output pointer");
    *out = NULL;
    tvds_cea_options o = opt ? *opt : tvds_cea_options_default();
    if (npos < 1 || !s) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: no positions");
    if (o.nmodes < 1 || o.nmodes > 100000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nmodes %d out of range", o.nmodes);
    if (o.chi != 0.0 && o.chi != 1.0 && o.chi != -1.0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: chi must be -1, 0 (auto) or +1, not %g",
                          o.chi);
    cea_problem p;
    int rc = setup(m, contact, &o, &p, ctx);
    if (rc) {
        problem_free(&p);
        return rc;
    }
    for (int i = 0; i < npos; i++) {
        if (!isfinite(s[i]) ||
            (p.has_contact && !p.rigid &&
             (s[i] < -1e-12 * p.cum[p.nmaster - 1] || s[i] > p.cum[p.nmaster - 1] * (1 + 1e-12)))) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "cea: position %d (s = %g m) is off the master surface [0, %g]", i,
                            s[i], p.has_contact && !p.rigid ? p.cum[p.nmaster - 1] : 0.0);
            problem_free(&p);
            return rc;
        }
    }
    int N = p.N, ncand = p.ncand;
    int rows_cap = p.nbil + 1, nnz_cap = p.bil_nnz + 6;
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = o.nthreads > 0 ? o.nthreads : omp_get_max_threads();
    if (nthreads > npos) nthreads = npos;
#endif
    cea_work *work = tvds_calloc((size_t)nthreads, sizeof *work);
    cea_pos *pos = tvds_calloc((size_t)npos, sizeof *pos);
    double *store = tvds_malloc((size_t)npos * ncand * (2 + 2 * (size_t)N) * sizeof(double));
    tvds_cea_result *res = tvds_calloc(1, sizeof *res);
    int nw = 0;
    if (!work || !pos || !store || !res) goto nomem;
    for (; nw < nthreads; nw++)
        if (work_alloc(&work[nw], N, rows_cap, nnz_cap)) goto nomem;
    for (int i = 0; i < npos; i++) {
        double *b = store + (size_t)i * ncand * (2 + 2 * (size_t)N);
        pos[i].lre = b;
        pos[i].lim = b + ncand;
        pos[i].u = b + 2 * ncand;
    }

    /* Positions are independent: one workspace per thread, LAPACK is reentrant. */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
#endif
    for (int i = 0; i < npos; i++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        if (o.stop && *o.stop) {
            pos[i].err = TVDS_ERR_INTERRUPTED;
            continue;
        }
        solve_position(&p, s[i], &work[tid], &pos[i]);
    }
    if (o.stop && *o.stop) {
        int done = 0;
        for (int i = 0; i < npos; i++)
            done += pos[i].err != TVDS_ERR_INTERRUPTED;
        rc = TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED,
                        "cea: interrupted after %d of %d positions (nothing written)", done, npos);
        goto fail;
    }
    for (int i = 0; i < npos; i++) {
        if (pos[i].err == TVDS_OK) continue;
        if (pos[i].err == TVDS_ERR_SINGULAR)
            rc = TVDS_ERROR(ctx, TVDS_ERR_SINGULAR, "cea: position s = %g: %s", s[i],
                            pos[i].info < 0 ? "reduced mass matrix is singular"
                            : pos[i].info == 0
                                ? "the constraints leave no DoF"
                                : "compatibility and equilibrium constraints have different "
                                  "ranks (friction makes B_E rank deficient)");
        else
            rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "cea: position s = %g: LAPACK info %d", s[i],
                            pos[i].info);
        goto fail;
    }

    /* Branches: the lowest nmodes at the first position, then followed by MAC. */
    int nb = o.nmodes < pos[0].ncand ? o.nmodes : pos[0].ncand;
    if (nb < 1) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                        "cea: no oscillating eigenvalue above %g Hz at s = %g", p.fmin_hz, s[0]);
        goto fail;
    }
    res->npos = npos;
    res->nbranch = nb;
    res->ndof = N;
    res->nred = pos[0].nred;
    res->chi = pos[0].chi;
    size_t tot = (size_t)npos * nb;
    res->s = tvds_malloc((size_t)npos * sizeof(double));
    res->freq = tvds_malloc(tot * sizeof(double));
    res->re = tvds_malloc(tot * sizeof(double));
    res->zeta = tvds_malloc(tot * sizeof(double));
    res->mac = tvds_malloc(tot * sizeof(double));
    res->resid = tvds_malloc((size_t)npos * sizeof(double));
    int *cur = tvds_malloc((size_t)nb * sizeof(int)); /* candidate of branch b at p-1 */
    int *nxt = tvds_malloc((size_t)nb * sizeof(int));
    double *macm = tvds_malloc((size_t)nb * ncand * sizeof(double));
    int *taken = tvds_malloc((size_t)ncand * sizeof(int));
    if (!res->s || !res->freq || !res->re || !res->zeta || !res->mac || !res->resid || !cur ||
        !nxt || !macm || !taken) {
        tvds_free(cur);
        tvds_free(nxt);
        tvds_free(macm);
        tvds_free(taken);
        goto nomem;
    }
    for (int b = 0; b < nb; b++)
        cur[b] = b;
    for (int i = 0; i < npos; i++) {
        res->s[i] = s[i];
        const cea_pos *P = &pos[i];
        res->resid[i] = P->resid;
        if (P->resid > res->resid_max) res->resid_max = P->resid;
        if (i > 0) {
            const cea_pos *Q = &pos[i - 1];
            for (int b = 0; b < nb; b++)
                for (int c = 0; c < P->ncand; c++)
                    macm[(size_t)b * ncand + c] = cur[b] < 0 ? -1.0
                                                             : mac(Q->u + (size_t)cur[b] * 2 * N,
                                                                   P->u + (size_t)c * 2 * N, N);
            for (int c = 0; c < ncand; c++)
                taken[c] = 0;
            for (int b = 0; b < nb; b++)
                nxt[b] = -1;
            /* Greedy assignment by decreasing MAC; ties (coalescing modes) by nearest
             * eigenvalue. */
            for (int step = 0; step < nb; step++) {
                int bb = -1, cc = -1;
                double best = -2.0, bestd = 0.0;
                for (int b = 0; b < nb; b++) {
                    if (nxt[b] >= 0 || cur[b] < 0) continue;
                    for (int c = 0; c < P->ncand; c++) {
                        if (taken[c]) continue;
                        double v = macm[(size_t)b * ncand + c];
                        double d = hypot(P->lre[c] - Q->lre[cur[b]], P->lim[c] - Q->lim[cur[b]]);
                        if (v > best + 1e-9 || (fabs(v - best) <= 1e-9 && d < bestd)) {
                            best = v;
                            bestd = d;
                            bb = b;
                            cc = c;
                        }
                    }
                }
                if (bb < 0) break;
                nxt[bb] = cc;
                taken[cc] = 1;
                res->mac[(size_t)i * nb + bb] = best;
            }
            for (int b = 0; b < nb; b++) {
                cur[b] = nxt[b];
                if (nxt[b] < 0) res->mac[(size_t)i * nb + b] = NAN;
            }
        } else {
            for (int b = 0; b < nb; b++)
                res->mac[b] = 1.0;
        }
        for (int b = 0; b < nb; b++) {
            size_t k = (size_t)i * nb + b;
            if (cur[b] < 0) {
                res->freq[k] = res->re[k] = res->zeta[k] = NAN;
                continue;
            }
            double lr = P->lre[cur[b]], li = P->lim[cur[b]];
            res->freq[k] = li / (2.0 * TVDS_PI);
            res->re[k] = lr;
            res->zeta[k] = -lr / hypot(lr, li);
        }
    }
    tvds_free(cur);
    tvds_free(nxt);
    tvds_free(macm);
    tvds_free(taken);

    /* Unstable windows per branch. */
    int cap = 0;
    for (int b = 0; b < nb; b++) {
        int open = 0;
        for (int i = 0; i < npos; i++) {
            size_t k = (size_t)i * nb + b;
            int uns = isfinite(res->re[k]) &&
                      res->re[k] > unstable_threshold(&o, res->re[k], 2 * TVDS_PI * res->freq[k]);
            if (uns && !open) {
                if (res->nwin == cap) {
                    int nc2 = cap ? 2 * cap : 8;
                    tvds_cea_window *w2 = tvds_realloc(res->win, (size_t)nc2 * sizeof *w2);
                    if (!w2) goto nomem;
                    res->win = w2;
                    cap = nc2;
                }
                tvds_cea_window *w = &res->win[res->nwin++];
                w->branch = b;
                w->s_start = w->s_end = s[i];
                w->f_min = w->f_max = res->freq[k];
                w->re_max = res->re[k];
                open = 1;
            } else if (uns) {
                tvds_cea_window *w = &res->win[res->nwin - 1];
                w->s_end = s[i];
                if (res->freq[k] < w->f_min) w->f_min = res->freq[k];
                if (res->freq[k] > w->f_max) w->f_max = res->freq[k];
                if (res->re[k] > w->re_max) w->re_max = res->re[k];
            } else {
                open = 0;
            }
        }
    }
    for (int t = 0; t < nw; t++)
        work_free(&work[t]);
    tvds_free(work);
    tvds_free(pos);
    tvds_free(store);
    problem_free(&p);
    *out = res;
    return TVDS_OK;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs, %d positions)", N, npos);
fail:
    if (work)
        for (int t = 0; t < nw; t++)
            work_free(&work[t]);
    tvds_free(work);
    tvds_free(pos);
    tvds_free(store);
    tvds_cea_result_free(&res);
    problem_free(&p);
    return rc;
}

/* ---- Outputs ----------------------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = tvds_malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

/* Close f (written to path + ".tmp") and rename it over path: a reader, or a process killed
 * at any moment, sees the old file or the new one, never half of one. */
static int close_replace(FILE *f, const char *path, tvds_ctx *ctx)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int bad = fflush(f) != 0 || ferror(f);
    if ((fclose(f) != 0) | bad) {
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write error: %s", tmp, strerror(errno));
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename: %s", tmp, strerror(errno));
    }
    return TVDS_OK;
}

static FILE *open_tmp(const char *path)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    return fopen(tmp, "w");
}

int tvds_cea_write_csv(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx)
{
    if (!r || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nothing to write");
    char *path = join(dir, "locus.csv");
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    FILE *f = open_tmp(path);
    if (!f) {
        int rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        tvds_free(path);
        return rc;
    }
    fputs("position [m],branch,frequency [Hz],real part [1/s],damping ratio,MAC,unstable\n", f);
    for (int i = 0; i < r->npos; i++)
        for (int b = 0; b < r->nbranch; b++) {
            size_t k = (size_t)i * r->nbranch + b;
            if (!isfinite(r->freq[k])) continue;
            int uns = 0;
            for (int w = 0; w < r->nwin; w++)
                if (r->win[w].branch == b && r->s[i] >= r->win[w].s_start &&
                    r->s[i] <= r->win[w].s_end)
                    uns = 1;
            fprintf(f, "%.17g,%d,%.17g,%.17g,%.17g,%.6f,%d\n", r->s[i], b, r->freq[k], r->re[k],
                    r->zeta[k], r->mac[k], uns);
        }
    int rc = close_replace(f, path, ctx);
    if (rc) {
        tvds_free(path);
        return rc;
    }
    tvds_free(path);
    path = join(dir, "unstable.csv");
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    f = open_tmp(path);
    if (!f) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        tvds_free(path);
        return rc;
    }
    fputs("branch,s_start [m],s_end [m],f_min [Hz],f_max [Hz],max real part [1/s]\n", f);
    for (int w = 0; w < r->nwin; w++)
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g\n", r->win[w].branch, r->win[w].s_start,
                r->win[w].s_end, r->win[w].f_min, r->win[w].f_max, r->win[w].re_max);
    rc = close_replace(f, path, ctx);
    tvds_free(path);
    return rc;
}

int tvds_cea_plot(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx)
{
    if (!r || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nothing to plot");
    char *csv = join(dir, "locus.csv");
    char *png1 = join(dir, "locus.png");
    char *png2 = join(dir, "stability.png");
    int rc = TVDS_OK;
    if (!csv || !png1 || !png2) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
        goto done;
    }
    tvds_plot_series loc = {.file = csv,
                            .header_lines = 1,
                            .xcol = 3,
                            .ycol = 4,
                            .ccol = 1,
                            .style = TVDS_PLOT_SCATTER_COLOR};
    tvds_plot_refline zero = {.vertical = 0, .value = 0.0, .color = "#888888", .dashed = 1};
    tvds_plot_panel p1 = tvds_plot_panel_default();
    p1.title = "Complex eigenvalue locus";
    p1.xlabel = "frequency [Hz]";
    p1.ylabel = "real part [1/s]";
    p1.cblabel = "position [m]";
    p1.nseries = 1;
    p1.series = &loc;
    p1.nrefs = 1;
    p1.refs = &zero;
    tvds_plot_figure f1 = {
        .output = png1, .width = 1000, .height = 700, .npanels = 1, .panels = &p1};
    rc = tvds_plot_render(&f1, ctx);
    if (rc < 0) goto done; /* a missing gnuplot: still write the second script */
    tvds_plot_series st[2] = {{.file = csv,
                               .header_lines = 1,
                               .using = "1:($7 > 0 ? 1/0 : $3)",
                               .style = TVDS_PLOT_POINTS,
                               .color = "#9a9a9a",
                               .point_size = 0.4,
                               .title = "stable"},
                              {.file = csv,
                               .header_lines = 1,
                               .using = "1:($7 > 0 ? $3 : 1/0)",
                               .style = TVDS_PLOT_POINTS,
                               .color = "#d62728",
                               .point_size = 0.9,
                               .title = "unstable (real part > 0)"}};
    tvds_plot_panel p2 = tvds_plot_panel_default();
    p2.title = "Stability map";
    p2.xlabel = "position [m]";
    p2.ylabel = "frequency [Hz]";
    p2.key = "top left opaque box";
    p2.nseries = 2;
    p2.series = st;
    tvds_plot_figure f2 = {
        .output = png2, .width = 1000, .height = 700, .npanels = 1, .panels = &p2};
    int rc2 = tvds_plot_render(&f2, ctx);
    if (rc2 != TVDS_OK) rc = rc2;
done:
    tvds_free(csv);
    tvds_free(png1);
    tvds_free(png2);
    return rc;
}
