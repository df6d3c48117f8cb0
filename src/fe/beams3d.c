/* beams3d.c — the beam-on-beam pair as solids: 8-node hexahedra with incompatible modes
 * (reduce/hex8.c), full models and Craig–Bampton reductions with a line contact at tip C and
 * beam 2's upper face as a face set (docs/models.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fe/beams_impl.h"
#include "tvds/tvds_beams.h"
#include "tvds/tvds_io.h"

#define B3_PI 3.14159265358979323846

tvds_bob_params tvds_bob3d_default(void)
{
    tvds_bob_params p = tvds_bob_default();
    /* Incompatible-mode hexahedra bend exactly under constant moment, so two layers through
     * the thickness suffice; four across the width resolve the lateral and torsional modes. */
    p.beam1.nx = 40;
    p.beam1.ny = 2;
    p.beam1.nz = 4;
    p.beam2.nx = 50;
    p.beam2.ny = 2;
    p.beam2.nz = 4;
    return p;
}

/* A meshed box: node (i, j, k), 0 <= i <= nx along the axis, 0 <= j <= ny through the
 * thickness (along nrm), 0 <= k <= nz across the width (global z, centred on z = 0). Node id
 * 1 + i + (nx + 1)(j + (ny + 1) k). */
typedef struct brick {
    const tvds_beam_params *p;
    double origin[3], axis[3], nrm[3];
} brick;

static long b_id(const tvds_beam_params *p, int i, int j, int k)
{
    return 1 + i + (p->nx + 1L) * (j + (p->ny + 1L) * k);
}

static void b_xyz(const brick *g, int i, int j, int k, double x[3])
{
    const tvds_beam_params *p = g->p;
    double s = p->length * i / p->nx, t = p->thick * j / p->ny,
           z = -0.5 * p->width + p->width * k / p->nz;
    for (int c = 0; c < 3; c++)
        x[c] = g->origin[c] + s * g->axis[c] + t * g->nrm[c] + (c == 2 ? z : 0);
}

/* Beam 2: axis +x, origin (0, -thick): upper face (j = ny) at y = 0. */
static void beam2_brick(const tvds_beam_params *p, brick *g)
{
    memset(g, 0, sizeof *g);
    g->p = p;
    g->origin[1] = -p->thick;
    g->axis[0] = 1;
    g->nrm[1] = 1;
}

/* Beam 1: axis from C toward A, (-cos, sin, 0); nrm = axis turned by +90 degrees about z, so
 * (axis, nrm, z) is right-handed and the face j = ny holds the tip line C at i = 0, x = s0. */
static void beam1_brick(const tvds_beam_params *p, double s0, brick *g)
{
    double th = p->angle_deg * B3_PI / 180;
    memset(g, 0, sizeof *g);
    g->p = p;
    g->axis[0] = -cos(th);
    g->axis[1] = sin(th);
    g->nrm[0] = -g->axis[1];
    g->nrm[1] = g->axis[0];
    g->origin[0] = s0 - p->thick * g->nrm[0];
    g->origin[1] = -p->thick * g->nrm[1];
}

static int check3(const tvds_beam_params *p, const char *which, tvds_ctx *ctx)
{
    if (!(p->length > 0 && p->thick > 0 && p->width > 0 && p->E > 0 && p->rho > 0 && p->nu > -1 &&
          p->nu < 0.5 && p->nx >= 1 && p->ny >= 1 && p->nz >= 1))
        return TVDS_ERROR(
            ctx, TVDS_ERR_INVALID,
            "%s: need length, thick, width, E, rho > 0, -1 < nu < 0.5, nx, ny, nz >= 1", which);
    if ((p->nx + 1.0) * (p->ny + 1.0) * (p->nz + 1.0) > 2e6)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: mesh too large", which);
    return TVDS_OK;
}

/* Assemble the brick's elements (upper triangle) into a model whose equation of node id / dir
 * is eq[3 (id - 1) + dir] (-1: fixed). */
static int brick_model(const brick *g, const int *eq, int neq, const char *name,
                       tvds_fe_model **out, cholmod_common *cc, tvds_ctx *ctx)
{
    const tvds_beam_params *p = g->p;
    double h[3] = {p->length / p->nx, p->thick / p->ny, p->width / p->nz}, Kl[24][24], Ml[24][24];
    if (!tvds_hex8_box(p->E, p->nu, p->rho, h, 1, Kl, Ml))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: degenerate element", name);
    /* Rotate to global axes: u_global = R u_local, R's columns axis, nrm, z. */
    double R[3][3], Ke[24][24], Me[24][24];
    for (int c = 0; c < 3; c++) {
        R[c][0] = g->axis[c];
        R[c][1] = g->nrm[c];
        R[c][2] = c == 2;
    }
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    double sk = 0, sm = 0;
                    for (int k = 0; k < 3; k++)
                        for (int l = 0; l < 3; l++) {
                            sk += R[i][k] * Kl[3 * a + k][3 * b + l] * R[j][l];
                            sm += R[i][k] * Ml[3 * a + k][3 * b + l] * R[j][l];
                        }
                    Ke[3 * a + i][3 * b + j] = sk;
                    Me[3 * a + i][3 * b + j] = sm;
                }
    size_t nel = (size_t)p->nx * p->ny * p->nz, nz = nel * 24 * 24;
    cholmod_triplet *TK =
        cholmod_allocate_triplet((size_t)neq, (size_t)neq, nz, 1, CHOLMOD_REAL, cc);
    cholmod_triplet *TM =
        cholmod_allocate_triplet((size_t)neq, (size_t)neq, nz, 1, CHOLMOD_REAL, cc);
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    int rc = TVDS_OK;
    if (!TK || !TM || !m) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", name);
    for (int ek = 0; !rc && ek < p->nz; ek++)
        for (int ej = 0; ej < p->ny; ej++)
            for (int ei = 0; ei < p->nx; ei++) {
                int e[24];
                for (int l = 0; l < 8; l++) {
                    int o[3];
                    tvds_hex8_corner(l, o);
                    long id = b_id(p, ei + o[0], ej + o[1], ek + o[2]);
                    for (int d = 0; d < 3; d++)
                        e[3 * l + d] = eq[3 * (id - 1) + d];
                }
                for (int r = 0; r < 24; r++)
                    for (int q = 0; q < 24; q++) {
                        if (e[r] < 0 || e[q] < 0 || e[r] > e[q]) continue;
                        size_t t = TK->nnz++;
                        TM->nnz++;
                        ((int *)TK->i)[t] = ((int *)TM->i)[t] = e[r];
                        ((int *)TK->j)[t] = ((int *)TM->j)[t] = e[q];
                        ((double *)TK->x)[t] = Ke[r][q];
                        ((double *)TM->x)[t] = Me[r][q];
                    }
            }
    if (!rc) {
        m->name = tvds_strdup(name);
        m->n = neq;
        m->K = cholmod_triplet_to_sparse(TK, 0, cc);
        m->M = cholmod_triplet_to_sparse(TM, 0, cc);
        m->dofs = tvds_calloc((size_t)neq, sizeof *m->dofs);
        if (!m->name || !m->K || !m->M || !m->dofs)
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", name);
    }
    cholmod_free_triplet(&TK, cc);
    cholmod_free_triplet(&TM, cc);
    if (!rc) {
        for (int k = 0; k <= p->nz; k++)
            for (int j = 0; j <= p->ny; j++)
                for (int i = 0; i <= p->nx; i++) {
                    long id = b_id(p, i, j, k);
                    for (int d = 0; d < 3; d++) {
                        int q = eq[3 * (id - 1) + d];
                        if (q < 0 || m->dofs[q].node != 0) continue; /* labelled already */
                        m->dofs[q].kind = TVDS_DOF_PHYSICAL;
                        m->dofs[q].node = id;
                        m->dofs[q].dir = d;
                        b_xyz(g, i, j, k, m->dofs[q].xyz);
                    }
                }
        *out = m;
    } else {
        tvds_fe_model_free(&m, cc);
    }
    return rc;
}

int tvds_beam2_3d_build(const tvds_beam_params *p, tvds_fe_model **out, cholmod_common *cc,
                        tvds_ctx *ctx)
{
    *out = NULL;
    int rc = check3(p, "beam2", ctx);
    if (rc) return rc;
    brick g;
    beam2_brick(p, &g);
    long nn = (p->nx + 1L) * (p->ny + 1) * (p->nz + 1);
    int *eq = tvds_malloc((size_t)(3 * nn) * sizeof(int));
    long *nodes = tvds_malloc((size_t)nn * sizeof(long));
    if (!eq || !nodes) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int neq = 0;
    for (int k = 0; !rc && k <= p->nz; k++)
        for (int j = 0; j <= p->ny; j++)
            for (int i = 0; i <= p->nx; i++)
                for (int d = 0; d < 3; d++)
                    eq[3 * (b_id(p, i, j, k) - 1) + d] = i == 0 ? -1 : neq++;
    if (!rc) rc = brick_model(&g, eq, neq, "beam2", out, cc, ctx);
    if (!rc) { /* upper face, clamped section excluded, row by row along x */
        int n = 0;
        for (int k = 0; k <= p->nz; k++)
            for (int i = 1; i <= p->nx; i++)
                nodes[n++] = b_id(p, i, p->ny, k);
        rc = tvds_fe_add_set_(*out, "top_nodes", n, nodes, ctx);
        long t = b_id(p, p->nx, p->ny / 2, p->nz / 2);
        if (!rc) rc = tvds_fe_add_set_(*out, "T", 1, &t, ctx);
    }
    if (rc) tvds_fe_model_free(out, cc);
    tvds_free(eq);
    tvds_free(nodes);
    return rc;
}

int tvds_beam1_3d_build(const tvds_beam_params *p, double s0, tvds_fe_model **out,
                        cholmod_common *cc, tvds_ctx *ctx)
{
    *out = NULL;
    int rc = check3(p, "beam1", ctx);
    if (rc) return rc;
    if (p->pin) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "beam1: the 3D model has no pin at A");
    brick g;
    beam1_brick(p, s0, &g);
    long nn = (p->nx + 1L) * (p->ny + 1) * (p->nz + 1);
    int *eq = tvds_malloc((size_t)(3 * nn) * sizeof(int));
    long *nodes = tvds_malloc((size_t)(p->nz + 1) * sizeof(long));
    if (!eq || !nodes) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int neq = 0;
    for (int k = 0; !rc && k <= p->nz; k++)
        for (int j = 0; j <= p->ny; j++)
            for (int i = 0; i < p->nx; i++)
                for (int d = 0; d < 3; d++)
                    eq[3 * (b_id(p, i, j, k) - 1) + d] = neq++;
    /* Carriage: every node of A's end section shares the three translations of node A. */
    for (int k = 0; !rc && k <= p->nz; k++)
        for (int j = 0; j <= p->ny; j++)
            for (int d = 0; d < 3; d++)
                eq[3 * (b_id(p, p->nx, j, k) - 1) + d] = neq + d;
    neq += 3;
    if (!rc) rc = brick_model(&g, eq, neq, "beam1", out, cc, ctx);
    if (!rc) {
        long a = nn + 1;
        double xa[3], xb[3];
        b_xyz(&g, p->nx, 0, 0, xa);
        b_xyz(&g, p->nx, p->ny, p->nz, xb);
        for (int d = 0; d < 3; d++) { /* node A: the centre of the end section */
            tvds_dof *dd = &(*out)->dofs[neq - 3 + d];
            dd->node = a;
            for (int c = 0; c < 3; c++)
                dd->xyz[c] = 0.5 * (xa[c] + xb[c]);
        }
        for (int k = 0; k <= p->nz; k++)
            nodes[k] = b_id(p, 0, p->ny, k);
        rc = tvds_fe_add_set_(*out, "A", 1, &a, ctx);
        if (!rc) rc = tvds_fe_add_set_(*out, "C", p->nz + 1, nodes, ctx);
    }
    if (rc) tvds_fe_model_free(out, cc);
    tvds_free(eq);
    tvds_free(nodes);
    return rc;
}

/* Beam 2's upper face (y = 0), clamped column of elements excluded, as a face set of 4-node
 * quadrilaterals counter-clockwise seen from +y (the contact normal), first edge along +x. */
static int top_faces(const tvds_beam_params *p, tvds_substructure *s, tvds_ctx *ctx)
{
    int nf = (p->nx - 1) * p->nz;
    if (nf < 1) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "beam2: nx >= 2 needed for the face set");
    tvds_faceset *fs = tvds_realloc(s->fsets, (size_t)(s->nfsets + 1) * sizeof *fs);
    if (!fs) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    s->fsets = fs;
    fs = &s->fsets[s->nfsets++];
    memset(fs, 0, sizeof *fs);
    fs->name = tvds_strdup("top");
    fs->nn = tvds_malloc((size_t)nf * sizeof(int));
    fs->nodes = tvds_calloc((size_t)nf * TVDS_FACE_MAX_NODES, sizeof(long));
    if (!fs->name || !fs->nn || !fs->nodes) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < p->nz; k++)
        for (int i = 1; i < p->nx; i++) {
            long *f = fs->nodes + (size_t)TVDS_FACE_MAX_NODES * fs->nface;
            fs->nn[fs->nface++] = 4;
            /* (x, z + dz), (x + dx, z + dz), (x + dx, z), (x, z): a1 = +x (t1 along the
             * sliding direction, as the 2D model's tangent), n = a1 x a2 = +y */
            f[0] = b_id(p, i, p->ny, k + 1);
            f[1] = b_id(p, i + 1, p->ny, k + 1);
            f[2] = b_id(p, i + 1, p->ny, k);
            f[3] = b_id(p, i, p->ny, k);
        }
    return TVDS_OK;
}

int tvds_bob3d_write(const tvds_bob_params *p, const char *dir, tvds_reduce_stats *stats,
                     cholmod_common *cc, tvds_ctx *ctx)
{
    tvds_fe_model *b1 = NULL, *b2 = NULL;
    int rc = tvds_beam1_3d_build(&p->beam1, p->s0, &b1, cc, ctx);
    if (!rc) rc = tvds_beam2_3d_build(&p->beam2, &b2, cc, ctx);
    if (rc) {
        tvds_fe_model_free(&b1, cc);
        tvds_fe_model_free(&b2, cc);
        return rc;
    }
    return tvds_bob_pair_write_(b1, b2, "top_nodes", top_faces, p, dir, stats, cc, ctx);
}
