/* reduce_fe.c — Craig–Bampton reduction of a full model with its node and face sets: the
 * boundary given by name, and the face sets (3D contact surfaces) carried to the substructure
 * when their nodes are retained (docs/reduce.md). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/hash_impl.h"
#include "io/io_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

static int find_faceset(const tvds_fe_model *m, const char *name, size_t len)
{
    for (int f = 0; f < m->nfsets; f++)
        if (strlen(m->fsets[f].name) == len && !memcmp(m->fsets[f].name, name, len)) return f;
    return -1;
}

static int find_nodeset(const tvds_fe_model *m, const char *name, size_t len)
{
    for (int q = 0; q < m->nsets; q++)
        if (strlen(m->sets[q].name) == len && !memcmp(m->sets[q].name, name, len)) return q;
    return -1;
}

/* Mark in need[] the face sets of a comma-separated list: with from_boundary, the items of a
 * boundary specification that name a face set (face:NAME[.dir], or a NAME that is no node
 * set); otherwise every item must be a face set. */
static int mark_required(const tvds_fe_model *m, const char *list, int from_boundary,
                         unsigned char *need, tvds_ctx *ctx)
{
    const char *p = list, *end = list ? list + strlen(list) : NULL, *b, *t;
    while (p && tvds_list_next(&p, end, &b, &t)) {
        if (b == t) continue;
        int forced = 0;
        if ((size_t)(t - b) > 5 && !memcmp(b, "face:", 5)) {
            b += 5;
            forced = 1;
        } else if (from_boundary && (size_t)(t - b) > 4 && !memcmp(b, "set:", 4)) {
            continue;
        }
        int f = find_faceset(m, b, (size_t)(t - b));
        if (f < 0 && from_boundary) { /* NAME.dir */
            const char *dot = t;
            while (dot > b && dot[-1] != '.')
                dot--;
            if (dot > b) f = find_faceset(m, b, (size_t)(dot - 1 - b));
            if (f >= 0 && !forced && find_nodeset(m, b, (size_t)(dot - 1 - b)) >= 0) f = -1;
        } else if (f >= 0 && from_boundary && !forced && find_nodeset(m, b, (size_t)(t - b)) >= 0) {
            f = -1;
        }
        if (f >= 0) {
            need[f] = 1;
        } else if (!from_boundary) {
            return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce: no face set called '%.*s'",
                              (int)(t - b), b);
        }
    }
    return TVDS_OK;
}

/* First node of face set fs without all three translations among the retained DoFs, or 0. */
static long first_missing(const tvds_faceset *fs, const tvds_lmap *kept, const int *mask)
{
    for (int k = 0; k < fs->nface; k++)
        for (int c = 0; c < fs->nn[k]; c++) {
            long node = fs->nodes[(size_t)k * TVDS_FACE_MAX_NODES + c];
            int slot = tvds_lmap_get(kept, node);
            if (slot < 0 || mask[slot] != 7) return node;
        }
    return 0;
}

static int copy_faceset(const tvds_faceset *src, tvds_faceset *dst)
{
    memset(dst, 0, sizeof *dst);
    dst->name = tvds_strdup(src->name);
    dst->nn = tvds_malloc((size_t)src->nface * sizeof *dst->nn);
    dst->nodes = tvds_malloc((size_t)src->nface * TVDS_FACE_MAX_NODES * sizeof *dst->nodes);
    if (!dst->name || !dst->nn || !dst->nodes) return TVDS_ERR_NOMEM;
    dst->nface = src->nface;
    memcpy(dst->nn, src->nn, (size_t)src->nface * sizeof *dst->nn);
    memcpy(dst->nodes, src->nodes, (size_t)src->nface * TVDS_FACE_MAX_NODES * sizeof *dst->nodes);
    return TVDS_OK;
}

int tvds_reduce_fe(const tvds_fe_model *m, const tvds_reduce_spec *sp, const tvds_reduce_opts *opt,
                   tvds_substructure **out, tvds_reduce_stats *stats, cholmod_common *cc,
                   tvds_ctx *ctx)
{
    if (!m || !sp || !sp->boundary || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "reduce_fe: missing argument");
    *out = NULL;
    const char *sets_name = sp->sets_name ? sp->sets_name : "sets.txt";
    int nb = 0, nr = 0, *bidx = NULL, *ridx = NULL;
    unsigned char *need = tvds_calloc((size_t)(m->nfsets > 0 ? m->nfsets : 1), 1);
    tvds_lmap kept; /* node -> slot of mask */
    memset(&kept, 0, sizeof kept);
    int *mask = NULL, nkept = 0; /* per slot: retained translations (1 ux, 2 uy, 4 uz) */
    tvds_substructure *s = NULL;
    int rc = need ? TVDS_OK : TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    if (!rc) rc = tvds_fe_parse_spec(m, sp->boundary, &nb, &bidx, ctx);
    if (!rc && sp->recover) rc = tvds_fe_parse_spec(m, sp->recover, &nr, &ridx, ctx);
    if (!rc) rc = mark_required(m, sp->boundary, 1, need, ctx);
    if (!rc && sp->faces) rc = mark_required(m, sp->faces, 0, need, ctx);
    if (!rc && (tvds_lmap_init(&kept, (size_t)nb) != TVDS_OK ||
                !(mask = tvds_calloc((size_t)(nb > 0 ? nb : 1), sizeof *mask))))
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < nb && !rc; k++) {
        const tvds_dof *d = &m->dofs[bidx[k]];
        if (d->dir < 0 || d->dir > 2) continue;
        int old;
        if (tvds_lmap_put(&kept, d->node, nkept, &old) != TVDS_OK) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            break;
        }
        if (old < 0) old = nkept++;
        mask[old] |= 1 << d->dir;
    }
    /* A face set that must reach the substructure is checked before the reduction runs. */
    for (int f = 0; f < m->nfsets && !rc; f++) {
        long node = need[f] ? first_missing(&m->fsets[f], &kept, mask) : 0;
        if (node)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                            "%s: face set '%s': node %ld is not retained with ux, uy and uz (it "
                            "would be interior to the reduction); retain the face set's nodes "
                            "with --boundary face:%s",
                            sets_name, m->fsets[f].name, node, m->fsets[f].name);
    }
    if (!rc)
        rc = tvds_reduce_cb(m->M, m->K, m->dofs, nb, bidx, nr, ridx, m->nsets, m->sets, opt, &s,
                            stats, cc, ctx);
    int carried = 0, left = 0;
    if (!rc && m->nfsets > 0) {
        s->fsets = tvds_calloc((size_t)m->nfsets, sizeof *s->fsets);
        if (!s->fsets) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        for (int f = 0; f < m->nfsets && !rc; f++) {
            if (first_missing(&m->fsets[f], &kept, mask)) {
                left++;
                continue;
            }
            s->nfsets++; /* owned by s from here on */
            if (copy_faceset(&m->fsets[f], &s->fsets[s->nfsets - 1]) != TVDS_OK)
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            carried++;
        }
    }
    if (stats && !rc) {
        stats->nfsets = carried;
        stats->nfsets_left = left;
    }
    tvds_lmap_free(&kept);
    tvds_free(mask);
    tvds_free(need);
    tvds_free(bidx);
    tvds_free(ridx);
    if (rc) {
        tvds_substructure_free(&s);
        return rc;
    }
    *out = s;
    return TVDS_OK;
}
