/* bench_cbpad.c — the pad-on-plate benchmark model: a square pad of side x side contact nodes
 * pressed and dragged on a Craig-Bampton plate (tvds_bench.h, docs/performance.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tvds/tvds_bench.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

/* Symmetric spring k between DoFs i and j (j < 0: to ground) into K (n x n). */
static void pad_spring(double *K, int n, int i, int j, double k)
{
    size_t N = (size_t)n;
    K[i + i * N] += k;
    if (j >= 0) {
        K[j + j * N] += k;
        K[i + j * N] -= k;
        K[j + i * N] -= k;
    }
}

/* The plate: a steel block lx x ly x lz = 60 x 20 x 4 mm of nx x ny x 2 hexahedra clamped at
 * x = 0, reduced on the nodes of its face set top_faces (20 fixed-interface modes). */
static int plate_write(const char *dir, int nx, int ny, tvds_ctx *ctx)
{
    cholmod_common cc;
    int rc = tvds_cholmod_start(&cc);
    if (rc) return TVDS_ERROR(ctx, rc, "pad-on-plate model: cannot start CHOLMOD");
    tvds_cholmod_ctx(ctx);
    tvds_block_params p = tvds_block_default();
    p.lx = 0.06, p.ly = 0.02, p.lz = 0.004;
    p.nx = nx, p.ny = ny, p.nz = 2;
    p.E = 2.1e11, p.nu = 0.3, p.rho = 7850.0;
    p.patch = 2;
    tvds_fe_model *fe = NULL;
    tvds_substructure *s = NULL;
    tvds_reduce_opts opt = tvds_reduce_opts_default();
    opt.nmodes = 20;
    tvds_reduce_spec spec = {"face:top_faces", NULL, "top_faces", NULL};
    rc = tvds_block_build(&p, &fe, &cc, ctx);
    if (!rc) rc = tvds_reduce_fe(fe, &spec, &opt, &s, NULL, &cc, ctx);
    if (!rc) {
        char *nm = tvds_strdup("plate");
        if (!nm) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            tvds_free(s->name);
            s->name = nm;
            rc = tvds_substructure_write(s, dir, ctx);
        }
    }
    tvds_substructure_free(&s);
    tvds_fe_model_free(&fe, &cc);
    tvds_cholmod_ctx(NULL);
    cholmod_finish(&cc);
    return rc;
}

/* The pad: a carriage node 1 above side x side nodes 2 .. side^2 + 1 spaced 1 mm on the plate's
 * top face (z = 4 mm), each sprung to the carriage and to its grid neighbours; lumped masses. */
static int pad_write(const char *dir, int side, double x0, double y0, tvds_ctx *ctx)
{
    const int nn = side * side + 1, n = 3 * nn;
    const double sp = 1e-3, m_node = 1e-4, k_s = 1e5, k_n = 5e4;
    double *M = tvds_calloc((size_t)n * n, sizeof *M), *K = tvds_calloc((size_t)n * n, sizeof *K);
    tvds_dof *dofs = tvds_calloc((size_t)n, sizeof *dofs);
    long *nodes = tvds_calloc((size_t)nn, sizeof *nodes);
    int rc = TVDS_OK;
    if (!M || !K || !dofs || !nodes) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "pad of %d nodes: out of memory", nn - 1);
        goto done;
    }
    for (int a = 0; a < nn; a++) {
        int i = a == 0 ? 0 : (a - 1) % side, j = a == 0 ? 0 : (a - 1) / side;
        for (int c = 0; c < 3; c++) {
            int k = 3 * a + c;
            dofs[k].kind = TVDS_DOF_PHYSICAL;
            dofs[k].node = a + 1;
            dofs[k].dir = c;
            dofs[k].xyz[0] = a == 0 ? x0 + 0.5 * sp * (side - 1) : x0 + sp * i;
            dofs[k].xyz[1] = a == 0 ? y0 + 0.5 * sp * (side - 1) : y0 + sp * j;
            dofs[k].xyz[2] = a == 0 ? 0.009 : 0.004;
            M[k + (size_t)k * n] = a == 0 ? m_node * (nn - 1) : m_node;
            if (a == 0) continue;
            pad_spring(K, n, k, c, k_s);
            if (i + 1 < side) pad_spring(K, n, k, k + 3, k_n);
            if (j + 1 < side) pad_spring(K, n, k, k + 3 * side, k_n);
        }
        if (a > 0) nodes[a - 1] = a + 1;
    }
    {
        tvds_nodeset set = {(char *)"pad", nn - 1, nodes};
        tvds_substructure s;
        memset(&s, 0, sizeof s);
        s.name = (char *)"pad";
        s.n = n;
        s.M = M;
        s.K = K;
        s.dofs = dofs;
        s.nsets = 1;
        s.sets = &set;
        rc = tvds_substructure_write(&s, dir, ctx);
    }
done:
    tvds_free(M);
    tvds_free(K);
    tvds_free(dofs);
    tvds_free(nodes);
    return rc;
}

int tvds_bench_cbpad_write(const char *dir, int nx, int ny, int side, char *case_path, size_t size,
                           tvds_ctx *ctx)
{
    if (!dir || !case_path || size < 2 || nx < 2 || ny < 1 || nx > 200 || ny > 100 || side < 1 ||
        side > 17)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "tvds_bench_cbpad_write: nx = %d in [2, 200], ny = %d in [1, 100] and "
                          "side = %d in [1, 17]",
                          nx, ny, side);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", dir,
                          strerror(errno));
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/plate", dir);
    int rc = plate_write(sub, nx, ny, ctx);
    if (rc) return rc;
    /* The pad centred on the plate's width, its first node 0.3 cells off the mesh lines, at 55 %
     * of the length. */
    double hx = 0.06 / nx, hy = 0.02 / ny, span = 1e-3 * (side - 1);
    double x0 = hx * (floor(0.55 * nx) + 0.3), y0 = hy * (floor((0.01 - 0.5 * span) / hy) + 0.3);
    snprintf(sub, sizeof sub, "%s/pad", dir);
    if ((rc = pad_write(sub, side, x0, y0, ctx))) return rc;
    snprintf(case_path, size, "%s/case.ini", dir);
    FILE *f = fopen(case_path, "w");
    if (!f)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", case_path, strerror(errno));
    int m = side * side;
    fprintf(
        f,
        "# A pad of %d x %d contact nodes on a Craig-Bampton steel plate (%d x %d x 2 hexahedra,\n"
        "# top face retained), written by tvds_bench_cbpad_write: pressed with 0.5 N per node\n"
        "# (ramp 0.2 ms) and dragged along x at 0.1 m/s.\n"
        "[run]\nname = cbpad_%d\nmethod = subs-b\ndt = auto\nt_end = 0.01\n\n"
        "[substructure plate]\ndir = plate\ndamping = rayleigh\nalpha = 1\nbeta = 1e-8\n\n"
        "[substructure pad]\ndir = pad\ndamping = rayleigh\nalpha = 1\nbeta = 1e-7\n\n"
        "[contact pad]\nslave = pad:pad\nmaster = plate:top_faces\nmu = 0.3\n\n"
        "[load press]\ndof = pad:1:uz\nf = smooth %.15g 0 2e-4\n\n"
        "[constraint drive_x]\nterms = pad:1:ux\nvalue = table 0 0  1 0.1\n\n"
        "[constraint hold_y]\nterms = pad:1:uy\nvalue = 0\n",
        side, side, nx, ny, m, -0.5 * m);
    if (ferror(f) | fclose(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", case_path);
    return rc;
}
