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

#include "analysis/cea_eig.h"
#include "core/blas_threads.h"
#include "engine/contact/face.h"
#include "engine/contact/master.h"
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
    o.state = TVDS_CEA_DEFORMED;
    o.undamped = 0;
    o.refine = 1;
    o.ds_min = 0.0;
    o.max_pos = 4000;
    o.zeta_near = 0.0;
    o.gap_rel = 0.05;
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

struct cea_problem;
typedef struct cea_problem {
    int N;             /* global DoFs */
    double *M, *K, *C; /* N x N column-major */
    double *f;         /* N: loads at t_eval [N] (the static preload) */
    int has_c, has_load;
    int deformed; /* linearise about the static sliding state (TVDS_CEA_DEFORMED) */
    /* Bilateral constraint rows (B_C = B_E). */
    int nbil, bil_nnz;
    int *bil_ptr, *bil_col;
    double *bil_val;
    /* Contact (contact >= 0). */
    int has_contact;
    sim_master_static ms; /* the master (engine/contact/master.h) */
    int ncomp;            /* components per contact node: 2 (x-y plane) or 3 (rigid plane in 3D) */
    int slave_dof[3];     /* global DoFs x, y (, z) of the (first) slave node */
    int nact;             /* active slave nodes: 1, or all of the contact's (TVDS_CEA_ALL_SLAVES) */
    int *act_dof;         /* nact x 3: global x, y (, z) DoFs of each active slave node */
    double *act_ds;       /* nact: abscissa of each node on the undeformed master minus that of the
                             first node of the first contact (0 on a rigid master) [m] */
    int nextra;           /* TVDS_CEA_ALL_CONTACTS: the other contacts, each with the contact
                             fields of this struct filled (their nodes follow this one's) */
    struct cea_problem *extra;
    int nact_all; /* active nodes of all contacts */
    double mu;
    double chi_fixed; /* user's chi, 0 = from v_rel */
    double fmin_hz;
    int solver;
    double wshift;  /* ARPACK's complex shift i wshift [rad/s]; 0: the real shift */
    int ncand;      /* candidates kept per position */
    double *act_X;  /* nact x 3: undeformed coordinates of the active slave nodes [m] */
    int lateral;    /* 3D: the lateral friction damping (docs/cea.md, "Lateral friction
                       damping") */
    int gen_static; /* the static state and preload stiffness of every node (faces, several
                       nodes or contacts on a deformable master) rather than the one-node
                       path */
    volatile sig_atomic_t *stop; /* the options' stop flag (also read inside the Arnoldi loop) */
} cea_problem;

/* The contact's geometry at one position: the segment seg (T1 = node seg, T2 = seg + 1), the
 * weight alpha of T2, the unit tangent t along T1 -> T2 and the normal n = (-t_y, t_x). */
struct cea_geom {
    int seg;
    double alpha, n[3], t[3]; /* n[2], t[2]: 3D only */
    double len;               /* length of T1 T2 in this geometry [m] */
    double wgt[2]; /* shares of T1, T2 in the contact row: 1 - alpha, alpha (Hermite weights on
                      a C1 master) */
    /* Face-set master: face (-1: the node is off the face set), its node count, the natural
     * coordinates of the closest point and the shape functions there. */
    int face, nn;
    double xi[2], N[FACE_MAX_NODES];
    double xc[3]; /* placed slave position: the surface point of the undeformed geometry [m] */
    double lam;   /* static multiplier of this node's row */
    int act;      /* index of the node among its contact's active nodes */
    int off;      /* 1: out of contact in the static state (its multiplier would pull): no row */
};
typedef struct cea_geom cea_geom;

static void cross3v(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3v(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Per-thread workspace, sized once. */
typedef struct cea_work {
    int rows_cap, nnz_cap, p_cap;
    cea_rows rows;
    int *J;               /* p_cap: columns touched by the constraints */
    int *isj;             /* N: position in J or -1 */
    int *F;               /* N: free DoFs */
    double *BJ;           /* rows_cap x p_cap */
    double *VT;           /* p_cap x p_cap */
    double *sv;           /* p_cap */
    double *superb;       /* p_cap */
    double *ZC, *ZE;      /* p_cap x p_cap: null-space bases on J */
    double *T;            /* N x N */
    double *Mc, *Kc, *Cc; /* N x N (nr x nr used) */
    cea_eig_work eig;     /* the eigensolver's buffers */
    double *Q;            /* ncand x 2N: reduced eigenvectors (re, im) */
    double *Kt;           /* N x N: K plus the geometric stiffness */
    double *Ct;           /* N x N: C plus the lateral friction damping */
    double *KKT;          /* (N + rows_cap)^2: static saddle-point matrix */
    double *krhs;         /* N + rows_cap */
    int *kpiv;            /* N + rows_cap */
    cea_geom *geo;        /* nact: geometry of each active node */
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
    double lambda_n;   /* static normal force [N] */
    double slope;      /* angle of the master segment in the linearised state [rad] */
    double *u;         /* ncand x N x 2 (re, im interleaved): physical mode shapes */
    cea_eig_stats eig; /* what the ARPACK path did (zero for the dense one) */
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
    tvds_free(p->f);
    tvds_free(p->bil_ptr);
    tvds_free(p->bil_col);
    tvds_free(p->bil_val);
    sim_master_static_free(&p->ms);
    tvds_free(p->act_dof);
    tvds_free(p->act_ds);
    tvds_free(p->act_X);
    for (int j = 0; j < p->nextra && p->extra; j++)
        problem_free(&p->extra[j]);
    tvds_free(p->extra);
    memset(p, 0, sizeof *p);
}

static void work_free(cea_work *w)
{
    if (!w) return;
    rows_free(&w->rows);
    cea_eig_work_free(&w->eig);
    void *ptrs[] = {w->J,  w->isj, w->F,  w->BJ, w->VT, w->sv,  w->superb, w->ZC,   w->ZE, w->T,
                    w->Mc, w->Kc,  w->Cc, w->Q,  w->Kt, w->KKT, w->krhs,   w->kpiv, w->geo};
    tvds_free(w->Ct);
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        tvds_free(ptrs[i]);
    memset(w, 0, sizeof *w);
}

static int work_alloc(cea_work *w, int N, int rows_cap, int nnz_cap, int nact, int ncand,
                      int arpack)
{
    memset(w, 0, sizeof *w);
    int p_cap = nnz_cap < N ? nnz_cap : N;
    if (p_cap < 1) p_cap = 1;
    w->rows_cap = rows_cap;
    w->nnz_cap = nnz_cap;
    w->p_cap = p_cap;
    size_t n2 = (size_t)N * N;
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
    w->Q = tvds_malloc((size_t)(ncand > 0 ? ncand : 1) * 2 * N * sizeof(double));
    size_t nk = (size_t)N + (size_t)rows_cap;
    w->Kt = tvds_malloc(n2 * sizeof(double));
    w->Ct = tvds_malloc(n2 * sizeof(double));
    w->KKT = tvds_malloc(nk * nk * sizeof(double));
    w->krhs = tvds_malloc(nk * sizeof(double));
    w->kpiv = tvds_malloc(nk * sizeof(int));
    w->geo = tvds_calloc((size_t)(nact > 0 ? nact : 1), sizeof *w->geo);
    w->rows.nrows = 0;
    if (!w->rows.ptr || !w->rows.col || !w->rows.bc || !w->rows.be || !w->J || !w->isj || !w->F ||
        !w->BJ || !w->VT || !w->sv || !w->superb || !w->ZC || !w->ZE || !w->T || !w->Mc || !w->Kc ||
        !w->Cc || !w->Q || !w->Kt || !w->Ct || !w->KKT || !w->krhs || !w->kpiv || !w->geo ||
        cea_eig_work_alloc(&w->eig, N, ncand, arpack)) {
        work_free(w);
        return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

/* ---- Setup ----------------------------------------------------------------------------- */

static int find_xyz(const tvds_model *m, int sub, long node, int ncomp, int *dof, double *xy,
                    const char *what, const char *cname, const int *off, tvds_ctx *ctx)
{
    return sim_master_node_dofs(m, sub, node, ncomp, off, dof, xy, what, cname, ctx);
}

static int setup_contact(const tvds_model *m, int contact, const tvds_cea_options *o, int all_nodes,
                         double t_eval, const int *off, double s_ref, cea_problem *p,
                         tvds_ctx *ctx);

static int setup(const tvds_model *m, int contact, const tvds_cea_options *o, cea_problem *p,
                 tvds_ctx *ctx)
{
    memset(p, 0, sizeof *p);
    if (!m || m->nsub < 1 || !m->subs) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: empty model");
    if (contact < TVDS_CEA_ALL_CONTACTS || contact >= m->ncontact)
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
    if (!o->undamped)
        for (size_t i = 0; i < n2; i++)
            if (p->C[i] != 0.0) p->has_c = 1;
    /* Loads at t_eval: the preload of the static sliding state. */
    p->f = tvds_calloc((size_t)N, sizeof(double));
    if (!p->f) goto nomem;
    for (int l = 0; l < m->nload; l++) {
        const tvds_load *ld = &m->loads[l];
        if (ld->sub < 0 || ld->sub >= m->nsub || ld->dof < 0 || ld->dof >= m->subs[ld->sub]->n)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: load '%s': bad DoF",
                              ld->name ? ld->name : "?");
        double v = tvds_fn_eval(&ld->fn, t_eval);
        p->f[off[ld->sub] + ld->dof] += v;
        if (v != 0.0) p->has_load = 1;
    }
    p->deformed = o->state == TVDS_CEA_DEFORMED;

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
    p->wshift = o->shift_hz > 0.0 ? 2.0 * TVDS_PI * o->shift_hz : 0.0;
    p->chi_fixed = o->chi;
    p->ncand = o->nmodes + (o->nextra > 0 ? o->nextra : 0);

    if (contact == -1) return TVDS_OK;
    if (contact == TVDS_CEA_ALL_CONTACTS && m->ncontact < 1)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: the model has no contact");
    int all_c = contact == TVDS_CEA_ALL_CONTACTS;
    int rc = setup_contact(m, all_c ? 0 : contact, o, all_c, t_eval, off, NAN, p, ctx);
    if (rc || !all_c) return rc;
    p->nact_all = p->nact;
    if (m->ncontact < 2) return TVDS_OK;
    /* Abscissa of the first node of the first contact: the reference of every offset. */
    double s00 = 0.0;
    if (p->ms.length > 0 && (rc = tvds_cea_slave_abscissa(m, 0, 0, &s00, ctx))) return rc;
    p->extra = tvds_calloc((size_t)(m->ncontact - 1), sizeof *p->extra);
    if (!p->extra) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    p->nextra = m->ncontact - 1;
    int any_deformable = !p->ms.rigid;
    for (int j = 1; j < m->ncontact; j++) {
        cea_problem *x = &p->extra[j - 1];
        x->N = N;
        x->deformed = p->deformed;
        x->has_load = p->has_load;
        x->chi_fixed = p->chi_fixed;
        if ((rc = setup_contact(m, j, o, 1, t_eval, off, s00, x, ctx))) return rc;
        p->nact_all += x->nact;
        if (!x->ms.rigid) any_deformable = 1;
        if (x->gen_static) p->gen_static = 1;
    }
    /* Several contacts: every node's row in the static state, its own preload stiffness
     * and the contact set. */
    if (any_deformable || p->nact_all > 1) p->gen_static = 1;
    return TVDS_OK;
nomem:
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs)", N);
}

/* The contact fields of *p for contact `contact`: every slave node when all_nodes (or
 * o->slave is TVDS_CEA_ALL_SLAVES), else o->slave. Offsets along the master are taken from
 * s_ref (NaN: the contact's own first node). */
static int setup_contact(const tvds_model *m, int contact, const tvds_cea_options *o, int all_nodes,
                         double t_eval, const int *off, double s_ref, cea_problem *p, tvds_ctx *ctx)
{
    int N = p->N;
    const tvds_contact *c = &m->contacts[contact];
    const char *cname = c->name ? c->name : "?";
    const sim_master_type *kind = sim_masters[c->master_kind];
    if (c->dim != 2 && c->dim != 3)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': 2D contacts (dim = 2) and 3D contacts on a face set, "
                          "a rigid plane or a rotating disc only",
                          cname);
    p->ncomp = c->dim == 3 ? 3 : 2;
    p->lateral = p->ncomp == 3 && !o->no_lateral && !o->undamped;
    if (o->slave < TVDS_CEA_ALL_SLAVES || o->slave >= c->nslave)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': slave index %d out of [0, %d)",
                          cname, o->slave, c->nslave);
    if (c->slave_sub < 0 || c->slave_sub >= m->nsub)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': bad slave substructure",
                          cname);
    p->has_contact = 1;
    p->mu = c->mu_k;
    int all = all_nodes || o->slave == TVDS_CEA_ALL_SLAVES;
    p->nact = all ? c->nslave : 1;
    p->act_dof = tvds_malloc((size_t)3 * p->nact * sizeof(int));
    p->act_ds = tvds_calloc((size_t)p->nact, sizeof(double));
    p->act_X = tvds_calloc((size_t)3 * p->nact, sizeof(double));
    if (!p->act_dof || !p->act_ds || !p->act_X) goto nomem;
    int rc = TVDS_OK;
    p->nact_all = p->nact;
    /* Several nodes: the contact set of the static state (and on a deformable master each
     * node's geometry and preload stiffness). */
    if (p->nact > 1) p->gen_static = 1;
    for (int a = 0; a < p->nact; a++) {
        rc = find_xyz(m, c->slave_sub, c->slave_nodes[all ? a : o->slave], p->ncomp,
                      p->act_dof + 3 * a, p->act_X + 3 * a, "slave", cname, off, ctx);
        if (rc) return rc;
    }
    for (int k = 0; k < 3; k++)
        p->slave_dof[k] = p->act_dof[k];
    if ((p->nact > 1 || !isnan(s_ref)) && kind->offsets) {
        /* Each node keeps its offset along the master from the first node (docs/cea.md,
         * "Several contact nodes"). */
        double s0 = s_ref;
        for (int a = 0; a < p->nact; a++) {
            double sa = 0.0;
            rc = tvds_cea_slave_abscissa(m, contact, a, &sa, ctx);
            if (rc) return rc;
            if (a == 0 && isnan(s_ref)) s0 = sa;
            p->act_ds[a] = sa - s0;
        }
        /* Every node's row in the static state and its own preload stiffness. */
        p->gen_static = 1;
    }
    /* Sliding velocity of the slave: its prescribed kinematics (Subs-a), or else single-term
     * imposed motions of its own DoFs (the drive of the slave body). */
    double vs[3] = {0.0, 0.0, 0.0}, vm[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < p->ncomp; k++)
        vs[k] = tvds_fn_deriv(&c->slave_kin[k], t_eval, 1);
    if (vs[0] == 0.0 && vs[1] == 0.0 && vs[2] == 0.0) {
        for (int b = 0; b < m->nbil; b++) {
            const tvds_bilateral *bl = &m->bil[b];
            if (bl->nterms != 1 || bl->terms[0].sub != c->slave_sub || bl->terms[0].coef == 0.0)
                continue;
            int dir = m->subs[bl->terms[0].sub]->dofs[bl->terms[0].dof].dir;
            if (dir == TVDS_DIR_X || dir == TVDS_DIR_Y || (dir == TVDS_DIR_Z && p->ncomp == 3))
                vs[dir] += tvds_fn_deriv(&bl->value, t_eval, 1) / bl->terms[0].coef;
        }
    }
    /* The master: the kind's checks, its nodes and frame data (engine/contact/master.h). */
    p->ms.type = kind;
    p->ms.ncomp = p->ncomp;
    p->ms.mu = p->mu;
    if ((rc = kind->static_setup(m, contact, t_eval, vs, off, &p->ms, vm, ctx))) return rc;
    if (p->ms.faces || p->ms.disc) p->gen_static = 1;
    for (int k = 0; k < 3; k++)
        p->ms.v_rel[k] = vs[k] - vm[k];
    if (p->chi_fixed == 0.0 && p->mu != 0.0 && p->ms.v_rel[0] == 0.0 && p->ms.v_rel[1] == 0.0 &&
        p->ms.v_rel[2] == 0.0 && !p->ms.disc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': no sliding velocity at t = %g (slave_kin, imposed "
                          "motions of the slave substructure and rigid master motion are all at "
                          "rest): give the sliding sign chi",
                          cname, t_eval);
    return TVDS_OK;
nomem:
    return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs)", N);
}

/* The master's geometry g of a node (engine/contact/master.h) from and into the CEA's. */
static void at_from_geom(const cea_geom *g, sim_master_at *a)
{
    a->seg = g->seg;
    a->alpha = g->alpha;
    memcpy(a->n, g->n, sizeof a->n);
    memcpy(a->t, g->t, sizeof a->t);
    a->len = g->len;
    memcpy(a->wgt, g->wgt, sizeof a->wgt);
    a->face = g->face;
    a->nn = g->nn;
    memcpy(a->xi, g->xi, sizeof a->xi);
    memcpy(a->N, g->N, sizeof a->N);
    memcpy(a->xc, g->xc, sizeof a->xc);
}

static void geom_from_at(const sim_master_at *a, cea_geom *g)
{
    g->seg = a->seg;
    g->alpha = a->alpha;
    memcpy(g->n, a->n, sizeof g->n);
    memcpy(g->t, a->t, sizeof g->t);
    g->len = a->len;
    memcpy(g->wgt, a->wgt, sizeof g->wgt);
    g->face = a->face;
    g->nn = a->nn;
    memcpy(g->xi, a->xi, sizeof g->xi);
    memcpy(g->N, a->N, sizeof g->N);
    memcpy(g->xc, a->xc, sizeof g->xc);
}

/* 0, 1 (off the master) or 2 (no normal, or no sliding direction with mu != 0) from SIM_AT_*. */
static int at_status(const cea_problem *p, int e)
{
    if (e == SIM_AT_NO_SLIDING) return p->mu != 0.0 ? 2 : 0;
    return e == SIM_AT_OFF ? 1 : e == SIM_AT_NO_NORMAL ? 2 : 0;
}

/* Geometry of active node a at position s (of the first node of the first contact) on the
 * undeformed master: the kind's static_at. Returns 0, 1 (off the master) or 2 (no sliding
 * direction, or a face without normal). */
static int node_geometry(const cea_problem *p, int a, double s, cea_geom *g)
{
    sim_master_at at;
    at_from_geom(g, &at);
    int e = p->ms.type->static_at(&p->ms, p->act_X + 3 * a,
                                  p->ms.type->offsets ? s + p->act_ds[a] : s, &at);
    geom_from_at(&at, g);
    return at_status(p, e);
}

/* Frame of a node at x on the disc (disc.c); returns the sliding speed there. */
static double disc_frame(const cea_problem *p, const double x[3], cea_geom *g)
{
    sim_master_at at;
    at_from_geom(g, &at);
    double wl = sim_disc_frame_at(&p->ms, x, &at);
    geom_from_at(&at, g);
    return wl;
}

/* Geometry of every active node at the position s of the first: node a at s + act_ds[a]
 * (face-set masters: at distance s along the drive). Returns 0 or the first node_geometry
 * failure. */
static int contact_geometries(const cea_problem *p, double s, cea_geom *g)
{
    int bad = 0;
    for (int j = -1; j < p->nextra; j++) {
        const cea_problem *x = j < 0 ? p : &p->extra[j];
        for (int a = 0; a < x->nact; a++) {
            g[a].act = a;
            g[a].off = 0;
            int e = node_geometry(x, a, s, &g[a]);
            if (e && !bad) bad = e;
        }
        g += x->nact;
    }
    return bad;
}

/* Sliding sign chi of the problem along tangent t (the user's when given). */
static double chi_along(const cea_problem *p, const double t[3])
{
    if (p->chi_fixed != 0.0) return p->chi_fixed;
    if (p->ms.disc) return 1.0; /* t is each node's own sliding direction */
    double vt = p->ms.v_rel[0] * t[0] + p->ms.v_rel[1] * t[1];
    if (p->ncomp == 3) vt += p->ms.v_rel[2] * t[2];
    return vt > 0 ? 1.0 : (vt < 0 ? -1.0 : 0.0);
}

/* Rows of B_C and B_E for the geometry g into w->rows; returns chi used. */
/* Append the rows of the active nodes of contact part p (geometries g) to r, the last node's
 * first and the first node's last; returns the first node's chi. */
static double contact_rows(const cea_problem *p, const cea_geom *g, cea_rows *r, int *nzp)
{
    int nz = *nzp;
    double chi = p->chi_fixed;
    for (int a = p->nact - 1; a >= 0; a--) {
        const cea_geom *ga = &g[a];
        if (ga->off) continue;
        const double *n = ga->n, *t = ga->t;
        chi = chi_along(p, t);
        double e[3] = {n[0] - chi * p->mu * t[0], n[1] - chi * p->mu * t[1], 0.0};
        if (p->ncomp == 3) e[2] = n[2] - chi * p->mu * t[2];
        r->ptr[r->nrows] = nz;
        /* Slave C: +n (compatibility), n - chi mu t (equilibrium). */
        for (int k = 0; k < p->ncomp; k++) {
            r->col[nz] = p->act_dof[3 * a + k];
            r->bc[nz] = n[k];
            r->be[nz] = e[k];
            nz++;
        }
        if (p->ms.type->static_nodes) {
            /* Master node q carrying the point (its segment or face): -N_q n, -N_q e. */
            int mdof[SIM_MASTER_MAX_NODES][3];
            double wq[SIM_MASTER_MAX_NODES];
            sim_master_at at;
            at_from_geom(ga, &at);
            int nq = p->ms.type->static_nodes(&p->ms, &at, mdof, wq);
            for (int q = 0; q < nq; q++)
                for (int k = 0; k < p->ncomp; k++) {
                    r->col[nz] = mdof[q][k];
                    r->bc[nz] = -wq[q] * n[k];
                    r->be[nz] = -wq[q] * e[k];
                    nz++;
                }
        }
        r->nrows++;
    }
    *nzp = nz;
    return chi;
}

static double build_rows(const cea_problem *p, const cea_geom *g, cea_work *w)
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
        /* The other contacts first, so that the first contact's first node is the last row
         * (the one the static state reads for a single node). */
        const cea_geom *gx = g + p->nact;
        for (int j = 0; j < p->nextra; j++) {
            contact_rows(&p->extra[j], gx, r, &nz);
            gx += p->extra[j].nact;
        }
        chi = contact_rows(p, g, r, &nz);
    }
    r->ptr[r->nrows] = nz;
    r->nnz = nz;
    return chi;
}

/* The static saddle-point matrix [[K, ks B_E^T], [ks B_C, 0]] of the rows in w->rows into w->KKT
 * (order N + rows, column-major) and its right-hand side [f; 0] into w->krhs; ks scales the
 * rows so that the blocks have comparable sizes. Returns the order. */
static int kkt_assemble(const cea_problem *p, cea_work *w, double ks)
{
    int N = p->N;
    const cea_rows *r = &w->rows;
    int nr = r->nrows, nk = N + nr;
    double *A = w->KKT, *b = w->krhs;
    memset(A, 0, (size_t)nk * nk * sizeof *A);
    for (int c = 0; c < N; c++)
        memcpy(A + (size_t)c * nk, p->K + (size_t)c * N, (size_t)N * sizeof *A);
    for (int i = 0; i < nr; i++)
        for (int k = r->ptr[i]; k < r->ptr[i + 1]; k++) {
            A[(size_t)(N + i) * nk + r->col[k]] += ks * r->be[k];
            A[(size_t)r->col[k] * nk + N + i] += ks * r->bc[k];
        }
    memcpy(b, p->f, (size_t)N * sizeof *b);
    for (int i = 0; i < nr; i++)
        b[N + i] = 0.0;
    return nk;
}

/* Static sliding state at the position of geometry *g (undeformed on entry, deformed on exit):
 *   K u + B_E(u)^T lambda = f,   gap(u) = 0,   bilateral rows B u = 0,
 * with n, alpha of the contact row taken from the deformed positions X + u and the slave placed
 * at the undeformed surface point of s (X_C). Solved as a sequence of linear saddle-point
 * problems [[K, B_E^T], [B_C, 0]] with the geometry of the previous iterate (docs/cea.md).
 * Returns TVDS_OK, TVDS_ERR_SINGULAR (no static state: a mechanism) or TVDS_ERR_SOLVER (no
 * convergence); *lambda receives the contact row's multiplier. */
static int static_state(const cea_problem *p, double s, cea_geom *g, cea_work *w, double *lambda)
{
    int N = p->N;
    (void)s;
    *lambda = 0.0;
    if (!p->has_load || !p->has_contact) return TVDS_OK;
    /* The slave's placement X_C on the undeformed surface at s (the kind's static_place). */
    const sim_master_type *kind = p->ms.type;
    int moves = kind->static_sep && kind->static_follow; /* else a rigid line */
    double XC[3] = {0.0, 0.0, 0.0};
    if (moves) {
        sim_master_at a;
        at_from_geom(g, &a);
        kind->static_place(&p->ms, &a);
        memcpy(XC, a.xc, sizeof XC);
    }
    double ks = 0.0;
    for (int i = 0; i < N; i++)
        if (fabs(p->K[(size_t)i * N + i]) > ks) ks = fabs(p->K[(size_t)i * N + i]);
    if (!(ks > 0)) ks = 1.0;
    double last = INFINITY;
    for (int it = 0; it < 30; it++) {
        build_rows(p, g, w);
        int nr = w->rows.nrows, nk = kkt_assemble(p, w, ks);
        double *A = w->KKT, *b = w->krhs;
        if (moves) {
            /* The contact row (last): B_C u = -g0, g0 the gap of the undeformed positions. */
            sim_master_at a;
            double r[3];
            at_from_geom(g, &a);
            kind->static_sep(&p->ms, NULL, &a, XC, r);
            double g0 = g->n[0] * r[0] + g->n[1] * r[1];
            b[N + nr - 1] = -ks * g0;
        }
        int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, nk, 1, A, nk, w->kpiv, b, nk);
        if (info > 0) return TVDS_ERR_SINGULAR;
        if (info < 0) return TVDS_ERR_SOLVER;
        /* The contact rows follow the bilateral ones: their multipliers summed (one node:
         * the last row's). */
        double lsum = 0.0;
        for (int i = p->nbil; i < nr; i++)
            lsum += ks * b[N + i];
        *lambda = lsum;
        if (!moves) return TVDS_OK; /* the rigid line does not move */
        /* Deformed geometry: the master and C at X + u. */
        double Q[3] = {XC[0] + b[p->slave_dof[0]], XC[1] + b[p->slave_dof[1]], 0.0};
        sim_master_at ng;
        at_from_geom(g, &ng);
        double change = kind->static_follow(&p->ms, b, Q, &ng);
        if (change < 0) return TVDS_ERR_SINGULAR;
        geom_from_at(&ng, g);
        if (change < 1e-13) return TVDS_OK;
        last = change;
    }
    /* Round-off can keep the last digits moving: accept a fixed point to 1e-10. */
    return last < 1e-10 ? TVDS_OK : TVDS_ERR_SOLVER;
}

/* Kt = K + K_g, the stiffness of the preload: the contact force on the structure
 * F = -B_E(u)^T lambda changes with the deformation through the rotation of n, t (segment
 * T1 T2) and through alpha (docs/cea.md); K_g = -dF/du at the static multiplier lambda. */
static void tangent_stiffness(const cea_problem *p, const cea_geom *g, double lambda, double chi,
                              cea_work *w)
{
    int N = p->N;
    memcpy(w->Kt, p->K, (size_t)N * N * sizeof *w->Kt);
    if (!p->deformed || !p->has_contact || !p->ms.type->static_kg || lambda == 0.0) return;
    sim_master_at at;
    at_from_geom(g, &at);
    p->ms.type->static_kg(&p->ms, &at, p->slave_dof, lambda, chi, NULL, N, w->Kt);
}

/* The nodes in contact (not off) in the order of their rows (build_rows: the other contacts
 * first, each from its last node to its first, then the first contact's), with their contact
 * parts; returns their number. */
static int nodes_in_row_order(const cea_problem *p, cea_geom *g, const cea_problem **part,
                              cea_geom **gg)
{
    int r = 0;
    cea_geom *gx = g + p->nact;
    for (int j = 0; j < p->nextra; j++) {
        const cea_problem *x = &p->extra[j];
        for (int a = x->nact - 1; a >= 0; a--)
            if (!gx[a].off) part[r] = x, gg[r++] = &gx[a];
        gx += x->nact;
    }
    for (int a = p->nact - 1; a >= 0; a--)
        if (!g[a].off) part[r] = p, gg[r++] = &g[a];
    return r;
}

/* Gap n . (x_C - x_P) of the placed slave point against the undeformed master at the node's
 * current geometry (n, alpha or xi): the right-hand side -g0 of its row. */
static double gap0(const cea_problem *x, const cea_geom *g)
{
    if (!x->ms.type->static_sep) return 0.0;
    sim_master_at a;
    double r[3];
    at_from_geom(g, &a);
    x->ms.type->static_sep(&x->ms, NULL, &a, g->xc, r);
    if (x->ncomp == 3) return g->n[0] * r[0] + g->n[1] * r[1] + g->n[2] * r[2];
    return g->n[0] * r[0] + g->n[1] * r[1];
}

/* New geometry of a node from the displacement u: the kind's static_follow (the deformed
 * segment, the closest point on the deformed face set, the disc's sliding direction under
 * the displaced slave). Returns the change, or -1 when the master has no normal or sliding
 * direction there. */
static double node_update(const cea_problem *x, cea_geom *g, const double *u)
{
    const int *sd = x->act_dof + 3 * g->act;
    double Q[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < x->ncomp; k++)
        Q[k] = g->xc[k] + u[sd[k]];
    sim_master_at a;
    at_from_geom(g, &a);
    double ch = x->ms.type->static_follow(&x->ms, u, Q, &a);
    if (ch < 0) return -1.0;
    geom_from_at(&a, g);
    return ch;
}

/* Gap n . (x_C - x_P) of a node at the displacement u, with its geometry (n, alpha or xi)
 * already taken from u (node_update); a master without nodes (a rigid plane, the disc):
 * n . u_C (the node is placed on it). */
static double gap_deformed(const cea_problem *x, const cea_geom *g, const double *u)
{
    const int *sd = x->act_dof + 3 * g->act;
    int nc = x->ncomp;
    double d[3] = {0, 0, 0};
    for (int k = 0; k < nc; k++)
        d[k] = u[sd[k]];
    if (x->ms.type->static_sep) {
        sim_master_at a;
        double r[3];
        at_from_geom(g, &a);
        x->ms.type->static_sep(&x->ms, u, &a, g->xc, r);
        for (int k = 0; k < nc; k++)
            d[k] += r[k];
    }
    return g->n[0] * d[0] + g->n[1] * d[1] + (nc == 3 ? g->n[2] * d[2] : 0.0);
}

/* Static sliding state with the rows of the nodes in contact (face-set masters, several nodes
 * or contacts on deformable masters, the disc): the saddle-point iteration of static_state with
 * one gap right-hand side per node and each node's geometry updated from X + u, stopped at
 * 1e-13 or where round-off keeps it from improving below 1e-10. Each node's multiplier goes to
 * its geometry (lam), the sum to *lambda. Contact set: the nodes whose multiplier pulls
 * (lambda_a > 0 beyond 1e-9 of the total) are released; when none pulls, the released node
 * that penetrates its master deepest at the new state is taken back; until the set is
 * consistent (docs/cea.md). On return w->krhs holds the static displacement u (its first N
 * entries) of the last solve. */
static int static_state_gen(const cea_problem *p, cea_geom *g, cea_work *w, double *lambda)
{
    int N = p->N, nt = p->nact_all;
    *lambda = 0.0;
    for (int a = 0; a < nt; a++)
        g[a].lam = 0.0;
    if (!p->has_load || !p->has_contact) return TVDS_OK;
    const cea_problem *part[nt];
    cea_geom *gg[nt];
    nodes_in_row_order(p, g, part, gg);
    for (int r = 0; r < nt; r++)
        if (part[r]->ms.type->static_place) {
            /* The slave placed at the undeformed surface point (2D node masters). */
            sim_master_at a;
            at_from_geom(gg[r], &a);
            part[r]->ms.type->static_place(&part[r]->ms, &a);
            memcpy(gg[r]->xc, a.xc, sizeof a.xc);
        }
    double ks = 0.0;
    for (int i = 0; i < N; i++)
        if (fabs(p->K[(size_t)i * N + i]) > ks) ks = fabs(p->K[(size_t)i * N + i]);
    if (!(ks > 0)) ks = 1.0;
    for (int cycle = 0; cycle <= 2 * nt + 2; cycle++) {
        int na = nodes_in_row_order(p, g, part, gg);
        if (na == 0) return TVDS_ERR_SINGULAR; /* every node pulls: no sliding contact */
        double last = INFINITY, change = INFINITY;
        for (int it = 0; it < 30; it++) {
            build_rows(p, g, w);
            int nk = kkt_assemble(p, w, ks);
            double *A = w->KKT, *b = w->krhs;
            for (int q = 0; q < na; q++)
                b[N + p->nbil + q] = -ks * gap0(part[q], gg[q]);
            int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, nk, 1, A, nk, w->kpiv, b, nk);
            if (info > 0) return TVDS_ERR_SINGULAR;
            if (info < 0) return TVDS_ERR_SOLVER;
            double lsum = 0.0;
            int moving = 0;
            for (int q = 0; q < na; q++) {
                gg[q]->lam = ks * b[N + p->nbil + q];
                lsum += gg[q]->lam;
            }
            *lambda = lsum;
            change = 0.0;
            for (int q = 0; q < na; q++) {
                if (!part[q]->ms.type->static_follow) continue;
                moving = 1;
                double ch = node_update(part[q], gg[q], b);
                if (ch < 0) return TVDS_ERR_SINGULAR;
                if (ch > change) change = ch;
            }
            if (!moving || change < 1e-13 || (change < 1e-10 && change > 0.5 * last)) break;
            last = change;
        }
        if (!(change < 1e-10)) return TVDS_ERR_SOLVER;
        /* Contact set: release every pulling node; else take back the most penetrating
         * released one. */
        const double *u = w->krhs;
        int released = 0;
        double lw = 1e-9 * fabs(*lambda);
        for (int q = 0; q < na; q++)
            if (gg[q]->lam > lw) {
                gg[q]->off = 1;
                gg[q]->lam = 0.0;
                released = 1;
            }
        if (released) continue;
        cea_geom *gx = g, *deepest = NULL;
        double gmin = 0.0;
        for (int j = -1; j < p->nextra; j++) {
            const cea_problem *x = j < 0 ? p : &p->extra[j];
            for (int a = 0; a < x->nact; a++) {
                cea_geom *ga = &gx[a];
                if (!ga->off) continue;
                if (x->ms.type->static_follow && node_update(x, ga, u) < 0)
                    return TVDS_ERR_SINGULAR;
                double scale = x->ms.gap_scale > 0 ? x->ms.gap_scale : ga->len;
                double gap = gap_deformed(x, ga, u) / scale;
                if (gap < -1e-9 && gap < gmin) gmin = gap, deepest = ga;
            }
            gx += x->nact;
        }
        if (!deepest) return TVDS_OK;
        deepest->off = 0;
    }
    return TVDS_ERR_SOLVER; /* no consistent contact set */
}

/* Kt = K + sum over the active nodes of their preload stiffness (the kind's static_kg; a
 * rigid plane adds none), at the static state of static_state_gen. */
static void tangent_stiffness_gen(const cea_problem *p, const cea_geom *g, cea_work *w)
{
    int N = p->N;
    memcpy(w->Kt, p->K, (size_t)N * N * sizeof *w->Kt);
    if (!p->deformed || !p->has_contact || !p->has_load) return;
    const double *u = w->krhs;
    for (int j = -1; j < p->nextra; j++) {
        const cea_problem *x = j < 0 ? p : &p->extra[j];
        for (int a = 0; a < x->nact; a++) {
            const cea_geom *ga = &g[a];
            if (!x->ms.type->static_kg || ga->lam == 0.0) continue;
            double chi = chi_along(x, ga->t);
            sim_master_at at;
            at_from_geom(ga, &at);
            x->ms.type->static_kg(&x->ms, &at, x->act_dof + 3 * a, ga->lam, chi, u, N, w->Kt);
        }
        g += x->nact;
    }
}

/* Lateral friction damping of one node, added to Ct (docs/cea.md, "Lateral friction
 * damping"). The friction force on the slave is F = -mu lambda_N w / |w|, w the sliding
 * velocity in the tangent plane; a perturbation dw turns it: dF = -(mu lambda_N / |w|)
 * (I - t t^T) dw = -(mu lambda_N / |w|) b (b . dw), b = n x t, since dw has no normal part.
 * dw = du'_C - sum_q N_q du'_q on a face set, du'_C on a rigid plane or the disc (the
 * master's velocity does not change), so with the row d = [b on C, -N_q b on face node q]
 * the forces on C and the face nodes are -c d d^T u', c = mu lambda_N / |w| >= 0: the damping
 * matrix c d d^T, positive semidefinite. lam is the node's static multiplier (< 0 pressing);
 * u the static displacement (the disc's material point under the slave). Returns 1 when a
 * term was added. */
static int lateral_node(const cea_problem *x, const cea_geom *g, double lam, const double *u,
                        double *Ct)
{
    if (!x->lateral || !(lam < 0.0) || x->mu == 0.0) return 0;
    int N = x->N;
    const int *sd = x->act_dof + 3 * g->act;
    double n[3], t[3], wl;
    if (x->ms.disc) {
        double Q[3];
        for (int k = 0; k < 3; k++)
            Q[k] = g->xc[k] + (u ? u[sd[k]] : 0.0);
        cea_geom h = *g;
        wl = disc_frame(x, Q, &h);
        for (int k = 0; k < 3; k++)
            n[k] = h.n[k], t[k] = h.t[k];
    } else {
        const double *v = x->ms.v_rel;
        for (int k = 0; k < 3; k++)
            n[k] = g->n[k];
        double vn = dot3v(v, n);
        for (int k = 0; k < 3; k++)
            t[k] = v[k] - vn * n[k];
        wl = sqrt(dot3v(t, t));
        for (int k = 0; k < 3 && wl > 0; k++)
            t[k] /= wl;
    }
    if (!(wl > 0)) return 0; /* no sliding velocity (the user's chi): nothing turns */
    double b[3], c = -x->mu * lam / wl;
    cross3v(n, t, b);
    enum { NDMAX = 3 * (1 + FACE_MAX_NODES) };
    int dof[NDMAX], nd = 0;
    double d[NDMAX];
    for (int k = 0; k < 3; k++)
        dof[nd] = sd[k], d[nd++] = b[k];
    if (x->ms.type->static_nodes) {
        int mdof[SIM_MASTER_MAX_NODES][3];
        double wq[SIM_MASTER_MAX_NODES];
        sim_master_at at;
        at_from_geom(g, &at);
        int nq = x->ms.type->static_nodes(&x->ms, &at, mdof, wq);
        for (int q = 0; q < nq; q++)
            for (int k = 0; k < x->ncomp; k++)
                dof[nd] = mdof[q][k], d[nd++] = -wq[q] * b[k];
    }
    for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++)
            Ct[(size_t)dof[j] * N + dof[i]] += c * d[i] * d[j];
    return 1;
}

/* Ct = C + the lateral friction damping of every node in contact about the preloaded state
 * (lambda1: the multiplier of the one-node path; the general path keeps each node's). About
 * the undeformed state lambda_N is not known and, as the preload stiffness, the term is left
 * out. Returns 1 when Ct differs from C (then use Ct), else 0. */
static int lateral_damping(const cea_problem *p, const cea_geom *g, double lambda1, cea_work *w)
{
    int N = p->N, any = 0;
    if (!p->deformed || !p->has_contact || !p->has_load) return 0;
    const double *u = p->gen_static ? w->krhs : NULL;
    for (int j = -1; j < p->nextra; j++) {
        const cea_problem *x = j < 0 ? p : &p->extra[j];
        for (int a = 0; a < x->nact && x->lateral; a++) {
            const cea_geom *ga = &g[a];
            double lam = p->gen_static ? ga->lam : lambda1;
            if (ga->off || !(lam < 0.0)) continue;
            if (!any) {
                if (p->has_c)
                    memcpy(w->Ct, p->C, (size_t)N * N * sizeof *w->Ct);
                else
                    memset(w->Ct, 0, (size_t)N * N * sizeof *w->Ct);
            }
            any |= lateral_node(x, ga, lam, u, w->Ct);
        }
        g += x->nact;
    }
    return any;
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

/* Eigen-solution at one position into *out. */
static void solve_position(const cea_problem *p, double s, cea_work *w, cea_pos *out)
{
    int N = p->N;
    out->err = TVDS_OK;
    out->info = 0;
    out->ncand = 0;
    out->lambda_n = 0.0;
    cea_geom *g = w->geo;
    memset(g, 0, sizeof *g);
    if (p->has_contact && contact_geometries(p, s, g)) {
        out->err = TVDS_ERR_INVALID;
        out->info = -3;
        return;
    }
    double lam = 0.0;
    if (p->deformed) {
        int src = p->gen_static ? static_state_gen(p, g, w, &lam) : static_state(p, s, g, w, &lam);
        if (src) {
            out->err = src;
            out->info = -2;
            return;
        }
    }
    out->lambda_n = lam == 0.0 ? 0.0 : -lam;
    out->slope = atan2(g->t[1], g->t[0]);
    out->chi = build_rows(p, g, w);
    if (p->gen_static)
        tangent_stiffness_gen(p, g, w);
    else
        tangent_stiffness(p, g, lam, out->chi, w);
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
    project(p, w, w->Kt, nf, nz, pj, w->Kc);
    if (lateral_damping(p, g, lam, w))
        project(p, w, w->Ct, nf, nz, pj, w->Cc);
    else if (p->has_c)
        project(p, w, p->C, nf, nz, pj, w->Cc);
    else
        memset(w->Cc, 0, (size_t)nr * nr * sizeof(double));

    /* Damped: the model's C or the lateral friction damping (the ARPACK operator skips C_c
     * when it is zero). */
    int has_c = 0;
    for (size_t i = 0; i < (size_t)nr * nr && !has_c; i++)
        has_c = w->Cc[i] != 0.0;
    cea_eig_problem pb = {.n = nr,
                          .M = w->Mc,
                          .K = w->Kc,
                          .C = w->Cc,
                          .has_c = has_c,
                          .wmin = 2.0 * TVDS_PI * p->fmin_hz,
                          .ncand = p->ncand,
                          .solver = p->solver,
                          .wshift = p->wshift,
                          .stop = p->stop};
    int nc = 0;
    /* T (N x N) is free after the projections: the ARPACK path's LU goes there. */
    out->err = cea_eig_solve(&w->eig, &pb, w->T, out->lre, out->lim, w->Q, &nc, &out->resid,
                             &out->eig, &out->info);
    if (out->err) return;
    out->ncand = nc;
    for (int c = 0; c < nc; c++) {
        /* Physical mode shape u = L_C q. */
        const double *vre = w->Q + (size_t)c * 2 * nr, *vim = vre + nr;
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

/* ---- Mirror symmetry (docs/cea.md, "Symmetric and antisymmetric modes") ------------------ */

/* Each translational physical DoF i (global dof[i]) and its mirror image: the same component
 * of the node at the mirrored coordinates (mir[i]), sg[i] = -1 for the component normal to the
 * plane. Modal and rotational DoFs are left out. */
typedef struct cea_mirror {
    int n;
    int *dof, *mir;
    double *sg;
} cea_mirror;

typedef struct mirror_dof {
    int g, sub, dir;
    long node;
    double x[3];
} mirror_dof;

static int mirror_cmp(const void *a, const void *b)
{
    double xa = ((const mirror_dof *)a)->x[0], xb = ((const mirror_dof *)b)->x[0];
    return (xa > xb) - (xa < xb);
}

static void mirror_free(cea_mirror *mr)
{
    tvds_free(mr->dof);
    tvds_free(mr->mir);
    tvds_free(mr->sg);
    memset(mr, 0, sizeof *mr);
}

/* The mirror partner of every translational DoF about the plane x_{plane-1} = 0, matched
 * within 1e-6 of the model's size (the diagonal of its bounding box), preferably in the same
 * substructure (a node on the plane is its own image; two symmetric substructures may also be
 * each other's image). */
static int mirror_build(const tvds_model *m, int plane, cea_mirror *mr, tvds_ctx *ctx)
{
    memset(mr, 0, sizeof *mr);
    int n = 0, N = 0;
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        for (int d = 0; d < s->n; d++)
            n += s->dofs[d].kind == TVDS_DOF_PHYSICAL && s->dofs[d].dir >= TVDS_DIR_X &&
                 s->dofs[d].dir <= TVDS_DIR_Z;
    }
    if (n == 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: mirror plane: the model has no translational physical DoF");
    mirror_dof *e = tvds_malloc((size_t)n * sizeof *e);
    mr->dof = tvds_malloc((size_t)n * sizeof(int));
    mr->mir = tvds_malloc((size_t)n * sizeof(int));
    mr->sg = tvds_malloc((size_t)n * sizeof(double));
    if (!e || !mr->dof || !mr->mir || !mr->sg) {
        tvds_free(e);
        mirror_free(mr);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int k = 0;
    for (int i = 0; i < m->nsub; i++) {
        const tvds_substructure *s = m->subs[i];
        for (int d = 0; d < s->n; d++) {
            const tvds_dof *q = &s->dofs[d];
            if (q->kind != TVDS_DOF_PHYSICAL || q->dir < TVDS_DIR_X || q->dir > TVDS_DIR_Z)
                continue;
            e[k] = (mirror_dof){.g = N + d, .sub = i, .dir = q->dir, .node = q->node};
            for (int c = 0; c < 3; c++) {
                e[k].x[c] = q->xyz[c];
                lo[c] = fmin(lo[c], q->xyz[c]);
                hi[c] = fmax(hi[c], q->xyz[c]);
            }
            k++;
        }
        N += s->n;
    }
    double tol = 1e-6 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                             (hi[2] - lo[2]) * (hi[2] - lo[2]));
    int pc = plane - 1;
    qsort(e, (size_t)n, sizeof *e, mirror_cmp);
    for (int i = 0; i < n; i++) {
        double T[3] = {e[i].x[0], e[i].x[1], e[i].x[2]};
        T[pc] = -T[pc];
        int a = 0, b = n; /* the first entry with x >= T[0] - tol */
        while (a < b) {
            int h = a + (b - a) / 2;
            if (e[h].x[0] < T[0] - tol)
                a = h + 1;
            else
                b = h;
        }
        int best = -1;
        double bd = INFINITY;
        for (int pass = 0; pass < 2 && best < 0; pass++)
            for (int j = a; j < n && e[j].x[0] <= T[0] + tol; j++) {
                if (e[j].dir != e[i].dir || (pass == 0 && e[j].sub != e[i].sub)) continue;
                double dist = fmax(fabs(e[j].x[0] - T[0]),
                                   fmax(fabs(e[j].x[1] - T[1]), fabs(e[j].x[2] - T[2])));
                if (dist <= tol && dist < bd) {
                    bd = dist;
                    best = j;
                }
            }
        if (best < 0) {
            const tvds_substructure *s = m->subs[e[i].sub];
            int rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "cea: mirror plane %c = 0: node %ld of substructure '%s' at "
                                "(%g, %g, %g) m has no mirror image (no %c DoF within "
                                "%.3g m of (%g, %g, %g)): the model is not symmetric about it",
                                "xyz"[pc], e[i].node, s->name ? s->name : "?", e[i].x[0], e[i].x[1],
                                e[i].x[2], "xyz"[e[i].dir], tol, T[0], T[1], T[2]);
            tvds_free(e);
            mirror_free(mr);
            return rc;
        }
        mr->dof[i] = e[i].g;
        mr->mir[i] = e[best].g;
        mr->sg[i] = e[i].dir == pc ? -1.0 : 1.0;
    }
    mr->n = n;
    tvds_free(e);
    return TVDS_OK;
}

/* Antisymmetric share |u_A|^2 / |u|^2 of the complex shape u (N x 2, re/im interleaved) over
 * the translational DoFs, u_A = (u - R u_mirror) / 2 (NaN for a shape without them). */
static double mirror_share(const cea_mirror *mr, const double *u)
{
    double a = 0.0, t = 0.0;
    for (int i = 0; i < mr->n; i++) {
        const double *x = u + 2 * (size_t)mr->dof[i], *y = u + 2 * (size_t)mr->mir[i];
        double dr = 0.5 * (x[0] - mr->sg[i] * y[0]), di = 0.5 * (x[1] - mr->sg[i] * y[1]);
        a += dr * dr + di * di;
        t += x[0] * x[0] + x[1] * x[1];
    }
    return t > 0.0 ? a / t : NAN;
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
    tvds_free((*r)->lambda_n);
    tvds_free((*r)->slope);
    tvds_free((*r)->win);
    tvds_free((*r)->anti);
    tvds_free(*r);
    *r = NULL;
}

static double unstable_threshold(const tvds_cea_options *o, double re, double im)
{
    return o->re_tol + 1e-9 * hypot(re, im);
}

/* Follow the branches along the positions P[0..npos-1] (path order) by MAC: the lowest nb
 * candidates at the first position, then a greedy assignment by decreasing MAC (ties, as at a
 * coalescence, by the nearest eigenvalue). Fills freq, re, zeta, mac (npos x nb) and, with a
 * mirror plane mr, the antisymmetric shares anti. */
static int track(cea_pos *const *P, int npos, int nb, int ncand, int N, double *freq, double *re,
                 double *zeta, double *macv, const cea_mirror *mr, double *anti)
{
    int *cur = tvds_malloc((size_t)nb * sizeof(int)); /* candidate of branch b at p-1 */
    int *nxt = tvds_malloc((size_t)nb * sizeof(int));
    double *macm = tvds_malloc((size_t)nb * ncand * sizeof(double));
    int *taken = tvds_malloc((size_t)ncand * sizeof(int));
    if (!cur || !nxt || !macm || !taken) {
        tvds_free(cur);
        tvds_free(nxt);
        tvds_free(macm);
        tvds_free(taken);
        return TVDS_ERR_NOMEM;
    }
    for (int b = 0; b < nb; b++)
        cur[b] = b < P[0]->ncand ? b : -1;
    for (int i = 0; i < npos; i++) {
        const cea_pos *Pi = P[i];
        if (i > 0) {
            const cea_pos *Q = P[i - 1];
            for (int b = 0; b < nb; b++)
                for (int c = 0; c < Pi->ncand; c++)
                    macm[(size_t)b * ncand + c] = cur[b] < 0 ? -1.0
                                                             : mac(Q->u + (size_t)cur[b] * 2 * N,
                                                                   Pi->u + (size_t)c * 2 * N, N);
            for (int c = 0; c < ncand; c++)
                taken[c] = 0;
            for (int b = 0; b < nb; b++)
                nxt[b] = -1;
            for (int step = 0; step < nb; step++) {
                int bb = -1, cc = -1;
                double best = -2.0, bestd = 0.0;
                for (int b = 0; b < nb; b++) {
                    if (nxt[b] >= 0 || cur[b] < 0) continue;
                    for (int c = 0; c < Pi->ncand; c++) {
                        if (taken[c]) continue;
                        double v = macm[(size_t)b * ncand + c];
                        double d = hypot(Pi->lre[c] - Q->lre[cur[b]], Pi->lim[c] - Q->lim[cur[b]]);
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
                macv[(size_t)i * nb + bb] = best;
            }
            for (int b = 0; b < nb; b++) {
                cur[b] = nxt[b];
                if (nxt[b] < 0) macv[(size_t)i * nb + b] = NAN;
            }
        } else {
            for (int b = 0; b < nb; b++)
                macv[b] = 1.0;
        }
        for (int b = 0; b < nb; b++) {
            size_t k = (size_t)i * nb + b;
            if (cur[b] < 0) {
                freq[k] = re[k] = zeta[k] = NAN;
                if (anti) anti[k] = NAN;
                continue;
            }
            if (anti) anti[k] = mirror_share(mr, Pi->u + (size_t)cur[b] * 2 * N);
            double lr = Pi->lre[cur[b]], li = Pi->lim[cur[b]];
            freq[k] = li / (2.0 * TVDS_PI);
            re[k] = lr;
            zeta[k] = -lr / hypot(lr, li);
        }
    }
    tvds_free(cur);
    tvds_free(nxt);
    tvds_free(macm);
    tvds_free(taken);
    return TVDS_OK;
}

/* Distance |lambda_b - lambda_c| at position i (NaN when a branch has no mode there). */
static double pair_gap(int nb, const double *freq, const double *re, int i, int b, int c)
{
    size_t kb = (size_t)i * nb + b, kc = (size_t)i * nb + c;
    return hypot(re[kb] - re[kc], 2 * TVDS_PI * (freq[kb] - freq[kc]));
}

/* Whether the interval between positions i and i + 1 (of npos) needs a position in its middle
 * (docs/cea.md, "Refinement"):
 *  - a branch changes stability between the two ends;
 *  - a clearly damped branch could come within zeta_near |lambda| of zero inside (its real
 *    part at the higher end plus three times its change over the interval);
 *  - two branches could meet inside: the sum of their distances at the ends is below twice
 *    the change of their difference over the interval (a crossing or coalescence between the
 *    ends), or their
 *    distance is a local minimum along the positions at one end and below gap_rel |lambda|
 *    (they approach and recede within one interval). */
static int needs_split(const tvds_cea_options *o, int nb, int npos, const double *freq,
                       const double *re, int i)
{
    const double *f0 = freq + (size_t)i * nb, *f1 = f0 + nb, *r0 = re + (size_t)i * nb,
                 *r1 = r0 + nb;
    for (int b = 0; b < nb; b++) {
        if (!isfinite(f0[b]) || !isfinite(f1[b])) continue;
        double w0 = 2 * TVDS_PI * f0[b], w1 = 2 * TVDS_PI * f1[b];
        double l0 = hypot(r0[b], w0), l1 = hypot(r1[b], w1);
        int u0 = r0[b] > unstable_threshold(o, r0[b], w0);
        int u1 = r1[b] > unstable_threshold(o, r1[b], w1);
        if (u0 != u1) return 1;
        double rmax = r0[b] > r1[b] ? r0[b] : r1[b], dre = fabs(r1[b] - r0[b]);
        double l = l0 > l1 ? l0 : l1;
        /* Clearly damped (not a conservative zero) but could reach -zeta_near |lambda| inside
         * with three times its change over the interval. */
        if (!u0 && rmax < -1e-8 * l && rmax + 3 * dre > -o->zeta_near * l) return 1;
        for (int c = b + 1; c < nb; c++) {
            if (!isfinite(f0[c]) || !isfinite(f1[c])) continue;
            double d0 = pair_gap(nb, freq, re, i, b, c), d1 = pair_gap(nb, freq, re, i + 1, b, c);
            /* Their difference D = lambda_b - lambda_c moves by |D1 - D0|; if it went through
             * zero on a straight line, d0 + d1 = |D1 - D0|. */
            double dD = hypot((r1[b] - r1[c]) - (r0[b] - r0[c]),
                              2 * TVDS_PI * ((f1[b] - f1[c]) - (f0[b] - f0[c])));
            if (d0 + d1 <= 2 * dD) return 1;
            double dmin = d0 < d1 ? d0 : d1;
            if (!(dmin < o->gap_rel * l)) continue;
            double dm = i > 0 ? pair_gap(nb, freq, re, i - 1, b, c) : INFINITY;
            double dp = i + 2 < npos ? pair_gap(nb, freq, re, i + 2, b, c) : INFINITY;
            if (!isfinite(dm)) dm = INFINITY;
            if (!isfinite(dp)) dp = INFINITY;
            if ((d0 <= dm && d0 <= d1) || (d1 <= d0 && d1 <= dp)) return 1;
        }
    }
    return 0;
}

/* Whether some branch is unstable at both ends of the interval (i, i + 1) with a real part
 * that changes by more than 5 % of the larger one (the growth integral needs it resolved). */
static int interval_unstable(const tvds_cea_options *o, int nb, const double *freq,
                             const double *re, int i)
{
    for (int b = 0; b < nb; b++) {
        size_t k0 = (size_t)i * nb + b, k1 = k0 + nb;
        if (!isfinite(re[k0]) || !isfinite(re[k1])) continue;
        if (re[k0] > unstable_threshold(o, re[k0], 2 * TVDS_PI * freq[k0]) &&
            re[k1] > unstable_threshold(o, re[k1], 2 * TVDS_PI * freq[k1]) &&
            fabs(re[k1] - re[k0]) > 0.05 * fmax(re[k0], re[k1]))
            return 1;
    }
    return 0;
}

/* Linear interpolation of the position where y crosses 0 between (s0, y0) and (s1, y1). */
static double cross_at(double s0, double y0, double s1, double y1)
{
    if (!isfinite(y0) || !isfinite(y1) || y0 == y1) return 0.5 * (s0 + s1);
    double a = y0 / (y0 - y1);
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    return s0 + a * (s1 - s0);
}

static int find_windows(tvds_cea_result *res, const tvds_cea_options *o)
{
    int cap = 0, nb = res->nbranch, npos = res->npos;
    const double *s = res->s;
    for (int b = 0; b < nb; b++) {
        int open = 0;
        for (int i = 0; i < npos; i++) {
            size_t k = (size_t)i * nb + b;
            double w = 2 * TVDS_PI * res->freq[k];
            double y = isfinite(res->re[k]) ? res->re[k] - unstable_threshold(o, res->re[k], w)
                                            : -INFINITY;
            int uns = y > 0;
            if (uns && !open) {
                if (res->nwin == cap) {
                    int nc2 = cap ? 2 * cap : 8;
                    tvds_cea_window *w2 = tvds_realloc(res->win, (size_t)nc2 * sizeof *w2);
                    if (!w2) return TVDS_ERR_NOMEM;
                    res->win = w2;
                    cap = nc2;
                }
                tvds_cea_window *cw = &res->win[res->nwin++];
                cw->branch = b;
                cw->s_start = cw->s_end = s[i];
                cw->f_min = cw->f_max = cw->f_peak = res->freq[k];
                cw->re_max = res->re[k];
                cw->s_peak = s[i];
                cw->anti_peak = res->anti ? res->anti[k] : NAN;
                cw->s_in = s[i];
                if (i > 0) {
                    size_t kp = (size_t)(i - 1) * nb + b;
                    double yp = isfinite(res->re[kp])
                                    ? res->re[kp] - unstable_threshold(o, res->re[kp],
                                                                       2 * TVDS_PI * res->freq[kp])
                                    : NAN;
                    cw->s_in = isfinite(yp) ? cross_at(s[i - 1], yp, s[i], y) : s[i];
                }
                cw->s_out = s[i];
                cw->t_start = cw->t_end = cw->growth_pred = NAN;
                open = 1;
            } else if (uns) {
                tvds_cea_window *cw = &res->win[res->nwin - 1];
                cw->s_end = cw->s_out = s[i];
                if (res->freq[k] < cw->f_min) cw->f_min = res->freq[k];
                if (res->freq[k] > cw->f_max) cw->f_max = res->freq[k];
                if (res->re[k] > cw->re_max) {
                    cw->re_max = res->re[k];
                    cw->f_peak = res->freq[k];
                    cw->s_peak = s[i];
                    cw->anti_peak = res->anti ? res->anti[k] : NAN;
                }
            } else if (open) {
                tvds_cea_window *cw = &res->win[res->nwin - 1];
                size_t kp = (size_t)(i - 1) * nb + b;
                double yp =
                    res->re[kp] - unstable_threshold(o, res->re[kp], 2 * TVDS_PI * res->freq[kp]);
                cw->s_out = isfinite(y) ? cross_at(s[i - 1], yp, s[i], y) : s[i - 1];
                open = 0;
            }
        }
    }
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

/* dense: 1 keeps TVDS_CEA_AUTO off the ARPACK path; *arpack_failed is set when an ARPACK run
 * failed. */
static int cea_run(const tvds_model *m, int contact, const double *s, int npos,
                   const tvds_cea_options *opt, int dense, int *arpack_failed,
                   tvds_cea_result **out, tvds_ctx *ctx)
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
    if (o.solver < TVDS_CEA_AUTO || o.solver > TVDS_CEA_ARPACK)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: unknown solver %d", o.solver);
    if (!(o.shift_hz >= 0.0 && o.shift_hz < INFINITY) ||
        (o.shift_hz > 0.0 && o.solver != TVDS_CEA_AUTO && o.solver != TVDS_CEA_ARPACK))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: complex shift %g Hz: expected a finite frequency >= 0, with the "
                          "ARPACK solver",
                          o.shift_hz);
    if (o.state != TVDS_CEA_DEFORMED && o.state != TVDS_CEA_UNDEFORMED)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: unknown linearisation state %d", o.state);
    if (o.mirror < 0 || o.mirror > 3)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: mirror plane %d: expected 0 (none), 1, 2 or 3 (x, y or z = 0)",
                          o.mirror);
    cea_problem p;
    int rc = setup(m, contact, &o, &p, ctx);
    if (rc) {
        problem_free(&p);
        return rc;
    }
    p.stop = o.stop;
    for (int i = 0; i < npos; i++) {
        /* Every active node's abscissa s + act_ds on the surface. */
        double lo = 0.0, hi = 0.0;
        for (int a = 0; p.has_contact && a < p.nact; a++) {
            if (p.act_ds[a] < lo) lo = p.act_ds[a];
            if (p.act_ds[a] > hi) hi = p.act_ds[a];
        }
        for (int j = -1; j < p.nextra && isfinite(s[i]); j++) {
            /* Face-set masters: every node's closest point on a face, and its sliding
             * direction. */
            const cea_problem *x = j < 0 ? &p : &p.extra[j];
            for (int a = 0; a < x->nact; a++) {
                cea_geom gf;
                memset(&gf, 0, sizeof gf);
                int e = node_geometry(x, a, s[i], &gf);
                if (e) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    e == 1 ? "cea: position %d (s = %g m) puts slave node %d of "
                                             "contact %d off its face set"
                                           : "cea: position %d (s = %g m): slave node %d of "
                                             "contact %d: no sliding direction (the relative "
                                             "velocity is normal to the master) or a face "
                                             "without normal",
                                    i, s[i], a, j + 2);
                    problem_free(&p);
                    return rc;
                }
            }
        }
        for (int j = 0; j < p.nextra && isfinite(s[i]); j++) {
            const cea_problem *x = &p.extra[j];
            for (int a = 0; x->ms.length > 0 && a < x->nact; a++) {
                double sa = s[i] + x->act_ds[a], L = x->ms.length;
                if (sa < -1e-12 * L || sa > L * (1 + 1e-12)) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                    "cea: position %d (s = %g m) puts node %d of contact %d at "
                                    "%g m, off its master surface [0, %g]",
                                    i, s[i], a, j + 1, sa, L);
                    problem_free(&p);
                    return rc;
                }
            }
        }
        if (!isfinite(s[i]) ||
            (p.has_contact && p.ms.length > 0 &&
             (s[i] + lo < -1e-12 * p.ms.length || s[i] + hi > p.ms.length * (1 + 1e-12)))) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "cea: position %d (s = %g m) is off the master surface [0, %g]", i,
                            s[i], p.has_contact ? p.ms.length : 0.0);
            problem_free(&p);
            return rc;
        }
    }
    cea_mirror mr;
    if (o.mirror) {
        rc = mirror_build(m, o.mirror, &mr, ctx);
        if (rc) {
            problem_free(&p);
            return rc;
        }
    } else {
        memset(&mr, 0, sizeof mr);
    }
    double smin = s[0], smax = s[0];
    for (int i = 1; i < npos; i++) {
        if (s[i] < smin) smin = s[i];
        if (s[i] > smax) smax = s[i];
    }
    /* Default smallest spacing: 2.5e-4 of the master surface (of the span of the positions
     * for a rigid master). */
    double span = p.has_contact && p.ms.extent > 0 ? p.ms.extent : smax - smin;
    double ds_min = o.ds_min > 0 ? o.ds_min : 2.5e-4 * span;
    int refine = o.refine && npos > 1 && ds_min > 0;
    int cap_pos = refine ? (o.max_pos > npos ? o.max_pos : npos) : npos;
    int N = p.N, ncand = p.ncand;
    int nact = p.nact_all > 1 ? p.nact_all : 1;
    int rows_cap = p.nbil + nact, nnz_cap = p.bil_nnz + 6 * nact;
    for (int j = -1; j < p.nextra; j++) {
        const cea_problem *x = j < 0 ? &p : &p.extra[j];
        if (!x->ms.rigid) nnz_cap += (x->ms.ncomp * (1 + SIM_MASTER_MAX_NODES) - 6) * x->nact;
    }
    int nthreads = 1;
#ifdef _OPENMP
    nthreads = o.nthreads > 0 ? o.nthreads : omp_get_max_threads();
#endif
    if (nthreads > cap_pos) nthreads = cap_pos;
    if (nthreads < 1) nthreads = 1;
    size_t per = (size_t)ncand * (2 + 2 * (size_t)N);
    cea_work *work = tvds_calloc((size_t)nthreads, sizeof *work);
    cea_pos *pool = tvds_calloc((size_t)cap_pos, sizeof *pool); /* in order of computation */
    cea_pos **P = tvds_calloc((size_t)cap_pos, sizeof *P);      /* in path order */
    cea_pos **P2 = tvds_calloc((size_t)cap_pos, sizeof *P2);
    double *S = tvds_malloc((size_t)cap_pos * sizeof *S),
           *S2 = tvds_malloc((size_t)cap_pos * sizeof *S2);
    double *fq = NULL, *rr = NULL, *zz = NULL, *mc = NULL, *an = NULL;
    tvds_cea_result *res = tvds_calloc(1, sizeof *res);
    int nw = 0, ncomp = 0, nord = 0;
    if (!work || !pool || !P || !P2 || !S || !S2 || !res) goto nomem;
    /* auto: the shift-invert Arnoldi above the size where it is measured faster than the dense
     * eigenproblem (docs/cea.md, "Cost"); only then are the dense 2N x 2N arrays left out. */
    if (p.solver == TVDS_CEA_AUTO && !dense && (N >= TVDS_CEA_ARPACK_MIN_DOFS || p.wshift > 0.0))
        p.solver = TVDS_CEA_ARPACK;
    int arpack = p.solver == TVDS_CEA_ARPACK ? (p.wshift > 0.0 ? 2 : 1) : 0;
    for (; nw < nthreads; nw++)
        if (work_alloc(&work[nw], N, rows_cap, nnz_cap, nact, ncand, arpack)) goto nomem;
    for (int i = 0; i < npos; i++) {
        S[i] = s[i];
        P[i] = &pool[i];
    }
    nord = npos;
    int nnew = npos, nb = 0, stopped = 0, nsolved = 0;
    for (int round = 0;; round++) {
        /* Solve the positions added last (pool[ncomp .. ncomp + nnew - 1]). */
        for (int i = ncomp; i < ncomp + nnew; i++) {
            pool[i].u = tvds_malloc(per * sizeof(double));
            if (!pool[i].u) goto nomem;
            pool[i].lre = pool[i].u + 2 * (size_t)ncand * N;
            pool[i].lim = pool[i].lre + ncand;
        }
        double *pool_s = S2; /* positions of the new pool entries */
        if (round == 0)
            for (int i = 0; i < npos; i++)
                pool_s[i] = s[i];
        int base = ncomp;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
#endif
        for (int i = 0; i < nnew; i++) {
            int tid = 0;
#ifdef _OPENMP
            tid = omp_get_thread_num();
#endif
            if (o.stop && *o.stop) {
                pool[base + i].err = TVDS_ERR_INTERRUPTED;
                continue;
            }
            const tvds_cea_solved *kn = find_known(&o, N, pool_s[i]);
            if (kn) {
                take_known(kn, N, &pool[base + i]);
            } else {
                solve_position(&p, pool_s[i], &work[tid], &pool[base + i]);
                if (o.solved && pool[base + i].err == TVDS_OK) {
#ifdef _OPENMP
#pragma omp critical(tvds_cea_solved)
#endif
                    give_solved(&o, pool_s[i], N, &pool[base + i]);
                }
            }
            if (o.progress) {
#ifdef _OPENMP
#pragma omp critical(tvds_cea_progress)
#endif
                o.progress(o.user, ++nsolved, base + nnew);
            }
        }
        if (o.stop && *o.stop) {
            /* Keep the positions finished (in path order); the others, and a position whose
             * Arnoldi run was stopped half way, are dropped. */
            int done = 0, k = 0;
            for (int i = 0; i < base + nnew; i++)
                done += pool[i].err == TVDS_OK;
            for (int i = 0; i < nord; i++)
                if (P[i]->err == TVDS_OK) {
                    P[k] = P[i];
                    S[k] = S[i];
                    k++;
                }
            ncomp += nnew;
            rc = TVDS_ERROR(ctx, TVDS_ERR_INTERRUPTED,
                            "cea: interrupted after %d of %d positions%s", done, base + nnew,
                            k > 0 ? " (the finished ones are kept)" : " (none finished)");
            if (k == 0 || (round == 0 && P[0]->ncand < 1)) goto fail;
            if (round > 0) res->nrefined -= nord - k;
            nord = k;
            stopped = 1;
        }
        for (int i = base; i < base + nnew && !stopped; i++) {
            if (pool[i].err == TVDS_OK) continue;
            double si = pool_s[i - base];
            if (pool[i].err == TVDS_ERR_INVALID && !(arpack && pool[i].info == -4))
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "cea: position s = %g puts a slave node off its face set", si);
            else if (pool[i].err == TVDS_ERR_SINGULAR)
                rc = TVDS_ERROR(ctx, TVDS_ERR_SINGULAR, "cea: position s = %g: %s", si,
                                pool[i].info == -2 ? "no static sliding state (the loaded "
                                                     "structure is a mechanism)"
                                : pool[i].info < 0 ? "reduced mass matrix is singular"
                                : pool[i].info == 0
                                    ? "the constraints leave no DoF"
                                    : "compatibility and equilibrium constraints have different "
                                      "ranks (friction makes B_E rank deficient)");
            else if (arpack && pool[i].info != -2) {
                *arpack_failed = 1;
                rc = TVDS_ERROR(ctx, pool[i].err,
                                "cea: position s = %g: ARPACK %s (code %d, %d Ritz values of a "
                                "problem of order %d; --solver standard computes them all)",
                                si,
                                pool[i].info == -3   ? "did not enclose the wanted eigenvalues"
                                : pool[i].info == -4 ? "needs a larger problem"
                                : pool[i].info == 1  ? "reached its iteration limit"
                                                     : "failed",
                                pool[i].info, pool[i].eig.nev, 2 * pool[i].nred);
            } else
                rc = TVDS_ERROR(ctx, TVDS_ERR_SOLVER, "cea: position s = %g: %s %d", si,
                                pool[i].info == -2 ? "static sliding state did not converge, "
                                                     "code"
                                                   : "LAPACK info",
                                pool[i].info);
            ncomp += nnew;
            goto fail;
        }
        if (!stopped) ncomp += nnew;
        if (round == 0) {
            nb = o.nmodes < P[0]->ncand ? o.nmodes : P[0]->ncand;
            if (nb < 1) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                "cea: no oscillating eigenvalue above %g Hz at s = %g", p.fmin_hz,
                                s[0]);
                goto fail;
            }
            size_t tot = (size_t)cap_pos * nb;
            fq = tvds_malloc(tot * sizeof *fq);
            rr = tvds_malloc(tot * sizeof *rr);
            zz = tvds_malloc(tot * sizeof *zz);
            mc = tvds_malloc(tot * sizeof *mc);
            if (mr.n) an = tvds_malloc(tot * sizeof *an);
            if (!fq || !rr || !zz || !mc || (mr.n && !an)) goto nomem;
        }
        if (track(P, nord, nb, ncand, N, fq, rr, zz, mc, &mr, an)) goto nomem;
        if (!refine || stopped) break;
        /* Intervals to split, in path order; new positions go to the pool's end. */
        int add = 0, n2 = 0;
        double *news = tvds_malloc((size_t)nord * sizeof *news);
        if (!news) goto nomem;
        int *split = tvds_calloc((size_t)nord, sizeof *split);
        if (!split) {
            tvds_free(news);
            goto nomem;
        }
        for (int i = 0; i + 1 < nord; i++) {
            double h = fabs(S[i + 1] - S[i]);
            if (h < 2 * ds_min) continue;
            if (needs_split(&o, nb, nord, fq, rr, i)) split[i] = 1;
            /* Inside a window, positions every 2 to 4 ds_min for the growth integral. */
            if (h >= 4 * ds_min && interval_unstable(&o, nb, fq, rr, i)) split[i] = 1;
        }
        for (int i = 0; i + 1 < nord; i++)
            if (split[i]) add++;
        if (add > cap_pos - nord) {
            res->capped = 1;
            add = cap_pos - nord;
        }
        if (getenv("TVDS_CEA_DEBUG"))
            fprintf(stderr, "cea: round %d: %d positions, %d intervals to split\n", round, nord,
                    add);
        if (add == 0) {
            tvds_free(news);
            tvds_free(split);
            break;
        }
        /* Merge: old positions with the midpoints of the first `add` split intervals. */
        int made = 0;
        for (int i = 0; i < nord; i++) {
            P2[n2] = P[i];
            S2[n2] = S[i];
            n2++;
            if (i + 1 < nord && split[i] && made < add) {
                news[made] = 0.5 * (S[i] + S[i + 1]);
                P2[n2] = &pool[ncomp + made];
                S2[n2] = news[made];
                n2++;
                made++;
            }
        }
        memcpy(P, P2, (size_t)n2 * sizeof *P);
        memcpy(S, S2, (size_t)n2 * sizeof *S);
        nord = n2;
        memcpy(S2, news, (size_t)made * sizeof *S2);
        nnew = made;
        res->nrefined += made;
        tvds_free(news);
        tvds_free(split);
    }

    res->npos = nord;
    res->partial = stopped;
    res->nbranch = nb;
    res->ndof = N;
    res->nred = P[0]->nred;
    res->chi = P[0]->chi;
    res->ds_min = refine ? ds_min : 0.0;
    res->s = tvds_malloc((size_t)nord * sizeof(double));
    res->resid = tvds_malloc((size_t)nord * sizeof(double));
    res->lambda_n = tvds_malloc((size_t)nord * sizeof(double));
    res->slope = tvds_malloc((size_t)nord * sizeof(double));
    if (!res->s || !res->resid || !res->lambda_n || !res->slope) goto nomem;
    res->freq = fq;
    res->re = rr;
    res->zeta = zz;
    res->mac = mc;
    res->anti = an;
    fq = rr = zz = mc = an = NULL;
    res->arpack = arpack;
    for (int i = 0; i < nord; i++) {
        res->s[i] = S[i];
        if (P[i]->eig.attempts > res->arpack_attempts) res->arpack_attempts = P[i]->eig.attempts;
        res->arpack_nops += (double)P[i]->eig.nops / nord;
        res->resid[i] = P[i]->resid;
        res->lambda_n[i] = P[i]->lambda_n;
        res->slope[i] = P[i]->slope;
        if (P[i]->resid > res->resid_max) res->resid_max = P[i]->resid;
    }
    if (find_windows(res, &o)) goto nomem;
    for (int t = 0; t < nw; t++)
        work_free(&work[t]);
    tvds_free(work);
    for (int i = 0; i < ncomp; i++)
        tvds_free(pool[i].u);
    tvds_free(pool);
    tvds_free(P);
    tvds_free(P2);
    tvds_free(S);
    tvds_free(S2);
    problem_free(&p);
    mirror_free(&mr);
    *out = res;
    return stopped ? TVDS_ERR_INTERRUPTED : TVDS_OK;
nomem:
    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d DoFs, %d positions)", N, npos);
fail:
    if (work)
        for (int t = 0; t < nw; t++)
            work_free(&work[t]);
    tvds_free(work);
    if (pool)
        for (int i = 0; i < cap_pos; i++)
            tvds_free(pool[i].u);
    tvds_free(pool);
    tvds_free(P);
    tvds_free(P2);
    tvds_free(S);
    tvds_free(S2);
    tvds_free(fq);
    tvds_free(rr);
    tvds_free(zz);
    tvds_free(mc);
    tvds_free(an);
    tvds_cea_result_free(&res);
    problem_free(&p);
    mirror_free(&mr);
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
    int rc = setup(m, contact, &o, &p, ctx);
    if (rc) {
        problem_free(&p);
        return rc;
    }
    /* All active nodes on the face set at s? */
    cea_geom g;
    double lim[2] = {0.0, 0.0};
    for (int a = 0; a < p.nact; a++) {
        memset(&g, 0, sizeof g);
        if (node_geometry(&p, a, 0.0, &g) == 1) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "cea: contact '%s': slave node %ld is off the face set at its "
                            "undeformed position",
                            c->name ? c->name : "?",
                            c->slave_nodes[p.nact > 1 || slave < 0 ? a : slave]);
            problem_free(&p);
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
                on = node_geometry(&p, a, sg * x, &g) != 1;
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
                    on = node_geometry(&p, a, sg * mid, &g) != 1;
                if (on)
                    in = mid;
                else
                    out = mid;
            }
        lim[dir] = sg * in;
    }
    *s_lo = lim[0];
    *s_hi = lim[1];
    problem_free(&p);
    return TVDS_OK;
}

int tvds_cea_slave_abscissa(const tvds_model *m, int contact, int slave, double *sa, tvds_ctx *ctx)
{
    if (!m || !sa || contact < 0 || contact >= m->ncontact)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: bad contact index %d", contact);
    const tvds_contact *ct = &m->contacts[contact];
    if (ct->master_kind == TVDS_MASTER_FACES && slave >= 0 && slave < ct->nslave) {
        *sa = 0.0; /* positions on a face set count from the undeformed placement */
        return TVDS_OK;
    }
    if (ct->master_kind == TVDS_MASTER_RIGID || ct->nmaster < 2 || slave < 0 || slave >= ct->nslave)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s' has no master surface or no slave %d",
                          ct->name ? ct->name : "?", slave);
    const tvds_substructure *ss = m->subs[ct->slave_sub], *ms = m->subs[ct->master_sub];
    int k = tvds_substructure_find_dof(ss, ct->slave_nodes[slave], TVDS_DIR_X);
    if (k < 0) k = tvds_substructure_find_dof(ss, ct->slave_nodes[slave], TVDS_DIR_Y);
    if (k < 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': slave node %ld unknown",
                          ct->name ? ct->name : "?", ct->slave_nodes[slave]);
    double px = ss->dofs[k].xyz[0], py = ss->dofs[k].xyz[1];
    double acc = 0.0, best = INFINITY;
    for (int i = 0; i + 1 < ct->nmaster; i++) {
        int a = tvds_substructure_find_dof(ms, ct->master_nodes[i], TVDS_DIR_X);
        int b = tvds_substructure_find_dof(ms, ct->master_nodes[i + 1], TVDS_DIR_X);
        if (a < 0 || b < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': master node unknown",
                              ct->name ? ct->name : "?");
        double ax = ms->dofs[a].xyz[0], ay = ms->dofs[a].xyz[1];
        double dx = ms->dofs[b].xyz[0] - ax, dy = ms->dofs[b].xyz[1] - ay;
        double len = hypot(dx, dy);
        double u = ((px - ax) * dx + (py - ay) * dy) / (len * len);
        if (u < 0.0) u = 0.0;
        if (u > 1.0) u = 1.0;
        double d = hypot(ax + u * dx - px, ay + u * dy - py);
        if (d < best) {
            best = d;
            *sa = acc + u * len;
        }
        acc += len;
    }
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

static FILE *open_csv(const char *dir, const char *stem, const char *tag, char **path, int *rc,
                      tvds_ctx *ctx)
{
    char leaf[256];
    snprintf(leaf, sizeof leaf, "%s%s.csv", stem, tag ? tag : "");
    *path = join(dir, leaf);
    if (!*path) {
        *rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory");
        return NULL;
    }
    /* Written to path.tmp and renamed over path when complete: a reader, or a process killed
     * at any moment, sees the old file or the new one, never half of one. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", *path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        *rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", *path, strerror(errno));
        tvds_free(*path);
        *path = NULL;
    }
    return f;
}

static int close_csv(FILE *f, char *path, tvds_ctx *ctx)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = TVDS_OK, bad = fflush(f) != 0 || ferror(f);
    if ((fclose(f) != 0) | bad) {
        remove(tmp);
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: write error: %s", tmp, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        remove(tmp);
        rc = TVDS_ERROR(ctx, TVDS_ERR_WRITE, "%s: cannot rename: %s", tmp, strerror(errno));
    }
    tvds_free(path);
    return rc;
}

int tvds_cea_write_csv_tag(const tvds_cea_result *r, const char *dir, const char *tag,
                           tvds_ctx *ctx)
{
    if (!r || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: nothing to write");
    char *path = NULL;
    int rc = TVDS_OK;
    FILE *f = open_csv(dir, "locus", tag, &path, &rc, ctx);
    if (!f) return rc;
    fputs("position [m],branch,frequency [Hz],real part [1/s],damping ratio,MAC,unstable,"
          "static normal force [N]",
          f);
    fputs(r->anti ? ",antisymmetric share\n" : "\n", f);
    for (int i = 0; i < r->npos; i++)
        for (int b = 0; b < r->nbranch; b++) {
            size_t k = (size_t)i * r->nbranch + b;
            if (!isfinite(r->freq[k])) continue;
            int uns = 0;
            for (int w = 0; w < r->nwin; w++)
                if (r->win[w].branch == b && r->s[i] >= r->win[w].s_start &&
                    r->s[i] <= r->win[w].s_end)
                    uns = 1;
            fprintf(f, "%.17g,%d,%.17g,%.17g,%.17g,%.6f,%d,%.10g", r->s[i], b, r->freq[k], r->re[k],
                    r->zeta[k], r->mac[k], uns, r->lambda_n ? r->lambda_n[i] : 0.0);
            if (r->anti)
                fprintf(f, ",%.6e\n", r->anti[k]);
            else
                fputc('\n', f);
        }
    if ((rc = close_csv(f, path, ctx))) return rc;
    f = open_csv(dir, "unstable", tag, &path, &rc, ctx);
    if (!f) return rc;
    fputs("branch,s_start [m],s_end [m],f_min [Hz],f_max [Hz],max real part [1/s],s_in [m],"
          "s_out [m],f at max Re [Hz],s at max Re [m],t_start [s],t_end [s],predicted growth",
          f);
    fputs(r->anti ? ",antisymmetric share at max Re\n" : "\n", f);
    for (int w = 0; w < r->nwin; w++) {
        const tvds_cea_window *cw = &r->win[w];
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6g",
                cw->branch, cw->s_start, cw->s_end, cw->f_min, cw->f_max, cw->re_max, cw->s_in,
                cw->s_out, cw->f_peak, cw->s_peak, cw->t_start, cw->t_end, cw->growth_pred);
        if (r->anti)
            fprintf(f, ",%.6e\n", cw->anti_peak);
        else
            fputc('\n', f);
    }
    return close_csv(f, path, ctx);
}

int tvds_cea_write_csv(const tvds_cea_result *r, const char *dir, tvds_ctx *ctx)
{
    return tvds_cea_write_csv_tag(r, dir, NULL, ctx);
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
