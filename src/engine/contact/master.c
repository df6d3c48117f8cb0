/* master.c — geometry of the master surfaces: node positions, segment search, rigid frame. */
#include <math.h>
#include <string.h>

#include "engine/sim_impl.h"

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(double a[3])
{
    double l = sqrt(dot3(a, a));
    if (l > 0.0)
        for (int k = 0; k < 3; k++)
            a[k] /= l;
}

/* Displacement of (sub, dof) from x_prev (which 2), x (0), x_new (1) or the velocities in tmp
 * (3); 0 for dof < 0. */
static double u_of(const tvds_data *d, int sub, int dof, int which)
{
    if (dof < 0) return 0.0;
    return sim_u(d, sub, dof, which);
}

/* Master node k position for the given geometry: undeformed (deformed = 0), X + u*
 * (deformed = 1) or X + u_n (deformed = 2, the penalty law at t_n). */
void sim_master_pos(const tvds_model *m, const tvds_data *d, int ic, int k, int deformed,
                    double P[2])
{
    const tvds_contact *C = &m->contacts[ic];
    const long *dd = d->mnodes_dofs[ic] + 3 * k;
    const double *X = d->mnodes_X[ic] + 3 * k;
    int which = deformed == 2 ? 0 : 1;
    for (int a = 0; a < 2; a++)
        P[a] = X[a] + (deformed ? u_of(d, C->master_sub, (int)dd[a], which) : 0.0);
}

/* Unit normal and tangents of a rigid master (t1 made orthogonal to n, t2 = n x t1). */
void sim_rigid_frame(const tvds_contact *C, double n[3], double t[2][3])
{
    double tt[3] = {0, 0, 0};
    n[0] = n[1] = n[2] = 0.0;
    for (int a = 0; a < C->dim; a++) {
        n[a] = C->rigid_normal[a];
        tt[a] = C->rigid_t1[a];
    }
    normalize3(n);
    double tn = dot3(tt, n);
    for (int a = 0; a < 3; a++)
        tt[a] -= tn * n[a];
    normalize3(tt);
    memcpy(t[0], tt, sizeof tt);
    t[1][0] = n[1] * tt[2] - n[2] * tt[1];
    t[1][1] = n[2] * tt[0] - n[0] * tt[2];
    t[1][2] = n[0] * tt[1] - n[1] * tt[0];
}

static double seg_alpha(const double P1[2], const double P2[2], const double Q[2])
{
    double ex = P2[0] - P1[0], ey = P2[1] - P1[1];
    return ((Q[0] - P1[0]) * ex + (Q[1] - P1[1]) * ey) / (ex * ex + ey * ey);
}

/* Follow the slave point Q along the master surface from segment *seg. */
int sim_surface_search(const tvds_model *m, tvds_data *d, sim_cp *c, int deformed,
                       const double Q[2], double t, tvds_ctx *ctx)
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
            sim_master_pos(m, d, c->contact, sg, deformed, P1);
            sim_master_pos(m, d, c->contact, sg + 1, deformed, P2);
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
        sim_master_pos(m, d, c->contact, c->seg, deformed, P1);
        sim_master_pos(m, d, c->contact, c->seg + 1, deformed, P2);
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
    return TVDS_OK;
}
