/* friction_laws.c — discrete friction laws: the ElasticFriction element and the penalty shock
 * contact law, as pure per-step functions (see friction_laws_impl.h for the equations). */
#include "engine/friction_laws_impl.h"

#include <math.h>

#include "tvds/tvds_sim.h"

static double sgn(double x)
{
    return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0;
}

static const char *el_name(const tvds_element *el)
{
    return el->name ? el->name : "(unnamed)";
}

/* ==== ElasticFriction ======================================================================= */

int tvds_ef_check(const tvds_element *el, tvds_ctx *ctx)
{
    const char *nm = el_name(el);
    if (el->kind != TVDS_EL_ELASTIC_FRICTION)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: not an ElasticFriction element", nm);
    if (!(el->k >= 0.0) || !(el->b >= 0.0) || !isfinite(el->k) || !isfinite(el->b))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "element %s: k = %g and b = %g must be finite and >= 0", nm, el->k,
                          el->b);
    if (!el->rigid && el->k + el->b <= 0.0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "element %s: k + b must be > 0 unless rigid = true", nm);
    if (el->kindF != TVDS_EF_STICK_SLIP && el->kindF != TVDS_EF_CONTINUOUS)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: unknown kindF %d", nm, el->kindF);
    if (el->kindF == TVDS_EF_CONTINUOUS) {
        if (!(el->dvL > 0.0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: dvL = %g must be > 0", nm,
                              el->dvL);
        if (el->kindTrans == TVDS_EF_GEVREY && !(el->eps_sigma >= 0.0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: eps_sigma = %g must be >= 0", nm,
                              el->eps_sigma);
        if (el->kindTrans == TVDS_EF_TANH && !(el->eps_tau > 0.0 && el->eps_tau < 1.0))
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: eps_tau = %g must be in (0, 1)",
                              nm, el->eps_tau);
        if (el->kindTrans != TVDS_EF_GEVREY && el->kindTrans != TVDS_EF_TANH)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: unknown kindTrans %d", nm,
                              el->kindTrans);
    }
    if (!(el->dFfrel >= 0.0) || !(el->eps_dvsl >= 0.0) || !(el->eps_dI >= 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "element %s: dFfrel, eps_dvsl and eps_dI must be >= 0", nm);
    if (el->kindPS == TVDS_EF_PRELOAD_FORCE && !(el->k > 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "element %s: a preload force Fs0 needs a stiffness k > 0", nm);
    if (el->kindPS < TVDS_EF_UNLOADED || el->kindPS > TVDS_EF_PRELOAD_FORCE)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "element %s: unknown kindPS %d", nm, el->kindPS);
    return TVDS_OK;
}

void tvds_ef_init(const tvds_element *el, double dx0, tvds_ef_state *st)
{
    double dxs = 0.0;
    if (!el->rigid) {
        if (el->kindPS == TVDS_EF_PRELOAD_DX)
            dxs = el->dxSD0;
        else if (el->kindPS == TVDS_EF_PRELOAD_FORCE && el->k > 0.0)
            dxs = el->Fs0 / el->k;
    }
    st->dx_s = dxs;
    st->x_fric = dx0 - dxs;
    st->Fi = el->rigid ? 0.0 : el->k * dxs;
    st->sf = el->kindF == TVDS_EF_CONTINUOUS ? TVDS_SF_CONTINUOUS : TVDS_SF_STICK;
    st->armed = 0;
    st->row = 0;
}

void tvds_ef_state_pack(const tvds_ef_state *st, double *buf)
{
    buf[0] = (double)st->sf;
    buf[1] = st->x_fric;
    buf[2] = st->dx_s;
    buf[3] = st->Fi;
    buf[4] = (double)st->armed;
    buf[5] = (double)st->row;
}

void tvds_ef_state_unpack(const double *buf, tvds_ef_state *st)
{
    st->sf = (int)buf[0];
    st->x_fric = buf[1];
    st->dx_s = buf[2];
    st->Fi = buf[3];
    st->armed = (int)buf[4];
    st->row = (int)buf[5];
}

void tvds_ef_forces(const tvds_element *el, double t, double *Fst, double *Fsl)
{
    double fsl = fabs(tvds_fn_eval(&el->Fsl, t));
    double fst = fabs(tvds_fn_eval(&el->Fst, t));
    if (fst <= fsl) fst = fsl * (1.0 + el->dFfrel);
    if (Fst) *Fst = fst;
    if (Fsl) *Fsl = fsl;
}

double tvds_ef_shape(const tvds_element *el, double u, double *dT)
{
    if (el->kindTrans == TVDS_EF_TANH) {
        double c = atanh(1.0 - el->eps_tau);
        double th = tanh(c * u);
        if (dT) *dT = c * (1.0 - th * th);
        return th;
    }
    /* Gevrey: T(u) = tanh(f(u)), f(u) = u (1 - u^2)^-sigma on |u| < 1. */
    double au = fabs(u);
    if (au >= 1.0) {
        if (dT) *dT = 0.0;
        return sgn(u);
    }
    double s = el->eps_sigma, q = 1.0 - u * u;
    double f = u * pow(q, -s);
    if (!isfinite(f) || fabs(f) > 40.0) { /* tanh saturated to the last bit */
        if (dT) *dT = 0.0;
        return sgn(u);
    }
    double th = tanh(f);
    if (dT) {
        double df = pow(q, -s) + 2.0 * s * u * u * pow(q, -s - 1.0);
        *dT = df * (1.0 - th * th);
    }
    return th;
}

/* Powers of a compliant element over a step (see tvds_ef_out). */
static void ef_powers(const tvds_element *el, double dxs_old, double dxs_new, double dv_s,
                      double Ffric, double dv_fric, double h, tvds_ef_out *out)
{
    double d = dxs_new - dxs_old;
    out->Pp = 0.5 * el->k * (dxs_new * dxs_new - dxs_old * dxs_old) / h;
    out->Pfric = fabs(Ffric * dv_fric);
    out->Pl = out->Pfric + el->b * dv_s * dv_s + 0.5 * el->k * d * d / h;
}

/* Continuous transition: solve F_tr - c D = Fsl T(D / (h dvL)) for the slip increment D.
 * The left side decreases and the right side does not, so the root is unique and lies in
 * [(F_tr - Fsl)/c, (F_tr + Fsl)/c]. Safeguarded Newton. */
static double ef_continuous_increment(const tvds_element *el, double Ftr, double c, double Fsl,
                                      double h)
{
    double lo = (Ftr - Fsl) / c, hi = (Ftr + Fsl) / c;
    double scale = h * el->dvL;
    double D = 0.5 * (lo + hi);
    for (int it = 0; it < 200; it++) {
        double dT;
        double T = tvds_ef_shape(el, D / scale, &dT);
        double g = Ftr - c * D - Fsl * T; /* decreasing in D */
        if (g == 0.0) return D;
        if (g > 0.0)
            lo = D;
        else
            hi = D;
        double dg = -c - Fsl * dT / scale;
        double Dn = D - g / dg;
        if (!(Dn > lo && Dn < hi)) Dn = 0.5 * (lo + hi);
        if (fabs(Dn - D) <= 1e-15 * (fabs(D) + scale) || hi - lo <= 1e-16 * (fabs(lo) + scale)) {
            D = Dn;
            break;
        }
        D = Dn;
    }
    return D;
}

int tvds_ef_step(const tvds_element *el, tvds_ef_state *st, double t, double dx, double dv,
                 double h, tvds_ef_out *out)
{
    double Fst, Fsl;
    tvds_ef_forces(el, t, &Fst, &Fsl);
    out->Pp = out->Pl = out->Pfric = 0.0;

    if (el->rigid) {
        if (el->kindF != TVDS_EF_CONTINUOUS) return TVDS_ERR_INVALID; /* needs the engine row */
        /* Rigid continuous: no spring, the friction contact sees dv itself. */
        double Fi = Fsl * tvds_ef_shape(el, dv / el->dvL, NULL);
        st->x_fric = dx;
        st->dx_s = 0.0;
        st->Fi = Fi;
        st->sf = TVDS_SF_CONTINUOUS;
        out->Fi = Fi;
        out->sf = st->sf;
        out->dv_fric = dv;
        out->Pfric = out->Pl = fabs(Fi * dv);
        return TVDS_OK;
    }

    double c = el->k + el->b / h;
    double xf_old = st->x_fric, dxs_old = st->dx_s;
    double Ftr = el->k * (dx - xf_old) + el->b * dv; /* friction contact held */
    double D = 0.0;                                  /* slip increment of x_fric */
    double F;
    int sf;

    if (el->kindF == TVDS_EF_CONTINUOUS) {
        D = ef_continuous_increment(el, Ftr, c, Fsl, h);
        F = Fsl * tvds_ef_shape(el, D / (h * el->dvL), NULL);
        sf = TVDS_SF_CONTINUOUS;
    } else {
        double s = 0.0;
        if ((st->sf == TVDS_SF_SLIDE_POS || st->sf == TVDS_SF_SLIDE_NEG) &&
            (double)st->sf * Ftr > Fsl)
            s = (double)st->sf; /* keeps sliding the same way */
        else if (fabs(Ftr) > Fst)
            s = sgn(Ftr); /* breaks away (or reverses) */
        if (s == 0.0) {
            F = Ftr;
            sf = TVDS_SF_STICK;
        } else {
            D = (Ftr - s * Fsl) / c; /* s D > 0 by the tests above */
            F = s * Fsl;
            sf = s > 0.0 ? TVDS_SF_SLIDE_POS : TVDS_SF_SLIDE_NEG;
        }
    }

    double dv_fric = D / h;
    st->x_fric = xf_old + D;
    st->dx_s = dx - st->x_fric;
    st->Fi = F;
    st->sf = sf;
    out->Fi = F;
    out->sf = sf;
    out->dv_fric = dv_fric;
    ef_powers(el, dxs_old, st->dx_s, dv - dv_fric, sf == TVDS_SF_STICK ? 0.0 : F, dv_fric, h, out);
    return TVDS_OK;
}

void tvds_ef_hook_init(const tvds_element *el, double du0, double *state)
{
    tvds_ef_state st;
    tvds_ef_init(el, isnan(du0) ? 0.0 : du0, &st);
    tvds_ef_state_pack(&st, state);
    if (isnan(du0)) state[1] = NAN; /* x_fric unknown until the first step */
}

int tvds_ef_hook_force(const tvds_element *el, double t, double h, double du, double dv,
                       double *state, double *force, tvds_ef_out *out)
{
    tvds_ef_state st;
    tvds_ef_out o;
    if (isnan(state[1]))
        tvds_ef_init(el, du, &st); /* deferred: the first call sees dx0 */
    else
        tvds_ef_state_unpack(state, &st);
    int rc = tvds_ef_step(el, &st, t, du, dv, h, &o);
    if (rc) return rc;
    tvds_ef_state_pack(&st, state);
    *force = -o.Fi;
    if (out) *out = o;
    return TVDS_OK;
}

void tvds_ef_rigid_begin(const tvds_element *el, tvds_ef_state *st, double t, double dv_pred,
                         tvds_ef_rigid_request *req)
{
    double Fst, Fsl;
    tvds_ef_forces(el, t, &Fst, &Fsl);
    req->stick_row = 0;
    req->Fi = 0.0;
    if (st->sf == TVDS_SF_STICK) {
        req->stick_row = 1;
    } else {
        double s = st->sf == TVDS_SF_SLIDE_NEG ? -1.0 : 1.0;
        if (!st->armed && s * dv_pred > el->eps_dvsl) st->armed = 1;
        if (st->armed && s * dv_pred <= el->eps_dvsl)
            req->stick_row = 1; /* the sliding speed stops or reverses this step */
        else
            req->Fi = s * Fsl;
    }
    st->row = req->stick_row;
}

void tvds_ef_rigid_end(const tvds_element *el, tvds_ef_state *st, double t, double lambda,
                       double dv, double h, tvds_ef_out *out, int *redo)
{
    double Fst, Fsl;
    tvds_ef_forces(el, t, &Fst, &Fsl);
    *redo = 0;
    out->Pp = 0.0;
    out->Pl = out->Pfric = 0.0;
    out->dv_fric = 0.0;
    if (st->row) {
        st->row = 0;
        if (fabs(lambda) <= Fst || fabs(lambda) * h <= el->eps_dI) {
            st->sf = TVDS_SF_STICK; /* held: dv = 0 exactly, Fi = multiplier */
            st->armed = 0;
            st->Fi = lambda;
        } else {
            /* Release: slide the way the held force pulls; the engine redoes the step.
             * A sliding element whose stick row was tried because its speed fell into the
             * band |dv| <= eps_dvsl, and whose held force exceeds Fst in its own sliding
             * direction, has not stopped: the excess is the impulse m dv / h that would arrest
             * the residual speed dv within one step, which grows as 1/h. It keeps sliding that
             * way and stays armed, so that the row is tried again at the next step (where the
             * speed has crossed zero and the arrest impulse is bounded by the deceleration);
             * disarming it here made small steps miss every later stick (docs/theory.md). */
            int dir = lambda > 0.0 ? TVDS_SF_SLIDE_POS : TVDS_SF_SLIDE_NEG;
            st->armed = st->sf == dir ? 1 : 0;
            st->sf = dir;
            st->Fi = (double)st->sf * Fsl;
            *redo = 1;
        }
        out->Fi = st->Fi;
        out->sf = st->sf;
        return;
    }
    /* Sliding step without the row. */
    st->Fi = (double)st->sf * Fsl;
    out->Fi = st->Fi;
    out->sf = st->sf;
    out->dv_fric = dv;
    out->Pl = out->Pfric = fabs(st->Fi * dv);
}

/* ==== Penalty shock law ===================================================================== */

int tvds_pen_check(const tvds_contact *c, tvds_ctx *ctx)
{
    const char *nm = c->name ? c->name : "(unnamed)";
    if (!(c->kn > 0.0) || !isfinite(c->kn))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact %s: kn = %g must be > 0", nm, c->kn);
    if (!(c->kt > 0.0) || !isfinite(c->kt))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact %s: kt = %g must be > 0", nm, c->kt);
    if (!(c->pen0 >= 0.0) || !(c->cn >= 0.0) || !(c->ct >= 0.0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact %s: pen0, cn and ct must be >= 0", nm);
    if (!(c->mu_k >= 0.0) || !(c->mu_s >= c->mu_k))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "contact %s: need mu_s >= mu_k >= 0 (mu_s = %g, mu_k = %g)", nm, c->mu_s,
                          c->mu_k);
    if (c->anisotropic && (!(c->mu_axis[0] >= 0.0) || !(c->mu_axis[1] >= 0.0)))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "contact %s: mu_axis must be >= 0", nm);
    return TVDS_OK;
}

void tvds_pen_state_pack(const tvds_pen_state *st, double *buf)
{
    buf[0] = (double)st->state;
    buf[1] = st->u_slip[0];
    buf[2] = st->u_slip[1];
}

void tvds_pen_state_unpack(const double *buf, tvds_pen_state *st)
{
    st->state = (int)buf[0];
    st->u_slip[0] = buf[1];
    st->u_slip[1] = buf[2];
}

void tvds_pen_init(const tvds_contact *c, double dn0, const double ut0[2], tvds_pen_state *st)
{
    st->u_slip[0] = ut0 ? ut0[0] : 0.0;
    st->u_slip[1] = ut0 ? ut0[1] : 0.0;
    st->state = c->pen0 + dn0 > 0.0 ? TVDS_STICK : TVDS_OPEN;
}

void tvds_pen_step(const tvds_contact *c, tvds_pen_state *st, const tvds_pen_kin *k, double h,
                   tvds_pen_out *out)
{
    double pen = c->pen0 + k->dn;
    double FN = pen > 0.0 ? c->kn * pen + c->cn * k->vn : 0.0;
    if (FN < 0.0) FN = 0.0;
    out->FN = FN;
    out->p_fric = out->p_wear = 0.0;
    out->Ft[0] = out->Ft[1] = out->w[0] = out->w[1] = 0.0;
    if (pen <= 0.0) {
        /* Open: the tangential spring unloads and follows the slave. */
        st->u_slip[0] = k->ut[0];
        st->u_slip[1] = k->ut[1];
        st->state = out->state = TVDS_OPEN;
        return;
    }
    double cc = c->kt + c->ct / h; /* backward-Euler stiffness of spring + damper */
    double Ftr[2];
    for (int a = 0; a < 2; a++)
        Ftr[a] = -c->kt * (k->ut[a] - st->u_slip[a]) - c->ct * k->vt[a];
    double ratio_s = c->mu_k > 0.0 ? c->mu_s / c->mu_k : 1.0;
    int was_slip = st->state == TVDS_SLIP;
    int state = TVDS_STICK;
    double D[2] = {0.0, 0.0};

    if (!c->anisotropic) {
        double nt = hypot(Ftr[0], Ftr[1]);
        double thr = (was_slip ? c->mu_k : c->mu_s) * FN;
        if (nt > thr && nt > 0.0) {
            double lim = c->mu_k * FN, f = (nt - lim) / cc;
            for (int a = 0; a < 2; a++) {
                D[a] = -f * Ftr[a] / nt;
                out->Ft[a] = lim * Ftr[a] / nt;
            }
            state = TVDS_SLIP;
        } else {
            out->Ft[0] = Ftr[0];
            out->Ft[1] = Ftr[1];
        }
    } else {
        for (int a = 0; a < 2; a++) {
            double lim = c->mu_axis[a] * FN;
            double thr = was_slip ? lim : lim * ratio_s;
            double at = fabs(Ftr[a]);
            if (at > thr) {
                D[a] = -(at - lim) / cc * sgn(Ftr[a]);
                out->Ft[a] = lim * sgn(Ftr[a]);
                state = TVDS_SLIP;
            } else {
                out->Ft[a] = Ftr[a];
            }
        }
    }
    for (int a = 0; a < 2; a++) {
        st->u_slip[a] += D[a];
        out->w[a] = D[a] / h;
    }
    st->state = out->state = state;
    out->p_fric = -(out->Ft[0] * out->w[0] + out->Ft[1] * out->w[1]);
    out->p_wear = FN * hypot(out->w[0], out->w[1]);
}

void tvds_pen_step_packed(const tvds_contact *c, double *state, const tvds_pen_kin *k, double h,
                          tvds_pen_out *out)
{
    tvds_pen_state st;
    tvds_pen_state_unpack(state, &st);
    tvds_pen_step(c, &st, k, h, out);
    tvds_pen_state_pack(&st, state);
}
