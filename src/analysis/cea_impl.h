/* cea_impl.h — what the CEA files share (src/analysis/cea*.c, docs/cea.md). */
#ifndef TVDS_CEA_IMPL_H
#define TVDS_CEA_IMPL_H

#include "tvds/tvds_cea.h"

#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "analysis/cea_eig.h"
#include "core/blas_threads.h"
#include "engine/contact/face.h"
#include "engine/contact/master.h"
#include "tvds/tvds_plot.h"

#define TVDS_PI 3.14159265358979323846

/* ---- Problem description shared (read-only) by every position ------------------------- */

/* Sparse constraint rows: row r has entries ptr[r] .. ptr[r+1]-1, the same pattern for B_C and
 * B_E (they differ only by the friction term). */
typedef struct cea_rows {
    int nrows, nnz;
    int *ptr;   /* nrows + 1 */
    int *col;   /* nnz, global DoF */
    double *bc; /* nnz */
    double *be; /* nnz */
} cea_rows;

struct cea_problem;
typedef struct cea_problem {
    int N;             /* global DoFs */
    double *M, *K, *C; /* N x N column-major */
    double *f;         /* N: loads at t_eval [N] (the static preload) */
    int has_c, has_load;
    int deformed; /* linearise about the static sliding state (TVDS_CEA_DEFORMED) */
    /* Bilateral constraint rows (B_C = B_E). */
    int nbil, bil_nnz;
    int *bil_ptr, *bil_col;
    double *bil_val;
    /* Contact (contact >= 0). */
    int has_contact;
    sim_master_static ms; /* the master (engine/contact/master.h) */
    int ncomp;            /* components per contact node: 2 (x-y plane) or 3 (rigid plane in 3D) */
    int slave_dof[3];     /* global DoFs x, y (, z) of the (first) slave node */
    int nact;             /* active slave nodes: 1, or all of the contact's (TVDS_CEA_ALL_SLAVES) */
    int *act_dof;         /* nact x 3: global x, y (, z) DoFs of each active slave node */
    double *act_ds;       /* nact: abscissa of each node on the undeformed master minus that of the
                             first node of the first contact (0 on a rigid master) [m] */
    int nextra;           /* TVDS_CEA_ALL_CONTACTS: the other contacts, each with the contact
                             fields of this struct filled (their nodes follow this one's) */
    struct cea_problem *extra;
    int nact_all; /* active nodes of all contacts */
    double mu;
    double chi_fixed; /* user's chi, 0 = from v_rel */
    double fmin_hz;
    int solver;
    double wshift;  /* ARPACK's complex shift i wshift [rad/s]; 0: the real shift */
    int ncand;      /* candidates kept per position */
    double *act_X;  /* nact x 3: undeformed coordinates of the active slave nodes [m] */
    int lateral;    /* 3D: the lateral friction damping (docs/cea.md, "Lateral friction
                       damping") */
    int gen_static; /* the static state and preload stiffness of every node (faces, several
                       nodes or contacts on a deformable master) rather than the one-node
                       path */
    volatile sig_atomic_t *stop; /* the options' stop flag (also read inside the Arnoldi loop) */
} cea_problem;

/* The contact's geometry at one position: the segment seg (T1 = node seg, T2 = seg + 1), the
 * weight alpha of T2, the unit tangent t along T1 -> T2 and the normal n = (-t_y, t_x). */
struct cea_geom {
    int seg;
    double alpha, n[3], t[3]; /* n[2], t[2]: 3D only */
    double len;               /* length of T1 T2 in this geometry [m] */
    double wgt[2]; /* shares of T1, T2 in the contact row: 1 - alpha, alpha (Hermite weights on
                      a C1 master) */
    /* Face-set master: face (-1: the node is off the face set), its node count, the natural
     * coordinates of the closest point and the shape functions there. */
    int face, nn;
    int face_prev, pin; /* the face before the last change; kept on its face (master.h) */
    double xi[2], N[FACE_MAX_NODES];
    double xc[3]; /* placed slave position: the surface point of the undeformed geometry [m] */
    double lam;   /* static multiplier of this node's row */
    int act;      /* index of the node among its contact's active nodes */
    int off;      /* 1: out of contact in the static state (its multiplier would pull): no row */
};
typedef struct cea_geom cea_geom;

static inline void cross3v(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double dot3v(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Per-thread workspace, sized once. */
typedef struct cea_work {
    int rows_cap, nnz_cap, p_cap;
    cea_rows rows;
    int *J;               /* p_cap: columns touched by the constraints */
    int *isj;             /* N: position in J or -1 */
    int *F;               /* N: free DoFs */
    double *BJ;           /* rows_cap x p_cap */
    double *VT;           /* p_cap x p_cap */
    double *sv;           /* p_cap */
    double *superb;       /* p_cap */
    double *ZC, *ZE;      /* p_cap x p_cap: null-space bases on J */
    double *T;            /* N x N */
    double *Mc, *Kc, *Cc; /* N x N (nr x nr used) */
    cea_eig_work eig;     /* the eigensolver's buffers */
    double *Q;            /* ncand x 2N: reduced eigenvectors (re, im) */
    double *Kt;           /* N x N: K plus the geometric stiffness */
    double *Ct;           /* N x N: C plus the lateral friction damping */
    double *KKT;          /* (N + rows_cap)^2: static saddle-point matrix */
    double *krhs;         /* N + rows_cap */
    int *kpiv;            /* N + rows_cap */
    cea_geom *geo;        /* nact: geometry of each active node */
} cea_work;

/* Per-position result before tracking. */
typedef struct cea_pos {
    int err;  /* tvds status */
    int info; /* LAPACK info or detail */
    int nred;
    double chi;
    int ncand;
    double *lre, *lim; /* ncand */
    double resid;      /* largest backward error of the kept eigenpairs */
    double lambda_n;   /* static normal force [N] */
    double slope;      /* angle of the master segment in the linearised state [rad] */
    double *u;         /* ncand x N x 2 (re, im interleaved): physical mode shapes */
    cea_eig_stats eig; /* what the ARPACK path did (zero for the dense one) */
    int gap_after;     /* 1: a position that failed follows in path order (no split there) */
} cea_pos;

/* Each translational physical DoF i (global dof[i]) and its mirror image: the same component
 * of the node at the mirrored coordinates (mir[i]), sg[i] = -1 for the component normal to the
 * plane. Modal and rotational DoFs are left out. */
typedef struct cea_mirror {
    int n;
    int *dof, *mir;
    double *sg;
} cea_mirror;

/* cea_setup.c */
void cea_problem_free(cea_problem *p);
void cea_work_free(cea_work *w);
int cea_work_alloc(cea_work *w, int N, int rows_cap, int nnz_cap, int nact, int ncand, int arpack);
int cea_setup(const tvds_model *m, int contact, const tvds_cea_options *o, cea_problem *p,
              tvds_ctx *ctx);

/* cea_static.c */
int cea_node_geometry(const cea_problem *p, int a, double s, cea_geom *g);
int cea_contact_geometries(const cea_problem *p, double s, cea_geom *g);
double cea_build_rows(const cea_problem *p, const cea_geom *g, cea_work *w);
int cea_static_state(const cea_problem *p, double s, cea_geom *g, cea_work *w, double *lambda);
void cea_tangent_stiffness(const cea_problem *p, const cea_geom *g, double lambda, double chi,
                           cea_work *w);
int cea_static_state_gen(const cea_problem *p, cea_geom *g, cea_work *w, double *lambda);
void cea_tangent_stiffness_gen(const cea_problem *p, const cea_geom *g, cea_work *w);
int cea_lateral_damping(const cea_problem *p, const cea_geom *g, double lambda1, cea_work *w);

/* cea_solve.c */
void cea_solve_position(const cea_problem *p, double s, cea_work *w, cea_pos *out);

/* cea_track.c */
void cea_mirror_free(cea_mirror *mr);
int cea_mirror_build(const tvds_model *m, int plane, cea_mirror *mr, tvds_ctx *ctx);
int cea_track(cea_pos *const *P, int npos, int nb, int ncand, int N, double *freq, double *re,
              double *zeta, double *macv, const cea_mirror *mr, double *anti);
int cea_needs_split(const tvds_cea_options *o, int nb, int npos, const double *freq,
                    const double *re, int i);
int cea_interval_unstable(const tvds_cea_options *o, int nb, const double *freq, const double *re,
                          int i);
int cea_find_windows(tvds_cea_result *res, const tvds_cea_options *o);

#endif
