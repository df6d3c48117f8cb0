/* master.h — the master surfaces of contacts behind one small interface, chosen by a const
 * table (engine/contact/master.c) the way the contact methods are chosen (sim.c).
 *
 * A master kind answers four questions about the point P of the master that a slave point Q
 * touches: where it is (closest: the master parameters of P, and point: its position), how the
 * master is oriented there (frame: normal toward the slave, tangents), which master nodes carry
 * it (weights: P = sum N_k (X_k + u_k), the shape weights that enter the rows B_C and B_E), and
 * how it moves by prescribed motion beyond its nodes' DoFs (motion: a rigid master's
 * displacement, velocity and acceleration). The phases do the rest the same way for every kind:
 * detection (sim_contact.c), rows (sim_assemble.c), penalty forces (sim_penalty.c).
 *
 * To add a kind: a value in enum tvds_master_kind (include/tvds/tvds_model.h, before
 * TVDS_MASTER_KIND_COUNT); one file in this folder defining a const sim_master_type; its entry
 * in sim_masters (master.c); its keys in the case file (src/io/case_contact.c) and the set-up of
 * its nodes, if it has any (sim_data.c: d->mnodes_*). Entries per contact point are limited to
 * SIM_ROW_MAX_CP (sim_impl.h). docs/architecture.md walks through it. */
#ifndef TVDS_MASTER_H
#define TVDS_MASTER_H

#include "engine/sim_impl.h"

/* Configuration a master is looked at in: undeformed (X), predicted (X + u*, x_new) or current
 * (X + u_n, x; the penalty law at t_n). */
enum sim_conf { SIM_CONF_UNDEFORMED = 0, SIM_CONF_PREDICTED = 1, SIM_CONF_CURRENT = 2 };

/* Most master nodes that carry one master point (a 9-node face). */
#define SIM_MASTER_MAX_NODES 9

typedef struct sim_master_type {
    const char *name;
    /* 1 when the master moves by prescribed motion (motion() is not zero). */
    int prescribed;
    /* Closest point: the master parameters of the point nearest to the slave point Q (global
     * coordinates) in configuration conf at time t: c->seg, c->alpha and the curvilinear
     * coordinate c->s of the slave along the master. keep: the point is stuck, keep its
     * parameters. TVDS_ERR_CONTACT_LOST when Q is beyond the master. */
    int (*closest)(const tvds_model *m, tvds_data *d, sim_cp *c, int conf, const double Q[3],
                   double t, int keep, tvds_ctx *ctx);
    /* Local frame at the master point in configuration conf: unit normal c->n toward the slave
     * and unit tangents c->t[0 .. c->ntan-1]. */
    void (*frame)(const tvds_model *m, const tvds_data *d, sim_cp *c, int conf);
    /* Shape weights: the master nodes k (indices into the contact's master node list) carrying
     * the master point and their weights N_k; returns their number (0: none, a rigid master). */
    int (*weights)(const tvds_model *m, const tvds_data *d, const sim_cp *c,
                   int node[SIM_MASTER_MAX_NODES], double N[SIM_MASTER_MAX_NODES]);
    /* Position P of the master point at time t in configuration conf, and Pm, the magnitude of
     * the positions P is made of (the round-off scale of the gap). */
    void (*point)(const tvds_model *m, const tvds_data *d, const sim_cp *c, int conf, double t,
                  double P[3], double Pm[3]);
    /* Prescribed displacement of the master point (deriv 0) or its time derivative (deriv 1:
     * velocity, 2: acceleration) at time t, beyond the motion its nodes carry; zero when not
     * prescribed. */
    void (*motion)(const tvds_model *m, const sim_cp *c, double t, int deriv, double out[3]);
} sim_master_type;

/* Master node k of contact ic (index into its master node list) in configuration deformed
 * (enum sim_conf: X, X + u* or X + u_n), x-y components (segment2d.c). */
void sim_master_node_pos(const tvds_model *m, const tvds_data *d, int ic, int k, int deformed,
                         double P[2]);

/* A point on a deformable 2D segment master (segment2d.c): closest (searched in conf_search,
 * kept when keep), frame (in conf_frame) and point (predicted: Pc, Pm) in one call, each master
 * node read once per configuration; u1, u2: the predicted displacements of the segment's nodes
 * (x, y). The values of the kind's closest, frame and point, bit for bit. */
int sim_seg2d_geometry(const tvds_model *m, tvds_data *d, sim_cp *c, int conf_search,
                       int conf_frame, const double Q[3], double t, int keep, double Pc[3],
                       double Pm[3], double u1[2], double u2[2], tvds_ctx *ctx);

/* The kinds, indexed by enum tvds_master_kind. */
extern const sim_master_type *const sim_masters[TVDS_MASTER_KIND_COUNT];

extern const sim_master_type sim_master_segment2d;    /* segment2d.c */
extern const sim_master_type sim_master_rigid_plane;  /* rigid_plane.c */
extern const sim_master_type sim_master_segment2d_c1; /* segment2d_c1.c */
extern const sim_master_type sim_master_faces3d;      /* faces3d.c */
extern const sim_master_type sim_master_disc;         /* disc.c */

/* The type of the master of contact point c. */
static inline const sim_master_type *sim_master_of(const tvds_model *m, const sim_cp *c)
{
    return sim_masters[m->contacts[c->contact].master_kind];
}

#endif
