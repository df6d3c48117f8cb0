/* master.h — the master surfaces of contacts behind one small interface, chosen by a const
 * table (engine/contact/master.c) the way the contact methods are chosen (sim.c).
 *
 * A master kind answers four questions about the point P of the master that a slave point Q
 * touches: where it is (closest: the master parameters of P, and point: its position), how the
 * master is oriented there (frame: normal toward the slave, tangents), which master nodes carry
 * it (weights: P = sum N_k (X_k + u_k), the shape weights that enter the rows B_C and B_E), and
 * how it moves by prescribed motion beyond its nodes' DoFs (motion: a rigid master's
 * displacement, velocity and acceleration). It checks its contact and marks its master DoFs at
 * set-up (setup). The phases do the rest the same way for every kind: set-up (sim_data.c),
 * detection (sim_contact.c), rows (sim_assemble.c), penalty forces (sim_penalty.c). For the CEA
 * (src/analysis/cea.c) it describes itself in the undeformed state (static_setup) and gives the
 * master point, frame and weights of a slave node at a position (static_at).
 *
 * To add a kind: a value in enum tvds_master_kind (include/tvds/tvds_model.h, before
 * TVDS_MASTER_KIND_COUNT); one file in this folder defining a const sim_master_type; its entry
 * in sim_masters (master.c); its keys in the case file (src/io/case_contact.c) and the set-up of
 * its nodes, if it has any (sim_data.c: d->mnodes_*). A kind defined outside this folder takes
 * a slot with sim_master_register. Entries per contact point are limited to SIM_ROW_MAX_CP
 * (sim_impl.h). docs/architecture.md walks through it. */
#ifndef TVDS_MASTER_H
#define TVDS_MASTER_H

#include "engine/sim_impl.h"

/* Configuration a master is looked at in: undeformed (X), predicted (X + u*, x_new) or current
 * (X + u_n, x; the penalty law at t_n). */
enum sim_conf { SIM_CONF_UNDEFORMED = 0, SIM_CONF_PREDICTED = 1, SIM_CONF_CURRENT = 2 };

/* Most master nodes that carry one master point (a 9-node face). */
#define SIM_MASTER_MAX_NODES 9

/* A master as an analysis about a steady sliding state sees it (the CEA, src/analysis/cea.c):
 * undeformed, its nodes' global DoFs, filled by the kind's static_setup. Fields a kind does not
 * use stay zero. */
typedef struct sim_master_static {
    const struct sim_master_type *type;
    int ncomp;                     /* components per node: 2 (x-y plane) or 3 */
    int rigid;                     /* 1: no nodes, the master moves by prescribed motion only */
    int smooth;                    /* 1: C1 master curve (segment2d_c1.c) */
    int faces;                     /* 1: face set (faces3d.c) */
    int nmaster;                   /* master nodes */
    int *master_dof;               /* 2D nodes: nmaster x 2 global x, y DoFs */
    double *master_xy;             /* 2D nodes: nmaster x 2 undeformed coordinates [m] */
    double *cum;                   /* 2D nodes: nmaster curvilinear abscissae [m] */
    double rigid_n[3], rigid_t[3]; /* rigid: unit normal; tangent (3D: sliding direction) */
    double rigid_pt[3], omega;     /* disc: centre, angular speed at the evaluation time */
    int nface;                     /* face set: faces, nodes per face, node indices (9 a face) */
    const int *face_nn, *face_node;
    int *fdof;        /* face set: nmaster x 3 global x, y, z DoFs */
    double *fX;       /* face set: nmaster x 3 undeformed coordinates [m] */
    double fsize;     /* face set: largest face diagonal [m] (tolerances) */
    double drive[3];  /* face set: unit direction of the slave's travel (positions along it) */
    double v_rel[3];  /* sliding velocity of the slave relative to the master [m/s] */
    double mu;        /* kinetic friction coefficient (a sliding direction is needed when != 0) */
    double gap_scale; /* > 0: the length gaps are measured in (else the segment's, g->len) */
    double length;    /* > 0: positions are arc lengths on [0, length] of the master */
    double extent;    /* > 0: the master's extent along the positions [m] (default spacing) */
} sim_master_static;

/* The master point of a slave node at one position in the static state: frame, the master
 * nodes carrying it and their weights. */
typedef struct sim_master_at {
    int seg;           /* segment (2D nodes; -1 otherwise) and the weight alpha of its */
    double alpha;      /* second node */
    double n[3], t[3]; /* unit normal toward the slave; sliding tangent (chi = +1 on 3D
                          masters, the master tangent in 2D) */
    double len;        /* segment length [m] (1 without segments) */
    double wgt[2];     /* 2D nodes: shares of the segment's nodes */
    int face, nn;      /* face set: face (-1: off), its nodes */
    int face_prev;     /* face set: the face before the last change of face (-1: none) */
    int pin;           /* face set: 1 when the point alternated between two faces over their
                          common edge or corner and is kept on the lower-numbered one */
    double xi[2], N[SIM_MASTER_MAX_NODES]; /* face set: natural coordinates, shape functions */
    double xc[3];                          /* slave placed on the surface [m] (3D masters) */
} sim_master_at;

/* Outcomes of static_at. */
enum { SIM_AT_OK = 0, SIM_AT_OFF = 1, SIM_AT_NO_NORMAL = 2, SIM_AT_NO_SLIDING = 3 };

typedef struct sim_master_type {
    const char *name;
    /* 1 when the master moves by prescribed motion (motion() is not zero). */
    int prescribed;
    /* 1 when the master is a face set (set-up builds its face topology, sim_data.c). */
    int face_set;
    /* Set-up (sim_data.c): checks contact ic, marks the master DoFs a row can touch as
     * candidates (sim_mark_cand) and sets *ent, the most entries of one of its rows (the slave
     * and the master nodes). */
    int (*setup)(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx);
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
    /* The rotation R (row-major 3 x 3) from the components of the master nodes' DoFs to the
     * global frame, at the time of the last closest() (a master that turns: docs/theory.md 3d);
     * a row's entry on master DoF component j for global component i is then -N_k R_ij. NULL:
     * the identity. */
    void (*node_frame)(const tvds_model *m, const sim_cp *c, double R[9]);

    /* ---- Analyses about a steady sliding state (the CEA) ---- */
    /* 1: several slave nodes keep their offsets along the master (positions are arc lengths). */
    int offsets;
    /* Checks contact ic and fills ms (the undeformed master, its nodes' global DoFs: off[sub] is
     * the first global DoF of substructure sub) at time t, the slave moving at vs; vm: the
     * master's own velocity there (zero unless it moves). */
    int (*static_setup)(const tvds_model *m, int ic, double t, const double vs[3], const int *off,
                        sim_master_static *ms, double vm[3], tvds_ctx *ctx);
    /* The master point of a slave node with undeformed position X at position s (arc length on
     * 2D node masters, distance along the drive on a face set, unused on rigid ones) in the
     * undeformed state. Returns SIM_AT_*. */
    int (*static_at)(const sim_master_static *ms, const double X[3], double s, sim_master_at *g);
    /* The master nodes carrying the point of g (its segment or face) and their weights in the
     * rows: their global DoFs dof[q][0 .. ncomp-1]; returns their number. NULL: no nodes. */
    int (*static_nodes)(const sim_master_static *ms, const sim_master_at *g,
                        int dof[SIM_MASTER_MAX_NODES][3], double w[SIM_MASTER_MAX_NODES]);
    /* Places the slave on the undeformed master at g's parameters (g->xc). NULL: static_at
     * places it. */
    void (*static_place)(const sim_master_static *ms, sim_master_at *g);
    /* r = Q - P, P the master point at g's parameters on the positions X + u (u NULL: X).
     * NULL: no nodes (the slave is placed on the master, r = 0). */
    void (*static_sep)(const sim_master_static *ms, const double *u, const sim_master_at *g,
                       const double Q[3], double r[3]);
    /* g followed to the displaced slave Q on the positions X + u (the static state's
     * iteration): returns the change of its parameters and frame, or -1 (no normal or sliding
     * direction: g unchanged). NULL: the geometry does not move (a rigid plane). */
    double (*static_follow)(const sim_master_static *ms, const double *u, const double Q[3],
                            sim_master_at *g);
    /* Preload stiffness of a node at g pressed with multiplier lambda (< 0 pressing; sliding
     * sign chi; slave DoFs sd; static displacement u, NULL on the one-node 2D path) added to
     * Kt (N x N, column-major): K_g = -dF/du of the contact force turning with the master
     * (docs/cea.md). NULL: none (a rigid plane). */
    void (*static_kg)(const sim_master_static *ms, const sim_master_at *g, const int sd[3],
                      double lambda, double chi, const double *u, int N, double *Kt);
    /* A sliding direction that differs from node to node (a rotating master: the slave's
     * velocity relative to the material point under it): g's frame at the slave position x (n,
     * and t along that relative velocity, chi = +1) and that speed (0: t is any direction of
     * the face). Every node then takes the general static state. NULL: one sliding direction
     * for every node, along ms->v_rel. */
    double (*static_slide)(const sim_master_static *ms, const double x[3], sim_master_at *g);
} sim_master_type;

/* Makes DoF dof of s a candidate of the contact rows. */
static inline void sim_mark_cand(sim_sub *s, int dof)
{
    if (dof >= 0 && dof < s->n && s->cand[dof] < 0) s->cand[dof] = s->ncand++;
}

int sim_seg2d_setup(const tvds_model *m, tvds_data *d, int ic, int *ent, tvds_ctx *ctx);

/* Global DoFs (off[sub] + local) and undeformed coordinates (xyz: NULL to skip) of the first
 * ncomp components of node `node` of substructure sub; what/cname name it in errors. */
int sim_master_node_dofs(const tvds_model *m, int sub, long node, int ncomp, const int *off,
                         int *dof, double *xyz, const char *what, const char *cname, tvds_ctx *ctx);

/* The 2D node masters' static state (segment2d.c, shared by segment2d_c1.c): set-up, and the
 * segment, weights and row nodes at arc length s. */
int sim_seg2d_static_setup(const tvds_model *m, int ic, double t, const double vs[3],
                           const int *off, sim_master_static *ms, double vm[3], tvds_ctx *ctx);
void sim_seg2d_static_locate(const sim_master_static *ms, double s, sim_master_at *g);
int sim_seg2d_static_nodes(const sim_master_static *ms, const sim_master_at *g,
                           int dof[SIM_MASTER_MAX_NODES][3], double w[SIM_MASTER_MAX_NODES]);
void sim_seg2d_static_place(const sim_master_static *ms, sim_master_at *g);
void sim_seg2d_static_sep(const sim_master_static *ms, const double *u, const sim_master_at *g,
                          const double Q[3], double r[3]);
double sim_seg2d_static_follow(const sim_master_static *ms, const double *u, const double Q[3],
                               sim_master_at *g);
void sim_seg2d_static_kg(const sim_master_static *ms, const sim_master_at *g, const int sd[3],
                         double lambda, double chi, const double *u, int N, double *Kt);

/* Node positions of face f of the face-set master of contact ic in the run (nn x 3): X
 * (deformed = SIM_CONF_UNDEFORMED), X + u* (SIM_CONF_PREDICTED) or X + u_n (SIM_CONF_CURRENT),
 * in the master substructure's own frame. Returns the number of nodes (faces3d.c). */
int sim_faces3d_nodes(const tvds_model *m, const tvds_data *d, int ic, int f, int deformed,
                      double *P);

/* Face set (faces3d.c): node positions of face f, X + u (u: NULL, undeformed), returns its node
 * count; closest face of Q (cur first; *valid = 0 when none holds Q's projection); shape
 * functions, normal and sliding direction at g->face, g->xi (SIM_AT_*). */
int sim_faces_pos(const sim_master_static *ms, int f, const double *u, double *P);
int sim_faces_pick(const sim_master_static *ms, const double *u, const double Q[3], int cur,
                   double xi[2], int *valid);
int sim_faces_fill(const sim_master_static *ms, const double *u, sim_master_at *g);

/* Releases what static_setup allocated (static.c). */
void sim_master_static_free(sim_master_static *ms);

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

/* The kinds, indexed by enum tvds_master_kind, then the registered ones (sim_master_register). */
#define SIM_MASTER_SLOTS (TVDS_MASTER_KIND_COUNT + 4)
extern const sim_master_type *sim_masters[SIM_MASTER_SLOTS];

/* Adds kind t to the table for this process (a kind defined outside this folder, such as a
 * test's): returns the master_kind value its contacts take, or -1 when the slots are full.
 * Call it before any model uses the kind; not thread-safe. */
int sim_master_register(const sim_master_type *t);

extern const sim_master_type sim_master_segment2d;    /* segment2d.c */
extern const sim_master_type sim_master_rigid_plane;  /* rigid_plane.c */
extern const sim_master_type sim_master_segment2d_c1; /* segment2d_c1.c */
extern const sim_master_type sim_master_faces3d;      /* faces3d.c */
extern const sim_master_type sim_master_disc;         /* disc.c */
extern const sim_master_type sim_master_faces_rot;    /* faces_rot.c */

/* The type of the master of contact point c. */
static inline const sim_master_type *sim_master_of(const tvds_model *m, const sim_cp *c)
{
    return sim_masters[m->contacts[c->contact].master_kind];
}

#endif
