/* sim_predict.c — forces at t_n, the central-difference predictor (diagonal in modal
 * coordinates, dense M^-1 in physical ones) and the constraint corrector. */
#include <cblas.h>
#include <math.h>

#include "engine/contact/master.h"
#include "engine/elements_impl.h"
#include "engine/sim_impl.h"

/* Add a force F on physical DoF dof to a coordinate force vector. When the predictor of s
 * was fused into the force pass (s->fused_h2 = h^2 > 0, modal), x_new follows: += h^2 F Y(:,dof)
 * (and a non-finite F marks pchk). */
static void add_force(sim_sub *s, int dof, double F, double *v)
{
    if (!s->modal) {
        v[dof] += F;
        if (s->lumped && s->fused_h2 > 0.0) {
            /* Lumped predictor fused into the force pass: x_new += h^2 F / m_jj. */
            s->x_new[dof] += s->fused_h2 * F * s->minv[dof];
            s->pchk += F * 0.0;
        }
        return;
    }
    const double *restrict y = s->Y + (size_t)dof * s->n;
    double *restrict vv = v;
    int n = s->n;
    if (s->fused_h2 > 0.0) {
        double *restrict xn = s->x_new;
        const double *restrict yx = s->Yx + (size_t)dof * s->n;
        double c = s->fused_h2 * F;
        s->pchk += F * 0.0;
#pragma omp simd
        for (int i = 0; i < n; i++) {
            vv[i] += F * y[i];
            xn[i] += c * yx[i];
        }
        return;
    }
#pragma omp simd
    for (int i = 0; i < n; i++)
        vv[i] += F * y[i];
}

/* The arrays of the modal central-difference predictor (cd_pass). */
typedef struct cd_arrays {
    const double *x, *xp, *fg, *fb, *w2, *cdh;
    double *vw, *fe, *fl, *fd, *xn;
    double we, wd;          /* work sums (cd_pass with work) */
    const double *ly, *lyx; /* the one load's columns Y(:,j), Yx(:,j) (cd_pass with load) */
    double lf, lc;          /* its force F and h^2 F */
} cd_arrays;

/* The fused modal predictor of central differences, one pass (docs/theory.md 9, "Arithmetic
 * per coordinate"): with d = x - x_prev, the damping force fd = (c/h) d (cdh = c/h kept per
 * Rayleigh pair, c = a + b w2 the modal damping: sim_forces) and
 * x_new = (x + d) + h^2 (fext - fd - w2 x). Returns the sum of x_new (not finite when some value
 * is not, or when the sum overflows: sim_predict looks).
 * vel: store the velocities and zero fel (element or penalty forces follow); fx: fext = gs fg +
 * ba fb (2), fext = 0 written (1: loads follow) or left alone (0: fext is 0 and stays 0).
 * Constant flags at every call: each call compiles to its own loop. */
static inline __attribute__((always_inline)) double cd_pass(cd_arrays *A, int n, int vel, int fx,
                                                            int work, int load, double rh,
                                                            double h2, double gs, double ba)
{
    const double *restrict x = A->x, *restrict xp = A->xp, *restrict fg = A->fg,
                           *restrict fb = A->fb, *restrict w2 = A->w2, *restrict cdh = A->cdh;
    double *restrict vw = A->vw, *restrict fe = A->fe, *restrict fl = A->fl, *restrict fd = A->fd,
                     *restrict xn = A->xn;
    double chk = 0.0;
    if (work) {
        /* With the work sums of fext and fdamp over (x* - x_prev) / 2, in the order of the
         * record's work pass (sim_record.c, sub_energy); the halving is applied to the sums
         * (exact in binary, so the same values unless a product is subnormal). */
        double we = 0.0, wd = 0.0;
#pragma omp simd reduction(+ : chk, we, wd)
        for (int k = 0; k < n; k++) {
            double dk = x[k] - xp[k];
            double fek = fx == 2 ? gs * fg[k] + ba * fb[k] : 0.0, fdk = cdh[k] * dk;
            if (fx) fe[k] = fek;
            fd[k] = fdk;
            double xk = fx == 2 ? (x[k] + dk) + h2 * (fek - fdk - w2[k] * x[k])
                                : (x[k] + dk) - h2 * (fdk + w2[k] * x[k]);
            xn[k] = xk;
            chk += xk;
            double dx = xk - xp[k]; /* the halving after the sums: exact */
            if (fx) we += fek * dx;
            wd += fdk * dx;
        }
        A->we = 0.5 * we;
        A->wd = 0.5 * wd;
        return chk;
    }
    if (load) {
        /* fext = 0 written and the one load added (add_force's two updates, in its order):
         * fx = 1, no velocities. */
        const double *restrict ly = A->ly, *restrict lyx = A->lyx;
        const double F = A->lf, c = A->lc;
#pragma omp simd reduction(+ : chk)
        for (int k = 0; k < n; k++) {
            double dk = x[k] - xp[k];
            double fdk = cdh[k] * dk;
            fe[k] = 0.0 + F * ly[k];
            fd[k] = fdk;
            double xk = (x[k] + dk) - h2 * (fdk + w2[k] * x[k]);
            chk += xk;
            xn[k] = xk + c * lyx[k];
        }
        return chk;
    }
#pragma omp simd reduction(+ : chk)
    for (int k = 0; k < n; k++) {
        double dk = x[k] - xp[k];
        double fek = fx == 2 ? gs * fg[k] + ba * fb[k] : 0.0, fdk = cdh[k] * dk;
        if (vel) {
            vw[k] = dk * rh;
            fl[k] = 0.0;
        }
        if (fx) fe[k] = fek;
        fd[k] = fdk;
        xn[k] = fx == 2 ? (x[k] + dk) + h2 * (fek - fdk - w2[k] * x[k])
                        : (x[k] + dk) - h2 * (fdk + w2[k] * x[k]);
        chk += xn[k];
    }
    return chk;
}

/* The arrays of the corrector's last pass over a modal substructure (corr_pass). */
typedef struct corr_arrays {
    double *xn;
    const double *xp, *fe, *fd, *y0, *y1, *y2, *y3;
    double we, wd; /* work sums of fext and fdamp over (x_new - x_prev) / 2 */
} corr_arrays;

/* x_new -= sum of c_j y_j over ns = 1, 2 or 4 columns (ns = 3: c3 = 0, y3 = y0), with the work
 * sums of the energy balance in the same pass (ext = 0: fext is 0, no external work). Constant
 * flags at every call: each call compiles to its own loop. */
static inline __attribute__((always_inline)) void
corr_pass(corr_arrays *A, int n, int ns, int ext, double c0, double c1, double c2, double c3)
{
    double *restrict xn = A->xn;
    const double *restrict xp = A->xp, *restrict fe = A->fe, *restrict fd = A->fd,
                           *restrict y0 = A->y0, *restrict y1 = A->y1, *restrict y2 = A->y2,
                           *restrict y3 = A->y3;
    double we = 0.0, wd = 0.0;
#pragma omp simd reduction(+ : we, wd)
    for (int k = 0; k < n; k++) {
        if (ns == 1)
            xn[k] -= c0 * y0[k];
        else if (ns == 2)
            xn[k] -= c0 * y0[k] + c1 * y1[k];
        else
            xn[k] -= (c0 * y0[k] + c1 * y1[k]) + (c2 * y2[k] + c3 * y3[k]);
        double dx = xn[k] - xp[k]; /* the halving after the sums: exact */
        if (ext) we += fe[k] * dx;
        wd += fd[k] * dx;
    }
    A->we = 0.5 * we;
    A->wd = 0.5 * wd;
}

/* The modal substructure i's predictor in one pass (sim_forces with vel_from_x): backward
 * velocity, external, element (zeroed) and damping forces, and x_new from the dense part of the
 * force; the sparse forces added afterwards (loads, elements, penalty) update x_new as well
 * (add_force). A non-finite value makes the sum of value * 0 a NaN. */
static inline __attribute__((always_inline)) void modal_predict(const tvds_model *m, tvds_data *d,
                                                                int i, double t, int vel_from_x,
                                                                double rh, double gs, double ba)
{
    sim_sub *s = &d->sub[i];
    int n = s->n;
    /* Local restrict pointers: the stores cannot alias the inputs (vectorisable). */
    double *restrict fe = s->fext, *restrict fl = s->fel, *restrict fd = s->fdamp;
    const double *restrict fg = s->fgrav, *restrict fb = s->fbase, *restrict w2 = s->w2;
    const double *restrict x = s->x, *restrict xp = s->x_prev;
    double *restrict vw = s->tmp;
    /* The whole diagonal predictor in one pass: backward velocity, external, element
     * (zeroed) and damping forces, and x_new from the dense part of the force; the
     * sparse forces added below (loads, elements, penalty) update x_new as well
     * (add_force). A non-finite value makes the sum of value * 0 a NaN. */
    double a = 0.0, b = 0.0, h2 = d->h * d->h, chk = 0.0;
    if (s->damp_kind != TVDS_DAMP_NONE) tvds_damping_at(&m->damping[i], t, &a, &b);
    double *restrict xn = s->x_new;
    if (s->bh) {
        /* Exact modal propagation: central differences with the modal mass 1/bh and
         * damping chat + the schedule's remainder (docs/theory.md 10b). Locals that
         * are not address-taken, so that the loop vectorises. */
        const double *restrict bh = s->bh, *restrict ch = s->chat;
        const double da = a - s->a_ref, db = b - s->b_ref;
        if (d->fel_used) {
#pragma omp simd reduction(+ : chk)
            for (int k = 0; k < n; k++) {
                double vk = (x[k] - xp[k]) * rh;
                double fek = gs * fg[k] + ba * fb[k], fdk = (ch[k] + da + db * w2[k]) * vk;
                vw[k] = vk;
                fe[k] = fek;
                fl[k] = 0.0;
                fd[k] = fdk;
                xn[k] = 2.0 * x[k] - xp[k] + h2 * bh[k] * (fek - fdk - w2[k] * x[k]);
                chk += xn[k] * 0.0;
            }
        } else {
#pragma omp simd reduction(+ : chk)
            for (int k = 0; k < n; k++) {
                double vk = (x[k] - xp[k]) * rh;
                double fek = gs * fg[k] + ba * fb[k], fdk = (ch[k] + da + db * w2[k]) * vk;
                fe[k] = fek;
                fd[k] = fdk;
                xn[k] = 2.0 * x[k] - xp[k] + h2 * bh[k] * (fek - fdk - w2[k] * x[k]);
                chk += xn[k] * 0.0;
            }
        }
    } else {
        /* Without element or penalty forces fel stays 0 and nothing reads the
         * velocities in tmp; fext is written as its dense part says (fext_kind). */
        /* The modal damping over h, (a + b w2) / h, kept while the schedule gives the
         * same pair. */
        double *restrict cdh = s->cdamp;
        if (a != s->cd_a || b != s->cd_b) {
            for (int k = 0; k < n; k++)
                cdh[k] = (a + b * w2[k]) * rh;
            s->cd_a = a;
            s->cd_b = b;
        }
        cd_arrays A = {x, xp, fg, fb, w2, cdh, vw, fe, fl, fd, xn, 0.0, 0.0, NULL, NULL, 0.0, 0.0};
        s->load_done = 0;
        int fk = s->fext_kind;
        /* A substructure the last step did not correct (the master of an open contact)
         * likely keeps x_new = x*: its work sums in this pass (nothing changes x_new
         * after it without loads, element or penalty forces; a correction replaces
         * them). */
        int work = !s->corrected && fk != 1 && !d->fel_used && vel_from_x == 1;
        if (d->fel_used)
            chk = fk == 2   ? cd_pass(&A, n, 1, 2, 0, 0, rh, h2, gs, ba)
                  : fk == 1 ? cd_pass(&A, n, 1, 1, 0, 0, rh, h2, gs, ba)
                            : cd_pass(&A, n, 1, 0, 0, 0, rh, h2, gs, ba);
        else if (work)
            chk = fk == 2 ? cd_pass(&A, n, 0, 2, 1, 0, rh, h2, gs, ba)
                          : cd_pass(&A, n, 0, 0, 1, 0, rh, h2, gs, ba);
        else if (fk == 1 && s->load1 >= 0) {
            /* The one load of s in this pass (add_force's updates, the same values). */
            const tvds_load *L = &m->loads[s->load1];
            A.ly = s->Y + (size_t)L->dof * n;
            A.lyx = s->Yx + (size_t)L->dof * n;
            A.lf = d->load_val[s->load1];
            A.lc = h2 * A.lf;
            chk = cd_pass(&A, n, 0, 1, 0, 1, rh, h2, gs, ba);
            s->load_done = 1;
        } else
            chk = fk == 2   ? cd_pass(&A, n, 0, 2, 0, 0, rh, h2, gs, ba)
                  : fk == 1 ? cd_pass(&A, n, 0, 1, 0, 0, rh, h2, gs, ba)
                            : cd_pass(&A, n, 0, 0, 0, 0, rh, h2, gs, ba);
        s->work[0] = A.we;
        s->work[1] = A.wd;
        s->work_ver = work ? -3 : 0; /* -3: x*'s, stamped by sim_predict */
    }
    s->pchk = chk;
    s->fused_h2 = h2;
}

/* The lumped substructure i's predictor (docs/theory.md 9c): K x and K (x - x_prev) in one
 * sparse pass (into cpush and fdamp), then one pass for v = (x - x_prev)/h, fd = a M v + b K v
 * and x* = 2x - x_prev + h^2 M^-1 (fe - fd - K x). The sparse forces added afterwards update
 * x_new as well (add_force). */
static inline __attribute__((always_inline)) void
lumped_predict(const tvds_model *m, tvds_data *d, int i, double t, double rh, double gs, double ba)
{
    sim_sub *s = &d->sub[i];
    int n = s->n;
    /* Local restrict pointers: the stores cannot alias the inputs (vectorisable). */
    double *restrict fe = s->fext, *restrict fl = s->fel, *restrict fd = s->fdamp;
    const double *restrict fg = s->fgrav, *restrict fb = s->fbase;
    const double *restrict x = s->x, *restrict xp = s->x_prev;
    double *restrict vw = s->tmp;
    /* The lumped predictor (docs/theory.md 9c): K x and K (x - x_prev) in one sparse
     * pass (into cpush and fdamp), then one pass for v = (x - x_prev)/h, fd = a M v +
     * b K v and x* = 2x - x_prev + h^2 M^-1 (fe - fd - K x). The sparse forces added
     * below update x_new as well (add_force). */
    double a = 0.0, b = 0.0, h2 = d->h * d->h, chk = 0.0;
    if (s->damp_kind != TVDS_DAMP_NONE) tvds_damping_at(&m->damping[i], t, &a, &b);
    double *restrict kx = s->cpush, *restrict xn = s->x_new;
    const double *restrict md = s->mdiag, *restrict mi = s->minv;
    sim_lumped_kx(s, x, xp, kx, fd);
    s->kx_ver = s->ver[0];
    const double brh = b * rh;
    if (d->fel_used) {
#pragma omp simd reduction(+ : chk)
        for (int r = 0; r < n; r++) {
            double vr = (x[r] - xp[r]) * rh;
            double fek = gs * fg[r] + ba * fb[r], fdk = a * md[r] * vr + brh * fd[r];
            vw[r] = vr;
            fl[r] = 0.0;
            fe[r] = fek;
            fd[r] = fdk;
            xn[r] = 2.0 * x[r] - xp[r] + h2 * mi[r] * (fek - fdk - kx[r]);
            chk += xn[r] * 0.0;
        }
    } else {
#pragma omp simd reduction(+ : chk)
        for (int r = 0; r < n; r++) {
            double vr = (x[r] - xp[r]) * rh;
            double fek = gs * fg[r] + ba * fb[r], fdk = a * md[r] * vr + brh * fd[r];
            fe[r] = fek;
            fd[r] = fdk;
            xn[r] = 2.0 * x[r] - xp[r] + h2 * mi[r] * (fek - fdk - kx[r]);
            chk += xn[r] * 0.0;
        }
    }
    s->pchk = chk;
    s->fused_h2 = h2;
}

/* Substructure i without a fused predictor: velocities (with vel_from_x), external forces,
 * fel zeroed, and the damping force C v in its coordinates. */
static void sub_forces(const tvds_model *m, tvds_data *d, int i, double t, int vel_from_x,
                       double rh, double gs, double ba)
{
    const tvds_substructure *S = m->subs[i];
    sim_sub *s = &d->sub[i];
    int n = s->n;
    /* Local restrict pointers: the stores cannot alias the inputs (vectorisable). */
    double *restrict fe = s->fext, *restrict fl = s->fel, *restrict fd = s->fdamp;
    const double *restrict fg = s->fgrav, *restrict fb = s->fbase, *restrict w2 = s->w2;
    const double *restrict x = s->x, *restrict xp = s->x_prev;
    double *restrict vw = s->tmp;
    if (vel_from_x) {
#pragma omp simd
        for (int k = 0; k < n; k++) {
            vw[k] = (x[k] - xp[k]) * rh;
            fe[k] = gs * fg[k] + ba * fb[k];
            fl[k] = 0.0;
        }
    } else {
#pragma omp simd
        for (int k = 0; k < n; k++) {
            fe[k] = gs * fg[k] + ba * fb[k];
            fl[k] = 0.0;
        }
    }
    /* Damping force C v in coordinates. */
    const double *restrict v = s->tmp;
    if (s->damp_kind == TVDS_DAMP_NONE) {
        for (int k = 0; k < n; k++)
            fd[k] = 0.0;
    } else if (s->modal) {
        double a, b;
        tvds_damping_at(&m->damping[i], t, &a, &b);
        if (s->bh) {
            const double *restrict ch = s->chat;
            a -= s->a_ref, b -= s->b_ref;
            for (int k = 0; k < n; k++)
                fd[k] = (ch[k] + a + b * w2[k]) * v[k];
        } else {
#pragma omp simd
            for (int k = 0; k < n; k++)
                fd[k] = (a + b * w2[k]) * v[k];
        }
    } else if (s->lumped) {
        double a, b;
        tvds_damping_at(&m->damping[i], t, &a, &b);
        sim_lumped_kx(s, v, NULL, fd, NULL);
        for (int r = 0; r < n; r++)
            fd[r] = a * s->mdiag[r] * v[r] + b * fd[r];
    } else {
        double a = 0.0, b = 0.0;
        int mat = s->damp_kind == TVDS_DAMP_MATRIX;
        if (!mat) tvds_damping_at(&m->damping[i], t, &a, &b);
        if (mat) {
            cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, S->C, n, v, 1, 0.0, s->fdamp, 1);
        } else {
            cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, a, S->M, n, v, 1, 0.0, s->fdamp, 1);
            cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, b, S->K, n, v, 1, 1.0, s->fdamp, 1);
        }
    }
}

/* The loads' values (d->load_val) on their DoFs. */
static int add_loads(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    for (int l = 0; l < m->nload; l++) {
        const tvds_load *L = &m->loads[l];
        if (L->sub < 0 || L->sub >= d->nsub || L->dof < 0 || L->dof >= d->sub[L->sub].n)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "load '%s': bad DoF", L->name ? L->name : "?");
        sim_sub *ls = &d->sub[L->sub];
        if (ls->load_done && ls->load1 == l) {
            /* Added in the predictor's pass; its non-finite check as add_force's. */
            ls->pchk += d->load_val[l] * 0.0;
            ls->load_done = 0;
            continue;
        }
        add_force(ls, L->dof, d->load_val[l], ls->fext);
    }
    return TVDS_OK;
}

/* The discrete elements' forces at t from the relative displacements in x and velocities in
 * tmp. */
static int element_forces(const tvds_model *m, tvds_data *d, double t, tvds_ctx *ctx)
{
    /* The laws advance their state once per force evaluation: the ElasticFriction
     * forces at t_0 computed by the start (sim.c) are reused by step 0 (d->law_cached: state
     * NULL), so t_0 is stepped once; springs and dampers are re-evaluated. */
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        const sim_sub *a = &d->sub[E->sub[0]];
        double du = sim_phys(a, a->x, E->dof[0]), dv = sim_phys(a, a->tmp, E->dof[0]);
        if (E->sub[1] >= 0) {
            const sim_sub *b = &d->sub[E->sub[1]];
            du -= sim_phys(b, b->x, E->dof[1]);
            dv -= sim_phys(b, b->tmp, E->dof[1]);
        }
        d->el_du[e] = du;
        d->el_dv[e] = dv;
    }
    int rc = tvds_elements_force(m, t, d->h, d->el_du, d->el_dv, d->law_cached ? NULL : d->el_state,
                                 d->el_f, d->el_res, ctx);
    if (rc) return rc;
    for (int e = 0; e < m->nel; e++) {
        const tvds_element *E = &m->elements[e];
        add_force(&d->sub[E->sub[0]], E->dof[0], d->el_f[e], d->sub[E->sub[0]].fel);
        if (E->sub[1] >= 0)
            add_force(&d->sub[E->sub[1]], E->dof[1], -d->el_f[e], d->sub[E->sub[1]].fel);
    }
    return TVDS_OK;
}

/* Penalty contacts: explicit forces at t_n on the slave and the master nodes (a run with
 * penalty points has fel_used). */
static int penalty_forces(const tvds_model *m, tvds_data *d, double t, tvds_ctx *ctx)
{
    int rc = sim_penalty_forces(m, d, t, ctx);
    if (rc) return rc;
    for (int i = 0; i < d->ncp; i++) {
        const sim_cp *c = &d->cp[i];
        if (!c->pen) continue;
        for (int e = 0; e < c->ne; e++) {
            double F = c->e_w[e] * c->pen_F[c->e_dir[e]];
            if (F != 0.0) add_force(&d->sub[c->e_sub[e]], c->e_dof[e], F, d->sub[c->e_sub[e]].fel);
        }
    }
    return TVDS_OK;
}

/* fext and fel at time t from coordinates x and coordinate velocities vel (vel stored in
 * each sub's tmp; with vel_from_x computed here as (x - x_prev)/h, and the modal predictor
 * x_new fused in), fdamp = C vel. Element and penalty laws are stepped once per call, except
 * that step 0 reuses the evaluation at t_0 made for the initial acceleration. */
int sim_forces(const tvds_model *m, tvds_data *d, double t, int vel_from_x, tvds_ctx *ctx)
{
    double rh = 1.0 / d->h;
    double gs = tvds_fn_eval(&m->gravity_fn, t);
    double ba = m->has_base_acc ? tvds_fn_eval(&m->base_acc, t) : 0.0;
    /* The loads' values first: nothing below depends on them until add_force. */
    for (int l = 0; l < m->nload; l++)
        d->load_val[l] = tvds_fn_eval_hint(&m->loads[l].fn, t, &d->load_hint[l]);
    for (int i = 0; i < d->nsub; i++) {
        const sim_sub *s = &d->sub[i];
        if (vel_from_x && s->modal)
            modal_predict(m, d, i, t, vel_from_x, rh, gs, ba);
        else if (vel_from_x && s->lumped)
            lumped_predict(m, d, i, t, rh, gs, ba);
        else
            sub_forces(m, d, i, t, vel_from_x, rh, gs, ba);
    }
    int rc = add_loads(m, d, ctx);
    if (!rc && m->nel > 0) rc = element_forces(m, d, t, ctx);
    if (!rc && d->fel_used) rc = penalty_forces(m, d, t, ctx);
    if (rc) return rc;
    d->law_init = 0;
    d->law_cached = 0;
    return TVDS_OK;
}

/* acc = M^-1 (fext + fel - fdamp - K x) in coordinates (into acc). */
void sim_accel(const tvds_model *m, const sim_sub *s, int i, double *acc)
{
    int n = s->n;
    if (s->modal) {
        const double *restrict fe = s->fext, *restrict fl = s->fel, *restrict fd = s->fdamp,
                               *restrict w2 = s->w2, *restrict x = s->x;
        double *restrict ac = acc;
#pragma omp simd
        for (int k = 0; k < n; k++)
            ac[k] = fe[k] + fl[k] - fd[k] - w2[k] * x[k];
        if (s->bh) /* exact modal propagation: the modal mass is 1/bh */
            for (int k = 0; k < n; k++)
                ac[k] *= s->bh[k];
        return;
    }
    if (s->lumped) {
        sim_lumped_kx(s, s->x, NULL, acc, NULL);
        for (int r = 0; r < n; r++)
            acc[r] = s->minv[r] * (s->fext[r] + s->fel[r] - s->fdamp[r] - acc[r]);
        return;
    }
    const double *K = m->subs[i]->K;
    double *r = s->cpush; /* scratch */
    for (int k = 0; k < n; k++)
        r[k] = s->fext[k] + s->fel[k] - s->fdamp[k];
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, K, n, s->x, 1, 1.0, r, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, s->Y, n, r, 1, 0.0, acc, 1);
}

int sim_predict(const tvds_model *m, tvds_data *d, tvds_ctx *ctx)
{
    double h = d->h, t = d->t0 + (double)d->step * h;
    double h2 = h * h;
    /* sim_forces computes the backward velocities v = (x - x_prev)/h into each sub's tmp. */
    int rc = sim_forces(m, d, t, 1, ctx);
    if (rc) {
        for (int i = 0; i < d->nsub; i++)
            d->sub[i].fused_h2 = 0.0;
        return rc;
    }
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        const double *restrict x = s->x, *restrict xp = s->x_prev;
        double *restrict xn = s->x_new;
        /* One test per substructure (below). */
        double chk = 0.0;
        int n = s->n;
        if (s->modal || s->lumped) {
            /* Computed by the force pass (sim_forces, vel_from_x). */
            chk = s->pchk;
            s->fused_h2 = 0.0;
        } else {
            sim_accel(m, s, i, s->x_new);
#pragma omp simd reduction(+ : chk)
            for (int k = 0; k < n; k++) {
                xn[k] = 2.0 * x[k] - xp[k] + h2 * xn[k];
                chk += xn[k] * 0.0;
            }
        }
        /* chk: a sum of x_new (modal) or of x_new * 0; not finite when a value is not, or
         * when the sum overflowed (then no coordinate is found, and the step goes on). */
        int k = 0;
        if (!isfinite(chk))
            while (k < s->n && isfinite(xn[k]))
                k++;
        if (!isfinite(chk) && k < s->n) {
            return TVDS_ERROR(ctx, TVDS_ERR_DIVERGED,
                              "t = %.9g s, step %ld: non-finite predicted state in "
                              "substructure '%s' (coordinate %d)",
                              t, d->step, m->subs[i]->name ? m->subs[i]->name : "?", k);
        }
    }
    sim_touch(d, 1);
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        if (s->work_ver == -3) s->work_ver = -4; /* x*'s sums, until corrected */
    }
    return TVDS_OK;
}

/* Cached candidate displacements of x_new follow a column update x_new -= c Y(:,dof) through
 * G = M^-1 restricted to the candidates: du_a = -c G(a, b). O(cached entries), not O(n). */
static void cache_correct(sim_sub *s, int dof, double c)
{
    int cb = s->cand[dof];
    const double *g = s->G + (size_t)cb * s->ncand;
    if (s->gdiag) {
        /* G diagonal (lumped masses): the column moves its own DoF only; the loop below would
         * subtract exact zeros from the others. */
        if (s->ucv[1][cb] == s->ver[1]) s->uc[1][cb] -= c * g[cb];
        return;
    }
    for (int u = 0; u < s->ucn1; u++) {
        int a = s->ucl1[u];
        s->uc[1][a] -= c * g[a];
    }
}

/* Apply the ns (1, 2 or 4; 3 padded) merged columns sel of substructure s, one pass over x_new,
 * with the work sums when last, and carry the cached displacements. */
static void apply_group(tvds_data *d, sim_sub *s, const int sel[4], int ns, int last)
{
    double c[4] = {0, 0, 0, 0};
    const double *y[4];
    for (int j = 0; j < 4; j++) {
        if (j < ns) c[j] = d->cr_c[sel[j]];
        y[j] = s->Yx + (size_t)d->cr_dof[sel[j]] * s->n;
    }
    double *restrict xn = s->x_new;
    const double *restrict y0 = y[0], *restrict y1 = y[1], *restrict y2 = y[2], *restrict y3 = y[3];
    double c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
    int n = s->n;
    /* The last columns of this substructure (last: x_new is final after them, unless an
     * exact stick below moves it): the step's work sums in the same pass (what
     * sim_record's work pass computes, in the same order), when no element force enters
     * them. */
    int fuse = last && s->modal && !d->fel_used && !d->init_mode;
    if (!fuse) s->work_ver = 0; /* an earlier pass's sums are stale */
    if (fuse) {
        /* A substructure whose fext is 0 and stays 0 (fext_kind 0) has no external work:
         * its loops leave that sum out (it was +0 exactly; a non-finite x_new still makes
         * the damping sum NaN). */
        corr_arrays A = {xn, s->x_prev, s->fext, s->fdamp, y0, y1, y2, y3, 0.0, 0.0};
        int ext = s->fext_kind != 0;
        if (ns == 1)
            ext ? corr_pass(&A, n, 1, 1, c0, c1, c2, c3) : corr_pass(&A, n, 1, 0, c0, c1, c2, c3);
        else if (ns == 2)
            ext ? corr_pass(&A, n, 2, 1, c0, c1, c2, c3) : corr_pass(&A, n, 2, 0, c0, c1, c2, c3);
        else
            ext ? corr_pass(&A, n, 4, 1, c0, c1, c2, c3) : corr_pass(&A, n, 4, 0, c0, c1, c2, c3);
        s->work[0] = A.we;
        s->work[1] = A.wd;
        s->work_ver = -2; /* stamped with x_new's new version below */
    } else if (ns == 1) {
#pragma omp simd
        for (int k = 0; k < n; k++)
            xn[k] -= c0 * y0[k];
    } else if (ns == 2) {
#pragma omp simd
        for (int k = 0; k < n; k++)
            xn[k] -= c0 * y0[k] + c1 * y1[k];
    } else {
        /* ns = 3 has c3 = 0 and y3 = y0. */
#pragma omp simd
        for (int k = 0; k < n; k++)
            xn[k] -= (c0 * y0[k] + c1 * y1[k]) + (c2 * y2[k] + c3 * y3[k]);
    }
    if (s->gdiag) {
        for (int j = 0; j < ns; j++)
            cache_correct(s, d->cr_dof[sel[j]], c[j]);
    } else {
        /* cache_correct of the ns columns, entry by entry: each cached displacement takes
         * the columns' terms in their order, in a register (the same values). */
        const double *g[4];
        for (int j = 0; j < ns; j++)
            g[j] = s->G + (size_t)s->cand[d->cr_dof[sel[j]]] * s->ncand;
        double *restrict uc = s->uc[1];
        for (int u = 0; u < s->ucn1; u++) {
            int a = s->ucl1[u];
            double v = uc[a];
            for (int j = 0; j < ns; j++)
                v -= c[j] * g[j][a];
            uc[a] = v;
        }
    }
    for (int j = 0; j < ns; j++)
        d->cr_c[sel[j]] = 0.0; /* applied */
}

/* The merge of the last correction kept (docs/theory.md 9): while the rows have the entries
 * (candidates and rows) it was made for and no coefficient is 0, each entry adds to the
 * column it added to then, and the columns form the same groups in the same order; the sums
 * are those of the merge, term by term. Returns 0 when the plan does not apply. */
static int correct_planned(tvds_data *d, double h2)
{
    if (d->cp_np <= 0 || d->cp_np != d->pool_n || d->cp_nrow != d->nrow || d->check.reuse_off)
        return 0;
    for (int e = 0; e < d->pool_n; e++)
        if (d->p_cand[e] != d->cp_pc[e] || d->p_row[e] != d->cp_pr[e]) return 0;
    for (int q = 0; q < d->cp_nq; q++)
        d->cr_c[q] = 0.0;
    for (int r = 0; r < d->nrow; r++) {
        const sim_row *R = &d->row[r];
        double l = d->lam[r];
        if (l == 0.0) return 0;
        for (int e = R->off; e < R->off + R->ne; e++) {
            double c = h2 * d->p_be[e] * l;
            if (c == 0.0) return 0;
            d->cr_c[d->cp_q[e]] += c;
        }
    }
    for (int q = 0; q < d->cp_nq; q++)
        if (d->cr_c[q] == 0.0) return 0;
    for (int i = 0; i < d->nsub; i++)
        d->sub[i].corrected = 0;
    for (int g = 0; g < d->cp_ng; g++) {
        sim_sub *s = &d->sub[d->cr_sub[d->cp_gsel[4 * g]]];
        s->corrected = 1;
        apply_group(d, s, d->cp_gsel + 4 * g, d->cp_gns[g], d->cp_glast[g]);
    }
    return 1;
}

void sim_correct(const tvds_model *m, tvds_data *d)
{
    double h2 = d->h * d->h;
    if (!correct_planned(d, h2)) {
        /* The rows' entries merged per DoF (a normal and a tangential row of a contact point
         * share their DoFs): one column update per distinct DoF. The merge is kept as the plan
         * of the next corrections when every coefficient is nonzero. */
        int nu = 0, plan = !d->check.reuse_off && d->pool_n > 0;
        for (int r = 0; r < d->nrow; r++) {
            const sim_row *R = &d->row[r];
            double l = d->lam[r];
            if (l == 0.0) {
                plan = 0;
                continue;
            }
            for (int e = R->off; e < R->off + R->ne; e++) {
                double c = h2 * d->p_be[e] * l;
                if (c == 0.0) {
                    plan = 0;
                    continue;
                }
                int q = d->cr_pos[d->p_cand[e]];
                if (q < 0) {
                    q = d->cr_pos[d->p_cand[e]] = nu;
                    d->cr_sub[nu] = d->p_sub[e];
                    d->cr_dof[nu] = d->p_dof[e];
                    d->cr_c[nu++] = 0.0;
                }
                d->cr_c[q] += c;
                d->cp_q[e] = q;
            }
        }
        for (int q = 0; q < nu; q++)
            d->cr_pos[d->cand_base[d->cr_sub[q]] + d->sub[d->cr_sub[q]].cand[d->cr_dof[q]]] = -1;
        for (int i = 0; i < d->nsub; i++)
            d->sub[i].corrected = 0;
        for (int q = 0; q < nu; q++)
            if (d->cr_c[q] == 0.0) plan = 0; /* a merged column that cancelled */
        int ng = 0;
        for (int q = 0; q < nu; q++) {
            if (d->cr_c[q] == 0.0) continue; /* cancelled, or applied in a group */
            sim_sub *s = &d->sub[d->cr_sub[q]];
            s->corrected = 1;
            if (s->lumped) {
                /* Y(:,j) = e_j / m_jj: the force moves its own DoF. */
                int j = d->cr_dof[q];
                s->x_new[j] -= d->cr_c[q] * s->minv[j];
                cache_correct(s, j, d->cr_c[q]);
                d->cr_c[q] = 0.0;
                plan = 0;
                continue;
            }
            /* Up to four columns of the same substructure in one pass over x_new. */
            int sel[4] = {q, q, q, q}, ns = 1;
            for (int p = q + 1; p < nu && ns < 4; p++)
                if (d->cr_sub[p] == d->cr_sub[q] && d->cr_c[p] != 0.0) sel[ns++] = p;
            int last = 1;
            for (int p = sel[ns - 1] + 1; p < nu && last; p++)
                if (d->cr_sub[p] == d->cr_sub[q] && d->cr_c[p] != 0.0) last = 0;
            for (int j = 0; j < 4; j++)
                d->cp_gsel[4 * ng + j] = sel[j];
            d->cp_gns[ng] = ns;
            d->cp_glast[ng++] = last;
            apply_group(d, s, sel, ns, last);
        }
        d->cp_np = plan ? d->pool_n : 0;
        d->cp_nrow = d->nrow;
        d->cp_nq = nu;
        d->cp_ng = ng;
        for (int e = 0; plan && e < d->pool_n; e++) {
            d->cp_pc[e] = d->p_cand[e];
            d->cp_pr[e] = d->p_row[e];
        }
    }
    /* Exact stick against a rigid master (docs/theory.md, "Exact zero velocity"): a stuck
     * tangential row with one entry, on a DoF whose displacement is one coordinate
     * (u_j = Y(k,j) x[k]), holds bc (u_{n+1} - u_n) = t . dP exactly: the coordinate is set to
     * that value, so a point stuck on a fixed master keeps its displacement bit for bit. The
     * corrector above reached it to round-off. */
    if (!d->init_mode)
        for (int r = 0; r < d->nrow; r++) {
            const sim_row *R = &d->row[r];
            if (R->kind != 2 || R->ne < 1) continue;
            const sim_cp *c = &d->cp[R->cp];
            /* Stuck along this axis (FiLm also has tangential rows for sliding points). */
            if (c->state != TVDS_STICK || c->mu_t[R->k] != 0.0) continue;
            if (!sim_master_of(m, c)->prescribed) continue;
            int e1 = -1, nz = 0;
            for (int e = R->off; e < R->off + R->ne; e++)
                if (d->p_bc[e] != 0.0) e1 = e, nz++;
            if (nz != 1) continue;
            sim_sub *s = &d->sub[d->p_sub[e1]];
            int j = d->p_dof[e1], cj = s->cand[j], k = s->ysingle[cj];
            if (k < 0) continue;
            double dpt = 0.0;
            for (int a = 0; a < 3; a++)
                dpt += c->t[R->k][a] * c->dP[a];
            double yk = s->modal ? s->Y[k + (size_t)j * s->n] : 1.0;
            s->x_new[k] = dpt == 0.0 ? s->x[k] : s->x[k] + dpt / (d->p_bc[e1] * yk);
            s->work_ver = 0; /* x_new moved after the work sums */
            s->uc[1][cj] = sim_phys(s, s->x_new, j);
            s->stuck_set = 1;
        }
    /* x_new changed: new version, with the updated cache entries carried over. A substructure
     * that no column and no exact stick moved keeps x_new, its version and its caches. */
    for (int i = 0; i < d->nsub; i++) {
        sim_sub *s = &d->sub[i];
        if (!s->corrected && !s->stuck_set) {
            s->work_ver = s->work_ver == -4 ? s->ver[1] : 0;
            continue;
        }
        s->stuck_set = 0;
        s->ver[1] = ++d->ver_counter;
        /* -2: the corrector's pass; -4: the predictor's, x_new still x* (not corrected). */
        s->work_ver = s->work_ver == -2 || (s->work_ver == -4 && !s->corrected) ? s->ver[1] : 0;
        for (int q = 0; q < s->ucn1; q++)
            s->ucv[1][s->ucl1[q]] = s->ver[1];
    }
}
