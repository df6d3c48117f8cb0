/* check_disc.c — the disc-brake generator: the isoparametric hexahedron, the Bessel functions
 * and plate roots of the thin-plate reference, the disc's bending modes against the
 * clamped-free annular Kirchhoff plate, doublet pairs, and the written model and case. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fe/disc_impl.h"
#include "tvds/tvds.h"
#include "tvds/tvds_case.h"
#include "tvds/tvds_disc.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"
#include "tvds_test.h"

#define PI 3.14159265358979323846

static int verbose(void)
{
    return getenv("TVDS_TEST_VERBOSE") != NULL;
}

/* ---- element -------------------------------------------------------------------------------- */

static double max_abs24(double A[24][24])
{
    double m = 0;
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            m = fmax(m, fabs(A[i][j]));
    return m;
}

/* On a box the isoparametric element is the box element: same Gauss points, constant
 * Jacobian; they differ by the rounding of a few hundred operations per entry. */
START_TEST(hex8_iso_box)
{
    const double h[3] = {0.02, 0.005, 0.013};
    double Kb[24][24], Mb[24][24], Ki[24][24], Mi[24][24], x[8][3];
    for (int l = 0; l < 8; l++) {
        int o[3];
        tvds_hex8_corner(l, o);
        for (int c = 0; c < 3; c++)
            x[l][c] = 0.1 * (c + 1) + o[c] * h[c];
    }
    for (int inc = 0; inc < 2; inc++) {
        ck_assert(tvds_hex8_box(125e9, 0.3, 7200, h, inc, Kb, Mb));
        ck_assert(tvds_hex8_iso_((const double(*)[3])x, 125e9, 0.3, 7200, inc, Ki, Mi));
        double dk = 0, dm = 0, tol = 1e3 * DBL_EPSILON;
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                dk = fmax(dk, fabs(Ki[i][j] - Kb[i][j]));
                dm = fmax(dm, fabs(Mi[i][j] - Mb[i][j]));
            }
        ck_assert_msg(dk <= tol * max_abs24(Kb) && dm <= tol * max_abs24(Mb),
                      "incompatible %d: |dK| %g of %g, |dM| %g of %g", inc, dk, max_abs24(Kb), dm,
                      max_abs24(Mb));
    }
}
END_TEST

/* A distorted element (a sector of the disc, skewed): the six rigid motions are in the null
 * space of K, and the incompatible modes with Taylor's correction pass the constant-strain
 * patch test: a linear displacement field gives K u = the nodal forces of the element's
 * constant stress, the same as without incompatible modes. */
START_TEST(hex8_iso_distorted)
{
    double x[8][3], K[24][24], M[24][24], K0[24][24];
    for (int l = 0; l < 8; l++) {
        int o[3];
        tvds_hex8_corner(l, o);
        double r = 0.13 + 0.02 * o[0] + 0.003 * o[2], t = (o[1] ? 0.14 : 0.0) + 0.01 * o[2];
        x[l][0] = r * cos(t);
        x[l][1] = r * sin(t);
        x[l][2] = 0.005 * o[2] + 0.001 * o[0] * o[1];
    }
    ck_assert(tvds_hex8_iso_((const double(*)[3])x, 125e9, 0.3, 7200, 1, K, M));
    ck_assert(tvds_hex8_iso_((const double(*)[3])x, 125e9, 0.3, 7200, 0, K0, M));
    double kmax = max_abs24(K), L = 0.02;
    for (int mode = 0; mode < 6; mode++) {
        double u[24], worst = 0;
        for (int l = 0; l < 8; l++)
            for (int c = 0; c < 3; c++) {
                if (mode < 3) {
                    u[3 * l + c] = c == mode;
                } else { /* small rotation about axis mode - 3: u = e x x / L */
                    int a = mode - 3, b = (a + 1) % 3, d = (a + 2) % 3;
                    u[3 * l + c] = c == b ? -x[l][d] / L : c == d ? x[l][b] / L : 0;
                }
            }
        for (int i = 0; i < 24; i++) {
            double s = 0;
            for (int j = 0; j < 24; j++)
                s += K[i][j] * u[j];
            worst = fmax(worst, fabs(s));
        }
        /* u is O(0.2 / L = 10): cancellation over 24 terms of kmax * 10 */
        ck_assert_msg(worst <= 1e4 * DBL_EPSILON * kmax * 10, "rigid mode %d: |K u| %g", mode,
                      worst);
    }
    /* patch: u = G x with a general constant gradient G */
    const double G[3][3] = {{1e-3, 2e-4, -3e-4}, {-1e-4, 5e-4, 7e-4}, {2e-4, -6e-4, 8e-4}};
    double u[24], worst = 0, fmx = 0;
    for (int l = 0; l < 8; l++)
        for (int c = 0; c < 3; c++)
            u[3 * l + c] = G[c][0] * x[l][0] + G[c][1] * x[l][1] + G[c][2] * x[l][2];
    for (int i = 0; i < 24; i++) {
        double s = 0, s0 = 0;
        for (int j = 0; j < 24; j++) {
            s += K[i][j] * u[j];
            s0 += K0[i][j] * u[j];
        }
        worst = fmax(worst, fabs(s - s0));
        fmx = fmax(fmx, fabs(s0));
    }
    ck_assert_msg(worst <= 1e4 * DBL_EPSILON * fmx, "patch test: |K u - K0 u| %g of %g", worst,
                  fmx);
}
END_TEST

/* ---- Bessel functions and plate roots ----------------------------------------------------- */

/* Tabulated values (16 digits) and the Wronskian I_n K_{n+1} + I_{n+1} K_n = 1 / x. */
START_TEST(bessel_ik)
{
    const struct {
        int n;
        double x, i, k;
    } t[] = {{0, 1.0, 1.266065877752008, 0.4210244382407083},
             {1, 1.0, 0.5651591039924851, 0.6019072301972346},
             {0, 2.0, 2.279585302336067, 0.1138938727495334},
             {1, 2.0, 1.590636854637329, 0.1398658818165224}};
    for (size_t q = 0; q < sizeof t / sizeof t[0]; q++) {
        ck_assert_double_eq_tol(tvds_bessel_i_(t[q].n, t[q].x), t[q].i, 4e-15 * t[q].i);
        ck_assert_double_eq_tol(tvds_bessel_k_(t[q].n, t[q].x), t[q].k, 4e-15 * t[q].k);
    }
    for (int n = 0; n <= 21; n++)
        for (double x = 0.5; x <= 40; x *= 1.7) {
            double w = tvds_bessel_i_(n, x) * tvds_bessel_k_(n + 1, x) +
                       tvds_bessel_i_(n + 1, x) * tvds_bessel_k_(n, x);
            ck_assert_msg(fabs(w * x - 1) < 1e-13, "n %d x %g: x W = %.17g", n, x, w * x);
        }
}
END_TEST

/* The tabulated clamped-free annular plate (b / a = 0.5, nu = 0.3; Leissa, Vibration of
 * Plates, NASA SP-160, from Vogel and Skinner): lambda^2 = 13.0, 13.3, 14.7 for 0, 1, 2 nodal
 * diameters, to the table's 3 digits; 3 diameters: 18.56 (the table's 18.5 is truncated). */
START_TEST(plate_roots)
{
    const double table[4] = {13.0, 13.3, 14.7, 18.5};
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    for (int n = 0; n < 4; n++) {
        double l2[2];
        ck_assert_int_eq(tvds_annular_plate_cf(0.5, 0.3, n, 2, l2, &ctx), TVDS_OK);
        ck_assert_msg(fabs(l2[0] - table[n]) <= (n == 3 ? 0.1 : 0.05), "n %d: %.6f", n, l2[0]);
        ck_assert(l2[1] > 5 * l2[0]); /* one nodal circle: far above */
        if (verbose()) printf("plate n %d: lambda^2 %.6f %.6f\n", n, l2[0], l2[1]);
    }
    double l2;
    ck_assert_int_eq(tvds_annular_plate_cf(0.99, 0.3, 0, 1, &l2, &ctx), TVDS_ERR_INVALID);
}
END_TEST

/* ---- the disc's bending modes -------------------------------------------------------------- */

typedef struct disc_mode {
    double f;    /* Hz */
    int n;       /* nodal diameters (dominant harmonic of the rim's mean uz) */
    double pure; /* fraction of the rim's uz in harmonic n */
    int bending; /* mean uz over the thickness dominates the rim's in-plane motion */
} disc_mode;

/* Lowest nev modes of the full disc, classified from their shapes at the rim (r = r_out). */
static void disc_modes(const tvds_disc_params *p, int nev, disc_mode *md, double *fmax_bound)
{
    cholmod_common c;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    ck_assert_int_eq(tvds_cholmod_start(&c), TVDS_OK);
    tvds_fe_model *m = NULL;
    ck_assert_int_eq(tvds_disc_build(p, &m, &c, &ctx), TVDS_OK);
    double *f = malloc((size_t)nev * sizeof *f), *phi = malloc((size_t)m->n * nev * sizeof *phi);
    ck_assert_int_eq(tvds_eigs_lowest(m->M, m->K, nev, 0, 1e-12, f, phi, &c, &ctx), TVDS_OK);
    int nt = p->nt;
    double *uz = calloc((size_t)nt, sizeof *uz), *cnt = calloc((size_t)nt, sizeof *cnt);
    for (int q = 0; q < nev; q++) {
        double inplane = 0;
        memset(uz, 0, (size_t)nt * sizeof *uz);
        memset(cnt, 0, (size_t)nt * sizeof *cnt);
        for (int k = 0; k < m->n; k++) {
            const tvds_dof *d = &m->dofs[k];
            if (fabs(hypot(d->xyz[0], d->xyz[1]) - p->r_out) > 1e-9) continue;
            double v = phi[(size_t)q * m->n + k];
            int j = (int)lround(atan2(d->xyz[1], d->xyz[0]) / (2 * PI / nt));
            j = (j + nt) % nt;
            if (d->dir == 2) {
                uz[j] += v;
                cnt[j] += 1;
            } else {
                inplane += v * v;
            }
        }
        double tot = 0, best = -1, ez = 0;
        int nbest = -1;
        for (int j = 0; j < nt; j++) {
            uz[j] /= cnt[j];
            tot += uz[j] * uz[j];
            ez += uz[j] * uz[j] * cnt[j];
        }
        for (int n = 0; n <= nt / 2; n++) {
            double a = 0, b = 0;
            for (int j = 0; j < nt; j++) {
                a += uz[j] * cos(2 * PI * n * j / nt);
                b += uz[j] * sin(2 * PI * n * j / nt);
            }
            double e = (a * a + b * b) * (n == 0 || 2 * n == nt ? 1.0 : 2.0) / nt;
            if (e > best) {
                best = e;
                nbest = n;
            }
        }
        md[q].f = f[q];
        md[q].n = nbest;
        md[q].pure = tot > 0 ? best / tot : 0;
        md[q].bending = ez > inplane;
    }
    /* An upper bound of the pencil's largest eigenvalue (for the round-off bound of the
     * doublets): lambda_max(K) <= max_i sum_j |K_ij| (Gershgorin), and each element's
     * consistent mass of the trilinear hexahedron satisfies M_e >= diag(M_e) / 8 (its smallest
     * eigenvalue m_e / 216 against its diagonal m_e / 27), so M >= min_i M_ii / 8. */
    cholmod_sparse *K = m->K, *M = m->M;
    double *rs = calloc((size_t)m->n, sizeof *rs), mmin = INFINITY;
    for (int j = 0; j < m->n; j++)
        for (int t = ((int *)K->p)[j]; t < ((int *)K->p)[j + 1]; t++) {
            int i = ((int *)K->i)[t];
            double v = fabs(((double *)K->x)[t]);
            rs[i] += v;
            if (i != j) rs[j] += v;
        }
    for (int j = 0; j < m->n; j++)
        for (int t = ((int *)M->p)[j]; t < ((int *)M->p)[j + 1]; t++)
            if (((int *)M->i)[t] == j) mmin = fmin(mmin, ((double *)M->x)[t]);
    double kmax = 0;
    for (int j = 0; j < m->n; j++)
        kmax = fmax(kmax, rs[j]);
    *fmax_bound = sqrt(8 * kmax / mmin) / (2 * PI);
    free(rs);
    free(uz);
    free(cnt);
    free(f);
    free(phi);
    tvds_fe_model_free(&m, &c);
    cholmod_finish(&c);
}

static double kirchhoff_hz(const tvds_disc_params *p, double lambda2)
{
    double D = p->E * pow(p->thick, 3) / (12 * (1 - p->nu * p->nu));
    return lambda2 / (2 * PI * p->r_out * p->r_out) * sqrt(D / (p->rho * p->thick));
}

/* First out-of-plane frequency per nodal diameter n = 0..3 (the lowest bending mode of each n;
 * n >= 1: the doublet's two members), from nev modes. */
static void first_per_n(const disc_mode *md, int nev, double f1[4], double f2[4])
{
    for (int n = 0; n < 4; n++) {
        int got = 0;
        f1[n] = f2[n] = NAN;
        for (int q = 0; q < nev && got < (n ? 2 : 1); q++)
            if (md[q].bending && md[q].n == n) {
                if (got++ == 0)
                    f1[n] = md[q].f;
                else
                    f2[n] = md[q].f;
            }
        if (n == 0) f2[n] = f1[n];
    }
}

/* Relative thin-plate vs 3D-solid frequency difference of the bulk (Mindlin) corrections:
 * rotary inertia and transverse shear lower omega^2 by (h^2 / 12) k^2 (1 + 2 / (kappa (1 - nu)))
 * at wavenumber k (first order in (k h)^2), with k = lambda the mode's Bessel wavenumber and
 * kappa = pi^2 / 12; omega by half of it (docs/validation.md). */
static double mindlin_shift(const tvds_disc_params *p, double lambda2)
{
    double k2 = lambda2 / (p->r_out * p->r_out), kappa = PI * PI / 12;
    return -0.5 * p->thick * p->thick / 12 * k2 * (1 + 2 / (kappa * (1 - p->nu)));
}

/* The disc against the clamped-free annular Kirchhoff plate (b / a = 0.5, nu = 0.3), on the
 * default mesh and two refinements (element sizes halved in r and theta):
 *  - the lowest bending modes are, in frequency order, harmonics of 0..3 nodal diameters read
 *    from the rim's mean uz (more than 99 % of it in one harmonic), n >= 1 as doublets;
 *  - doublet members agree to round-off: the pencil's computed eigenvalues move by at most
 *    c eps (||K|| + lambda ||M||) / lambda_min(M) (c = 64, the operations per assembled entry
 *    of the element and its condensation), i.e. c eps (lambda_max / lambda + 1) relative;
 *  - the mesh converges at second order or better (successive differences shrink by >= 3),
 *    and its Richardson limit f (second order) lies below the thin plate by the bulk Mindlin
 *    shift within a quarter of it for n = 0 (no twisting moment at the free edge), and within
 *    (h / a) of the thin plate for every n (the free edge's boundary layer: first order in h/a,
 *    growing with the twisting, i.e. with n). */
START_TEST(disc_plate)
{
    const int nmesh = 3, nev = 12;
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    double l2[4], f[3][4];
    for (int n = 0; n < 4; n++)
        ck_assert_int_eq(tvds_annular_plate_cf(0.5, 0.3, n, 1, &l2[n], &ctx), TVDS_OK);
    tvds_disc_params p = tvds_disc_default();
    ck_assert_double_eq(p.r_hub / p.r_out, 0.5);
    ck_assert_double_eq(p.nu, 0.3);
    for (int k = 0; k < nmesh; k++) {
        tvds_disc_params q = p;
        q.nr <<= k;
        q.nt <<= k;
        disc_mode md[12];
        double fmx, f1[4], f2[4];
        disc_modes(&q, nev, md, &fmx);
        /* frequency order: n = 0, 1 1, 2 2, 3 3 among the bending modes */
        const int order[7] = {0, 1, 1, 2, 2, 3, 3};
        int nb = 0;
        for (int m = 0; m < nev && nb < 7; m++) {
            if (!md[m].bending) continue;
            ck_assert_msg(md[m].n == order[nb] && md[m].pure > 0.99,
                          "mesh %d: bending mode %d (%.3f Hz): n %d (purity %.6f), expected n %d",
                          k, m, md[m].f, md[m].n, md[m].pure, order[nb]);
            nb++;
        }
        ck_assert_int_eq(nb, 7);
        first_per_n(md, nev, f1, f2);
        for (int n = 0; n < 4; n++) {
            double split = fabs(f2[n] * f2[n] - f1[n] * f1[n]) / (f1[n] * f1[n]);
            double bound = 64 * DBL_EPSILON * ((fmx * fmx) / (f1[n] * f1[n]) + 1);
            ck_assert_msg(split <= bound, "mesh %d, n %d: doublet %.15g / %.15g Hz, split %g > %g",
                          k, n, f1[n], f2[n], split, bound);
            f[k][n] = f1[n];
            if (verbose())
                printf(
                    "disc %d x %d x %d: n %d: %.4f Hz (thin plate %.4f, %+.4f %%), doublet split "
                    "%.2e (bound %.2e)\n",
                    q.nr, q.nt, q.nz, n, f1[n], kirchhoff_hz(&p, l2[n]),
                    100 * (f1[n] / kirchhoff_hz(&p, l2[n]) - 1), split, bound);
        }
    }
    for (int n = 0; n < 4; n++) {
        double e1 = f[0][n] - f[1][n], e2 = f[1][n] - f[2][n];
        ck_assert_msg(fabs(e1) >= 3 * fabs(e2), "n %d: mesh differences %g, %g Hz", n, e1, e2);
        double finf = f[2][n] - e2 / 3, fk = kirchhoff_hz(&p, l2[n]);
        double rel = finf / fk - 1, dm = mindlin_shift(&p, l2[n]);
        if (verbose())
            printf(
                "n %d: Richardson %.4f Hz, solid / plate - 1 = %+.4f %%, bulk Mindlin %+.4f %%\n",
                n, finf, 100 * rel, 100 * dm);
        ck_assert_msg(rel < 0 && rel > -p.thick / p.r_out, "n %d: solid / plate - 1 = %g", n, rel);
        if (n == 0)
            ck_assert_msg(fabs(rel - dm) <= 0.25 * fabs(dm), "n 0: %g against Mindlin %g", rel, dm);
    }
}
END_TEST

/* The written model: sizes, face-set orientation (outward normals, first edge along +theta),
 * the pads on the disc's faces, the case reads (as `tvds check` reads it) with loads summing to
 * pressure x pad area, and the reduced disc's lowest frequency a Rayleigh-Ritz upper bound of
 * the full model's, within (f / f_kept)^2 (the truncation of the fixed-interface modes). */
START_TEST(disc_written)
{
    char dir[256], path[512];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_disc_");
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    cholmod_common c;
    ck_assert_int_eq(tvds_cholmod_start(&c), TVDS_OK);
    tvds_disc_params p = tvds_disc_default();
    tvds_reduce_stats st[3];
    ck_assert_int_eq(tvds_disc_brake_write(&p, dir, st, &c, &ctx), TVDS_OK);
    /* the pad (132.5 .. 172.5 mm) covers the outer two of four element rings: 3 node rings */
    ck_assert_int_eq(st[0].nb, 3 * p.nt * 2 * 3);
    ck_assert_int_eq(st[0].nm, p.modes);
    ck_assert_int_eq(st[1].nb, 3 * (2 * (p.pad_nr + 1) * (p.pad_nt + 1) + 2 * (p.pad_nr + 1)));
    tvds_model *m = NULL;
    snprintf(path, sizeof path, "%s/disc_brake.ini", dir);
    ck_assert_msg(tvds_case_read(path, NULL, 0, &m, &ctx) == TVDS_OK, "%s", ctx.msg);
    ck_assert_int_eq(m->nsub, 3);
    ck_assert_int_eq(m->ncontact, 2);
    ck_assert_int_eq(m->nload, 2 * (p.pad_nr + 1) * (p.pad_nt + 1));
    /* The disc turns under both pads about +z, once they are pressed (10 ms): its ring faces
     * are turning face sets with the same axis and speed. */
    for (int ic = 0; ic < 2; ic++) {
        const tvds_contact *C = &m->contacts[ic];
        ck_assert_int_eq(C->master_kind, TVDS_MASTER_FACES_ROT);
        ck_assert(C->rigid_normal[0] == 0 && C->rigid_normal[1] == 0 && C->rigid_normal[2] == 1);
        ck_assert_double_eq(tvds_fn_eval(&C->omega, 0.005), 0.0);
        ck_assert_double_eq_tol(tvds_fn_eval(&C->omega, 0.025), p.omega, 1e-12 * p.omega);
    }
    const char *fsn[4][2] = {
        {"disc", "ring_out"}, {"disc", "ring_in"}, {"pad_out", "friction"}, {"pad_in", "friction"}};
    const double nz_want[4] = {1, -1, -1, 1}, z_want[4] = {0.005, -0.005, 0.005, -0.005};
    for (int q = 0; q < 4; q++) {
        const tvds_substructure *s = m->subs[tvds_model_find_sub(m, fsn[q][0])];
        int k = tvds_substructure_find_faceset(s, fsn[q][1]);
        ck_assert_int_ge(k, 0);
        const tvds_faceset *fs = &s->fsets[k];
        ck_assert_int_eq(fs->nface, q < 2 ? 2 * p.nt : p.pad_nr * p.pad_nt);
        for (int f = 0; f < fs->nface; f++) {
            double x[4][3];
            for (int l = 0; l < 4; l++) {
                int d = tvds_substructure_find_dof(s, fs->nodes[9 * f + l], 2);
                ck_assert_int_ge(d, 0);
                memcpy(x[l], s->dofs[d].xyz, sizeof x[l]);
                ck_assert_double_eq_tol(x[l][2], z_want[q], 1e-15);
                double r = hypot(x[l][0], x[l][1]);
                ck_assert(r >= (q < 2 ? 0.13125 : p.pad_r_in) - 1e-12 && r <= p.r_out + 1e-12);
            }
            double a1[3], a2[3];
            for (int cc = 0; cc < 3; cc++) {
                a1[cc] = x[1][cc] - x[0][cc];
                a2[cc] = x[3][cc] - x[0][cc];
            }
            double nz = a1[0] * a2[1] - a1[1] * a2[0], et = -x[0][1] * a1[0] + x[0][0] * a1[1];
            ck_assert_msg(nz * nz_want[q] > 0 && et > 0, "%s face %d: normal z %g, a1.e_theta %g",
                          fsn[q][1], f, nz, et);
        }
    }
    /* loads: pressure 1 MPa times the pad's area, per pad */
    long len;
    char *txt = tvds_test_slurp(path, &len), *at = txt;
    double sum = 0;
    while ((at = strstr(at, "f = smooth ")) != NULL) {
        at += strlen("f = smooth ");
        sum += fabs(strtod(at, NULL));
    }
    free(txt);
    double area =
        0.5 * p.pad_arc_deg * PI / 180 * (p.pad_r_out * p.pad_r_out - p.pad_r_in * p.pad_r_in);
    ck_assert_double_eq_tol(sum, 2 * 1e6 * area, 1e-12 * sum);
    /* reduced disc against the full one */
    tvds_substructure *d = m->subs[tvds_model_find_sub(m, "disc")];
    int n = d->n;
    double *A = malloc((size_t)n * n * sizeof *A), *B = malloc((size_t)n * n * sizeof *B),
           *w = malloc((size_t)n * sizeof *w);
    memcpy(A, d->K, (size_t)n * n * sizeof *A);
    memcpy(B, d->M, (size_t)n * n * sizeof *B);
    ck_assert_int_eq(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, A, n, B, n, w), 0);
    double f_cb = sqrt(w[0]) / (2 * PI), f_full;
    tvds_fe_model *full = NULL;
    ck_assert_int_eq(tvds_disc_build(&p, &full, &c, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_eigs_lowest(full->M, full->K, 1, 0, 1e-12, &f_full, NULL, &c, &ctx),
                     TVDS_OK);
    double trunc = pow(f_full / st[0].f_max_hz, 2);
    ck_assert_msg(f_cb >= f_full * (1 - 1e-10) && f_cb <= f_full * (1 + trunc),
                  "reduced %.9g Hz, full %.9g Hz, (f / f_kept)^2 %g", f_cb, f_full, trunc);
    if (verbose())
        printf("disc CB %.6f Hz, full %.6f Hz (kept modes up to %.1f Hz)\n", f_cb, f_full,
               st[0].f_max_hz);
    free(A);
    free(B);
    free(w);
    tvds_fe_model_free(&full, &c);
    tvds_model_free(&m);
    cholmod_finish(&c);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

/* Parameter checks: nt not a multiple of 4, a pad off the disc, an unknown key. */
START_TEST(disc_params)
{
    tvds_ctx ctx;
    tvds_ctx_init(&ctx);
    tvds_disc_params p = tvds_disc_default();
    ck_assert_int_eq(tvds_disc_check(&p, &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_disc_set(&p, "disc.nt=26", &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_disc_check(&p, &ctx), TVDS_ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(ctx.msg, "multiple of 4"));
    p = tvds_disc_default();
    ck_assert_int_eq(tvds_disc_set(&p, "pad.r_out=0.18", &ctx), TVDS_OK);
    ck_assert_int_eq(tvds_disc_check(&p, &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_disc_set(&p, "pad.colour=3", &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_disc_set(&p, "disc.nr=2.5", &ctx), TVDS_ERR_INVALID);
    ck_assert_int_eq(tvds_disc_set(&p, "disc.E=2e11", &ctx), TVDS_OK);
    ck_assert_double_eq(p.E, 2e11);
}
END_TEST

#ifndef TVDS_BIN
#define TVDS_BIN "build/bin/tvds"
#endif

/* Exit status of "tvds ARGS" (stdout and stderr into dir/out, dir/err). */
static int run_tvds(const char *dir, const char *args)
{
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "%s %s >'%s/out' 2>'%s/err'", TVDS_BIN, args, dir, dir);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* The command: one pad, then `tvds check` on the case it wrote; a bad key is a usage error
 * with one line on stderr. */
START_TEST(disc_cli)
{
    char dir[256], args[1200];
    tvds_test_mkdtemp(dir, sizeof dir, "/tmp/tvds_disc_cli_");
    snprintf(args, sizeof args, "model disc-brake -o '%s/m' --set pads=1 --set disc.modes=12", dir);
    ck_assert_int_eq(run_tvds(dir, args), 0);
    snprintf(args, sizeof args, "check '%s/m/disc_brake.ini'", dir);
    ck_assert_int_eq(run_tvds(dir, args), 0);
    char p[400];
    snprintf(p, sizeof p, "%s/out", dir);
    char *out = tvds_test_slurp(p, NULL);
    ck_assert_ptr_nonnull(strstr(out, "disc          228 DoFs (216 physical, 12 modal)"));
    ck_assert_ptr_null(strstr(out, "pad_in"));
    free(out);
    snprintf(args, sizeof args, "model disc-brake -o '%s/m2' --set disc.nt=30", dir);
    ck_assert_int_eq(run_tvds(dir, args), 2);
    snprintf(p, sizeof p, "%s/err", dir);
    char *err = tvds_test_slurp(p, NULL);
    ck_assert_ptr_nonnull(strstr(err, "multiple of 4"));
    ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
    free(err);
    ck_assert_int_eq(tvds_test_rmtree(dir), 0);
}
END_TEST

Suite *disc_suite(void)
{
    Suite *s = suite_create("disc");
    TCase *tc = tcase_create("element");
    tcase_add_test(tc, hex8_iso_box);
    tcase_add_test(tc, hex8_iso_distorted);
    suite_add_tcase(s, tc);
    tc = tcase_create("plate");
    tcase_add_test(tc, bessel_ik);
    tcase_add_test(tc, plate_roots);
    suite_add_tcase(s, tc);
    tc = tcase_create("modes");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, disc_plate);
    tcase_add_test(tc, disc_written);
    tcase_add_test(tc, disc_params);
    tcase_add_test(tc, disc_cli);
    suite_add_tcase(s, tc);
    return s;
}
