/* calculix.c — import of a CalculiX job's matrix storage (JOB.sti, JOB.mas, JOB.dof) with the
 * nodes, node sets, solid elements and element-face surfaces of its input deck (JOB.inp) as a
 * full model with node and face sets (docs/formats.md). The deck reader is ccx_deck.c. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/hash_impl.h"
#include "io/io_impl.h"
#include "ccx_impl.h"
#include "import_impl.h"
#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

/* JOB.dof: one "node.direction" per line, in matrix order. */
static int read_dof_list(const char *path, const ccx_deck *d, tvds_fe_model *m, tvds_ctx *ctx)
{
    FILE *f = tvds_input_open(path, "CalculiX DoF list", ctx);
    if (!f && errno)
        return TVDS_ERROR(ctx, TVDS_ERR_IO,
                          "%s: cannot open: %s (run the job with *FREQUENCY, "
                          "SOLVER=MATRIXSTORAGE first)",
                          path, strerror(errno));
    if (!f) return TVDS_ERR_IO;
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, *dof_line = NULL;
    int rc = TVDS_OK, alloc = 0;
    tvds_lmap seen; /* 8 node + direction -> row: each DoF once */
    if (tvds_lmap_init(&seen, 1024) != TVDS_OK) {
        fclose(f);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = ccx_trim(line), *end;
        if (!*s) continue;
        errno = 0;
        long node = strtol(s, &end, 10);
        long dir = -1;
        if (end != s && *end == '.' && isdigit((unsigned char)end[1]) && !end[2] && !errno)
            dir = end[1] - '0';
        if (dir < 0 || node < 1 || node > LONG_MAX / 8) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: expected '<node>.<direction>', found "
                            "'%.40s'",
                            path, lineno, s);
            break;
        }
        if (dir < 1 || dir > 6) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld direction %ld: tvds maps directions 1-3 "
                            "(translations) and 4-6 (rotations) only",
                            path, lineno, node, dir);
            break;
        }
        int slot = tvds_lmap_get(&d->node_slot, node);
        if (slot < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld has no coordinates in the input deck (*NODE)", path,
                            lineno, node);
            break;
        }
        int prev;
        if (tvds_lmap_put(&seen, 8 * node + dir, m->n, &prev) != TVDS_OK) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
            break;
        }
        if (prev >= 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: %ld.%ld listed twice (first on line %ld)",
                            path, lineno, node, dir, dof_line[prev]);
            break;
        }
        if (m->n == alloc) {
            alloc = alloc ? 2 * alloc : 1024;
            tvds_dof *nd = tvds_realloc(m->dofs, (size_t)alloc * sizeof *nd);
            if (nd) m->dofs = nd;
            long *nl = nd ? tvds_realloc(dof_line, (size_t)alloc * sizeof *nl) : NULL;
            if (nl) dof_line = nl;
            if (!nd || !nl) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
        }
        dof_line[m->n] = lineno;
        tvds_dof *dd = &m->dofs[m->n++];
        memset(dd, 0, sizeof *dd);
        dd->kind = TVDS_DOF_PHYSICAL;
        dd->node = node;
        dd->dir = (int)dir - 1;
        memcpy(dd->xyz, d->xyz[slot], sizeof dd->xyz);
    }
    free(line); /* getline's buffer */
    fclose(f);
    tvds_lmap_free(&seen);
    tvds_free(dof_line);
    if (!rc && m->n == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no DoF listed", path);
    return rc;
}

typedef struct ccx_pos {
    int i, j;
    long line;
} ccx_pos;

static int pos_cmp(const void *a, const void *b)
{
    const ccx_pos *p = a, *q = b;
    if (p->j != q->j) return p->j < q->j ? -1 : 1;
    if (p->i != q->i) return p->i < q->i ? -1 : 1;
    return (p->line > q->line) - (p->line < q->line);
}

static const char *const ccx_dir_names[6] = {"ux", "uy", "uz", "rx", "ry", "rz"};

/* JOB.sti / JOB.mas: "row col value", 1-based, upper triangle (row <= col), no header; ccx
 * writes column by column, each column's diagonal last, so a file cut short (disk full, job
 * killed) lacks the diagonal of its last DoFs. Refused: a last line without its newline, a DoF
 * of dofs (n) without a diagonal entry. *count receives the entries read. */
static int read_triangle(const char *path, int n, const tvds_dof *dofs, cholmod_sparse **A,
                         size_t *count, cholmod_common *cc, tvds_ctx *ctx)
{
    FILE *f = tvds_input_open(path, "CalculiX matrix file", ctx);
    if (!f) return tvds_input_open_error(path, ctx);
    char *line = NULL;
    size_t cap = 0, cnt = 0, alloc = 0;
    long lineno = 0;
    int rc = TVDS_OK;
    ccx_pos *pos = NULL;
    double *val = NULL;
    ssize_t got;
    char *has_diag = tvds_calloc((size_t)n, 1);
    if (!has_diag) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (line[got - 1] != '\n') {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: the file ends in the middle of a line (truncated file?)", path,
                            lineno);
            break;
        }
        char *s = ccx_trim(line), *e1, *e2, *e3;
        if (!*s) continue;
        errno = 0;
        long i = strtol(s, &e1, 10), j = strtol(e1, &e2, 10);
        double x = strtod(e2, &e3);
        if (e1 == s || e2 == e1 || e3 == e2 || *ccx_trim(e3) || errno == EINVAL) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: expected '<row> <column> <value>'", path,
                            lineno);
            break;
        }
        if (i < 1 || j < 1 || i > n || j > n) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: index (%ld,%ld) out of range 1..%d (the DoFs of the .dof "
                            "file)",
                            path, lineno, i, j, n);
            break;
        }
        if (i > j) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: entry (%ld,%ld) below the diagonal: CalculiX matrix storage "
                            "holds the upper triangle",
                            path, lineno, i, j);
            break;
        }
        if (!isfinite(x)) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: value is not finite", path, lineno);
            break;
        }
        if (cnt == alloc) {
            alloc = alloc ? 2 * alloc : 4096;
            ccx_pos *np = tvds_realloc(pos, alloc * sizeof *np);
            double *nv = np ? tvds_realloc(val, alloc * sizeof *nv) : NULL;
            if (np) pos = np;
            if (nv) val = nv;
            if (!np || !nv) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
        }
        pos[cnt].i = (int)i - 1;
        pos[cnt].j = (int)j - 1;
        pos[cnt].line = lineno;
        val[cnt++] = x;
        if (i == j) has_diag[i - 1] = 1;
    }
    free(line); /* getline's buffer */
    fclose(f);
    if (!rc && cnt == 0)
        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                        "%s: no entries: expected the upper triangle of a %d-DoF matrix (empty "
                        "file?)",
                        path, n);
    for (int g = 0; g < n && !rc; g++)
        if (!has_diag[g])
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: no diagonal entry (%d,%d) for DoF %d (node %ld %s) in the "
                            "%zu entries of the file (truncated file?)",
                            path, lineno, g + 1, g + 1, g + 1, dofs[g].node,
                            dofs[g].dir >= 0 && dofs[g].dir < 6 ? ccx_dir_names[dofs[g].dir] : "?",
                            cnt);
    tvds_free(has_diag);
    *count = cnt;
    cholmod_triplet *T = NULL;
    if (!rc) {
        T = cholmod_allocate_triplet((size_t)n, (size_t)n, cnt ? cnt : 1, 1, CHOLMOD_REAL, cc);
        if (!T) rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!rc) {
        int *Ti = T->i, *Tj = T->j;
        double *Tx = T->x;
        size_t t = 0;
        for (size_t k = 0; k < cnt; k++) {
            if (val[k] == 0.0) continue; /* explicit zeros carry nothing */
            Ti[t] = pos[k].i;
            Tj[t] = pos[k].j;
            Tx[t++] = val[k];
        }
        T->nnz = t;
        *A = cholmod_triplet_to_sparse(T, t, cc);
        if (!*A) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        } else if (cholmod_nnz(*A, cc) != (long)t) {
            /* CHOLMOD summed a repeated position: find the first repeat (sort, error path). */
            cholmod_free_sparse(A, cc);
            qsort(pos, cnt, sizeof *pos, pos_cmp);
            long first = 0, second = LONG_MAX;
            int bi = 0, bj = 0;
            for (size_t k = 1; k < cnt; k++)
                if (pos[k].i == pos[k - 1].i && pos[k].j == pos[k - 1].j && pos[k].line < second) {
                    second = pos[k].line;
                    first = pos[k - 1].line;
                    bi = pos[k].i;
                    bj = pos[k].j;
                }
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: entry (%d,%d) repeats the one on line %ld",
                           path, second, bi + 1, bj + 1, first);
        }
    }
    cholmod_free_triplet(&T, cc);
    tvds_free(pos);
    tvds_free(val);
    return rc;
}

/* Node sets restricted to nodes that have a DoF (constrained nodes have none), in order, each
 * node once; a set with no such node is left out (counted in info). */
static int build_sets(const ccx_deck *d, tvds_fe_model *m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    tvds_lmap has; /* node -> 1 when it has a DoF */
    tvds_lmap seen;
    if (tvds_lmap_init(&has, (size_t)m->n) != TVDS_OK)
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int rc = TVDS_OK;
    for (int g = 0; g < m->n && !rc; g++)
        if (tvds_lmap_put(&has, m->dofs[g].node, 1, NULL) != TVDS_OK) rc = TVDS_ERR_NOMEM;
    m->sets = rc ? NULL : tvds_calloc((size_t)(d->nsets > 0 ? d->nsets : 1), sizeof *m->sets);
    if (!m->sets) rc = TVDS_ERR_NOMEM;
    for (int q = 0; q < d->nsets && !rc; q++) {
        const ccx_set *s = &d->sets[q];
        if (tvds_lmap_init(&seen, (size_t)s->n) != TVDS_OK) {
            rc = TVDS_ERR_NOMEM;
            break;
        }
        tvds_nodeset *ns = &m->sets[m->nsets];
        ns->nodes = tvds_malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(long));
        if (!ns->nodes) rc = TVDS_ERR_NOMEM;
        for (int a = 0; a < s->n && !rc; a++) {
            int old;
            if (tvds_lmap_get(&has, s->nodes[a]) < 0) continue;
            if (tvds_lmap_put(&seen, s->nodes[a], 1, &old) != TVDS_OK) {
                rc = TVDS_ERR_NOMEM;
                break;
            }
            if (old < 0) ns->nodes[ns->n++] = s->nodes[a];
        }
        tvds_lmap_free(&seen);
        if (rc) break;
        if (ns->n == 0) {
            tvds_free(ns->nodes);
            ns->nodes = NULL;
            if (info) {
                if (!info->sets_dropped)
                    snprintf(info->first_dropped, sizeof info->first_dropped, "%s", s->name);
                info->sets_dropped++;
            }
            continue;
        }
        ns->name = tvds_strdup(s->name);
        if (!ns->name) rc = TVDS_ERR_NOMEM;
        m->nsets++;
    }
    tvds_lmap_free(&has);
    if (rc) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    return TVDS_OK;
}

/* Face sets from the element-face surfaces: a face is kept when each of its nodes has the three
 * translations (a face touching a clamped node has a node without DoFs: left out and counted);
 * a surface with no face kept is left out. */
static int build_faces(const ccx_deck *d, tvds_fe_model *m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    if (d->nsurfs == 0) return TVDS_OK;
    tvds_lmap slot; /* node -> index into mask */
    int *mask = tvds_calloc((size_t)m->n, sizeof *mask), nslot = 0, rc = TVDS_OK;
    if (!mask || tvds_lmap_init(&slot, (size_t)m->n) != TVDS_OK) {
        tvds_free(mask);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    for (int g = 0; g < m->n && !rc; g++) {
        int old;
        if (tvds_lmap_put(&slot, m->dofs[g].node, nslot, &old) != TVDS_OK) {
            rc = TVDS_ERR_NOMEM;
            break;
        }
        if (old < 0) old = nslot++;
        if (m->dofs[g].dir < 3) mask[old] |= 1 << m->dofs[g].dir;
    }
    m->fsets = rc ? NULL : tvds_calloc((size_t)d->nsurfs, sizeof *m->fsets);
    if (!m->fsets) rc = TVDS_ERR_NOMEM;
    for (int q = 0; q < d->nsurfs && !rc; q++) {
        const ccx_surf *s = &d->surfs[q];
        tvds_faceset *fs = &m->fsets[m->nfsets];
        size_t cap = s->nface > 0 ? (size_t)s->nface : 1;
        fs->nn = tvds_malloc(cap * sizeof *fs->nn);
        fs->nodes = tvds_malloc(cap * TVDS_FACE_MAX_NODES * sizeof *fs->nodes);
        fs->name = tvds_strdup(s->name);
        m->nfsets++; /* owned by m from here on */
        if (!fs->nn || !fs->nodes || !fs->name) {
            rc = TVDS_ERR_NOMEM;
            break;
        }
        int dropped = 0;
        for (int k = 0; k < s->nface; k++) {
            const long *v = s->nodes + (size_t)k * TVDS_FACE_MAX_NODES;
            int ok = 1;
            for (int c = 0; c < s->nn[k] && ok; c++) {
                int sl = tvds_lmap_get(&slot, v[c]);
                ok = sl >= 0 && mask[sl] == 7;
            }
            if (!ok) {
                dropped++;
                continue;
            }
            memcpy(fs->nodes + (size_t)fs->nface * TVDS_FACE_MAX_NODES, v,
                   TVDS_FACE_MAX_NODES * sizeof *v);
            fs->nn[fs->nface++] = s->nn[k];
        }
        if (info && dropped) {
            if (!info->faces_dropped)
                snprintf(info->first_face_dropped, sizeof info->first_face_dropped, "%s", s->name);
            info->faces_dropped += dropped;
        }
        if (fs->nface == 0) { /* nothing left: the surface is not carried */
            m->nfsets--;
            tvds_free(fs->nn);
            tvds_free(fs->nodes);
            tvds_free(fs->name);
            memset(fs, 0, sizeof *fs);
            if (info) info->fsets_dropped++;
        }
    }
    tvds_lmap_free(&slot);
    tvds_free(mask);
    if (rc) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    return TVDS_OK;
}

int tvds_import_calculix(const char *inp_path, tvds_fe_model **out, tvds_ccx_info *info,
                         cholmod_common *cc, tvds_ctx *ctx)
{
    if (!inp_path || !out || !cc)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "import calculix: missing argument");
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    size_t l = strlen(inp_path);
    if (l < 5 || strcasecmp(inp_path + l - 4, ".inp") != 0)
        return TVDS_ERROR(ctx, TVDS_ERR_INVALID,
                          "%s: expected the job's input deck JOB.inp (JOB.sti, JOB.mas and "
                          "JOB.dof are read beside it)",
                          inp_path);
    char *base = tvds_malloc(l + 8);
    ccx_deck d;
    memset(&d, 0, sizeof d);
    tvds_fe_model *m = tvds_calloc(1, sizeof *m);
    int rc = (!base || !m || tvds_lmap_init(&d.node_slot, 1024) != TVDS_OK ||
              tvds_lmap_init(&d.elem_slot, 256) != TVDS_OK)
                 ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory")
                 : TVDS_OK;
    if (!rc) {
        ccx_state st = {CCX_OTHER, 0, -1, -1, -1, 0, 0, 0};
        rc = ccx_read_deck(inp_path, 0, &d, &st, ctx);
        if (!rc) rc = ccx_check_pending(&d, &st, inp_path, 0, ctx);
        if (!rc) rc = ccx_check_element_nodes(&d, ctx);
    }
    if (!rc) {
        memcpy(base, inp_path, l - 4);
        strcpy(base + l - 4, ".dof");
        rc = read_dof_list(base, &d, m, ctx);
    }
    size_t nk = 0, nm = 0; /* entries of each file */
    if (!rc) {
        strcpy(base + l - 4, ".sti");
        rc = read_triangle(base, m->n, m->dofs, &m->K, &nk, cc, ctx);
    }
    if (!rc) {
        strcpy(base + l - 4, ".mas");
        rc = read_triangle(base, m->n, m->dofs, &m->M, &nm, cc, ctx);
    }
    if (!rc) rc = build_sets(&d, m, info, ctx);
    if (!rc) rc = build_faces(&d, m, info, ctx);
    if (!rc) {
        const char *b = strrchr(inp_path, '/');
        b = b ? b + 1 : inp_path;
        m->name = tvds_malloc(strlen(b) + 1);
        if (!m->name) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
        } else {
            memcpy(m->name, b, strlen(b) - 4);
            m->name[strlen(b) - 4] = '\0';
        }
    }
    if (!rc && info) {
        info->nodes = d.nnode;
        info->nsets_deck = d.nsets;
        info->elements = d.nelem;
        info->nsurf_deck = d.nsurfs;
        info->lowmass_elements = d.nlowmass;
        snprintf(info->lowmass_type, sizeof info->lowmass_type, "%s", d.lowmass_type);
    }
    ccx_deck_free(&d);
    tvds_free(base);
    if (rc) {
        tvds_fe_model_free(&m, cc);
        return rc;
    }
    *out = m;
    return TVDS_OK;
}

/* ---- The deck alone, for the importers of other codes' matrices (import_impl.h) ---------- */

struct tvds_deck {
    ccx_deck d;
};

int tvds_deck_read(const char *inp_path, tvds_deck **out, tvds_ctx *ctx)
{
    *out = NULL;
    tvds_deck *dk = tvds_calloc(1, sizeof *dk);
    if (!dk) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    dk->d.flat_only = 1;
    int rc = (tvds_lmap_init(&dk->d.node_slot, 1024) != TVDS_OK ||
              tvds_lmap_init(&dk->d.elem_slot, 256) != TVDS_OK)
                 ? TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory")
                 : TVDS_OK;
    if (!rc) {
        ccx_state st = {CCX_OTHER, 0, -1, -1, -1, 0, 0, 0};
        rc = ccx_read_deck(inp_path, 0, &dk->d, &st, ctx);
        if (!rc) rc = ccx_check_pending(&dk->d, &st, inp_path, 0, ctx);
    }
    if (rc) {
        tvds_deck_free(&dk);
        return rc;
    }
    *out = dk;
    return TVDS_OK;
}

int tvds_deck_nodes(const tvds_deck *dk)
{
    return dk->d.nnode;
}

int tvds_deck_xyz(const tvds_deck *dk, long node, double xyz[3])
{
    int slot = tvds_lmap_get(&dk->d.node_slot, node);
    if (slot < 0) return 0;
    memcpy(xyz, dk->d.xyz[slot], 3 * sizeof *xyz);
    return 1;
}

int tvds_deck_sets(const tvds_deck *dk, tvds_fe_model *m, tvds_ccx_info *info, tvds_ctx *ctx)
{
    int rc = build_sets(&dk->d, m, info, ctx);
    if (!rc) rc = build_faces(&dk->d, m, info, ctx);
    if (!rc && info) {
        info->nodes = dk->d.nnode;
        info->nsets_deck = dk->d.nsets;
        info->elements = dk->d.nelem;
        info->nsurf_deck = dk->d.nsurfs;
        info->lowmass_elements = dk->d.nlowmass;
        snprintf(info->lowmass_type, sizeof info->lowmass_type, "%s", dk->d.lowmass_type);
    }
    return rc;
}

void tvds_deck_free(tvds_deck **dk)
{
    if (!dk || !*dk) return;
    ccx_deck_free(&(*dk)->d);
    tvds_free(*dk);
    *dk = NULL;
}
