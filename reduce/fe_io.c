/* fe_io.c — full (unreduced) FE models on disk: sparse M/K, DoF labels, node sets, and the
 * boundary/recovery DoF specifications of `tvds reduce` (docs/reduce.md). */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <strings.h>
#include <sys/stat.h>

#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"
#include "core/hash_impl.h"
#include "io/io_impl.h"
#include "tvds/tvds_output.h"

/* Direction names of the substructure DoF table (docs/formats.md); specs also accept x y z. */
static const char *const dir_names[] = {"ux", "uy", "uz", "rx", "ry", "rz"};
static const char *const dir_short[] = {"x", "y", "z", "rx", "ry", "rz"};

static int dir_from_name(const char *s)
{
    for (int d = 0; d < 6; d++)
        if (!strcmp(s, dir_names[d]) || !strcmp(s, dir_short[d])) return d;
    return -2;
}

void tvds_fe_sets_free(int nsets, tvds_nodeset **sets)
{
    if (!sets || !*sets) return;
    for (int i = 0; i < nsets; i++) {
        tvds_free((*sets)[i].name);
        tvds_free((*sets)[i].nodes);
    }
    tvds_free(*sets);
    *sets = NULL;
}

void tvds_fe_facesets_free(int nfsets, tvds_faceset **fsets)
{
    if (!fsets || !*fsets) return;
    for (int i = 0; i < nfsets; i++) {
        tvds_free((*fsets)[i].name);
        tvds_free((*fsets)[i].nn);
        tvds_free((*fsets)[i].nodes);
    }
    tvds_free(*fsets);
    *fsets = NULL;
}

void tvds_fe_model_free(tvds_fe_model **pm, cholmod_common *cc)
{
    if (!pm || !*pm) return;
    tvds_fe_model *m = *pm;
    tvds_free(m->name);
    cholmod_free_sparse(&m->M, cc);
    cholmod_free_sparse(&m->K, cc);
    tvds_free(m->dofs);
    tvds_fe_sets_free(m->nsets, &m->sets);
    tvds_fe_facesets_free(m->nfsets, &m->fsets);
    tvds_free(m);
    *pm = NULL;
}

static int make_dir(const char *dir, tvds_ctx *ctx)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot create directory: %s", dir,
                          strerror(errno));
    return TVDS_OK;
}

static const char *const fe_files[] = {"M.mtx", "K.mtx", "dofs.txt", "sets.txt"};

int tvds_fe_model_files(const char *const **names)
{
    if (names) *names = fe_files;
    return (int)(sizeof fe_files / sizeof fe_files[0]);
}

int tvds_fe_model_write(const tvds_fe_model *m, const char *dir, tvds_ctx *ctx)
{
    if (!m || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_model_write: missing argument");
    int rc = make_dir(dir, ctx);
    if (rc) return rc;
    size_t len = strlen(dir) + 32;
    char *path = tvds_malloc(len);
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    /* Written in place, the files are no longer those of a manifest an earlier `tvds import`
     * left (that one writes through a stage and tvds_commit_end). */
    snprintf(path, len, "%s/manifest.txt", dir);
    if (unlink(path) != 0 && errno != ENOENT) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot remove: %s", path, strerror(errno));
        tvds_free(path);
        return rc;
    }
    snprintf(path, len, "%s/M.mtx", dir);
    rc = tvds_mm_write(path, m->M, "tvds full-model mass matrix [kg]", ctx);
    if (!rc) {
        snprintf(path, len, "%s/K.mtx", dir);
        rc = tvds_mm_write(path, m->K, "tvds full-model stiffness matrix [N/m]", ctx);
    }
    if (!rc) {
        snprintf(path, len, "%s/dofs.txt", dir);
        FILE *f = fopen(path, "w");
        if (!f) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        } else {
            fprintf(f, "# tvds full model '%s': %d DoFs, in matrix order\n", m->name ? m->name : "",
                    m->n);
            fprintf(f, "# <node> <ux|uy|uz|rx|ry|rz> <x> <y> <z>\n");
            for (int i = 0; i < m->n; i++) {
                const tvds_dof *d = &m->dofs[i];
                fprintf(f, "%ld %s %.17g %.17g %.17g\n", d->node,
                        (d->dir >= 0 && d->dir < 6) ? dir_names[d->dir] : "x", d->xyz[0], d->xyz[1],
                        d->xyz[2]);
            }
            if (fclose(f) != 0) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
        }
    }
    if (!rc) {
        snprintf(path, len, "%s/sets.txt", dir);
        FILE *f = fopen(path, "w");
        if (!f) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        } else {
            fprintf(f, "# tvds full model: node sets, 'set <name> <node>...', '\\' continues\n");
            for (int q = 0; q < m->nsets; q++) {
                fprintf(f, "set %s", m->sets[q].name);
                for (int a = 0; a < m->sets[q].n; a++)
                    fprintf(f, " %ld", m->sets[q].nodes[a]);
                fprintf(f, "\n");
            }
            if (m->nfsets > 0)
                fprintf(f, "# face sets, 'face <name> <node>...' (one face per line, corners "
                           "counter-clockwise seen from outside)\n");
            for (int q = 0; q < m->nfsets; q++) {
                const tvds_faceset *fs = &m->fsets[q];
                for (int k = 0; k < fs->nface; k++) {
                    fprintf(f, "face %s", fs->name);
                    for (int a = 0; a < fs->nn[k]; a++)
                        fprintf(f, " %ld", fs->nodes[(size_t)k * TVDS_FACE_MAX_NODES + a]);
                    fprintf(f, "\n");
                }
            }
            if (fclose(f) != 0) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
        }
    }
    tvds_free(path);
    return rc;
}

/* ---- Reading: DoF table and node sets, linear in the size of the files ---------------------- */

int tvds_fe_dofs_read(const char *dofs_path, const char *sets_path, int *n, tvds_dof **dofs,
                      int *nsets, tvds_nodeset **sets, tvds_ctx *ctx)
{
    *n = 0;
    *dofs = NULL;
    if (nsets) *nsets = 0;
    if (sets) *sets = NULL;
    if (!dofs_path) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_dofs_read: no DoF table given");
    long *lines = NULL;
    int rc = tvds_dofs_txt_read(dofs_path, NULL, 0, n, dofs, &lines, ctx);
    if (rc) return rc;
    tvds_free(lines);
    if (sets_path && sets && nsets) {
        tvds_sets_txt st; /* face sets are read (and checked) but not returned here */
        rc = tvds_sets_txt_read(sets_path, NULL, *n, *dofs, &st, ctx);
        if (!rc) {
            *nsets = st.nsets;
            *sets = st.sets;
            st.nsets = 0;
            st.sets = NULL;
            tvds_sets_txt_free(&st);
        }
    }
    if (rc) {
        tvds_free(*dofs);
        *dofs = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- Reading a whole full model, with the checks of a substructure ------------------------ */

static const char *label(const tvds_dof *dofs, int g, char *buf, size_t n)
{
    snprintf(buf, n, "DoF %d (node %ld %s)", g + 1, dofs[g].node, dir_names[dofs[g].dir]);
    return buf;
}

/* Banner and size line of a coordinate Matrix Market file, read before the entries so that a
 * declared size that cannot match the DoF table or fit in memory is refused up front. 1 when
 * found, 0 when the file is not a readable coordinate file (the full reader reports why). */
static int peek_size(const char *path, long *nrow, long *ncol, long *nnz, int *sym, long *line)
{
    tvds_ctx lctx; /* a file refused here is refused with its message by the full reader */
    tvds_ctx_init(&lctx);
    FILE *f = tvds_input_open(path, "Matrix Market file", &lctx);
    if (!f) return 0;
    char buf[512];
    int found = 0;
    *line = 0;
    if (fgets(buf, sizeof buf, f)) {
        (*line)++;
        char fmt[32] = "", sy[32] = "";
        if (sscanf(buf, "%%%%MatrixMarket %*31s %31s %*31s %31s", fmt, sy) == 2 &&
            strcasecmp(fmt, "coordinate") == 0) {
            *sym = strcasecmp(sy, "symmetric") == 0;
            while (fgets(buf, sizeof buf, f)) {
                (*line)++;
                const char *p = buf;
                while (*p == ' ' || *p == '\t')
                    p++;
                if (*p == '%' || *p == '\n' || *p == '\r' || !*p) continue;
                found = sscanf(p, "%ld %ld %ld", nrow, ncol, nnz) == 3;
                break;
            }
        }
    }
    fclose(f);
    return found;
}

/* The declared size must be the DoF table's, before the entries are read (a size that
 * cannot fit in memory at all is refused by the Matrix Market reader's own bound). */
static int check_declared(const char *path, const char *what, int n, const char *dofs_path,
                          tvds_ctx *ctx)
{
    long nrow, ncol, nnz, line;
    int sym;
    if (!peek_size(path, &nrow, &ncol, &nnz, &sym, &line)) return TVDS_OK;
    if (nrow != n || ncol != n)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s:%ld: size line declares %ld x %ld, but %s lists %d DoFs (the %s "
                          "matrix must be %d x %d)",
                          path, line, nrow, ncol, dofs_path, n, what, n, n);
    return TVDS_OK;
}

/* Symmetry of a matrix stored with both triangles (stype 0): |A(i,j) - A(j,i)| <= 1e-10 max|A|
 * (the tolerance of substructures, docs/formats.md). A file holding one triangle only under a
 * 'general' banner is named as such. */
static int check_symmetric_sparse(cholmod_sparse *A, const char *path, const char *what,
                                  const tvds_dof *dofs, cholmod_common *cc, tvds_ctx *ctx)
{
    if (A->stype != 0) return TVDS_OK;
    cholmod_sparse *At = cholmod_transpose(A, 1, cc);
    if (!At) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory (transpose)", path);
    const int *Ap = A->p, *Ai = A->i, *Tp = At->p, *Ti = At->i;
    const double *Ax = A->x, *Tx = At->x;
    long nlow = 0, nup = 0;
    double amax = 0.0;
    for (size_t j = 0; j < A->ncol; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            amax = fmax(amax, fabs(Ax[p]));
            if (Ax[p] == 0.0) continue;
            nlow += (size_t)Ai[p] > j;
            nup += (size_t)Ai[p] < j;
        }
    double tol = 1e-10 * amax;
    long bi = -1, bj = -1;
    double aij = 0, aji = 0;
    for (size_t j = 0; j < A->ncol && bi < 0; j++) {
        /* Merge column j of A (A(i,j)) with column j of A' (A(j,i)); both sorted by row. */
        int p = Ap[j], q = Tp[j];
        while ((p < Ap[j + 1] || q < Tp[j + 1]) && bi < 0) {
            int ip = p < Ap[j + 1] ? Ai[p] : INT_MAX, iq = q < Tp[j + 1] ? Ti[q] : INT_MAX;
            int i = ip < iq ? ip : iq;
            double a = ip == i ? Ax[p++] : 0.0, b = iq == i ? Tx[q++] : 0.0;
            if (fabs(a - b) > tol) {
                bi = i;
                bj = (long)j;
                aij = a;
                aji = b;
            }
        }
    }
    cholmod_free_sparse(&At, cc);
    if (bi < 0) return TVDS_OK;
    char la[96], lb[96];
    label(dofs, (int)bi, la, sizeof la);
    label(dofs, (int)bj, lb, sizeof lb);
    if ((nlow == 0) != (nup == 0))
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: %s is declared 'general' but holds only its %s triangle (%ld "
                          "entries, none in the other): %s(%ld,%ld) = %.17g but %s(%ld,%ld) = "
                          "%.17g; if the other triangle is its mirror, declare the file "
                          "'symmetric' (docs/formats.md)",
                          path, what, nlow ? "lower" : "upper", nlow ? nlow : nup, what, bi + 1,
                          bj + 1, aij, what, bj + 1, bi + 1, aji);
    return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                      "%s: %s is not symmetric: %s(%ld,%ld) = %.17g but %s(%ld,%ld) = %.17g "
                      "(difference %.3g > 1e-10 * max|%s| = %.3g) at %s, %s",
                      path, what, what, bi + 1, bj + 1, aij, what, bj + 1, bi + 1, aji,
                      fabs(aij - aji), what, tol, la, lb);
}

/* Diagonal of A (any stype) into d (n). */
static void diagonal(const cholmod_sparse *A, double *d)
{
    const int *Ap = A->p, *Ai = A->i;
    const double *Ax = A->x;
    for (size_t j = 0; j < A->ncol; j++) {
        d[j] = 0.0;
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if ((size_t)Ai[p] == j) d[j] += Ax[p];
    }
}

int tvds_fe_model_check(const tvds_fe_model *m, const tvds_fe_paths *names, cholmod_common *cc,
                        tvds_ctx *ctx)
{
    if (!m || !names || !m->M || !m->K || !m->dofs)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_model_check: missing argument");
    double *dm = NULL, *dk = NULL;
    char la[96];
    int rc = TVDS_OK;
    for (int k = 0; k < 2; k++) {
        cholmod_sparse *A = k ? m->K : m->M;
        const char *path = k ? names->stiffness : names->mass, *what = k ? "K" : "M";
        if ((int)A->nrow != m->n || (int)A->ncol != m->n)
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "%s: %s is %zu x %zu, but %s lists %d DoFs",
                              path, what, A->nrow, A->ncol, names->dofs, m->n);
        if ((rc = check_symmetric_sparse(A, path, what, m->dofs, cc, ctx))) return rc;
    }
    dm = tvds_malloc((size_t)m->n * sizeof *dm);
    dk = tvds_malloc((size_t)m->n * sizeof *dk);
    if (!dm || !dk) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        goto out;
    }
    diagonal(m->M, dm);
    diagonal(m->K, dk);
    for (int g = 0; g < m->n; g++) {
        if (!(dm[g] > 0.0)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                            "%s: M is not positive definite: diagonal M(%d,%d) = %.17g at %s",
                            names->mass, g + 1, g + 1, dm[g], label(m->dofs, g, la, sizeof la));
            goto out;
        }
        if (dk[g] < 0.0) {
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                           "%s: K is not positive semidefinite: negative diagonal K(%d,%d) = "
                           "%.17g at %s",
                           names->stiffness, g + 1, g + 1, dk[g], label(m->dofs, g, la, sizeof la));
            goto out;
        }
    }
    if (names->check_mass) {
        /* M positive definite: a sparse LL' (CHOLMOD's fill-reducing order) must not break
         * down; the DoF named is where it did, in the original numbering. */
        cholmod_sparse *U = m->M->stype ? NULL : cholmod_copy(m->M, 1, 1, cc);
        cholmod_sparse *A = U ? U : m->M;
        int save_ll = cc->final_ll;
        cc->final_ll = 1;
        cholmod_factor *L = (m->M->stype || U) ? cholmod_analyze(A, cc) : NULL;
        int ok = L && cholmod_factorize(A, L, cc);
        cc->final_ll = save_ll;
        if (L && (cc->status == CHOLMOD_NOT_POSDEF || L->minor < L->n)) {
            long k = (long)L->minor < (long)L->n ? (long)L->minor : 0;
            if (L->Perm) k = ((int *)L->Perm)[k];
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOT_POSDEF,
                            "%s: M is not positive definite: its Cholesky factorization breaks "
                            "down at %s",
                            names->mass, label(m->dofs, (int)k, la, sizeof la));
        } else if (!ok) {
            rc = TVDS_ERROR(ctx,
                            cc->status == CHOLMOD_OUT_OF_MEMORY ? TVDS_ERR_NOMEM : TVDS_ERR_SOLVER,
                            "%s: cannot factor M (CHOLMOD status %d)", names->mass, cc->status);
        }
        cholmod_free_factor(&L, cc);
        cholmod_free_sparse(&U, cc);
        if (rc) goto out;
    }
out:
    tvds_free(dm);
    tvds_free(dk);
    return rc;
}

/* The directory part of path ("." when none) in buf. */
static void dir_part(const char *path, char *buf, size_t n)
{
    const char *sl = strrchr(path, '/');
    if (!sl)
        snprintf(buf, n, ".");
    else
        snprintf(buf, n, "%.*s", (int)(sl == path ? 1 : sl - path), path);
}

int tvds_fe_model_read(const tvds_fe_paths *paths, tvds_fe_model **out, cholmod_common *cc,
                       tvds_ctx *ctx)
{
    if (!paths || !paths->mass || !paths->stiffness || !paths->dofs || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_model_read: missing argument");
    *out = NULL;
    /* A directory written by `tvds import` has a manifest: M, K and the DoF table of two
     * imports are refused. */
    char dm[4096], dk[4096], dd[4096];
    dir_part(paths->mass, dm, sizeof dm);
    dir_part(paths->stiffness, dk, sizeof dk);
    dir_part(paths->dofs, dd, sizeof dd);
    if (!strcmp(dm, dk) && !strcmp(dm, dd)) {
        int mrc = tvds_manifest_check(dm, fe_files, (int)(sizeof fe_files / sizeof *fe_files), ctx);
        if (mrc) return mrc;
    }
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    if (!m) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    long *lines = NULL;
    int rc = tvds_dofs_txt_read(paths->dofs, NULL, 0, &m->n, &m->dofs, &lines, ctx);
    if (!rc && paths->sets) {
        tvds_sets_txt st;
        rc = tvds_sets_txt_read(paths->sets, NULL, m->n, m->dofs, &st, ctx);
        if (!rc) {
            m->nsets = st.nsets;
            m->sets = st.sets;
            m->nfsets = st.nfsets;
            m->fsets = st.fsets;
            tvds_free(st.set_lines);
        }
    }
    if (rc) goto done;
    if ((rc = check_declared(paths->mass, "mass", m->n, paths->dofs, ctx)) ||
        (rc = check_declared(paths->stiffness, "stiffness", m->n, paths->dofs, ctx)))
        goto done;
    if ((rc = tvds_mm_read(paths->mass, &m->M, cc, ctx)) ||
        (rc = tvds_mm_read(paths->stiffness, &m->K, cc, ctx)))
        goto done;
    rc = tvds_fe_model_check(m, paths, cc, ctx);
done:
    tvds_free(lines);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}

/* ---- DoF specifications ------------------------------------------------------------------- */

typedef struct spec_acc {
    int *idx, count, alloc;
    unsigned char *taken; /* n: already in idx */
} spec_acc;

static int add_idx(spec_acc *a, int g)
{
    if (a->taken[g]) return TVDS_OK;
    if (a->count == a->alloc) {
        a->alloc = a->alloc ? 2 * a->alloc : 64;
        int *ni = tvds_realloc(a->idx, (size_t)a->alloc * sizeof(int));
        if (!ni) return TVDS_ERR_NOMEM;
        a->idx = ni;
    }
    a->taken[g] = 1;
    a->idx[a->count++] = g;
    return TVDS_OK;
}

/* Add the DoFs of node (all directions in ascending order, or only dir >= 0). */
static int add_node(const tvds_nix *x, long node, int dir, spec_acc *a, int *found)
{
    int slot = tvds_lmap_get(&x->map, node);
    if (slot < 0) return TVDS_OK;
    for (int d = 0; d < 6; d++) {
        if ((dir >= 0 && d != dir) || x->dof[slot][d] < 0) continue;
        (*found)++;
        if (add_idx(a, x->dof[slot][d])) return TVDS_ERR_NOMEM;
    }
    return TVDS_OK;
}

static int parse_spec(const char *spec, int n, const tvds_dof *dofs, int nsets,
                      const tvds_nodeset *sets, int nfsets, const tvds_faceset *fsets, int *count,
                      int **idx, tvds_ctx *ctx)
{
    *count = 0;
    *idx = NULL;
    if (!spec || !*spec) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "empty DoF specification");
    char *copy = tvds_strdup(spec);
    spec_acc a = {NULL, 0, 0, tvds_calloc((size_t)(n > 0 ? n : 1), 1)};
    tvds_nix x;
    int rc = (!copy || !a.taken) ? TVDS_ERR_NOMEM : tvds_nix_build(&x, n, dofs);
    if (rc) {
        tvds_free(copy);
        tvds_free(a.taken);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    const char *p = copy, *list_end = copy + strlen(copy), *ib, *ie;
    while (!rc && tvds_list_next(&p, list_end, &ib, &ie)) {
        char *item = copy + (ib - copy);
        item[ie - ib] = '\0';
        if (!*item) continue;
        int found = 0;
        if (item[0] == '#') {
            char *end;
            long g = strtol(item + 1, &end, 10);
            if (*end || end == item + 1 || g < 0 || g >= n) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec '%s': index out of range [0, %d)",
                                item, n);
                break;
            }
            if (add_idx(&a, (int)g)) rc = TVDS_ERR_NOMEM;
            continue;
        }
        const char *name = item;
        int dir = -1, force_set = 0, force_face = 0;
        char *dot = strrchr(item, '.');
        if (!strncmp(item, "set:", 4)) {
            name = item + 4;
            force_set = 1;
        } else if (!strncmp(item, "face:", 5)) {
            name = item + 5;
            force_face = 1;
        }
        if (dot) {
            int d = dir_from_name(dot + 1);
            if (d >= 0) {
                *dot = '\0';
                dir = d;
            }
        }
        if (!force_set && !force_face && isdigit((unsigned char)name[0])) {
            char *end;
            long node = strtol(name, &end, 10);
            if (*end) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec '%s': bad node id", item);
                break;
            }
            if (add_node(&x, node, dir, &a, &found)) rc = TVDS_ERR_NOMEM;
        } else {
            int q = 0, f = 0;
            while (!force_face && q < nsets && strcmp(sets[q].name, name))
                q++;
            while (!force_set && (force_face || q == nsets) && f < nfsets &&
                   strcmp(fsets[f].name, name))
                f++;
            if (!force_face && q < nsets) {
                for (int k = 0; k < sets[q].n && !rc; k++)
                    if (add_node(&x, sets[q].nodes[k], dir, &a, &found)) rc = TVDS_ERR_NOMEM;
            } else if (!force_set && f < nfsets) {
                /* The face set's distinct nodes in face order (add_idx keeps each DoF once). */
                const tvds_faceset *fs = &fsets[f];
                for (int k = 0; k < fs->nface && !rc; k++)
                    for (int c = 0; c < fs->nn[k] && !rc; c++)
                        if (add_node(&x, fs->nodes[(size_t)k * TVDS_FACE_MAX_NODES + c], dir, &a,
                                     &found))
                            rc = TVDS_ERR_NOMEM;
            } else {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec: no %s called '%s'",
                                force_face  ? "face set"
                                : force_set ? "node set"
                                            : "node set or face set",
                                name);
                break;
            }
        }
        if (!rc && !found)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec '%s' matches no DoF of the model",
                            spec);
    }
    if (rc == TVDS_ERR_NOMEM) TVDS_ERROR(ctx, rc, "out of memory");
    tvds_free(copy);
    tvds_free(a.taken);
    tvds_nix_free(&x);
    if (rc) {
        tvds_free(a.idx);
        return rc;
    }
    *idx = a.idx;
    *count = a.count;
    return TVDS_OK;
}

int tvds_reduce_parse_spec(const char *spec, int n, const tvds_dof *dofs, int nsets,
                           const tvds_nodeset *sets, int *count, int **idx, tvds_ctx *ctx)
{
    return parse_spec(spec, n, dofs, nsets, sets, 0, NULL, count, idx, ctx);
}

int tvds_fe_parse_spec(const tvds_fe_model *m, const char *spec, int *count, int **idx,
                       tvds_ctx *ctx)
{
    if (!m || !count || !idx) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_parse_spec: no model");
    return parse_spec(spec, m->n, m->dofs, m->nsets, m->sets, m->nfsets, m->fsets, count, idx, ctx);
}
