/* check_bob3d.c — the beam-on-beam pair as solids (tvds model beam-on-beam-3d) in contact:
 * the static line contact of the tip C solved directly from the reduced stiffnesses (where the
 * load of the tip line goes, and why), and a short transient of the shipped 3D case on a coarse
 * mesh with each method (non-penetration, compressive multipliers, friction power >= 0, the
 * vertical balance of beam 1 and its static closed form); the mesh convergence study of its CEA
 * (`tvds study --convergence --3d`): the criterion window by window and the command on a tiny
 * pair. */
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/sim_impl.h" /* test hooks: the contact points' forces, frames and gaps */
#include "tvds/tvds_beams.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_cea.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_sim.h"
#define TVDS_TEST_CHOLMOD
#define TVDS_TEST_ENGINE
#include "tvds_test.h"

#define B3_F 0.2 /* the carriage load of the case [N] */

/* ---- Static line contact, solved directly -------------------------------------------------- */

/* Index of DoF (node, dir) of s, -1 when absent. */
static int dof_of(const tvds_substructure *s, long node, int dir)
{
    for (int q = 0; q < s->n; q++)
        if (s->dofs[q].kind == TVDS_DOF_PHYSICAL && s->dofs[q].node == node &&
            s->dofs[q].dir == dir)
            return q;
    return -1;
}

static const tvds_nodeset *set_of(const tvds_substructure *s, const char *name)
{
    for (int k = 0; k < s->nsets; k++)
        if (!strcmp(s->sets[k].name, name)) return &s->sets[k];
    ck_abort_msg("no node set %s", name);
    return NULL;
}

#define B3_MAXC 17

/* The static state of the pair under the carriage load F_y = -F with A.x and A.z held, the tip
 * nodes sliding along +x on beam 2's upper face (friction -mu lambda_N along x on each slave
 * node, its reaction on the master), in the undeformed geometry (normal +y, gap = u_y of C minus
 * the bilinear interpolation of beam 2's face at C's (x, z)). Craig-Bampton stiffnesses are
 * block-diagonal between boundary DoFs and modes, so the static state of the reduced models is
 * that of the full ones. Active set on the contact nodes: every node closed first, then the most
 * tensile multiplier released (or every penetrating open node closed) until neither is left.
 * Out: lambda[i] and gap[i] per node of C (in set order), the number of nodes nc. */
static void static_line(const tvds_substructure *s1, const tvds_substructure *s2, double mu,
                        double *lambda, double *gap, int *nc_out)
{
    int n1 = s1->n, n2 = s2->n, N = n1 + n2;
    const tvds_nodeset *A = set_of(s1, "A"), *C = set_of(s1, "C");
    int nc = C->n;
    ck_assert_int_le(nc, B3_MAXC);
    /* Beam 2's face nodes around each slave node (rectangular faces: x and z lines) and their
     * bilinear weights. */
    int my[B3_MAXC][4], mx[B3_MAXC][4];
    double w[B3_MAXC][4];
    for (int i = 0; i < nc; i++) {
        const double *X = s1->dofs[dof_of(s1, C->nodes[i], 1)].xyz;
        double xl = -INFINITY, xh = INFINITY, zl = -INFINITY, zh = INFINITY;
        for (int q = 0; q < n2; q++) {
            const tvds_dof *d = &s2->dofs[q];
            if (d->kind != TVDS_DOF_PHYSICAL || d->dir != 1) continue;
            double x = d->xyz[0], z = d->xyz[2];
            if (x <= X[0] + 1e-12 && x > xl) xl = x;
            if (x > X[0] + 1e-12 && x < xh) xh = x;
            if (z <= X[2] + 1e-12 && z > zl) zl = z;
            if (z > X[2] + 1e-12 && z < zh) zh = z;
        }
        ck_assert(isfinite(xl) && isfinite(xh) && isfinite(zl));
        if (!isfinite(zh)) zh = zl + 1.0; /* C on the face's far edge: weight 0 beyond */
        double a = (X[0] - xl) / (xh - xl), b = (X[2] - zl) / (zh - zl);
        double xs[4] = {xl, xh, xh, xl}, zs[4] = {zl, zl, zh, zh};
        double ws[4] = {(1 - a) * (1 - b), a * (1 - b), a * b, (1 - a) * b};
        for (int c = 0; c < 4; c++) {
            w[i][c] = ws[c];
            my[i][c] = mx[i][c] = -1;
            for (int q = 0; q < n2 && my[i][c] < 0; q++) {
                const tvds_dof *d = &s2->dofs[q];
                if (d->kind == TVDS_DOF_PHYSICAL && d->dir == 1 && fabs(d->xyz[0] - xs[c]) < 1e-9 &&
                    fabs(d->xyz[2] - zs[c]) < 1e-9) {
                    my[i][c] = n1 + q;
                    mx[i][c] = n1 + dof_of(s2, d->node, 0);
                }
            }
            ck_assert(my[i][c] >= 0 || ws[c] == 0.0);
        }
    }
    int act[B3_MAXC], qax = dof_of(s1, A->nodes[0], 0), qay = dof_of(s1, A->nodes[0], 1),
                      qaz = dof_of(s1, A->nodes[0], 2);
    for (int i = 0; i < nc; i++)
        act[i] = 1;
    int nkmax = N + 2 + nc;
    double *Kk = tvds_malloc((size_t)nkmax * nkmax * sizeof *Kk),
           *b = tvds_malloc(nkmax * sizeof *b);
    int *piv = tvds_malloc(nkmax * sizeof *piv);
    /* Rows and multipliers scaled by sc so that the blocks of the saddle-point matrix have
     * comparable sizes (beam 2's stiffness entries are 1e4..1e7 N/m). */
    const double sc = 1e3;
    for (int it = 0; it <= 2 * nc; it++) {
        int na = 0, row[B3_MAXC];
        for (int i = 0; i < nc; i++)
            if (act[i]) row[na++] = i;
        int nk = N + 2 + na;
        memset(Kk, 0, (size_t)nk * nk * sizeof *Kk);
        memset(b, 0, (size_t)nk * sizeof *b);
#define KK(r, c) Kk[(size_t)(c)*nk + (r)]
        for (int c = 0; c < n1; c++)
            for (int r = 0; r < n1; r++)
                KK(r, c) = s1->K[(size_t)c * n1 + r];
        for (int c = 0; c < n2; c++)
            for (int r = 0; r < n2; r++)
                KK(n1 + r, n1 + c) = s2->K[(size_t)c * n2 + r];
        KK(qax, N) = -sc, KK(N, qax) = sc;
        KK(qaz, N + 1) = -sc, KK(N + 1, qaz) = sc;
        for (int k = 0; k < na; k++) {
            int i = row[k], col = N + 2 + k;
            int sx = dof_of(s1, C->nodes[i], 0), sy = dof_of(s1, C->nodes[i], 1);
            /* Force per unit multiplier: on the slave +y - mu x, on the master w (-y + mu x);
             * the row: the gap. */
            KK(sy, col) -= sc;
            KK(sx, col) += mu * sc;
            KK(col, sy) = sc;
            for (int c = 0; c < 4; c++)
                if (my[i][c] >= 0) {
                    KK(my[i][c], col) += sc * w[i][c];
                    KK(mx[i][c], col) -= mu * sc * w[i][c];
                    KK(col, my[i][c]) = -sc * w[i][c];
                }
        }
#undef KK
        b[qay] = -B3_F;
        ck_assert_int_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, nk, 1, Kk, nk, piv, b, nk), 0);
        for (int i = 0; i < nc; i++)
            lambda[i] = 0.0;
        for (int k = 0; k < na; k++)
            lambda[row[k]] = sc * b[N + 2 + k];
        for (int i = 0; i < nc; i++) {
            gap[i] = b[dof_of(s1, C->nodes[i], 1)];
            for (int c = 0; c < 4; c++)
                if (my[i][c] >= 0) gap[i] -= w[i][c] * b[my[i][c]];
        }
        int worst = -1, change = 0;
        for (int i = 0; i < nc; i++)
            if (act[i] && lambda[i] < 0 && (worst < 0 || lambda[i] < lambda[worst])) worst = i;
        if (worst >= 0)
            act[worst] = 0, change = 1;
        else
            for (int i = 0; i < nc; i++)
                if (!act[i] && gap[i] < -1e-15) act[i] = 1, change = 1;
        if (!change) break;
        ck_assert_int_lt(it, 2 * nc);
    }
    tvds_free(Kk);
    tvds_free(b);
    tvds_free(piv);
    *nc_out = nc;
}

/* The pair written with p into a fresh directory and read back. */
static void write_pair(const tvds_bob_params *p, char *dir, size_t n, tvds_substructure **s1,
                       tvds_substructure **s2)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_test_mkdtemp(dir, n, "/tmp/tvds_bob3d_");
    ck_assert_msg(tvds_bob3d_write(p, dir, NULL, &cc, &ctx) == TVDS_OK, "%s", ctx.msg);
    char d1[300], d2[300];
    snprintf(d1, sizeof d1, "%s/beam1", dir);
    snprintf(d2, sizeof d2, "%s/beam2", dir);
    ck_assert_msg(tvds_substructure_read(d1, NULL, s1, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_msg(tvds_substructure_read(d2, NULL, s2, &ctx) == TVDS_OK, "%s", ctx.msg);
}

/* Where the tip line's load goes (docs/models.md, "The 3D squeal case"). Default mesh, C at
 * x = 20 mm, mu = 0.3: the two edge nodes carry F/2 each and the three inner ones are open
 * (measured 21.6 nm at z = +-2.5 mm, 52.1 nm at z = 0), with or without friction. The cause is
 * beam 2's Poisson ratio (its anticlastic curvature across the width: the upper face is concave
 * across the width, so the straight tip line rests on its ends): with nu = 0 in beam 2 the inner
 * nodes at z = +-2.5 mm carry load (measured 0.0276 N each) and the centre stays open by a few
 * nm only (3.8 nm measured: the local transverse bending of beam 2's 20 mm section under the
 * 10 mm line). */
START_TEST(test_static_tip_line)
{
    double lam[B3_MAXC], gap[B3_MAXC];
    int nc = 0;
    for (int variant = 0; variant < 3; variant++) {
        tvds_bob_params p = tvds_bob3d_default();
        double mu = variant == 1 ? 0.0 : 0.3;
        if (variant == 2) p.beam2.nu = 0.0;
        char dir[256];
        tvds_substructure *s1 = NULL, *s2 = NULL;
        write_pair(&p, dir, sizeof dir, &s1, &s2);
        static_line(s1, s2, mu, lam, gap, &nc);
        ck_assert_int_eq(nc, 5);
        double sum = 0.0;
        for (int i = 0; i < nc; i++) {
            ck_assert_double_ge(lam[i], 0.0);
            ck_assert_double_ge(gap[i], -1e-15);
            sum += lam[i];
        }
        /* Undeformed geometry: the vertical balance of beam 1 is sum lambda = F exactly, to the
         * accuracy of the saddle-point solve (stiffnesses 1e2 .. 1e8 N/m; measured 1.2e-8 F). */
        ck_assert_double_le(fabs(sum - B3_F), 1e-7 * B3_F);
        /* Symmetry across the width. */
        ck_assert_double_le(fabs(lam[0] - lam[4]), 1e-7 * B3_F);
        ck_assert_double_le(fabs(lam[1] - lam[3]), 1e-7 * B3_F);
        if (variant < 2) {
            ck_assert_double_le(fabs(lam[0] - 0.5 * B3_F), 1e-7 * B3_F);
            for (int i = 1; i < 4; i++)
                ck_assert_msg(lam[i] == 0.0 && gap[i] > 10e-9, "node %d: lambda %g gap %g", i,
                              lam[i], gap[i]);
            ck_assert_double_gt(gap[2], 2 * gap[1]);
        } else {
            ck_assert_msg(lam[1] > 0.1 * B3_F && lam[1] < lam[0], "nu2 = 0: lambda %g %g %g",
                          lam[0], lam[1], lam[2]);
            ck_assert_double_lt(gap[2], 10e-9);
        }
        tvds_substructure_free(&s1);
        tvds_substructure_free(&s2);
        ck_assert_int_eq(tvds_test_rmtree(dir), 0);
    }
}
END_TEST

/* ---- Transient of the shipped 3D case on a coarse mesh ------------------------------------- */

/* The coarse pair of the transient test: beam 1 6 x 1 x 4, beam 2 10 x 1 x 4, 6 modes each
 * (the five tip nodes of the shipped case, 2.2e-7 s steps). */
static tvds_bob_params coarse(void)
{
    tvds_bob_params p = tvds_bob3d_default();
    p.beam1.nx = 6;
    p.beam1.ny = 1;
    p.beam2.nx = 10;
    p.beam2.ny = 1;
    p.modes1 = p.modes2 = 6;
    return p;
}

#define B3_T_END  0.05
#define B3_T_RAMP 0.02
#define B3_T_WIN  0.03 /* the balance window: B3_T_WIN ... B3_T_END */

/* The shipped case on the coarse pair in dir: the carriage load ramped in over B3_T_RAMP. */
static tvds_model *coarse_case(const tvds_bob_params *p, const char *dir, int method)
{
    char o[6][400];
    long a_id = (p->beam1.nx + 1L) * (p->beam1.ny + 1) * (p->beam1.nz + 1) + 1;
    snprintf(o[0], sizeof o[0], "substructure.beam1.dir=%s/beam1", dir);
    snprintf(o[1], sizeof o[1], "substructure.beam2.dir=%s/beam2", dir);
    snprintf(o[2], sizeof o[2], "constraint.drive.terms=beam1:%ld:ux", a_id);
    snprintf(o[3], sizeof o[3], "constraint.lateral.terms=beam1:%ld:uz", a_id);
    snprintf(o[4], sizeof o[4], "load.Fy.dof=beam1:%ld:uy", a_id);
    snprintf(o[5], sizeof o[5], "load.Fy.f=smooth %g 0 %g", -B3_F, B3_T_RAMP);
    const char *ov[] = {o[0], o[1], o[2], o[3], o[4], o[5], "run.t_end=0.05"};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_model *m = NULL;
    ck_assert_msg(tvds_case_read("models/beam_on_beam/beam_on_beam_3d.ini", ov, 7, &m, &ctx) ==
                      TVDS_OK,
                  "%s", ctx.msg);
    m->opt.method = method;
    return m;
}

/* The shipped 3D case (subs-b / FiLm) on the coarse pair, 0.05 s: the carriage load ramps in
 * over 20 ms while C starts sliding. At every step and node: no penetration, lambda_N >= 0,
 * friction power >= 0. Over the window 30 .. 50 ms (steady sliding, C's five nodes in slip or
 * open), the impulse balance of beam 1 along y, whose rigid translation meets neither the
 * elastic forces nor the stiffness-proportional damping nor the carriage rows (A.x, A.z):
 *   int F_y,contact dt - F T = P_y(t1) - P_y(t0) + alpha0 w . (u(t1) - u(t0)),
 * with P_y = w . v and w = M r_y. Its closed form in terms of the normal forces,
 * sum lambda_N (cos g + mu sin g) = F (g the slope of beam 2's face at C: n = (sin g, cos g),
 * friction mu lambda_N against the sliding along the face), holds up to the friction's
 * direction in the tangent plane (the edge nodes slide with a small lateral component), which
 * is bounded by the slope term mu sum lambda_N sin g itself. The load stays on the edge nodes as
 * in the static solution (test_static_tip_line): the inner three are open at every step. */
START_TEST(test_transient_coarse)
{
    static const int methods[2] = {TVDS_METHOD_SUBS_B, TVDS_METHOD_FILM};
    int method = methods[_i];
    const char *mn = tvds_method_name(method);
    tvds_bob_params p = coarse();
    char dir[256];
    tvds_substructure *s1 = NULL, *s2 = NULL;
    write_pair(&p, dir, sizeof dir, &s1, &s2);
    tvds_model *m = coarse_case(&p, dir, method);
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_data *d = NULL;
    ck_assert_msg(tvds_data_create(m, &d, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(d->ncp, 5);
    const tvds_substructure *b1 = m->subs[0];
    ck_assert_str_eq(b1->name, "beam1");
    double mu = m->contacts[0].mu_k, alpha = m->damping[0].alpha0;
    ck_assert_double_gt(m->damping[0].t_hold, B3_T_END);
    int n1 = b1->n;
    double *wy = tvds_calloc((size_t)n1, sizeof *wy);
    for (int j = 0; j < n1; j++)
        for (int i = 0; i < n1; i++)
            if (b1->dofs[i].kind == TVDS_DOF_PHYSICAL && b1->dofs[i].dir == 1)
                wy[j] += b1->M[(size_t)j * n1 + i];
    double h = d->h, cf = 0.0, fy = 0.0, T = 0.0, ln[5] = {0}, wu0 = NAN, wu_prev = NAN, wu1 = NAN,
           P0 = NAN, P1 = NAN, fdev = 0.0, slope = 0.0, cone = 0.0;
    /* FiLm enforces the gap of the step's linearised geometry (no correction of the published
     * gap, unlike the Subs-* predictors): an inner node that the load ramp lifts off keeps
     * -7.9e-12 m for a few steps near t = 8 ms (measured), 5e-7 of C's static deflection
     * (15 um); the Subs-* methods to round-off (measured -4.8e-16 m). */
    double gtol = method == TVDS_METHOD_FILM ? 1e-6 * 15e-6 : 1e-15;
    int nopen_inner = 0, nwin = 0;
    while (tvds_data_time(d) < B3_T_END - 0.5 * h) {
        ck_assert_msg(tvds_step(m, d, &ctx) == TVDS_OK, "%s: %s", mn, ctx.msg);
        double wu = 0.0, t = tvds_data_time(d);
        for (int j = 0; j < n1; j++)
            wu += wy[j] * sim_u(d, 0, j, 0);
        for (int i = 0; i < d->ncp; i++) {
            const sim_cp *c = &d->cp[i];
            ck_assert_msg(c->gap >= -gtol, "%s: t %g node %d gap %g", mn, t, i, c->gap);
            ck_assert_msg(c->lam_n >= -1e-15 * B3_F, "%s: t %g node %d lambda_N %g", mn, t, i,
                          c->lam_n);
            ck_assert_msg(c->p_fric >= -1e-12, "%s: t %g node %d p_friction %g", mn, t, i,
                          c->p_fric);
        }
        if (t > B3_T_WIN) {
            if (isnan(wu0)) wu0 = wu, P0 = (wu - wu_prev) / h;
            P1 = (wu - wu_prev) / h;
            double f = 0.0;
            for (int i = 0; i < d->ncp; i++) {
                const sim_cp *c = &d->cp[i];
                double fi = c->lam_n * c->n[1];
                for (int k = 0; k < c->ntan; k++)
                    fi += c->ft[k] * c->t[k][1];
                f += fi;
                cf += h * c->lam_n * (c->n[1] + mu * c->n[0]);
                slope = fmax(slope, mu * c->lam_n * fabs(c->n[0]));
                ln[i] += h * c->lam_n;
                if (i >= 1 && i <= 3) nopen_inner += c->state == TVDS_OPEN;
                if (c->state == TVDS_SLIP)
                    cone = fmax(cone, fabs(hypot(c->ft[0], c->ft[1]) - mu * c->lam_n));
                else
                    ck_assert_int_eq(c->state, TVDS_OPEN);
            }
            fy += h * f;
            fdev = fmax(fdev, fabs(f - B3_F));
            T += h;
            nwin++;
        }
        wu_prev = wu;
        wu1 = wu;
    }
    /* Measured (subs-b / FiLm): mean sum F_y 0.2000134 / 0.1999526 N against F + momentum +
     * damping 0.2000136 / 0.1999527 N, the closed form 0.2000133 / 0.1999535 N, the edge nodes
     * 0.099971 / 0.099941 N each. The momenta are backward differences: each is off by h/2 times
     * the force on beam 1 (at most F + fdev), the impulse sums by h times the largest force. */
    double rhs = B3_F + alpha * (wu1 - wu0) / T + (P1 - P0) / T;
    double tol = 2.0 * h * (B3_F + fdev) / T;
    ck_assert_msg(fabs(fy / T - rhs) <= tol, "%s: impulse balance %.9g vs %.9g (tol %g)", mn,
                  fy / T, rhs, tol);
    ck_assert_msg(fabs(cf / T - rhs) <= tol + 2.0 * slope,
                  "%s: closed form %.9g vs %.9g (tol %g + slope term %g)", mn, cf / T, rhs, tol,
                  slope);
    ck_assert_msg(cone <= 1e-12 * B3_F, "%s: |F_t| - mu lambda_N = %g", mn, cone);
    ck_assert_int_eq(nopen_inner, 3 * nwin);
    ck_assert_double_le(fabs(ln[0] - ln[4]) / T, 1e-3 * B3_F);
    ck_assert_double_le(fabs((ln[0] + ln[4]) / T - rhs), 2.0 * tol + 2.0 * slope);
    tvds_free(wy);
    tvds_data_free(&d);
    tvds_model_free(&m);
    tvds_substructure_free(&s1);
    tvds_substructure_free(&s2);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

/* ---- Mesh convergence of the CEA --------------------------------------------------------- */

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

static tvds_cea_window conv_win(double f, double s, double re)
{
    tvds_cea_window w;
    memset(&w, 0, sizeof w);
    w.f_peak = f;
    w.s_peak = s;
    w.re_max = re;
    return w;
}

/* The criterion of docs/models.md ("Mesh convergence") on windows shaped like the 3D survey's
 * (3.54 kHz, 5.71 kHz and a marginal 2.40 kHz one below the counting threshold): each bound
 * is met just inside and missed just outside. */
START_TEST(test_conv_criterion)
{
    tvds_cea_window rw[3] = {conv_win(3544, 0.05140, 30.7), conv_win(5710, 0.05090, 19.5),
                             conv_win(2396, 0.03495, 0.32)};
    tvds_cea_result ref = {0}, c = {0};
    ref.nwin = 3;
    ref.win = rw;
    const double lam = 0.19988;
    tvds_cea_window cw[4];
    memcpy(cw, rw, sizeof rw);
    c.win = cw;
    c.nwin = 2; /* the marginal window is not counted: its absence is no miss */
    tvds_cea_conv v;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert_int_eq(v.converged, 1);
    ck_assert_int_eq(v.counted, 2);
    ck_assert_int_eq(v.missing + v.extra, 0);
    ck_assert_int_eq(v.strongest, 0);
    /* frequency: 0.49 % in, 0.51 % out */
    cw[0].f_peak = 3544 * 1.0049;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(v.converged && fabs(v.df - 0.0049) < 1e-12);
    cw[0].f_peak = 3544 * 1.0051;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(!v.converged && v.missing == 0);
    cw[0].f_peak = 3544;
    /* max Re: 9.9 % in, 10.1 % out (either sign) */
    cw[1].re_max = 19.5 * 0.901;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(v.converged && fabs(v.dre - 0.099) < 1e-12);
    cw[1].re_max = 19.5 * 1.101;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(!v.converged);
    cw[1].re_max = 19.5;
    /* static normal force: 0.49 % in, 0.51 % out */
    tvds_cea_conv_compare(&ref, lam, &c, lam * 1.0049, &v);
    ck_assert_int_eq(v.converged, 1);
    tvds_cea_conv_compare(&ref, lam, &c, lam * 0.9949, &v);
    ck_assert_int_eq(v.converged, 0);
    /* a window moved 1.4 mm along the path is the same window; 1.6 mm: one missing, one extra */
    cw[1].s_peak = 0.05090 + 1.4e-3;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(v.converged);
    cw[1].s_peak = 0.05090 + 1.6e-3;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(!v.converged && v.missing == 1 && v.extra == 1);
    cw[1].s_peak = 0.05090;
    /* a window missing (the 6.9 kHz one of the 2D coarse mesh) */
    c.nwin = 1;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(!v.converged && v.missing == 1 && v.extra == 0);
    /* an extra window: counted (>= 10 % of 30.7 1/s) fails, weaker is ignored */
    c.nwin = 3;
    cw[2] = conv_win(10570, 0.046, 3.2);
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(!v.converged && v.extra == 1 && v.counted == 3);
    cw[2].re_max = 3.0;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert(v.converged && v.counted == 2);
    /* the strongest window of the survey */
    cw[2].re_max = 40.0;
    tvds_cea_conv_compare(&ref, lam, &c, lam, &v);
    ck_assert_int_eq(v.strongest, 2);
    /* two candidates: the nearer in frequency and position is taken */
    tvds_cea_window two[2] = {conv_win(3600, 0.0514, 30), conv_win(3550, 0.0515, 25)};
    tvds_cea_result r2 = {0};
    r2.nwin = 2;
    r2.win = two;
    ck_assert_int_eq(tvds_cea_conv_match(&r2, &rw[0]), 1);

    /* Least stable branch of a band, also when stable. */
    double s[2] = {0.030, 0.031}, fq[4] = {6850, 10500, 6950, 10600}, re[4] = {-35, -80, -20, 12};
    tvds_cea_result l = {0};
    l.npos = 2;
    l.nbranch = 2;
    l.s = s;
    l.freq = fq;
    l.re = re;
    double f, sp;
    ck_assert(tvds_cea_band_max(&l, 6693, 7107, &f, &sp) == -20 && f == 6950 && sp == 0.031);
    ck_assert(tvds_cea_band_max(&l, 10253, 10887, &f, &sp) == 12 && f == 10600);
    ck_assert(isinf(tvds_cea_band_max(&l, 3414, 3626, &f, &sp)) && isnan(f) && isnan(sp));
}
END_TEST

/* Run `tvds ARGS` with its output in DIR/out, check its exit code, return that output (free). */
static char *run_tvds(const char *dir, const char *args, int want_exit)
{
    char cmd[1600], p[400];
    snprintf(cmd, sizeof cmd, "%s %s >%s/out 2>&1", TVDS_BIN, args, dir);
    int st = system(cmd);
    snprintf(p, sizeof p, "%s/out", dir);
    char *out = tvds_test_slurp(p, NULL);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == want_exit, "%s: exit %d (want %d): %s", args,
                  st, want_exit, out ? out : "");
    return out;
}

/* `tvds study --convergence --3d` on a tiny pair (1 element through each thickness and across
 * each width) at mu = 0.6, where it has lateral/torsional windows: both meshes are generated
 * and surveyed, the same mesh twice is converged with zero differences (the comparison is
 * deterministic and matches every window with itself), a bad mesh list is refused. */
START_TEST(test_conv_cli)
{
    char dir[256], args[1024], p[400];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_bob3d_conv_");
    snprintf(args, sizeof args,
             "study --convergence --3d models/beam_on_beam/beam_on_beam_3d.ini -o %s/c "
             "--meshes 10x1x1/10x1x1,10x1x1/10x1x1 --s0 0.03 --s1 0.06 --ds 5e-3 --modes 20 "
             "--threads 1 --set contact.C.mu=0.6 -q",
             dir);
    free(run_tvds(dir, args, 0));
    struct stat sb;
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/c/m%d/model/beam2/dofs.txt", dir, k);
        ck_assert_msg(stat(p, &sb) == 0, "%s missing", p);
        snprintf(p, sizeof p, "%s/c/m%d/unstable.csv", dir, k);
        ck_assert_msg(stat(p, &sb) == 0, "%s missing", p);
    }
    snprintf(p, sizeof p, "%s/c/convergence.md", dir);
    char *md = tvds_test_slurp(p, NULL);
    ck_assert(md != NULL);
    /* the first mesh's row: windows found, none missing or extra, no difference, converged */
    const char *row = strstr(md, "\n| 10x1x1 / 10x1x1 | ");
    ck_assert_msg(row != NULL, "%s", md);
    int nred = 0, nw = 0, ncount = 0;
    ck_assert_int_eq(sscanf(row, "\n| 10x1x1 / 10x1x1 | %d | %d (%d counted)", &nred, &nw, &ncount),
                     3);
    ck_assert_int_gt(nw, 0);
    ck_assert_int_eq(nw, ncount);
    ck_assert_msg(strstr(row, "| 0.00 % | 0.0 % | 0 / 0 |") != NULL, "%s", row);
    ck_assert_msg(strstr(row, "| yes |") < strstr(row, "| reference |"), "%s", md);
    ck_assert(strstr(md, "Coarsest mesh meeting it: **10x1x1 / 10x1x1**") != NULL);
    free(md);
    /* the CSV: one row per window of each mesh, both meshes */
    snprintf(p, sizeof p, "%s/c/convergence.csv", dir);
    char *csv = tvds_test_slurp(p, NULL);
    ck_assert(csv && strstr(csv, "\n0,10,1,1,10,1,1,20,20,") &&
              strstr(csv, "\n1,10,1,1,10,1,1,20,20,"));
    free(csv);
    snprintf(args, sizeof args,
             "study --convergence --3d models/beam_on_beam/beam_on_beam_3d.ini -o %s/d "
             "--meshes 10x1x1/10x -q",
             dir);
    free(run_tvds(dir, args, 2));
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

/* `tvds study --3d` end to end on a tiny pair (1 element through each thickness and across each
 * width) at mu = 0.7, where its damped survey has windows: the CEA survey, part (a) with subs-b
 * and part (b) with FiLm across the same window, and the report. The report names the mesh
 * given and beam 2's face-line spacing (100 mm / 10 = 10 mm), prints no NaN or infinity, and
 * both parts measure a finite growth of the window they study; a malformed --mesh is refused. */
START_TEST(test_study_cli)
{
    char dir[256], args[1200], p[400];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_bob3d_study_");
    snprintf(args, sizeof args,
             "study --3d models/beam_on_beam/beam_on_beam_3d.ini -o %s/s --mesh 10x1x1/10x1x1 "
             "--ds 5e-3 --modes 20 --threads 1 --no-plots --set contact.C.mu=0.7 --mu 0.7 "
             "--methods-a subs-b --methods film -q",
             dir);
    char *out = run_tvds(dir, args, 0);
    ck_assert_msg(out && strstr(out, "study: mu of part (b): 0.7 (--mu)"), "%s", out ? out : "");
    free(out);
    snprintf(p, sizeof p, "%s/s/report.md", dir);
    char *md = tvds_test_slurp(p, NULL);
    ck_assert(md != NULL);
    ck_assert(strstr(md, "# Beam-on-beam squeal study in 3D") != NULL);
    ck_assert(strstr(md, "--mesh 10x1x1/10x1x1") && strstr(md, "beam 1 10x1x1, beam 2 10x1x1"));
    ck_assert_msg(strstr(md, "face lines every 10 mm") != NULL, "%s", md);
    ck_assert_msg(!strstr(md, "nan") && !strstr(md, "inf |") && !strstr(md, "-inf"), "%s", md);
    /* each part ran its method across its window and measured it */
    const char *part[2] = {"\n## (a) ", "\n## (b) "}, *meth[2] = {"subs-b", "film"};
    for (int k = 0; k < 2; k++) {
        const char *a = strstr(md, part[k]);
        ck_assert_msg(a && !strstr(a, "Not run"), "part %d: %s", k, md);
        char hdr[64];
        snprintf(hdr, sizeof hdr, "| f [Hz] | crossed t [s] | predicted | %s |", meth[k]);
        const char *t = strstr(a, hdr);
        ck_assert_msg(t != NULL, "%s", a);
        /* the row of the window studied: entered at t = 0.30 s (the study's entry time) */
        const char *r = strstr(t, "|\n|---|---|---|---|\n") + 1;
        int found = 0;
        while ((r = strstr(r, "\n| ")) != NULL && !found) {
            double f = 0, t0 = 0, t1 = 0, gp = 0, gm = 0, gpk = 0;
            r += 3;
            if (sscanf(r, "%lf | %lf … %lf | %lf |", &f, &t0, &t1, &gp) != 4) break;
            if (fabs(t0 - 0.3) > 1e-3) continue;
            ck_assert_msg(
                sscanf(r, "%lf | %lf … %lf | %lf | %lf (%lf) |", &f, &t0, &t1, &gp, &gm, &gpk) == 6,
                "%s", r);
            ck_assert(f > 0 && t1 > t0 && gp > 0 && gm > 0 && gpk > 0);
            found = 1;
        }
        ck_assert_msg(found, "part %d: no measured row of the window studied: %s", k, t);
    }
    free(md);
    snprintf(p, sizeof p, "%s/s/a/report.md", dir);
    struct stat sb;
    ck_assert_msg(stat(p, &sb) == 0, "%s missing", p);
    snprintf(args, sizeof args,
             "study --3d models/beam_on_beam/beam_on_beam_3d.ini -o %s/d --mesh 10x1x1/10", dir);
    out = run_tvds(dir, args, 2);
    ck_assert_msg(out && strstr(out, "bad --mesh '10x1x1/10'"), "%s", out ? out : "");
    free(out);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

Suite *bob3d_suite(void)
{
    Suite *s = suite_create("bob3d");
    TCase *tc = tcase_create("line_contact");
    tcase_add_checked_fixture(tc, cc_setup, cc_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_static_tip_line);
    tcase_add_loop_test(tc, test_transient_coarse, 0, 2);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("convergence");
    tcase_set_timeout(tv, 60);
    tcase_add_test(tv, test_conv_criterion);
    tcase_add_test(tv, test_conv_cli);
    suite_add_tcase(s, tv);
    TCase *ts = tcase_create("study");
    tcase_set_timeout(ts, 180);
    tcase_add_test(ts, test_study_cli);
    suite_add_tcase(s, ts);
    return s;
}
