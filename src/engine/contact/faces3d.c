/* faces3d.c — master kind: a 3D face set of a substructure (3-, 4-, 6-, 8- and 9-node faces,
 * docs/theory.md 3b). The master point is sum N_k(xi) (X_k + u_k) on face c->seg at natural
 * coordinates c->xi; the slave walks over the faces across edges and corners. */
#include <math.h>
#include <string.h>

#include "engine/contact/face.h"
#include "engine/contact/master.h"

/* Node positions of face f of a face-set master (nn x 3), undeformed (deformed = 0), X + u*
 * (1) or X + u_n (2). Returns the number of nodes. */
static int face_nodes_pos(const tvds_model *m, const tvds_data *d, int ic, int f, int deformed,
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
    int nn = face_nodes_pos(m, d, c->contact, f, deformed, P);
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
    int nn = face_nodes_pos(m, d, c->contact, c->seg, conf, P);
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
    int nn = face_nodes_pos(m, d, c->contact, c->seg, conf, X);
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

const sim_master_type sim_master_faces3d = {
    "faces3d", 0, faces_closest, faces_frame, faces_weights, faces_point, faces_motion,
};
