/* faces_rot.c — master kind: the face set of a substructure that turns rigidly about an axis
 * with a prescribed angular speed, elastic in its own frame (a brake disc; docs/theory.md 3d).
 * The substructure's coordinates and DoFs are in its own (body) frame; at angle theta(t) (the
 * exact integral of omega) its material point X + u is at C + R(theta) (X + u - C). The search,
 * the face walk and the frame are those of a face set (faces3d.c) applied to the slave's image
 * in the body frame; the frame and the point are turned back to the global frame, and the rows'
 * entries on the master nodes carry R (node_frame). A stuck point keeps its material point, which
 * the rotation carries along: the chord of its motion over the step is the prescribed part. */
#include <math.h>
#include <string.h>

#include "engine/contact/face.h"
#include "engine/contact/master.h"

static void unit_axis(const tvds_contact *C, double a[3])
{
    double l = sqrt(sim_dot3(C->rigid_normal, C->rigid_normal));
    for (int k = 0; k < 3; k++)
        a[k] = C->rigid_normal[k] / l;
}

/* R(theta) about the unit axis a, row-major (Rodrigues: c I + s [a]x + (1 - c) a a^T). The
 * components of a zero axis component stay exactly zero off the axis' plane, so an axis along x,
 * y or z gives a matrix with four exact zeros. */
static void rot_matrix(const double a[3], double th, double R[9])
{
    double c = cos(th), s = sin(th), v = 1.0 - c;
    R[0] = c + v * a[0] * a[0];
    R[1] = v * a[0] * a[1] - s * a[2];
    R[2] = v * a[0] * a[2] + s * a[1];
    R[3] = v * a[1] * a[0] + s * a[2];
    R[4] = c + v * a[1] * a[1];
    R[5] = v * a[1] * a[2] - s * a[0];
    R[6] = v * a[2] * a[0] - s * a[1];
    R[7] = v * a[2] * a[1] + s * a[0];
    R[8] = c + v * a[2] * a[2];
}

static void rot_apply(const double R[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static void rot_apply_t(const double R[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}

static void rot_at(const tvds_contact *C, double th, double R[9])
{
    double a[3];
    unit_axis(C, a);
    rot_matrix(a, th, R);
}

/* The master point of c's face at its natural coordinates in configuration conf, body frame. */
static void body_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf,
                       double P[3], double Pm[3])
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

/* The closest point of the slave's body-frame image Q_b = C + R^T (Q - C); then the material
 * point it touches, from the centre in the body frame on X + u_n (mref: the chord's base). */
static int rot_closest(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                       double t, int keep, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[c->contact];
    double R[9], r[3], Qb[3];
    c->mth = tvds_fn_integral(&C->omega, 0.0, t);
    rot_at(C, c->mth, R);
    for (int k = 0; k < 3; k++)
        r[k] = Q[k] - C->rigid_point[k];
    rot_apply_t(R, r, Qb);
    for (int k = 0; k < 3; k++)
        Qb[k] += C->rigid_point[k];
    int rc = sim_master_faces3d.closest(m, d, c, conf, Qb, t, keep, ctx);
    if (rc) return rc;
    double P0[3], Pm0[3];
    body_point(m, d, c, SIM_CONF_CURRENT, P0, Pm0);
    for (int k = 0; k < 3; k++)
        c->mref[k] = P0[k] - C->rigid_point[k];
    return TVDS_OK;
}

/* The face's frame in the body frame, turned to the global frame. A collapsed face keeps the
 * last frame (the run then diverges and says so). */
static void rot_frame(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf)
{
    double P[3 * FACE_MAX_NODES], n[3], t1[3], t2[3], R[9];
    int nn = sim_faces3d_nodes(m, d, c->contact, c->seg, conf, P);
    if (face_frame(nn, P, c->xi, n, t1, t2) != 0) return;
    rot_at(&m->contacts[c->contact], c->mth, R);
    rot_apply(R, n, c->n);
    rot_apply(R, t1, c->t[0]);
    rot_apply(R, t2, c->t[1]);
}

/* C + R(theta(t)) (P_b - C), and the magnitudes of what it is made of. */
static void rot_point(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                      double P[3], double Pm[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    double Pb[3], Pmb[3], R[9], r[3];
    body_point(m, d, c, conf, Pb, Pmb);
    rot_at(C, tvds_fn_integral(&C->omega, 0.0, t), R);
    for (int k = 0; k < 3; k++)
        r[k] = Pb[k] - C->rigid_point[k];
    rot_apply(R, r, P);
    for (int i = 0; i < 3; i++) {
        P[i] += C->rigid_point[i];
        Pm[i] = fabs(C->rigid_point[i]);
        for (int j = 0; j < 3; j++)
            Pm[i] += fabs(R[3 * i + j]) * (Pmb[j] + fabs(C->rigid_point[j]));
    }
}

/* The touched material point carried by the rotation: R(theta(t)) mref (up to a constant), its
 * velocity omega a x q and acceleration alpha a x q + omega^2 a x (a x q). */
static void rot_motion(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3])
{
    const tvds_contact *C = &m->contacts[c->contact];
    double a[3], R[9], q[3], aq[3], aaq[3];
    unit_axis(C, a);
    rot_matrix(a, tvds_fn_integral(&C->omega, 0.0, t), R);
    rot_apply(R, c->mref, q);
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

static int rot_weights(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                       int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES])
{
    return sim_master_faces3d.weights(m, d, c, node, N);
}

static void rot_node_frame(const tvds_model *m, const sim_cp *c, double R[9])
{
    rot_at(&m->contacts[c->contact], c->mth, R);
}

/* The face set's checks and master DoFs, then the axis; a row holds the slave's 3 entries and,
 * per face node, the nonzero entries of R: 5 for an axis along x, y or z, 9 otherwise. */
static int rot_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx)
{
    const tvds_contact *C = &m->contacts[ic];
    const char *cn = C->name ? C->name : "?";
    int rc = sim_master_faces3d.setup(m, d, ic, ent, ctx);
    if (rc) return rc;
    double nn = sim_dot3(C->rigid_normal, C->rigid_normal);
    if (!(nn > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': a turning face set needs its axis (normal)", cn);
    int zeros =
        (C->rigid_normal[0] == 0.0) + (C->rigid_normal[1] == 0.0) + (C->rigid_normal[2] == 0.0);
    int per = zeros == 2 ? 5 : 9, nmax = (*ent - 3) / 3;
    *ent = 3 + per * nmax;
    if (*ent > SIM_ROW_MAX_CP)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact '%s': a turning face set of %d-node faces needs its axis "
                          "along x, y or z (a row then has %d entries; %d are allowed)",
                          cn, nmax, 3 + 5 * nmax, SIM_ROW_MAX_CP);
    return TVDS_OK;
}

/* The CEA of a turning face set (its frozen form, docs/theory.md 3d) is not built yet: said
 * before any work. */
static int rot_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                            const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx)
{
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                      "cea: contact '%s': the complex eigenvalues of a turning face set "
                      "(master = SUB:FACESET with omega) are not available; run the CEA with "
                      "the face set at rest (omega removed) and the pads driven along it",
                      m->contacts[ic].name ? m->contacts[ic].name : "?");
}

const sim_master_type sim_master_faces_rot = {
    .name = "faces_rot",
    .prescribed = 1,
    .face_set = 1,
    .closest = rot_closest,
    .frame = rot_frame,
    .weights = rot_weights,
    .point = rot_point,
    .setup = rot_setup,
    .motion = rot_motion,
    .node_frame = rot_node_frame,
    .static_setup = rot_static_setup,
};
