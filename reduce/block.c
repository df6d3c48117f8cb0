/* block.c — a generated 3D solid for benchmarks and tests: a box of 8-node trilinear
 * hexahedra (isotropic linear elasticity, consistent mass), clamped on one end face; by
 * default beam 2 of the beam-on-beam model (100 x 20 x 2 mm, polycarbonate) as a solid
 * (docs/performance.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tvds/tvds_reduce.h"

tvds_block_params tvds_block_default(void)
{
    tvds_block_params p;
    p.lx = 0.1; /* beam 2 of the beam-on-beam model as a solid: length, width, thickness */
    p.ly = 0.02;
    p.lz = 0.002;
    p.nx = 50;
    p.ny = 10;
    p.nz = 1;
    p.E = 2.38e9; /* polycarbonate, as beam 2 */
    p.nu = 0.40;
    p.rho = 1200.0;
    p.patch = 10;
    return p;
}

void tvds_block_size_for(tvds_block_params *p, double ndofs)
{
    /* Elements in the proportions of the box (50:10:1 by default): free DoFs
     * 3 nx (ny + 1)(nz + 1) with nx = ax c, ny = ay c, nz = c (at least 1). */
    double ax = p->lx / p->lz, ay = p->ly / p->lz;
    double c = cbrt(ndofs / (3.0 * ax * ay));
    for (int it = 0; it < 50; it++) { /* refine for the +1 terms */
        double n = 3.0 * ax * c * (ay * c + 1.0) * (c + 1.0);
        c *= cbrt(ndofs / n);
    }
    p->nz = c < 1.0 ? 1 : (int)lround(c);
    /* nx, ny from the remaining count, in the box's in-plane proportions. */
    double r = ndofs / (3.0 * (p->nz + 1.0)); /* = nx (ny + 1) */
    double ny = 0.5 * (sqrt(1.0 + 4.0 * r * ay / ax) - 1.0);
    p->ny = (int)lround(ny);
    if (p->ny < 1) p->ny = 1;
    p->nx = (int)lround(r / (p->ny + 1.0));
    if (p->nx < 1) p->nx = 1;
    if (p->ny < 1) p->ny = 1;
}

int tvds_block_build(const tvds_block_params *p, tvds_fe_model **out, cholmod_common *cc,
                     tvds_ctx *ctx)
{
    if (!p || !out || !cc || p->nx < 1 || p->ny < 1 || p->nz < 1 || !(p->lx > 0) || !(p->ly > 0) ||
        !(p->lz > 0) || !(p->E > 0) || !(p->rho > 0) || !(p->nu > -1) || !(p->nu < 0.5))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "block: invalid parameters");
    *out = NULL;
    const int nx = p->nx, ny = p->ny, nz = p->nz;
    const double ndof_d = 3.0 * nx * (ny + 1.0) * (nz + 1.0);
    if (ndof_d > 2.0e8)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "block: %.3g DoFs is too many", ndof_d);
    const int n = (int)ndof_d;
    double Ke[24][24], Me[24][24];
    int corner[8][3]; /* node offsets of the element corners (reduce/hex8.c) */
    const double h[3] = {p->lx / nx, p->ly / ny, p->lz / nz};
    for (int l = 0; l < 8; l++)
        tvds_hex8_corner(l, corner[l]);
    if (!tvds_hex8_box(p->E, p->nu, p->rho, h, 0, Ke, Me))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "block: degenerate element");
        /* Free DoF (i >= 1) of node (i, j, k), direction a. */
#define DOF(i, j, k, a) (3 * (((i)-1) + nx * ((j) + (ny + 1) * (k))) + (a))
    /* Count the upper-triangle entries of each column: rows are the DoFs of the free nodes
     * of the 3 x 3 x 3 neighbourhood with index <= the column. */
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "block: out of memory");
    size_t nnz = 0;
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 1; i <= nx; i++)
                for (int a = 0; a < 3; a++) {
                    int c = DOF(i, j, k, a);
                    for (int dk = -1; dk <= 1; dk++)
                        for (int dj = -1; dj <= 1; dj++)
                            for (int di = -1; di <= 1; di++) {
                                int qi = i + di, qj = j + dj, qk = k + dk;
                                if (qi < 1 || qi > nx || qj < 0 || qj > ny || qk < 0 || qk > nz)
                                    continue;
                                for (int b = 0; b < 3; b++)
                                    nnz += DOF(qi, qj, qk, b) <= c;
                            }
                }
    m->K = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz, 1, 1, 1, CHOLMOD_REAL, cc);
    m->M = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz, 1, 1, 1, CHOLMOD_REAL, cc);
    m->dofs = tvds_malloc((size_t)n * sizeof *m->dofs);
    m->n = n;
    m->name = tvds_strdup("block");
    if (!m->K || !m->M || !m->dofs || !m->name) {
        tvds_fe_model_free(&m, cc);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "block: out of memory for %d DoFs", n);
    }
    int *Kp = m->K->p, *Ki = m->K->i, *Mp = m->M->p, *Mi = m->M->i;
    double *Kx = m->K->x, *Mx = m->M->x;
    size_t t = 0;
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 1; i <= nx; i++)
                for (int a = 0; a < 3; a++) {
                    int c = DOF(i, j, k, a);
                    Kp[c] = Mp[c] = (int)t;
                    tvds_dof *d = &m->dofs[c];
                    memset(d, 0, sizeof *d);
                    d->kind = TVDS_DOF_PHYSICAL;
                    d->node = 1 + i + (nx + 1L) * (j + (ny + 1L) * k);
                    d->dir = a;
                    d->xyz[0] = p->lx * i / nx;
                    d->xyz[1] = p->ly * j / ny;
                    d->xyz[2] = p->lz * k / nz;
                    for (int dk = -1; dk <= 1; dk++)
                        for (int dj = -1; dj <= 1; dj++)
                            for (int di = -1; di <= 1; di++) {
                                int qi = i + di, qj = j + dj, qk = k + dk;
                                if (qi < 1 || qi > nx || qj < 0 || qj > ny || qk < 0 || qk > nz)
                                    continue;
                                for (int b = 0; b < 3; b++) {
                                    int r = DOF(qi, qj, qk, b);
                                    if (r > c) continue;
                                    /* Sum over the elements holding both nodes. */
                                    double kv = 0, mv = 0;
                                    for (int ek = k - 1; ek <= k; ek++)
                                        for (int ej = j - 1; ej <= j; ej++)
                                            for (int ei = i - 1; ei <= i; ei++) {
                                                if (ei < 0 || ei >= nx || ej < 0 || ej >= ny ||
                                                    ek < 0 || ek >= nz)
                                                    continue;
                                                int lp = -1, lq = -1;
                                                for (int l = 0; l < 8; l++) {
                                                    int x = ei + corner[l][0],
                                                        y = ej + corner[l][1],
                                                        z = ek + corner[l][2];
                                                    if (x == i && y == j && z == k) lp = l;
                                                    if (x == qi && y == qj && z == qk) lq = l;
                                                }
                                                if (lp < 0 || lq < 0) continue;
                                                kv += Ke[3 * lq + b][3 * lp + a];
                                                mv += Me[3 * lq + b][3 * lp + a];
                                            }
                                    Ki[t] = Mi[t] = r;
                                    Kx[t] = kv;
                                    Mx[t] = mv;
                                    t++;
                                }
                            }
                }
    Kp[n] = Mp[n] = (int)t;
#undef DOF
    /* Node sets: the clamped face has no DoF; 'top' is the upper face (z = lz), 'patch' a
     * square of patch x patch nodes of it at the free end (a contact patch), 'tip' the free
     * end face. */
    m->sets = tvds_calloc(3, sizeof *m->sets);
    if (!m->sets) {
        tvds_fe_model_free(&m, cc);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "block: out of memory");
    }
    int pi = p->patch < nx ? p->patch : nx, pj = p->patch < ny + 1 ? p->patch : ny + 1;
    const char *names[3] = {"top", "patch", "tip"};
    int counts[3] = {nx * (ny + 1), pi * pj, (ny + 1) * (nz + 1)};
    for (int s = 0; s < 3; s++) {
        m->sets[s].name = tvds_strdup(names[s]);
        m->sets[s].nodes = tvds_malloc((size_t)counts[s] * sizeof(long));
        m->nsets++;
        if (!m->sets[s].name || !m->sets[s].nodes) {
            tvds_fe_model_free(&m, cc);
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "block: out of memory");
        }
    }
    for (int j = 0; j <= ny; j++)
        for (int i = 1; i <= nx; i++) {
            long id = 1 + i + (nx + 1L) * (j + (ny + 1L) * nz);
            m->sets[0].nodes[m->sets[0].n++] = id;
            if (i > nx - pi && j >= (ny + 1 - pj) / 2 && j < (ny + 1 - pj) / 2 + pj)
                m->sets[1].nodes[m->sets[1].n++] = id;
        }
    for (int k = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            m->sets[2].nodes[m->sets[2].n++] = 1 + nx + (nx + 1L) * (j + (ny + 1L) * k);
    /* Face set 'top_faces': the upper faces of the elements that do not touch the clamped face
     * (those have clamped nodes without DoFs), corners counter-clockwise seen from +z, the
     * outside (a master surface for 3D contact). */
    if (nx > 1) {
        size_t nf = (size_t)(nx - 1) * ny;
        m->fsets = tvds_calloc(1, sizeof *m->fsets);
        if (m->fsets) {
            m->nfsets = 1;
            m->fsets[0].name = tvds_strdup("top_faces");
            m->fsets[0].nn = tvds_malloc(nf * sizeof(int));
            m->fsets[0].nodes = tvds_calloc(nf * TVDS_FACE_MAX_NODES, sizeof(long));
        }
        if (!m->fsets || !m->fsets[0].name || !m->fsets[0].nn || !m->fsets[0].nodes) {
            tvds_fe_model_free(&m, cc);
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "block: out of memory");
        }
        tvds_faceset *fs = &m->fsets[0];
        for (int j = 0; j < ny; j++)
            for (int i = 1; i < nx; i++) {
                long *v = fs->nodes + (size_t)fs->nface * TVDS_FACE_MAX_NODES;
                v[0] = 1 + i + (nx + 1L) * (j + (ny + 1L) * nz);
                v[1] = v[0] + 1;
                v[2] = v[1] + (nx + 1L);
                v[3] = v[0] + (nx + 1L);
                fs->nn[fs->nface++] = 4;
            }
    }
    *out = m;
    return TVDS_OK;
}
