/* tvds_model.h — the constant description of a problem: substructures, couplings, loads,
 * discrete elements, probes and run options. The case-file parser fills it; the engine reads it
 * and never writes it during a run. A tvds_model owns every pointer inside it. */
#ifndef TVDS_MODEL_H
#define TVDS_MODEL_H

#include "tvds/tvds.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Substructures ------------------------------------------------------------------------ */

enum tvds_dof_kind { TVDS_DOF_PHYSICAL = 0, TVDS_DOF_MODAL = 1 };

/* Directions of physical DoFs. */
enum tvds_dir {
    TVDS_DIR_NONE = -1,
    TVDS_DIR_X = 0,
    TVDS_DIR_Y = 1,
    TVDS_DIR_Z = 2,
    TVDS_DIR_RX = 3,
    TVDS_DIR_RY = 4,
    TVDS_DIR_RZ = 5
};

/* Label of one reduced DoF. */
typedef struct tvds_dof {
    int kind;       /* enum tvds_dof_kind */
    long node;      /* physical: node id; modal: mode index, 1-based */
    int dir;        /* physical: enum tvds_dir; modal: TVDS_DIR_NONE */
    double xyz[3];  /* physical: undeformed coordinates of the node [m] */
    double freq_hz; /* modal: fixed-interface eigenfrequency [Hz], 0 when unknown */
} tvds_dof;

/* A named, ordered set of node ids (a master surface is an ordered node set). */
typedef struct tvds_nodeset {
    char *name;
    int n;
    long *nodes; /* n, in surface order */
} tvds_nodeset;

/* Largest number of nodes of one face of a face set (9-node quadrilateral). */
#define TVDS_FACE_MAX_NODES 9

/* A named set of faces (a 3D master surface): triangles of 3 or 6 nodes, quadrilaterals of 4,
 * 8 or 9. Corners counter-clockwise seen from the side the contact normal points to, then the
 * midside nodes (edge 1-2 first), then the centre node (docs/formats.md, sets.txt). */
typedef struct tvds_faceset {
    char *name;
    int nface;
    int *nn;     /* nface: nodes of each face (3, 4, 6, 8 or 9) */
    long *nodes; /* nface x TVDS_FACE_MAX_NODES: node ids of face f at [9 f, 9 f + nn[f]) */
} tvds_faceset;

/* Recovery row: physical displacement of an interior point from the reduced DoFs,
 * u_point = row . u. */
typedef struct tvds_recovery {
    char *name;
    long node;     /* node id in the full model, or 0 */
    int dir;       /* enum tvds_dir */
    double xyz[3]; /* undeformed coordinates [m] */
    double *row;   /* n */
} tvds_recovery;

/* A reduced substructure: dense matrices (reduced models are small) and its DoF table. */
typedef struct tvds_substructure {
    char *name;
    char *path; /* directory it was read from, or NULL */
    int n;
    double *M;      /* n x n, column-major, symmetric positive definite */
    double *K;      /* n x n, column-major, symmetric */
    double *C;      /* n x n, column-major, or NULL (then damping comes from the case) */
    tvds_dof *dofs; /* n */
    int nsets;
    tvds_nodeset *sets; /* nsets */
    int nfsets;
    tvds_faceset *fsets; /* nfsets: face sets (3D master surfaces) */
    int nrec;
    tvds_recovery *rec; /* nrec */
} tvds_substructure;

/* ---- Time functions ----------------------------------------------------------------------- */

enum tvds_fn_kind {
    TVDS_FN_CONST = 0,   /* amp */
    TVDS_FN_RAMP,        /* amp * clamp((t - t0) / (t1 - t0), 0, 1) */
    TVDS_FN_SMOOTH_RAMP, /* amp * s(x), s(x) = x - sin(2 pi x) / (2 pi), x clamped to [0,1]:
                            zero slope and curvature at both ends */
    TVDS_FN_HARMONIC,    /* amp * sin(2 pi freq t + phase) */
    TVDS_FN_TABLE        /* piecewise linear through (tab_t[i], tab_v[i]), constant outside */
};

typedef struct tvds_fn {
    int kind;      /* enum tvds_fn_kind */
    double amp;    /* amplitude (units of the quantity it scales) */
    double t0, t1; /* ramps: start and end [s] */
    double freq;   /* harmonic: frequency [Hz] */
    double phase;  /* harmonic: phase [rad] */
    double offset; /* added to every kind */
    int ntab;
    double *tab_t, *tab_v; /* ntab each, tab_t strictly increasing */
} tvds_fn;

/* Value and first two time derivatives of f at t. NULL f means the constant 0. */
TVDS_API double tvds_fn_eval(const tvds_fn *f, double t);
TVDS_API double tvds_fn_deriv(const tvds_fn *f, double t, int order);
/* tvds_fn_eval for a caller that steps through time: *hint keeps the table segment of the
 * last call (start it at 0; other kinds leave it alone), tried with the next one before the
 * binary search. The same value as tvds_fn_eval. */
TVDS_API double tvds_fn_eval_hint(const tvds_fn *f, double t, int *hint);
/* Exact integral of f from ta to tb (NULL f: 0). A rotating master's angle is the integral of
 * its angular speed from 0. */
TVDS_API double tvds_fn_integral(const tvds_fn *f, double ta, double tb);

/* ---- Damping ------------------------------------------------------------------------------ */

enum tvds_damping_kind {
    TVDS_DAMP_NONE = 0,
    TVDS_DAMP_RAYLEIGH, /* C = alpha(t) M + beta(t) K */
    TVDS_DAMP_MATRIX    /* the substructure's C matrix */
};

/* Rayleigh damping with the paper's schedule: (alpha0, beta0) until t_hold, then a smooth
 * (cycloidal) transition to (alpha, beta) over t_ramp. t_hold = t_ramp = 0: constant. */
typedef struct tvds_damping {
    int kind;             /* enum tvds_damping_kind */
    double alpha, beta;   /* final values [1/s], [s] */
    double alpha0, beta0; /* initial values */
    double t_hold, t_ramp;
} tvds_damping;

/* alpha(t), beta(t) of a schedule. */
TVDS_API void tvds_damping_at(const tvds_damping *d, double t, double *alpha, double *beta);

/* ---- Couplings ---------------------------------------------------------------------------- */

/* One term coef * u[sub][dof] of a linear relation. */
typedef struct tvds_term {
    int sub; /* substructure index in the model */
    int dof; /* reduced DoF index in that substructure */
    double coef;
} tvds_term;

/* Bilateral constraint sum(coef * u) = value(t): imposed motion (one term), linear relation
 * between DoFs (cos45 DX - cos45 DY = 0), or a tie between substructures. */
typedef struct tvds_bilateral {
    char *name;
    int nterms;
    tvds_term *terms; /* nterms */
    tvds_fn value;    /* right-hand side [m] */
} tvds_bilateral;

enum tvds_master_kind {
    TVDS_MASTER_SURFACE = 0, /* ordered node set of another substructure (2D, x-y plane) */
    TVDS_MASTER_RIGID,       /* rigid line (2D) or plane (3D), fixed or moving */
    TVDS_MASTER_SURFACE_C1,  /* the same node set as a C1 curve: cubic Hermite segments with
                                tangents from averaged nodal normals (docs/theory.md 4b) */
    TVDS_MASTER_FACES,       /* face set of another substructure (3D node-to-face) */
    TVDS_MASTER_DISC,        /* rigid disc face (3D) rotating about its axis: rigid_point is
                                the centre, rigid_normal the axis (toward the slave), omega(t)
                                the angular speed */
    TVDS_MASTER_FACES_ROT,   /* face set of a substructure that turns rigidly about the axis
                                (rigid_point, rigid_normal) with omega(t), elastic in its own
                                frame (docs/theory.md 3d) */
    TVDS_MASTER_KIND_COUNT
};

enum tvds_contact_law {
    TVDS_LAW_LAGRANGE = 0, /* exact constraints (default) */
    TVDS_LAW_PENALTY       /* Code_Aster DIS_CHOC-like shock: kn, pen0, kt, cn, ct */
};

/* Node-to-segment (2D), node-to-face (3D) or node-to-plane (rigid) frictional contact. */
typedef struct tvds_contact {
    char *name;
    int dim; /* 2: x-y plane; 3: against a rigid plane */
    int slave_sub;
    int nslave;
    long *slave_nodes; /* nslave node ids of slave_sub */
    int master_kind;   /* enum tvds_master_kind */
    int master_sub;    /* TVDS_MASTER_SURFACE(_C1): substructure index */
    int nmaster;
    long *master_nodes; /* TVDS_MASTER_SURFACE(_C1): nmaster node ids, surface order;
                           TVDS_MASTER_FACES: the distinct nodes of the faces */
    int nface;          /* TVDS_MASTER_FACES: number of faces */
    int *face_nn;       /* nface: nodes per face (3, 4, 6, 8, 9) */
    int *face_node;     /* nface x TVDS_FACE_MAX_NODES: indices into master_nodes */
    /* Rigid master: a point, the outward normal (pointing toward the slave side) and the
     * first tangent; the second tangent is normal x t1. rigid_motion[k] is the displacement
     * of the rigid master along axis k over time. */
    double rigid_point[3], rigid_normal[3], rigid_t1[3];
    tvds_fn rigid_motion[3];
    tvds_fn omega; /* TVDS_MASTER_DISC, _FACES_ROT: angular speed about rigid_normal [rad/s]
                      (right-hand) */
    /* Friction. mu_axis[k] > = 0 replaces mu for tangent k when anisotropic (one-way
     * friction: SDND100 modeling D). */
    double mu_s, mu_k;
    int anisotropic;
    double mu_axis[2];
    int exact_stick; /* 1: true sticking (tangential constraint) allowed */
    double v_stick;  /* sliding speed below which sticking is tested [m/s] */
    int initially_stuck;
    /* Subs-a: prescribed rigid displacement of the slave body, U_C = X_C + slave_kin(t). */
    tvds_fn slave_kin[3];
    /* Penalty law parameters (TVDS_LAW_PENALTY). */
    int law;
    double kn;     /* normal stiffness [N/m] */
    double pen0;   /* initial penetration [m] (F_N = kn*pen0 at rest) */
    double kt;     /* tangential stiffness in series with Coulomb sliding [N/m] */
    double cn, ct; /* normal and tangential damping [N s/m] */
} tvds_contact;

/* ---- Discrete elements -------------------------------------------------------------------- */

enum tvds_element_kind {
    TVDS_EL_SPRING = 0,      /* k (dx) */
    TVDS_EL_DAMPER,          /* b (dv) */
    TVDS_EL_ELASTIC_FRICTION /* SimulationX Mechanics.Translation.ElasticFriction */
};

enum tvds_ef_kind { TVDS_EF_STICK_SLIP = 0, TVDS_EF_CONTINUOUS };
enum tvds_ef_preload { TVDS_EF_UNLOADED = 0, TVDS_EF_PRELOAD_DX, TVDS_EF_PRELOAD_FORCE };
enum tvds_ef_trans { TVDS_EF_GEVREY = 0, TVDS_EF_TANH };

/* A discrete element between two DoFs, dx = u[a] - u[b]; b may be ground (sub[1] = -1). */
typedef struct tvds_element {
    char *name;
    int kind;    /* enum tvds_element_kind */
    int sub[2];  /* substructure indices; sub[1] = -1 for ground */
    int dof[2];  /* reduced DoF indices */
    double k, b; /* spring stiffness [N/m], damping [N s/m] */
    /* ElasticFriction */
    int kindF;        /* enum tvds_ef_kind */
    tvds_fn Fst, Fsl; /* static and sliding friction forces [N] */
    double dvL;       /* continuous transition: limit velocity difference [m/s] */
    int rigid;
    int kindPS; /* enum tvds_ef_preload */
    double dxSD0, Fs0;
    double dFfrel, eps_dvsl, eps_dI;
    int kindTrans; /* enum tvds_ef_trans */
    double eps_sigma, eps_tau;
} tvds_element;

/* ---- Loads, initial conditions, probes ---------------------------------------------------- */

/* Nodal force f[sub][dof] += fn(t) [N]. */
typedef struct tvds_load {
    char *name;
    int sub, dof;
    tvds_fn fn;
} tvds_load;

typedef struct tvds_initial {
    int sub, dof;
    double u0, v0; /* [m], [m/s] */
} tvds_initial;

enum tvds_probe_kind { TVDS_PROBE_U = 0, TVDS_PROBE_V, TVDS_PROBE_A };

/* A named output channel: displacement, velocity or acceleration of a DoF or recovered point. */
typedef struct tvds_probe {
    char *name;
    int kind; /* enum tvds_probe_kind */
    int sub;
    int dof; /* reduced DoF index, or -1 when rec is used */
    int rec; /* recovery row index, or -1 */
} tvds_probe;

/* ---- Options ------------------------------------------------------------------------------ */

enum tvds_method {
    TVDS_METHOD_SUBS_A = 0,
    TVDS_METHOD_SUBS_B,
    TVDS_METHOD_SUBS_C,
    TVDS_METHOD_FILM,
    TVDS_METHOD_COUNT
};

/* "subs-a" ... "film"; NULL for an unknown method. */
TVDS_API const char *tvds_method_name(int method);
/* Method from its name, or -1. */
TVDS_API int tvds_method_from_name(const char *name);

/* Time integration of the modal coordinates (docs/theory.md). */
enum tvds_integrator {
    TVDS_INTEGRATOR_CENTRAL = 0, /* central differences, stable step from the top mode */
    TVDS_INTEGRATOR_EXACT        /* exact propagation of each damped modal oscillator */
};

typedef struct tvds_options {
    int method;             /* enum tvds_method; default subs-b */
    double dt;              /* [s]; ignored when dt_auto */
    int dt_auto;            /* default 1 */
    double dt_safety;       /* dt = dt_safety * stability limit; default 0.9 */
    int allow_unstable_dt;  /* expert override; default 0 */
    double t_end;           /* [s] */
    double out_dt;          /* output sampling [s]; 0 = every step */
    double win_t0, win_t1;  /* averaging window [s]; win_t1 <= win_t0: whole run */
    double film_tol;        /* FiLm Gauss-Seidel tolerance (relative); default 1e-10 */
    int film_maxit;         /* default 100 */
    int nonconverged_error; /* 1 (default): a FiLm Gauss-Seidel step that stops at film_maxit
                               before film_tol is a solver failure (the run stops, exit 3);
                               0 ("warn"): such steps are counted and the run ends with
                               TVDS_WARN_NOT_CONVERGED (summary status "warning") */
    long max_steps;         /* a run needing more steps than this is refused (TVDS_ERR_INVALID);
                                default 1e8; 0: no limit */
    double v_stick; /* default sliding-speed threshold for exact stick [m/s]; default 1e-9 */
    int modal;      /* enum tvds_path: 1 modal path where damping allows; 0 dense physical;
                       2 (default) modal, or the lumped physical path for a substructure with
                       a diagonal M and a sparse K (docs/theory.md 9c) */
    int integrator; /* enum tvds_integrator; default TVDS_INTEGRATOR_CENTRAL */
    double f_band;  /* [Hz] top of the band of interest: sets dt = auto of the exact modal
                       integrator (docs/theory.md, "Exact modal propagation"); 0 = unset */
    int search;     /* enum tvds_search: how a contact point finds its master segment; default
                       TVDS_SEARCH_WALK */
    int reuse_off;  /* 1 (run.reuse = off): rebuild every kept quantity (W, its LU, the contact
                       entries, the candidate corrections) at every step; the same results,
                       slower. Default 0 */
} tvds_options;

/* Values of tvds_options.search (case key run.search). */
enum tvds_search {
    TVDS_SEARCH_WALK = 0, /* walk from the last step's segment to its neighbours */
    TVDS_SEARCH_SCAN = 1  /* scan the whole master surface every step */
};

/* Values of tvds_options.modal (case key run.path). */
enum tvds_path { TVDS_PATH_PHYSICAL = 0, TVDS_PATH_MODAL = 1, TVDS_PATH_AUTO = 2 };

/* Documented defaults. */
TVDS_API tvds_options tvds_options_default(void);

/* ---- The model ---------------------------------------------------------------------------- */

typedef struct tvds_model {
    char *name;      /* case name (output directory default: out/<name>/) */
    char *case_path; /* case file it was read from, or NULL */
    tvds_options opt;

    int nsub;
    tvds_substructure **subs; /* nsub, owned */
    tvds_damping *damping;    /* nsub */

    int nbil;
    tvds_bilateral *bil;
    int ncontact;
    tvds_contact *contacts;
    int nel;
    tvds_element *elements;

    int nload;
    tvds_load *loads;
    double gravity[3];  /* acceleration of gravity vector [m/s^2]: f = M r(g) */
    tvds_fn gravity_fn; /* scale over time (default constant 1) */
    int has_base_acc;
    double base_dir[3]; /* base acceleration direction (unit) */
    tvds_fn base_acc;   /* base acceleration [m/s^2] in the relative frame: f = -M r a(t) */

    int nic;
    tvds_initial *ics;
    int nprobe;
    tvds_probe *probes;
} tvds_model;

/* An empty model with default options. NULL on allocation failure. */
TVDS_API tvds_model *tvds_model_create(void);
/* Free a model and everything it owns; accepts NULL and clears *m. */
TVDS_API void tvds_model_free(tvds_model **m);
/* Free a substructure; accepts NULL and clears *s. */
TVDS_API void tvds_substructure_free(tvds_substructure **s);
/* Free what a time function owns (its table) and reset it to the constant 0. */
TVDS_API void tvds_fn_clear(tvds_fn *f);

/* Index of the DoF (node, dir) in s, or -1. */
TVDS_API int tvds_substructure_find_dof(const tvds_substructure *s, long node, int dir);
/* Index of the face set called name in s, or -1. */
TVDS_API int tvds_substructure_find_faceset(const tvds_substructure *s, const char *name);
/* Index of the node set called name in s, or -1. */
TVDS_API int tvds_substructure_find_set(const tvds_substructure *s, const char *name);
/* Index of the substructure called name in m, or -1. */
TVDS_API int tvds_model_find_sub(const tvds_model *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
