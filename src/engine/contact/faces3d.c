/* faces3d.c — master kind: a 3D face set of a substructure (3-, 4-, 6-, 8- and 9-node faces,
 * docs/theory.md 3b). The master point is sum N_k(xi) (X_k + u_k) on face c->seg at natural
 * coordinates c->xi; the slave walks over the faces across edges and corners. */
#include <math.h>
#include <string.h>

#include "engine/contact/face.h"
#include "engine/contact/master.h"

/* Node positions of face f of a face-set master (nn x 3), undeformed (deformed = 0), X + u*
 * (1) or X + u_n (2). Returns the number of nodes. */
int sim_faces3d_nodes(const tvds_model *m, const tvds_data *d, int ic, int f, int deformed,
                      double *P)
{
    const tvds_contact *C = &m->contacts[ic];
    int nn = C->face_nn[f];
    const int *fn = C->face_node + (size_t)f * TVDS_FACE_MAX_NODES;
    int which = deformed == 2 ? 0 : 1;
    for (int q = 0; q < nn; q++) {
        const long *dd = d->mnodes_dofs[ic] + 3 * fn[q];
        const double *X = d->mnodes_X[ic] + 3 * fn[q];
        for (int a = 0; a < 3; a++)
            P[3 * q + a] = X[a] + (deformed ? sim_u(d, C->master_sub, (int)dd[a], which) : 0.0);
    }
    return nn;
}

/* Closest point of Q on face f: squared distance, natural coordinates (warm start from xi when
 * f is the point's current face), validity of the projection, and whether it lies on a free
 * edge of the surface (an edge with no face across it). */
typedef struct face_hit {
    double d2, xi[2];
    int inside, free_edge;
} face_hit;

static face_hit face_try(const tvds_model *m, const tvds_data *d, const sim_cp *c, int f,
                         int deformed, const double Q[3])
{
    double P[3 * FACE_MAX_NODES];
    int nn = sim_faces3d_nodes(m, d, c->contact, f, deformed, P);
    face_hit h;
    /* Newton starts from the last xi on the point's own face, from the centre on another. */
    int edge = -1;
    h.d2 = face_closest(nn, P, Q, f == c->seg ? c->xi : NULL, h.xi, &h.inside, &edge);
    h.free_edge = 0;
    if (!h.inside) {
        /* Every edge the point lies on (a corner lies on two). */
        int nc = face_ncorner(nn);
        for (int e = 0; e < nc; e++) {
            double A[2], B[2];
            face_corner_xi(nn, e, A);
            face_corner_xi(nn, (e + 1) % nc, B);
            double ex = B[0] - A[0], ey = B[1] - A[1];
            double cr = (h.xi[0] - A[0]) * ey - (h.xi[1] - A[1]) * ex;
            if (fabs(cr) <= 1e-12 && d->fedge[c->contact][4 * f + e] < 0) h.free_edge = 1;
        }
    }
    return h;
}

/* Is hit a better than hit b: a valid projection first, then the smaller distance (strictly,
 * so that ties keep the current face)? */
static int hit_better(const face_hit *a, const face_hit *b)
{
    if (a->inside != b->inside) return a->inside > b->inside;
    return a->d2 < b->d2 * (1.0 - 1e-12);
}

/* Follow the slave point Q over the faces from face c->seg: keep the current face while its
 * projection is valid, otherwise move to the best of the faces sharing a node with it (over an
 * edge or a corner), until no neighbour is better. The first search scans every face. */
static int face_search(const tvds_model *m, tvds_data *d, sim_cp *c, int deformed,
                       const double Q[3], double t, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    face_hit best = {INFINITY, {0.0, 0.0}, 0, 0};
    if (c->seg < 0) {
        int bf = -1;
        for (int f = 0; f < C->nface; f++) {
            face_hit h = face_try(m, d, c, f, deformed, Q);
            if (bf < 0 || hit_better(&h, &best)) best = h, bf = f;
        }
        c->seg = bf;
    } else {
        best = face_try(m, d, c, c->seg, deformed, Q);
    }
    for (int guard = 0; guard <= C->nface && !best.inside; guard++) {
        const int *off = d->fnb_off[c->contact], *nb = d->fnb[c->contact];
        int bf = c->seg;
        face_hit cur = best;
        for (int r = off[c->seg]; r < off[c->seg + 1]; r++) {
            face_hit h = face_try(m, d, c, nb[r], deformed, Q);
            if (hit_better(&h, &best)) best = h, bf = nb[r];
        }
        if (bf == c->seg) {
            best = cur;
            break;
        }
        c->seg = bf;
    }
    if (!best.inside && best.free_edge) {
        const int *fn = C->face_node + (size_t)c->seg * TVDS_FACE_MAX_NODES;
        return TVDS_ERROR(ctx, TVDS_ERR_CONTACT_LOST,
                          "t = %.9g s, step %ld: contact '%s': slave node %ld at (%g, %g, %g) "
                          "left the master faces over a free edge of face %d (nodes %ld, %ld, "
                          "%ld, ...; xi = %g, %g)",
                          t, d->step, C->name ? C->name : "?", c->node, Q[0], Q[1], Q[2],
                          c->seg + 1, C->master_nodes[fn[0]], C->master_nodes[fn[1]],
                          C->master_nodes[fn[2]], best.xi[0], best.xi[1]);
    }
    c->xi[0] = best.xi[0];
    c->xi[1] = best.xi[1];
    return TVDS_OK;
}

static int faces_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                         double t, int keep, tvds_ctx *ctx)
{
    if (!keep) {
        int rc = face_search(m, d, c, conf, Q, t, ctx);
        if (rc) return rc;
    }
    /* Published as alpha and s: the natural coordinates of the point on its face. */
    c->alpha = c->xi[0];
    c->s = c->xi[1];
    return TVDS_OK;
}

static void faces_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    double P[3 * FACE_MAX_NODES];
    int nn = sim_faces3d_nodes(m, d, c->contact, c->seg, conf, P);
    double n[3], t1[3], t2[3];
    /* A collapsed face (no normal) keeps the last frame; the run then diverges and says so. */
    if (face_frame(nn, P, c->xi, n, t1, t2) != 0) return;
    memcpy(c->n, n, sizeof n);
    memcpy(c->t[0], t1, sizeof t1);
    memcpy(c->t[1], t2, sizeof t2);
}

static int faces_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                         int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    const tvds_contact *C = &m->contacts[c->contact];
    int nn = C->face_nn[c->seg];
    const int *fn = C->face_node + (size_t)c->seg * TVDS_FACE_MAX_NODES;
    face_shape(nn, c->xi, N, NULL);
    for (int q = 0; q < nn; q++)
        node[q] = fn[q];
    return nn;
}

static void faces_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf,
                        double t, double P[3], double Pm[3])
{
    double X[3 * FACE_MAX_NODES], N[FACE_MAX_NODES];
    int nn = sim_faces3d_nodes(m, d, c->contact, c->seg, conf, X);
    face_shape(nn, c->xi, N, NULL);
    for (int a = 0; a < 3; a++) {
        P[a] = Pm[a] = 0.0;
        for (int q = 0; q < nn; q++) {
            P[a] += N[q] * X[3 * q + a];
            Pm[a] += fabs(N[q]) * fabs(X[3 * q + a]);
        }
    }
}

static void faces_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    out[0] = out[1] = out[2] = 0.0; /* the master point moves with its nodes only */
}

/* ---- Set-up (master.h) ---- */

static int faces_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    const char *cn = C->name ? C->name : "?";
    if (C->law == TVDS_LAW_PENALTY)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': the penalty law needs a 2D master surface or a "
                          "rigid master (a face set takes the Lagrange law)",
                          cn);
    if (C->dim != 3 || C->master_sub < 0 || C->master_sub >= m->nsub || C->nface < 1 ||
        !C->face_nn || !C->face_node)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': a face set needs dim 3, a master substructure "
                          "and at least one face",
                          cn);
    for (int f = 0; f < C->nface; f++) {
        int nn = C->face_nn[f];
        if (!face_supported(nn))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "contact '%s': face %d has %d nodes (3, 4, 6, 8 or 9)", cn, f + 1,
                              nn);
        for (int q = 0; q < nn; q++) {
            int j = C->face_node[(size_t)f * TVDS_FACE_MAX_NODES + q];
            if (j < 0 || j >= C->nmaster)
                return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact '%s': face %d: bad node", cn,
                                  f + 1);
        }
    }
    for (int k = 0; k < C->nmaster; k++) {
        int dd[3];
        double X[3];
        if (!sim_node_dofs(m->subs[C->master_sub], C->master_nodes[k], dd, X) || dd[0] < 0 ||
            dd[1] < 0 || dd[2] < 0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "contact '%s': master node %ld needs ux, uy and uz", cn,
                              C->master_nodes[k]);
        for (int a = 0; a < 3; a++)
            sim_mark_cand(&d->sub[C->master_sub], dd[a]);
    }
    int nmax = 0;
    for (int f = 0; f < C->nface; f++)
        if (C->face_nn[f] > nmax) nmax = C->face_nn[f];
    *ent = 3 * (1 + nmax);
    return TVDS_OK;
}

/* ---- Static state (master.h; docs/cea.md, "Face-set masters") ---- */

/* The face nodes' DoFs and coordinates and the direction of travel of the slave body (its
 * velocity vs relative to the fixed master), along which positions are measured. */
static int faces_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                              const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    const char *cname = c->name ? c->name : "?";
    if (c->master_sub < 0 || c->master_sub >= m->nsub || c->nface < 1 || c->nmaster < 3 ||
        !c->face_nn || !c->face_node)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': face-set master needs a substructure and faces",
                          cname);
    ms->faces = 1;
    ms->nmaster = c->nmaster;
    ms->nface = c->nface;
    ms->face_nn = c->face_nn;
    ms->face_node = c->face_node;
    ms->fdof = tvds_malloc((size_t)3 * c->nmaster * sizeof(int));
    ms->fX = tvds_malloc((size_t)3 * c->nmaster * sizeof(double));
    if (!ms->fdof || !ms->fX)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "cea: out of memory (%d master nodes)", c->nmaster);
    for (int k = 0; k < c->nmaster; k++) {
        int rc = sim_master_node_dofs(m, c->master_sub, c->master_nodes[k], 3, off,
                                      ms->fdof + 3 * k, ms->fX + 3 * k, "master", cname, ctx);
        if (rc) return rc;
    }
    double fs = 0.0;
    for (int f = 0; f < c->nface; f++) {
        int nn = c->face_nn[f];
        if (!face_supported(nn))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': face %d has %d nodes",
                              cname, f + 1, nn);
        const int *fn = c->face_node + (size_t)f * TVDS_FACE_MAX_NODES;
        for (int i = 0; i < nn; i++)
            for (int j = i + 1; j < nn; j++) {
                const double *A = ms->fX + 3 * fn[i], *B = ms->fX + 3 * fn[j];
                double d = hypot(hypot(A[0] - B[0], A[1] - B[1]), A[2] - B[2]);
                if (d > fs) fs = d;
            }
    }
    ms->fsize = fs;
    double vn = sqrt(vs[0] * vs[0] + vs[1] * vs[1] + vs[2] * vs[2]);
    if (!(vn > 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': the slave body does not travel (no slave_kin or "
                          "imposed motion of the slave substructure with a velocity at t_eval): "
                          "positions on a face set are distances along its travel",
                          cname);
    for (int k = 0; k < 3; k++)
        ms->drive[k] = vs[k] / vn;
    /* Its extent along the direction of travel (the 2D surface length's analogue). */
    double lo = INFINITY, hi = -INFINITY;
    for (int q = 0; q < ms->nmaster; q++) {
        double x = sim_dot3(ms->fX + 3 * q, ms->drive);
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    ms->extent = hi - lo;
    ms->gap_scale = fs;
    return TVDS_OK;
}

int sim_faces_pos(const sim_master_static *ms, int f, const double *u, double *P)
{
    int nn = ms->face_nn[f];
    const int *fn = ms->face_node + (size_t)f * TVDS_FACE_MAX_NODES;
    for (int q = 0; q < nn; q++)
        for (int k = 0; k < 3; k++)
            P[3 * q + k] = ms->fX[3 * fn[q] + k] + (u ? u[ms->fdof[3 * fn[q] + k]] : 0.0);
    return nn;
}

/* The face cur while its projection is valid (inside within 1e-9), else the face with a valid
 * projection nearest to Q, the lowest index among faces within (1e-8 fsize)^2 of each other (a
 * point on an edge shared by two faces); when no face has a valid projection, the nearest
 * boundary point (*valid = 0). */
int sim_faces_pick(const sim_master_static *ms, const double *u, const double Q[3], int cur,
                   double xi[2], int *valid)
{
    double P[3 * FACE_MAX_NODES], z[2];
    int inside = 0;
    if (cur >= 0) {
        int nn = sim_faces_pos(ms, cur, u, P);
        face_closest(nn, P, Q, xi, z, &inside, NULL);
        if (inside) {
            xi[0] = z[0], xi[1] = z[1];
            *valid = 1;
            return cur;
        }
    }
    double tol = 1e-8 * ms->fsize, best = INFINITY, bestb = INFINITY, zb[2] = {0, 0};
    int bf = -1, bfb = -1;
    tol *= tol;
    for (int f = 0; f < ms->nface; f++) {
        int nn = sim_faces_pos(ms, f, u, P);
        double d2 = face_closest(nn, P, Q, NULL, z, &inside, NULL);
        if (inside && d2 < best - tol) {
            best = d2, bf = f;
            xi[0] = z[0], xi[1] = z[1];
        } else if (!inside && d2 < bestb - tol) {
            bestb = d2, bfb = f;
            zb[0] = z[0], zb[1] = z[1];
        }
    }
    *valid = bf >= 0;
    if (bf >= 0) return bf;
    xi[0] = zb[0], xi[1] = zb[1];
    return bfb;
}

/* n = a1 x a2 / |a1 x a2| (toward the slave), t = the tangential part of the sliding velocity
 * v_rel, unit (chi = +1); when v_rel is normal to the face, t = t1 and SIM_AT_NO_SLIDING. */
int sim_faces_fill(const sim_master_static *ms, const double *u, sim_master_at *g)
{
    double P[3 * FACE_MAX_NODES], t1[3], t2[3];
    int nn = sim_faces_pos(ms, g->face, u, P);
    g->nn = nn;
    g->seg = -1;
    g->alpha = 0.0;
    g->len = 1.0;
    face_shape(nn, g->xi, g->N, NULL);
    if (face_frame(nn, P, g->xi, g->n, t1, t2)) return SIM_AT_NO_NORMAL;
    const double *v = ms->v_rel, *n = g->n;
    double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2], w[3], wl = 0.0;
    for (int k = 0; k < 3; k++) {
        w[k] = v[k] - vn * n[k];
        wl += w[k] * w[k];
    }
    wl = sqrt(wl);
    if (!(wl > 1e-12 * fabs(vn))) {
        for (int k = 0; k < 3; k++)
            g->t[k] = t1[k];
        return SIM_AT_NO_SLIDING;
    }
    for (int k = 0; k < 3; k++)
        g->t[k] = w[k] / wl;
    return SIM_AT_OK;
}

/* The slave node at its undeformed position plus s along the drive, its closest point (placed
 * there: g->xc). */
static int faces_static_at(const sim_master_static *ms, const double X[3], double s,
                           sim_master_at *g)
{
    double Q[3], P[3 * FACE_MAX_NODES];
    for (int k = 0; k < 3; k++)
        Q[k] = X[k] + s * ms->drive[k];
    int valid = 0;
    g->face_prev = -1;
    g->pin = 0;
    g->face = sim_faces_pick(ms, NULL, Q, -1, g->xi, &valid);
    if (!valid) {
        g->face = -1;
        return SIM_AT_OFF;
    }
    int nn = sim_faces_pos(ms, g->face, NULL, P);
    face_point(nn, P, g->xi, g->xc, NULL, NULL);
    return sim_faces_fill(ms, NULL, g);
}

static int faces_static_nodes(const sim_master_static *ms, const sim_master_at *g,
                              int dof[SIM_MASTER_MAX_NODES][3], double w[SIM_MASTER_MAX_NODES])
{
    const int *fn = ms->face_node + (size_t)g->face * TVDS_FACE_MAX_NODES;
    for (int q = 0; q < g->nn; q++) {
        for (int k = 0; k < 3; k++)
            dof[q][k] = ms->fdof[3 * fn[q] + k];
        w[q] = g->N[q];
    }
    return g->nn;
}

static void faces_static_sep(const sim_master_static *ms, const double *u, const sim_master_at *g,
                             const double Q[3], double r[3])
{
    double P[3 * FACE_MAX_NODES], xp[3];
    sim_faces_pos(ms, g->face, u, P);
    face_point(g->nn, P, g->xi, xp, NULL, NULL);
    for (int k = 0; k < 3; k++)
        r[k] = Q[k] - xp[k];
}

/* The closest point of Q on the deformed face set (the current face first, as the stepping
 * engine follows a point: face_search). A slave node on an edge or a corner of the face set
 * (a pad node on the master's mesh lines) can alternate between two faces: on face A the
 * solve leaves it on A's plane just beyond the edge, where face B holds its projection, and on
 * B just beyond it on A's side (the deformed faces meet at a small angle). When the face picked
 * is the one the point left last, the point is kept (pinned) on the lower-numbered of the two,
 * its projection clamped to that face's boundary (the edge point, with that face's normal):
 * the same face whichever of the two the iteration started on, and a fixed point the
 * iteration reaches. */
static double faces_static_follow(const sim_master_static *ms, const double *u, const double Q[3],
                                  sim_master_at *g)
{
    sim_master_at ng = *g;
    int valid = 0;
    if (g->pin) {
        ng.face = g->face;
    } else {
        ng.face = sim_faces_pick(ms, u, Q, g->face, ng.xi, &valid);
        if (ng.face < 0) return -1.0;
        if (ng.face != g->face && g->face >= 0) {
            if (ng.face == g->face_prev) {
                ng.pin = 1;
                if (g->face < ng.face) ng.face = g->face;
            }
            ng.face_prev = g->face;
        }
    }
    if (ng.pin) {
        double P[3 * FACE_MAX_NODES];
        int nn = sim_faces_pos(ms, ng.face, u, P);
        face_closest(nn, P, Q, g->face == ng.face ? g->xi : NULL, ng.xi, &valid, NULL);
    }
    int e = sim_faces_fill(ms, u, &ng);
    if (e == SIM_AT_NO_NORMAL || (e == SIM_AT_NO_SLIDING && ms->mu != 0.0)) return -1.0;
    double ch = fabs(ng.xi[0] - g->xi[0]) + fabs(ng.xi[1] - g->xi[1]) + fabs(ng.n[0] - g->n[0]) +
                fabs(ng.n[1] - g->n[1]) + fabs(ng.n[2] - g->n[2]);
    if (ng.face != g->face) ch += 1.0;
    *g = ng;
    return ch;
}

/* Preload stiffness of one node on a face (docs/cea.md, "Face-set masters": derivation and
 * signs), added to Kt. The static state has the slave at its closest point x_P(xi) of the
 * deformed face (positions X + u). With the slave C and the face nodes q as the DoFs
 * (3 (1 + nn) columns):
 *   dxi = G^-1 [a_i . (du_C - sum_q N_q du_q)],  G_ij = a_i . a_j     (closest point)
 *   da_i = sum_q N_q,i du_q + x_,ij dxi_j
 *   dn = (I - n n^T) (da_1 x a_2 + a_1 x da_2) / |a_1 x a_2|
 *   dt = -n (t . dn) - kappa (I - t t^T) dn,  kappa = (n . v) / |v - (v . n) n|
 *   de = dn - chi mu dt,   e = n - chi mu t
 *   F_C = -lambda e,  F_q = lambda N_q e:  dF_q = lambda (e dN_q + N_q de),  K_g = -dF/du. */
static void faces_static_kg(const sim_master_static *ms, const sim_master_at *g, const int sd[3],
                            double lambda, double chi, const double *u, int N, double *Kt)
{
    enum { NCMAX = 3 * (1 + FACE_MAX_NODES) };
    int nn = g->nn, nc = 3 * (1 + nn);
    double P[3 * FACE_MAX_NODES], Nq[FACE_MAX_NODES], dN[2 * FACE_MAX_NODES],
        d2N[3 * FACE_MAX_NODES];
    sim_faces_pos(ms, g->face, u, P);
    face_shape(nn, g->xi, Nq, dN);
    face_shape2(nn, g->xi, d2N);
    double a[2][3] = {{0}}, xx[3][3] = {{0}}; /* a_1, a_2; x_,11, x_,12, x_,22 */
    for (int q = 0; q < nn; q++)
        for (int k = 0; k < 3; k++) {
            a[0][k] += dN[2 * q] * P[3 * q + k];
            a[1][k] += dN[2 * q + 1] * P[3 * q + k];
            for (int d = 0; d < 3; d++)
                xx[d][k] += d2N[3 * q + d] * P[3 * q + k];
        }
    double c[3];
    sim_cross3(a[0], a[1], c);
    double cl = sqrt(sim_dot3(c, c));
    const double *n = g->n, *t = g->t;
    double g11 = sim_dot3(a[0], a[0]), g12 = sim_dot3(a[0], a[1]), g22 = sim_dot3(a[1], a[1]);
    double det = g11 * g22 - g12 * g12;
    if (!(cl > 0) || !(det > 0)) return;
    double Gi[2][2] = {{g22 / det, -g12 / det}, {-g12 / det, g11 / det}};
    int dof[NCMAX];
    const int *fn = ms->face_node + (size_t)g->face * TVDS_FACE_MAX_NODES;
    for (int k = 0; k < 3; k++) {
        dof[k] = sd[k];
        for (int q = 0; q < nn; q++)
            dof[3 + 3 * q + k] = ms->fdof[3 * fn[q] + k];
    }
    /* dxi (2 x nc). */
    double Xi[2][NCMAX];
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 3; k++) {
            double h = Gi[j][0] * a[0][k] + Gi[j][1] * a[1][k];
            Xi[j][k] = h;
            for (int q = 0; q < nn; q++)
                Xi[j][3 + 3 * q + k] = -Nq[q] * h;
        }
    /* da_i (3 x nc), then dc, dn, dt, de per column. */
    const double *xij[2][2] = {{xx[0], xx[1]}, {xx[1], xx[2]}};
    double v[3] = {ms->v_rel[0], ms->v_rel[1], ms->v_rel[2]}, vn = sim_dot3(v, n), w2 = 0.0;
    for (int k = 0; k < 3; k++)
        w2 += (v[k] - vn * n[k]) * (v[k] - vn * n[k]);
    double kap = w2 > 0 ? vn / sqrt(w2) : 0.0, cm = chi * ms->mu;
    double e[3] = {n[0] - cm * t[0], n[1] - cm * t[1], n[2] - cm * t[2]};
    double De[3][NCMAX];
    for (int col = 0; col < nc; col++) {
        double da[2][3];
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++) {
                double x = xij[i][0][k] * Xi[0][col] + xij[i][1][k] * Xi[1][col];
                if (col >= 3 && (col - 3) % 3 == k) x += dN[2 * ((col - 3) / 3) + i];
                da[i][k] = x;
            }
        double c1[3], c2[3], dc[3], dn[3], dt[3];
        sim_cross3(da[0], a[1], c1);
        sim_cross3(a[0], da[1], c2);
        for (int k = 0; k < 3; k++)
            dc[k] = c1[k] + c2[k];
        double nd = sim_dot3(n, dc);
        for (int k = 0; k < 3; k++)
            dn[k] = (dc[k] - nd * n[k]) / cl;
        double tn = sim_dot3(t, dn);
        for (int k = 0; k < 3; k++)
            dt[k] = -n[k] * tn - kap * (dn[k] - tn * t[k]);
        for (int k = 0; k < 3; k++)
            De[k][col] = dn[k] - cm * dt[k];
    }
    for (int col = 0; col < nc; col++) {
        int jc = dof[col];
        for (int k = 0; k < 3; k++)
            Kt[(size_t)jc * N + dof[k]] += lambda * De[k][col]; /* -dF_C = lambda de */
        for (int q = 0; q < nn; q++) {
            double dNq = dN[2 * q] * Xi[0][col] + dN[2 * q + 1] * Xi[1][col];
            for (int k = 0; k < 3; k++)
                Kt[(size_t)jc * N + dof[3 + 3 * q + k]] -=
                    lambda * (e[k] * dNq + Nq[q] * De[k][col]);
        }
    }
}

const sim_master_type sim_master_faces3d = {
    .name = "faces3d",
    .prescribed = 0,
    .face_set = 1,
    .closest = faces_closest,
    .frame = faces_frame,
    .weights = faces_weights,
    .point = faces_point,
    .setup = faces_setup,
    .motion = faces_motion,
    .offsets = 0,
    .static_setup = faces_static_setup,
    .static_at = faces_static_at,
    .static_nodes = faces_static_nodes,
    .static_sep = faces_static_sep,
    .static_follow = faces_static_follow,
    .static_kg = faces_static_kg,
};
