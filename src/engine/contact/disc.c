/* disc.c — master kind: the face of a rigid disc rotating about its axis (docs/theory.md 3c).
 * The face is the plane through the centre C normal to the axis a (the contact normal); the
 * disc turns by theta(t) = integral of omega from 0, so its material point at r (from C, angle
 * 0) is at C + R(theta) r. A sliding slave touches the material point under it; a stuck slave
 * keeps its material point and is carried along the circle. */
#include <math.h>
#include <string.h>

#include "engine/contact/master.h"

/* Unit axis of the disc. */
static void disc_axis(const tvds_contact *C, double a[3])
{
    double l = sqrt(sim_dot3(C->rigid_normal, C->rigid_normal));
    for (int k = 0; k < 3; k++)
        a[k] = C->rigid_normal[k] / l;
}

/* v turned by angle th about the unit axis a (Rodrigues; v need not be normal to a). */
static void rotate(const double a[3], double th, const double v[3], double out[3])
{
    double c = cos(th), s = sin(th), axv[3], ad = sim_dot3(a, v);
    sim_cross3(a, v, axv);
    for (int k = 0; k < 3; k++)
        out[k] = v[k] * c + axv[k] * s + a[k] * ad * (1.0 - c);
}

static double disc_angle(const tvds_contact *C, double t)
{
    return tvds_fn_integral(&C->omega, 0.0, t);
}

static int disc_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                        double t, int keep, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    double a[3], r[3];
    disc_axis(C, a);
    double th = disc_angle(C, t);
    if (keep) {
        /* Stuck: the same material point, where the disc has carried it. */
        rotate(a, th, c->mref, r);
    } else {
        /* The point of the face under the slave, and the material point there. */
        for (int k = 0; k < 3; k++)
            r[k] = Q[k] - C->rigid_point[k];
        double h = sim_dot3(a, r);
        for (int k = 0; k < 3; k++)
            r[k] -= h * a[k];
        rotate(a, -th, r, c->mref);
    }
    for (int k = 0; k < 3; k++)
        c->mpt[k] = C->rigid_point[k] + r[k];
    c->seg = 0;
    c->alpha = 0.0;
    c->s = sqrt(sim_dot3(r, r)); /* the radius of the contact point */
    return TVDS_OK;
}

/* n = a; t1 along the face's motion for omega > 0 (a x r / |a x r|); t2 = n x t1 (toward the
 * centre). At the centre itself any direction in the face serves as t1. */
static void disc_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    const tvds_contact *C = &m->contacts[c->contact];
    double a[3], r[3], t1[3];
    disc_axis(C, a);
    for (int k = 0; k < 3; k++)
        r[k] = c->mpt[k] - C->rigid_point[k];
    sim_cross3(a, r, t1);
    double l = sqrt(sim_dot3(t1, t1));
    if (!(l > 1e-12 * (1.0 + sqrt(sim_dot3(r, r))))) {
        double e[3] = {fabs(a[0]) < 0.9 ? 1.0 : 0.0, fabs(a[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        sim_cross3(a, e, t1);
        l = sqrt(sim_dot3(t1, t1));
    }
    for (int k = 0; k < 3; k++) {
        c->n[k] = a[k];
        c->t[0][k] = t1[k] / l;
    }
    sim_cross3(c->n, c->t[0], c->t[1]);
}

static int disc_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                        int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    return 0; /* rigid: the master point moves by its prescribed motion only */
}

/* A point of the face plane: the centre (the plane does not move). */
static void disc_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                       double P[3], double Pm[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    for (int k = 0; k < 3; k++) {
        P[k] = C->rigid_point[k];
        Pm[k] = 0.0;
    }
}

/* The material point's displacement R(theta) r0 (up to a constant), its velocity omega a x q
 * and its acceleration alpha a x q + omega^2 a x (a x q), q = R(theta) r0. */
static void disc_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    double a[3], q[3], aq[3], aaq[3];
    disc_axis(C, a);
    rotate(a, disc_angle(C, t), c->mref, q);
    if (deriv == 0) {
        memcpy(out, q, sizeof q);
        return;
    }
    double w = tvds_fn_eval(&C->omega, t);
    sim_cross3(a, q, aq);
    if (deriv == 1) {
        for (int k = 0; k < 3; k++)
            out[k] = w * aq[k];
        return;
    }
    double al = tvds_fn_deriv(&C->omega, t, 1);
    sim_cross3(a, aq, aaq);
    for (int k = 0; k < 3; k++)
        out[k] = al * aq[k] + w * w * aaq[k];
}

/* ---- Set-up (master.h) ---- */

static int disc_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    double nn = 0.0;
    for (int a = 0; a < 3; a++)
        nn += C->rigid_normal[a] * C->rigid_normal[a];
    if (C->dim != 3 || !(nn > 0.0) || C->law == TVDS_LAW_PENALTY)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': a rotating disc needs dim 3, an axis and the "
                          "Lagrange law",
                          C->name ? C->name : "?");
    *ent = C->dim;
    return TVDS_OK;
}

/* ---- Static state (master.h) ---- */

/* Rotating rigid disc: the face through the centre normal to the axis; each node slides over
 * the material point under it (docs/cea.md, "Rotating disc"). */
static int disc_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                             const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    double nn =
        sqrt(c->rigid_normal[0] * c->rigid_normal[0] + c->rigid_normal[1] * c->rigid_normal[1] +
             c->rigid_normal[2] * c->rigid_normal[2]);
    if (!(nn > 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "cea: contact '%s': disc without axis",
                          c->name ? c->name : "?");
    ms->rigid = 1;
    for (int k = 0; k < 3; k++) {
        ms->rigid_n[k] = c->rigid_normal[k] / nn;
        ms->rigid_pt[k] = c->rigid_point[k];
    }
    ms->omega = tvds_fn_eval(&c->omega, t);
    return TVDS_OK;
}

/* Frame of a slave at x on the face, t along its velocity relative to the disc's material point
 * there; returns that speed (0: t is any direction of the face). The kind's static_slide. */
static double disc_frame_at(const sim_master_static *ms, const double x[3], sim_master_at *g)
{
    const double *a = ms->rigid_n;
    double r[3], ar[3], h = 0.0, wl = 0.0;
    for (int k = 0; k < 3; k++)
        r[k] = x[k] - ms->rigid_pt[k];
    for (int k = 0; k < 3; k++)
        h += a[k] * r[k];
    for (int k = 0; k < 3; k++)
        r[k] -= h * a[k];
    sim_cross3(a, r, ar);
    double w[3];
    for (int k = 0; k < 3; k++) {
        w[k] = ms->v_rel[k] - ms->omega * ar[k];
        g->n[k] = a[k];
    }
    double wn = sim_dot3(w, a);
    for (int k = 0; k < 3; k++) {
        w[k] -= wn * a[k];
        wl += w[k] * w[k];
    }
    wl = sqrt(wl);
    g->seg = -1;
    g->alpha = 0.0;
    g->len = 1.0;
    g->face = -1;
    if (!(wl > 0)) {
        double e[3] = {fabs(a[0]) < 0.9 ? 1.0 : 0.0, fabs(a[0]) < 0.9 ? 0.0 : 1.0, 0.0}, t[3];
        sim_cross3(a, e, t);
        double tl = sqrt(sim_dot3(t, t));
        for (int k = 0; k < 3; k++)
            g->t[k] = t[k] / tl;
        return 0.0;
    }
    for (int k = 0; k < 3; k++)
        g->t[k] = w[k] / wl;
    return wl;
}

/* The slave node at its undeformed position (positions are labels, as on a rigid plane),
 * placed on the face plane (g->xc). */
static int disc_static_at(const sim_master_static *ms, const double X[3], double s,
                          sim_master_at *g)
{
    const double *n = ms->rigid_n;
    double h = 0.0;
    for (int k = 0; k < 3; k++)
        h += n[k] * (X[k] - ms->rigid_pt[k]);
    for (int k = 0; k < 3; k++)
        g->xc[k] = X[k] - h * n[k];
    return disc_frame_at(ms, g->xc, g) > 0 ? SIM_AT_OK : SIM_AT_NO_SLIDING;
}

/* The material point under the displaced slave, its velocity, the sliding direction. */
static double disc_static_follow(const sim_master_static *ms, const double *u, const double Q[3],
                                 sim_master_at *g)
{
    sim_master_at ng = *g;
    disc_frame_at(ms, Q, &ng);
    double ch = fabs(ng.t[0] - g->t[0]) + fabs(ng.t[1] - g->t[1]) + fabs(ng.t[2] - g->t[2]);
    *g = ng;
    return ch;
}

/* Preload stiffness of one node on the rotating disc (docs/cea.md, "Rotating disc"): the
 * disc is rigid, but the sliding direction t = w / |w|, w = P (v_s - omega a x r), follows the
 * material point under the slave: dw = -omega P (a x du_C), and since (I - t t^T) P (a x du) =
 * b (t . du) with b = a x t, dt = -(omega / |w|) b (t . du_C). With F_C = -lambda e,
 * e = n - chi mu t: K_g = -dF_C/du_C = lambda chi mu (omega / |w|) b t^T on the slave's DoFs. */
static void disc_static_kg(const sim_master_static *ms, const sim_master_at *g, const int sd[3],
                           double lambda, double chi, const double *u, int N, double *Kt)
{
    double Q[3], b[3];
    for (int k = 0; k < 3; k++)
        Q[k] = g->xc[k] + u[sd[k]];
    sim_master_at h = *g;
    double wl = disc_frame_at(ms, Q, &h);
    if (!(wl > 0)) return;
    sim_cross3(ms->rigid_n, g->t, b);
    double c = lambda * chi * ms->mu * ms->omega / wl;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Kt[(size_t)sd[j] * N + sd[i]] += c * b[i] * g->t[j];
}

const sim_master_type sim_master_disc = {
    .name = "disc",
    .prescribed = 1,
    .closest = disc_closest,
    .frame = disc_frame,
    .weights = disc_weights,
    .point = disc_point,
    .setup = disc_setup,
    .motion = disc_motion,
    .offsets = 1,
    .static_setup = disc_static_setup,
    .static_at = disc_static_at,
    .static_follow = disc_static_follow,
    .static_kg = disc_static_kg,
    .static_slide = disc_frame_at,
};
