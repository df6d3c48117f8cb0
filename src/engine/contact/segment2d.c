/* segment2d.c — master kind: a 2D master surface in the x-y plane, the ordered nodes of a
 * substructure joined by straight segments (docs/theory.md 3); the master point at alpha on
 * segment T1 = seg, T2 = seg + 1 is (1 - alpha) T1 + alpha T2. */
#include <math.h>
#include <string.h>

#include "engine/contact/hermite.h"
#include "engine/contact/master.h"

/* Displacement of (sub, dof) from x_prev (which 2), x (0), x_new (1) or the velocities in tmp
 * (3); 0 for dof < 0. */
static double u_of(const tvds_data *d, int sub, int dof, int which)
{
    if (dof < 0) return 0.0;
    return sim_u(d, sub, dof, which);
}

void sim_master_node_pos(const tvds_model *m, const tvds_data *d, int ic, int k, int deformed,
                         double P[2])
{
    const tvds_contact *C = &m->contacts[ic];
    const long *dd = d->mnodes_dofs[ic] + 3 * k;
    const double *X = d->mnodes_X[ic] + 3 * k;
    int which = deformed == 2 ? 0 : 1;
    if (deformed && dd[0] >= 0 && dd[1] >= 0) {
        double u[2];
        sim_u2(d, C->master_sub, (int)dd[0], (int)dd[1], which, u);
        P[0] = X[0] + u[0];
        P[1] = X[1] + u[1];
        return;
    }
    for (int a = 0; a < 2; a++)
        P[a] = X[a] + (deformed ? u_of(d, C->master_sub, (int)dd[a], which) : 0.0);
}

/* Position P (x-y) of master node k of contact ic in configuration conf and its displacement
 * u (0 undeformed), the values sim_master_node_pos gives. */
static void node_pos_u(const tvds_model *m, const tvds_data *d, int ic, int k, int conf,
                       double P[2], double u[2])
{
    const tvds_contact *C = &m->contacts[ic];
    const long *dd = d->mnodes_dofs[ic] + 3 * k;
    const double *X = d->mnodes_X[ic] + 3 * k;
    int which = conf == SIM_CONF_CURRENT ? 0 : 1;
    if (conf && dd[0] >= 0 && dd[1] >= 0) {
        sim_u2(d, C->master_sub, (int)dd[0], (int)dd[1], which, u);
    } else {
        for (int a = 0; a < 2; a++)
            u[a] = conf ? u_of(d, C->master_sub, (int)dd[a], which) : 0.0;
    }
    for (int a = 0; a < 2; a++)
        P[a] = X[a] + u[a];
}

static double seg_alpha(const double P1[2], const double P2[2], const double Q[2])
{
    double ex = P2[0] - P1[0], ey = P2[1] - P1[1];
    return ((Q[0] - P1[0]) * ex + (Q[1] - P1[1]) * ey) / (ex * ex + ey * ey);
}

/* Follow the slave point Q along the master surface from segment c->seg (a full search when
 * c->seg < 0): c->seg and c->alpha, and the positions Pf and displacements uf of the segment's
 * two nodes in configuration deformed; TVDS_ERR_CONTACT_LOST past the ends. */
static int surface_search(const tvds_model *m, tvds_data *d, sim_cp *c, int deformed,
                          const double Q[3], double t, double Pf[2][2], double uf[2][2],
                          tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    int nseg = C->nmaster - 1;
    double P1[2], P2[2];
    const double eps = 1e-9;
    if (c->seg < 0) {
        /* First search: the segment whose projection is inside and nearest. */
        int best = -1;
        double bestd = INFINITY;
        for (int sg = 0; sg < nseg; sg++) {
            sim_master_node_pos(m, d, c->contact, sg, deformed, P1);
            sim_master_node_pos(m, d, c->contact, sg + 1, deformed, P2);
            double a = seg_alpha(P1, P2, Q);
            if (a < -eps || a > 1.0 + eps) continue;
            double px = P1[0] + a * (P2[0] - P1[0]) - Q[0], py = P1[1] + a * (P2[1] - P1[1]) - Q[1];
            double dist = px * px + py * py;
            if (dist < bestd) {
                bestd = dist;
                best = sg;
            }
        }
        if (best < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                              "t = %.9g s, step %ld: contact '%s': slave node %ld at (%g, %g) "
                              "is beyond the ends of the master surface",
                              t, d->step, C->name ? C->name : "?", c->node, Q[0], Q[1]);
        c->seg = best;
    }
    for (int guard = 0; guard <= nseg; guard++) {
        node_pos_u(m, d, c->contact, c->seg, deformed, Pf[0], uf[0]);
        node_pos_u(m, d, c->contact, c->seg + 1, deformed, Pf[1], uf[1]);
        P1[0] = Pf[0][0], P1[1] = Pf[0][1], P2[0] = Pf[1][0], P2[1] = Pf[1][1];
        double a = seg_alpha(P1, P2, Q);
        if (a < 0.0 && c->seg > 0) {
            c->seg--;
            continue;
        }
        if (a > 1.0 && c->seg < nseg - 1) {
            c->seg++;
            continue;
        }
        if (a < -eps || a > 1.0 + eps) {
            int first = a < 0.0;
            return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                              "t = %.9g s, step %ld: contact '%s': slave node %ld left the "
                              "master surface past its %s node %ld (alpha = %g)",
                              t, d->step, C->name ? C->name : "?", c->node,
                              first ? "first" : "last", C->master_nodes[first ? 0 : nseg], a);
        }
        c->alpha = a < 0.0 ? 0.0 : a > 1.0 ? 1.0 : a;
        return TVDS_OK;
    }
    /* The walk stopped at its bound: the nodes of the segment it ended on. */
    node_pos_u(m, d, c->contact, c->seg, deformed, Pf[0], uf[0]);
    node_pos_u(m, d, c->contact, c->seg + 1, deformed, Pf[1], uf[1]);
    return TVDS_OK;
}

/* Closest point; *found = 1 when a search ran, with its segment's nodes (positions in conf
 * and displacements) in Pf, uf. */
static int seg_closest_nodes(const tvds_model *m, tvds_data *d, sim_cp *c, int conf,
                             const double Q[3], double t, int keep, double Pf[2][2],
                             double uf[2][2], int *found, tvds_ctx *ctx)
{
    *found = 0;
    if (!keep) {
        int rc = surface_search(m, d, c, conf, Q, t, Pf, uf, ctx);
        if (rc) return rc;
        *found = 1;
    }
    /* The material position of the slave along the master: undeformed arc length. */
    const double *S = d->mnodes_s[c->contact];
    int k1 = c->seg, k2 = c->seg + 1;
    c->s = S[k1] + c->alpha * (S[k2] - S[k1]);
    return TVDS_OK;
}

static int seg_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                       double t, int keep, tvds_ctx *ctx)
{
    double Pf[2][2], uf[2][2];
    int found;
    return seg_closest_nodes(m, d, c, conf, Q, t, keep, Pf, uf, &found, ctx);
}

static void seg_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    /* gamma: angle of T1 -> T2; t = (cos, sin), n = (-sin, cos). */
    double P1[2], P2[2];
    sim_master_node_pos(m, d, c->contact, c->seg, conf, P1);
    sim_master_node_pos(m, d, c->contact, c->seg + 1, conf, P2);
    double tx = P2[0] - P1[0], ty = P2[1] - P1[1], L = sqrt(tx * tx + ty * ty);
    c->t[0][0] = tx / L, c->t[0][1] = ty / L, c->t[0][2] = 0.0;
    c->n[0] = -c->t[0][1], c->n[1] = c->t[0][0], c->n[2] = 0.0;
    memset(c->t[1], 0, sizeof c->t[1]);
}

static int seg_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                       int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    node[0] = c->seg;
    node[1] = c->seg + 1;
    N[0] = 1.0 - c->alpha;
    N[1] = c->alpha;
    return 2;
}

static void seg_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                      double P[3], double Pm[3])
{
    double D1[2], D2[2], a = c->alpha;
    sim_master_node_pos(m, d, c->contact, c->seg, conf, D1);
    sim_master_node_pos(m, d, c->contact, c->seg + 1, conf, D2);
    for (int q = 0; q < 2; q++) {
        P[q] = (1.0 - a) * D1[q] + a * D2[q];
        Pm[q] = (1.0 - a) * fabs(D1[q]) + a * fabs(D2[q]);
    }
    P[2] = Pm[2] = 0.0;
}

static void seg_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    out[0] = out[1] = out[2] = 0.0; /* the master point moves with its nodes only */
}

int sim_seg2d_geometry(const tvds_model *m, tvds_data *d, sim_cp *c, int conf_search,
                       int conf_frame, const double Q[3], double t, int keep, double Pc[3],
                       double Pm[3], double u1[2], double u2[2], tvds_ctx *ctx)
{
    double Pf[2][2], uf[2][2];
    int found;
    int rc = seg_closest_nodes(m, d, c, conf_search, Q, t, keep, Pf, uf, &found, ctx);
    if (rc) return rc;
    /* The segment's nodes in the predicted configuration (those of a predicted search),
     * shared by the frame and the point. */
    double D1[2], D2[2], a = c->alpha;
    if (found && conf_search == SIM_CONF_PREDICTED) {
        for (int q = 0; q < 2; q++) {
            D1[q] = Pf[0][q], D2[q] = Pf[1][q];
            u1[q] = uf[0][q], u2[q] = uf[1][q];
        }
    } else {
        node_pos_u(m, d, c->contact, c->seg, SIM_CONF_PREDICTED, D1, u1);
        node_pos_u(m, d, c->contact, c->seg + 1, SIM_CONF_PREDICTED, D2, u2);
    }
    double F1[2], F2[2], z[2];
    const double *P1 = D1, *P2 = D2;
    if (conf_frame != SIM_CONF_PREDICTED) {
        node_pos_u(m, d, c->contact, c->seg, conf_frame, F1, z);
        node_pos_u(m, d, c->contact, c->seg + 1, conf_frame, F2, z);
        P1 = F1, P2 = F2;
    }
    double tx = P2[0] - P1[0], ty = P2[1] - P1[1], L = sqrt(tx * tx + ty * ty);
    c->t[0][0] = tx / L, c->t[0][1] = ty / L, c->t[0][2] = 0.0;
    c->n[0] = -c->t[0][1], c->n[1] = c->t[0][0], c->n[2] = 0.0;
    memset(c->t[1], 0, sizeof c->t[1]);
    for (int q = 0; q < 2; q++) {
        Pc[q] = (1.0 - a) * D1[q] + a * D2[q];
        Pm[q] = (1.0 - a) * fabs(D1[q]) + a * fabs(D2[q]);
    }
    Pc[2] = Pm[2] = 0.0;
    return TVDS_OK;
}

/* ---- Set-up (master.h) ---- */

int sim_seg2d_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    const char *cn = C->name ? C->name : "?";
    if (C->dim != 2 || C->master_sub < 0 || C->master_sub >= m->nsub || C->nmaster < 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': a master surface needs dim 2, a master "
                          "substructure and at least 2 nodes",
                          cn);
    for (int k = 0; k < C->nmaster; k++) {
        int dd[3];
        double X[3];
        if (!sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], dd, X))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "contact '%s': master node %ld has no physical DoF", cn,
                              C->master_nodes[k]);
        for (int a = 0; a < 2; a++)
            sim_mark_cand(&d->sub[C->master_sub], dd[a]);
    }
    *ent = 3 * C->dim; /* two master nodes */
    return TVDS_OK;
}

/* ---- Static state (master.h) ---- */

int sim_seg2d_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                           const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    const char *cname = c->name ? c->name : "?";
    if (c->dim != 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': 2D contacts (dim = 2) and 3D contacts on a face set, "
                          "a rigid plane or a rotating disc only",
                          cname);
    if (c->master_sub < 0 || c->master_sub >= m->nsub || c->nmaster < 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': master surface needs a substructure and >= 2 "
                          "nodes",
                          cname);
    ms->nmaster = c->nmaster;
    ms->master_dof = tvds_malloc((size_t)2 * c->nmaster * sizeof(int));
    ms->master_xy = tvds_malloc((size_t)2 * c->nmaster * sizeof(double));
    ms->cum = tvds_malloc((size_t)c->nmaster * sizeof(double));
    if (!ms->master_dof || !ms->master_xy || !ms->cum)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d master nodes)", c->nmaster);
    for (int k = 0; k < c->nmaster; k++) {
        int rc = sim_master_node_dofs(m, c->master_sub, c->master_nodes[k], 2, off,
                                      ms->master_dof + 2 * k, ms->master_xy + 2 * k, "master",
                                      cname, ctx);
        if (rc) return rc;
        if (k == 0) {
            ms->cum[0] = 0.0;
        } else {
            double len = hypot(ms->master_xy[2 * k] - ms->master_xy[2 * k - 2],
                               ms->master_xy[2 * k + 1] - ms->master_xy[2 * k - 1]);
            if (!(len > 0))
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                                  "cea: contact '%s': master nodes %ld and %ld coincide", cname,
                                  c->master_nodes[k - 1], c->master_nodes[k]);
            ms->cum[k] = ms->cum[k - 1] + len;
        }
    }
    ms->length = ms->extent = ms->cum[c->nmaster - 1];
    return TVDS_OK;
}

/* Segment and weights at arc length s on the undeformed nodes (clamped to the master); the
 * master nodes and weights of the row. */
void sim_seg2d_static_locate(const sim_master_static *ms, double s, sim_master_at *g)
{
    int k = 0;
    while (k < ms->nmaster - 2 && s > ms->cum[k + 1])
        k++;
    double len = ms->cum[k + 1] - ms->cum[k];
    double a = (s - ms->cum[k]) / len;
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    g->seg = k;
    g->alpha = a;
    g->len = len;
    g->wgt[0] = 1.0 - a;
    g->wgt[1] = a;
    g->face = -1;
    g->n[2] = g->t[2] = 0.0;
}

static int seg_static_at(const sim_master_static *ms, const double X[3], double s, sim_master_at *g)
{
    sim_seg2d_static_locate(ms, s, g);
    int k = g->seg;
    /* t = (cos gamma, sin gamma) along T1 -> T2, n = (-sin gamma, cos gamma) (docs/theory.md). */
    g->t[0] = (ms->master_xy[2 * k + 2] - ms->master_xy[2 * k]) / g->len;
    g->t[1] = (ms->master_xy[2 * k + 3] - ms->master_xy[2 * k + 1]) / g->len;
    g->n[0] = -g->t[1];
    g->n[1] = g->t[0];
    return SIM_AT_OK;
}

int sim_seg2d_static_nodes(const sim_master_static *ms, const sim_master_at *g,
                           int dof[SIM_MASTER_MAX_NODES][3], double w[SIM_MASTER_MAX_NODES])
{
    for (int node = 0; node < 2; node++) {
        for (int k = 0; k < 2; k++)
            dof[node][k] = ms->master_dof[2 * (g->seg + node) + k];
        w[node] = g->wgt[node];
    }
    return 2;
}

/* The slave at the undeformed surface point. */
void sim_seg2d_static_place(const sim_master_static *ms, sim_master_at *g)
{
    const double *X1 = ms->master_xy + 2 * g->seg, *X2 = X1 + 2;
    for (int k = 0; k < 2; k++)
        g->xc[k] = (1 - g->alpha) * X1[k] + g->alpha * X2[k];
    g->xc[2] = 0.0;
}

void sim_seg2d_static_sep(const sim_master_static *ms, const double *u, const sim_master_at *g,
                          const double Q[3], double r[3])
{
    const int *D1 = ms->master_dof + 2 * g->seg, *D2 = D1 + 2;
    const double *X1 = ms->master_xy + 2 * g->seg, *X2 = X1 + 2;
    for (int k = 0; k < 2; k++) {
        double x1 = u ? X1[k] + u[D1[k]] : X1[k];
        double x2 = u ? X2[k] + u[D2[k]] : X2[k];
        r[k] = Q[k] - (1 - g->alpha) * x1 - g->alpha * x2;
    }
    r[2] = 0.0;
}

/* The frame of a node on the deformed segment g->seg: its nodes at x1, x2, the slave at xc
 * (all at X + u); ng (a copy of g) receives the length, t, n, alpha clamped to [0, 1] and the
 * weights; on a C1 master the frame of the curve through the deformed nodes at that alpha.
 * -1 when the nodes coincide. */
static int seg_deformed(const sim_master_static *ms, const sim_master_at *g, const double *u,
                        const double x1[2], const double x2[2], const double xc[2],
                        sim_master_at *ng)
{
    double d[2] = {x2[0] - x1[0], x2[1] - x1[1]}, L = hypot(d[0], d[1]);
    if (!(L > 0)) return -1;
    ng->len = L;
    ng->t[0] = d[0] / L;
    ng->t[1] = d[1] / L;
    ng->n[0] = -ng->t[1];
    ng->n[1] = ng->t[0];
    ng->alpha = ((xc[0] - x1[0]) * ng->t[0] + (xc[1] - x1[1]) * ng->t[1]) / L;
    if (ng->alpha < 0) ng->alpha = 0;
    if (ng->alpha > 1) ng->alpha = 1;
    ng->wgt[0] = 1.0 - ng->alpha;
    ng->wgt[1] = ng->alpha;
    if (ms->smooth) {
        /* The preload stiffness keeps the chord's rotation (docs/cea.md). */
        int k0 = g->seg > 0 ? g->seg - 1 : 0,
            k1 = g->seg + 2 < ms->nmaster ? g->seg + 2 : g->seg + 1;
        double xyd[2 * 4];
        for (int q = k0; q <= k1; q++)
            for (int d2 = 0; d2 < 2; d2++)
                xyd[2 * (q - k0) + d2] = ms->master_xy[2 * q + d2] + u[ms->master_dof[2 * q + d2]];
        tvds_c1_frame_xy(k1 - k0 + 1, xyd, g->seg - k0, ng->alpha, ng->t, ng->n, ng->wgt);
    }
    return 0;
}

/* The same segment, alpha and n from X + u. */
double sim_seg2d_static_follow(const sim_master_static *ms, const double *u, const double Q[3],
                               sim_master_at *g)
{
    double x1[2], x2[2];
    for (int k = 0; k < 2; k++) {
        x1[k] = ms->master_xy[2 * g->seg + k] + u[ms->master_dof[2 * g->seg + k]];
        x2[k] = ms->master_xy[2 * (g->seg + 1) + k] + u[ms->master_dof[2 * (g->seg + 1) + k]];
    }
    sim_master_at ng = *g;
    if (seg_deformed(ms, g, u, x1, x2, Q, &ng)) return -1.0;
    double ch = fabs(ng.alpha - g->alpha) + fabs(ng.n[0] - g->n[0]) + fabs(ng.n[1] - g->n[1]);
    *g = ng;
    return ch;
}

/* Preload stiffness of one node on segment g->seg of a 2D master (slave DoFs sd x, y), added to
 * Kt: the contact force on the structure F = -B_E(u)^T lambda changes with the deformation
 * through the rotation of n, t (segment T1 T2) and through alpha (docs/cea.md); K_g = -dF/du
 * at the static multiplier lambda. */
void sim_seg2d_static_kg(const sim_master_static *ms, const sim_master_at *g, const int sd[3],
                         double lambda, double chi, const double *u, int N, double *Kt)
{
    const double *n = g->n, *t = g->t;
    double a = g->alpha, mu = ms->mu;
    double e[2] = {n[0] - chi * mu * t[0], n[1] - chi * mu * t[1]};
    double q[2] = {-t[0] - chi * mu * n[0], -t[1] - chi * mu * n[1]}; /* de / d(angle) */
    int dof[6] = {sd[0],
                  sd[1],
                  ms->master_dof[2 * g->seg],
                  ms->master_dof[2 * g->seg + 1],
                  ms->master_dof[2 * (g->seg + 1)],
                  ms->master_dof[2 * (g->seg + 1) + 1]};
    /* n . dd = a . du (rotation of the segment), t . dr = b . du (change of alpha times L). */
    double av[6] = {0, 0, -n[0], -n[1], n[0], n[1]};
    double bv[6] = {t[0], t[1], -(1 - a) * t[0], -(1 - a) * t[1], -a * t[0], -a * t[1]};
    double P[6] = {-q[0], -q[1], (1 - a) * q[0], (1 - a) * q[1], a * q[0], a * q[1]};
    double Q[6] = {0, 0, -e[0], -e[1], e[0], e[1]};
    double c = -lambda / g->len;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            Kt[(size_t)dof[j] * N + dof[i]] += c * (P[i] * av[j] + Q[i] * bv[j]);
}

const sim_master_type sim_master_segment2d = {
    .name = "segment2d",
    .prescribed = 0,
    .closest = seg_closest,
    .frame = seg_frame,
    .weights = seg_weights,
    .point = seg_point,
    .setup = sim_seg2d_setup,
    .motion = seg_motion,
    .offsets = 1,
    .static_setup = sim_seg2d_static_setup,
    .static_at = seg_static_at,
    .static_nodes = sim_seg2d_static_nodes,
    .static_place = sim_seg2d_static_place,
    .static_sep = sim_seg2d_static_sep,
    .static_follow = sim_seg2d_static_follow,
    .static_kg = sim_seg2d_static_kg,
};
