/* beams.c — beam-on-beam plane-stress FE generator (9-node quadrilaterals), its reduction and
 * a Timoshenko reference for verification (docs/models.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tvds/tvds_beams.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_output.h"
#include "fe/beams_impl.h"

#define BEAMS_PI 3.14159265358979323846

tvds_bob_params tvds_bob_default(void)
{
    tvds_bob_params p;
    memset(&p, 0, sizeof p);
    p.beam1.length = 0.075;
    p.beam1.thick = 0.0015;
    p.beam1.width = 0.010;
    p.beam1.E = 71e9;
    p.beam1.nu = 0.33;
    p.beam1.rho = 2770;
    p.beam1.angle_deg = 30;
    p.beam1.nx = 50;
    p.beam1.ny = 1;
    p.beam1.nz = 1;
    p.beam2.length = 0.100;
    p.beam2.thick = 0.002;
    p.beam2.width = 0.020;
    p.beam2.E = 2.38e9;
    p.beam2.nu = 0.40;
    p.beam2.rho = 1200;
    p.beam2.angle_deg = 0;
    p.beam2.nx = 50;
    p.beam2.ny = 1;
    p.beam2.nz = 1;
    p.s0 = 0.020;
    p.modes1 = 20;
    p.modes2 = 20;
    return p;
}

int tvds_bob_set(tvds_bob_params *p, const char *kv, tvds_ctx *ctx)
{
    const char *eq = kv ? strchr(kv, '=') : NULL;
    if (!eq || eq == kv)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: expected key=value", kv ? kv : "");
    char key[64];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: key too long", kv);
    memcpy(key, kv, kl);
    key[kl] = '\0';
    if (!strcmp(key, "beam1.a_support")) {
        const char *val = eq + 1;
        if (!strcmp(val, "carriage"))
            p->beam1.pin = 0;
        else if (!strcmp(val, "pin"))
            p->beam1.pin = 1;
        else
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: expected carriage or pin", kv);
        return TVDS_OK;
    }
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno || !isfinite(v))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: value is not a number", kv);
    if (!strcmp(key, "s0")) {
        p->s0 = v;
        return TVDS_OK;
    }
    if (!strcmp(key, "modes1") || !strcmp(key, "modes2")) {
        if (v < 1 || v != floor(v) || v > 1e6)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: need a positive integer", kv);
        *(key[5] == '1' ? &p->modes1 : &p->modes2) = (int)v;
        return TVDS_OK;
    }
    tvds_beam_params *b = NULL;
    if (!strncmp(key, "beam1.", 6)) b = &p->beam1;
    if (!strncmp(key, "beam2.", 6)) b = &p->beam2;
    if (!b) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: unknown key '%s'", kv, key);
    const char *k = key + 6;
    if (!strcmp(k, "nx") || !strcmp(k, "ny") || !strcmp(k, "nz")) {
        if (v < 1 || v != floor(v) || v > 1e6)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: need a positive integer", kv);
        *(k[1] == 'x' ? &b->nx : k[1] == 'y' ? &b->ny : &b->nz) = (int)v;
        return TVDS_OK;
    }
    double *dst = !strcmp(k, "length")  ? &b->length
                  : !strcmp(k, "thick") ? &b->thick
                  : !strcmp(k, "width") ? &b->width
                  : !strcmp(k, "E")     ? &b->E
                  : !strcmp(k, "nu")    ? &b->nu
                  : !strcmp(k, "rho")   ? &b->rho
                  : !strcmp(k, "angle") ? &b->angle_deg
                                        : NULL;
    if (!dst) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "--set %s: unknown key '%s'", kv, key);
    *dst = v;
    return TVDS_OK;
}

static int check_beam(const tvds_beam_params *p, const char *which, tvds_ctx *ctx)
{
    if (!(p->length > 0 && p->thick > 0 && p->width > 0 && p->E > 0 && p->rho > 0 && p->nu > -1 &&
          p->nu < 0.5 && p->nx >= 1 && p->ny >= 1))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: need length, thick, width, E, rho > 0, -1 < nu < 0.5, nx, ny >= 1",
                          which);
    return TVDS_OK;
}

/* A meshed rectangle: node (i, j), 0 <= i <= 2 nx, 0 <= j <= 2 ny, at origin + s axis + t nrm
 * with s = i length / (2 nx), t = j thick / (2 ny), nrm = axis rotated by +90 degrees. */
typedef struct strip {
    const tvds_beam_params *p;
    double origin[2], axis[2];
    int ni, nj; /* nodes along and across */
} strip;

static void strip_xy(const strip *g, int i, int j, double xy[2])
{
    double s = g->p->length * i / (2.0 * g->p->nx), t = g->p->thick * j / (2.0 * g->p->ny);
    xy[0] = g->origin[0] + s * g->axis[0] - t * g->axis[1];
    xy[1] = g->origin[1] + s * g->axis[1] + t * g->axis[0];
}

/* 1D quadratic Lagrange shape functions on [-1, 1] at nodes -1, 0, 1, and derivatives. */
static void lag3(double x, double l[3], double dl[3])
{
    l[0] = 0.5 * x * (x - 1);
    l[1] = 1 - x * x;
    l[2] = 0.5 * x * (x + 1);
    dl[0] = x - 0.5;
    dl[1] = -2 * x;
    dl[2] = x + 0.5;
}

/* Stiffness and consistent mass (18 x 18, DoFs node-major x, y; node a + 3 b) of a 9-node
 * plane-stress quadrilateral with node coordinates xy[9][2], 3 x 3 Gauss. Returns 0 if the
 * Jacobian is not positive. Exposed for the patch test through tvds_q9_element (internal). */
static int q9_element(const double xy[9][2], double E, double nu, double rho, double width,
                      double Ke[18][18], double Me[18][18])
{
    static const double gp[3] = {-0.77459666924148337704, 0.0, 0.77459666924148337704};
    static const double gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    double c = E / (1 - nu * nu);
    double D[3][3] = {{c, c * nu, 0}, {c * nu, c, 0}, {0, 0, c * (1 - nu) / 2}};
    memset(Ke, 0, sizeof(double) * 18 * 18);
    memset(Me, 0, sizeof(double) * 18 * 18);
    for (int gx = 0; gx < 3; gx++)
        for (int gy = 0; gy < 3; gy++) {
            double lx[3], dlx[3], ly[3], dly[3];
            lag3(gp[gx], lx, dlx);
            lag3(gp[gy], ly, dly);
            double N[9], dNx[9], dNy[9], J[2][2] = {{0, 0}, {0, 0}};
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++) {
                    int k = a + 3 * b;
                    N[k] = lx[a] * ly[b];
                    dNx[k] = dlx[a] * ly[b]; /* d/dxi */
                    dNy[k] = lx[a] * dly[b]; /* d/deta */
                    J[0][0] += dNx[k] * xy[k][0];
                    J[0][1] += dNx[k] * xy[k][1];
                    J[1][0] += dNy[k] * xy[k][0];
                    J[1][1] += dNy[k] * xy[k][1];
                }
            double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
            if (!(det > 0)) return 0;
            double w = gw[gx] * gw[gy] * det * width;
            double Bm[3][18];
            memset(Bm, 0, sizeof Bm);
            for (int k = 0; k < 9; k++) {
                double dx = (J[1][1] * dNx[k] - J[0][1] * dNy[k]) / det;
                double dy = (-J[1][0] * dNx[k] + J[0][0] * dNy[k]) / det;
                Bm[0][2 * k] = dx;
                Bm[1][2 * k + 1] = dy;
                Bm[2][2 * k] = dy;
                Bm[2][2 * k + 1] = dx;
            }
            double DB[3][18];
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 18; q++)
                    DB[r][q] = D[r][0] * Bm[0][q] + D[r][1] * Bm[1][q] + D[r][2] * Bm[2][q];
            for (int p1 = 0; p1 < 18; p1++)
                for (int q = 0; q < 18; q++)
                    Ke[p1][q] +=
                        w * (Bm[0][p1] * DB[0][q] + Bm[1][p1] * DB[1][q] + Bm[2][p1] * DB[2][q]);
            for (int a = 0; a < 9; a++)
                for (int b = 0; b < 9; b++) {
                    double m = w * rho * N[a] * N[b];
                    Me[2 * a][2 * b] += m;
                    Me[2 * a + 1][2 * b + 1] += m;
                }
        }
    return 1;
}

int tvds_q9_element_(const double xy[9][2], double E, double nu, double rho, double width,
                     double Ke[18][18], double Me[18][18])
{
    return q9_element(xy, E, nu, rho, width, Ke, Me);
}

/* Add the strip's elements to the triplets; eq[2 * node + d] is the equation of grid node
 * node = i + j * ni, direction d, or -1 (fixed). Upper triangle only. */
static int strip_assemble(const strip *g, const int *eq, cholmod_triplet *TK, cholmod_triplet *TM,
                          tvds_ctx *ctx)
{
    const tvds_beam_params *p = g->p;
    for (int ey = 0; ey < p->ny; ey++)
        for (int ex = 0; ex < p->nx; ex++) {
            double xy[9][2];
            int nd[9];
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++) {
                    int i = 2 * ex + a, j = 2 * ey + b;
                    strip_xy(g, i, j, xy[a + 3 * b]);
                    nd[a + 3 * b] = i + j * g->ni;
                }
            double Ke[18][18], Me[18][18];
            if (!q9_element((const double(*)[2])xy, p->E, p->nu, p->rho, p->width, Ke, Me))
                return TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "element (%d, %d) is inverted", ex, ey);
            for (int r = 0; r < 18; r++) {
                int gr = eq[2 * nd[r / 2] + r % 2];
                if (gr < 0) continue;
                for (int q = 0; q < 18; q++) {
                    int gq = eq[2 * nd[q / 2] + q % 2];
                    if (gq < 0 || gr > gq) continue;
                    size_t k = TK->nnz;
                    if (k >= TK->nzmax) return TVDS_ERROR(ctx, TVDS_ERR_INTERNAL, "triplets full");
                    ((int *)TK->i)[k] = gr;
                    ((int *)TK->j)[k] = gq;
                    ((double *)TK->x)[k] = Ke[r][q];
                    ((int *)TM->i)[k] = gr;
                    ((int *)TM->j)[k] = gq;
                    ((double *)TM->x)[k] = Me[r][q];
                    TK->nnz++;
                    TM->nnz++;
                }
            }
        }
    return TVDS_OK;
}

/* Builder shared by the three models: up to two strips, equation maps, labels. */
typedef struct fe_builder {
    int neq;
    tvds_dof *dofs; /* neq */
    cholmod_triplet *TK, *TM;
} fe_builder;

static int builder_start(fe_builder *b, int neq, size_t nelem, cholmod_common *cc, tvds_ctx *ctx)
{
    memset(b, 0, sizeof *b);
    b->neq = neq;
    b->dofs = tvds_calloc((size_t)neq, sizeof(tvds_dof));
    size_t nz = nelem * 18 * 18;
    b->TK = cholmod_allocate_triplet((size_t)neq, (size_t)neq, nz, 1, CHOLMOD_REAL, cc);
    b->TM = cholmod_allocate_triplet((size_t)neq, (size_t)neq, nz, 1, CHOLMOD_REAL, cc);
    if (!b->dofs || !b->TK || !b->TM) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    return TVDS_OK;
}

static void builder_free(fe_builder *b, cholmod_common *cc)
{
    tvds_free(b->dofs);
    cholmod_free_triplet(&b->TK, cc);
    cholmod_free_triplet(&b->TM, cc);
}

static int builder_finish(fe_builder *b, const char *name, tvds_fe_model **out, cholmod_common *cc,
                          tvds_ctx *ctx)
{
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    m->name = tvds_strdup(name);
    m->n = b->neq;
    m->K = cholmod_triplet_to_sparse(b->TK, 0, cc);
    m->M = cholmod_triplet_to_sparse(b->TM, 0, cc);
    m->dofs = b->dofs;
    b->dofs = NULL;
    if (!m->name || !m->K || !m->M) {
        tvds_fe_model_free(&m, cc);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    *out = m;
    return TVDS_OK;
}

int tvds_fe_add_set_(tvds_fe_model *m, const char *name, int n, const long *nodes, tvds_ctx *ctx)
{
    tvds_nodeset *s = tvds_realloc(m->sets, (size_t)(m->nsets + 1) * sizeof *s);
    if (!s) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    m->sets = s;
    tvds_nodeset *ns = &m->sets[m->nsets++];
    ns->name = tvds_strdup(name);
    ns->nodes = tvds_malloc((size_t)n * sizeof(long));
    ns->n = n;
    if (!ns->name || !ns->nodes) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    memcpy(ns->nodes, nodes, (size_t)n * sizeof(long));
    return TVDS_OK;
}

/* Beam 2 strip: axis +x, origin (0, -thick): upper edge (j = nj - 1) at y = 0. */
static void beam2_strip(const tvds_beam_params *p, strip *g)
{
    g->p = p;
    g->origin[0] = 0;
    g->origin[1] = -p->thick;
    g->axis[0] = 1;
    g->axis[1] = 0;
    g->ni = 2 * p->nx + 1;
    g->nj = 2 * p->ny + 1;
}

/* Beam 1 strip: axis from C toward A, (-cos, sin); the lower face (j = nj - 1) contains C at
 * i = 0, so origin = C - thick * nrm. */
static void beam1_strip(const tvds_beam_params *p, double s0, strip *g)
{
    double th = p->angle_deg * BEAMS_PI / 180;
    g->p = p;
    g->axis[0] = -cos(th);
    g->axis[1] = sin(th);
    double nrm[2] = {-g->axis[1], g->axis[0]};
    g->origin[0] = s0 - p->thick * nrm[0];
    g->origin[1] = 0 - p->thick * nrm[1];
    g->ni = 2 * p->nx + 1;
    g->nj = 2 * p->ny + 1;
}

/* Equation map of beam 2 (clamped at i = 0) starting at eq0; labels node ids base + 1 + k. */
static int beam2_eqs(const strip *g, int eq0, int *eq, tvds_dof *dofs)
{
    int e = eq0;
    for (int j = 0; j < g->nj; j++)
        for (int i = 0; i < g->ni; i++) {
            int k = i + j * g->ni;
            for (int d = 0; d < 2; d++) {
                if (i == 0) {
                    eq[2 * k + d] = -1;
                    continue;
                }
                eq[2 * k + d] = e;
                if (dofs) {
                    tvds_dof *dd = &dofs[e - eq0];
                    dd->kind = TVDS_DOF_PHYSICAL;
                    dd->node = k + 1;
                    dd->dir = d;
                    strip_xy(g, i, j, dd->xyz);
                    dd->xyz[2] = 0;
                }
                e++;
            }
        }
    return e;
}

/* Equation map of beam 1. Carriage (pin = 0): the section i = ni - 1 (end A) shares two
 * carriage equations, so that it translates without rotating. Pin (pin = 1): only the
 * mid-thickness node of that section carries the carriage equations; the other nodes of the
 * section are free and the beam can rotate about A. */
static int beam1_eqs(const strip *g, int pin, int eq0, int *eq, tvds_dof *dofs, int c_eq[2])
{
    int e = eq0, jmid = (g->nj - 1) / 2;
    for (int j = 0; j < g->nj; j++)
        for (int i = 0; i < g->ni; i++) {
            if (i == g->ni - 1 && (!pin || j == jmid)) continue;
            int k = i + j * g->ni;
            for (int d = 0; d < 2; d++) {
                if (i == 0 && j == g->nj - 1 && c_eq && c_eq[0] >= 0) {
                    eq[2 * k + d] = c_eq[d]; /* glued to beam 2 */
                    continue;
                }
                eq[2 * k + d] = e;
                if (dofs) {
                    tvds_dof *dd = &dofs[e - eq0];
                    dd->kind = TVDS_DOF_PHYSICAL;
                    dd->node = k + 1;
                    dd->dir = d;
                    strip_xy(g, i, j, dd->xyz);
                    dd->xyz[2] = 0;
                }
                e++;
            }
        }
    long a_node = (long)g->ni * g->nj + 1;
    double xa[2], xb[2];
    strip_xy(g, g->ni - 1, 0, xa);
    strip_xy(g, g->ni - 1, g->nj - 1, xb);
    for (int d = 0; d < 2; d++) {
        for (int j = 0; j < g->nj; j++)
            if (!pin || j == jmid) eq[2 * ((g->ni - 1) + j * g->ni) + d] = e;
        if (dofs) {
            tvds_dof *dd = &dofs[e - eq0];
            dd->kind = TVDS_DOF_PHYSICAL;
            dd->node = a_node;
            dd->dir = d;
            dd->xyz[0] = 0.5 * (xa[0] + xb[0]);
            dd->xyz[1] = 0.5 * (xa[1] + xb[1]);
            dd->xyz[2] = 0;
        }
        e++;
    }
    return e;
}

/* Equations of beam 1 alone: every node but the end section's, plus the carriage (2), plus
 * the end section's other nodes when pinned. */
static int beam1_neq(const strip *g, int pin)
{
    int nn = g->ni * g->nj;
    return 2 * (nn - g->nj) + 2 + (pin ? 2 * (g->nj - 1) : 0);
}

int tvds_beam2_build(const tvds_beam_params *p, tvds_fe_model **out, cholmod_common *cc,
                     tvds_ctx *ctx)
{
    *out = NULL;
    int rc = check_beam(p, "beam2", ctx);
    if (rc) return rc;
    strip g;
    beam2_strip(p, &g);
    int nn = g.ni * g.nj, neq = 2 * (nn - g.nj);
    int *eq = tvds_malloc((size_t)2 * nn * sizeof(int));
    long *nodes = tvds_malloc((size_t)g.ni * sizeof(long));
    fe_builder b;
    rc = builder_start(&b, neq, (size_t)p->nx * p->ny, cc, ctx);
    if (!rc && (!eq || !nodes)) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc) {
        beam2_eqs(&g, 0, eq, b.dofs);
        rc = strip_assemble(&g, eq, b.TK, b.TM, ctx);
    }
    if (!rc) rc = builder_finish(&b, "beam2", out, cc, ctx);
    if (!rc) {
        for (int i = 1; i < g.ni; i++)
            nodes[i - 1] = i + (long)(g.nj - 1) * g.ni + 1;
        rc = tvds_fe_add_set_(*out, "top", g.ni - 1, nodes, ctx);
        long t = (g.ni - 1) + (long)p->ny * g.ni + 1, tt = (long)g.ni * g.nj;
        if (!rc) rc = tvds_fe_add_set_(*out, "T", 1, &t, ctx);
        if (!rc) rc = tvds_fe_add_set_(*out, "T_top", 1, &tt, ctx);
    }
    if (rc) tvds_fe_model_free(out, cc);
    builder_free(&b, cc);
    tvds_free(eq);
    tvds_free(nodes);
    return rc;
}

int tvds_beam1_build(const tvds_beam_params *p, double s0, tvds_fe_model **out, cholmod_common *cc,
                     tvds_ctx *ctx)
{
    *out = NULL;
    int rc = check_beam(p, "beam1", ctx);
    if (rc) return rc;
    strip g;
    beam1_strip(p, s0, &g);
    int nn = g.ni * g.nj, neq = beam1_neq(&g, p->pin);
    int *eq = tvds_malloc((size_t)2 * nn * sizeof(int));
    fe_builder b;
    rc = builder_start(&b, neq, (size_t)p->nx * p->ny, cc, ctx);
    if (!rc && !eq) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc) {
        beam1_eqs(&g, p->pin, 0, eq, b.dofs, NULL);
        rc = strip_assemble(&g, eq, b.TK, b.TM, ctx);
    }
    if (!rc) rc = builder_finish(&b, "beam1", out, cc, ctx);
    if (!rc) {
        long a = (long)nn + 1, c = (long)(g.nj - 1) * g.ni + 1;
        rc = tvds_fe_add_set_(*out, "A", 1, &a, ctx);
        if (!rc) rc = tvds_fe_add_set_(*out, "C", 1, &c, ctx);
    }
    if (rc) tvds_fe_model_free(out, cc);
    builder_free(&b, cc);
    tvds_free(eq);
    return rc;
}

int tvds_bob_glued_build(const tvds_bob_params *p, tvds_fe_model **out, cholmod_common *cc,
                         tvds_ctx *ctx)
{
    *out = NULL;
    int rc = check_beam(&p->beam1, "beam1", ctx);
    if (!rc) rc = check_beam(&p->beam2, "beam2", ctx);
    if (rc) return rc;
    strip g1, g2;
    beam2_strip(&p->beam2, &g2);
    beam1_strip(&p->beam1, p->s0, &g1);
    double h = p->beam2.length / (2.0 * p->beam2.nx), r = p->s0 / h;
    int ic = (int)lround(r);
    if (fabs(r - ic) > 1e-9 || ic < 1 || ic >= g2.ni)
        return TVDS_ERROR(
            ctx, TVDS_ERR_INVALID,
            "glued model: s0 = %g m is not an upper-edge node of beam 2 (spacing %g m)", p->s0, h);
    int nn1 = g1.ni * g1.nj, nn2 = g2.ni * g2.nj;
    int neq2 = 2 * (nn2 - g2.nj), neq = neq2 + beam1_neq(&g1, p->beam1.pin) - 2;
    (void)nn1;
    int *eq1 = tvds_malloc((size_t)2 * nn1 * sizeof(int));
    int *eq2 = tvds_malloc((size_t)2 * nn2 * sizeof(int));
    fe_builder b;
    rc = builder_start(
        &b, neq, (size_t)p->beam1.nx * p->beam1.ny + (size_t)p->beam2.nx * p->beam2.ny, cc, ctx);
    if (!rc && (!eq1 || !eq2)) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc) {
        beam2_eqs(&g2, 0, eq2, b.dofs);
        int k2 = ic + (g2.nj - 1) * g2.ni, ceq[2] = {eq2[2 * k2], eq2[2 * k2 + 1]};
        beam1_eqs(&g1, p->beam1.pin, neq2, eq1, b.dofs + neq2, ceq);
        rc = strip_assemble(&g2, eq2, b.TK, b.TM, ctx);
        if (!rc) rc = strip_assemble(&g1, eq1, b.TK, b.TM, ctx);
    }
    if (!rc) rc = builder_finish(&b, "beam-on-beam glued", out, cc, ctx);
    builder_free(&b, cc);
    tvds_free(eq1);
    tvds_free(eq2);
    return rc;
}

static int join(char *buf, size_t n, const char *dir, const char *leaf, tvds_ctx *ctx)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, leaf) >= n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: path too long", dir);
    return TVDS_OK;
}

static int rename_sub(tvds_substructure *s, const char *name, tvds_ctx *ctx)
{
    tvds_free(s->name);
    s->name = tvds_strdup(name);
    if (s->nrec > 0) {
        tvds_free(s->rec[0].name);
        s->rec[0].name = tvds_strdup("T");
        if (!s->rec[0].name) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    return s->name ? TVDS_OK : TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
}

int tvds_bob_pair_write_(tvds_fe_model *b1, tvds_fe_model *b2, const char *b2_boundary,
                         tvds_bob_finish_fn finish2, const tvds_bob_params *p, const char *dir,
                         tvds_reduce_stats *stats, cholmod_common *cc, tvds_ctx *ctx)
{
    tvds_substructure *r1 = NULL, *r2 = NULL;
    int *bnd = NULL, *rec = NULL, nbnd = 0, nrec = 0;
    char path[4096];
    int rc = tvds_mkdir_p(dir, ctx); /* with its parents, as every other command's -o */
    if (!rc) rc = join(path, sizeof path, dir, "beam1_full", ctx);
    if (!rc) rc = tvds_fe_model_write(b1, path, ctx);
    if (!rc) rc = join(path, sizeof path, dir, "beam2_full", ctx);
    if (!rc) rc = tvds_fe_model_write(b2, path, ctx);
    tvds_reduce_opts o = tvds_reduce_opts_default();
    if (!rc)
        rc = tvds_reduce_parse_spec("A,C", b1->n, b1->dofs, b1->nsets, b1->sets, &nbnd, &bnd, ctx);
    o.nmodes = p->modes1;
    if (!rc)
        rc = tvds_reduce_cb(b1->M, b1->K, b1->dofs, nbnd, bnd, 0, NULL, b1->nsets, b1->sets, &o,
                            &r1, stats ? &stats[0] : NULL, cc, ctx);
    tvds_free(bnd);
    bnd = NULL;
    if (!rc)
        rc = tvds_reduce_parse_spec(b2_boundary, b2->n, b2->dofs, b2->nsets, b2->sets, &nbnd, &bnd,
                                    ctx);
    if (!rc)
        rc = tvds_reduce_parse_spec("T.y", b2->n, b2->dofs, b2->nsets, b2->sets, &nrec, &rec, ctx);
    o.nmodes = p->modes2;
    if (!rc)
        rc = tvds_reduce_cb(b2->M, b2->K, b2->dofs, nbnd, bnd, nrec, rec, b2->nsets, b2->sets, &o,
                            &r2, stats ? &stats[1] : NULL, cc, ctx);
    if (!rc) rc = rename_sub(r1, "beam1", ctx);
    if (!rc) rc = rename_sub(r2, "beam2", ctx);
    if (!rc && finish2) rc = finish2(&p->beam2, r2, ctx);
    if (!rc) rc = join(path, sizeof path, dir, "beam1", ctx);
    if (!rc) rc = tvds_substructure_write(r1, path, ctx);
    if (!rc) rc = join(path, sizeof path, dir, "beam2", ctx);
    if (!rc) rc = tvds_substructure_write(r2, path, ctx);
    tvds_free(bnd);
    tvds_free(rec);
    tvds_substructure_free(&r1);
    tvds_substructure_free(&r2);
    tvds_fe_model_free(&b1, cc);
    tvds_fe_model_free(&b2, cc);
    return rc;
}

int tvds_bob_write(const tvds_bob_params *p, const char *dir, tvds_reduce_stats *stats,
                   cholmod_common *cc, tvds_ctx *ctx)
{
    tvds_fe_model *b1 = NULL, *b2 = NULL;
    int rc = tvds_beam1_build(&p->beam1, p->s0, &b1, cc, ctx);
    if (!rc) rc = tvds_beam2_build(&p->beam2, &b2, cc, ctx);
    if (rc) {
        tvds_fe_model_free(&b1, cc);
        tvds_fe_model_free(&b2, cc);
        return rc;
    }
    return tvds_bob_pair_write_(b1, b2, "top", NULL, p, dir, stats, cc, ctx);
}

/* ---- Timoshenko reference ---------------------------------------------------------------- */

/* det of the free-end (M, V) of the two clamped-end solutions at circular frequency w. */
static double timo_det(double EI, double kGA, double rhoA, double rhoI, double L, double w)
{
    const int nstep = 2000;
    double h = L / nstep, res[2][2];
    for (int sol = 0; sol < 2; sol++) {
        double y[4] = {0, 0, sol == 0 ? 1.0 : 0.0, sol == 1 ? 1.0 : 0.0}; /* w psi M V */
        for (int s = 0; s < nstep; s++) {
            double k[4][4], t[4];
            for (int st = 0; st < 4; st++) {
                double f = st == 0 ? 0 : (st == 3 ? 1 : 0.5);
                for (int c = 0; c < 4; c++)
                    t[c] = y[c] + (st ? f * h * k[st - 1][c] : 0);
                k[st][0] = t[1] + t[3] / kGA;
                k[st][1] = t[2] / EI;
                k[st][2] = -t[3] - rhoI * w * w * t[1];
                k[st][3] = -rhoA * w * w * t[0];
            }
            for (int c = 0; c < 4; c++)
                y[c] += h / 6 * (k[0][c] + 2 * k[1][c] + 2 * k[2][c] + k[3][c]);
        }
        res[sol][0] = y[2];
        res[sol][1] = y[3];
    }
    return res[0][0] * res[1][1] - res[1][0] * res[0][1];
}

int tvds_timoshenko_cantilever(double E, double nu, double rho, double length, double thick,
                               double kappa, int nf, double *freq_hz)
{
    if (kappa <= 0) kappa = 10 * (1 + nu) / (12 + 11 * nu);
    double G = E / (2 * (1 + nu)), A = thick, I = thick * thick * thick / 12; /* unit width */
    double EI = E * I, kGA = kappa * G * A, rhoA = rho * A, rhoI = rho * I;
    /* Scan from well below the Euler-Bernoulli fundamental, 0.2 % steps. */
    double w = 0.5 * 3.5160 * sqrt(EI / (rhoA * pow(length, 4)));
    double d0 = timo_det(EI, kGA, rhoA, rhoI, length, w);
    int found = 0;
    while (found < nf) {
        double w1 = w * 1.002, d1 = timo_det(EI, kGA, rhoA, rhoI, length, w1);
        if ((d0 < 0) != (d1 < 0)) {
            double a = w, b = w1, da = d0;
            for (int it = 0; it < 80; it++) {
                double m = 0.5 * (a + b), dm = timo_det(EI, kGA, rhoA, rhoI, length, m);
                if ((dm < 0) == (da < 0)) {
                    a = m;
                    da = dm;
                } else {
                    b = m;
                }
            }
            freq_hz[found++] = 0.5 * (a + b) / (2 * BEAMS_PI);
        }
        w = w1;
        d0 = d1;
    }
    return TVDS_OK;
}
