/* fe_io.c — full (unreduced) FE models on disk: sparse M/K, DoF labels, node sets, and the
 * boundary/recovery DoF specifications of `tvds reduce` (docs/reduce.md). */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tvds/tvds_io.h"
#include "tvds/tvds_reduce.h"

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

void tvds_fe_model_free(tvds_fe_model **pm, cholmod_common *cc)
{
    if (!pm || !*pm) return;
    tvds_fe_model *m = *pm;
    tvds_free(m->name);
    cholmod_free_sparse(&m->M, cc);
    cholmod_free_sparse(&m->K, cc);
    tvds_free(m->dofs);
    tvds_fe_sets_free(m->nsets, &m->sets);
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

int tvds_fe_model_write(const tvds_fe_model *m, const char *dir, tvds_ctx *ctx)
{
    if (!m || !dir) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "fe_model_write: missing argument");
    int rc = make_dir(dir, ctx);
    if (rc) return rc;
    size_t len = strlen(dir) + 32;
    char *path = tvds_malloc(len);
    if (!path) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
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
            if (fclose(f) != 0) rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: write failed", path);
        }
    }
    tvds_free(path);
    return rc;
}

static int blank_or_comment(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#' || *s == '%';
}

int tvds_fe_dofs_read(const char *dofs_path, const char *sets_path, int *n, tvds_dof **dofs,
                      int *nsets, tvds_nodeset **sets, tvds_ctx *ctx)
{
    *n = 0;
    *dofs = NULL;
    if (nsets) *nsets = 0;
    if (sets) *sets = NULL;
    FILE *f = fopen(dofs_path, "r");
    if (!f) return TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", dofs_path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = TVDS_OK, cnt = 0, alloc = 0, lineno = 0;
    tvds_dof *d = NULL;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (blank_or_comment(line)) continue;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        long node;
        char dname[8], extra[2];
        double x, y, z;
        if (sscanf(line, "%ld %7s %lf %lf %lf %1s", &node, dname, &x, &y, &z, extra) != 5) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%d: expected '<node> <dir> <x> <y> <z>'",
                            dofs_path, lineno);
            break;
        }
        int dir = dir_from_name(dname);
        if (dir < 0 || node < 1 || !isfinite(x) || !isfinite(y) || !isfinite(z)) {
            rc = TVDS_ERROR(
                ctx, TVDS_ERR_PARSE, "%s:%d: %s", dofs_path, lineno,
                dir < 0 ? "unknown direction (ux uy uz rx ry rz)"
                        : (node < 1 ? "node ids must be >= 1" : "coordinates must be finite"));
            break;
        }
        for (int q = 0; q < cnt; q++)
            if (d[q].node == node && d[q].dir == dir) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%d: node %ld %s listed twice", dofs_path,
                                lineno, node, dir_names[dir]);
                break;
            }
        if (rc) break;
        if (cnt == alloc) {
            alloc = alloc ? 2 * alloc : 256;
            tvds_dof *nd = tvds_realloc(d, (size_t)alloc * sizeof *d);
            if (!nd) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                break;
            }
            d = nd;
        }
        tvds_dof *dd = &d[cnt++];
        memset(dd, 0, sizeof *dd);
        dd->kind = TVDS_DOF_PHYSICAL;
        dd->node = node;
        dd->dir = dir;
        dd->xyz[0] = x;
        dd->xyz[1] = y;
        dd->xyz[2] = z;
    }
    fclose(f);
    if (!rc && cnt == 0) rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s: no DoF in the table", dofs_path);
    if (!rc && sets_path && sets && nsets) {
        f = fopen(sets_path, "r");
        if (!f) {
            rc = TVDS_ERROR(ctx, TVDS_ERR_IO, "%s: cannot open: %s", sets_path, strerror(errno));
        } else {
            lineno = 0;
            int cont = 0, nalloc = 0;
            while (!rc && getline(&line, &cap, f) >= 0) {
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
                    if (strncmp(p, "set", 3) || !isspace((unsigned char)p[3])) {
                        rc =
                            TVDS_ERROR(ctx, TVDS_ERR_PARSE,
                                       "%s:%d: expected 'set <name> <node>...'", sets_path, lineno);
                        break;
                    }
                    p += 3;
                    while (isspace((unsigned char)*p))
                        p++;
                    char *nm = p;
                    while (*p && !isspace((unsigned char)*p))
                        p++;
                    if (p == nm) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%d: a set needs a name", sets_path,
                                        lineno);
                        break;
                    }
                    char save = *p;
                    *p = '\0';
                    tvds_nodeset *ns2 = tvds_realloc(*sets, (size_t)(*nsets + 1) * sizeof **sets);
                    if (!ns2) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                        break;
                    }
                    *sets = ns2;
                    tvds_nodeset *ns = &(*sets)[(*nsets)++];
                    memset(ns, 0, sizeof *ns);
                    ns->name = tvds_strdup(nm);
                    nalloc = 0;
                    *p = save;
                    if (!ns->name) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                        break;
                    }
                }
                cont = next_cont;
                tvds_nodeset *ns = &(*sets)[*nsets - 1];
                for (;;) {
                    while (isspace((unsigned char)*p))
                        p++;
                    if (!*p) break;
                    errno = 0;
                    long v = strtol(p, &end, 10);
                    if (end == p || errno || v < 1 || (*end && !isspace((unsigned char)*end))) {
                        rc = TVDS_ERROR(ctx, TVDS_ERR_PARSE, "%s:%d: bad node id in set '%s'",
                                        sets_path, lineno, ns->name);
                        break;
                    }
                    if (ns->n == nalloc) {
                        nalloc = nalloc ? 2 * nalloc : 64;
                        long *nn = tvds_realloc(ns->nodes, (size_t)nalloc * sizeof(long));
                        if (!nn) {
                            rc = TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
                            break;
                        }
                        ns->nodes = nn;
                    }
                    ns->nodes[ns->n++] = v;
                    p = end;
                }
            }
            fclose(f);
        }
    }
    free(line); /* allocated by getline */
    if (rc) {
        tvds_free(d);
        if (sets && nsets) tvds_fe_sets_free(*nsets, sets);
        if (nsets) *nsets = 0;
        return rc;
    }
    *n = cnt;
    *dofs = d;
    return TVDS_OK;
}

static int add_idx(int g, int *count, int **idx, int *alloc)
{
    for (int k = 0; k < *count; k++)
        if ((*idx)[k] == g) return TVDS_OK;
    if (*count == *alloc) {
        *alloc = *alloc ? 2 * *alloc : 64;
        int *ni = tvds_realloc(*idx, (size_t)*alloc * sizeof(int));
        if (!ni) return TVDS_ERR_NOMEM;
        *idx = ni;
    }
    (*idx)[(*count)++] = g;
    return TVDS_OK;
}

/* Add the DoFs of node (all directions in ascending order, or only dir >= 0). */
static int add_node(long node, int dir, int n, const tvds_dof *dofs, int *count, int **idx,
                    int *alloc, int *found)
{
    for (int d = 0; d < 6; d++) {
        if (dir >= 0 && d != dir) continue;
        for (int g = 0; g < n; g++)
            if (dofs[g].kind == TVDS_DOF_PHYSICAL && dofs[g].node == node && dofs[g].dir == d) {
                (*found)++;
                if (add_idx(g, count, idx, alloc)) return TVDS_ERR_NOMEM;
            }
    }
    return TVDS_OK;
}

int tvds_reduce_parse_spec(const char *spec, int n, const tvds_dof *dofs, int nsets,
                           const tvds_nodeset *sets, int *count, int **idx, tvds_ctx *ctx)
{
    *count = 0;
    *idx = NULL;
    if (!spec || !*spec) return TVDS_ERROR(ctx, TVDS_ERR_INVALID, "empty DoF specification");
    char *copy = tvds_strdup(spec);
    if (!copy) return TVDS_ERROR(ctx, TVDS_ERR_NOMEM, "out of memory");
    int rc = TVDS_OK, alloc = 0;
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
            found = 1;
            if (add_idx((int)g, count, idx, &alloc)) rc = TVDS_ERR_NOMEM;
            continue;
        }
        const char *name = item;
        int dir = -1, force_set = 0;
        char *dot = strrchr(item, '.');
        if (!strncmp(item, "set:", 4)) {
            name = item + 4;
            force_set = 1;
        }
        if (dot) {
            int d = dir_from_name(dot + 1);
            if (d >= 0) {
                *dot = '\0';
                dir = d;
            }
        }
        if (!force_set && isdigit((unsigned char)name[0])) {
            char *end;
            long node = strtol(name, &end, 10);
            if (*end) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec '%s': bad node id", item);
                break;
            }
            if (add_node(node, dir, n, dofs, count, idx, &alloc, &found)) rc = TVDS_ERR_NOMEM;
        } else {
            int q = 0;
            while (q < nsets && strcmp(sets[q].name, name))
                q++;
            if (q == nsets) {
                rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec: no node set called '%s'", name);
                break;
            }
            for (int a = 0; a < sets[q].n && !rc; a++)
                if (add_node(sets[q].nodes[a], dir, n, dofs, count, idx, &alloc, &found))
                    rc = TVDS_ERR_NOMEM;
        }
        if (!rc && !found)
            rc = TVDS_ERROR(ctx, TVDS_ERR_INVALID, "DoF spec '%s' matches no DoF of the model",
                            spec);
    }
    if (rc == TVDS_ERR_NOMEM) TVDS_ERROR(ctx, rc, "out of memory");
    tvds_free(copy);
    if (rc) {
        tvds_free(*idx);
        *idx = NULL;
        *count = 0;
    }
    return rc;
}
