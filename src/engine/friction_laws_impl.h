/* friction_laws_impl.h — internal API of the discrete friction laws: the ElasticFriction
 * element (explicit-step state machine) and the penalty "shock" contact law (DIS_CHOC-like).
 *
 * Both laws are pure functions of (parameters, previous internal state, kinematics at the step,
 * step h): they return forces, the new internal state and step powers, and never allocate.
 * The internal variables are advanced with a backward-Euler (return-mapping) update, which is
 * unconditionally stable for any spring/damper/h and makes the stick test exact: a law reports
 * stick only when its friction slip did not move during the step (slip velocity exactly 0).
 * docs/validation.md ("Friction laws") gives the equations and the engine interface. */
#ifndef TVDS_FRICTION_LAWS_IMPL_H
#define TVDS_FRICTION_LAWS_IMPL_H

#include "tvds/tvds_model.h"

/* ==== ElasticFriction element ============================================================== */

/* State of friction sf, as published (channel "<element>.sf"). The two first values follow
 * the sign convention of the seed (sliding direction = sign of dv_fric). */
enum tvds_ef_sf {
    TVDS_SF_STICK = 0,      /* sticking: dv_fric = 0 exactly, |Fi| <= Fst */
    TVDS_SF_SLIDE_POS = 1,  /* sliding with dv_fric > 0, Fi = +Fsl */
    TVDS_SF_SLIDE_NEG = -1, /* sliding with dv_fric < 0, Fi = -Fsl */
    TVDS_SF_CONTINUOUS = 2  /* kindF = continuous transition (never sticks) */
};

/* Internal state of one ElasticFriction element. The spring elongation is
 * dx_s = dx - x_fric: x_fric is the displacement difference of the internal friction contact
 * (the "slip position"; constant while sticking). */
typedef struct tvds_ef_state {
    int sf;        /* enum tvds_ef_sf after the last step */
    double x_fric; /* slip position of the friction contact [m] */
    double dx_s;   /* spring elongation after the last step [m] */
    double Fi;     /* internal force after the last step [N] */
    int armed;     /* rigid stick-slip: 1 once the sliding speed exceeded eps_dvsl */
    int row;       /* rigid stick-slip: 1 while the engine holds the stick row this step */
} tvds_ef_state;

/* The engine keeps element state in a double array (elements_impl.h): an ElasticFriction
 * element needs TVDS_EF_NSTATE doubles, packed and unpacked exactly (ints stored as doubles). */
#define TVDS_EF_NSTATE 6
void tvds_ef_state_pack(const tvds_ef_state *st, double *buf);
void tvds_ef_state_unpack(const double *buf, tvds_ef_state *st);

/* Results of one element step. Sign convention (the seed's): Fi > 0 when the element is
 * stretched (dx = x1 - x2 growing); the element pushes DoF 1 with -Fi and DoF 2 with +Fi. */
typedef struct tvds_ef_out {
    double Fi;      /* internal force at the end of the step [N] */
    int sf;         /* enum tvds_ef_sf */
    double dv_fric; /* slip velocity of the friction contact over the step [m/s] */
    double Pp;      /* power into the spring over the step, (E_s(n+1) - E_s(n))/h [W] */
    double Pl;      /* power lost over the step (friction + damper + backward-Euler
                       dissipation of the series spring), >= 0 [W] */
    double Pfric;   /* part of Pl dissipated by the friction contact, |Fi| |dv_fric| >= 0 [W] */
} tvds_ef_out;

/* Check an element's ElasticFriction parameters: k >= 0, b >= 0, k + b > 0 unless rigid,
 * dvL > 0 for the continuous transition, eps_sigma >= 0, 0 < eps_tau < 1, dFfrel >= 0,
 * eps_dvsl >= 0, kindPS = preload force needs k > 0. Errors name the element. */
int tvds_ef_check(const tvds_element *el, tvds_ctx *ctx);

/* Initial state for the displacement difference dx0 at t0: the preload kindPS fixes the
 * spring elongation (unloaded: 0; dxSD0; Fs0/k) and x_fric = dx0 - dx_s. Starts sticking
 * (sf = 0) for stick-slip, sf = 2 for the continuous transition. */
void tvds_ef_init(const tvds_element *el, double dx0, tvds_ef_state *st);

/* Effective static and sliding friction forces at time t: Fsl = |Fsl(t)|, Fst = |Fst(t)|,
 * and Fst <= Fsl is replaced by Fsl (1 + dFfrel) (the seed's rule). */
void tvds_ef_forces(const tvds_element *el, double t, double *Fst, double *Fsl);

/* Transition shape T(u) of the continuous model, u = dv_fric / dvL:
 *   Gevrey (kindTrans = 0): T(u) = tanh(u / (1 - u^2)^eps_sigma) for |u| < 1, sign(u) beyond.
 *     C-infinity, odd, T'(0) = 1, and exactly +-1 from |u| = dvL on: the force reaches Fsl at
 *     dvL. eps_sigma = 0 gives the plain tanh(u) cut at |u| = 1.
 *   tanh (kindTrans = 1): T(u) = tanh(c u), c = atanh(1 - eps_tau): analytic everywhere, equal
 *     to 1 - eps_tau at dvL, tends to 1 beyond.
 * *dT (may be NULL) receives T'(u). */
double tvds_ef_shape(const tvds_element *el, double u, double *dT);

/* One explicit step of a compliant element (rigid = 0), both kindF, at time t (end of the
 * step), from the displacement difference dx and velocity difference dv at t (the engine's
 * values), step h > 0. The spring k in parallel with the damper b is in series with the
 * friction contact; x_fric is advanced by backward Euler:
 *   F = k (dx - x_fric) + b (dv - dv_fric),  dv_fric = (x_fric - x_fric_old) / h.
 * Stick-slip: trial (stick) force F_tr = k (dx - x_fric_old) + b dv;
 *   sliding in direction s continues while s F_tr > Fsl; a sticking contact (or a sliding one
 *   whose trial force fell below Fsl) sticks when |F_tr| <= Fst; otherwise it slides in
 *   direction sign(F_tr) with Fi = s Fsl and x_fric moved so that the spring-damper carries
 *   exactly s Fsl.
 * Continuous: F = Fsl T(dv_fric / dvL) solved for x_fric (one monotone scalar equation).
 * On exit *st is the new state. Returns TVDS_OK, or TVDS_ERR_INVALID for rigid stick-slip
 * (which needs the engine's constraint, below). */
int tvds_ef_step(const tvds_element *el, tvds_ef_state *st, double t, double dx, double dv,
                 double h, tvds_ef_out *out);

/* Engine hook form (elements_impl.h): the state lives in TVDS_EF_NSTATE doubles of the
 * engine's element state array. tvds_ef_hook_init packs tvds_ef_init(el, du0). tvds_ef_hook_force
 * steps the element at t from du = u[a] - u[b] and its backward-difference rate dv, and gives
 * *force, the force on DoF a (= -Fi; DoF b receives -*force); out may be NULL. Returns
 * TVDS_ERR_INVALID for a rigid stick-slip element (it needs the stick row below).
 * du0 = NAN defers the initialisation to the first tvds_ef_hook_force call, whose du is then
 * taken as dx0 (for an engine whose init does not know the initial displacements). */
void tvds_ef_hook_init(const tvds_element *el, double du0, double *state);
int tvds_ef_hook_force(const tvds_element *el, double t, double h, double du, double dv,
                       double *state, double *force, tvds_ef_out *out);

/* ---- Rigid stick-slip (rigid = 1, kindF = stick-slip): engine interface --------------------
 * A rigid element has no compliance, so true sticking needs a Lagrange row in the engine.
 * Per step the engine does:
 *   1. tvds_ef_rigid_begin(el, st, t, dv_pred, &req) with dv_pred the relative velocity
 *      (x1 - x2 rate over the step) its predictor gives with the element still applying its
 *      last force st->Fi (the sliding force while sliding; any value while sticking).
 *      req.stick_row = 1: add the bilateral row  du1 - du2 = 0  over the step (relative
 *      displacement frozen: dv = 0 exactly) and solve it with the other constraints;
 *      req.stick_row = 0: apply the sliding force req.Fi (-Fi on DoF 1, +Fi on DoF 2).
 *   2. tvds_ef_rigid_end(el, st, t, lambda, dv, h, &out, &redo) with lambda the multiplier of
 *      the stick row expressed as the element's internal force (force on DoF 1 = -lambda),
 *      or 0 without the row, and dv the relative velocity over the corrected step.
 *      If |lambda| <= Fst the contact sticks (Fi = lambda, sf = 0). If |lambda| > Fst the
 *      contact releases: *redo = 1 and the engine must recompute this step's correction
 *      without the row, applying Fi = sign(lambda) Fsl (the element slides in the direction
 *      the held force pulls), then call tvds_ef_rigid_end again with lambda = 0.
 * Sliding becomes sticking when the relative velocity predicted with the sliding force stops
 * or reverses (s dv_pred <= eps_dvsl), once the released contact has separated faster than
 * eps_dvsl
 * (st->armed): eps_dvsl is the minimum separation velocity of the seed, 0 by default.
 * eps_dI (minimum separation impulse) is reserved: a release needs |lambda| h > eps_dI. */
typedef struct tvds_ef_rigid_request {
    int stick_row; /* 1: the engine must impose du1 - du2 = 0 this step */
    double Fi;     /* sliding force to apply when stick_row = 0 [N] */
} tvds_ef_rigid_request;

void tvds_ef_rigid_begin(const tvds_element *el, tvds_ef_state *st, double t, double dv_pred,
                         tvds_ef_rigid_request *req);
void tvds_ef_rigid_end(const tvds_element *el, tvds_ef_state *st, double t, double lambda,
                       double dv, double h, tvds_ef_out *out, int *redo);

/* ==== Penalty "shock" contact law (TVDS_LAW_PENALTY) ========================================= */

/* Contact state, same numbering as enum tvds_contact_state (open 0, stick 1, slip 2). */

/* Internal state of one penalty contact point. */
typedef struct tvds_pen_state {
    int state;        /* TVDS_OPEN, TVDS_STICK, TVDS_SLIP (per axis: worst of the two) */
    double u_slip[2]; /* anchor (slip position) of the tangential spring in the tangent plane
                         [m], relative tangential displacement of the slave */
} tvds_pen_state;

/* Packed form for a double state array: TVDS_PEN_NSTATE doubles per contact point. */
#define TVDS_PEN_NSTATE 3
void tvds_pen_state_pack(const tvds_pen_state *st, double *buf);
void tvds_pen_state_unpack(const double *buf, tvds_pen_state *st);

/* Kinematics at the step, in the contact frame. The slave is body 1. */
typedef struct tvds_pen_kin {
    double dn;    /* normal approach of the slave toward the master from the reference [m]:
                     penetration pen = pen0 + dn */
    double vn;    /* its rate [m/s] */
    double ut[2]; /* relative tangential displacement slave - master along t1, t2 [m] */
    double vt[2]; /* relative tangential velocity [m/s] */
} tvds_pen_kin;

typedef struct tvds_pen_out {
    double FN;     /* normal force, >= 0, pushes the slave out along the normal [N] */
    double Ft[2];  /* tangential force on the slave (master gets the opposite) [N] */
    int state;     /* TVDS_OPEN / TVDS_STICK / TVDS_SLIP */
    double w[2];   /* slip velocity of the anchor over the step [m/s] (0 while sticking) */
    double p_fric; /* friction dissipation -Ft . w >= 0 [W] */
    double p_wear; /* Archard wear power FN |w| [W] */
} tvds_pen_out;

/* Check a penalty contact's parameters: kn > 0, pen0 >= 0, kt > 0, cn, ct >= 0, mu >= 0,
 * mu_s >= mu_k. */
int tvds_pen_check(const tvds_contact *c, tvds_ctx *ctx);

/* Initial state: anchor at ut0 (tangential spring unloaded), state from pen0 + dn0. */
void tvds_pen_init(const tvds_contact *c, double dn0, const double ut0[2], tvds_pen_state *st);

/* tvds_pen_step on a packed state (TVDS_PEN_NSTATE doubles), for the engine's state arrays. */
void tvds_pen_step_packed(const tvds_contact *c, double *state, const tvds_pen_kin *k, double h,
                          tvds_pen_out *out);

/* One step of the penalty law, h > 0:
 *   normal: pen = pen0 + dn; FN = max(0, kn pen + cn vn) when pen > 0, else 0 (open: the
 *     tangential spring is unloaded, anchor = ut).
 *   tangential (per contact point, 2 tangents; the elastic-plastic spring kt with damper ct in
 *     parallel, in series with a Coulomb slider), backward Euler on the anchor:
 *     trial Ft_tr = -kt (ut - u_slip_old) - ct vt;
 *     isotropic: threshold mu_s FN when the point was sticking, mu_k FN when sliding;
 *       |Ft_tr| <= threshold: stick, Ft = Ft_tr, anchor unchanged;
 *       else slip: Ft = mu_k FN Ft_tr / |Ft_tr| (radial return), anchor moved by
 *       -(|Ft_tr| - mu_k FN) / (kt + ct/h) along Ft_tr / |Ft_tr|.
 *     anisotropic (one-way friction): the same return per tangent axis with mu_axis[k] as the
 *       sliding coefficient and mu_axis[k] mu_s / mu_k as the static one (a box, not a disc).
 * Powers over the step: p_fric = -Ft . w >= 0 exactly, p_wear = FN |w|. */
void tvds_pen_step(const tvds_contact *c, tvds_pen_state *st, const tvds_pen_kin *k, double h,
                   tvds_pen_out *out);

#endif
