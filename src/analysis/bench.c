/* bench.c — benchmark helpers: timed stepping loops and synthetic sliding models of any size. */
#include "tvds/tvds_bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tvds/tvds_io.h"
#include "tvds/tvds_sim.h"
#include "core/test_hooks_impl.h"

double tvds_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double tvds_bench_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double summary_value(const tvds_data *d, const char *prefix)
{
    int n = 0;
    const char *const *names = NULL;
    const double *v = NULL;
    if (tvds_summary(d, &n, &names, &v) != TVDS_OK) return 0.0;
    size_t lp = strlen(prefix);
    for (int i = 0; i < n; i++)
        if (names[i] && strncmp(names[i], prefix, lp) == 0) return v[i];
    return 0.0;
}

/* Publish the recorded quantities (displacement probes, energies) as a run that writes a row
 * every out_dt does: every k = out_dt / dt steps (tvds_set_record). */
static void record_as_run(const tvds_model *m, tvds_data *d)
{
    double dt = tvds_data_dt(d);
    if (m->opt.out_dt > dt) tvds_set_record(d, (int)(m->opt.out_dt / dt + 0.5));
}

int tvds_bench_steps(const tvds_model *m, long nsteps, double *hist, int nhist,
                     tvds_bench_timing *t, tvds_ctx *ctx)
{
    if (!m || !t || nsteps < 0 || (hist && nhist < 1))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_bench_steps: bad argument");
    memset(t, 0, sizeof *t);
    tvds_data *d = NULL;
    double t0 = tvds_bench_now();
    int rc = tvds_data_create(m, &d, ctx);
    t->setup_seconds = tvds_bench_now() - t0;
    if (rc) return rc;
    if (!hist) record_as_run(m, d); /* hist compares every step's channels */
    t->dt = tvds_data_dt(d);
    int nch = 0;
    const double *val = NULL;
    tvds_channels(d, TVDS_GROUP_HISTORY, &nch, NULL, &val);
    int nh = hist ? (nhist < nch ? nhist : nch) : 0;
    long a0 = tvds_alloc_count();
    long k = 0;
    t0 = tvds_bench_now();
    double c0 = tvds_bench_thread_cpu();
    for (; k < nsteps; k++) {
        if ((rc = tvds_step(m, d, ctx)) != TVDS_OK) break;
        if (nh)
            for (int c = 0; c < nh; c++)
                hist[k * nhist + c] = val[c];
    }
    t->loop_seconds = tvds_bench_now() - t0;
    t->loop_cpu_seconds = tvds_bench_thread_cpu() - c0;
    t->allocs = tvds_alloc_count() - a0;
    t->steps = k;
    t->us_per_step = k > 0 ? 1e6 * t->loop_cpu_seconds / (double)k : 0.0;
    t->film_iter_mean = summary_value(d, "film iterations mean");
    tvds_data_free(&d);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile double floor_sink;

/* One substructure's arrays for the floor kernel. */
typedef struct floor_sub {
    int n;
    double *Y; /* n x n */
    double *x, *xp, *xn, *w2, *fg, *fe, *fd, *v;
} floor_sub;

/* The passes of one step (see tvds_bench_floor); returns a value the caller keeps (so that
 * nothing is optimised away). */
static double floor_step(floor_sub *fs, int nsub, double h)
{
    double acc = 0.0, rh = 1.0 / h, h2 = h * h, a = 0.24, b = 4e-8;
    for (int i = 0; i < nsub; i++) {
        floor_sub *s = &fs[i];
        int n = s->n;
        double *restrict xn = s->xn, *restrict fe = s->fe, *restrict fd = s->fd;
        const double *restrict x = s->x, *restrict xp = s->xp, *restrict w2 = s->w2,
                               *restrict fg = s->fg;
        double chk = 0.0;
#pragma omp simd reduction(+ : chk)
        for (int k = 0; k < n; k++) {
            double vk = (x[k] - xp[k]) * rh, fek = 0.5 * fg[k], fdk = (a + b * w2[k]) * vk;
            fe[k] = fek;
            fd[k] = fdk;
            xn[k] = 2.0 * x[k] - xp[k] + h2 * (fek - fdk - w2[k] * x[k]);
            chk += xn[k] * 0.0;
        }
        /* Contact DoFs at x* and one probe: three dot products with columns of Y. */
        double u[3];
        for (int j = 0; j < 3; j++) {
            const double *restrict y = s->Y + (size_t)(j * (n - 1) / 2) * n;
            double d = 0.0;
#pragma omp simd reduction(+ : d)
            for (int k = 0; k < n; k++)
                d += y[k] * xn[k];
            u[j] = d;
        }
        /* Correction: two columns (normal and tangential force on two DoFs). */
        const double *restrict y0 = s->Y, *restrict y1 = s->Y + (size_t)(n - 1) * n;
        double c0 = 1e-12 * u[0], c1 = 1e-12 * u[1];
#pragma omp simd
        for (int k = 0; k < n; k++)
            xn[k] -= c0 * y0[k] + c1 * y1[k];
        /* The work sums the energy balance accumulates at every step (the energies
         * themselves are needed at output samples only). */
        double we = 0.0, wd = 0.0;
#pragma omp simd reduction(+ : we, wd)
        for (int k = 0; k < n; k++) {
            double dx = 0.5 * (xn[k] - xp[k]);
            we += fe[k] * dx;
            wd += fd[k] * dx;
        }
        acc += chk + u[2] + we + wd;
        /* Rotate the state buffers, as the engine does. */
        double *p = s->xp;
        s->xp = s->x;
        s->x = s->xn;
        s->xn = p;
    }
    return acc;
}

int tvds_bench_floor(int nsub, const int *n, long nsteps, int nrep, double *us, tvds_ctx *ctx)
{
    if (nsub < 1 || !n || nsteps < 1 || nrep < 1 || nrep > 64 || !us)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_bench_floor: bad argument");
    floor_sub *fs = tvds_calloc((size_t)nsub, sizeof *fs);
    int rc = fs ? TVDS_OK : TVDS_ERR_NOMEM;
    for (int i = 0; i < nsub && !rc; i++) {
        floor_sub *s = &fs[i];
        s->n = n[i];
        if (s->n < 2) {
            rc = TVDS_ERR_INVALID;
            break;
        }
        s->Y = tvds_malloc((size_t)s->n * s->n * sizeof(double));
        double **v[] = {&s->x, &s->xp, &s->xn, &s->w2, &s->fg, &s->fe, &s->fd, &s->v};
        for (size_t q = 0; q < sizeof v / sizeof v[0]; q++)
            if (!(*v[q] = tvds_calloc((size_t)s->n, sizeof(double)))) rc = TVDS_ERR_NOMEM;
        if (!s->Y) rc = TVDS_ERR_NOMEM;
        if (rc) break;
        /* A bounded oscillation: w h = 0.5 at most, small initial state. */
        for (size_t k = 0; k < (size_t)s->n * s->n; k++)
            s->Y[k] = 1.0 / (1.0 + (double)(k % 97));
        for (int k = 0; k < s->n; k++) {
            s->w2[k] = 0.25 * (double)(k + 1) / s->n;
            s->x[k] = s->xp[k] = 1e-6 * (double)(k % 7);
            s->fg[k] = 1e-3;
        }
    }
    double t[64], keep = 0.0;
    for (int r = 0; r < nrep && !rc; r++) {
        double c0 = tvds_bench_thread_cpu();
        for (long k = 0; k < nsteps; k++)
            keep += floor_step(fs, nsub, 1.0);
        t[r] = 1e6 * (tvds_bench_thread_cpu() - c0) / (double)nsteps;
    }
    if (!rc) {
        qsort(t, (size_t)nrep, sizeof t[0], cmp_double);
        *us = t[nrep / 2];
        floor_sink = keep; /* the kernel's results are used */
    }
    for (int i = 0; fs && i < nsub; i++) {
        tvds_free(fs[i].Y);
        tvds_free(fs[i].x), tvds_free(fs[i].xp), tvds_free(fs[i].xn), tvds_free(fs[i].w2);
        tvds_free(fs[i].fg), tvds_free(fs[i].fe), tvds_free(fs[i].fd), tvds_free(fs[i].v);
    }
    tvds_free(fs);
    if (rc == TVDS_ERR_NOMEM) return TVDS_ERROR(ctx, rc, "out of memory (floor kernel)");
    if (rc) return TVDS_ERROR(ctx, rc, "tvds_bench_floor: sizes must be >= 2");
    return TVDS_OK;
}

int tvds_bench_segments(const tvds_model *m, long nsteps, int nseg, double *us,
                        tvds_bench_timing *t, tvds_ctx *ctx)
{
    if (!m || !t || !us || nsteps < 1 || nseg < 1 || nseg > 64)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_bench_segments: bad argument");
    memset(t, 0, sizeof *t);
    tvds_data *d = NULL;
    double t0 = tvds_bench_now();
    int rc = tvds_data_create(m, &d, ctx);
    t->setup_seconds = tvds_bench_now() - t0;
    if (rc) return rc;
    record_as_run(m, d);
    t->dt = tvds_data_dt(d);
    long a0 = tvds_alloc_count();
    double w0 = tvds_bench_now(), cpu0 = tvds_bench_thread_cpu();
    for (int s = 0; s < nseg && rc == TVDS_OK; s++) {
        double c0 = tvds_bench_thread_cpu();
        long k = 0;
        for (; k < nsteps; k++)
            if ((rc = tvds_step(m, d, ctx)) != TVDS_OK) break;
        us[s] = k > 0 ? 1e6 * (tvds_bench_thread_cpu() - c0) / (double)k : 0.0;
        t->steps += k;
    }
    t->loop_seconds = tvds_bench_now() - w0;
    t->loop_cpu_seconds = tvds_bench_thread_cpu() - cpu0;
    t->allocs = tvds_alloc_count() - a0;
    double sorted[64];
    memcpy(sorted, us, (size_t)nseg * sizeof *us);
    qsort(sorted, (size_t)nseg, sizeof *sorted, cmp_double);
    t->us_per_step = nseg % 2 ? sorted[nseg / 2] : 0.5 * (sorted[nseg / 2 - 1] + sorted[nseg / 2]);
    t->film_iter_mean = summary_value(d, "film iterations mean");
    tvds_data_free(&d);
    return rc;
}

int tvds_bench_interleaved(const tvds_model *m, const int *methods, int nm, long nsteps, int nseg,
                           double *us, tvds_ctx *ctx)
{
    if (!m || !methods || !us || nm < 1 || nm > TVDS_METHOD_COUNT || nsteps < 1 || nseg < 1 ||
        nseg > 64)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "tvds_bench_interleaved: bad argument");
    tvds_model mm[TVDS_METHOD_COUNT];
    tvds_data *d[TVDS_METHOD_COUNT] = {NULL};
    int rc = TVDS_OK;
    for (int j = 0; j < nm && !rc; j++) {
        mm[j] = *m;
        mm[j].opt.method = methods[j];
        rc = tvds_data_create(&mm[j], &d[j], ctx);
        if (!rc) record_as_run(&mm[j], d[j]);
    }
    tvds_ctx sc; /* a step's error, passed on with the method's name */
    tvds_ctx_init(&sc);
    for (int k = 0; k < nseg && !rc; k++)
        for (int jj = 0; jj < nm && !rc; jj++) {
            int j = (jj + k) % nm;
            double c0 = tvds_bench_thread_cpu();
            for (long i = 0; i < nsteps && !rc; i++)
                if ((rc = tvds_step(&mm[j], d[j], &sc)) > 0) rc = TVDS_OK; /* a warning */
            us[k * nm + j] = 1e6 * (tvds_bench_thread_cpu() - c0) / (double)nsteps;
            if (rc)
                tvds_error_at(ctx, rc, sc.src_file, sc.src_line, "%s: %s",
                              tvds_method_name(methods[j]), sc.msg);
        }
    for (int j = 0; j < nm; j++)
        tvds_data_free(&d[j]);
    return rc;
}

/* ---- Synthetic sliding model ---------------------------------------------------------------- */

enum {
    SYN_NODE_DX = 1 /* mm, see the header */
};

static int write_sub(const char *dir, const char *name, int n, double *M, double *K, tvds_dof *dofs,
                     int nsets, tvds_nodeset *sets, tvds_ctx *ctx)
{
    tvds_substructure s;
    memset(&s, 0, sizeof s);
    s.name = (char *)name;
    s.n = n;
    s.M = M;
    s.K = K;
    s.dofs = dofs;
    s.nsets = nsets;
    s.sets = sets;
    return tvds_substructure_write(&s, dir, ctx);
}

/* Symmetric spring k between DoFs i and j (j < 0: to ground) into K (n x n). */
static void spring(double *K, int n, int i, int j, double k)
{
    size_t N = (size_t)n;
    K[i + i * N] += k;
    if (j < 0) return;
    K[j + j * N] += k;
    K[i + j * N] -= k;
    K[j + i * N] -= k;
}

/* Node id of grid point (i, j) of a plate with np points per side. */
static long plate_node(int np, int i, int j)
{
    return (long)j * np + i + 1;
}

/* The faces of cell (ci, cj) of a plate grid (nn-node faces; quadratic faces use every second
 * grid point as a corner): their node ids into v; returns the number of faces (2 triangles or
 * 1 quadrilateral), corners counter-clockwise seen from +z. */
static int plate_cell_faces(int nn, int np, int ci, int cj, long v[2][9])
{
    int st = nn == 8 || nn == 9 ? 2 : 1;
    int i0 = st * ci, j0 = st * cj, i1 = i0 + st, j1 = j0 + st, im = i0 + 1, jm = j0 + 1;
    long c00 = plate_node(np, i0, j0), c10 = plate_node(np, i1, j0);
    long c11 = plate_node(np, i1, j1), c01 = plate_node(np, i0, j1);
    if (nn == 3) {
        long a[3] = {c00, c10, c11}, b[3] = {c00, c11, c01};
        memcpy(v[0], a, sizeof a);
        memcpy(v[1], b, sizeof b);
        return 2;
    }
    long q[9] = {c00,
                 c10,
                 c11,
                 c01,
                 plate_node(np, im, j0),
                 plate_node(np, i1, jm),
                 plate_node(np, im, j1),
                 plate_node(np, i0, jm),
                 plate_node(np, im, jm)};
    memcpy(v[0], q, (size_t)nn * sizeof(long));
    return 1;
}

int tvds_bench_plate_write(const char *dir, int cells, int nn, char *case_path, size_t size,
                           tvds_ctx *ctx)
{
    if (!dir || !case_path || size < 2 || cells < 1 || cells > 100 ||
        (nn != 3 && nn != 4 && nn != 8 && nn != 9))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "tvds_bench_plate_write: cells = %d must be in [1, 100] and nn = %d one "
                          "of 3, 4, 8, 9",
                          cells, nn);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", dir,
                          strerror(errno));
    const int quad = nn == 8 || nn == 9, np = (quad ? 2 : 1) * cells + 1, nnode = np * np;
    const double hc = 5e-3;                         /* cell size [m] */
    const double hs = quad ? 0.5 * hc : hc;         /* grid spacing [m] */
    const double sc = quad ? 0.25 : 1.0;            /* per-node share of mass and foundation */
    const double m_node = 1e-3 * sc;                /* lumped mass per node and direction [kg] */
    const double k_link = 1e5 * (quad ? 0.5 : 1.0); /* neighbour springs [N/m] */
    const double k_found = 1e4 * sc;                /* foundation springs [N/m] */
    const double L = hc * cells;                    /* plate side [m] */
    int rc = TVDS_OK, n = 3 * nnode;
    size_t N = (size_t)n;
    double *M = tvds_calloc(N * N, sizeof *M), *K = tvds_calloc(N * N, sizeof *K);
    tvds_dof *dofs = tvds_calloc(N, sizeof *dofs);
    int nface = (nn == 3 ? 2 : 1) * cells * cells;
    int *fnn = tvds_calloc((size_t)nface, sizeof *fnn);
    long *fnodes = tvds_calloc((size_t)nface * TVDS_FACE_MAX_NODES, sizeof *fnodes);
    char sub[4096];
    if (!M || !K || !dofs || !fnn || !fnodes) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "plate model of %d DoFs: out of memory", n);
        goto done;
    }
    for (int j = 0; j < np; j++)
        for (int i = 0; i < np; i++) {
            int a = j * np + i;
            for (int c = 0; c < 3; c++) {
                int k = 3 * a + c;
                dofs[k].kind = TVDS_DOF_PHYSICAL;
                dofs[k].node = a + 1;
                dofs[k].dir = c;
                dofs[k].xyz[0] = hs * i;
                dofs[k].xyz[1] = hs * j;
                M[k + k * N] = m_node;
                spring(K, n, k, -1, k_found);
                if (i + 1 < np) spring(K, n, k, k + 3, k_link);
                if (j + 1 < np) spring(K, n, k, k + 3 * np, k_link);
            }
        }
    for (int cj = 0, f = 0; cj < cells; cj++)
        for (int ci = 0; ci < cells; ci++) {
            long v[2][9];
            int k = plate_cell_faces(nn, np, ci, cj, v);
            for (int q = 0; q < k; q++, f++) {
                fnn[f] = nn;
                memcpy(fnodes + (size_t)f * TVDS_FACE_MAX_NODES, v[q], (size_t)nn * sizeof(long));
            }
        }
    {
        tvds_faceset top = {(char *)"top", nface, fnn, fnodes};
        tvds_substructure s;
        memset(&s, 0, sizeof s);
        s.name = (char *)"plate";
        s.n = n;
        s.M = M;
        s.K = K;
        s.dofs = dofs;
        s.nfsets = 1;
        s.fsets = &top;
        snprintf(sub, sizeof sub, "%s/plate", dir);
        if ((rc = tvds_substructure_write(&s, sub, ctx))) goto done;
    }
    /* Slider: carriage node 1 at (x0, x0, 5 mm), tip node 2 at (x0, x0, 0) on the plate. */
    {
        double Ms[36] = {0}, Ks[36] = {0};
        tvds_dof ds[6];
        memset(ds, 0, sizeof ds);
        const double x0 = 0.1 * L + 0.3 * hc, k_s = 1e4;
        for (int k = 0; k < 6; k++) {
            ds[k].kind = TVDS_DOF_PHYSICAL;
            ds[k].node = 1 + k / 3;
            ds[k].dir = k % 3;
            ds[k].xyz[0] = x0;
            ds[k].xyz[1] = x0 - 0.3 * hc;
            ds[k].xyz[2] = k < 3 ? 5e-3 : 0.0;
            Ms[k + 6 * k] = 1e-3;
        }
        for (int c = 0; c < 3; c++)
            spring(Ks, 6, c, c + 3, k_s);
        long tipnode = 2;
        tvds_nodeset tip = {(char *)"tip", 1, &tipnode};
        snprintf(sub, sizeof sub, "%s/slider", dir);
        if ((rc = write_sub(sub, "slider", 6, Ms, Ks, ds, 1, &tip, ctx))) goto done;
    }
    snprintf(case_path, size, "%s/case.ini", dir);
    FILE *f = fopen(case_path, "w");
    if (!f) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", case_path, strerror(errno));
        goto done;
    }
    /* The carriage runs parallel to the diagonal, 0.3 cell beside it, over 70 % of the plate:
     * the tip crosses faces, their edges and (triangles) the cells' diagonals. */
    fprintf(f,
            "# 3D node-to-face sliding model (%d x %d cells, %d-node faces, %d + 6 DoFs) written\n"
            "# by tvds_bench_plate_write.\n"
            "[run]\nname = plate_%d_%d\nmethod = subs-b\ndt = auto\nt_end = 10\n\n"
            "[substructure plate]\ndir = plate\ndamping = rayleigh\nalpha = 1\nbeta = 1e-7\n\n"
            "[substructure slider]\ndir = slider\ndamping = rayleigh\nalpha = 1\nbeta = 1e-7\n\n"
            "[contact tip]\nslave = slider:tip\nmaster = plate:top\nmu = 0.3\n\n"
            "[load press]\ndof = slider:1:uz\nf = smooth -0.2 0 0.1\n\n"
            "[constraint drive_x]\nterms = slider:1:ux\nvalue = table 0 0  10 %.17g\n\n"
            "[constraint drive_y]\nterms = slider:1:uy\nvalue = table 0 0  10 %.17g\n\n"
            "[probe mid_uz]\ndof = plate:%ld:uz\n\n"
            "[probe tip_uz]\ndof = slider:2:uz\n",
            cells, cells, nn, n, cells, nn, 0.7 * L, 0.7 * L, plate_node(np, np / 2, np / 2));
    if (ferror(f) | fclose(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", case_path);
done:
    tvds_free(M);
    tvds_free(K);
    tvds_free(dofs);
    tvds_free(fnn);
    tvds_free(fnodes);
    return rc;
}

int tvds_bench_synthetic_write(const char *dir, int n, char *case_path, size_t size, tvds_ctx *ctx)
{
    return tvds_bench_synthetic_pad_write(dir, n, 1, case_path, size, ctx);
}

int tvds_bench_synthetic_pad_write(const char *dir, int n, int mtip, char *case_path, size_t size,
                                   tvds_ctx *ctx)
{
    if (!dir || !case_path || size < 2 || n < 4 || n % 2 || n > 200000)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "tvds_bench_synthetic_write: n = %d must be even and in [4, 200000]", n);
    if (mtip < 1 || mtip > 1000 || mtip > n / 2)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "tvds_bench_synthetic_pad_write: m = %d contact nodes must be in "
                          "[1, min(1000, n/2)]",
                          mtip);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", dir,
                          strerror(errno));
    const int nn = n / 2;           /* track nodes */
    const double dx = 1e-3;         /* node spacing [m] */
    const double m_node = 1e-3;     /* lumped mass per node [kg] */
    const double k_chain = 1e5;     /* neighbour springs, x and y [N/m] */
    const double k_found = 1e4;     /* foundation springs [N/m] */
    const double L = dx * (nn - 1); /* track length [m] */
    int rc = TVDS_OK;
    size_t N = (size_t)n;
    double *M = tvds_calloc(N * N, sizeof *M), *K = tvds_calloc(N * N, sizeof *K);
    tvds_dof *dofs = tvds_calloc(N, sizeof *dofs);
    long *top = tvds_malloc((size_t)nn * sizeof *top);
    char sub[4096];
    if (!M || !K || !dofs || !top) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "synthetic model of %d DoFs: out of memory", n);
        goto done;
    }
    for (int i = 0; i < nn; i++) {
        top[i] = i + 1;
        for (int c = 0; c < 2; c++) {
            int k = 2 * i + c;
            dofs[k].kind = TVDS_DOF_PHYSICAL;
            dofs[k].node = i + 1;
            dofs[k].dir = c == 0 ? TVDS_DIR_X : TVDS_DIR_Y;
            dofs[k].xyz[0] = dx * i;
            M[k + k * N] = m_node;
            spring(K, n, k, -1, k_found);
            if (i + 1 < nn) spring(K, n, k, k + 2, k_chain);
        }
    }
    tvds_nodeset set = {(char *)"top", nn, top};
    snprintf(sub, sizeof sub, "%s/track", dir);
    if ((rc = write_sub(sub, "track", n, M, K, dofs, 1, &set, ctx))) goto done;

    /* Slider: carriage node 1 at (x0, 5 mm); tip nodes 2 .. m + 1 on the track at x0 + j dxt,
     * each joined to the carriage, and to the next tip, by springs in x and y. */
    {
        const int ns = 2 * (mtip + 1);
        const double x0 = 0.2 * L, k_s = 1e4, dxt = mtip > 1 ? fmin(1.5e-3, 0.7 * L / mtip) : 0.0;
        double *Ms = tvds_calloc((size_t)ns * ns, sizeof *Ms);
        double *Ks = tvds_calloc((size_t)ns * ns, sizeof *Ks);
        tvds_dof *ds = tvds_calloc((size_t)ns, sizeof *ds);
        long *tips = tvds_malloc((size_t)mtip * sizeof *tips);
        if (!Ms || !Ks || !ds || !tips) {
            tvds_free(Ms), tvds_free(Ks), tvds_free(ds), tvds_free(tips);
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "synthetic slider of %d tips: out of memory", mtip);
            goto done;
        }
        for (int k = 0; k < ns; k++) {
            int node = k / 2;
            ds[k].kind = TVDS_DOF_PHYSICAL;
            ds[k].node = 1 + node;
            ds[k].dir = k % 2 ? TVDS_DIR_Y : TVDS_DIR_X;
            ds[k].xyz[0] = x0 + (node > 0 ? (node - 1) * dxt : 0.0);
            ds[k].xyz[1] = node == 0 ? 5e-3 : 0.0;
            Ms[k + (size_t)ns * k] = m_node;
        }
        for (int j = 0; j < mtip; j++) {
            tips[j] = 2 + j;
            for (int c = 0; c < 2; c++) {
                spring(Ks, ns, c, 2 * (j + 1) + c, k_s);
                if (j + 1 < mtip) spring(Ks, ns, 2 * (j + 1) + c, 2 * (j + 2) + c, k_s);
            }
        }
        tvds_nodeset tip = {(char *)"tip", mtip, tips};
        snprintf(sub, sizeof sub, "%s/slider", dir);
        rc = write_sub(sub, "slider", ns, Ms, Ks, ds, 1, &tip, ctx);
        tvds_free(Ms), tvds_free(Ks), tvds_free(ds), tvds_free(tips);
        if (rc) goto done;
    }

    snprintf(case_path, size, "%s/case.ini", dir);
    FILE *f = fopen(case_path, "w");
    if (!f) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create: %s", case_path, strerror(errno));
        goto done;
    }
    fprintf(f,
            "# Synthetic sliding model of %d + %d DoFs written by tvds_bench_synthetic_write.\n"
            "[run]\nname = synthetic_%d\nmethod = subs-b\ndt = auto\nt_end = 10\n\n"
            "[substructure track]\ndir = track\ndamping = rayleigh\nalpha = 1\nbeta = 1e-7\n\n"
            "[substructure slider]\ndir = slider\ndamping = rayleigh\nalpha = 1\nbeta = 1e-7\n\n"
            "[contact tip]\nslave = slider:tip\nmaster = track:top\nmu = 0.3\n\n"
            "[load press]\ndof = slider:1:uy\nf = smooth %.15g 0 0.1\n\n"
            "[constraint drive]\nterms = slider:1:ux\nvalue = table 0 0  10 %.17g\n\n"
            "[probe mid_uy]\ndof = track:%d:uy\n\n"
            "[probe tip_uy]\ndof = slider:2:uy\n",
            n, 2 * (mtip + 1), n, -0.2 * mtip, 0.5 * L, nn / 2 + 1);
    if (ferror(f) | fclose(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", case_path);
done:
    tvds_free(M);
    tvds_free(K);
    tvds_free(dofs);
    tvds_free(top);
    return rc;
}

/* The multi-node CEA model (tvds_bench.h). */
tvds_model *tvds_bench_cea_chain(int N, int nact)
{
    if (N < 4 || nact < 1 || nact > N / 2) return NULL;
    int nn = N / 2;
    N = 2 * nn;
    tvds_model *m = tvds_model_create();
    tvds_substructure *s = m ? tvds_calloc(1, sizeof *s) : NULL;
    if (!s) {
        tvds_model_free(&m);
        return NULL;
    }
    s->name = tvds_strdup("chain");
    s->n = N;
    s->M = tvds_calloc((size_t)N * N, sizeof(double));
    s->K = tvds_calloc((size_t)N * N, sizeof(double));
    s->dofs = tvds_calloc((size_t)N, sizeof(tvds_dof));
    m->subs = tvds_calloc(1, sizeof *m->subs);
    m->damping = tvds_calloc(1, sizeof *m->damping);
    m->contacts = tvds_calloc(1, sizeof *m->contacts);
    m->loads = tvds_calloc((size_t)nact, sizeof *m->loads);
    tvds_contact *c = m->contacts;
    if (!s->name || !s->M || !s->K || !s->dofs || !m->subs || !m->damping || !c || !m->loads) {
        tvds_substructure_free(&s);
        tvds_model_free(&m);
        return NULL;
    }
    m->subs[0] = s;
    m->nsub = 1;
    const double kg = 1e4, kc = 1e5, kd = 5e4, mass = 1e-2;
#define KK(i, j) s->K[(size_t)(j)*N + (i)]
    for (int j = 0; j < nn; j++) {
        for (int k = 0; k < 2; k++) {
            int d = 2 * j + k;
            s->dofs[d].kind = TVDS_DOF_PHYSICAL;
            s->dofs[d].node = j + 1;
            s->dofs[d].dir = k == 0 ? TVDS_DIR_X : TVDS_DIR_Y;
            s->dofs[d].xyz[0] = 0.01 * j;
            s->M[(size_t)d * N + d] = mass;
            KK(d, d) += kg;
        }
        if (j + 1 == nn) continue;
        /* x and y springs to the next node, and one along (1, 1) / sqrt 2. */
        int a[2] = {2 * j, 2 * j + 2};
        for (int k = 0; k < 2; k++) {
            KK(a[0] + k, a[0] + k) += kc;
            KK(a[1] + k, a[1] + k) += kc;
            KK(a[0] + k, a[1] + k) -= kc;
            KK(a[1] + k, a[0] + k) -= kc;
        }
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++)
                for (int k = 0; k < 2; k++)
                    for (int l = 0; l < 2; l++)
                        KK(a[p] + k, a[q] + l) += (p == q ? 0.5 : -0.5) * kd;
    }
#undef KK
    c->name = tvds_strdup("line");
    c->dim = 2;
    c->slave_sub = 0;
    c->nslave = nact;
    c->slave_nodes = tvds_malloc((size_t)nact * sizeof(long));
    if (!c->name || !c->slave_nodes) {
        tvds_model_free(&m);
        return NULL;
    }
    m->ncontact = 1;
    for (int i = 0; i < nact; i++) {
        long node = nact > 1 ? (long)i * (nn - 1) / (nact - 1) : nn / 2;
        c->slave_nodes[i] = node + 1;
        tvds_load *l = &m->loads[m->nload++];
        l->sub = 0;
        l->dof = (int)(2 * node + 1);
        l->fn = (tvds_fn){.kind = TVDS_FN_CONST, .amp = -10.0};
    }
    c->master_kind = TVDS_MASTER_RIGID;
    c->master_sub = -1;
    c->rigid_normal[1] = 1.0;
    c->rigid_t1[0] = 1.0;
    c->rigid_motion[0] = (tvds_fn){.kind = TVDS_FN_RAMP, .amp = 1.0, .t0 = 0, .t1 = 1.0};
    c->mu_s = c->mu_k = 0.3;
    return m;
}
