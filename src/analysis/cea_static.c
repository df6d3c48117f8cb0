/* cea_static.c — the CEA's contact geometry and static sliding state (preload, geometric stiffness,
 * lateral damping). */
#include "analysis/cea_impl.h"

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
    a->face_prev = g->face_prev;
    a->pin = g->pin;
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
    g->face_prev = a->face_prev;
    g->pin = a->pin;
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
int cea_node_geometry(const cea_problem *p, int a, double s, cea_geom *g)
{
    sim_master_at at;
    at_from_geom(g, &at);
    int e = p->ms.type->static_at(&p->ms, p->act_X + 3 * a,
                                  p->ms.type->offsets ? s + p->act_ds[a] : s, &at);
    geom_from_at(&at, g);
    return at_status(p, e);
}

/* Frame of a node at x on a master whose sliding direction differs from node to node (the
 * kind's static_slide: the disc); returns the sliding speed there. */
static double slide_frame(const cea_problem *p, const double x[3], cea_geom *g)
{
    sim_master_at at;
    at_from_geom(g, &at);
    double wl = p->ms.type->static_slide(&p->ms, x, &at);
    geom_from_at(&at, g);
    return wl;
}

/* Geometry of every active node at the position s of the first: node a at s + act_ds[a]
 * (face-set masters: at distance s along the drive). Returns 0 or the first cea_node_geometry
 * failure. */
int cea_contact_geometries(const cea_problem *p, double s, cea_geom *g)
{
    int bad = 0;
    for (int j = -1; j < p->nextra; j++) {
        const cea_problem *x = j < 0 ? p : &p->extra[j];
        for (int a = 0; a < x->nact; a++) {
            g[a].act = a;
            g[a].off = 0;
            int e = cea_node_geometry(x, a, s, &g[a]);
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
    if (p->ms.type->static_slide) return 1.0; /* t is each node's own sliding direction */
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

double cea_build_rows(const cea_problem *p, const cea_geom *g, cea_work *w)
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
int cea_static_state(const cea_problem *p, double s, cea_geom *g, cea_work *w, double *lambda)
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
        cea_build_rows(p, g, w);
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
void cea_tangent_stiffness(const cea_problem *p, const cea_geom *g, double lambda, double chi,
                           cea_work *w)
{
    int N = p->N;
    memcpy(w->Kt, p->K, (size_t)N * N * sizeof *w->Kt);
    if (!p->deformed || !p->has_contact || !p->ms.type->static_kg || lambda == 0.0) return;
    sim_master_at at;
    at_from_geom(g, &at);
    p->ms.type->static_kg(&p->ms, &at, p->slave_dof, lambda, chi, NULL, N, w->Kt);
}

/* The nodes in contact (not off) in the order of their rows (cea_build_rows: the other contacts
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
 * or contacts on deformable masters, the disc): the saddle-point iteration of cea_static_state with
 * one gap right-hand side per node and each node's geometry updated from X + u, stopped at
 * 1e-13 or where round-off keeps it from improving below 1e-10. Each node's multiplier goes to
 * its geometry (lam), the sum to *lambda. Contact set: the nodes whose multiplier pulls
 * (lambda_a > 0 beyond 1e-9 of the total) are released; when none pulls, the released node
 * that penetrates its master deepest at the new state is taken back; until the set is
 * consistent (docs/cea.md). On return w->krhs holds the static displacement u (its first N
 * entries) of the last solve. TVDS_ERR_CONTACT_LOST when every node pulls (no sliding
 * contact), TVDS_ERR_SINGULAR (a mechanism, or a master without normal under a node),
 * TVDS_ERR_SOLVER (no convergence or no consistent contact set). */
int cea_static_state_gen(const cea_problem *p, cea_geom *g, cea_work *w, double *lambda)
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
        if (na == 0) return TVDS_ERR_CONTACT_LOST; /* every node pulls: no sliding contact */
        double last = INFINITY, change = INFINITY;
        for (int it = 0; it < 30; it++) {
            cea_build_rows(p, g, w);
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
 * rigid plane adds none), at the static state of cea_static_state_gen. */
void cea_tangent_stiffness_gen(const cea_problem *p, const cea_geom *g, cea_work *w)
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
    if (x->ms.type->static_slide) {
        double Q[3];
        for (int k = 0; k < 3; k++)
            Q[k] = g->xc[k] + (u ? u[sd[k]] : 0.0);
        cea_geom h = *g;
        wl = slide_frame(x, Q, &h);
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
int cea_lateral_damping(const cea_problem *p, const cea_geom *g, double lambda1, cea_work *w)
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
