/* import_fe.c — the full model of matrix entries labelled by node and component, shared by the
 * Abaqus and Nastran importers (import_impl.h, docs/formats.md). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash_impl.h"
#include "import_impl.h"
#include "tvds/tvds_io.h"

int tvds_imp_push(tvds_imp_matrix *a, long rnode, int rdof, long cnode, int cdof, double v,
                  long line, tvds_ctx *ctx)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 1024;
        long *r = tvds_realloc(a->rnode, nc * sizeof *r);
        if (r) a->rnode = r;
        long *c = r ? tvds_realloc(a->cnode, nc * sizeof *c) : NULL;
        if (c) a->cnode = c;
        long *l = c ? tvds_realloc(a->line, nc * sizeof *l) : NULL;
        if (l) a->line = l;
        int *p = l ? tvds_realloc(a->rc, nc * sizeof *p) : NULL;
        if (p) a->rc = p;
        double *x = p ? tvds_realloc(a->val, nc * sizeof *x) : NULL;
        if (x) a->val = x;
        if (!x) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", a->path);
        a->cap = nc;
    }
    a->rnode[a->n] = rnode;
    a->cnode[a->n] = cnode;
    a->line[a->n] = line;
    a->rc[a->n] = rdof + 8 * cdof;
    a->val[a->n++] = v;
    return TVDS_OK;
}

void tvds_imp_matrix_free(tvds_imp_matrix *a)
{
    tvds_free(a->rnode);
    tvds_free(a->cnode);
    tvds_free(a->line);
    tvds_free(a->rc);
    tvds_free(a->val);
    a->rnode = a->cnode = a->line = NULL;
    a->rc = NULL;
    a->val = NULL;
    a->n = a->cap = 0;
}

static int long_cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* One entry placed in the DoF order: lo <= hi, up = the file gave it as (lo, hi). */
typedef struct imp_pos {
    int lo, hi, up;
    size_t k;
    long line;
} imp_pos;

static int pos_cmp(const void *a, const void *b)
{
    const imp_pos *p = a, *q = b;
    if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
    if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
    return (p->line > q->line) - (p->line < q->line);
}

static const char *const dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

/* The key of a DoF: 8 node + component. */
static long dof_key(long node, int comp)
{
    return 8 * node + comp;
}

/* Check the terms of a and build its upper triangle. */
static int build_matrix(const tvds_imp_matrix *a, const tvds_lmap *index, const long *keys, int n,
                        cholmod_sparse **A, cholmod_common *cc, tvds_ctx *ctx)
{
    imp_pos *pos = tvds_malloc((a->n ? a->n : 1) * sizeof *pos);
    double *keep = tvds_malloc((a->n ? a->n : 1) * sizeof *keep);
    if (!pos || !keep) {
        tvds_free(pos);
        tvds_free(keep);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", a->path);
    }
    double amax = 0.0;
    for (size_t k = 0; k < a->n; k++) {
        int i = tvds_lmap_get(index, dof_key(a->rnode[k], a->rc[k] % 8));
        int j = tvds_lmap_get(index, dof_key(a->cnode[k], a->rc[k] / 8));
        pos[k].lo = i < j ? i : j;
        pos[k].hi = i < j ? j : i;
        pos[k].up = i <= j;
        pos[k].k = k;
        pos[k].line = a->line[k];
        amax = fmax(amax, fabs(a->val[k]));
    }
    qsort(pos, a->n, sizeof *pos, pos_cmp);
    int rc = TVDS_OK;
    size_t nkeep = 0;
#define DOF_FMT    "%ld %s"
#define DOF_ARG(g) keys[g] / 8, dir_names[keys[g] % 8 - 1]
    for (size_t s = 0, e; s < a->n && !rc; s = e) {
        e = s + 1;
        while (e < a->n && pos[e].lo == pos[s].lo && pos[e].hi == pos[s].hi)
            e++;
        const imp_pos *p = &pos[s];
        double v = a->val[p->k];
        long seen[2] = {0, 0};
        for (size_t t = s; t < e && !rc; t++) {
            int o = pos[t].lo == pos[t].hi ? 1 : pos[t].up;
            if (seen[o])
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %s: the term of (node " DOF_FMT ", node " DOF_FMT
                                ") repeats the one on line %ld",
                                a->path, pos[t].line, a->name, DOF_ARG(p->lo), DOF_ARG(p->hi),
                                seen[o]);
            seen[o] = pos[t].line;
        }
        if (rc) break;
        if (e - s == 2) { /* a term and its mirror */
            const imp_pos *q = &pos[s + 1];
            double w = a->val[q->k];
            if (a->mode == TVDS_IMP_SYM_ONCE) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %s: the term of (node " DOF_FMT ", node " DOF_FMT
                                ") is given again, mirrored, after line %ld: a symmetric "
                                "matrix (IFO 6) gives each term once, in either triangle",
                                a->path, q->line, a->name, DOF_ARG(p->lo), DOF_ARG(p->hi), p->line);
            } else if (a->mode == TVDS_IMP_SYM_EQUAL && v != w) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %s: the term of (node " DOF_FMT ", node " DOF_FMT
                                ") is %.17g but its mirror on line %ld is %.17g: the terms "
                                "above and below the diagonal of a symmetric matrix must be "
                                "equal",
                                a->path, q->line, a->name, DOF_ARG(p->lo), DOF_ARG(p->hi), w,
                                p->line, v);
            } else if (a->mode == TVDS_IMP_SQUARE && fabs(v - w) > 1e-10 * amax) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: %s is not symmetric: the term of (node " DOF_FMT
                                ", node " DOF_FMT ") is %.17g but its mirror on line %ld is "
                                "%.17g (difference > 1e-10 * max|%s| = %.3g)",
                                a->path, q->line, a->name, DOF_ARG(p->lo), DOF_ARG(p->hi), w,
                                p->line, v, a->name, 1e-10 * amax);
            }
            if (v != w) v = 0.5 * v + 0.5 * w;
        } else if (a->mode == TVDS_IMP_SQUARE && p->lo != p->hi && v != 0.0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: %s: the term of (node " DOF_FMT ", node " DOF_FMT
                            ") has no mirror (row and column swapped): a square matrix (IFO 1) "
                            "gives both triangles; write a symmetric one as IFO 6",
                            a->path, p->line, a->name, DOF_ARG(p->lo), DOF_ARG(p->hi));
        }
        if (rc) break;
        pos[nkeep] = *p;
        keep[nkeep++] = v;
    }
    /* Every DoF needs its diagonal term. */
    char *diag = rc ? NULL : tvds_calloc((size_t)n, 1);
    if (!rc && !diag) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", a->path);
    for (size_t t = 0; t < nkeep && !rc; t++)
        if (pos[t].lo == pos[t].hi && keep[t] != 0.0) diag[pos[t].lo] = 1;
    for (int g = 0; g < n && !rc; g++)
        if (!diag[g])
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s: %s has no (nonzero) diagonal term for node " DOF_FMT
                            ", a DoF the matrices name: every DoF needs one in M and in K",
                            a->path, a->name, DOF_ARG(g));
#undef DOF_FMT
#undef DOF_ARG
    tvds_free(diag);
    cholmod_triplet *T = NULL;
    if (!rc) {
        T = cholmod_allocate_triplet((size_t)n, (size_t)n, nkeep ? nkeep : 1, 1, CHOLMOD_REAL, cc);
        if (!T) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", a->path);
    }
    if (!rc) {
        int *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        size_t t = 0;
        for (size_t k = 0; k < nkeep; k++) {
            if (keep[k] == 0.0) continue; /* exact zeros carry nothing */
            Ti[t] = pos[k].lo;
            Tj[t] = pos[k].hi;
            Tx[t++] = keep[k];
        }
        T->nnz = t;
        *A = cholmod_triplet_to_sparse(T, t, cc);
        if (!*A) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", a->path);
    }
    cholmod_free_triplet(&T, cc);
    tvds_free(pos);
    tvds_free(keep);
    return rc;
}

/* Coordinates of node from co: 1 found, 0 not. */
static int coords_of(const tvds_imp_coords *co, long node, double xyz[3])
{
    if (co->deck) return tvds_deck_xyz(co->deck, node, xyz);
    const long *p =
        co->ids ? bsearch(&node, co->ids, (size_t)co->n, sizeof *co->ids, long_cmp) : NULL;
    if (!p) return 0;
    memcpy(xyz, co->xyz[p - co->ids], 3 * sizeof *xyz);
    return 1;
}

int tvds_imp_assemble(const tvds_imp_matrix *K, const tvds_imp_matrix *M, const tvds_imp_coords *co,
                      tvds_fe_model **out, cholmod_common *cc, tvds_ctx *ctx)
{
    *out = NULL;
    const tvds_imp_matrix *mats[2] = {K, M};
    tvds_lmap seen, index;
    long *keys = NULL, *kline = NULL;
    const tvds_imp_matrix **kmat = NULL;
    size_t nk = 0, kcap = 0;
    int rc = TVDS_OK;
    if (tvds_lmap_init(&seen, 1024) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (tvds_lmap_init(&index, 1024) != TVDS_OK) {
        tvds_lmap_free(&seen);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    /* The DoFs: every (node, component) named, with where it was first named. */
    for (int q = 0; q < 2 && !rc; q++) {
        const tvds_imp_matrix *a = mats[q];
        for (size_t k = 0; k < 2 * a->n && !rc; k++) {
            size_t e = k / 2;
            long key =
                k % 2 ? dof_key(a->cnode[e], a->rc[e] / 8) : dof_key(a->rnode[e], a->rc[e] % 8);
            int old;
            if (nk >= INT_MAX / 2) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: more DoFs than tvds indexes", a->path);
                break;
            }
            if (tvds_lmap_put(&seen, key, (int)nk, &old) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
            if (old >= 0) continue;
            if (nk == kcap) {
                kcap = kcap ? 2 * kcap : 1024;
                long *nkeys = tvds_realloc(keys, kcap * sizeof *nkeys);
                if (nkeys) keys = nkeys;
                long *nl = nkeys ? tvds_realloc(kline, kcap * sizeof *nl) : NULL;
                if (nl) kline = nl;
                const tvds_imp_matrix **nm = nl ? tvds_realloc(kmat, kcap * sizeof *nm) : NULL;
                if (nm) kmat = nm;
                if (!nm) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                    break;
                }
            }
            keys[nk] = key;
            kline[nk] = a->line[e];
            kmat[nk++] = a;
        }
    }
    tvds_fe_model *m = rc ? NULL : tvds_calloc(1, sizeof *m);
    if (!rc && !m) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc && nk == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no matrix term", K->path);
    /* Coordinates, checked in the order the DoFs were first named (the first message names
     * the first line). */
    double(*xyz)[3] = rc ? NULL : tvds_calloc(nk, sizeof *xyz);
    if (!rc && !xyz) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int have = co && (co->deck || co->ids);
    for (size_t g = 0; g < nk && !rc && have; g++)
        if (!coords_of(co, keys[g] / 8, xyz[g]))
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %s: node %ld has no coordinates in %s",
                            kmat[g]->path, kline[g], kmat[g]->name, keys[g] / 8, co->where);
    if (!rc) {
        /* Matrix order: ascending node, then component. */
        long *sorted = tvds_malloc(nk * sizeof *sorted);
        if (!sorted) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        if (!rc) {
            memcpy(sorted, keys, nk * sizeof *sorted);
            qsort(sorted, nk, sizeof *sorted, long_cmp);
            m->n = (int)nk;
            m->dofs = tvds_calloc(nk, sizeof *m->dofs);
            if (!m->dofs) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        }
        for (size_t g = 0; g < nk && !rc; g++) {
            if (tvds_lmap_put(&index, sorted[g], (int)g, NULL) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
            tvds_dof *d = &m->dofs[g];
            d->kind = TVDS_DOF_PHYSICAL;
            d->node = sorted[g] / 8;
            d->dir = (int)(sorted[g] % 8) - 1;
            memcpy(d->xyz, xyz[tvds_lmap_get(&seen, sorted[g])], sizeof d->xyz);
        }
        if (!rc) rc = build_matrix(K, &index, sorted, m->n, &m->K, cc, ctx);
        if (!rc) rc = build_matrix(M, &index, sorted, m->n, &m->M, cc, ctx);
        tvds_free(sorted);
    }
    tvds_free(xyz);
    tvds_free(keys);
    tvds_free(kline);
    tvds_free(kmat);
    tvds_lmap_free(&seen);
    tvds_lmap_free(&index);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}
