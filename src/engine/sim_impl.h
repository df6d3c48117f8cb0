/* sim_impl.h — internal data of the time-stepping engine, shared by the src/engine/ files.
 * The derivation and every sign convention are in docs/theory.md. */
#ifndef TVDS_SIM_IMPL_H
#define TVDS_SIM_IMPL_H

#include "tvds/tvds_sim.h"

/* One substructure in its stepping coordinates x: modal (u = Phi x, Phi^T M Phi = I) or
 * physical (x = u). Column j of Y maps a unit force on physical DoF j into coordinate
 * acceleration: modal Y(:,j) = Phi(j,:)^T, physical Y(:,j) = M^-1(:,j). A force f on DoF j
 * enters the modal force vector as f*Y(:,j), and a constraint force g on DoF j corrects the
 * coordinates by -h^2 g Y(:,j) in both paths. The physical displacement of DoF j is
 * Y(:,j).x (modal) or x[j] (physical): sim_phys. */
typedef struct sim_sub {
    int n;
    int modal; /* 1: modal coordinates, 0: physical (dense M^-1, or lumped below) */
    /* Lumped physical path (docs/theory.md 9c): M diagonal, K sparse, damping none or Rayleigh,
     * central differences. x = u; Y = diag(minv) (kept dense for the set-up's uses); the
     * predictor is one pass over the nonzeros of K, a displacement is x[j] and a constraint
     * force moves x[j] only: O(nnz K) per step and O(1) per contact DoF. */
    int lumped;
    double *mdiag, *minv; /* n: diagonal of M and its inverse */
    int *kp, *ki;         /* n + 1, nnz: rows of K (compressed sparse rows, K symmetric) */
    double *kv;           /* nnz: their values */
    int ndg;              /* > 0: K stored by diagonals instead (banded K, few diagonals: the
                             products vectorise), dgoff[ndg] column offsets, dgv ndg x n with
                             dgv[o n + r] = K(r, r + dgoff[o]) (0 outside K) */
    int *dgoff;
    double *dgv;
    double work[2]; /* the work sums of the step (fext and fdamp against 0.5 (x_new - x_prev)),
                       computed in the corrector's pass when it is the last change of x_new */
    long work_ver;  /* work[] belongs to x_new while work_ver == ver[1]; 0: none */
    int stuck_set;  /* 1 while sim_correct's exact stick has moved x_new (sim_correct) */
    int corrected;  /* 1 when the last correction moved x_new (sim_correct): the predictor then
                       leaves the work sums to the corrector's pass, else it forms them itself
                       for x_new = x* (kept if no correction comes) */
    long kx_ver;    /* cpush holds K x while kx_ver == ver[0] (the lumped predictor computes it;
                       the strain energy of the step reuses it), else -1 */
    int load1;      /* the only load on s (modal path, a valid DoF), added by the predictor's pass
                       when fext_kind is 1 (sim_forces), or -1 */
    int load_done;  /* 1 when this step's pass has added it */
    int fext_kind;  /* the dense part of fext (gravity, base acceleration): 2 present; else
                       exactly 0, and 1 when loads still add to fext, 0 when nothing does (fext
                       stays 0: the force pass does not write it, the work sums skip it) */
    int damp_kind;  /* enum tvds_damping_kind actually used */
    double *Y;      /* n x n column-major (see above) */
    double *w2;     /* n: modal omega^2 [1/s^2] (modal path), all generalized eigenvalues */
    double *cdamp;  /* n: modal damping over the step, (a + b w2) / h, of the Rayleigh pair
                       (cd_a, cd_b) it was computed for (modal central differences; NaN pair:
                       not yet) */
    double cd_a, cd_b;
    double w2max;               /* largest omega^2 */
    double dt_cd;               /* stable step of central differences for this substructure [s] */
    double *x_prev, *x, *x_new; /* n: coordinates at t_{n-1}, t_n, t_{n+1} */
    double *x_old; /* n: after a step, x_{n-1} of the step just taken (the buffer x_prev had;
                      the predictor writes x_new, so a later step, failed or not, leaves it):
                      the deferred velocity and acceleration probes (tvds_channels_update) */
    long ver_old;  /* its version (the one it had as x_prev) */
    double *fext;  /* n: external force in coordinates at t_n (loads, gravity, base) */
    double *fel;   /* n: discrete element forces in coordinates at t_n */
    double *fdamp; /* n: damping force C v_n (backward) in coordinates */
    double *tmp;   /* n scratch */
    double *fgrav; /* n: M r(g) in coordinates (gravity, per unit gravity_fn) */
    double *fbase; /* n: -M r(base_dir) in coordinates (per unit base acceleration) */
    double *cpush; /* n scratch (velocities, residuals, copies) */
    int *cand;     /* n: index of the DoF in the candidate list, or -1 */
    int ncand;
    int *cand_dof; /* ncand: physical DoF of each candidate */
    double *G;     /* ncand x ncand column-major: M^-1 restricted to the candidates */
    int *gcomp;    /* ncand: lowest candidate of the component of the mass graph (with the
                      stiffness graph for exact propagation) each candidate lies in: G(a, b) is
                      exactly 0 between components (sim_cand_comp, docs/theory.md 9b) */
    int gdiag;     /* 1: every component is one candidate (G diagonal) */
    /* Cache of the physical displacements of the candidate DoFs, per state buffer (0: x,
     * 1: x_new, 2: x_prev): uc[w][c] is valid while ucv[w][c] == ver[w]. A buffer's version
     * changes whenever it is rewritten (sim_touch); the caches rotate with the buffers. The
     * contact phases thus evaluate u = Y(:,j).x only for the DoFs they use, once per state. */
    double *uc[3];
    long *ucv[3];
    long ver[3];
    int *ucl1;    /* ncand: the candidates cached for x_new since its last rewrite */
    int *ysingle; /* ncand: the coordinate k with u_j = Y(k,j) x[k] exactly (modal: Y(:,j) has
                     one nonzero; physical: k = j), or -1 */
    int ucn1;
    /* Exact modal propagation (run.integrator = exact, docs/theory.md 10b): the scheme is
     * central differences with the modal mass 1/bh[k] and the damping chat[k] + the explicit
     * remainder of a damping schedule above (a_ref, b_ref). Central differences: bh = chat =
     * mhat = NULL and Yx = Y. */
    double *bh;          /* n: b_k / h^2, b_k the one-step response to a force at t_n */
    double *chat;        /* n: damping of the modified oscillator [1/s] */
    double *mhat;        /* n: modal mass 1 / bh */
    double *Yx;          /* n x n: columns bh .* Y(:,j): x_new moves by c Yx(:,j) when a force
                            c / h^2 acts on DoF j (owned only when != Y) */
    double a_ref, b_ref; /* Rayleigh damping inside the propagator (alpha [1/s], beta [s]) */
    double fused_h2;     /* h^2 while the force pass has computed x_new (modal predictor fused into
                            it, sim_predict.c), else 0 */
    double pchk;         /* its non-finite check: finite when x_new is (sim_predict) */
} sim_sub;

/* Steps between two energy evaluations at the most (the runaway-energy guard) when the
 * channels are published less often (tvds_set_record). */
#define SIM_ENERGY_EVERY 1024
/* Every SIM_FLUSH_EVERY steps the state coordinates of magnitude below SIM_TINY = 2^-500
 * (3.1e-151) are set to zero (sim_flush_tiny, docs/theory.md "Tiny coordinates"): below it the
 * product of two coordinates (energies, work sums) is no longer a normal double. */
#define SIM_FLUSH_EVERY 64
#define SIM_TINY        0x1p-500

/* Maximal entries in one contact row: the slave and the nodes of a 9-node face, 3 directions
 * each. A row holds only its point's actual entries (2D segment: 6, rigid: dim), and the
 * entry pool is sized per point (sim_data.c), so the bound costs nothing to the 2D path. */
#define SIM_ROW_MAX_CP (3 * (1 + 9))

/* One contact point: a slave node of a contact. */
typedef struct sim_cp {
    int contact; /* index in m->contacts */
    long node;
    int sdof[3]; /* slave DoFs (x, y, z) in slave_sub, -1 when absent */
    double X[3]; /* undeformed slave position */
    double Xmag; /* |X| (the normal row's round-off scale) */
    int dim;
    /* Geometry at the current step (t_{n+1} detection). */
    int seg;            /* surface: segment index (T1 = seg, T2 = seg + 1); faces: face index;
                           rigid: 0 */
    double alpha;       /* position on the segment [-]; faces: natural coordinate xi1 */
    double xi[2];       /* faces: natural coordinates of the master point */
    double mref[3];     /* rotating disc: the touched material point in the disc's own frame
                           (its position from the centre at angle 0) */
    double mpt[3];      /* rotating disc: that material point's position at the last search */
    double mth;         /* turning face set: the angle theta of the last search [rad] */
    double s;           /* curvilinear position along the master [m] */
    double n[3];        /* unit normal toward the slave */
    double t[2][3];     /* unit tangents */
    int ntan;           /* 1 in 2D, 2 in 3D */
    double gap_pred;    /* predicted gap g* [m] */
    double gap_mag;     /* magnitude of the positions g* is a difference of (round-off scale) [m] */
    double g0;          /* gap_pred - n . rel(u*): gap = g0 + n . rel(u) at this geometry */
    double rel_n;       /* n . rel(u*), of the same detection */
    double gap;         /* gap after correction (published) [m] */
    double dP[3];       /* rigid master displacement increment t_n -> t_{n+1} */
    double dPc[3];      /* rigid master central increment (t_{n+1} - t_{n-1}) / 2 */
    double vkin[2];     /* predicted (subs-a: prescribed) tangential sliding velocity */
    int vkin_ok;        /* vkin is that of the last detection (else sim_cp_vkin computes it) */
    int has_kin;        /* subs-a: slave_kin defined */
    int kin_hint[2][3]; /* subs-a: slave_kin's table segments at t_{n+1} and t_n */
    /* Entries of the relative displacement rel(u) = u_C - (1-a) u_T1 - a u_T2 per direction. */
    int ne;
    int e_sub[SIM_ROW_MAX_CP], e_dof[SIM_ROW_MAX_CP], e_dir[SIM_ROW_MAX_CP];
    double e_w[SIM_ROW_MAX_CP];
    /* The entries' displacements in x (0) and x_new (1) (sim_cp_eu), valid while e_ver[which]
     * holds the versions of that buffer of the entries' substructures esub[0], esub[1] (-1:
     * none; esub[0] = -2: more than two, never kept). They depend on the entries' DoFs only,
     * so a rebuild of the entries with the same DoFs keeps them (sim_cp_add_entry); e_u[1]
     * of the final x_{n+1} becomes e_u[0] of the next step (sim_cp_promote). ne_u: the entries
     * they cover. */
    double e_u[2][SIM_ROW_MAX_CP];
    long e_ver[2][2];
    /* e_u[0] as the last record read it, kept for the next record (where x_n is x_prev: the
       work over the central increment) while e_upv holds the versions of x_prev. */
    double e_up[SIM_ROW_MAX_CP];
    long e_upv[2];
    int ne_up; /* the entries e_up covers */
    int esub[2];
    int ne_u;
    /* The entries' candidates in the run's numbering (cand_base + cand) and the keys of their
     * buckets of G's components (sim_cp_keys), valid while e_key_ok (reset with e_u when an
     * entry changes its DoF). */
    int e_cand[SIM_ROW_MAX_CP], e_comp[SIM_ROW_MAX_CP];
    int e_key_ok, ne_k; /* ne_k: the entries they cover */
    int e_seg2d;        /* 2D segment master: the segment whose six entries (slave, T1, T2 per axis,
                           seg2d_entries) e_* hold, whose weights alone change along it; else -1 */
    /* State. */
    int state;                 /* enum tvds_contact_state, trial during the step */
    int state_prev;            /* state at the end of the previous step */
    int tstick[2];             /* per tangent: 1 stuck (tangential row), 0 slipping */
    double sdir[2];            /* slip direction (unit, in the tangent basis) */
    double mu_t[2];            /* friction coefficient applied per tangent while slipping */
    int row_n, row_t[2];       /* row indices in the system, -1 */
    int tried_stick, released; /* active-set guards within one step */
    double lam_n;              /* normal force on the slave, >= 0 compressive [N] */
    double ft[2];              /* tangential force on the slave along t_k [N] */
    double vt[2];              /* relative sliding velocity along t_k [m/s] (central, at t_n) */
    double p_fric, p_wear;     /* [W] */
    double sum_pf, sum_pw;
    long nwin;
    /* Penalty law (TVDS_LAW_PENALTY): an explicit force at t_n, no constraint row. */
    int pen;         /* 1: penalty contact point (skipped by detect, assemble and solve) */
    double pen_F[3]; /* force on the slave at t_n [N] (global axes); the master nodes get
                        -e_w times it through the entries e_* */
} sim_cp;

/* One constraint row: W lambda = rhs with W = h^2 B_C M^-1 B_E^T. */
typedef struct sim_row {
    int kind;    /* 0 bilateral, 1 normal, 2 tangential, 3 element stick row */
    int cp, k;   /* contact point and tangent index (kind 1, 2); bilateral index (kind 0);
                    element index (kind 3) */
    int off, ne; /* entries in the pool */
    double rhs;
    double rhs_mag; /* magnitude of the terms summed into rhs: its round-off is eps * rhs_mag */
} sim_row;

/* Reference paths: the plain computations that the engine's shortcuts must reproduce bit for bit
 * (tests/check_engine.c, tests/check_contact3d.c compare the two, step by step). search_global and
 * reuse_off are also run options (run.search = scan, run.reuse = off: docs/case-file.md), set by
 * tvds_data_create; the others only tests set, on a tvds_data they created. */
typedef struct sim_check_paths {
    int search_global;  /* 1 = find the segment by a full scan of the master surface every step
                           instead of walking from the last one */
    int reuse_off;      /* 1 = W and its LU built at every assembly (from the buckets, not W's
                           kept pairs; the general band LU also for one or two rows), the
                           candidate corrections from the buckets, a contact point's entries
                           built anew at every detection and their displacements e_u and keys
                           e_cand, e_comp read again at every use */
    int rows_dense;     /* 1 = one bucket per substructure, every pair of its entries through
                           the stored G (the plain double loop) */
    int flush_off;      /* 1 = no sim_flush_tiny */
    int film_direct;    /* 1 = FiLm steps solved by the direct finish alone, from lambda = 0
                           (no Gauss-Seidel sweep): film_finish checked on whole steps */
    int geometry_table; /* 1 = a 2D segment master's geometry through the kind's table (closest,
                           frame, point, weights) instead of its one-call path
                           (sim_seg2d_geometry) */
    int w_points;       /* 3D W (sim_build_W): 0 = the cheaper construction, 1 = always the
                           points', -1 = always the pairs' */
} sim_check_paths;

/* Scratch of the points' construction of W (sim_wbuild.c). */
typedef struct sim_wbuild sim_wbuild;

struct tvds_data {
    int nsub;
    sim_sub *sub;
    int *off; /* nsub: start of each substructure in global (coordinate) numbering */
    double h;
    double h_stable; /* stable step of the run (substructures and penalty contacts) [s] */
    long step;
    double t0;
    int method;
    int geometry;  /* sim_methods[method].geometry, copied by tvds_data_create for the phases */
    int init_mode; /* 1 while the initial constraint forces are computed (acceleration level) */
    /* Contacts. */
    int ncp;
    sim_cp *cp;
    int nctc;           /* number of contacts (size of the three arrays below) */
    long *ctc_closed;   /* per contact: point-steps committed closed (stick or slip) */
    long **mnodes_dofs; /* per contact: nmaster x 3 DoF indices (master surface), or NULL */
    double **mnodes_X;  /* per contact: nmaster x 3 undeformed coordinates */
    double **mnodes_s;  /* per contact: nmaster cumulative undeformed arc length */
    int **fnb_off;      /* per face-set contact: nface + 1 offsets into fnb */
    int **fnb;          /* per face-set contact: the faces sharing a node with each face */
    int **fedge;        /* per face-set contact: nface x 4, the face across each edge or -1 */
    /* System. */
    int rmax, nrow;
    int nrowpts;  /* contact points with rows in the last assembly */
    sim_row *row; /* rmax */
    int pool_cap, pool_n;
    int *p_sub, *p_dof, *p_cand; /* pool_cap */
    double *p_bc, *p_be;         /* pool_cap */
    int *p_row;                  /* pool_cap: row of each entry */
    /* Entries bucketed by component of G (build_W, docs/theory.md 9b): W and the candidate
     * corrections only pair entries of one bucket, so the contact work is linear in the rows
     * where the mass coupling is local. */
    int *p_next;    /* pool_cap: next entry of the same bucket, -1 */
    int *comp_head; /* ncand_tot: first entry of the bucket keyed cand_base + gcomp, or -1 */
    int *comp_tail; /* ncand_tot: last entry of each bucket in use */
    int *comp_used; /* ncand_tot: the buckets in use, in order of their first entry */
    int ncomp_used;
    int W_n, W_kl, W_ku; /* size and band (lower, upper) of the last W built: outside the band
                            W is zero */
    /* W kept across assemblies (docs/theory.md 9): build_W records the pool it summed
     * (W_np entries, W_dense the bucketing); sim_assemble compares the pool it writes with
     * that one entry by entry, and W_same = 1 says W (with its buckets, and its LU when
     * W_lu_ok) is the one of this pool: the same numbers, nothing to rebuild. */
    int W_valid, W_np, W_dense, W_same, W_lu_ok;
    /* W's pairs kept with the pool's structure: W_struct = 1 says the pool has the candidates
     * and rows of the one W was last built from, entry by entry (only bc, be may differ), so
     * its buckets stand and W sums the same pairs in the same order. build_W records them,
     * wp_n of them (-1: more than wp_cap, not kept): entries wp_a, wp_b, the index wp_w of
     * their term in W and the G value wp_g between them. */
    int W_struct, wp_cap, wp_n;
    int *wp_a, *wp_b, *wp_w;
    double *wp_g;
    int *wp_first, *wp_len; /* pool_cap: the pairs of entry a are wp_first[a] .. + wp_len[a] - 1
                               (its bucket's entries b, in order) */
    int wr_n;               /* the pairs in runs of one W term each: run r ends before pair
                               wr_end[r] and sums into W[wr_w[r]] (in a register: consecutive
                               pairs of one term otherwise wait on each other's store) */
    int *wr_end, *wr_w;     /* wp_cap */
    double *W, *W_lu, *lam, *rhs; /* rmax x rmax, rmax x rmax, rmax, rmax */
    sim_wbuild *wb;               /* the points' construction's scratch (sim_wbuild.c) */
    int wb_dim;                   /* 0 until the first W, then 3 when a 3D contact point exists */
    long w_pair_builds, w_point_builds; /* W built by each construction */
    long w_gt_reused;                   /* point pairs whose Gt the points' construction reused */
    int w_points_last;                  /* 1: the last W came from the points' construction */
    int *ipiv;                          /* rmax */
    int *jpvt;                          /* rmax: column pivots of the rank-revealing solve */
    double *ls_work;                    /* ls_lwork: workspace of dgelsy (redundant constraints) */
    int ls_lwork;
    double *ls_W;         /* rmax x rmax copy of W for the rank-revealing solve */
    long n_redundant;     /* steps solved with a rank-deficient (redundant) W */
    double *lam_bil;      /* nbil: multipliers of the bilateral rows */
    int *bil_hint;        /* nbil: the table segments of their values (tvds_fn_eval_hint) */
    int *load_hint;       /* nload: the same for the loads */
    double *load_val;     /* nload: their values at the force pass's t (computed before the
                             passes over the coordinates, so that the time functions' latency
                             overlaps them) */
    int *cr_sub, *cr_dof; /* pool_cap: corrector scratch, distinct (sub, DoF) of the rows */
    double *cr_c;         /* pool_cap: their merged coefficients h^2 sum(be lambda) */
    int *cr_pos;          /* ncand_tot: position of a candidate in cr_*, -1 (merging in O(1)) */
    /* The corrector's merge kept as a plan (sim_correct): it holds while the pool has the
     * cp_np entries (candidates cp_pc, rows cp_pr) and cp_nrow rows it was made for and no
     * coefficient is 0 (cp_np = 0: none). cp_q: the column of each entry; the cp_ng groups of
     * columns (cp_gsel, 4 each, cp_gns of them, cp_glast: the substructure's last group) in
     * their order; cp_nq columns (cr_sub, cr_dof keep theirs). */
    int cp_np, cp_nrow, cp_nq, cp_ng;
    int *cp_q, *cp_pc, *cp_pr, *cp_gsel, *cp_gns, *cp_glast;
    double *du_c; /* candidate displacement correction (lazy cache): total cand */
    long *du_cv;  /* total cand: du_c[k] is valid while du_cv[k] == du_ver */
    long du_ver;  /* version of the multipliers du_c is computed from (starts at 1) */
    int ncand_tot;
    int *cand_base; /* nsub: offset of each sub's candidates in du_c */
    /* Elements. */
    double *el_state;
    size_t el_nstate;
    double *el_du, *el_dv, *el_f; /* nel */
    double *el_res;               /* nel x TVDS_EL_NRES: element result channels at t_n */
    double *pen_state;            /* ncp x TVDS_PEN_NSTATE: penalty law state per point */
    /* Rigid stick-slip ElasticFriction elements (docs/theory.md 8.2): a stick row (kind 3)
     * while sticking, an explicit sliding force otherwise. */
    int nrig;         /* number of such elements */
    int *rig_row;     /* nel: 1 when element e holds its stick row this step */
    double *rig_fapp; /* nel: internal force Fi applied to x_new this step, without the row [N] */
    double *rig_lam;  /* nel: stick-row multiplier of the last solve [N] */
    int fel_used;     /* 1 when element or penalty forces exist: fel and the velocities in
                         tmp are computed every step (else fel stays 0, tmp unused) */
    int law_init;     /* 1 until the first force evaluation (t_0): initialise the law states */
    int law_cached;   /* 1: the laws were stepped at t_0 by the start (sim.c); step 0 reuses them */
    int el_ch0;       /* first element channel in the history group */
    double w_eldiss;  /* element dissipation [J]: sum of Pl h (elements) and p_fric h (penalty) */
    long ver_counter; /* source of the state-buffer versions of the displacement caches */
    sim_check_paths check; /* the reference paths in use (all 0 in a default run) */
    /* Energy bookkeeping [J]. */
    double e_kin, e_strain, w_damp, w_fric, w_ext, w_imp, w_el, w_norm, e0, e_max, bal_err,
        bal_err_max, inputs_abs;
    /* The balance error the step size explains: sum over steps and points of |F . d2 rel| / 2,
     * d2 rel = rel_{n+1} - 2 rel_n + rel_{n-1} = h^2 a (docs/theory.md 12) */
    double w_hbound;
    /* Statistics. */
    long film_iter_sum, film_iter_max, film_steps;
    long as_iter_max, as_nonconv;
    long as_least;      /* active-set steps that needed the least-index passes */
    long film_nonconv;  /* FiLm steps left inconsistent (Gauss-Seidel and its direct finish) */
    long film_finished; /* FiLm steps finished by the direct solve of their set */
    /* Channels. */
    int nch[TVDS_GROUP_COUNT];
    char **chname[TVDS_GROUP_COUNT];
    double *chval[TVDS_GROUP_COUNT];
    int nsum;
    char **sumname;
    double *sumval;
    double t_pub;      /* time of the published channels */
    int rec_every;     /* tvds_set_record: probes published every rec_every steps (0: never) */
    int rec_phase;     /* steps done modulo rec_every (rec_every > 1): kept by tvds_step's commit,
                          so that no step divides */
    int summary_stale; /* 1: sumval lags the last step (tvds_summary publishes it on demand) */
    long sum_step;     /* the step index the summary reports (that of the last sim_record) */
    int probes_stale;  /* 1: the probe channels lag the last step (tvds_channels_update) */
    int energy_stale;  /* 1: the energies and balance lag the last step (tvds_channels_update) */
    int nprobe;
    double **prow; /* nprobe: coordinate row of each probe (u_probe = prow . x), n of its sub */
    double *pdot;  /* nprobe x 3: cached prow . x of recent state buffers, keyed by version */
    long *pdotv;   /* nprobe x 3: their buffer versions (sim_sub.ver) */
    int *pone;     /* nprobe: the only nonzero coordinate of prow (physical DoF probes of the
                      physical paths: prow . x = prow[k] x[k] exactly), or -1 */
};

/* ---- sim_state.c: helpers shared by every phase ---- */
/* Physical displacement of DoF dof of substructure s from coordinates x. */
double sim_phys(const sim_sub *s, const double *x, int dof);
/* u[0], u[1] = sim_phys(s, x, dof0), sim_phys(s, x, dof1) in one pass over x (equal bit for bit).
 */
void sim_phys2(const sim_sub *s, const double *x, int dof0, int dof1, double u[2]);
/* G of a modal substructure: Y(:,cand)^T diag(wk) Y(:,cand) (wk NULL: identity, G = M^-1 on
 * the candidates; wk = bh: the one-step flexibility of exact propagation). */
int sim_cand_flex(sim_sub *s, const double *wk, tvds_ctx *ctx);
/* Components of the candidates in the graph of the nonzeros of M (with_stiffness: of M, K and
 * C) of S into s->gcomp (allocated on first use), and G set to exactly 0 between components
 * (there it is round-off of Y^T Y). Set-up only. */
int sim_cand_comp(const tvds_substructure *S, sim_sub *s, int with_stiffness, tvds_ctx *ctx);
/* Lumped path (s->lumped): y = K x, and with xp also yd = K (x - xp) in the same pass. y and
 * yd must not alias x, xp or each other. O(nnz K). */
void sim_lumped_kx(const sim_sub *s, const double *x, const double *xp, double *y, double *yd);
/* State buffer which (0, 1, 2; -1: all) of every substructure was rewritten: new version. */
void sim_touch(tvds_data *d, int which);
/* Set to zero the coordinates of x and x_prev of magnitude below SIM_TINY (nonzero): the
 * damped high modes of a substructure that nothing excites decay towards the subnormal range,
 * where the processor computes in microcode, 10 to 100 times slower, and they would stay
 * there (docs/performance.md, "Tiny coordinates"). A substructure with such a coordinate gets
 * new versions of both buffers (its caches are recomputed). Returns the number set to 0. */
long sim_flush_tiny(tvds_data *d);
/* Rotate the state buffers after a step (x_prev <- x <- x_new) with their caches. */
void sim_rotate(tvds_data *d);
/* Undeformed coordinates of (sub, node) and its DoF indices per direction (x, y, z). */
int sim_node_dofs(const tvds_substructure *s, long node, int dofs[3], double X[3]);

/* ---- sim_subs.c: set-up of each substructure ---- */
/* The model has substructures, each with M, K and DoFs (and C when its damping is a matrix). */
int sim_check_model(const tvds_model *m, tvds_ctx *ctx);
/* Exact modal propagation with dt = auto: *best becomes min(*best, the step of the band of
 * interest); other integrators leave it. */
int sim_band_dt(const tvds_model *m, double *best, tvds_ctx *ctx);
/* Path (modal, physical, lumped), Y, the gravity and base forces, the load flags and the
 * stable step dt_cd of substructure i into s (its vectors allocated by the caller). */
int sim_sub_setup(const tvds_model *m, int i, sim_sub *s, tvds_ctx *ctx);

/* ---- sim_exact.c: exact modal propagation (docs/theory.md 10b), set-up only ---- */
/* The coefficients of every modal substructure for the step d->h, Yx, and G replaced by the
 * one-step flexibility Y^T diag(bh) Y on the candidates. Fails when a damping schedule's
 * explicit remainder is unstable at this step. */
int sim_exact_setup(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);
/* Free what sim_exact_setup allocated. */
void sim_exact_free(sim_sub *s);
/* Coefficients of one damped oscillator x'' + c x' + w2 x = f advanced exactly over h, written
 * as the central-difference recurrence of the mass 1/bh and damping chat (the free recurrence
 * x_{n+1} = a1 x_n - a2 x_{n-1}). */
void sim_exact_coeffs(double w2, double c, double h, double *a1, double *a2, double *bh,
                      double *chat);

/* Physical displacement of DoF dof of substructure sub in state buffer which (0: x, 1: x_new,
 * 2: x_prev, 3: the coordinate velocities in tmp), through the candidate cache (inline: it is
 * called a few hundred times per step, mostly hits). */
static inline double sim_u(const tvds_data *d, int sub, int dof, int which)
{
    const sim_sub *s = &d->sub[sub];
    if (which == 3) return sim_phys(s, s->tmp, dof);
    const double *x = which == 0 ? s->x : which == 1 ? s->x_new : s->x_prev;
    int c = s->cand[dof];
    if (c < 0 || !s->uc[which]) return sim_phys(s, x, dof);
    if (s->ucv[which][c] == s->ver[which]) return s->uc[which][c];
    double v = sim_phys(s, x, dof);
    s->uc[which][c] = v;
    s->ucv[which][c] = s->ver[which];
    /* The cache is mutable state of the run data (allocated writable): record the x_new
     * entries so that the corrector can update them (sim_correct). */
    if (which == 1) {
        sim_sub *ws = (sim_sub *)s;
        ws->ucl1[ws->ucn1++] = c;
    }
    return v;
}

/* Store v as the cached displacement of candidate c of s in buffer which (0-2), as sim_u does
 * on a miss. */
static inline void sim_u_store(const sim_sub *s, int c, int which, double v)
{
    sim_sub *ws = (sim_sub *)s;
    ws->uc[which][c] = v;
    ws->ucv[which][c] = s->ver[which];
    if (which == 1) ws->ucl1[ws->ucn1++] = c;
}

/* sim_u of two DoFs (both >= 0) of one substructure in buffer which (0-2): when both miss the
 * candidate cache, one pass over the state (sim_phys2) instead of two. */
static inline void sim_u2(const tvds_data *d, int sub, int dof0, int dof1, int which, double u[2])
{
    const sim_sub *s = &d->sub[sub];
    const double *x = which == 0 ? s->x : which == 1 ? s->x_new : s->x_prev;
    int c0 = s->cand[dof0], c1 = s->cand[dof1];
    if (c0 < 0 || c1 < 0 || !s->uc[which] || s->ucv[which][c0] == s->ver[which] ||
        s->ucv[which][c1] == s->ver[which]) {
        u[0] = sim_u(d, sub, dof0, which);
        u[1] = sim_u(d, sub, dof1, which);
        return;
    }
    sim_phys2(s, x, dof0, dof1, u);
    sim_u_store(s, c0, which, u[0]);
    sim_u_store(s, c1, which, u[1]);
}

/* Is element e a rigid stick-slip ElasticFriction element? */
int sim_rigid_el(const tvds_element *E);

/* Versions of state buffer which (0, 1) of the substructures of c's entries (sim_cp.e_ver). */
static inline void sim_cp_vers(const tvds_data *d, const sim_cp *c, int which, long v[2])
{
    v[0] = c->esub[0] >= 0 ? d->sub[c->esub[0]].ver[which] : c->esub[0] == -1 ? 0 : -3;
    v[1] = c->esub[1] >= 0 ? d->sub[c->esub[1]].ver[which] : 0;
}

/* Mark e_u[which] as read from the current buffer which of the entries' substructures. */
static inline void sim_cp_stamp(const tvds_data *d, sim_cp *c, int which)
{
    sim_cp_vers(d, c, which, c->e_ver[which]);
    c->ne_u = c->ne;
}

/* The entries' displacements in x (0) or x_new (1), looked up once per state version and kept
 * with the point (several directions and phases read them each step): e_u[which][e] is the
 * value sim_u returns for entry e. */
static inline const double *sim_cp_eu(const tvds_data *d, const sim_cp *c, int which)
{
    sim_cp *wc = (sim_cp *)c;
    long v[2];
    sim_cp_vers(d, c, which, v);
    if (c->e_ver[which][0] != v[0] || c->e_ver[which][1] != v[1] || v[0] == -3 ||
        d->check.reuse_off) {
        for (int e = 0; e < c->ne; e++)
            wc->e_u[which][e] = c->e_dof[e] < 0 ? 0.0 : sim_u(d, c->e_sub[e], c->e_dof[e], which);
        wc->e_ver[which][0] = v[0];
        wc->e_ver[which][1] = v[1];
        wc->ne_u = c->ne;
    }
    return c->e_u[which];
}

/* After the rotation: e_u[1] read from the x_{n+1} that is now x becomes e_u[0] (the same
 * values: the candidate cache rotates with the buffers). */
static inline void sim_cp_promote(const tvds_data *d, sim_cp *c)
{
    long v[2];
    sim_cp_vers(d, c, 0, v);
    if (v[0] == -3 || c->e_ver[1][0] != v[0] || c->e_ver[1][1] != v[1] || d->check.reuse_off)
        return;
    if (c->e_ver[0][0] == v[0] && c->e_ver[0][1] == v[1]) return;
    for (int e = 0; e < c->ne_u; e++)
        c->e_u[0][e] = c->e_u[1][e];
    c->e_ver[0][0] = v[0];
    c->e_ver[0][1] = v[1];
}

/* Relative displacement of a contact point along direction v: sum w * u (state buffer which,
 * as sim_u). */
static inline double sim_cp_rel(const tvds_data *d, const sim_cp *c, const double v[3], int which)
{
    double r = 0.0;
    if (which > 1) {
        for (int e = 0; e < c->ne; e++)
            r += c->e_w[e] * v[c->e_dir[e]] *
                 (c->e_dof[e] < 0 ? 0.0 : sim_u(d, c->e_sub[e], c->e_dof[e], which));
        return r;
    }
    const double *u = sim_cp_eu(d, c, which);
    for (int e = 0; e < c->ne; e++)
        r += c->e_w[e] * v[c->e_dir[e]] * u[e];
    return r;
}

static inline double sim_dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void sim_cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The predicted tangential relative velocity vkin of c from its relative displacements in x_new
 * (x*: the solve does not move x_new) and x, once per detection (vkin_ok; the detection leaves
 * it to this call for a point whose velocity it did not need). */
static inline void sim_cp_vkin(const tvds_data *d, sim_cp *c)
{
    if (c->vkin_ok) return;
    for (int k = 0; k < c->ntan; k++) {
        double v =
            sim_cp_rel(d, c, c->t[k], 1) - sim_cp_rel(d, c, c->t[k], 0) - sim_dot3(c->t[k], c->dP);
        c->vkin[k] = v / d->h;
    }
    c->vkin_ok = 1;
}

/* c's entries' candidates e_cand and the bucket keys e_comp (cand_base + gcomp), computed once
 * per set of entry DoFs. */
static inline void sim_cp_keys(const tvds_data *d, sim_cp *c)
{
    if (c->e_key_ok && !d->check.reuse_off) return;
    for (int e = 0; e < c->ne; e++) {
        const sim_sub *s = &d->sub[c->e_sub[e]];
        int a = s->cand[c->e_dof[e]];
        c->e_cand[e] = d->cand_base[c->e_sub[e]] + a;
        c->e_comp[e] = d->cand_base[c->e_sub[e]] + (s->gcomp ? s->gcomp[a] : a);
    }
    c->e_key_ok = 1;
    c->ne_k = c->ne;
}

/* Append the entry w * u(sub, dof) along direction dir to the relative displacement of c. The
 * kept displacements e_u stay valid when the entry has the DoF the one at its place had. */
static inline void sim_cp_add_entry(sim_cp *c, int sub, int dof, int dir, double w)
{
    if (dof < 0 || c->ne >= SIM_ROW_MAX_CP) return;
    int e = c->ne;
    if (sub != c->esub[0] && sub != c->esub[1]) {
        if (c->esub[0] == -1)
            c->esub[0] = sub;
        else if (c->esub[1] == -1 && c->esub[0] >= 0)
            c->esub[1] = sub;
        else
            c->esub[0] = -2;
        c->e_ver[0][0] = c->e_ver[1][0] = c->e_upv[0] = -1;
    }
    int moved = c->e_sub[e] != sub || c->e_dof[e] != dof;
    if (moved || e >= c->ne_u) c->e_ver[0][0] = c->e_ver[1][0] = c->e_upv[0] = -1;
    if (moved || e >= c->ne_k) c->e_key_ok = 0;
    c->e_sub[e] = sub;
    c->e_dof[e] = dof;
    c->e_dir[e] = dir;
    c->e_w[e] = w;
    c->ne++;
}

/* ---- contact/: the master surfaces behind one interface (contact/master.h) ---- */

/* ---- Below the phases: rows, penalty forces, channel names ---- */
/* sim_assemble.c: rebuild the rows from the bilaterals, the stick rows of the rigid elements
 * and the contact points' trial states (called by the solvers). */
void sim_assemble(const tvds_model *m, tvds_data *d);
/* sim_penalty.c: penalty contact points at t_n: geometry from x, kinematics from the
 * coordinate velocities in each sub's tmp, one law step each (or the cached t_0 result,
 * d->law_cached); fills pen_F, the entries e_* and the published outputs (called by the force
 * pass of the predictor). */
int sim_penalty_forces(const tvds_model *m, tvds_data *d, double t, tvds_ctx *ctx);

/* sim_channels.c: names and buffers of the published channels and summary scalars (set-up),
 * in the order given by these indices (written by sim_record.c). */
enum { CC_LAMN, CC_LAMT, CC_STATE, CC_GAP, CC_ALPHA, CC_SEG, CC_S, CC_VSLIDE, CC_PF, CC_PW, CC_N };
enum { EN_KIN, EN_STRAIN, EN_DAMP, EN_FRIC, EN_EXT, EN_EL, EN_NORM, EN_BAL, EN_ELDISS, EN_N };
enum {
    SM_STEPS,
    SM_DT,
    SM_T,
    SM_BAL,
    SM_EMAX,
    SM_FILM_MEAN,
    SM_FILM_MAX,
    SM_AS_MAX,
    SM_AS_NC,
    SM_FILM_NC,
    SM_REDUNDANT,
    SM_FILM_FIN,
    SM_AS_LEAST,
    SM_BAL_BOUND,
    SM_BAL_OVER,
    SM_N
};
int sim_channels_create(const tvds_model *m, tvds_data *d);
void sim_channels_free(tvds_data *d);

/* ---- The phases, called by sim.c only (none calls another) ---- */
/* sim_predict.c: forces at t_n and predictor x_new = x* for every substructure. */
int sim_predict(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);
/* sim_predict.c: fext and fel at t from x and the velocities (vel_from_x: backward difference
 * into each sub's tmp, with the modal predictor fused in; else the velocities already in tmp),
 * fdamp = C v. */
int sim_forces(const tvds_model *m, tvds_data *d, double t, int vel_from_x, tvds_ctx *ctx);
/* sim_predict.c: acc = M^-1 (fext + fel - fdamp - K x) in coordinates of substructure i. */
void sim_accel(const tvds_model *m, const sim_sub *s, int i, double *acc);
/* sim_predict.c: apply the constraint forces lambda of the assembled rows:
 * x_new -= h^2 Y B_E^T lambda. */
void sim_correct(const tvds_model *m, tvds_data *d);

/* sim_contact.c: geometry of every contact point at t_{n+1} (d->geometry), trial states. */
int sim_detect(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);

/* sim_elements.c (rigid stick-slip ElasticFriction): after the predictor,
 * tvds_ef_rigid_begin per rigid element; applies the sliding force (replacing the force of t_n
 * the predictor applied) to x_new and fel, or requests the row. */
void sim_rigid_begin(const tvds_model *m, tvds_data *d);
/* After a solve: stick rows whose multiplier exceeds Fst release; returns 1 when x_new was
 * changed (the engine must detect and solve again without those rows). */
int sim_rigid_check(const tvds_model *m, tvds_data *d);
/* After the correction: the elements' final state, forces in fel, result channels. */
void sim_rigid_end(const tvds_model *m, tvds_data *d);

/* sim_wbuild.c: W = h^2 B_C G B_E^T of the assembled rows into d->W (band W_kl, W_ku), the
 * buckets of the pool's entries (comp_head, p_next) for the candidate corrections, and the
 * pairs when that construction was taken (wp_n, else -1). */
void sim_build_W(tvds_data *d);
/* sim_wbuild.c: the scratch of sim_build_W, sized by rmax, pool_cap and ncand_tot (set-up);
 * TVDS_ERR_NOMEM on failure. sim_wbuild_free accepts d->wb NULL. */
int sim_wbuild_create(tvds_data *d);
/* sim_wbuild.c, after a points' construction (w_points_last): the displacement correction
 * -h^2 (G B_E^T lambda)(a) of candidate a of substructure sb from the multipliers d->lam (the
 * merge B_E^T lambda is redone when du_ver changed). */
double sim_wbuild_du(tvds_data *d, int sb, int a);
void sim_wbuild_free(tvds_data *d);

/* sim_solve.c: direct active-set solution (subs-a, subs-b, subs-c). */
int sim_solve_direct(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);
/* sim_solve.c: projected Gauss-Seidel (FiLm). */
int sim_solve_film(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);

/* sim_record.c: after a successful step: contact outputs, energies, probes, summary. Returns
 * TVDS_ERR_DIVERGED on runaway energy. */
int sim_record(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);
/* sim_record.c: initial publication (t = 0, u0, v0). */
void sim_record_initial(const tvds_model *m, tvds_data *d);
/* sim_record.c: the summary scalars of the last step into sumval (tvds_summary, when stale). */
void sim_publish_summary(tvds_data *d);

/* sim_data.c (set-up, no phase): the run data of m with every buffer sized, the eigenbases,
 * the contact points and the channels, before the start (sim.c: tvds_data_create). */
int sim_data_setup(const tvds_model *m, tvds_data **pd, tvds_ctx *ctx);

/* ---- sim.c: the orchestrator ---- */
/* A contact method: a const table over the shared phases. */
typedef struct sim_method {
    const char *name;
    int geometry; /* 0 kinematic (subs-a), 1 deformed (subs-b, film), 2 deformed position +
                     undeformed direction (subs-c) */
    int (*solve)(const tvds_model *m, tvds_data *d, tvds_ctx *ctx);
} sim_method;
extern const sim_method sim_methods[TVDS_METHOD_COUNT];

#endif
