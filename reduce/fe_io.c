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

/* Node id -> slot, and per slot the DoF index of each direction (-1: none). Lets the readers
 * and the DoF specifications find a node's DoFs in O(1) instead of scanning the table. */
typedef struct node_index {
    tvds_lmap map;
    int (*dof)[6]; /* nslot */
    int *mark;     /* nslot: scratch (set duplicate detection) */
    int nslot, cap;
} node_index;

static void nix_free(node_index *x)
{
    tvds_lmap_free(&x->map);
    tvds_free(x->dof);
    tvds_free(x->mark);
    memset(x, 0, sizeof *x);
}

static int nix_init(node_index *x, size_t n)
{
    memset(x, 0, sizeof *x);
    return tvds_lmap_init(&x->map, n);
}

/* Record DoF g = (node, dir). *slot receives the node's slot; *prev the DoF index already
 * given for (node, dir) (-1 if none) and *first the node's first DoF index (-1: new node). */
static int nix_add(node_index *x, long node, int dir, int g, int *prev, int *first)
{
    int old;
    if (tvds_lmap_put(&x->map, node, x->nslot, &old) != TVDS_OK) return TVDS_ERR_NOMEM;
    if (old < 0) {
        if (x->nslot == x->cap) {
            int nc = x->cap ? 2 * x->cap : 256;
            int(*nd)[6] = tvds_realloc(x->dof, (size_t)nc * sizeof *nd);
            if (!nd) return TVDS_ERR_NOMEM;
            x->dof = nd;
            x->cap = nc;
        }
        old = x->nslot++;
        for (int d = 0; d < 6; d++)
            x->dof[old][d] = -1;
        *first = -1;
    } else {
        *first = -1;
        for (int d = 0; d < 6; d++)
            if (x->dof[old][d] >= 0 && (*first < 0 || x->dof[old][d] < *first))
                *first = x->dof[old][d];
    }
    *prev = x->dof[old][dir];
    if (*prev < 0) x->dof[old][dir] = g;
    return TVDS_OK;
}

static int nix_build(node_index *x, int n, const tvds_dof *dofs)
{
    if (nix_init(x, (size_t)n) != TVDS_OK) return TVDS_ERR_NOMEM;
    for (int g = 0; g < n; g++) {
        if (dofs[g].kind != TVDS_DOF_PHYSICAL || dofs[g].dir < 0 || dofs[g].dir >= 6) continue;
        int prev, first;
        if (nix_add(x, dofs[g].node, dofs[g].dir, g, &prev, &first) != TVDS_OK) {
            nix_free(x);
            return TVDS_ERR_NOMEM;
        }
    }
    return TVDS_OK;
}

/* Fields of a line [b, e) separated by blanks, '#' ending the line. */
static int fields(char *b, char **tb, int max)
{
    int n = 0;
    char *p = b;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\f' || *p == '\v')
            p++;
        if (!*p || *p == '#') return n;
        if (n == max) return max + 1;
        tb[n++] = p;
        while (*p && *p != '#' && !isspace((unsigned char)*p))
            p++;
        if (*p == '#') {
            *p = '\0';
            return n;
        }
        if (*p) *p++ = '\0';
    }
}

static int to_long(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return end != s && !*end && !errno;
}

static int to_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v) && !(errno == ERANGE && fabs(*v) > 1.0);
}

static int read_dofs(const char *path, int *n, tvds_dof **dofs, long **lines, node_index *x,
                     tvds_ctx *ctx)
{
    FILE *f = tvds_input_open(path, "DoF table", ctx);
    if (!f) return tvds_input_open_error(path, ctx);
    char *line = NULL, *tb[6];
    size_t cap = 0;
    int rc = TVDS_OK, cnt = 0, alloc = 0;
    long lineno = 0;
    tvds_dof *d = NULL;
    long *dl = NULL;
    if (nix_init(x, 1024) != TVDS_OK) {
        fclose(f);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        int nt = fields(line, tb, 5);
        if (nt == 0) continue;
        long node;
        double xyz[3];
        if (nt != 5) {
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                           "%s:%ld: expected '<node> <dir> <x> <y> <z>', found %s%d field%s", path,
                           lineno, nt > 5 ? "more than " : "", nt > 5 ? 5 : nt, nt == 1 ? "" : "s");
            break;
        }
        if (!to_long(tb[0], &node) || node < 1) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: node id '%.40s' is not an integer >= 1",
                            path, lineno, tb[0]);
            break;
        }
        int dir = dir_from_name(tb[1]);
        if (dir < 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: unknown direction '%.40s' (ux uy uz rx ry rz)", path, lineno,
                            tb[1]);
            break;
        }
        int c = 0;
        while (c < 3 && to_double(tb[2 + c], &xyz[c]))
            c++;
        if (c < 3) {
            rc =
                TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: coordinate '%.40s' is not a finite number",
                           path, lineno, tb[2 + c]);
            break;
        }
        if (cnt == alloc) {
            alloc = alloc ? 2 * alloc : 1024;
            tvds_dof *nd = tvds_realloc(d, (size_t)alloc * sizeof *d);
            long *nl = nd ? tvds_realloc(dl, (size_t)alloc * sizeof *dl) : NULL;
            if (nd) d = nd;
            if (nl) dl = nl;
            if (!nd || !nl) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
        }
        int prev, first;
        if (nix_add(x, node, dir, cnt, &prev, &first) != TVDS_OK) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        if (prev >= 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld %s listed twice (first on line %ld)", path, lineno,
                            node, dir_names[dir], dl[prev]);
            break;
        }
        if (first >= 0 && memcmp(d[first].xyz, xyz, sizeof xyz) != 0) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                            "%s:%ld: node %ld %s has coordinates (%.17g, %.17g, %.17g) but node "
                            "%ld %s on line %ld has (%.17g, %.17g, %.17g): the DoFs of a node "
                            "share its coordinates",
                            path, lineno, node, dir_names[dir], xyz[0], xyz[1], xyz[2], node,
                            dir_names[d[first].dir], dl[first], d[first].xyz[0], d[first].xyz[1],
                            d[first].xyz[2]);
            break;
        }
        tvds_dof *dd = &d[cnt];
        memset(dd, 0, sizeof *dd);
        dd->kind = TVDS_DOF_PHYSICAL;
        dd->node = node;
        dd->dir = dir;
        memcpy(dd->xyz, xyz, sizeof xyz);
        dl[cnt++] = lineno;
        if (cnt == INT_MAX) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: too many DoFs", path, lineno);
            break;
        }
    }
    free(line); /* getline's buffer */
    if (!rc && ferror(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
    fclose(f);
    if (!rc && cnt == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no DoF in the table", path);
    if (rc) {
        tvds_free(d);
        tvds_free(dl);
        nix_free(x);
        return rc;
    }
    *n = cnt;
    *dofs = d;
    *lines = dl;
    return TVDS_OK;
}

static int valid_set_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return 0;
    return 1;
}

/* One 'face <name> <node>...' line (p after the keyword): a face of 3, 4, 6, 8 or 9 distinct
 * nodes, each with ux, uy and uz, appended to face set <name> (created on its first line). */
static int read_face_line(char *p, const char *path, long lineno, const node_index *x,
                          tvds_smap *names, tvds_smap *fnames, int *nfsets, tvds_faceset **fsets,
                          tvds_ctx *ctx)
{
    char *tb[TVDS_FACE_MAX_NODES + 2];
    int nf = fields(p, tb, TVDS_FACE_MAX_NODES + 1);
    if (nf < 1 || !valid_set_name(tb[0]))
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: a face set needs a name of letters, digits, '_', '-', '.'", path,
                          lineno);
    const char *nm = tb[0];
    int nn = nf - 1;
    if (nn != 3 && nn != 4 && nn != 6 && nn != 8 && nn != 9)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: face set '%s': a face has 3, 4, 6, 8 or 9 nodes, found %s%d",
                          path, lineno, nm, nn > TVDS_FACE_MAX_NODES ? "more than " : "",
                          nn > TVDS_FACE_MAX_NODES ? TVDS_FACE_MAX_NODES : nn);
    if (tvds_smap_get(names, nm, strlen(nm)) >= 0)
        return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                          "%s:%ld: '%s' is already a node set (node and face sets share one name "
                          "space)",
                          path, lineno, nm);
    long v[TVDS_FACE_MAX_NODES];
    for (int a = 0; a < nn; a++) {
        char *end;
        errno = 0;
        v[a] = strtol(tb[a + 1], &end, 10);
        if (end == tb[a + 1] || *end || errno || v[a] < 1)
            return TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: face set '%s': bad node id '%.40s'",
                              path, lineno, nm, tb[a + 1]);
        int slot = tvds_lmap_get(&x->map, v[a]);
        for (int d = 0; d < 3; d++)
            if (slot < 0 || x->dof[slot][d] < 0)
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: face set '%s': node %ld has no %s in the DoF table (a "
                                  "face node needs ux, uy and uz)",
                                  path, lineno, nm, v[a], dir_names[d]);
        for (int b = 0; b < a; b++)
            if (v[b] == v[a])
                return TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                  "%s:%ld: face set '%s': a face lists node %ld twice", path,
                                  lineno, nm, v[a]);
    }
    int q = tvds_smap_get(fnames, nm, strlen(nm));
    if (q < 0) {
        tvds_faceset *nfs = tvds_realloc(*fsets, (size_t)(*nfsets + 1) * sizeof *nfs);
        if (!nfs) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        *fsets = nfs;
        q = (*nfsets)++;
        memset(&nfs[q], 0, sizeof nfs[q]);
        nfs[q].name = tvds_strdup(nm);
        if (!nfs[q].name || tvds_smap_put(fnames, nfs[q].name, q, NULL) != TVDS_OK)
            return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    tvds_faceset *fs = &(*fsets)[q];
    if ((fs->nface & (fs->nface - 1)) == 0) { /* capacity doubles at powers of two */
        size_t cap = fs->nface ? 2 * (size_t)fs->nface : 1;
        int *nnn = tvds_realloc(fs->nn, cap * sizeof *nnn);
        if (nnn) fs->nn = nnn;
        long *nno = nnn ? tvds_realloc(fs->nodes, cap * TVDS_FACE_MAX_NODES * sizeof *nno) : NULL;
        if (nno) fs->nodes = nno;
        if (!nnn || !nno) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
    }
    long *dst = fs->nodes + (size_t)fs->nface * TVDS_FACE_MAX_NODES;
    for (int a = 0; a < TVDS_FACE_MAX_NODES; a++)
        dst[a] = a < nn ? v[a] : 0;
    fs->nn[fs->nface++] = nn;
    return TVDS_OK;
}

/* sets.txt: 'set <name> <node>...', '\' continues; every node must have a DoF (x), a set may
 * not list a node twice, names are unique; 'face <name> <node>...' lines make face sets. */
static int read_sets(const char *path, node_index *x, int *nsets, tvds_nodeset **sets, int *nfsets,
                     tvds_faceset **fsets, tvds_ctx *ctx)
{
    *nsets = 0;
    *sets = NULL;
    *nfsets = 0;
    *fsets = NULL;
    FILE *f = tvds_input_open(path, "node-set file", ctx);
    if (!f) return tvds_input_open_error(path, ctx);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, *set_line = NULL;
    int rc = TVDS_OK, cont = 0, nalloc = 0, salloc = 0;
    tvds_smap names, fnames;
    memset(&names, 0, sizeof names);
    memset(&fnames, 0, sizeof fnames);
    tvds_free(x->mark);
    x->mark = tvds_malloc((size_t)(x->nslot > 0 ? x->nslot : 1) * sizeof(int));
    if (!x->mark || tvds_smap_init(&names, 16) != TVDS_OK ||
        tvds_smap_init(&fnames, 16) != TVDS_OK) {
        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (int s = 0; s < x->nslot; s++)
        x->mark[s] = -1;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        size_t l = strlen(line);
        while (l > 0 && isspace((unsigned char)line[l - 1]))
            line[--l] = '\0';
        int next_cont = l > 0 && line[l - 1] == '\\';
        if (next_cont) line[--l] = '\0';
        char *p = line, *end;
        if (!cont) {
            while (isspace((unsigned char)*p))
                p++;
            if (!*p) continue;
            if (!strncmp(p, "face", 4) && isspace((unsigned char)p[4])) {
                if (next_cont) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                    "%s:%ld: a face line cannot continue ('\\'): one face per "
                                    "line",
                                    path, lineno);
                    break;
                }
                rc = read_face_line(p + 4, path, lineno, x, &names, &fnames, nfsets, fsets, ctx);
                if (rc) break;
                continue;
            }
            if (strncmp(p, "set", 3) || !isspace((unsigned char)p[3])) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: expected 'set <name> <node>...' or 'face <name> "
                                "<node>...'",
                                path, lineno);
                break;
            }
            p += 3;
            while (isspace((unsigned char)*p))
                p++;
            char *nm = p;
            while (*p && !isspace((unsigned char)*p))
                p++;
            char save = *p;
            *p = '\0';
            if (!valid_set_name(nm)) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: a set needs a name of letters, digits, '_', '-', '.'",
                                path, lineno);
                break;
            }
            if (tvds_smap_get(&fnames, nm, strlen(nm)) >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: '%s' is already a face set (node and face sets share one "
                                "name space)",
                                path, lineno, nm);
                break;
            }
            int dup = tvds_smap_get(&names, nm, strlen(nm));
            if (dup >= 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: set '%s' is defined twice (first on line %ld)", path,
                                lineno, nm, set_line[dup]);
                break;
            }
            if (*nsets == salloc) {
                int nc = salloc ? 2 * salloc : 16;
                tvds_nodeset *ns2 = tvds_realloc(*sets, (size_t)nc * sizeof **sets);
                long *nl = ns2 ? tvds_realloc(set_line, (size_t)nc * sizeof *nl) : NULL;
                if (ns2) *sets = ns2;
                if (nl) set_line = nl;
                if (!ns2 || !nl) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                    break;
                }
                salloc = nc;
            }
            tvds_nodeset *ns = &(*sets)[*nsets];
            memset(ns, 0, sizeof *ns);
            ns->name = tvds_strdup(nm);
            set_line[*nsets] = lineno;
            (*nsets)++;
            nalloc = 0;
            *p = save;
            if (!ns->name || tvds_smap_put(&names, ns->name, *nsets - 1, NULL) != TVDS_OK) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
        }
        cont = next_cont;
        int q = *nsets - 1;
        tvds_nodeset *ns = &(*sets)[q];
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            if (!*p) break;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p || errno || v < 1 || (*end && !isspace((unsigned char)*end))) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: set '%s': bad node id", path, lineno,
                                ns->name);
                break;
            }
            int slot = tvds_lmap_get(&x->map, v);
            if (slot < 0) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                "%s:%ld: set '%s' names node %ld, which has no DoF in the DoF "
                                "table",
                                path, lineno, ns->name, v);
                break;
            }
            if (x->mark[slot] == q) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: set '%s' lists node %ld twice", path,
                                lineno, ns->name, v);
                break;
            }
            x->mark[slot] = q;
            if (ns->n == nalloc) {
                nalloc = nalloc ? 2 * nalloc : 64;
                long *nn = tvds_realloc(ns->nodes, (size_t)nalloc * sizeof(long));
                if (!nn) {
                    rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "%s: out of memory", path);
                    break;
                }
                ns->nodes = nn;
            }
            ns->nodes[ns->n++] = v;
            p = end;
        }
        if (rc) break;
    }
    if (!rc && ferror(f)) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: read error", path);
    for (int q = 0; !rc && q < *nsets; q++)
        if ((*sets)[q].n == 0)
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%ld: set '%s' is empty", path, set_line[q],
                            (*sets)[q].name);
done:
    free(line); /* getline's buffer */
    fclose(f);
    tvds_smap_free(&names);
    tvds_smap_free(&fnames);
    tvds_free(set_line);
    if (rc) {
        tvds_fe_sets_free(*nsets, sets);
        *nsets = 0;
        tvds_fe_facesets_free(*nfsets, fsets);
        *nfsets = 0;
    }
    return rc;
}

int tvds_fe_dofs_read(const char *dofs_path, const char *sets_path, int *n, tvds_dof **dofs,
                      int *nsets, tvds_nodeset **sets, tvds_ctx *ctx)
{
    *n = 0;
    *dofs = NULL;
    if (nsets) *nsets = 0;
    if (sets) *sets = NULL;
    if (!dofs_path) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_dofs_read: no DoF table given");
    node_index x;
    long *lines = NULL;
    int rc = read_dofs(dofs_path, n, dofs, &lines, &x, ctx);
    if (rc) return rc;
    tvds_free(lines);
    if (sets_path && sets && nsets) {
        int nf = 0;
        tvds_faceset *fs = NULL; /* face sets are read (and checked) but not returned here */
        rc = read_sets(sets_path, &x, nsets, sets, &nf, &fs, ctx);
        tvds_fe_facesets_free(nf, &fs);
    }
    nix_free(&x);
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
    node_index x;
    memset(&x, 0, sizeof x);
    long *lines = NULL;
    int rc = read_dofs(paths->dofs, &m->n, &m->dofs, &lines, &x, ctx);
    if (!rc && paths->sets)
        rc = read_sets(paths->sets, &x, &m->nsets, &m->sets, &m->nfsets, &m->fsets, ctx);
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
    nix_free(&x);
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
static int add_node(const node_index *x, long node, int dir, spec_acc *a, int *found)
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
    node_index x;
    int rc = (!copy || !a.taken) ? TVDS_ERR_NOMEM : nix_build(&x, n, dofs);
    if (rc) {
        tvds_free(copy);
        tvds_free(a.taken);
        return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    }
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*item))
            item++;
        size_t l = strlen(item);
        while (l > 0 && isspace((unsigned char)item[l - 1]))
            item[--l] = '\0';
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
    nix_free(&x);
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
