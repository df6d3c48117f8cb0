/* rigid_plane.c — master kind: a rigid line (2D) or plane (3D) through rigid_point with normal
 * rigid_normal and first tangent rigid_t1, translated by the prescribed rigid_motion(t). */
#include <math.h>
#include <string.h>

#include "engine/contact/master.h"

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

/* Unit normal and tangents of a rigid master (t1 made orthogonal to n, t2 = n x t1). */
static void rigid_frame(const tvds_contact *C, double n[3], double t[2][3])
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

static void rigid_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf,
                        double t, double P[3], double Pm[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    for (int a = 0; a < 3; a++)
        P[a] = Pm[a] = 0.0;
    for (int a = 0; a < C->dim; a++)
        P[a] = C->rigid_point[a] + tvds_fn_eval(&C->rigid_motion[a], t);
}

static int rigid_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                         double t, int keep, tvds_ctx *ctx)
{
    double n[3], tt[2][3], P[3], Pm[3], rq[3];
    rigid_frame(&m->contacts[c->contact], n, tt);
    rigid_point(m, d, c, conf, t, P, Pm);
    for (int a = 0; a < 3; a++)
        rq[a] = Q[a] - P[a];
    c->seg = 0;
    c->alpha = 0.0;
    c->s = dot3(tt[0], rq);
    return TVDS_OK;
}

static void rigid_frame_of(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    rigid_frame(&m->contacts[c->contact], c->n, c->t);
}

static int rigid_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                         int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    return 0; /* no nodes: the master point moves by its prescribed motion only */
}

static void rigid_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    out[0] = out[1] = out[2] = 0.0;
    for (int a = 0; a < C->dim; a++)
        out[a] = deriv == 0 ? tvds_fn_eval(&C->rigid_motion[a], t)
                            : tvds_fn_deriv(&C->rigid_motion[a], t, deriv);
}

/* ---- Set-up (master.h) ---- */

static int rigid_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    double nn = 0.0, tt = 0.0;
    for (int a = 0; a < C->dim; a++) {
        nn += C->rigid_normal[a] * C->rigid_normal[a];
        tt += C->rigid_t1[a] * C->rigid_t1[a];
    }
    if (!(nn > 0.0) || !(tt > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': rigid master needs a normal and a tangent",
                          C->name ? C->name : "?");
    *ent = C->dim;
    return TVDS_OK;
}

/* ---- Static state (master.h) ---- */

static int rigid_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                              const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    const tvds_contact *c = &m->contacts[ic];
    const char *cname = c->name ? c->name : "?";
    ms->rigid = 1;
    if (ms->ncomp == 3) {
        /* Rigid plane in 3D: the friction acts along the sliding direction, the relative
         * velocity projected on the tangent plane (docs/cea.md, "Several contact nodes"). */
        double nn =
            sqrt(c->rigid_normal[0] * c->rigid_normal[0] + c->rigid_normal[1] * c->rigid_normal[1] +
                 c->rigid_normal[2] * c->rigid_normal[2]);
        if (!(nn > 0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': rigid plane without normal", cname);
        for (int k = 0; k < 3; k++) {
            ms->rigid_n[k] = c->rigid_normal[k] / nn;
            vm[k] = tvds_fn_deriv(&c->rigid_motion[k], t, 1);
        }
        double v[3], vn = 0.0, vt = 0.0;
        for (int k = 0; k < 3; k++)
            vn += (vs[k] - vm[k]) * ms->rigid_n[k];
        for (int k = 0; k < 3; k++) {
            v[k] = vs[k] - vm[k] - vn * ms->rigid_n[k];
            vt += v[k] * v[k];
        }
        vt = sqrt(vt);
        if (!(vt > 0) && c->mu_k != 0.0)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                              "cea: contact '%s': no sliding velocity in the tangent plane at t = "
                              "%g (slave_kin, imposed motions of the slave substructure and rigid "
                              "master motion): the 3D sliding direction is undetermined",
                              cname, t);
        for (int k = 0; k < 3; k++)
            ms->rigid_t[k] = vt > 0 ? v[k] / vt : 0.0;
        return TVDS_OK;
    }
    double nn = hypot(c->rigid_normal[0], c->rigid_normal[1]);
    double tn = hypot(c->rigid_t1[0], c->rigid_t1[1]);
    if (!(nn > 0) || !(tn > 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "cea: contact '%s': rigid master without normal or tangent", cname);
    for (int k = 0; k < 2; k++) {
        ms->rigid_n[k] = c->rigid_normal[k] / nn;
        ms->rigid_t[k] = c->rigid_t1[k] / tn;
        vm[k] = tvds_fn_deriv(&c->rigid_motion[k], t, 1);
    }
    return TVDS_OK;
}

/* The plane's frame wherever the slave is (positions are labels). */
static int rigid_static_at(const sim_master_static *ms, const double X[3], double s,
                           sim_master_at *g)
{
    g->seg = -1;
    g->alpha = 0.0;
    g->len = 1.0;
    g->face = -1;
    for (int k = 0; k < 3; k++) {
        g->n[k] = ms->rigid_n[k];
        g->t[k] = ms->rigid_t[k];
    }
    return SIM_AT_OK;
}

const sim_master_type sim_master_rigid_plane = {
    .name = "rigid_plane",
    .prescribed = 1,
    .closest = rigid_closest,
    .frame = rigid_frame_of,
    .weights = rigid_weights,
    .point = rigid_point,
    .setup = rigid_setup,
    .motion = rigid_motion,
    .offsets = 0,
    .static_setup = rigid_static_setup,
    .static_at = rigid_static_at,
};
